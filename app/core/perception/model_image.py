"""Images as a model receives them: downscaled to a maximum side, encoded as JPEG or PNG."""

from __future__ import annotations

import base64
import io

from PIL import Image


def fit_for_model(image: Image.Image, max_side: int) -> tuple[Image.Image, float]:
    """Downscale so the longer side is at most `max_side`; returns (image, scale from device pixels).

    An integer reduction (box filter, ~2 ms on 1080x2400) does most of the work; a
    resample only covers what is left.
    """
    longest = max(image.size)
    if max_side <= 0 or longest <= max_side:
        return image, 1.0
    factor = longest // max_side
    small = image.reduce(factor) if factor >= 2 else image
    if max(small.size) > max_side:
        ratio = max_side / max(small.size)
        small = small.resize((max(1, round(small.width * ratio)), max(1, round(small.height * ratio))),
                             Image.Resampling.BILINEAR)
    return small, small.width / image.width


def encode_image(image: Image.Image, image_format: str = "JPEG", quality: int = 80) -> bytes:
    buffer = io.BytesIO()
    if image_format.upper() == "PNG":
        image.save(buffer, format="PNG", compress_level=1)
    else:
        image.convert("RGB").save(buffer, format="JPEG", quality=quality)
    return buffer.getvalue()


def data_url(data: bytes, image_format: str = "JPEG") -> str:
    mime = "image/png" if image_format.upper() == "PNG" else "image/jpeg"
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
