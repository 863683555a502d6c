"""Screens whose picture must not reach the model: protected screens and apps the person lists.

A protected screen is an app window marked FLAG_SECURE (banking apps, password and PIN
screens): Android draws that window black in every screen capture (`screencap`, the mirror's
stream) while `uiautomator dump` still lists its controls. `looks_protected` recognises it
from what a step has anyway: the controls that carry text, whose rectangles should show
that text, are black in the picture. A dark app still draws its text in a light colour, so
its text controls are never all black; a screen without text controls is never called
protected (there is nothing to tell it by).

`withheld_reason` says why a step sends the model no picture (a protected screen, or the
app in front is in `images.never_send_apps`), in words for the step record; `hide_password`
keeps a password field's text out of anything shown to the model.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace

from PIL import Image

from app.core.perception.controls import Control
from app.core.redaction import PASSWORD_HIDDEN

BLACK_LEVEL = 16
"""A pixel no brighter than this (0–255 grey) counts as black (JPEG/scaling noise on black)."""
BLACK_SHARE = 0.99
"""A control's rectangle is black when this share of its pixels is."""
LIT_SHARE = 0.2
"""The screen is protected when at most this share of its text controls is not black (a
keyboard or a toast drawn over the secure window may cover a few)."""

PROTECTED_REASON = ("protected screen: the screenshot is black where the app's controls are (the app forbids "
                    "screenshots) while the dump lists them; the model got the controls as text only")
PROTECTED_MESSAGE = ("This app forbids screenshots (a protected screen); the model gets its controls as text only.")


def text_controls(controls: Sequence[Control]) -> list[Control]:
    """The controls a picture should show text or an icon label for, with an area."""
    return [c for c in controls if (c.text.strip() or c.content_desc.strip())
            and c.rect[2] > c.rect[0] and c.rect[3] > c.rect[1]]


def looks_protected(image: Image.Image, controls: Sequence[Control],
                    screen_size: tuple[int, int] | None = None) -> bool:
    """Whether `image` is a capture of a protected (FLAG_SECURE) screen: the dump lists controls
    with text, and (nearly) all of them are black in the picture. `screen_size` is the device's
    size in pixels when `image` is smaller (the mirror's scaled frames); control rects are in
    device pixels."""
    labelled = text_controls(controls)
    if not labelled or image.width <= 0 or image.height <= 0:
        return False
    width, height = screen_size or image.size
    if width <= 0 or height <= 0:
        return False
    grey = image.convert("L")
    sx, sy = grey.width / width, grey.height / height
    lit = seen = 0
    for control in labelled:
        if lit > LIT_SHARE * len(labelled):     # too many show something: not protected
            return False
        left, top, right, bottom = control.rect
        box = (max(0, int(left * sx)), max(0, int(top * sy)),
               min(grey.width, max(int(left * sx) + 1, round(right * sx))),
               min(grey.height, max(int(top * sy) + 1, round(bottom * sy))))
        if box[2] <= box[0] or box[3] <= box[1]:
            continue
        histogram = grey.crop(box).histogram()
        total = sum(histogram)
        seen += 1
        if sum(histogram[:BLACK_LEVEL + 1]) < BLACK_SHARE * total:
            lit += 1
    return seen > 0 and lit <= LIT_SHARE * seen


def never_send_reason(package: str) -> str:
    """The step record's words for an app whose screenshots are never sent."""
    return (f"{package} is in images.never_send_apps: its screenshots are never sent to the model; "
            "the model got the controls as text only")


UNKNOWN_APP_REASON = ("the app in front could not be told and images.never_send_apps is set: no screenshot was "
                      "sent to the model")


def withheld_reason(image: Image.Image, controls: Sequence[Control], foreground: str,
                    never_send_apps: Collection[str], screen_size: tuple[int, int] | None = None) -> str:
    """Why this step's screenshot must not be sent to the model ("" when it may be): the app in
    front is listed in `never_send_apps` (or cannot be told while the list is set), or the
    screen is protected."""
    listed = {package.strip() for package in never_send_apps if package.strip()}
    if listed and foreground in listed:
        return never_send_reason(foreground)
    if listed and not foreground:
        return UNKNOWN_APP_REASON
    if looks_protected(image, controls, screen_size):
        return PROTECTED_REASON
    return ""


def hide_password(control: Control) -> Control:
    """The control as the model may see it: a password field's text (and a name taken from it)
    replaced by PASSWORD_HIDDEN. Other controls are returned unchanged."""
    if not control.password or not control.text:
        return control
    name = PASSWORD_HIDDEN if control.name == control.text or control.text in control.name else control.name
    return replace(control, text=PASSWORD_HIDDEN, name=name)
