"""The phone routes' answers: the list of phones, a screen's tree (seed 004's SemanticUITree), a PNG."""

from __future__ import annotations

import asyncio
import io
import time

from app.core.device.errors import DeviceNotFound
from app.core.device.phone_id import AmbiguousPhone
from app.core.perception.annotate import annotate

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
    return UIElement(element_id=control.id, text=control.text, content_desc=control.content_desc, name=control.name,
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


async def screenshot_png(phones, device_id: str, with_ids: bool) -> bytes:
    session = _session(phones, device_id)
    frame = await session.frames.frame_after(time.monotonic())
    shot = await asyncio.to_thread(frame.display_shot)
    controls = (await session.screen_tree.read(frame)).snapshot.controls if with_ids else []

    def encode() -> bytes:
        image = annotate(shot.image, controls) if with_ids else shot.image
        out = io.BytesIO()
        image.save(out, format="PNG", compress_level=1)
        return out.getvalue()
    return await asyncio.to_thread(encode)
