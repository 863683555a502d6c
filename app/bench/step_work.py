"""The app-side work of one step, our way and the plain way, producing the same output.

Both turn a captured screen and a dump into the same images for the model (JPEG, at most 1280 px
on the long side, quality 80): the ones `images.send` names, by default what the app's default
setting sends (`DEFAULT_SEND`); "both" is the clean screen and the annotated one.
- ours: decode the capture the device layer chose (raw on most phones) and shrink it once on
  another thread while the dump is parsed (as a run does: the frame comes while the dump is
  under way), select, annotate the small image, encode what is sent (the clean one, when sent,
  on another thread);
- plain (seed 000's order of work): decode a PNG screenshot, parse and select, annotate
  at full size, then shrink and encode what is sent.
So a ratio between them compares how the work is done, never different outputs.
"""

from __future__ import annotations

from PIL import Image

from app.core.agent.collection_strategies import ModelImages, on_picture_thread, prepare_model_images
from app.core.config import ImageSettings
from app.core.device.screen_capture import DECODERS, decode_png
from app.core.perception.annotate import annotate
from app.core.perception.controls import Control
from app.core.perception.hierarchy import extract_controls, parse_hierarchy, select_controls
from app.core.perception.model_image import data_url, encode_image, fit_for_model

MODEL_MAX_SIDE = 1280
IMAGE_FORMAT = "JPEG"
JPEG_QUALITY = 80
DEFAULT_SEND: str = ImageSettings().send
"""Which images a step makes for the model with the app's default settings."""


def describe_images(kinds: tuple[str, ...]) -> str:
    """E.g. "the annotated model image", "the clean and annotated model images"."""
    if not kinds:
        return "no model image (text only)"
    return "the " + " and ".join(kinds) + (" model images" if len(kinds) > 1 else " model image")


def images_made(capture: bytes, method: str, xml: str, send: str = DEFAULT_SEND) -> tuple[str, ...]:
    """The kinds of image ("clean", "annotated") our step makes for the model with `send`: the plain
    step is given the same, so both produce the same output."""
    return tuple(our_step(capture, method, xml, send)[0].urls)


def _decode_and_shrink(capture: bytes, method: str) -> tuple[Image.Image, tuple[Image.Image, float]]:
    image = DECODERS[method](capture)
    return image, fit_for_model(image, MODEL_MAX_SIDE)


def our_step(capture: bytes, method: str, xml: str, send: str = DEFAULT_SEND) -> tuple[ModelImages, list[Control]]:
    """As a step does it: the picture is decoded and shrunk on another thread while the dump is parsed
    (in a run the frame comes while the dump is still under way; CaptureScreenshot starts the shrink)."""
    picture = on_picture_thread(_decode_and_shrink, capture, method)
    hierarchy = parse_hierarchy(xml)
    image, shrunk = picture.result()
    controls = select_controls(hierarchy, image.size)
    return prepare_model_images(image, controls, MODEL_MAX_SIDE, IMAGE_FORMAT.lower(), JPEG_QUALITY, send,
                                shrunk=shrunk), controls


def plain_step(png: bytes, xml: str, kinds: tuple[str, ...]
               ) -> tuple[dict[str, str], tuple[int, int], list[Control]]:
    """The model images of `kinds` ("clean", "annotated") as data URLs (as ours hands them to the
    prompt), their size, and the controls."""
    image = decode_png(png)
    controls = extract_controls(xml, image.size)
    marked = annotate(image, controls)
    small, _ = fit_for_model(image, MODEL_MAX_SIDE)
    small_marked, _ = fit_for_model(marked, MODEL_MAX_SIDE)
    pictures = {"clean": small, "annotated": small_marked}
    urls = {kind: data_url(encode_image(pictures[kind], IMAGE_FORMAT, JPEG_QUALITY), IMAGE_FORMAT)
            for kind in kinds}
    return urls, small.size, controls
