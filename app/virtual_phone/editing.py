"""The state of one text field: text, cursor, select-all, and how keys edit it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class TextField:
    text: str = ""
    single_line: bool = True
    input_type: str = "text"  # "text", "number", "phone", "password"
    action: Callable[[], None] | None = None  # the IME action (Enter in a single-line field)
    select_on_focus: bool = False  # focusing selects all, so typing replaces (time picker fields)
    max_length: int = 0
    cursor: int = 0
    selected_all: bool = False

    def focus(self) -> None:
        self.cursor = len(self.text)
        self.selected_all = self.select_on_focus and bool(self.text)

    def set(self, text: str) -> None:
        self.text = text
        self.cursor = len(text)
        self.selected_all = False

    def insert(self, s: str) -> None:
        if self.single_line:
            s = s.replace("\n", " ")
        if self.input_type in ("number", "phone"):
            allowed = "0123456789" if self.input_type == "number" else "0123456789+*#()- ."
            s = "".join(ch for ch in s if ch in allowed)
        if self.selected_all:
            self.text, self.cursor, self.selected_all = "", 0, False
        if self.max_length:
            s = s[: max(0, self.max_length - len(self.text))]
        self.text = self.text[: self.cursor] + s + self.text[self.cursor:]
        self.cursor += len(s)

    def backspace(self) -> None:
        if self.selected_all:
            self.set("")
        elif self.cursor > 0:
            self.text = self.text[: self.cursor - 1] + self.text[self.cursor:]
            self.cursor -= 1

    def forward_delete(self) -> None:
        if self.selected_all:
            self.set("")
        else:
            self.text = self.text[: self.cursor] + self.text[self.cursor + 1:]

    def move(self, where: str) -> None:
        self.selected_all = False
        if where == "home":
            self.cursor = 0 if self.single_line else self.text.rfind("\n", 0, self.cursor) + 1
        elif where == "end":
            nl = -1 if self.single_line else self.text.find("\n", self.cursor)
            self.cursor = len(self.text) if nl < 0 else nl
        elif where == "left":
            self.cursor = max(0, self.cursor - 1)
        elif where == "right":
            self.cursor = min(len(self.text), self.cursor + 1)
