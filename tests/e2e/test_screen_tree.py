"""The phone's UI tree on change (issue 14, item 2): a read dumps again only when the picture changed or
input reached the phone since the last dump; one dump at a time; the agent's observation uses it."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime

import pytest
import pytest_asyncio

from app.core.config import MirrorSettings
from app.core.device import device_tree
from app.core.device.adb_transport import AdbTransport
from app.core.device.android_device import ControlsSnapshot
from app.core.device.phone_session import PhoneRegistry
from app.core.device.screen_tree import ScreenTree, TreeReading, screen_name, screen_title
from app.core.perception.controls import Control
from app.core.perception.hierarchy import UiHierarchy, UiNode
from app.core.perception.screen_diff import image_difference
from app.virtual_phone.adb_server import VirtualAdbServer
from app.virtual_phone.phone import VirtualPhone
from tests.e2e.conftest import ScriptedPerson
from tests.support.openai_server import act, json_reply
from tests.support.waiting import until

SETTINGS = "com.android.settings"


class Phone:
    """One virtual phone with a fixed clock (the status bar never ticks) and its session."""

    def __init__(self, stream: str) -> None:
        self.server = VirtualAdbServer().start()
        self.attached = self.server.add_phone(VirtualPhone(clock=lambda: datetime(2026, 11, 21, 9, 41)))
        self.phone = self.attached.phone
        transport = AdbTransport("127.0.0.1", self.server.port)
        self.phones = PhoneRegistry(mirror_settings=lambda: MirrorSettings(stream=stream))
        self.session = self.phones.open(transport, transport.list_devices()[0], virtual=True, timeout=10)
        self.device = self.session.device
        self.tree: ScreenTree = self.session.screen_tree

    def dumps(self) -> int:
        """uiautomator dumps the phone served so far."""
        return sum(1 for argv in self.attached.command_lines() if argv and argv[0] == "uiautomator")

    async def open_network_settings(self) -> None:
        """Settings › Network & internet, by a tap (input: before any reading the tests keep)."""
        assert self.phone.launch(SETTINGS)
        row = next(c for c in (await self.device.controls(refresh=True)).controls
                   if c.name.startswith("Network & internet"))
        await self.device.tap(*row.center)
        await until(lambda: self.phone.foreground()[1].endswith("SubSettings") and not self.phone.motion.moving())

    async def picture_after_change(self, before) -> object:
        """The first frame whose picture differs from `before`: a stream shows a change a moment after
        it happened (longer on a loaded machine), and a read takes the screen as the frames show it."""
        for _ in range(100):
            frame = await self.session.frames.frame_after()
            if image_difference(before.image, frame.image) > 0:
                return frame
            await asyncio.sleep(0.05)
        raise AssertionError("the frames never showed the change")

    async def close(self) -> None:
        await self.phones.close()
        self.server.stop()


@pytest_asyncio.fixture(params=["screenshots", "auto"])
async def phone(request):
    """Frames by screenshots, and from scrcpy's stream ("auto") where that runs."""
    made = Phone(request.param)
    yield made
    await made.close()


@pytest.mark.asyncio
async def test_an_unchanged_screen_is_answered_from_the_kept_tree_even_past_the_cache_time(phone, monkeypatch):
    monkeypatch.setattr(device_tree, "CONTROLS_TTL_SECONDS", 0.0)     # the device's own cache never serves
    assert phone.phone.launch(SETTINGS)
    first = await phone.tree.read()
    assert first.from_cache is False and phone.dumps() == 1
    second = await phone.tree.read()
    assert second.from_cache is True and phone.dumps() == 1
    assert second.snapshot is first.snapshot and second.screen_id == first.screen_id
    assert second.read_at == first.read_at and second.age_seconds >= first.age_seconds - 0.001
    assert phone.tree.latest is not None and phone.tree.latest.screen_id == first.screen_id


