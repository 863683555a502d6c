"""Stable screen signatures: the same screen whatever its clock, counters, rows or switch states;
different screens apart; live controls and recorded summaries alike."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from xml.sax.saxutils import quoteattr

import pytest
from lxml import etree

from app.core.learning.screen_signature import ScreenSignature, as_view, stable_signature, structure_entries
from app.core.perception.hierarchy import extract_controls
from app.core.perception.locator import ControlSummary, summarize_controls
from tests.conftest import CORPUS_DIR, CORPUS_MISSING

MESSAGES = "com.google.android.apps.messaging"
SETTINGS = "com.android.settings"


def node(*children: str, cls: str = "android.widget.FrameLayout", bounds: str = "[0,0][1080,2400]",
         package: str = MESSAGES, **attrs) -> str:
    """A `<node>` as uiautomator writes it; keyword names use _ for - (resource_id, content_desc…)."""
    attributes = {"class": cls, "package": package, "bounds": bounds}
    for key, value in attrs.items():
        attributes[key.replace("_", "-")] = ("true" if value else "false") if isinstance(value, bool) else value
    rendered = " ".join(f"{key}={quoteattr(value)}" for key, value in attributes.items())
    return f"<node {rendered}>{''.join(children)}</node>"


def text(value: str, bounds: str, **attrs) -> str:
    return node(cls="android.widget.TextView", text=value, bounds=bounds, **attrs)


def dump(*windows: str) -> str:
    return ("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
            f'<hierarchy rotation="0">{"".join(windows)}</hierarchy>')


def status_bar(clock: str, battery: str) -> str:
    return node(text(clock, "[40,0][160,80]", package="com.android.systemui"),
                text(battery, "[900,0][1040,80]", package="com.android.systemui"),
                bounds="[0,0][1080,80]", package="com.android.systemui")


def conversation_row(index: int, name: str, snippet: str, when: str) -> str:
    top = 400 + 200 * index
    return node(
        text(name, f"[200,{top + 20}][800,{top + 90}]", resource_id=f"{MESSAGES}:id/conversation_name"),
        text(snippet, f"[200,{top + 100}][900,{top + 170}]", resource_id=f"{MESSAGES}:id/conversation_snippet"),
        text(when, f"[900,{top + 20}][1060,{top + 90}]", resource_id=f"{MESSAGES}:id/conversation_timestamp"),
        cls="android.widget.LinearLayout", clickable=True, bounds=f"[0,{top}][1080,{top + 200}]",
        resource_id=f"{MESSAGES}:id/swipeableContainer")


PEOPLE = [("Alice", "See you tomorrow", "10:30"), ("Bob", "Thanks!", "Yesterday"), ("Carol", "On my way", "Mon"),
          ("Dan", "Call me at 5", "Sun"), ("Eve", "Okay", "12/03"), ("Frank", "Sure thing", "11/03")]


def conversation_list(clock: str = "10:42", unread: int = 3, rows: int = 5, people=PEOPLE) -> str:
    app = node(
        text("Messages", "[40,120][600,220]"),
        text(f"{unread} unread", "[620,120][900,220]"),
        node(cls="android.widget.ImageButton", content_desc="Search", clickable=True, bounds="[920,120][1060,220]"),
        node(*(conversation_row(i, *people[i]) for i in range(rows)), cls="androidx.recyclerview.widget.RecyclerView",
             scrollable=True, bounds="[0,400][1080,2200]", resource_id=f"{MESSAGES}:id/conversation_list"),
        node(cls="android.widget.Button", text="Start chat", clickable=True, bounds="[640,2220][1040,2360]",
             resource_id=f"{MESSAGES}:id/start_chat_fab"),
        bounds="[0,80][1080,2400]")
    return dump(app, status_bar(clock, "87%"))


def conversation(typed: str = "", messages=("Hi!", "How are you?", "Fine, and you?"), clock: str = "10:42") -> str:
    bubbles = [text(message, f"[{100 if i % 2 else 500},{500 + 150 * i}][1000,{600 + 150 * i}]",
                    resource_id=f"{MESSAGES}:id/message_text") for i, message in enumerate(messages)]
    app = node(
        node(cls="android.widget.ImageButton", content_desc="Back", clickable=True, bounds="[0,120][140,220]"),
        text("Alice", "[160,120][700,220]", resource_id=f"{MESSAGES}:id/conversation_title"),
        node(*bubbles, cls="androidx.recyclerview.widget.RecyclerView", scrollable=True,
             bounds="[0,400][1080,2000]", resource_id=f"{MESSAGES}:id/messages_list"),
        node(cls="android.widget.EditText", text=typed, hint="Text message", clickable=True, focused=bool(typed),
             bounds="[40,2050][900,2200]", resource_id=f"{MESSAGES}:id/compose_message_text"),
        node(cls="android.widget.ImageButton", content_desc="Send SMS", clickable=True, bounds="[920,2050][1060,2200]",
             resource_id=f"{MESSAGES}:id/send_message_button"),
        bounds="[0,80][1080,2400]")
    return dump(app, status_bar(clock, "86%"))


def settings_row(index: int, title: str, switch: bool | None = None) -> str:
    top = 500 + 220 * index
    parts = [text(title, f"[180,{top + 40}][800,{top + 120}]", package=SETTINGS, resource_id="android:id/title")]
    if switch is not None:
        parts.append(node(cls="android.widget.Switch", checkable=True, checked=switch, clickable=True,
                          text="ON" if switch else "OFF", package=SETTINGS, resource_id="android:id/switch_widget",
                          bounds=f"[900,{top + 50}][1040,{top + 150}]"))
    return node(*parts, cls="android.widget.LinearLayout", clickable=True, package=SETTINGS,
                bounds=f"[0,{top}][1080,{top + 220}]")


def settings_page(airplane: bool = False, wifi: bool = True) -> str:
    app = node(
        node(cls="android.widget.ImageButton", content_desc="Navigate up", clickable=True, package=SETTINGS,
             bounds="[0,120][140,260]"),
        text("Network & internet", "[40,280][1000,420]", package=SETTINGS,
             resource_id=f"{SETTINGS}:id/collapsing_title"),
        node(cls="android.widget.Switch", checkable=True, checked=wifi, clickable=True, text="ON" if wifi else "OFF",
             package=SETTINGS, bounds="[900,300][1040,400]"),          # a fixed switch that says its state
        node(settings_row(0, "Internet"), settings_row(1, "Wi-Fi", wifi), settings_row(2, "Calls & SMS"),
             settings_row(3, "Airplane mode", airplane), cls="androidx.recyclerview.widget.RecyclerView",
             scrollable=True, package=SETTINGS, bounds="[0,480][1080,2300]",
             resource_id=f"{SETTINGS}:id/recycler_view"),
        package=SETTINGS, bounds="[0,80][1080,2400]")
    return dump(app, status_bar("9:05", "100%"))


def settings_dialog() -> str:
    dialog = node(
        text("Turn off Wi-Fi?", "[120,900][960,1000]", package=SETTINGS, resource_id="android:id/alertTitle"),
        text("Calls will use the mobile network.", "[120,1020][960,1200]", package=SETTINGS,
             resource_id="android:id/message"),
        node(cls="android.widget.Button", text="Cancel", clickable=True, package=SETTINGS,
             resource_id="android:id/button2", bounds="[500,1250][720,1350]"),
        node(cls="android.widget.Button", text="Turn off", clickable=True, package=SETTINGS,
             resource_id="android:id/button1", bounds="[740,1250][960,1350]"),
        package=SETTINGS, bounds="[80,860][1000,1400]")
    return dump(dialog)


def signature(xml: str, app: str = MESSAGES, activity: str = "") -> ScreenSignature:
    return stable_signature(app, activity, extract_controls(xml))


# --- the same screen ---------------------------------------------------------------------------------


def test_clock_battery_and_counter_do_not_change_the_signature():
    before = signature(conversation_list(clock="10:42", unread=3))
    after = signature(conversation_list(clock="23:59", unread=14))
    assert before == after
    assert before.structure and all(c in "0123456789abcdef" for c in before.structure)


def test_one_more_row_and_other_row_contents_give_the_same_signature():
    five = signature(conversation_list(rows=5))
    six = signature(conversation_list(rows=6))
    others = signature(conversation_list(rows=5, people=list(reversed(PEOPLE))))
    one = signature(conversation_list(rows=1))
    two = signature(conversation_list(rows=2))
    assert five == six == others == one == two


def test_rows_without_resource_ids_in_a_scrolling_list_count_once():
    def compose_list(names: list[str]) -> str:
        rows = [node(text(name, f"[40,{420 + 160 * i}][700,{500 + 160 * i}]"), cls="android.view.View", clickable=True,
                     bounds=f"[0,{400 + 160 * i}][1080,{560 + 160 * i}]") for i, name in enumerate(names)]
        return dump(node(text("Contacts", "[40,120][600,220]"),
                         node(*rows, cls="android.view.View", scrollable=True, bounds="[0,400][1080,2300]")))

    three = compose_list(["Alice", "Bob", "Carol"])
    assert signature(three) == signature(compose_list(["Zoe", "Yann", "Xavier", "Will"]))
    assert signature(three) != signature(three.replace("Contacts", "Groups"))


def test_switch_states_do_not_matter():
    assert signature(settings_page(airplane=False, wifi=True), SETTINGS) == \
        signature(settings_page(airplane=True, wifi=False), SETTINGS)


def test_what_is_typed_into_an_edit_field_does_not_matter():
    assert signature(conversation(typed="")) == signature(conversation(typed="On my way, see you at 6"))
    assert signature(conversation(messages=("Hi!",))) == signature(conversation(messages=("Hello", "Where are you?")))


def test_controls_and_their_recorded_summaries_give_the_same_signature():
    for xml in (conversation_list(), conversation(typed="secret"), settings_page(), settings_dialog()):
        controls = extract_controls(xml)
        assert stable_signature("x", "y", controls) == stable_signature("x", "y", summarize_controls(controls))


# --- different screens ---------------------------------------------------------------------------------


def test_a_conversation_and_the_conversation_list_differ():
    assert signature(conversation_list()) != signature(conversation())


def test_a_settings_list_and_a_dialog_differ():
    assert signature(settings_page(), SETTINGS) != signature(settings_dialog(), SETTINGS)


def test_titles_and_button_labels_are_part_of_the_screen():
    page = settings_page()
    assert signature(page, SETTINGS) != signature(page.replace("Network &amp; internet", "Display"), SETTINGS)
    dialog = settings_dialog()
    assert signature(dialog, SETTINGS) != signature(dialog.replace('"Turn off"', '"Forget"'), SETTINGS)


def test_app_and_activity_are_part_of_the_signature():
    controls = extract_controls(settings_page())
    base = stable_signature(SETTINGS, f"{SETTINGS}.SubSettings", controls)
    assert base != stable_signature(SETTINGS, f"{SETTINGS}.Settings", controls)
    assert base.structure == stable_signature("com.other", "", controls).structure


def test_the_id_is_readable_and_stable():
    first = stable_signature(SETTINGS, f"{SETTINGS}.SubSettings", extract_controls(settings_page()))
    assert first.id == f"{SETTINGS}/.SubSettings#{first.structure[:12]}"
    assert stable_signature(SETTINGS, "", []).id.startswith(f"{SETTINGS}/?#")
    assert stable_signature("com.a", "org.b.Main", []).id.startswith("com.a/org.b.Main#")
    assert first.id == stable_signature(SETTINGS, f"{SETTINGS}.SubSettings", extract_controls(settings_page())).id


def test_badly_recorded_summaries_are_read_without_error():
    summaries = [ControlSummary(1, "OK", "Button", rect=[], flags=["clickable"]),
                 ControlSummary(2, "x", "TextView", rect=["a", 1, 2, 3]),
                 ControlSummary(3, "Wi-Fi", "Switch", rect=[0, 0, 100, 100], flags=["checkable", "checked"])]
    entries = structure_entries(summaries)
    assert ("Button", "", "tap", "ok", "r0c0") in entries
    assert as_view(summaries[1]).rect == (0, 0, 0, 0)
    assert as_view(summaries[2]).checkable


# --- the corpus of real dumps --------------------------------------------------------------------------


def _corpus_dumps() -> list[Path]:
    if not CORPUS_DIR.is_dir():
        pytest.skip(CORPUS_MISSING)
    return sorted(CORPUS_DIR.glob("*/*.xml"))


def _changed_content(tree: etree._Element) -> etree._Element:
    """The same screen later: other digits in every text, every switch flipped, words typed into the edit
    fields (those without child nodes: a field that draws its placeholder as a child hides it once typed in)."""
    changed = copy.deepcopy(tree)
    for element in changed.iter("node"):
        for key in ("text", "content-desc"):
            value = element.get(key)
            if value and re.search(r"\d", value):
                element.set(key, re.sub(r"\d", lambda digit: str((int(digit.group()) + 3) % 10), value))
        if element.get("checked") in ("true", "false"):
            element.set("checked", "false" if element.get("checked") == "true" else "true")
        if "EditText" in (element.get("class") or "") and element.find("node") is None:
            element.set("text", "words typed meanwhile")
    return changed


def test_every_corpus_dump_gets_a_signature_that_ignores_changing_content():
    dumps = _corpus_dumps()
    structures = set()
    for path in dumps:
        data = path.read_bytes()
        controls = extract_controls(data)
        found = stable_signature("app", "", controls)
        assert found == stable_signature("app", "", summarize_controls(controls)), path
        later = extract_controls(etree.tostring(_changed_content(etree.fromstring(data))))
        assert stable_signature("app", "", later) == found, path
        structures.add(found.structure)
    assert len(structures) > len(dumps) // 2, "most different real screens must get different signatures"


def test_a_corpus_list_with_one_row_less_is_the_same_screen():
    checked = 0
    for path in _corpus_dumps():
        data = path.read_bytes()
        tree = etree.fromstring(data)
        for element in tree.iter("node"):
            rows = [child for child in element if child.tag == "node"]
            if element.get("scrollable") == "true" and len(rows) >= 3 and rows[-1].get("resource-id") and \
                    len({(row.get("class"), row.get("resource-id")) for row in rows}) == 1:
                element.remove(rows[-1])
                fewer = extract_controls(etree.tostring(tree))
                assert stable_signature("app", "", fewer) == stable_signature("app", "", extract_controls(data)), path
                checked += 1
                break
    assert checked >= 3, "the corpus should hold a few lists of rows with resource-ids"
