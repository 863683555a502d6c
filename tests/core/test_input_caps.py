"""Bounded inputs (issue 12, item 5): caps on the model's reply, the UI dump and the screenshot,
and bounds that never turn absurd or off-screen nodes into controls. Hostile inputs are built here."""

from __future__ import annotations

import json
import struct
import zlib

import pytest
from pydantic import ValidationError

from app.core.agent.llm_client import ModelClient, ModelReplyTooLarge
from app.core.config import LimitSettings, ProviderSettings, Settings, load_settings
from app.core.device.android_device import DEFAULT_LIMITS, AndroidDevice, InputLimits, ScreenInfo, check_screenshot_size
from app.core.device.device_tree import read_controls
from app.core.device.errors import HierarchyDumpFailed, ScreenshotFailed
from app.core.perception.hierarchy import DumpTooLarge, extract_controls, parse_bounds, parse_hierarchy
from tests.support.openai_server import FakeOpenAIServer, huge_reply, text_reply

MESSAGES = [{"role": "user", "content": "hello"}]
SMALL = InputLimits(max_dump_bytes=50_000, max_dump_nodes=200, max_screenshot_side=4096,
                    max_screenshot_bytes=1_000_000)


def node(bounds: str, text: str = "", children: str = "", **attrs: str) -> str:
    extra = "".join(f' {key.replace("_", "-")}="{value}"' for key, value in attrs.items())
    return (f'<node class="android.widget.Button" package="com.example" text="{text}" clickable="true" '
            f'bounds="{bounds}"{extra}>{children}</node>')


def window(*children: str, bounds: str = "[0,0][1080,2400]") -> str:
    return (f'<node class="android.widget.FrameLayout" package="com.example" bounds="{bounds}">'
            f'{"".join(children)}</node>')


def dump(*windows: str, rotation: int = 0) -> str:
    return f'<?xml version="1.0"?><hierarchy rotation="{rotation}">{"".join(windows)}</hierarchy>'


# --- settings ------------------------------------------------------------------------------


def test_caps_have_sensible_defaults_and_are_validated(tmp_path):
    settings = Settings()
    assert settings.provider.max_reply_mb == 1.0
    assert (settings.limits.max_dump_mb, settings.limits.max_dump_nodes) == (8.0, 5000)
    assert settings.limits.max_screenshot_side == 4096
    with pytest.raises(ValidationError):
        ProviderSettings(max_reply_mb=0)
    with pytest.raises(ValidationError):
        LimitSettings(max_dump_nodes=-1)
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"limits": {"max_dump_nodes": 900}}), encoding="utf-8")
    loaded, warnings = load_settings(path)
    assert loaded.limits.max_dump_nodes == 900 and warnings == []
    path.write_text(json.dumps({"limits": {"max_dump_mb": "lots"}}), encoding="utf-8")
    loaded, warnings = load_settings(path)
    assert loaded.limits == LimitSettings() and "limits" in warnings[0]


# --- the model's reply ---------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("undeclared, size_words", [(False, "3.0 MB"), (True, "more than 1 MB")])
async def test_reply_over_the_cap_is_refused_with_its_size_and_the_setting(undeclared, size_words):
    replies = []
    with FakeOpenAIServer([huge_reply(3, undeclared_length=undeclared)] * 3) as server:
        provider = ProviderSettings(base_url=server.base_url, model="fake-model", timeout_seconds=10,
                                    http_retries=2, max_reply_mb=1)
        async with ModelClient(provider, "sk-test-0123456789abcdef", backoff_seconds=0.01) as client:
            with pytest.raises(ModelReplyTooLarge) as caught:
                await client.complete(MESSAGES, replies=replies)
    message = str(caught.value)
    assert f"reply was {size_words}, over the 1 MB cap" in message and "provider.max_reply_mb" in message
    assert len(server.chat_requests) == 1                       # never retried: it would be as large
    assert len(replies) == 1 and replies[0].outcome == "error"
    assert len(replies[0].raw_text) <= 300                      # what is kept of it is small


@pytest.mark.asyncio
async def test_reply_under_the_cap_is_read_as_before():
    with FakeOpenAIServer([text_reply("y" * 500_000)]) as server:
        provider = ProviderSettings(base_url=server.base_url, model="fake-model", max_reply_mb=1)
        async with ModelClient(provider, None) as client:
            response = await client.complete(MESSAGES)
    assert response.text == "y" * 500_000


# --- the UI dump ---------------------------------------------------------------------------


def test_dump_over_the_node_cap_is_refused_naming_the_setting():
    hostile = dump(window(*(node(f"[0,{i}][10,{i + 1}]", f"n{i}") for i in range(20_000))))
    with pytest.raises(DumpTooLarge, match=r"more than 5000 nodes.*limits\.max_dump_nodes"):
        parse_hierarchy(hostile, max_nodes=5000)
    assert len(list(parse_hierarchy(hostile).iter_nodes())) == 20_001      # no cap: all of it


def test_dump_over_the_byte_cap_is_refused_before_parsing():
    hostile = dump(window(node("[0,0][10,10]", "x" * 2_000_000)))
    with pytest.raises(DumpTooLarge, match=r"2\.0 MB, over the 1 MB cap.*limits\.max_dump_mb"):
        parse_hierarchy(hostile, max_bytes=1_000_000)