@pytest.mark.asyncio
async def test_a_screen_that_changed_without_our_input_is_dumped_again_with_a_new_id(phone):
    await phone.open_network_settings()
    shown = await phone.session.frames.frame_after()
    before = await phone.tree.read(shown)
    dumps = phone.dumps()
    assert phone.tree.reusable()
    phone.phone.put_setting("global", "wifi_on", "1")       # as if another app turned Wi-Fi on
    changed = await phone.picture_after_change(shown)
    assert phone.dumps() == dumps                           # nothing dumps by itself
    after = await phone.tree.read(changed)
    assert after.from_cache is False and phone.dumps() == dumps + 1
    assert after.screen_id != before.screen_id
    assert any(c.checked for c in after.controls if c.type == "Switch")
    again = await phone.tree.read()
    assert again.from_cache is True and again.screen_id == after.screen_id and phone.dumps() == dumps + 1


@pytest.mark.asyncio
async def test_input_through_the_device_makes_the_next_read_dump(phone):
    await phone.open_network_settings()
    before = await phone.tree.read()
    dumps = phone.dumps()
    title = next(c for c in before.controls if c.text == "Network & internet")
    await phone.device.tap(*title.center)            # a tap on a plain text: the screen stays as it was
    assert not phone.tree.reusable()
    after = await phone.tree.read()
    assert after.from_cache is False and phone.dumps() == dumps + 1
    assert after.screen_id == before.screen_id       # same screen state, same id


@pytest.mark.asyncio
async def test_concurrent_reads_share_one_dump(phone):
    assert phone.phone.launch(SETTINGS)
    await phone.device.screen_info()                 # (asked once per phone; not part of what is measured)
    readings = await asyncio.gather(*(phone.tree.read() for _ in range(3)))
    assert phone.dumps() == 1
    assert sorted(r.from_cache for r in readings) == [False, True, True]
    assert len({r.screen_id for r in readings}) == 1


@pytest.mark.asyncio
async def test_a_given_frame_is_compared_and_an_older_picture_makes_a_dump(phone):
    assert phone.phone.launch(SETTINGS)
    frame = await phone.session.frames.frame_after()
    await phone.tree.read(frame)
    assert (await phone.tree.read(frame)).from_cache is True
    phone.phone.go_home()
    home = await phone.tree.read(await phone.picture_after_change(frame))
    assert home.from_cache is False and home.package == "com.android.launcher3"
    assert (await phone.tree.read(frame)).from_cache is False      # that frame shows Settings, not home
    assert phone.dumps() == 3


@pytest.mark.asyncio
async def test_readings_name_the_app_activity_and_screen(phone):
    shown = await phone.session.frames.frame_after()
    home = await phone.tree.read(shown)
    assert home.activity.endswith("QuickstepLauncher")
    assert home.screen_name == "QuickstepLauncher"       # the launcher's date is no title
    assert phone.phone.launch(SETTINGS)
    settings = await phone.tree.read(await phone.picture_after_change(shown))
    assert (settings.package, settings.activity) == (SETTINGS, "com.android.settings.Settings")
    assert settings.screen_name == "Settings"            # activity and title say the same
    await phone.open_network_settings()
    network = await phone.tree.read()
    assert network.activity == "com.android.settings.SubSettings"
    assert network.screen_name == "SubSettings › Network & internet"
    assert len(network.screen_id) == 12 and network.screen_id not in (settings.screen_id, home.screen_id)


# ---------------------------------------------------------------- the screen's title, from controls alone

def control(text: str, rect, *, resource_id: str = "", package: str = "com.example", clickable: bool = False,
            class_name: str = "android.widget.TextView") -> Control:
    return Control(id=0, name=text, type=class_name.rsplit(".", 1)[-1], class_name=class_name,
                   resource_id=resource_id, text=text, content_desc="", rect=rect, clickable=clickable,
                   package=package)


def snapshot_of(*controls: Control) -> ControlsSnapshot:
    window = UiNode({"package": "com.example"}, "android.widget.FrameLayout", (0, 0, 1080, 2400), (0,))
    return ControlsSnapshot(list(controls), UiHierarchy(0, [window]), "", 0.0, 0.0)


