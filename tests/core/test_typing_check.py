"""Typing that is checked: reading a field back from a dump, comparing it with what was typed,
and clearing a field of any length on the virtual phone."""

from __future__ import annotations

import pytest

from app.core.agent.typing_check import quote, typing_mismatch
from app.core.device.android_device import AndroidDevice
from app.core.device.text_fields import FieldReading, TextNotCleared, field_of, focused_field
from app.core.perception.hierarchy import parse_hierarchy, select_controls

async_test = pytest.mark.asyncio


def dump(*fields: str) -> str:
    return ('<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0">'
            '<node index="0" text="" class="android.widget.FrameLayout" package="p" bounds="[0,0][1080,2400]">'
            + "".join(fields) + "</node></hierarchy>")


def edit(text: str, *, hint: str | None = None, focused: bool = False, password: bool = False,
         rid: str = "p:id/field", top: int = 100) -> str:
    hint_attribute = f' hint="{hint}"' if hint is not None else ""
    return (f'<node index="0" text="{text}" resource-id="{rid}" class="android.widget.EditText" package="p" '
            f'clickable="true" focusable="true" focused="{str(focused).lower()}" '
            f'password="{str(password).lower()}" bounds="[0,{top}][1080,{top + 100}]"{hint_attribute} />')


# ---------------------------------------------------------------------------- reading a field back


def test_focused_field_is_read_with_its_text():
    reading = focused_field(parse_hierarchy(dump(edit("other", rid="p:id/a"),
                                                 edit("Running late", focused=True, rid="p:id/b", top=300))))
    assert reading is not None and reading.text == "Running late" and reading.name == "b"


def test_text_equal_to_the_hint_counts_as_empty():
    reading = focused_field(parse_hierarchy(dump(edit("Search", hint="Search", focused=True))))
    assert reading.text == "" and reading.hint == "Search"


def test_no_focused_field():
    assert focused_field(parse_hierarchy(dump(edit("x")))) is None


def test_target_field_is_found_in_a_later_dump():
    before = parse_hierarchy(dump(edit("", rid="p:id/a"), edit("", rid="p:id/b", top=300)))
    target = next(c for c in select_controls(before, (1080, 2400)) if c.resource_id == "p:id/b")
    after = parse_hierarchy(dump(edit("", rid="p:id/a", focused=True), edit("hello", rid="p:id/b", top=300)))
    assert field_of(after, target).text == "hello"


# ---------------------------------------------------------------------------- comparing


def test_exact_text_is_no_mismatch():
    assert typing_mismatch("Running 10 minutes late", FieldReading("Running 10 minutes late")) is None


def test_dropped_characters_are_reported_with_what_the_field_shows():
    problem = typing_mismatch("Running 10 minutes late", FieldReading("Running 10 minute"))
    assert problem == ('typed "Running 10 minutes late" but the field shows "Running 10 minute" '
                       "(6 characters were dropped)")


def test_text_left_over_from_before_is_reported():
    problem = typing_mismatch("late", FieldReading("Hello late"), where="“Message”")
    assert problem.startswith('typed "late" but “Message” shows "Hello late"')
    assert "clear_current_text" in problem


def test_no_focused_field_afterwards_is_a_mismatch():
    assert "no text field had focus" in typing_mismatch("abc", None)


def test_formatted_number_is_no_mismatch():
    assert typing_mismatch("5551234", FieldReading("555-1234")) is None
    assert typing_mismatch("5551234", FieldReading("555-123")) is not None


def test_password_is_compared_by_length_and_never_quoted():
    secret = "hunter2!"
    assert typing_mismatch(secret, FieldReading("•" * 8, password=True)) is None
    problem = typing_mismatch(secret, FieldReading("•" * 5, password=True))
    assert problem == "typed 8 characters into the password field but it holds 5"
    assert secret not in typing_mismatch(secret, None, password=True)
    assert typing_mismatch(secret, FieldReading("", password=True)) is None   # length hidden: nothing to check


def test_long_text_is_shortened_in_messages():
    assert len(quote("x" * 500)) <= 82


# ---------------------------------------------------------------------------- clearing on the phone


async def focus_new_note(device: AndroidDevice, field: str = "Title") -> None:
    await device.launch_app("com.agentdesk.notes")
    new_note = next(c for c in (await device.controls()).controls if "new note" in c.name.lower())
    await device.tap(*new_note.center)
    target = next(c for c in (await device.controls()).controls if c.type == "EditText" and c.name == field)
    await device.tap(*target.center)


@async_test
async def test_clearing_removes_500_characters(phone_device, virtual_adb):
    phone = virtual_adb.devices[0].phone
    await focus_new_note(phone_device)
    await phone_device.type_text("y" * 500)
    assert phone.state()["focused_text"] == "y" * 500
    await phone_device.type_text("Groceries", clear_first=True, current_length=20)   # an underestimate
    assert phone.state()["focused_text"] == "Groceries"


@async_test
async def test_clearing_a_multiline_field_with_the_cursor_in_the_middle(phone_device, virtual_adb):
    phone = virtual_adb.devices[0].phone
    await focus_new_note(phone_device, "Note")
    with phone.lock:
        screen, key = phone.focused()
        screen.fields[key].set("first line\n" + "z" * 300 + "\nlast line")
        screen.fields[key].cursor = 5
    left = await phone_device.clear_focused_field()
    assert left is not None and left.text == ""
    assert phone.state()["focused_text"] == ""


@async_test
async def test_a_field_that_will_not_empty_is_reported(phone_device, virtual_adb, monkeypatch):
    phone = virtual_adb.devices[0].phone
    await focus_new_note(phone_device)
    await phone_device.type_text("stubborn")
    monkeypatch.setattr(type(phone), "key", lambda self, code: None)   # the app ignores delete keys
    with pytest.raises(TextNotCleared, match="still holds “stubborn”"):
        await phone_device.type_text("new", clear_first=True)
    assert phone.state()["focused_text"] == "stubborn"     # nothing was typed after the failed clear


@async_test
async def test_on_android_9_an_empty_field_reporting_its_hint_counts_as_cleared():
    """Android 9's dump has no `hint` attribute and shows an empty field's hint as its text."""
    from app.core.device.adb_transport import AdbTransport
    from app.virtual_phone.adb_server import VirtualAdbServer

    with VirtualAdbServer() as server:
        attached = server.add_phone(profile="android9")
        device = AndroidDevice(AdbTransport("127.0.0.1", server.port), attached.serial)
        await focus_new_note(device)
        assert (await device.read_field()).text == "Title"             # the hint, as this dump reports it
        await device.type_text("Groceries", clear_first=True)
        assert attached.phone.state()["focused_text"] == "Groceries"
