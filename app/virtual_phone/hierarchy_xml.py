"""Write the view tree as `uiautomator dump` does (Android's compact one-line format).

Format details kept from real dumps: the XML declaration with single quotes and standalone='yes',
`<hierarchy rotation="N">`, one `<node>` per view with the attribute order below, bounds clipped
to the visible part of every ancestor and to the display, views that are not on screen left out,
`index` = position among the parent's children (hidden siblings keep their numbers), childless
nodes written `<node … />`, text escaped as KXmlSerializer does (&#10; for newlines) and invalid
XML characters replaced by '.', as AccessibilityNodeInfoDumper does. No trailing newline.
"""

from __future__ import annotations

from .views import Rect, View, Window, intersect

_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"}


def _invalid(code: int) -> bool:
    return (0x1 <= code <= 0x8 or 0xB <= code <= 0xC or 0xE <= code <= 0x1F or 0x7F <= code <= 0x84
            or 0x86 <= code <= 0x9F or 0xD800 <= code <= 0xDFFF or 0xFDD0 <= code <= 0xFDDF
            or (code & 0xFFFE) == 0xFFFE or code == 0)


def escape(value: str) -> str:
    if value.isascii() and value.isprintable() and not any(c in value for c in '&<>"'):
        return value
    out = []
    for ch in value:
        rep = _ESCAPES.get(ch)
        if rep is not None:
            out.append(rep)
        elif _invalid(ord(ch)):
            out.append(".")
        else:
            out.append(ch)
    return "".join(out)


def _bool(v: bool) -> str:
    return "true" if v else "false"


def _node_open(view: View, index: int, package: str, b: Rect) -> str:
    return (f'<node index="{index}" text="{escape(view.text)}" resource-id="{escape(view.rid)}" '
            f'class="{view.cls}" package="{package}" content-desc="{escape(view.desc)}" '
            f'checkable="{_bool(view.checkable)}" checked="{_bool(view.checked)}" '
            f'clickable="{_bool(view.clickable)}" enabled="{_bool(view.enabled)}" '
            f'focusable="{_bool(view.focusable)}" focused="{_bool(view.focused)}" '
            f'scrollable="{_bool(view.scrollable)}" long-clickable="{_bool(view.long_clickable)}" '
            f'password="{_bool(view.password)}" selected="{_bool(view.selected)}" '
            f'bounds="[{b[0]},{b[1]}][{b[2]},{b[3]}]"')


def _write(out: list[str], view: View, index: int, package: str, clip: Rect) -> bool:
    visible = intersect(view.bounds, clip)
    view.visible_bounds = visible
    if visible is None:
        return False
    out.append(_node_open(view, index, package, visible))
    mark = len(out)
    out.append(">")
    i = 0
    wrote_child = False
    for child in view.children:
        if not child.dump:
            continue
        wrote_child |= _write(out, child, i, package, visible)
        i += 1
    if wrote_child:
        out.append("</node>")
    else:
        out[mark] = " />"
    return True


def dump(windows: list[Window], rotation: int, display: tuple[int, int]) -> str:
    """The XML of `windows` in dump order (the order uiautomator lists the windows)."""
    for win in windows:
        for v in win.root.walk():
            v.visible_bounds = None
    screen = (0, 0, display[0], display[1])
    out = [f"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"{rotation}\">"]
    for win in windows:
        _write(out, win.root, 0, win.package, screen)
    out.append("</hierarchy>")
    return "".join(out)