class _FakeTransport:
    """Answers every ADB service with the same bytes; counts the calls."""

    address = "fake:5037"

    def __init__(self, answer: bytes) -> None:
        self.answer = answer
        self.calls = 0

    def run(self, serial: str, service: str, timeout: float | None = None, max_bytes: int | None = None) -> bytes:
        self.calls += 1
        self.max_bytes = max_bytes
        return self.answer if max_bytes is None else self.answer[:max_bytes + 1]


@pytest.mark.asyncio
async def test_device_refuses_a_huge_dump_once_without_retrying():
    transport = _FakeTransport(dump(window(node("[0,0][10,10]", "x" * 100_000))).encode())
    device = AndroidDevice(transport, "serial-1", limits=SMALL)
    with pytest.raises(HierarchyDumpFailed, match=r"over the 0\.05 MB cap \(setting limits\.max_dump_mb\)"):
        await device.dump_hierarchy()
    assert transport.calls == 1
    assert transport.max_bytes == SMALL.max_dump_bytes          # the read itself stops at the cap


def test_device_refuses_a_dump_with_too_many_nodes():
    xml = dump(window(*(node(f"[0,{i}][10,{i + 1}]") for i in range(300))))
    with pytest.raises(HierarchyDumpFailed, match=r"more than 200 nodes.*limits\.max_dump_nodes"):
        read_controls(xml, ScreenInfo(1080, 2400, 420, 0), SMALL)


# --- the screenshot ------------------------------------------------------------------------


def png_header(width: int, height: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(ihdr)) + b"IHDR" + ihdr
            + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr)))


@pytest.mark.parametrize("data, png, words", [
    (png_header(100_000, 100), True, "100000x100 pixels, over the 4096x4096 cap"),
    (struct.pack("<IIII", 1080, 60_000, 1, 0), False, "1080x60000 pixels, over the 4096x4096 cap"),
    (struct.pack("<IIII", 1080, 2400, 1, 0) + bytes(1_200_000), False, "1.2 MB, over the 1 MB cap"),
])
def test_screenshot_over_a_cap_is_refused_before_decoding(data, png, words):
    with pytest.raises(ScreenshotFailed, match="setting limits.max_screenshot") as caught:
        check_screenshot_size(data, SMALL, png=png)
    assert words in str(caught.value)


def test_ordinary_screenshot_passes_the_caps():
    check_screenshot_size(png_header(1080, 2400), SMALL, png=True)
    check_screenshot_size(struct.pack("<IIII", 1080, 2400, 1, 0), SMALL, png=False)


@pytest.mark.asyncio
async def test_device_screenshot_applies_the_caps():
    device = AndroidDevice(_FakeTransport(png_header(20_000, 20_000) + bytes(100)), "serial-1", limits=SMALL)
    with pytest.raises(ScreenshotFailed, match="20000x20000"):
        await device.screenshot("png")


# --- bounds --------------------------------------------------------------------------------


@pytest.mark.parametrize("bounds", ["[0,0][1000000000,1000000000]", "[-1000000000,0][10,10]",
                                    "[0,0][10,99999999999]"])
def test_absurd_coordinates_are_malformed(bounds):
    assert parse_bounds(bounds) is None
    assert extract_controls(dump(window(node(bounds, "Absurd"))), (1080, 2400)) == []
    assert extract_controls(dump(window(node(bounds, "Absurd")))) == []


@pytest.mark.parametrize("bounds", ["[500,500][400,600]", "[500,500][600,400]", "[500,500][500,600]"])
def test_negative_or_empty_sizes_are_never_controls(bounds):
    assert extract_controls(dump(window(node(bounds, "Inverted"))), (1080, 2400)) == []


def test_bounds_are_clamped_to_the_screen():
    [control] = extract_controls(dump(window(node("[-300,-20][5000,200]", "Wide"))), (1080, 2400))
    assert control.rect == (0, 0, 1080, 200)


def test_node_wholly_outside_its_window_is_not_a_control():
    dialog = window(node("[300,900][700,1000]", "Inside"), node("[300,1500][700,1600]", "Below the dialog"),
                    node("[100,700][400,1000]", "Overlapping"), bounds="[200,800][880,1400]")
    controls = extract_controls(dump(dialog), (1080, 2400))
    assert sorted(c.name for c in controls) == ["Inside", "Overlapping"]


@pytest.mark.parametrize("rotation", [1, 3])
def test_nodes_off_the_rotated_screen_are_not_controls(rotation):
    """A landscape dump (2400x1080): a node at y 2000 is inside the portrait screen, not this one."""
    xml = dump(window(node("[2000,100][2300,200]", "Right edge"), node("[100,2000][300,2100]", "Portrait only"),
                      bounds="[0,0][2400,2400]"), rotation=rotation)
    for screen_rotation in (rotation, 0):           # also when the cached screen info is stale
        _, controls = read_controls(xml, ScreenInfo(1080, 2400, 420, screen_rotation), DEFAULT_LIMITS)
        assert [c.name for c in controls] == ["Right edge"]
        assert all(0 <= c.rect[0] < c.rect[2] <= 2400 and 0 <= c.rect[1] < c.rect[3] <= 1080 for c in controls)
