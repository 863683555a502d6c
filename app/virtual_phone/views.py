"""The view tree: one tree per screen is the single source of truth for the picture and the dump.

A `View` carries what uiautomator reports (class, text, resource-id, flags, bounds, hint), what the
renderer needs to paint it (`kind` plus style keywords) and what input does to it (callbacks).
A `Window` is one top-level window (status bar, app, dialog, navigation bar, keyboard).

Three kinds of node besides plain views: `dump=False` marks paint-only decoration that is no view
at all (a list divider drawn by its parent); `gone=True` a view that exists but is GONE (a
ViewStub: no node, yet it counts in its siblings' drawing order); `provider="compose"` or
`"webview"` a node that an accessibility provider reports instead of a view (Compose semantics, a
WebView's DOM): its bounds are clipped by the host view only, and its drawing order is what that
provider reports (Compose: the node's index among its siblings; Chromium: 0).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

Rect = tuple[int, int, int, int]

# Android class names used by the simulated apps.
FRAME = "android.widget.FrameLayout"
LINEAR = "android.widget.LinearLayout"
RELATIVE = "android.widget.RelativeLayout"
VIEWGROUP = "android.view.ViewGroup"
VIEW = "android.view.View"
TEXT = "android.widget.TextView"
EDIT = "android.widget.EditText"
BUTTON = "android.widget.Button"
IMAGE = "android.widget.ImageView"
IMAGE_BUTTON = "android.widget.ImageButton"
SWITCH = "android.widget.Switch"
SEEKBAR = "android.widget.SeekBar"
SCROLL = "android.widget.ScrollView"
RECYCLER = "androidx.recyclerview.widget.RecyclerView"
TOGGLE = "android.widget.ToggleButton"
VIEW_STUB = "android.view.ViewStub"
WEBVIEW = "android.webkit.WebView"
COMPOSE_VIEW = "androidx.compose.ui.platform.ComposeView"

# Accessibility providers that report nodes in place of views (`View.provider`).
BY_COMPOSE = "compose"
BY_WEBVIEW = "webview"


def intersect(a: Rect, b: Rect) -> Rect | None:
    left, t = max(a[0], b[0]), max(a[1], b[1])
    r, bt = min(a[2], b[2]), min(a[3], b[3])
    if r <= left or bt <= t:
        return None
    return (left, t, r, bt)


def contains(rect: Rect, x: int, y: int) -> bool:
    return rect[0] <= x < rect[2] and rect[1] <= y < rect[3]


def center(rect: Rect) -> tuple[int, int]:
    return (rect[0] + rect[2]) // 2, (rect[1] + rect[3]) // 2


class View:
    """One node: accessibility data, paint data (`kind`, `style`) and behaviour."""

    __slots__ = ("cls", "bounds", "text", "rid", "desc", "checkable", "checked", "clickable", "enabled",
                 "focusable", "focused", "scrollable", "long_clickable", "password", "selected",
                 "children", "kind", "style", "on_click", "on_long_click", "on_scroll", "on_hscroll",
                 "on_slide", "dump", "clip", "gone", "provider", "hint", "visible_bounds")

    def __init__(self, cls: str, bounds: Rect, *children: View, text: str = "", rid: str = "",
                 desc: str = "", kind: str = "", clickable: bool = False, long_clickable: bool = False,
                 checkable: bool = False, checked: bool = False, enabled: bool = True,
                 focusable: bool | None = None, focused: bool = False, scrollable: bool = False,
                 password: bool = False, selected: bool = False,
                 on_click: Callable[[], object] | None = None,        # what it returns is ignored
                 on_long_click: Callable[[], object] | None = None,
                 on_scroll: Callable[[int], int] | None = None,
                 on_hscroll: Callable[[int], int] | None = None,
                 on_slide: Callable[[int], None] | None = None,
                 dump: bool = True, clip: bool = False, gone: bool = False, provider: str = "",
                 hint: str = "", **style) -> None:
        self.cls = cls
        left, top, right, bottom = bounds
        self.bounds: Rect = (int(left), int(top), int(right), int(bottom))
        self.text = text
        self.rid = rid
        self.desc = desc
        self.kind = kind
        self.clickable = clickable
        self.long_clickable = long_clickable
        self.checkable = checkable
        self.checked = checked
        self.enabled = enabled
        self.focusable = clickable if focusable is None else focusable
        self.focused = focused
        self.scrollable = scrollable
        self.password = password
        self.selected = selected
        self.on_click = on_click
        self.on_long_click = on_long_click
        self.on_scroll = on_scroll
        self.on_hscroll = on_hscroll
        self.on_slide = on_slide
        self.dump = dump
        self.clip = clip
        self.gone = gone
        self.provider = provider
        self.hint = hint
        self.style = style
        if hint or kind == "edit":
            style["hint"] = hint  # the painter draws it in an empty field
        self.children: list[View] = list(children)
        self.visible_bounds: Rect | None = None  # the bounds the last dump wrote for it (None: left out)

    def add(self, *views: View | None) -> View:
        self.children.extend(v for v in views if v is not None)
        return self

    def walk(self) -> Iterator[View]:
        yield self
        for child in self.children:
            yield from child.walk()

    def __repr__(self) -> str:
        label = self.text or self.desc or self.rid
        return f"<View {self.cls.rsplit('.', 1)[-1]} {label!r} {self.bounds}>"


@dataclass
class Window:
    """A top-level window: its root view, the package it belongs to and its role."""

    root: View
    package: str
    role: str  # "statusbar", "app", "dialog", "navbar", "ime"
    on_outside: Callable[[], None] | None = None  # a modal window: touches outside land here
    dim: bool = True  # a dialog dims what is behind it
    secure: bool = False  # FLAG_SECURE: screen captures show it black

    @property
    def bounds(self) -> Rect:
        return self.root.bounds


def hit_test(window: Window, x: int, y: int, want: str = "click") -> View | None:
    """The deepest view under (x, y) that handles `want` (click, long, scroll, hscroll, slide)."""
    return _hit(window.root, x, y, window.root.bounds, want)


def _handles(view: View, want: str) -> bool:
    if want == "click":
        return view.clickable or view.on_click is not None
    if want == "long":
        return view.long_clickable and view.on_long_click is not None
    if want == "scroll":
        return view.on_scroll is not None and view.scrollable
    if want == "hscroll":
        return view.on_hscroll is not None
    if want == "slide":
        return view.on_slide is not None
    return False


def _hit(view: View, x: int, y: int, clip: Rect, want: str) -> View | None:
    visible = intersect(view.bounds, clip)
    if visible is None or not contains(visible, x, y):
        return None
    for child in reversed(view.children):  # children are clipped by their ancestors, as on Android
        found = _hit(child, x, y, visible, want)
        if found is not None:
            return found
    return view if _handles(view, want) else None


def find(root: View, *, text: str | None = None, desc: str | None = None, rid: str | None = None) -> View | None:
    """First view matching all given fields (used by apps and tests)."""
    for view in root.walk():
        if text is not None and view.text != text:
            continue
        if desc is not None and view.desc != desc:
            continue
        if rid is not None and view.rid != rid:
            continue
        return view
    return None
