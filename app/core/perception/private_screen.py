"""Screens whose pictures must not leave the computer: an app on the never-send list, a password field.

The model is already kept from such pictures (`protected_screen.withheld_reason`); the same list
keeps them out of what is shared or served: a map export's pictures, the API's and MCP's
screenshots, the screen recording. A password field being typed into (it has focus, or the
action types into it) makes its screen private too; a protected (FLAG_SECURE) screen is black
in every capture anyway. `private_reason` says why in words ("" when the picture may go), and
`blurred` is what is shown instead where a picture must still be answered.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from PIL import Image, ImageFilter

from .protected_screen import UNKNOWN_APP_REASON

BLUR_SIDE = 24
"""A private screen's picture is shrunk to at most this many pixels a side, then blown up again."""
PASSWORD_REASON = "a password field is being typed into on this screen: its picture is not shared"


def never_send_listed(never_send_apps: Collection[str]) -> set[str]:
    return {package.strip() for package in never_send_apps if package and package.strip()}


def private_reason(foreground: str, never_send_apps: Collection[str], *, password_in_use: bool = False) -> str:
    """Why a picture of this screen must not leave the computer ("" when it may): the app in front is on
    the never-send list (or cannot be told while the list is set), or a password field is being typed into."""
    listed = never_send_listed(never_send_apps)
    if listed and foreground in listed:
        return f"{foreground} is in images.never_send_apps: pictures of its screens are not shared"
    if listed and not foreground:
        return UNKNOWN_APP_REASON
    if password_in_use:
        return PASSWORD_REASON
    return ""


def password_in_use(controls: Sequence[Any]) -> bool:
    """Whether a password field has focus among `controls` (Controls, or summaries with "flags")."""
    for control in controls:
        flags = control.get("flags", ()) if isinstance(control, dict) else getattr(control, "flags", None)
        if flags is not None and not isinstance(flags, (list, tuple, set)):
            flags = ()
        if flags is not None:
            if "password" in flags and "focused" in flags:
                return True
        elif getattr(control, "password", False) and getattr(control, "focused", False):
            return True
    return False


def has_password_field(controls: Sequence[Any]) -> bool:
    """Whether any of `controls` (Controls, or summaries with "flags") is a password field."""
    for control in controls:
        flags = control.get("flags", ()) if isinstance(control, dict) else getattr(control, "flags", None)
        if (flags is not None and isinstance(flags, (list, tuple, set)) and "password" in flags) or \
                (flags is None and getattr(control, "password", False)):
            return True
    return False


def typed_into_password(step: Any) -> bool:
    """Whether a step (a MemoryItem or StepRecord: its `action` and `controls` summaries) typed into a password
    field."""
    action = getattr(step, "action", None) or {}
    if not isinstance(action, dict) or action.get("function") != "type_text":
        return False
    arguments = action.get("arguments") or {}
    control_id = arguments.get("control_id") if isinstance(arguments, dict) else None
    for control in getattr(step, "controls", None) or []:
        flags = getattr(control, "flags", None) or ()
        if "password" in flags and (getattr(control, "id", None) == control_id
                                    or control_id is None and "focused" in flags):
            return True
    return False


def blurred(image: Image.Image) -> Image.Image:
    """The picture with nothing readable left: shrunk to BLUR_SIDE pixels, blown up, then smoothed."""
    scale = BLUR_SIDE / max(image.width, image.height, 1)
    small = image.convert("RGB").resize((max(1, round(image.width * scale)), max(1, round(image.height * scale))),
                                        Image.Resampling.BOX)
    middle = small.resize((max(1, image.width // 10), max(1, image.height // 10)), Image.Resampling.BILINEAR)
    return middle.filter(ImageFilter.GaussianBlur(3)).resize(image.size, Image.Resampling.BICUBIC)


def with_sentence(image: Image.Image, sentence: str) -> Image.Image:
    """The picture with `sentence` written across its top, dark on a light band, wrapped to its width."""
    from PIL import ImageDraw, ImageFont

    picture = image.convert("RGB")
    size = max(12, picture.width // 28)
    font = ImageFont.load_default(size)
    draw = ImageDraw.Draw(picture)
    words, lines, line = sentence.split(), [], ""
    for word in words:
        trial = f"{line} {word}".strip()
        if line and draw.textlength(trial, font=font) > picture.width - 2 * size:
            lines.append(line)
            line = word
        else:
            line = trial
    lines.append(line)
    band = (len(lines) + 1) * size * 1.3
    draw.rectangle((0, 0, picture.width, band), fill=(245, 245, 245))
    for number, text in enumerate(lines):
        draw.text((size, size * 0.6 + number * size * 1.3), text, fill=(20, 20, 20), font=font)
    return picture
