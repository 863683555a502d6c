"""The API's (and so MCP's) screenshots keep a never-send app's screen and a password being typed home:
they answer a blurred picture with a sentence saying why; other screens come as they are."""

from __future__ import annotations

import io
import uuid

import pytest
from PIL import Image, ImageFilter, ImageStat

from app.core.perception.private_screen import PASSWORD_REASON, password_in_use
from app.core.secrets import register_secret
from app.virtual_phone.apps import NOTES

PIN_SCREEN = "com.android.settings.password.ChooseLockPassword"


def sharpness(png: bytes) -> float:
    """How much fine detail a picture has (the mean of its edges), below the top band a sentence may take."""
    edges = Image.open(io.BytesIO(png)).convert("L").filter(ImageFilter.FIND_EDGES)
    body = edges.crop((2, edges.height // 4, edges.width - 2, edges.height - 2))   # a filter leaves the rim as it was
    return ImageStat.Stat(body).mean[0]


def top_band(png: bytes) -> tuple[int, int, int]:
    image = Image.open(io.BytesIO(png)).convert("RGB")
    return image.getpixel((2, 2))


@pytest.mark.asyncio
async def test_a_never_send_apps_screen_is_answered_blurred_with_the_reason(make_desk):
    desk = await make_desk()
    phone_id = desk.phone_ids[0]
    assert desk.phone().launch(NOTES)
    shown = await desk.http.get(f"/v1/devices/{phone_id}/screenshot")
    assert shown.status_code == 200 and sharpness(shown.content) > 0.2      # the notes list, as it is

    desk.settings.images.never_send_apps = [NOTES]
    for ids in ("false", "true"):
        private = await desk.http.get(f"/v1/devices/{phone_id}/screenshot", params={"ids": ids})
        assert private.status_code == 200 and private.content.startswith(b"\x89PNG")
        assert sharpness(private.content) < sharpness(shown.content) / 5, "nothing readable is left"
        assert top_band(private.content) == (245, 245, 245), "the sentence's band"
    tree = (await desk.http.get(f"/v1/devices/{phone_id}/ui-tree")).json()
    assert tree["app_name"] == NOTES and tree["elements"], "the controls as text stay available, as to the model"


@pytest.mark.asyncio
async def test_a_screen_with_a_password_being_typed_is_not_shown(make_desk):
    desk = await make_desk()
    phone_id = desk.phone_ids[0]
    assert desk.phone().launch("com.android.settings", PIN_SCREEN)
    tree = (await desk.http.get(f"/v1/devices/{phone_id}/ui-tree")).json()
    field = next(element for element in tree["elements"] if element["state"]["password"])
    if not field["state"]["focused"]:
        bounds = field["bounds"]
        desk.phone().tap((bounds["left"] + bounds["right"]) // 2, (bounds["top"] + bounds["bottom"]) // 2)
    shot = await desk.http.get(f"/v1/devices/{phone_id}/screenshot")
    assert shot.status_code == 200 and top_band(shot.content) == (245, 245, 245)


def test_only_a_focused_password_field_counts_as_being_typed_into():
    assert password_in_use([{"flags": ["password", "focused"]}]) and PASSWORD_REASON
    assert not password_in_use([{"flags": ["password"]}, {"flags": ["focused"]}])


@pytest.mark.asyncio
async def test_a_key_shown_on_the_phone_is_redacted_in_the_ui_tree(make_desk):
    secret = f"zqShownKey{uuid.uuid4().hex}"
    register_secret(secret)
    desk = await make_desk()
    desk.phone().apps[NOTES].notes.insert(0, {"title": f"Vault {secret}", "body": "keep it"})
    assert desk.phone().launch(NOTES)
    response = await desk.http.get(f"/v1/devices/{desk.phone_ids[0]}/ui-tree")
    assert response.status_code == 200 and "Vault [redacted]" in response.text and secret not in response.text
