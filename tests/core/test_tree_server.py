"""The app's tree from uiautomator2's server on the phone (app/core/device/tree_server.py): the same
controls as `uiautomator dump`, stopped when idle and at close, never someone else's, a cap on every
dump, and a clean fall back to `uiautomator dump` saying why once."""

from __future__ import annotations

import asyncio
import re
import socket
import threading

import pytest

from app.core.device.adb_transport import AdbTransport
from app.core.device.android_device import DUMP_SOURCE, SERVER_SOURCE, AndroidDevice
from app.core.device.screen_tree import make_reading
from app.core.device.tree_server import (
    HELD_ELSEWHERE,
    SETTLED_WAIT_FOR_IDLE_MS,
    WAIT_FOR_IDLE_MS,
    TreeServerPolicy,
    TreeServerUnavailable,
    parse_http_response,
)
from app.virtual_phone.adb_server import VirtualAdbServer
from app.virtual_phone.latency import latency_named
from app.virtual_phone.phone import VirtualPhone
from tests.virtual_phone.conftest import UI, open_system_update

pytest.importorskip("uiautomator2", reason="uiautomator2 (which ships the server's jar) is not installed")


@pytest.fixture(autouse=True)
def settings_decide(monkeypatch):
    """The suite turns the server off by environment (tests/conftest.py); here the policy decides."""
    monkeypatch.delenv("AGENTDESK_TREE_SERVER", raising=False)


@pytest.fixture
def served():
    server = VirtualAdbServer().start()
    server.add_phone(VirtualPhone())
    yield server
    server.stop()


def device_on(server: VirtualAdbServer, **policy) -> AndroidDevice:
    device = AndroidDevice(AdbTransport("127.0.0.1", server.port), server.devices[0].serial)
    device.tree_server.policy = TreeServerPolicy(**policy)
    return device


def listening(server: VirtualAdbServer) -> bool:
    return "tcp:9008" in server.devices[0].sockets.listening()


def _lines(snapshot, live: bool) -> list[str]:
    """The prompt lines; on a screen that changes by itself (a running stopwatch) its figures are masked:
    the two dumps are taken moments apart."""
    lines = [c.to_prompt_line() for c in snapshot.controls]
    return [re.sub(r"\d", "#", line.rsplit(" @", 1)[0]) for line in lines] if live else lines


async def _same_tree_both_ways(server: VirtualAdbServer, through_server: AndroidDevice, through_dump: AndroidDevice,
                               where: str, live: bool = False) -> str:
    """Both sources read the screen as it is now; the controls and the screen id must be the same."""
    served_snapshot = await through_server.controls(refresh=True)
    await through_server.release_ui_automation()          # one UI-automation client at a time, as on a phone
    for _ in range(100):                                  # the phone lets go of it a moment after the shell closes
        if not listening(server):
            break
        await asyncio.sleep(0.01)
    dumped_snapshot = await through_dump.controls(refresh=True)
    assert (served_snapshot.source, dumped_snapshot.source) == (SERVER_SOURCE, DUMP_SOURCE)
    assert _lines(served_snapshot, live) == _lines(dumped_snapshot, live), where
    screen_id = make_reading(served_snapshot, None).screen_id
    if not live:
        assert screen_id == make_reading(dumped_snapshot, None).screen_id, where
    return screen_id


CRAWL_DEPTH = 2                  # taps from an app's first screen
CRAWL_CONTROLS = 8               # the first clickable controls of a screen that are tried
CRAWL_SCREENS = 80               # a bound on the time it takes (about 0.3 s a screen)


