"""The on-screen keyboard in a screen's controls: which controls are its keys, and where it lies.

An input method's window is in the tree when the tree covers every window; `uiautomator dump` writes the
active window only, and the keyboard's area then comes from `dumpsys window` (`AndroidDevice.keyboard_frame`).
A control of the app whose centre lies inside the keyboard's area is still listed (Android's accessibility
does not say another window covers it), but a tap there reaches a key."""

from __future__ import annotations

from collections.abc import Sequence

from .controls import Control, Rect


def is_input_method(package: str) -> bool:
    """Whether a package is a keyboard's (by the names keyboards' packages carry)."""
    return "inputmethod" in package or "keyboard" in package


def keyboard_area(controls: Sequence[Control]) -> Rect | None:
    """The bounds of the keyboard's keys when a keyboard shows, else None."""
    keys = [c.rect for c in controls if is_input_method(c.package)]
    if not keys:
        return None
    return (min(r[0] for r in keys), min(r[1] for r in keys), max(r[2] for r in keys), max(r[3] for r in keys))


def under_the_keyboard(control: Control, area: Rect | None) -> bool:
    """Whether a control of an app lies where the keyboard (`area`) shows: a tap at its centre would reach a key."""
    if area is None or is_input_method(control.package):
        return False
    x, y = control.center
    return area[0] <= x < area[2] and area[1] <= y < area[3]


def a_field_has_the_focus(controls: Sequence[Control]) -> bool:
    """Whether a text field of the screen has the focus (the keyboard may be up)."""
    return any(c.focused and c.class_name.endswith(("EditText", "AutoCompleteTextView")) for c in controls)