def test_the_title_skips_the_status_bar_buttons_fields_and_times_and_prefers_a_title_id():
    shown = snapshot_of(
        control("9:41", (40, 0, 140, 80), resource_id="com.android.systemui:id/clock", package="com.android.systemui"),
        control("Back", (0, 90, 140, 230), clickable=True, class_name="android.widget.Button"),
        control("Search mail", (150, 100, 900, 220), class_name="android.widget.EditText"),
        control("12:30", (900, 100, 1080, 220)),
        control("Signed in as ann", (150, 240, 900, 300)),
        control("Inbox", (150, 300, 900, 380), resource_id="com.example:id/toolbar_title"),
        control("A message far down", (0, 1500, 1080, 1600)),
    )
    assert screen_title(shown, "com.example") == "Inbox"
    without_id = snapshot_of(*[c for c in shown.controls if c.text != "Inbox"])
    assert screen_title(without_id, "com.example") == "Signed in as ann"
    assert screen_title(snapshot_of(control("A message far down", (0, 1500, 1080, 1600))), "com.example") == ""


def test_screen_names():
    assert screen_name("com.android.settings.SubSettings", "Network & internet") == "SubSettings › Network & internet"
    assert screen_name("com.example.MainActivity", "") == "MainActivity"
    assert screen_name("", "Inbox") == "Inbox"


# ---------------------------------------------------------------- the agent's observation


@pytest.mark.asyncio
async def test_an_agent_step_on_an_unchanged_screen_reuses_the_tree(run_agent, monkeypatch):
    """Two `wait` steps (no input): past the device's cache time the steps still dump only once."""
    monkeypatch.setattr(device_tree, "CONTROLS_TTL_SECONDS", 0.0)
    readings: list[TreeReading] = []
    for name in ("read", "read_during"):
        original = getattr(ScreenTree, name)

        async def recorded(self, *args, _original=original, **kwargs) -> TreeReading:
            reading = await _original(self, *args, **kwargs)
            readings.append(reading)
            return reading
        monkeypatch.setattr(ScreenTree, name, recorded)
    script = [json_reply(act("wait", seconds=0.2)), json_reply(act("wait", seconds=0.2)),
              json_reply(act("", status="FINISH", thought="waited"))]
    outcome = await run_agent("Wait twice", script, ScriptedPerson([]), mode="auto", completion_check="off")
    assert outcome.result.status == "success", outcome.result
    assert [r.from_cache for r in readings] == [False, True, True]
    dumps = [argv for argv in outcome.device.command_lines() if argv and argv[0] == "uiautomator"]
    assert len(dumps) == 1
    steps = outcome.steps()
    assert len(steps) == 3 and all(s.screen_signature == steps[0].screen_signature for s in steps)
    assert outcome.trajectory_problems() == []



# ---------------------------------------------------------------- a text-only change (issue 25 §4)

NOTES = "com.agentdesk.notes"


async def _frame_unlike(phone: Phone, before) -> object:
    """The first frame with any pixel unlike `before` (the thumbnail of `picture_after_change` misses a digit)."""
    from PIL import ImageChops
    for _ in range(100):
        frame = await phone.session.frames.frame_after()
        if ImageChops.difference(before.image.convert("L"), frame.image.convert("L")).getbbox() is not None:
            return frame
        await asyncio.sleep(0.05)
    raise AssertionError("the frames never showed the change")


async def _stream_quiet(phone: Phone) -> object:
    """The stream's last frame once it has sent nothing for 0.3 s. A still picture is sent again, sharper, ten times
    100 ms apart (as a phone's encoder does): a change a test makes next is looked for against this last, sharpest
    picture, or a sharper repeat of the old screen would pass for the change."""
    frames, deadline = phone.session.frames, time.monotonic() + 5
    while time.monotonic() < deadline:
        latest = frames.latest()
        await asyncio.sleep(0.3)
        if latest is not None and frames.latest() is latest:
            return latest
    raise AssertionError("the stream never went quiet")