@pytest.mark.asyncio
async def test_both_sources_agree_on_every_screen_within_two_taps_of_each_apps_first_screen(served):
    """Each app's first screen, and the screens taps on its first controls lead to, two deep (pages, dialogs, the
    keyboard up, a toggled switch, a list scrolled): the server's tree and `uiautomator dump`'s give the
    same controls and screen id on each."""
    from app.virtual_phone.apps import create_apps

    through_server, through_dump = device_on(served), device_on(served, mode="off")
    compared: set[str] = set()
    paths: list[tuple[str, tuple[tuple[int, int, str], ...]]] = [(package, ()) for package in
                                                                 create_apps(VirtualPhone())]
    while paths and len(compared) < CRAWL_SCREENS:
        package, taps = paths.pop(0)
        await through_dump.shell("input keyevent KEYCODE_HOME")
        await through_dump.shell(f"am force-stop {package}")
        await through_dump.shell(f"monkey -p {package} -c android.intent.category.LAUNCHER 1")
        for x, y, _name in taps:
            await through_dump.shell(f"input tap {x} {y}")
        snapshot = await through_server.controls(refresh=True)
        screen_id = make_reading(snapshot, None).screen_id
        if screen_id in compared:
            continue
        where = " › ".join([package, *(name for _x, _y, name in taps)])
        live = served.devices[0].phone.animating_without_end()
        both_ways_id = await _same_tree_both_ways(served, through_server, through_dump, where, live)
        assert live or both_ways_id == screen_id, where
        compared.add(screen_id)
        if len(taps) < CRAWL_DEPTH:
            paths += [(package, (*taps, (*c.center, c.name or c.type))) for c in
                      [c for c in snapshot.controls if c.clickable][:CRAWL_CONTROLS]]
    assert len(compared) >= 60, len(compared)
    await through_server.tree_server.stop()


def screens_and_dialogs_of_the_apps() -> set[type]:
    """Every kind of screen and dialog the virtual phone's apps define (the leaves: a base like SettingsPage is
    never shown itself)."""
    from app.virtual_phone.apps.base import Dialog, Screen

    def leaves(kind: type) -> set[type]:
        below = set(kind.__subclasses__())
        return set().union(*(leaves(sub) for sub in below)) if below else {kind}
    return {kind for kind in leaves(Screen) | leaves(Dialog) if kind.__module__.startswith("app.virtual_phone.apps.")}


@pytest.mark.asyncio
async def test_both_sources_agree_on_every_page_of_every_app(served):
    """Each app's every screen and dialog, visited by name (`App.pages`), keyboard up, pop-ups, overview, lock
    screen and toast included: the server's tree and `uiautomator dump`'s give the same controls and screen id
    on each. A screen or dialog an app gains without a page fails the test."""
    phone = served.devices[0].phone
    through_server, through_dump = device_on(served), device_on(served, mode="off")
    shown: set[type] = set()
    visited = 0
    for package, app in phone.apps.items():
        for name, go_there in app.pages().items():
            with phone.lock:
                if phone.keyguard_showing:
                    phone.unlock_by_hand()
                    phone.keyguard_secure = False
                phone.go_home()
                phone.force_stop(package)
                if package != phone.launcher.package:
                    phone.launch(package)
                go_there()
                phone.changed()
                top = phone.foreground_app.top
                shown.update(type(part) for part in (top, top and top.dialog) if part is not None)
            live = phone.animating_without_end()
            await _same_tree_both_ways(served, through_server, through_dump, f"{package} › {name}", live)
            visited += 1
    assert screens_and_dialogs_of_the_apps() - shown == set()
    assert visited >= 40
    await through_server.tree_server.stop()


@pytest.mark.asyncio
async def test_the_server_stops_when_idle_and_at_close_and_is_never_left_listening(served):
    device = device_on(served, idle_seconds=0.3)
    await device.controls(refresh=True)
    assert device.tree_server.running_ours and listening(served)
    for _ in range(50):
        if not listening(served):
            break
        await asyncio.sleep(0.1)
    assert not listening(served) and not device.tree_server.running_ours
    await device.controls(refresh=True)            # started again by the next dump
    assert listening(served) and device.tree_source == SERVER_SOURCE
    await device.tree_server.stop()                 # what a session's close does
    for _ in range(20):
        if not listening(served):
            break
        await asyncio.sleep(0.05)
    assert not listening(served)


@pytest.mark.asyncio
async def test_a_server_this_desk_did_not_start_is_used_and_never_stopped(served):
    other = device_on(served)
    await other.controls(refresh=True)              # "another desk" starts it
    ours = device_on(served, idle_seconds=0.2)
    snapshot = await ours.controls(refresh=True)
    assert snapshot.source == SERVER_SOURCE and not ours.tree_server.running_ours
    await ours.tree_server.stop()
    await asyncio.sleep(0.4)
    assert listening(served)                        # still the other's
    await other.tree_server.stop()


