"""Parsers of phone output: screen facts, foreground app, device lists, package lists, app names."""

from __future__ import annotations

import struct

import pytest
from PIL import Image

from app.android.keycodes import keycode_from_string
from app.core.device.adb_transport import parse_devices_l
from app.core.device.android_device import parse_foreground, parse_screen_info
from app.core.device.app_catalog import parse_package_list, resolve_app
from app.core.device.errors import ScreenshotFailed
from app.core.device.screen_capture import decode_png, decode_raw


def test_parse_screen_info_prefers_override_and_reads_rotation():
    info = parse_screen_info("Physical size: 1080x2400\nOverride size: 720x1600\nPhysical density: 420\n"
                             "    SurfaceOrientation: 1\n")
    assert (info.width, info.height, info.density, info.rotation) == (720, 1600, 420, 1)
    assert info.display_size == (1600, 720)


def test_parse_foreground_short_activity():
    app = parse_foreground("  mFocusedApp=ActivityRecord{9a4b1f2 u0 com.android.settings/.Settings t17}")
    assert (app.package, app.activity) == ("com.android.settings", "com.android.settings.Settings")


def test_parse_devices_l_real_output():
    text = ("List of devices attached\n"
            "R58M123ABC             device usb:1-1 product:beyond1lteeea model:SM_G973F device:beyond1 transport_id:3\n"
            "192.168.1.20:5555      unauthorized transport_id:4\n"
            "0123456789ABCDEF       no permissions (user in plugdev group; are your udev rules wrong?); see [http://developer.android.com/tools/device.html]\n")
    devices = parse_devices_l(text)
    assert [(d.serial, d.state) for d in devices] == [("R58M123ABC", "device"), ("192.168.1.20:5555", "unauthorized"),
                                                     ("0123456789ABCDEF", "no permissions")]
    assert devices[0].model == "SM G973F" and devices[0].transport_id == 3
    assert devices[1].is_network and "tap Allow" in devices[1].describe_state()


def test_package_list_and_names():
    packages = parse_package_list("package:com.b\npackage:com.android.deskclock\nWARNING: linker\npackage:com.a\n")
    assert packages == ["com.a", "com.android.deskclock", "com.b"]
    installed = ["com.android.settings", "com.android.deskclock", "com.agentdesk.notes", "com.whatsapp"]
    assert resolve_app("Settings", installed) == "com.android.settings"
    assert resolve_app("clock", installed) == "com.android.deskclock"
    assert resolve_app("WhatsApp", installed) == "com.whatsapp"
    assert resolve_app("android", installed) is None       # ambiguous: no guess
    assert resolve_app("Uber", installed) is None


@pytest.mark.parametrize("name, code", [("BACK", 4), ("KEYCODE_HOME", 3), ("enter", 66), ("66", 66), (187, 187),
                                        ("recents", 187), ("TELEPORT", None), ("-1", None)])
def test_keycodes(name, code):
    assert keycode_from_string(name) == code


def test_decode_raw_12_and_16_byte_headers_and_rgb565():
    rgba = Image.new("RGBA", (3, 2), (10, 20, 30, 255)).tobytes()
    for header in (struct.pack("<III", 3, 2, 1), struct.pack("<IIII", 3, 2, 1, 1)):
        assert decode_raw(header + rgba).getpixel((2, 1)) == (10, 20, 30)
    pixel_565 = struct.pack("<H", (31 << 11) | (0 << 5) | 0)  # pure red
    assert decode_raw(struct.pack("<III", 1, 1, 4) + pixel_565).getpixel((0, 0))[0] > 240


@pytest.mark.parametrize("data, message", [(b"", "empty"), (struct.pack("<III", 0, 5, 1), "impossible size"),
                                           (struct.pack("<IIII", 2, 2, 99, 0) + bytes(16), "unknown pixel format"),
                                           (struct.pack("<IIII", 100, 100, 1, 0) + bytes(100), "cut short")])
def test_decode_raw_errors(data, message):
    with pytest.raises(ScreenshotFailed, match=message):
        decode_raw(data)


def test_decode_png_skips_a_warning_line_and_reports_garbage():
    import io
    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), (1, 2, 3)).save(buffer, "PNG")
    assert decode_png(b"WARNING: linker: something\n" + buffer.getvalue()).size == (4, 4)
    with pytest.raises(ScreenshotFailed, match="did not send a PNG"):
        decode_png(b"/system/bin/sh: screencap: not found")
