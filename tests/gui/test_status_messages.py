"""The status bar speaks in sentences with the fix, keeps raw error text behind Details, lets stale
messages go, and names run states in plain words."""

from __future__ import annotations

import asyncio

import pytest
import pytest_asyncio
from PySide6.QtWidgets import QApplication, QPlainTextEdit

from app.gui import status_line as status_line_module
from app.gui import status_messages
from app.gui.runs.state_words import state_sentence, state_word
from app.gui.status_line import DetailsDialog, StatusLine
from app.gui.status_messages import explain
from tests.support.waiting import until

ADB_REFUSED = "connect to adb server failed: [Errno 111] Connection refused"


@pytest_asyncio.fixture
async def window(window_in_private_home):
    yield window_in_private_home


# ----------------------------------------------------------------------------- sentences


def test_the_adb_servers_refusal_becomes_a_sentence_with_the_fix(monkeypatch):
    monkeypatch.delenv("ANDROID_ADB_SERVER_PORT", raising=False)
    monkeypatch.delenv("ANDROID_ADB_SERVER_HOST", raising=False)
    message = explain(ADB_REFUSED)
    assert message.text == ("Cannot reach the ADB server on 127.0.0.1:5037 — start it with `adb start-server`, "
                            "or the app uses its virtual phone.")
    assert message.details == ADB_REFUSED and message.error
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", "5038")
    assert "127.0.0.1:5038" in explain(ADB_REFUSED).text, "the server the app really talks to"


@pytest.mark.parametrize("raw, expected", [
    ("Cannot reach the ADB server at 10.0.0.5:5037: [Errno 111] Connection refused. Install Android "
     "platform-tools, or start a server with `adb start-server`.", "Cannot reach the ADB server on 10.0.0.5:5037"),
    ("Could not connect to 192.168.1.20:5555: failed to connect to '192.168.1.20:5555': Connection refused.",
     "Could not connect to 192.168.1.20:5555 over Wi-Fi — turn on Wireless debugging"),
    ("AdbError: device 'R58M123' not found", "The phone R58M123 is not connected — plug it in again"),
    ("AdbError: device unauthorized.", "has not allowed this computer yet — unlock it and accept"),
    ("OSError: [Errno 28] No space left on device: '/home/a/runs'", "The disk is full — free some space"),
    ("PermissionError: [Errno 13] Permission denied: '/srv/runs'", "Agent Desk may not use /srv/runs — check"),
    ("socket.gaierror: [Errno -2] Name or service not known", "not known — check its spelling"),
    ("Mirror: disconnected: ConnectionResetError: [Errno 104] Connection reset by peer",
     "The connection dropped — check the cable or Wi-Fi"),
    ("Other machines' phones are not listed: KeyError: 'port'", "Other machines' phones are not listed — try again"),
    ("RuntimeError: something odd", "Something went wrong — try again"),
])
def test_raw_error_text_is_explained_and_kept_for_the_details(raw, expected):
    message = explain(raw)
    assert expected in message.text and message.text[0].isupper(), message.text
    assert message.details == raw and message.error
    for raw_word in ("Errno", "Error:", "Traceback"):
        assert raw_word not in message.text


@pytest.mark.parametrize("sentence", [
    "Touch mode: clicks tap the phone, drags swipe.",
    "API key stored in the system keyring.",
    "The model cannot read images (the server said: image input is not supported). ",
])
def test_a_sentence_the_app_wrote_is_shown_as_it_is(sentence):
    message = explain(sentence)
    assert message.text == sentence and message.details == ""


def test_an_ongoing_condition_stays_and_the_rest_fade():
    assert explain("emulator-5554 was disconnected; waiting for it to come back…").seconds is None
    assert explain("Inspect mode.").seconds == status_messages.INFO_SECONDS
    assert explain(ADB_REFUSED).seconds == status_messages.ERROR_SECONDS > status_messages.INFO_SECONDS


# ----------------------------------------------------------------------------- the status bar


@pytest.mark.asyncio
async def test_the_window_shows_raw_text_as_a_sentence_and_the_raw_text_only_in_details(window):
    window.show_status(ADB_REFUSED)
    shown = window.status.text()
    assert shown.startswith("Cannot reach the ADB server on 127.0.0.1:5037") and "adb start-server" in shown
    assert "Errno" not in shown and "Errno" not in window.status.toolTip()
    line = window.status_line
    assert line.details_link.isVisible()
    line.show_details()
    dialog = line.details_dialog
    assert isinstance(dialog, DetailsDialog) and dialog.isVisible() and not dialog.isModal()
    assert dialog.findChild(QPlainTextEdit).toPlainText() == ADB_REFUSED
    dialog.close()
    await asyncio.sleep(0.05)
    window.show_status("Touch mode: clicks tap the phone, drags swipe.")
    await asyncio.sleep(status_line_module.ERROR_HOLD_MS / 1000 + 0.2)
    assert window.status.text() == "Touch mode: clicks tap the phone, drags swipe."
    assert not line.details_link.isVisible(), "no Details for a plain sentence"


@pytest.mark.asyncio
async def test_old_messages_fade_and_errors_are_not_wiped_at_once(qapp, monkeypatch):
    monkeypatch.setattr(status_messages, "INFO_SECONDS", 0.6)
    monkeypatch.setattr(status_messages, "ERROR_SECONDS", 1.2)
    monkeypatch.setattr(status_line_module, "ERROR_HOLD_MS", 300)
    line = StatusLine()
    line.show()
    try:
        line.show_text("Inspect mode.")
        assert line.label.text() == "Inspect mode."
        await until(lambda: line.label.text() == "", seconds=3)          # a plain message goes after a while

        line.show_text("emulator-5554 was disconnected; waiting for it to come back…")
        await asyncio.sleep(0.8)
        assert "waiting for it to come back" in line.label.text(), "an ongoing condition stays"
        line.show_text("emulator-5554 is back.")
        assert line.label.text() == "emulator-5554 is back.", "until something replaces it"

        line.show_text(ADB_REFUSED)
        line.show_text("Inspect mode.")
        assert line.label.text().startswith("Cannot reach the ADB server"), "a remark does not wipe a fresh error"
        await until(lambda: line.label.text() == "Inspect mode.", seconds=3)   # it follows once the error was read
        line.show_text(ADB_REFUSED)
        line.show_text("Could not connect to 1.2.3.4:5555: failed to connect to '1.2.3.4:5555'")
        assert line.label.text().startswith("Could not connect to 1.2.3.4:5555"), "a newer error replaces at once"
        await asyncio.sleep(0.7)
        assert line.label.text().startswith("Could not connect"), "an error stays longer than a remark"
        await until(lambda: line.label.text() == "", seconds=3)          # errors go too, later
    finally:
        line.deleteLater()
        QApplication.processEvents()


# ----------------------------------------------------------------------------- run states


def test_run_states_are_named_in_plain_words():
    assert state_word("CONFIRM") == "Needs your OK" and state_word("CONTINUE") == "Working"
    assert state_sentence("CONFIRM", "waiting for the person: step mode: every action is reviewed") == \
        "Needs your OK — step mode: every action is reviewed"
    assert state_sentence("CONTINUE", "the person chose to reject") == "Working — you rejected the action"


@pytest.mark.asyncio
async def test_the_request_panel_says_needs_your_ok_not_confirm(window):
    window.controller.state_changed.emit("CONFIRM", "waiting for the person: sensitive: it sends a message")
    status = window.request.status.text()
    assert status.startswith("Needs your OK") and "CONFIRM" not in status and "waiting for the person" not in status