@pytest.mark.asyncio
async def test_a_never_idle_screen_is_read_through_the_server_within_its_cap():
    """Settings › System › System update spins without end: `uiautomator dump` cannot get an idle state there
    (realistic phone at 0.2× time), the server dumps after its own idle bound."""
    with VirtualAdbServer() as server:
        attached = server.add_phone(latency=latency_named("realistic", 0.2), seed=3)
        ui = UI(attached.phone)
        open_system_update(ui)
        assert attached.phone.animating_without_end()
        refused = device_on(server, mode="off")
        with pytest.raises(Exception, match="idle state"):
            await refused.dump_hierarchy(retries=1)
        device = device_on(server, dump_seconds=2.0)
        snapshot = await device.controls(refresh=True)
        assert snapshot.source == SERVER_SOURCE and any("Checking for update" in c.name for c in snapshot.controls)
        await device.tree_server.stop()


@pytest.mark.asyncio
async def test_with_the_server_refused_the_dump_falls_back_to_uiautomator_dump_saying_why_once(served, caplog):
    device = device_on(served)
    served.devices[0].ui_automation.acquire("appium")       # another tool holds UI automation
    with pytest.raises(Exception):                          # noqa: B017 - uiautomator dump is refused too
        await device.dump_hierarchy(retries=1)
    assert HELD_ELSEWHERE in device.tree_source_note
    assert not device.tree_server.running_ours and not listening(served)
    served.devices[0].ui_automation.release("appium")
    snapshot = await device.controls(refresh=True)          # within the retry pause: uiautomator dump
    assert snapshot.source == DUMP_SOURCE and snapshot.controls
    warnings = [r for r in caplog.records if "uiautomator dump" in r.getMessage()]
    assert len(warnings) == 1


@pytest.mark.asyncio
async def test_a_jar_that_is_not_the_pinned_one_is_never_pushed_or_started(served, monkeypatch):
    monkeypatch.setattr("app.core.device.tree_server.U2_JAR_SHA256", "0" * 64)
    device = device_on(served)
    snapshot = await device.controls(refresh=True)
    assert snapshot.source == DUMP_SOURCE and "SHA-256 differs" in device.tree_source_note
    assert not listening(served)
    assert "u2.jar" not in (await device.shell("ls /data/local/tmp"))


@pytest.mark.asyncio
async def test_the_environment_overrides_the_setting(served, monkeypatch):
    monkeypatch.setenv("AGENTDESK_TREE_SERVER", "off")
    assert (await device_on(served, mode="on").controls(refresh=True)).source == DUMP_SOURCE
    monkeypatch.setenv("AGENTDESK_TREE_SERVER", "on")
    device = device_on(served, mode="off")
    assert (await device.controls(refresh=True)).source == SERVER_SOURCE
    await device.tree_server.stop()


@pytest.mark.asyncio
async def test_off_never_starts_it_and_a_real_phone_needs_on(served):
    off = device_on(served, mode="off")
    assert (await off.controls(refresh=True)).source == DUMP_SOURCE and not listening(served)
    real = device_on(served)
    real.tree_server._emulated = False                      # what a physical phone's getprop says
    assert (await real.controls(refresh=True)).source == DUMP_SOURCE and not listening(served)


# ---------------------------------------------------------------- hostile servers


class _HostileServer:
    """A fake 'server' on the phone's tcp:9008 that answers every request with `answer` (None: never)."""

    def __init__(self, answer: bytes | None, endless: bool = False) -> None:
        self.answer, self.endless = answer, endless
        self.stop = threading.Event()

    def __call__(self, sock: socket.socket) -> None:
        try:
            sock.recv(65536)
            if self.answer is None:
                self.stop.wait(10)
                return
            sock.sendall(self.answer)
            while self.endless and not self.stop.is_set():
                sock.sendall(b"x" * 65536)
        except OSError:
            pass
        finally:
            sock.close()


