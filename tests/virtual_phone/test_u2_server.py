"""uiautomator2's own client against the virtual phone: it pushes its jar, starts the on-phone server
with app_process, dumps the hierarchy through `tcp:9008`, reads the device info and stops the server
by closing the shell connection — on the realistic phone at 0.2× time."""

from __future__ import annotations

import time

import adbutils
import pytest
from PIL import ImageChops

from app.virtual_phone.adb_server import VirtualAdbServer
from app.virtual_phone.latency import latency_named
from app.virtual_phone.u2_server import U2_JAR_DEVICE_PATH, U2_SERVER_CLASS

from .conftest import UI, open_system_update, parse
from .u2_requests import rpc

uiautomator2 = pytest.importorskip("uiautomator2", reason="uiautomator2's client drives the server")
from uiautomator2.exceptions import AccessibilityServiceAlreadyRegisteredError  # type: ignore[import-untyped]  # noqa: E402

START = f"CLASSPATH={U2_JAR_DEVICE_PATH} app_process / {U2_SERVER_CLASS} -p 9008"


@pytest.fixture
def realistic():
    """(adbutils device, attached phone) of a realistic phone at 0.2× time (idle bound 10 s → 2 s)."""
    with VirtualAdbServer() as server:
        attached = server.add_phone(latency=latency_named("realistic", 0.2), seed=3)
        yield adbutils.AdbClient(host="127.0.0.1", port=server.port).device(attached.serial), attached


def node_set(xml: str) -> list[tuple]:
    return [tuple(sorted(node.attrib.items())) for node in parse(xml).iter("node")]


def test_uiautomator2_connects_dumps_reads_info_and_stops(realistic):
    device, attached = realistic
    expected = device.shell("uiautomator dump /dev/tty").rsplit("UI hierchary dumped to:", 1)[0]
    d = uiautomator2.connect(device)
    try:
        assert attached.storage.read_file(U2_JAR_DEVICE_PATH)  # the client pushed its jar
        assert attached.command_lines()[-1] == ["app_process", "/", U2_SERVER_CLASS, "-p", "9008"]
        assert "tcp:9008" in attached.sockets.listening()
        xml = d.dump_hierarchy()
        assert xml == expected                       # the same writer: the same XML for the same screen
        assert node_set(xml) == node_set(expected) and len(node_set(xml)) > 10
        info = d.info
        assert info["currentPackageName"] == attached.phone.foreground()[0]
        assert (info["displayWidth"], info["displayHeight"]) == attached.phone.display_size()
        assert info["sdkInt"] == attached.phone.profile.sdk and info["screenOn"] is True
    finally:
        d.stop_uiautomator()
    assert "tcp:9008" not in attached.sockets.listening()      # closing the shell ended the server
    assert attached.ui_automation.holder is None
    assert "<hierarchy" in device.shell("uiautomator dump /dev/tty")   # the phone is free again


def test_the_dump_follows_max_depth(realistic):
    device, _ = realistic
    d = uiautomator2.connect(device)
    try:
        full, shallow = d.dump_hierarchy(), d.dump_hierarchy(max_depth=2)
    finally:
        d.stop_uiautomator()

    def deepest(xml: str) -> int:
        root = parse(xml)
        return max(len(list(node.iterancestors("node"))) + 1 for node in root.iter("node"))

    assert deepest(full) > 2 and deepest(shallow) == 2
    assert node_set(shallow) == [n for n in node_set(shallow) if n in node_set(full)]


def test_a_wrong_jar_or_class_aborts_as_on_a_phone(realistic):
    device, attached = realistic
    device.sync.push(b"PK\x03\x04 not the pinned jar", U2_JAR_DEVICE_PATH)
    result = device.shell2(START, v2=True)
    assert result.returncode == 134 and result.stderr.strip() == "Aborted"
    assert attached.sockets.listening() == [] and attached.ui_automation.holder is None
    device.sync.push("/dev/null", U2_JAR_DEVICE_PATH)
    assert device.shell2(START, v2=True).stderr.strip() == "Aborted"


def test_the_pinned_jar_with_another_class_aborts(realistic):
    device, attached = realistic
    uiautomator2.connect(device).stop_uiautomator()        # leaves the pinned jar on the phone
    result = device.shell2(f"CLASSPATH={U2_JAR_DEVICE_PATH} app_process / com.wetest.uia2.Other", v2=True)
    assert result.stderr.strip() == "Aborted" and attached.sockets.listening() == []


def test_one_ui_automation_client_at_a_time(realistic):
    device, attached = realistic
    d = uiautomator2.connect(device)
    try:
        # a second server (another port) cannot register UiAutomation: the client says so
        with pytest.raises(AccessibilityServiceAlreadyRegisteredError) as raised:
            uiautomator2.connect(device, port=9009)
        assert "[UiAutomator2Server] Starting Server" in str(raised.value)
        assert "already registered!" in str(raised.value)
        assert "tcp:9009" not in attached.sockets.listening()
        # `uiautomator dump` is refused the same way while the server holds it
        refused = device.shell2("uiautomator dump /dev/tty", v2=True)
        assert "already registered!" in refused.stderr and "<hierarchy" not in refused.stdout
        assert refused.returncode != 0
        assert "<hierarchy" in d.dump_hierarchy()           # the server still has it
    finally:
        d.stop_uiautomator()
    assert "<hierarchy" in device.shell("uiautomator dump /dev/tty")


def test_a_never_idle_screen_fails_uiautomator_dump_but_the_server_answers(realistic):
    device, attached = realistic
    open_system_update(UI(attached.phone))
    assert attached.phone.animating_without_end()
    failed = device.shell2("uiautomator dump /dev/tty", v2=True)
    assert "ERROR: could not get idle state." in failed.stderr and "<hierarchy" not in failed.stdout
    d = uiautomator2.connect(device)
    try:
        d.jsonrpc.setConfigurator({"waitForIdleTimeout": 1000})
        assert d.jsonrpc.getConfigurator()["waitForIdleTimeout"] == 1000
        xml = d.dump_hierarchy()
        assert "Checking for update" in xml and "android.widget.ProgressBar" in xml
        # with an idle bound longer than this client waits, the answer does not come first: the bound is
        # the server's (uiautomator2's own http_timeout does not reach a socket made by adbutils)
        d.jsonrpc.setConfigurator({"waitForIdleTimeout": 600_000})
        with pytest.raises(ConnectionError):
            rpc(device, "dumpWindowHierarchy", [False, 50], timeout=1.0)
    finally:
        d.stop_uiautomator()
    assert attached.sockets.listening() == []


def test_the_spinner_keeps_the_picture_moving(realistic):
    _, attached = realistic
    phone = attached.phone
    open_system_update(UI(phone))
    first = phone.screenshot().copy()
    deadline = time.monotonic() + 5
    while not ImageChops.difference(first.convert("RGB"), phone.screenshot().convert("RGB")).getbbox():
        assert time.monotonic() < deadline, "the spinner never moved"
        time.sleep(0.02)
    phone.press_back()
    assert not phone.animating_without_end()
