"""The `Control` contract (GUIDE §2): one on-screen control the agent and the person can refer to."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

Rect = tuple[int, int, int, int]
"""(left, top, right, bottom) in device pixels."""

PROMPT_NAME_LIMIT = 40
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
        """One short line for an LLM prompt, e.g. `[3] Button "Send" (clickable) @540,2200`.

        The name is left out when it only repeats the type, cut to `PROMPT_NAME_LIMIT`
        characters, and only flags that differ from a plain static label are listed.
        """
        parts = [f"[{self.id}]", self.type]
        if self.name and self.name != self.type:
            name = self.name
            if len(name) > PROMPT_NAME_LIMIT:
                name = name[: PROMPT_NAME_LIMIT - 1].rstrip() + "…"
            parts.append(json.dumps(name, ensure_ascii=False))
        flags = self._prompt_flags()
        if flags:
            parts.append(f"({','.join(flags)})")
        x, y = self.center
        parts.append(f"@{x},{y}")
        return " ".join(parts)

    def _prompt_flags(self) -> list[str]:
        flags = []
        if self.clickable:
            flags.append("clickable")
        if self.long_clickable:
            flags.append("long-clickable")
        if self.scrollable:
            flags.append("scrollable")
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
