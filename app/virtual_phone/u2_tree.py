"""What uiautomator2's server tells about the screen: the dump cut at maxDepth, and deviceInfo."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .phone import VirtualPhone

_EMPTY_HIERARCHY = re.compile(r"(<hierarchy\b[^>]*?)\s*></hierarchy>")
_TAG = re.compile(r"<(/?)node\b[^>]*?(/?)>")   # attribute values never hold '<' or '>' (the writer escapes them)


def cut_depth(xml: str, max_depth: int) -> str:
    """Drop the nodes deeper than `max_depth` levels, as the dumper's recursion stops there (a node on
    the last level is written without children). The writer's output is one line of `<node …>` tags."""
    out: list[str] = []
    depth = 0                   # node tags open around the current position
    position = 0
    skip: int | None = None     # while skipping a subtree: the depth its top node opened at
    for match in _TAG.finditer(xml):
        tag, closing, self_closing = match.group(0), match.group(1) == "/", match.group(2) == "/"
        if skip is not None:
            if closing:
                depth -= 1
                if depth == skip:
                    skip = None
            elif not self_closing:
                depth += 1
            position = match.end()
            continue
        out.append(xml[position:match.start()])
        position = match.end()
        if closing:
            depth -= 1
            out.append(tag)
            continue
        level = depth + 1
        if level > max_depth or (level == max_depth and not self_closing):
            if level == max_depth:
                out.append(tag[:-1].rstrip() + " />")   # its children go: the writer closes it at once
            if not self_closing:
                skip = depth
                depth += 1
            continue
        out.append(tag)
        if not self_closing:
            depth += 1
    out.append(xml[position:])
    return _EMPTY_HIERARCHY.sub(r"\1 />", "".join(out))


def device_info(phone: VirtualPhone) -> dict[str, Any]:
    """DeviceInfo as the server's Jackson writes it: UiDevice's package, display and product name."""
    with phone.lock:
        package = phone.foreground()[0]
        left, top, right, bottom = phone._dumper_screen()   # what UiDevice.getDisplayWidth/Height read
        rotation, density, screen_on = phone.rotation, phone.density, phone.screen_on
    width, height = right - left, bottom - top
    return {"currentPackageName": package, "displayHeight": height, "displayRotation": rotation,
            "displaySizeDpX": round(width * 160 / density), "displaySizeDpY": round(height * 160 / density),
            "displayWidth": width, "productName": "agentdesk_virtual", "screenOn": screen_on,
            "sdkInt": phone.profile.sdk, "naturalOrientation": rotation % 2 == 0}
