"""Notes says "Note saved" in a toast (a system window: in the picture, never in the dump) and "Note deleted" in a
snackbar with Undo (part of the app's window: in the dump) that goes by itself after Material's 2.75 s, or after
the person's Accessibility › Time to take action when that is longer; Undo puts the note back where it was."""

from __future__ import annotations

import time

from app.virtual_phone.apps import base
from app.virtual_phone.apps.notes import EditorScreen
from app.virtual_phone.phone import VirtualPhone
from tests.virtual_phone.conftest import center_of, find_node

NOTES = "com.agentdesk.notes"


def delete_first_note(phone: VirtualPhone) -> str:
    phone.launch(NOTES)
    notes = phone.apps[NOTES]
    title = notes.notes[0]["title"]
    editor = EditorScreen(notes, 0)
    notes.push(editor)
    editor.delete()
    phone.changed()
    return title


def test_undo_on_the_snackbar_puts_the_note_back(monkeypatch):
    phone = VirtualPhone()
    title = delete_first_note(phone)
    assert title not in [n["title"] for n in phone.apps[NOTES].notes]
    undo = find_node(phone, text="Undo")
    assert undo is not None and find_node(phone, text="Note deleted") is not None
    phone.tap(*center_of(undo))
    assert phone.apps[NOTES].notes[0]["title"] == title
    assert find_node(phone, text="Undo") is None


def test_the_snackbar_goes_by_itself_after_its_time(monkeypatch):
    monkeypatch.setattr(base, "SNACKBAR_SECONDS", 0.2)
    phone = VirtualPhone()
    delete_first_note(phone)
    assert find_node(phone, text="Undo") is not None
    time.sleep(0.3)
    assert find_node(phone, text="Undo") is None, "gone, with no input"


def test_time_to_take_action_keeps_the_snackbar_longer(monkeypatch):
    monkeypatch.setattr(base, "SNACKBAR_SECONDS", 0.2)
    phone = VirtualPhone()
    phone.put_setting("secure", "accessibility_interactive_ui_timeout_ms", "1000")
    delete_first_note(phone)
    time.sleep(0.3)
    assert find_node(phone, text="Undo") is not None


def test_saving_a_note_shows_a_toast_that_is_not_in_the_dump():
    phone = VirtualPhone()
    phone.launch(NOTES)
    notes = phone.apps[NOTES]
    editor = EditorScreen(notes, None)
    notes.push(editor)
    editor.fields["title"].insert("Groceries")
    before = phone.screenshot()
    notes.pop()
    phone.changed()
    assert phone.toast_shown == "Note saved"
    assert find_node(phone, text="Note saved") is None, "a toast is its own window: uiautomator does not dump it"
    assert phone.screenshot() is not before
    other = VirtualPhone()
    other.launch(NOTES)
    other.apps[NOTES].push(EditorScreen(other.apps[NOTES], 0))
    other.apps[NOTES].pop()
    assert other.toast_shown is None, "leaving a note unchanged saves nothing and says nothing"