async def _notes_showing(phone: Phone, body: str) -> None:
    notes = phone.phone.apps[NOTES]
    notes.notes[0]["body"] = body
    phone.phone.changed()


@pytest.mark.asyncio
async def test_one_changed_digit_of_a_14sp_text_gives_a_new_tree_and_screen_id(phone):
    """"3 new messages" → "4 new messages" in a note's 14-sp preview, no input: the next read dumps
    again and shows the new text (a 64-px thumbnail saw no change and kept the old controls)."""
    assert phone.phone.launch(NOTES)
    await _notes_showing(phone, "3 new messages")
    await until(lambda: phone.phone.foreground()[0] == NOTES and not phone.phone.motion.moving())
    shown = await phone.session.frames.frame_after()
    before = await phone.tree.read(shown)
    assert any("3 new messages" in c.name for c in before.controls)
    dumps = phone.dumps()
    assert (await phone.tree.read()).from_cache is True and phone.dumps() == dumps   # still screen: no dump
    quiet = await _stream_quiet(phone)
    await _notes_showing(phone, "4 new messages")
    after = await phone.tree.read(await _frame_unlike(phone, quiet))
    assert after.from_cache is False and phone.dumps() == dumps + 1
    assert any("4 new messages" in c.name for c in after.controls)
    assert after.screen_id != before.screen_id and after.age_seconds < before.age_seconds


@pytest.mark.asyncio
async def test_a_blinking_cursor_in_the_focused_field_makes_no_dump(phone, monkeypatch):
    """The virtual phone draws a steady cursor; the test makes it blink (drawn, then not) through
    the real frames, and the kept tree of the focused field stays."""
    from app.virtual_phone import render
    blink = {"on": True}
    paint_edit = render.PAINTERS["edit"]

    def blinking(im, view):
        view.style["show_cursor"] = view.style.get("show_cursor") and blink["on"]
        paint_edit(im, view)
    monkeypatch.setitem(render.PAINTERS, "edit", blinking)
    # the blink lives in the painter, not in the views: whole pictures, or the repaint would not see it change
    monkeypatch.setattr(phone.phone, "repaint_only_changes", False)
    assert phone.phone.launch(NOTES)
    row = next(c for c in (await phone.device.controls(refresh=True)).controls
               if c.resource_id.endswith("fab_new_note"))
    await phone.device.tap(*row.center)
    await until(lambda: phone.phone.foreground()[1].endswith("NoteEditorActivity") and not phone.phone.motion.moving())
    shown = await phone.session.frames.frame_after()
    before = await phone.tree.read(shown)
    assert any(c.focused and "EditText" in c.class_name for c in before.controls)
    dumps = phone.dumps()
    quiet = await _stream_quiet(phone)
    blink["on"] = False
    phone.phone.changed()
    hidden = await _frame_unlike(phone, quiet)
    again = await phone.tree.read(hidden)
    assert again.from_cache is True and phone.dumps() == dumps


@pytest.mark.asyncio
async def test_read_now_dumps_a_change_the_pictures_have_not_shown_yet(phone, monkeypatch):
    """A check before acting on an approval reads the screen afresh: the frames can lag behind a change
    (a loaded machine), and a picture that looks the same proves nothing then."""
    phone.phone.launch(SETTINGS)
    await phone.tree.read()                   # kept, with the picture of Settings
    stale = await phone.session.frames.frame_after()
    phone.phone.go_home()                     # the phone moved; the frames below still show Settings

    async def frame_that_has_not_caught_up(moment=None):
        return stale
    monkeypatch.setattr(phone.session.frames, "frame_after", frame_that_has_not_caught_up)
    assert (await phone.tree.read()).package == SETTINGS          # what the pictures alone would say
    dumps = phone.dumps()
    now = await phone.tree.read_now()
    assert now.package != SETTINGS and phone.dumps() == dumps + 1
