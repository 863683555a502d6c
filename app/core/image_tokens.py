"""What an image sent to a model costs in tokens, by the model's own rule.

Used only where the provider does not report usage (its `usage.prompt_tokens` is the figure
wherever it is given; an estimate is never added to it) and by the benches, which print the
images' tokens beside the prompt's text.

OpenAI (https://platform.openai.com/docs/guides/images-vision#calculating-costs) has two rules:

- tiles, for gpt-4o, gpt-4.1, gpt-4.5, gpt-5, o1 and o3: at `detail` "low" a fixed base; at "high"
  the image is fitted within 2048×2048, then shrunk so its shortest side is at most 768 px, and each
  512-px tile costs a fixed amount on top of the base (gpt-4o: 85 + 170 per tile; gpt-4o-mini:
  2,833 + 5,667; o1/o3: 75 + 150; gpt-5: 70 + 140). A smaller image is not enlarged: OpenAI bills a
  128×64 image at high detail as one tile (measured in
  https://community.openai.com/t/vision-more-than-one-way-to-send-a-request-undocumented-and-different-pricing-realized/1262691).
  "auto" is counted as "high", the most it can cost.
- patches, for gpt-4.1-mini/nano, o4-mini and gpt-5-mini/nano: 32-px patches covering the image
  (shrunk to at most 1,536 of them), times a multiplier per model (1.62, 2.46, 1.72, 1.62, 2.46 as
  the docs say; people measure 1.2 and 1.5 for gpt-5-mini/nano, so these are upper bounds); `detail`
  does not change them.

Anthropic (https://docs.anthropic.com/en/docs/build-with-claude/vision): width × height / 750, the
image first shrunk to a long edge of at most 1,568 px and about 1.15 megapixels.
Gemini (https://ai.google.dev/gemini-api/docs/image-understanding): 258 tokens for an image at most
384 px on both sides, else 258 per 768×768 tile.
Any other model: estimated with gpt-4o's rule at high detail (`ESTIMATED`), and said so.
"""

from __future__ import annotations

import base64
import binascii
import io
import math
from dataclasses import dataclass
from typing import Literal

from PIL import Image, UnidentifiedImageError

Family = Literal["tiles", "patches", "anthropic", "gemini"]
PATCH_CAP = 1536


@dataclass(frozen=True)
class ImageRule:
    """One model's way of counting an image's tokens; `name` says it for a person."""

    name: str
    family: Family
    base: int = 0                   # tiles: the base; low detail is the base alone
    per_tile: int = 0               # tiles: per 512-px tile
    multiplier: float = 1.0         # patches
    detail: str = "high"            # tiles: "low" counts the base only
    estimated: bool = False         # not the model's own rule: a stated default

    def tokens(self, width: int, height: int) -> int:
        """The tokens of one `width`×`height` image as this rule counts them."""
        if width <= 0 or height <= 0:
            return 0
        if self.family == "tiles":
            return self.base if self.detail == "low" else self.base + self.per_tile * _tiles(width, height)
        if self.family == "patches":
            return round(_patches(width, height) * self.multiplier)
        if self.family == "anthropic":
            scale = min(1.0, 1568 / max(width, height), math.sqrt(1_150_000 / (width * height)))
            return max(1, round(int(width * scale) * int(height * scale) / 750))
        if width <= 384 and height <= 384:
            return 258
        return 258 * math.ceil(width / 768) * math.ceil(height / 768)


def _tiles(width: int, height: int) -> int:
    """512-px tiles of the image after OpenAI's high-detail fitting (never enlarged)."""
    scale = min(1.0, 2048 / max(width, height))
    fitted_width, fitted_height = width * scale, height * scale
    scale = min(1.0, 768 / min(fitted_width, fitted_height))
    return math.ceil(int(fitted_width * scale) / 512) * math.ceil(int(fitted_height * scale) / 512)


