"""The `Control` contract (GUIDE §2): one on-screen control the agent and the person can refer to."""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from typing import Any

Rect = tuple[int, int, int, int]
"""(left, top, right, bottom) in device pixels."""

_DASHES = dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2212"), "-")


def normalise(text: str) -> str:
    """Compare as a person reads: Unicode-folded, case-blind, any dash a hyphen, spaces collapsed."""
    return " ".join(unicodedata.normalize("NFKC", text).translate(_DASHES).casefold().split())


PROMPT_NAME_LIMIT = 32
"""Characters of a control's name kept in its prompt line."""


@dataclass(frozen=True, slots=True)
class Control:
    """A selected node of one screen's UI hierarchy.

    `id` runs 1..n in reading order and is stable for one screen only. `rect` is clipped
    to the screen when the screen size was known. `locator` is an XPath expression that
    selects exactly this node in the dump it came from (rules in `locator.py`).
    """

    id: int
    name: str
    type: str
    class_name: str
    resource_id: str
    text: str
    content_desc: str
    rect: Rect
    clickable: bool = False
    long_clickable: bool = False
    scrollable: bool = False
    checkable: bool = False
    checked: bool = False
    enabled: bool = True
    focused: bool = False
    focusable: bool = False
    selected: bool = False
    password: bool = False
    package: str = ""
    locator: str = ""
    node_path: tuple[int, ...] = ()
    window: int = 0

    @property
    def width(self) -> int:
        return self.rect[2] - self.rect[0]

    @property
    def height(self) -> int:
        return self.rect[3] - self.rect[1]

    @property
    def center(self) -> tuple[int, int]:
        left, top, right, bottom = self.rect
        return (left + right) // 2, (top + bottom) // 2

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict with exactly the GUIDE §2 fields plus `locator`."""
        return {
            "id": self.id,
            "name": self.name,
            "type": self.type,
            "resource_id": self.resource_id,
            "text": self.text,
            "content_desc": self.content_desc,
            "rect": list(self.rect),
            "clickable": self.clickable,
            "long_clickable": self.long_clickable,
            "scrollable": self.scrollable,
            "checkable": self.checkable,
            "checked": self.checked,
            "enabled": self.enabled,
            "focused": self.focused,
            "selected": self.selected,
            "password": self.password,
            "package": self.package,
            "locator": self.locator,
        }

    def to_prompt_line(self) -> str:
        """One short line for an LLM prompt, e.g. `3 button "Send" tap @540,2200` (the id bare: brackets
        around it cost two tokens a line).

        The kind is a short role word (`prompt_role`), left out for a plain container; the name is
        JSON-quoted, cut to `PROMPT_NAME_LIMIT` characters, and left out when it only repeats the
        class (the line then shows the role, or the class when it has none). Only the states that
        differ from a plain static label are listed (`PROMPT_FLAGS` explains the words).
        """
        role = prompt_role(self.type)
        parts = [str(self.id)]
        if self.name and self.name != self.type:
            name = self.name
            if len(name) > PROMPT_NAME_LIMIT:
                name = name[: PROMPT_NAME_LIMIT - 1].rstrip() + "…"
            parts += [role, json.dumps(name, ensure_ascii=False)] if role else [json.dumps(name, ensure_ascii=False)]
        else:
            parts.append(role or self.type or "view")
        flags = self._prompt_flags()
        if flags:
            parts.append(",".join(flags))
        x, y = self.center
        parts.append(f"@{x},{y}")
        return " ".join(parts)

    def _prompt_flags(self) -> list[str]:
        """Long-clickable is left out: any control can be long-pressed, most list it for an accessibility
        menu only, and on a keyboard it was a word on every key."""
        flags = []
        if self.clickable:
            flags.append("tap")
        if self.scrollable:
            flags.append("scroll")
        if self.checkable:
            flags.append("checked" if self.checked else "unchecked")
        if self.selected:
            flags.append("selected")
        if self.focused:
            flags.append("focused")
        if self.password:
            flags.append("password")
        if not self.enabled:
            flags.append("disabled")
        return flags


PROMPT_FLAGS = "tap=clickable, scroll=scrollable"
"""The short state words of a prompt line that need explaining (the others are plain English)."""

_ROLE_BY_CLASS = {
    "EditText": "edit", "AutoCompleteTextView": "edit", "MultiAutoCompleteTextView": "edit",
    "Switch": "switch", "SwitchCompat": "switch", "SwitchMaterial": "switch", "CheckBox": "checkbox",
    "CheckedTextView": "checkbox", "RadioButton": "radio", "ToggleButton": "toggle", "CompoundButton": "toggle",
    "Button": "button", "ImageButton": "button", "TextView": "", "ImageView": "image", "Image": "image",
    "RecyclerView": "list", "ListView": "list", "GridView": "list", "ScrollView": "list",
    "HorizontalScrollView": "list", "NestedScrollView": "list", "ViewPager": "pager", "ViewPager2": "pager",
    "WebView": "web", "SeekBar": "slider", "RatingBar": "slider", "ProgressBar": "progress",
    "Spinner": "dropdown", "Tab": "tab", "TabView": "tab", "NumberPicker": "picker", "TimePicker": "picker",
    "DatePicker": "picker", "VideoView": "video",
}
_ROLE_BY_ENDING = (("EditText", "edit"), ("Switch", "switch"), ("CheckBox", "checkbox"), ("RadioButton", "radio"),
                   ("Button", "button"), ("TextView", ""), ("ImageView", "image"), ("RecyclerView", "list"),
                   ("ListView", "list"), ("ScrollView", "list"), ("WebView", "web"))
_CONTAINER_ENDINGS = ("Layout", "View", "ViewGroup", "Group")


def prompt_role(class_tail: str) -> str:
    """The short role word a prompt line gives a control of class `class_tail` ("button", "edit",
    "list"…), "" for plain text and a plain container (TextView, FrameLayout, View, ViewGroup, an
    obfuscated one-letter class), whose name and states say what it is; an unknown widget keeps its
    class name."""
    if class_tail in _ROLE_BY_CLASS:
        return _ROLE_BY_CLASS[class_tail]
    for ending, role in _ROLE_BY_ENDING:
        if class_tail.endswith(ending):
            return role
    if len(class_tail) <= 2 or class_tail.endswith(_CONTAINER_ENDINGS):
        return ""
    return class_tail
