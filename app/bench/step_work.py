"""The app-side work of one step, our way and the plain way, producing the same output.

Both turn a captured screen and a dump into the same two images for the model (the clean
screen and the annotated one, JPEG, at most 1280 px on the long side, quality 80):
- ours: decode the capture the device layer chose (raw on most phones), parse and select,
  shrink once, annotate the small image, encode both (the clean one on another thread);
- plain (seed 000's order of work): decode a PNG screenshot, parse and select, annotate
  at full size, then shrink and encode both.
So a ratio between them compares how the work is done, never different outputs.
"""

from __future__ import annotations

from app.core.agent.collection_strategies import ModelImages, prepare_model_images
from app.core.device.screen_capture import DECODERS, decode_png
from app.core.perception.annotate import annotate
from app.core.perception.controls import Control
from app.core.perception.hierarchy import extract_controls
from app.core.perception.model_image import data_url, encode_image, fit_for_model

MODEL_MAX_SIDE = 1280
IMAGE_FORMAT = "JPEG"
JPEG_QUALITY = 80


def our_step(capture: bytes, method: str, xml: str) -> tuple[ModelImages, list[Control]]:
    image = DECODERS[method](capture)
    controls = extract_controls(xml, image.size)
    return prepare_model_images(image, controls, MODEL_MAX_SIDE, IMAGE_FORMAT.lower(), JPEG_QUALITY, "both"), controls


def plain_step(png: bytes, xml: str) -> tuple[dict[str, str], tuple[int, int], list[Control]]:
    """The clean and the annotated JPEG as data URLs (as ours hands them to the prompt), their size,
    and the controls."""
    image = decode_png(png)
    controls = extract_controls(xml, image.size)
    marked = annotate(image, controls)
    small, _ = fit_for_model(image, MODEL_MAX_SIDE)
    small_marked, _ = fit_for_model(marked, MODEL_MAX_SIDE)
    urls = {"clean": data_url(encode_image(small, IMAGE_FORMAT, JPEG_QUALITY), IMAGE_FORMAT),
            "annotated": data_url(encode_image(small_marked, IMAGE_FORMAT, JPEG_QUALITY), IMAGE_FORMAT)}
    return urls, small.size, controls
