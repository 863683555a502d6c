"""Parse a `uiautomator dump` into a tree of `UiNode`s (lxml), tolerant of what real phones emit.

Tolerated: text before the XML (warnings, "UI hierchary dumped to: /dev/tty"), text after
`</hierarchy>`, a UTF-8 or UTF-16 byte-order mark, any Unicode, control characters,
truncated output (what was written is kept), pretty-printed dumps, missing or extra attributes, malformed
bounds (the node keeps `bounds=None`) and several top-level windows. Bounds are kept as dumped: with rotation
1 or 3 they are already in the rotated display's coordinates.

`select_controls` (in `selection.py`, re-exported here) turns the tree into the numbered
`Control` list.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import cast

from lxml import etree

from app.core.perception.controls import Control, Rect
from app.core.perception.selection import select_controls

__all__ = [
    "DumpTooLarge",
    "HierarchyError",
    "UiHierarchy",
    "UiNode",
    "extract_controls",
    "parse_bounds",
    "parse_hierarchy",
    "screen_size_from_hierarchy",
    "select_controls",
]

_BOUNDS = re.compile(
    r"\[\s*(-?\d+)(?:\.\d*)?\s*,\s*(-?\d+)(?:\.\d*)?\s*\]\s*\[\s*(-?\d+)(?:\.\d*)?\s*,\s*(-?\d+)(?:\.\d*)?\s*\]"
)
# Characters XML 1.0 forbids; some dump tools write them raw.
_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_START = "<hierarchy"
_END = "</hierarchy>"


class HierarchyError(ValueError):
    """The dump is empty, not XML, or an error message from uiautomator instead of a dump."""


class DumpTooLarge(HierarchyError):
    """The dump is over a cap (bytes or nodes): refused before it costs seconds and hundreds of MB.
    The message names the cap and its setting."""


MAX_COORDINATE = 100_000
"""Bounds with a coordinate beyond ±this are absurd (a hostile or broken dump): treated as malformed."""


class _TooManyNodes(Exception):
    """Raised inside the parser target to stop the parse at the node cap."""


@dataclass(slots=True, eq=False)
class UiNode:
    """One `<node>` of the dump.

    `path` holds 0-based indexes among `<node>` siblings from the top-level window down:
    `path[0]` is the window index, and `/hierarchy/node[path[0]+1]/node[path[1]+1]...`
    is its XPath.
    """

    attributes: dict[str, str]
    class_name: str
    bounds: Rect | None
    path: tuple[int, ...]
    children: list[UiNode] = field(default_factory=list)

    @property
    def window(self) -> int:
        return self.path[0]

    def iter(self) -> Iterator[UiNode]:
        """This node and all its descendants in document (pre-)order."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))


@dataclass(slots=True, eq=False)
class UiHierarchy:
    """A parsed dump: display rotation (0-3) and one root node per top-level window."""

    rotation: int
    windows: list[UiNode]

    def iter_nodes(self) -> Iterator[UiNode]:
        """Every node of every window in document order."""
        for window in self.windows:
            yield from window.iter()


def parse_bounds(value: str) -> Rect | None:
    """`"[l,t][r,b]"` → (l, t, r, b); None when malformed or absurd (a coordinate beyond
    ±MAX_COORDINATE). Empty and inverted rects are kept (validated later)."""
    rect: Rect | None = None
    if value.startswith("[") and value.endswith("]") and "][" in value:
        try:  # the form uiautomator writes, without the regex's cost
            left, top, right, bottom = value[1:-1].replace("][", ",").split(",")
            rect = int(left), int(top), int(right), int(bottom)
        except ValueError:
            pass
    if rect is None:
        match = _BOUNDS.search(value)
        if match is None:
            return None
        left, top, right, bottom = match.groups()
        rect = int(left), int(top), int(right), int(bottom)
    if any(abs(edge) > MAX_COORDINATE for edge in rect):
        return None
    return rect


def parse_hierarchy(xml: str | bytes, *, max_bytes: int | None = None,
                    max_nodes: int | None = None) -> UiHierarchy:
    """Parse the output of `uiautomator dump` (file content or /dev/tty output).

    `max_bytes` / `max_nodes` (None: no cap) refuse a dump over them with `DumpTooLarge`: the
    size is checked before parsing, the node count stops the parse as soon as it passes the cap.
    """
    if max_bytes is not None and len(xml) > max_bytes:
        raise DumpTooLarge(f"The phone's UI dump was {len(xml) / 1_000_000:.1f} MB, over the "
                           f"{max_bytes / 1_000_000:g} MB cap (setting limits.max_dump_mb); its controls were "
                           "not read this step.")
    document = _extract_document(_as_text(xml))
    data = document.encode("utf-8", errors="replace")
    try:
        try:
            return _parse_xml(data, recover=False, max_nodes=max_nodes)
        except etree.XMLSyntaxError:
            # Recover what the phone wrote: drop illegal characters, let libxml2 repair the rest.
            data = _XML_ILLEGAL.sub("?", document).encode("utf-8", errors="replace")
            try:
                return _parse_xml(data, recover=True, max_nodes=max_nodes)
            except etree.XMLSyntaxError as error:
                raise HierarchyError(f"The UI dump is not readable XML: {error}") from None
    except _TooManyNodes:
        raise DumpTooLarge(f"The phone's UI dump has more than {max_nodes} nodes, over the cap (setting "
                           "limits.max_dump_nodes); its controls were not read this step.") from None


