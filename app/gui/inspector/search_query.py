"""What the inspector's search box matches: a control or a hierarchy node, by its words.

Plain words match, case-insensitively, anywhere in the text, resource-id, content-desc or class
(and, for a control, its name, type and bounds). A prefix narrows the search to one attribute:
`text:`, `id:` (resource-id), `desc:` (content-desc), `class:`; `#12` finds control 12. A text that
starts with "/" or "(" is an XPath: evaluated on the screen's hierarchy (`xpath_search`), it matches
the nodes it finds (`with_found`). No Qt here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from app.core.perception.controls import Control
from app.core.perception.hierarchy import UiNode
from app.core.perception.xpath_search import looks_like_xpath

PREFIXES = {"text": "text", "id": "resource-id", "rid": "resource-id", "resource-id": "resource-id",
            "desc": "content-desc", "content-desc": "content-desc", "class": "class"}
"""Prefix typed → the attribute it searches."""
HINT = ("Search text, resource-id, content-desc, class — or text: id: desc: class: #12 — "
        "or an XPath starting with / or ( such as //*[@text=\"OK\"], as Copy XPath writes it")


def _rect_text(rect) -> str:
    return "[{},{}][{},{}]".format(*rect) if rect else ""


@dataclass(frozen=True)
class SearchQuery:
    """One parsed search: `needle` (casefolded) in `attribute` ("" = any of them), a control id, or an
    `xpath` whose matches (`found`, node paths) are set once it has been evaluated."""

    needle: str = ""
    attribute: str = ""
    control_id: int | None = None
    xpath: str = ""
    found: frozenset[tuple[int, ...]] = frozenset()

    @classmethod
    def parse(cls, text: str) -> SearchQuery:
        text = text.strip()
        if looks_like_xpath(text):
            return cls(text, xpath=text)
        if text.startswith("#") and text[1:].isdigit():
            return cls(text, "", int(text[1:]))
        key, colon, rest = text.partition(":")
        if colon and key.strip().lower() in PREFIXES and rest.strip():
            return cls(rest.strip().casefold(), PREFIXES[key.strip().lower()])
        return cls(text.casefold())

    @property
    def empty(self) -> bool:
        return not self.needle

    def with_found(self, paths: Iterable[tuple[int, ...]]) -> SearchQuery:
        """This XPath query, matching the nodes at `paths`."""
        return replace(self, found=frozenset(paths))

    def matches_control(self, control: Control) -> bool:
        if self.empty:
            return True
        if self.xpath:
            return control.node_path in self.found
        if self.control_id is not None:
            return control.id == self.control_id
        values = {"text": control.text, "resource-id": control.resource_id, "content-desc": control.content_desc,
                  "class": control.class_name}
        if self.attribute:
            return self.needle in values[self.attribute].casefold()
        return any(self.needle in value.casefold() for value in (
            *values.values(), control.name, control.type, _rect_text(control.rect)))

    def matches_node(self, node: UiNode, control: Control | None = None) -> bool:
        """A node of the tree (with its control, when it is one)."""
        if self.empty:
            return False
        if self.xpath:
            return node.path in self.found
        if self.control_id is not None:
            return control is not None and control.id == self.control_id
        attributes = node.attributes
        values = {"text": attributes.get("text", ""), "resource-id": attributes.get("resource-id", ""),
                  "content-desc": attributes.get("content-desc", ""), "class": node.class_name}
        if self.attribute:
            return self.needle in values[self.attribute].casefold()
        return any(self.needle in value.casefold() for value in (*values.values(), _rect_text(node.bounds)))
