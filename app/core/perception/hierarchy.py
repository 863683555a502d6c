"""Parse a `uiautomator dump` into a tree of `UiNode`s (lxml), tolerant of what real phones emit.

Tolerated: text before the XML (warnings, "UI hierchary dumped to: /dev/tty"), text after
`</hierarchy>`, a UTF-8 or UTF-16 byte-order mark, any Unicode, control characters,
truncated output (what was written is kept), pretty-printed dumps, missing or extra attributes, malformed bounds (the node keeps
`bounds=None`) and several top-level windows. Bounds are kept as dumped: with rotation
1 or 3 they are already in the rotated display's coordinates.

`select_controls` (in `selection.py`, re-exported here) turns the tree into the numbered
`Control` list.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from lxml import etree

from app.core.perception.controls import Control, Rect
from app.core.perception.selection import select_controls

__all__ = [
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
    """`"[l,t][r,b]"` → (l, t, r, b); None when malformed. Empty rects are kept (validated later)."""
    if value.startswith("[") and value.endswith("]") and "][" in value:
        try:  # the form uiautomator writes, without the regex's cost
            left, top, right, bottom = value[1:-1].replace("][", ",").split(",")
            return int(left), int(top), int(right), int(bottom)
        except ValueError:
            pass
    match = _BOUNDS.search(value)
    if match is None:
        return None
    left, top, right, bottom = match.groups()
    return int(left), int(top), int(right), int(bottom)


def parse_hierarchy(xml: str | bytes) -> UiHierarchy:
    """Parse the output of `uiautomator dump` (file content or /dev/tty output)."""
    document = _extract_document(_as_text(xml))
    data = document.encode("utf-8", errors="replace")
    try:
        return _parse_xml(data, recover=False)
    except etree.XMLSyntaxError:
        # Recover what the phone wrote: drop illegal characters, let libxml2 repair the rest.
        data = _XML_ILLEGAL.sub("?", document).encode("utf-8", errors="replace")
        try:
            return _parse_xml(data, recover=True)
        except etree.XMLSyntaxError as error:
            raise HierarchyError(f"The UI dump is not readable XML: {error}") from None


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


def _parse_xml(data: bytes, *, recover: bool) -> UiHierarchy:
    # The document starts at <hierarchy>, so no DTD (and no custom entity) can be in it;
    # resolve_entities=False would make libxml2 report "&amp;" as "&#38;" to a target.
    parser = etree.XMLParser(
        target=_TreeBuilder(), huge_tree=True, recover=recover, resolve_entities="internal", no_network=True
    )
    hierarchy = etree.fromstring(data, parser)
    if hierarchy is None:
        raise HierarchyError("The UI dump is not readable XML: no <hierarchy> root element.")
    return hierarchy


class _TreeBuilder:
    """lxml parser target that builds `UiNode`s straight from parse events.

    Skipping lxml's element tree halves the parse time. Only `<node>` elements nested
    in `<node>`s under the root `<hierarchy>` become nodes; anything else is ignored.
    """

    def __init__(self) -> None:
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