def extract_controls(xml: str | bytes, screen_size: tuple[int, int] | None = None) -> list[Control]:
    """`parse_hierarchy` then `select_controls`."""
    return select_controls(parse_hierarchy(xml), screen_size)


def screen_size_from_hierarchy(hierarchy: UiHierarchy) -> tuple[int, int]:
    """(width, height) as the farthest right/bottom edge of the top-level windows.

    Falls back to all nodes when no window has valid bounds, and to (0, 0) when no
    node has. A dialog-only dump yields the dialog's extent, not the full screen.
    """
    rects = [w.bounds for w in hierarchy.windows if w.bounds is not None]
    if not rects:
        rects = [n.bounds for n in hierarchy.iter_nodes() if n.bounds is not None]
    if not rects:
        return 0, 0
    return max(0, max(r[2] for r in rects)), max(0, max(r[3] for r in rects))


def _as_text(xml: str | bytes) -> str:
    if isinstance(xml, str):
        return xml
    if not isinstance(xml, bytes | bytearray | memoryview):
        raise TypeError(f"expected str or bytes, got {type(xml).__name__}")
    data = bytes(xml)
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16", errors="replace")
    head = data[:64]
    # UTF-16 without a BOM (Windows shells redirecting adb output): every other byte is 0.
    if head.count(0) * 3 > len(head):
        encoding = "utf-16-le" if head[1:2] == b"\x00" else "utf-16-be"
        return data.decode(encoding, errors="replace")
    return data.decode("utf-8-sig", errors="replace")


def _extract_document(text: str) -> str:
    """The `<hierarchy>…</hierarchy>` part of `text`, without junk before or after."""
    start = text.find(_START)
    if start < 0:
        raise HierarchyError(_explain_missing_hierarchy(text))
    end = text.rfind(_END)
    end = len(text) if end < start else end + len(_END)
    return text[start:end]


def _explain_missing_hierarchy(text: str) -> str:
    stripped = text.strip()
    lowered = stripped.lower()
    if not stripped:
        return "The UI dump is empty: uiautomator returned nothing."
    if "could not get idle state" in lowered:
        return (
            "uiautomator could not dump the screen because it never became idle "
            "(animation or video playing). Retry, or continue with the screenshot only."
        )
    if "null root node" in lowered:
        return (
            "uiautomator found no window to dump (screen off, a secure window, or an app "
            "still starting). Retry, or continue with the screenshot only."
        )
    preview = " ".join(stripped[:80].split())
    return f"This is not a uiautomator dump (no <hierarchy> element). It starts with: {preview!r}"


def _parse_xml(data: bytes, *, recover: bool, max_nodes: int | None = None) -> UiHierarchy:
    # The document starts at <hierarchy>, so no DTD (and no custom entity) can be in it;
    # resolve_entities=False would make libxml2 report "&amp;" as "&#38;" to a target.
    parser = etree.XMLParser(  # lxml-stubs 0.5 predate resolve_entities="internal" and targets without data()
        target=_TreeBuilder(max_nodes), huge_tree=True, recover=recover, resolve_entities="internal",  # type: ignore[arg-type]
        no_network=True,
    )
    # With a target, lxml returns what the target's close() returns.
    hierarchy = cast(UiHierarchy | None, etree.fromstring(data, parser))
    if hierarchy is None:
        raise HierarchyError("The UI dump is not readable XML: no <hierarchy> root element.")
    return hierarchy


class _TreeBuilder:
    """lxml parser target that builds `UiNode`s straight from parse events.

    Skipping lxml's element tree halves the parse time. Only `<node>` elements nested
    in `<node>`s under the root `<hierarchy>` become nodes; anything else is ignored.
    """

    def __init__(self, max_nodes: int | None = None) -> None:
        self._max_nodes = max_nodes
        self._nodes = 0
        self._root_tag: str | None = None
        self._rotation = 0
        self._windows: list[UiNode] = []
        self._open: list[UiNode | None] = []  # None: the root, or an element being skipped

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        if self._root_tag is None:
            self._root_tag = tag
            self._rotation = _parse_rotation(attrib.get("rotation", "0"))
            self._open.append(None)
            return
        parent = self._open[-1] if self._open else None
        is_window = len(self._open) == 1 and self._root_tag == "hierarchy"
        if tag != "node" or (parent is None and not is_window):
            self._open.append(None)
            return
        self._nodes += 1
        if self._max_nodes is not None and self._nodes > self._max_nodes:
            raise _TooManyNodes()
        bounds = attrib.get("bounds")
        siblings = self._windows if parent is None else parent.children
        node = UiNode(
            attributes=attrib,  # a fresh dict per event from lxml
            class_name=attrib.get("class", ""),
            bounds=parse_bounds(bounds) if bounds else None,
            path=(len(siblings),) if parent is None else (*parent.path, len(siblings)),
        )
        siblings.append(node)
        self._open.append(node)

    def end(self, tag: str) -> None:
        if self._open:
            self._open.pop()

    def close(self) -> UiHierarchy | None:
        if self._root_tag != "hierarchy":
            return None
        return UiHierarchy(rotation=self._rotation, windows=self._windows)


def _parse_rotation(value: str) -> int:
    try:
        return int(value.strip()) % 4
    except ValueError:
        return 0
