"""A screen that animates without end (Clock's running stopwatch): its picture keeps moving, and in
the realistic profile `uiautomator dump` fails there with the phone's message until it stops."""

from __future__ import annotations

import time

import adbutils
import pytest
from PIL import ImageChops

from app.virtual_phone.adb_server import VirtualAdbServer
from app.virtual_phone.latency import latency_named

from .conftest import UI


def open_stopwatch(ui: UI) -> None:
    ui.tap(text="Clock")
    ui.tap(desc="Stopwatch")


def stopwatch_text(ui: UI) -> str:
    return ui.find(rid="com.android.deskclock:id/stopwatch_time_text").get("text")


def test_a_running_stopwatch_keeps_the_screen_moving(phone, ui):
    open_stopwatch(ui)
    assert stopwatch_text(ui) == "00:00.00" and not phone.animating_without_end()
    ui.tap(desc="Start")
    assert phone.animating_without_end()
    first_text, first_picture = stopwatch_text(ui), phone.screenshot().copy()
    time.sleep(0.05)
    assert stopwatch_text(ui) > first_text
    assert ImageChops.difference(first_picture.convert("RGB"), phone.screenshot().convert("RGB")).getbbox()
    ui.tap(desc="Pause")
    assert not phone.animating_without_end()
    paused = stopwatch_text(ui)
    time.sleep(0.03)
    assert stopwatch_text(ui) == paused and paused > "00:00.00"
    ui.tap(text="Reset")
    assert stopwatch_text(ui) == "00:00.00"


def test_it_runs_on_in_another_tab_without_moving_that_screen(phone, ui):
    open_stopwatch(ui)
    ui.tap(desc="Start")
    ui.tap(desc="Alarm")
    assert phone.state()["stopwatch_running"] and not phone.animating_without_end()
    time.sleep(0.03)
    ui.tap(desc="Stopwatch")
    assert phone.animating_without_end() and stopwatch_text(ui) > "00:00.00"


@pytest.fixture
def realistic_adb():
    """A realistic phone at 0.05× time: uiautomator gives up after 10 s × 0.05 = 0.5 s."""
    server = VirtualAdbServer().start()
    server.add_phone(latency=latency_named("realistic", 0.05), seed=3)
    try:
        yield server
    finally:
        server.stop()


def test_uiautomator_cannot_get_an_idle_state_while_it_runs(realistic_adb):
    attached = realistic_adb.devices[0]
    device = adbutils.AdbClient(host="127.0.0.1", port=realistic_adb.port).device(attached.serial)
    ui = UI(attached.phone)
    open_stopwatch(ui)
    ui.tap(desc="Start")
    result = device.shell2("uiautomator dump /dev/tty", v2=True)
    assert "ERROR: could not get idle state." in result.stderr and "<hierarchy" not in result.stdout
    ui.tap(desc="Pause")
    assert "stopwatch_time_text" in device.shell("uiautomator dump /dev/tty")


def test_the_quick_profile_dumps_it_all_the_same(virtual_adb):
    attached = virtual_adb.devices[0]
    device = adbutils.AdbClient(host="127.0.0.1", port=virtual_adb.port).device(attached.serial)
    ui = UI(attached.phone)
    open_stopwatch(ui)
    ui.tap(desc="Start")
    assert attached.phone.animating_without_end()
    assert "stopwatch_time_text" in device.shell("uiautomator dump /dev/tty")
