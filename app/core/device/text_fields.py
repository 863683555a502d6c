"""Read a text field back from a uiautomator dump: what it holds, as far as the dump tells.

Typing and clearing are checked against the next dump (GUIDE §6). Two Android habits are
handled here: an empty field on some phones reports its hint as its text (recent dumps carry
the hint in a `hint` attribute: text equal to it counts as empty), and a password field's
text is masked (dots), so only its length means anything.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.core.perception.controls import Control
from app.core.perception.hierarchy import UiHierarchy, UiNode

from .errors import CommandFailed

_EDITABLE_CLASS_MARKERS = ("EditText", "TextField", "TextInput", "SearchView$SearchAutoComplete")


class TextNotCleared(CommandFailed):
    """Clearing a field left text in it; the message says what is left (a password's length only)."""


@dataclass(frozen=True)
class FieldReading:
    """One text field as a dump shows it. `text` is "" when the field shows only its hint."""

    text: str
    hint: str = ""
    password: bool = False
    name: str = ""
    focused: bool = False
    hint_reported: bool = True   # False: an older dump without the `hint` attribute (text may be the hint)

    @property
    def length_known(self) -> bool:
        """A password field that reports no text may hide its length: then nothing can be checked."""
        return bool(self.text) or not self.password

    def shown(self, limit: int = 80) -> str:
        """The field's text as a message may quote it (shortened): a password field's only as its length."""
        if self.password:
            return f"{len(self.text)} characters"
        return f"“{self.text if len(self.text) <= limit else self.text[:limit - 1] + '…'}”"


def is_editable(node: UiNode) -> bool:
    return any(marker in node.class_name for marker in _EDITABLE_CLASS_MARKERS)


def reading_of(node: UiNode) -> FieldReading:
    """The field's text with a reported hint taken for what it is: an empty field."""
    attributes = node.attributes
    text = attributes.get("text", "")
    hint = attributes.get("hint", "")
    if hint and text == hint:
        text = ""
    name = attributes.get("resource-id", "").rpartition("/")[2] or hint or node.class_name.rpartition(".")[2]
    return FieldReading(text=text, hint=hint, password=attributes.get("password") == "true", name=name,
                        focused=attributes.get("focused") == "true", hint_reported="hint" in attributes)


def focused_field(hierarchy: UiHierarchy) -> FieldReading | None:
    """The focused editable field (the one `input text` types into), or None."""
    for node in hierarchy.iter_nodes():
        if node.attributes.get("focused") == "true" and is_editable(node):
            return reading_of(node)
    return None


def field_of(hierarchy: UiHierarchy, target: Control) -> FieldReading | None:
    """The node that is `target` (a control of an earlier dump of the same screen), or None.

    Matched by its place in the tree and class; else by resource id and a rectangle that
    holds the target's centre (a field that grew or moved a little is still itself)."""
    fallback: UiNode | None = None
    cx, cy = target.center
    for node in hierarchy.iter_nodes():
        if node.path == target.node_path and node.class_name == target.class_name:
            return reading_of(node)
        if (fallback is None and target.resource_id and node.attributes.get("resource-id") == target.resource_id
                and node.bounds is not None and node.bounds[0] <= cx < node.bounds[2]
                and node.bounds[1] <= cy < node.bounds[3]):
            fallback = node
    return reading_of(fallback) if fallback is not None else None
