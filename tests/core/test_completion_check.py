"""What the screen can verify after a FINISH, on real controls from the virtual phone's settings."""

from __future__ import annotations

import pytest

from app.core.agent.actions import Expectation, parse_reply_dict
from app.core.agent.completion_check import CompletionVerdict, normalise, screen_shows
from app.core.agent.memory import RunResult
from app.core.agent.run_words import ending_words
from app.core.perception.hierarchy import extract_controls
from app.virtual_phone.phone import VirtualPhone


def tap(phone: VirtualPhone, controls, name: str):
    control = next(c for c in controls if c.name.startswith(name) or c.text == name)
    left, top, right, bottom = control.rect
    phone.tap((left + right) // 2, (top + bottom) // 2)
    return extract_controls(phone.dump_hierarchy(), phone.screenshot().size)


@pytest.fixture(scope="module")
def network_screen():
    """Settings › Network & internet: a "Wi‑Fi, Off" row (non-breaking hyphen) with an unchecked switch."""
    phone = VirtualPhone()
    controls = extract_controls(phone.dump_hierarchy(), phone.screenshot().size)
    controls = tap(phone, controls, "Settings")
    return tap(phone, controls, "Network & internet")


def test_a_switch_is_found_through_its_row_and_its_state_read(network_screen):
    assert screen_shows(Expectation(control="Wi-Fi", checked=False), network_screen) == (True, "“Wi-Fi” is off")
    seen, why = screen_shows(Expectation(control="wi-fi", checked=True), network_screen)
    assert not seen and why == "“wi-fi” is not on"


def test_text_is_verified_only_where_it_is_shown(network_screen):
    assert screen_shows(Expectation(control="Private DNS", text="Private DNS"), network_screen)[0]
    assert screen_shows(Expectation(text="T-Mobile"), network_screen) == (True, "the screen shows “T-Mobile”")
    seen, why = screen_shows(Expectation(text="Vodafone"), network_screen)
    assert not seen and "“Vodafone” is not shown" in why


def test_nothing_is_verified_without_a_fact_to_look_for(network_screen):
    assert screen_shows(None, network_screen)[0] is False
    seen, why = screen_shows(Expectation(control="Wi-Fi"), network_screen)
    assert not seen and "did not name" in why, "a control merely being there proves nothing"
    seen, why = screen_shows(Expectation(control="Bluetooth", checked=True), network_screen)
    assert not seen and "no control called “Bluetooth”" in why
    seen, why = screen_shows(Expectation(control="VPN", checked=True), network_screen)
    assert not seen and "no on/off state" in why


def test_names_compare_as_a_person_reads_them():
    assert normalise("Wi\u2011Fi,  OFF") == normalise("wi-fi, off") == "wi-fi, off"


def test_a_malformed_expectation_is_dropped_not_the_reply():
    base = {"thought": "", "action": {"function": "", "arguments": {}, "status": "FINISH"}, "comment": "done"}
    assert parse_reply_dict({**base, "expect": "Wi-Fi is on"}).expect is None
    assert parse_reply_dict({**base, "expect": {"control": "Wi-Fi", "checked": "very"}}).expect is None
    kept = parse_reply_dict({**base, "expect": {"control": "Wi-Fi", "checked": True}}).expect
    assert kept == Expectation(control="Wi-Fi", checked=True) and kept.names_a_fact


def test_the_verdict_says_how_the_ending_stands():
    assert CompletionVerdict(True, "screen").ending == "screen"
    assert CompletionVerdict(True, "model").ending == "model"
    assert CompletionVerdict(None).ending == "claimed" and not CompletionVerdict(None).refuted
    assert CompletionVerdict(False, "model").refuted
    done = RunResult("success", 3, [], 1.0, verification="screen", verification_note="“Wi-Fi” is on")
    assert ending_words(done) == "verified by the screen: “Wi-Fi” is on"
    assert ending_words(RunResult("failed", 3, [], 1.0, verification="screen")) == ""
    assert ending_words(RunResult("success", 3, [], 1.0)) == "", "a run recorded before endings were checked"
