"""The phone routes' answers: the list of phones, a screen's tree (a SemanticUITree), a PNG."""

from __future__ import annotations

import asyncio
import io
import time
from collections.abc import Collection

from app.core.device.errors import DeviceNotFound
from app.core.device.phone_id import AmbiguousPhone
from app.core.perception.annotate import annotate
from app.core.perception.private_screen import blurred, password_in_use, private_reason, with_sentence
from app.core.redaction import redact

from .schemas import Bounds, DeviceInfo, DeviceList, ElementState, SemanticUITree, UIElement
from .tasks import TaskProblem


def _session(phones, device_id: str):
    try:
        return phones.session(device_id)
    except AmbiguousPhone as exc:
        raise TaskProblem(409, str(exc), "device_id") from None
    except DeviceNotFound as exc:
        raise TaskProblem(404, str(exc), "device_id") from None


async def device_list(phones) -> DeviceList:
    busy = {str(session.id) for session in phones.registry.sessions() if session.busy}
    devices = [DeviceInfo(**entry.to_dict(), busy=str(entry.id) in busy) for entry in phones.entries()]
    return DeviceList(devices=devices, unreachable=phones.unreachable())


def _element(control) -> UIElement:
    left, top, right, bottom = control.rect
    return UIElement(element_id=control.id, text=redact(control.text), content_desc=redact(control.content_desc),
                     name=redact(control.name),
                     type=control.type, class_name=control.class_name, resource_id=control.resource_id,
                     package=control.package, bounds=Bounds(left=left, top=top, right=right, bottom=bottom),
                     state=ElementState(clickable=control.clickable, long_clickable=control.long_clickable,
                                        scrollable=control.scrollable, checkable=control.checkable,
                                        checked=control.checked, enabled=control.enabled, focused=control.focused,
                                        selected=control.selected, password=control.password),
                     locator=control.locator)


async def ui_tree(phones, device_id: str) -> SemanticUITree:
    session = _session(phones, device_id)
    reading = await session.screen_tree.read()
    return SemanticUITree(screen_id=reading.screen_id, device_id=str(session.id), app_name=reading.package,
                          activity=reading.activity, screen_name=reading.screen_name,
                          elements=[_element(control) for control in reading.snapshot.controls],
                          age_seconds=round(reading.age_seconds, 3), from_cache=reading.from_cache)


async def screenshot_png(phones, device_id: str, with_ids: bool, never_send_apps: Collection[str] = ()) -> bytes:
    """The phone's screen as PNG (with the controls' numbers when `with_ids`). The screen of an app in
    `never_send_apps`, or one where a password field is being typed into, is answered blurred, with a
    sentence saying why drawn on it: nothing of it leaves the computer."""
    session = _session(phones, device_id)
    frame = await session.frames.frame_after(time.monotonic())
    shot = await asyncio.to_thread(frame.display_shot)
    reading = await session.screen_tree.read(frame)        # which app, and whether a password is being typed
    controls = reading.snapshot.controls
    private = private_reason(reading.package, never_send_apps, password_in_use=password_in_use(controls))

    def encode() -> bytes:
        if private:
            image = with_sentence(blurred(shot.image), f"Not shown: {private}.")
        else:
            image = annotate(shot.image, controls) if with_ids else shot.image
        out = io.BytesIO()
        image.save(out, format="PNG", compress_level=1)
        return out.getvalue()
    return await asyncio.to_thread(encode)