@pytest.mark.parametrize("answer, endless, why", [
    (b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\npong", False, "no JSON-RPC"),        # /ping ok, dump garbage
    (b"garbage that is not HTTP\r\n\r\n", False, ""),
    (b"HTTP/1.1 200 OK\r\n\r\n", True, ""),
    (None, False, ""),
])
@pytest.mark.asyncio
async def test_a_hostile_or_silent_server_costs_at_most_the_cap_and_falls_back(served, answer, endless, why):
    hostile = _HostileServer(answer, endless)
    served.devices[0].sockets.listen("tcp:9008", hostile)
    device = device_on(served, dump_seconds=0.5)
    device.limits = type(device.limits)(200_000, device.limits.max_dump_nodes, device.limits.max_screenshot_side,
                                        device.limits.max_screenshot_bytes)
    try:
        with pytest.raises(TreeServerUnavailable) as caught:
            await asyncio.wait_for(device.tree_server.dump(device.limits.max_dump_bytes), 5)
        assert why in str(caught.value)
        if endless:                 # an endless answer is read no further than the cap, within the time cap
            with pytest.raises(TreeServerUnavailable, match="more than"):
                await asyncio.wait_for(device.tree_server._request("GET", "/ping", b"", 5.0, 100_000), 8)
        xml = await asyncio.wait_for(device.dump_hierarchy(), 10)
        assert "<hierarchy" in xml and device.tree_source == DUMP_SOURCE
    finally:
        hostile.stop.set()
        served.devices[0].sockets.stop_listening("tcp:9008")


def test_http_answers_are_read_as_http_or_refused():
    assert parse_http_response(b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\npongEXTRA") == (200, b"pong")
    assert parse_http_response(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\npong\r\n0\r\n\r\n") == \
        (200, b"pong")
    for broken in (b"no head end", b"SMTP 220 hi\r\n\r\n",
                   b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
                   b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n\x1f\x8b"):
        with pytest.raises(TreeServerUnavailable):
            parse_http_response(broken)


async def _idle_wait_ms(device: AndroidDevice) -> int:
    configurator = await device.tree_server._call("getConfigurator", [], 2.0, 65536)
    return configurator["waitForIdleTimeout"]


@pytest.mark.asyncio
async def test_a_dump_after_the_frames_stood_still_skips_the_phones_idle_wait_and_others_keep_it(served):
    """The wait after an action has seen the screen stand still: the server's own idle test (500 ms quiet)
    would only add its quiet time again. Other dumps (the inspector, a run's first step) keep it."""
    device = device_on(served)
    await device.dump_hierarchy(settled=True)
    assert await _idle_wait_ms(device) == SETTLED_WAIT_FOR_IDLE_MS == 0
    await device.dump_hierarchy()
    assert await _idle_wait_ms(device) == WAIT_FOR_IDLE_MS
    await device.tree_server.stop()


@pytest.mark.asyncio
async def test_a_server_this_desk_did_not_start_keeps_its_own_idle_wait(served):
    other = device_on(served)
    await other.dump_hierarchy()
    await other.tree_server._call("setConfigurator", [{"waitForIdleTimeout": 1234}], 2.0, 65536)
    ours = device_on(served)
    await ours.dump_hierarchy(settled=True)
    assert not ours.tree_server.running_ours and await _idle_wait_ms(ours) == 1234
    await other.tree_server.stop()


def _shell_lines(server: VirtualAdbServer, word: str) -> int:
    return sum(1 for argv in server.devices[0].command_lines() if word in " ".join(argv))


@pytest.mark.asyncio
async def test_a_prefetch_the_screen_moved_after_is_neither_joined_nor_kept(served):
    device = device_on(served)
    await device.controls(refresh=True)
    device.invalidate_controls()                     # input came
    device.prefetch_controls(settled=True)
    stale = device._dumping
    assert stale is not None
    device.drop_prefetch()                           # ...and the screen moved again
    await stale
    assert device.cached_controls is None            # its tree may show the old picture: not kept
    fresh = await device.controls()
    assert fresh is not await stale and device.cached_controls is fresh
    await device.tree_server.stop()


@pytest.mark.asyncio
async def test_the_app_in_front_is_read_with_a_settled_prefetch_and_kept_only_until_input(served):
    device = device_on(served)
    await device.controls(refresh=True)
    device.invalidate_controls()
    before = _shell_lines(served, "mCurrentFocus")
    device.prefetch_controls(settled=True)
    dumps = [device._dumping]
    first = await device.foreground_app()
    again = await device.foreground_app()            # the screen tree and the image check both ask
    assert first == again and _shell_lines(served, "mCurrentFocus") == before + 1
    device.drop_prefetch()                           # the screen moved: asked again
    await device.foreground_app()
    assert _shell_lines(served, "mCurrentFocus") == before + 2
    device.invalidate_controls()
    device.prefetch_controls()                       # while moving (uiautomator dump's way): no dumpsys yet
    dumps.append(device._dumping)
    await device.foreground_app()
    assert _shell_lines(served, "mCurrentFocus") == before + 3
    await asyncio.gather(*dumps)
    await device.tree_server.stop()
