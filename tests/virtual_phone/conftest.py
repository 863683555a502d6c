"""Helpers that drive the virtual phone like a user: read the screen, find a node, tap its centre.

They read `dump_all_windows()` (every window on screen, the bars and the keyboard included), since
a person taps keys and the Back button too; what ADB serves (`dump_hierarchy()`, the active window
only) is tested in test_dump_*.py."""

from __future__ import annotations

import re
from datetime import datetime

import pytest
from lxml import etree

from app.virtual_phone.phone import VirtualPhone

BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
FIXED_TIME = datetime(2024, 6, 4, 9, 41)


def parse(xml: str) -> etree._Element:
    return etree.fromstring(xml.encode("utf-8"))


def bounds(node) -> tuple[int, int, int, int]:
    m = BOUNDS.fullmatch(node.get("bounds"))
    assert m, node.get("bounds")
    return tuple(int(v) for v in m.groups())


def center_of(node) -> tuple[int, int]:
    left, t, r, b = bounds(node)
    return (left + r) // 2, (t + b) // 2


def all_nodes(phone: VirtualPhone) -> list:
    return list(parse(phone.dump_all_windows()).iter("node"))


def find_nodes(phone: VirtualPhone, *, text: str | None = None, desc: str | None = None, rid: str | None = None,
               cls: str | None = None, package: str | None = None, contains: bool = False) -> list:
    def match(value: str | None, wanted: str | None) -> bool:
        if wanted is None:
            return True
        return wanted in (value or "") if contains else value == wanted

    return [n for n in all_nodes(phone)
            if match(n.get("text"), text) and match(n.get("content-desc"), desc)
            and (rid is None or n.get("resource-id") == rid or n.get("resource-id", "").endswith(":id/" + rid))
            and (cls is None or n.get("class") == cls) and (package is None or n.get("package") == package)]


def find_node(phone: VirtualPhone, **query):
    found = find_nodes(phone, **query)
    return found[0] if found else None


def node_center(phone: VirtualPhone, **query) -> tuple[int, int]:
    node = find_node(phone, **query)
    if node is None:
        raise AssertionError(f"no node matching {query} on screen {phone.foreground()}")
    return center_of(node)


def tap_node(phone: VirtualPhone, **query) -> None:
    phone.tap(*node_center(phone, **query))


def type_keys(phone: VirtualPhone, s: str) -> None:
    """Type by tapping the on-screen keyboard's keys (found in the dump by content-desc)."""
    for ch in s:
        if ch == " ":
            tap_node(phone, desc="Space", package="com.android.inputmethod.latin")
            continue
        if ch.isupper():
            tap_node(phone, desc="Shift", package="com.android.inputmethod.latin")
        tap_node(phone, desc=ch, package="com.android.inputmethod.latin")


class UI:
    """The helpers above bound to one phone: `ui.tap(text="Settings")`, `ui.find(desc="Send SMS")`…"""

    def __init__(self, phone: VirtualPhone) -> None:
        self.phone = phone

    def nodes(self) -> list:
        return all_nodes(self.phone)

    def find(self, **query):
        return find_node(self.phone, **query)

    def find_all(self, **query) -> list:
        return find_nodes(self.phone, **query)

    def center(self, **query) -> tuple[int, int]:
        return node_center(self.phone, **query)

    def tap(self, **query) -> None:
        tap_node(self.phone, **query)

    def type_keys(self, s: str) -> None:
        type_keys(self.phone, s)

    def texts(self) -> list[str]:
        return [n.get("text") for n in self.nodes() if n.get("text")]

    parse = staticmethod(parse)
    bounds = staticmethod(bounds)
    node_center = staticmethod(center_of)


def new_phone(**options) -> VirtualPhone:
    options.setdefault("clock", lambda: FIXED_TIME)
    return VirtualPhone(**options)


@pytest.fixture
def phone() -> VirtualPhone:
    return new_phone()


@pytest.fixture
def ui(phone) -> UI:
    return UI(phone)


@pytest.fixture
def make_ui():
    """A factory: `make_ui(adb_keyboard_installed=True)` → a UI on a fresh phone."""
    return lambda **options: UI(new_phone(**options))


def open_system_update(ui: UI) -> None:
    """Settings › System › System update: "Checking for update…" spins for as long as it is open. (On a realistic
    phone the list flings on after the swipe: the next tap waits until it stops, as a person's eye would.)"""
    ui.tap(text="Settings")
    ui.phone.swipe(540, 1800, 540, 600, 300)
    assert ui.phone.wait_until_settled(), "the list stops after its fling"
    ui.tap(text="System")
    ui.tap(text="System update")
