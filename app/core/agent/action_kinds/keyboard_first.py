"""A control the model names that lies under the on-screen keyboard: close the keyboard first (Back, which
with a keyboard up only closes it, as a person does), read the screen again and touch the control where it
is then. Without that, the tap would type a key into the focused field."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

from app.core.perception.controls import Control
from app.core.perception.keyboard import a_field_has_the_focus, keyboard_area, under_the_keyboard
from app.core.perception.locator import target_locator

from ..regrounding import find_target
from .base import ActionRejected, Performer

KEYBOARD_GONE_SECONDS = 3.0
"""How long the keyboard may take to go after Back (its slide-down animation, a slow phone's dump)."""
_LOOK_AGAIN_SECONDS = 0.15


async def out_from_under_the_keyboard(performer: Performer, target: Control,
                                      controls: Sequence[Control]) -> tuple[Control, str]:
    """`target` as it is once the keyboard no longer covers it, and how the action's message starts when the
    keyboard had to be closed ("" when not)."""
    device = performer.device
    area = keyboard_area(controls)
    if area is None and a_field_has_the_focus(controls):       # a keyboard not in the tree: ask the phone
        area = await device.keyboard_frame()
    if not under_the_keyboard(target, area):
        return target, ""
    await device.press_key("BACK")                 # with the keyboard up, Back closes only the keyboard
    deadline = time.monotonic() + KEYBOARD_GONE_SECONDS
    while True:
        await performer.control.interruptible(asyncio.sleep(_LOOK_AGAIN_SECONDS))
        if await device.keyboard_frame() is None:
            now_shown = (await performer.control.interruptible(device.controls(refresh=True))).controls
            if keyboard_area(now_shown) is None:
                break
        if time.monotonic() >= deadline:
            raise ActionRejected(f"“{target.name}” is under the on-screen keyboard, and the keyboard did not close "
                                 "with Back; close it another way or scroll the control into view.")
    found = find_target(target_locator(target, controls), now_shown)
    if found.control is None:
        raise ActionRejected(f"“{target.name}” was under the on-screen keyboard; with the keyboard closed, "
                             f"{found.reason}. Look at the screen again.")
    return found.control, "Closed the keyboard that covered it, then "