def _patches(width: int, height: int) -> int:
    """32-px patches covering the image, shrunk as OpenAI's docs say when more than `PATCH_CAP` are needed."""
    patches = math.ceil(width / 32) * math.ceil(height / 32)
    if patches <= PATCH_CAP:
        return patches
    shrink = math.sqrt(PATCH_CAP * 32 * 32 / (width * height))
    scaled_width, scaled_height = width * shrink, height * shrink
    fit = math.floor(scaled_width / 32) / (scaled_width / 32)       # a whole number of patches across
    across, down = round(scaled_width * fit / 32, 6), round(scaled_height * fit / 32, 6)   # no float dust
    return min(PATCH_CAP, math.ceil(across) * math.ceil(down))


_OPENAI_TILES: dict[str, tuple[int, int]] = {
    "gpt-4o-mini": (2833, 5667), "gpt-4o": (85, 170), "chatgpt-4o": (85, 170), "gpt-4.1": (85, 170),
    "gpt-4.5": (85, 170), "gpt-4-turbo": (85, 170), "o1": (75, 150), "o3": (75, 150), "gpt-5": (70, 140),
    "computer-use-preview": (65, 129)}
_OPENAI_PATCHES: dict[str, float] = {
    "gpt-4.1-mini": 1.62, "gpt-4.1-nano": 2.46, "o4-mini": 1.72, "gpt-5-mini": 1.62, "gpt-5-nano": 2.46,
    "codex-mini": 1.72}

ESTIMATED = ImageRule("estimated: gpt-4o's rule, 85 + 170 per 512-px tile", "tiles", 85, 170, estimated=True)


def openai_rule(model: str, detail: str = "high") -> ImageRule | None:
    """OpenAI's rule for `model` (an "openai/" prefix, as OpenRouter names them, is ignored), or None
    for a name OpenAI's table does not hold."""
    name = model.lower().removeprefix("openai/")
    patches = _longest_prefix(_OPENAI_PATCHES, name)
    tiles = _longest_prefix(_OPENAI_TILES, name)
    if patches is not None and (tiles is None or len(patches) >= len(tiles)):
        multiplier = _OPENAI_PATCHES[patches]
        return ImageRule(f"OpenAI {patches}: 32-px patches × {multiplier:g}", "patches", multiplier=multiplier)
    if tiles is not None:
        base, per_tile = _OPENAI_TILES[tiles]
        words = f"{base}" if detail == "low" else f"{base} + {per_tile} per 512-px tile"
        return ImageRule(f"OpenAI {tiles}, detail {detail}: {words}", "tiles", base, per_tile,
                         detail="low" if detail == "low" else "high")
    return None


def rule_for_model(model: str, family: str = "", detail: str = "high") -> ImageRule:
    """The rule of a model at a provider whose rule family is `family` ("openai", "anthropic", "gemini",
    or "" when the provider is not known): its own where known, else `ESTIMATED`."""
    name = model.lower()
    if family == "anthropic" or name.startswith(("claude", "anthropic/")):
        return ImageRule("Anthropic: width × height / 750", "anthropic")
    if family == "gemini" or name.startswith(("gemini", "google/gemini")):
        return ImageRule("Gemini: 258 per image up to 384 px, else per 768-px tile", "gemini")
    if family == "openai" or name.startswith("openai/"):
        return openai_rule(model, detail) or ESTIMATED
    return ESTIMATED


def image_size_of_data_url(url: str) -> tuple[int, int] | None:
    """The pixel size of an image sent as a data URL (read from its header), or None when it is not one
    or cannot be read."""
    head, _, data = url.partition(",")
    if not head.startswith("data:image/") or ";base64" not in head:
        return None
    try:
        with Image.open(io.BytesIO(base64.b64decode(data, validate=False))) as image:
            return image.size
    except (binascii.Error, UnidentifiedImageError, OSError, ValueError):
        return None


def _longest_prefix(table: dict, name: str) -> str | None:
    matches = [prefix for prefix in table if name.startswith(prefix)]
    return max(matches, key=len) if matches else None
