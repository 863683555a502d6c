"""The report's pictures: each screenshot embedded once, shown before and after its step, with where
the action touched the screen drawn over it, and a click to see it large.

Every picture is a small JPEG data URL (longest side THUMBNAIL_MAX_SIDE) in one hidden `<svg>` of
definitions; a figure shows it with `<use>`, so a step's screen appears as that step's "before" and
the previous step's "after" without being stored twice. Each figure is an SVG whose coordinates are
the phone's own pixels, so the marks (a ring where a tap landed, the box of the control acted on, a
swipe's arrow, a rejected proposal's dashed ring) are drawn from the recorded action as it is. The
zoom is a few lines of inline script: no file, no network, and without script the page still reads.
"""

from __future__ import annotations

import base64
import html
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image, UnidentifiedImageError

from app.core.perception.private_screen import blurred, password_in_use, typed_into_password
from app.core.perception.protected_screen import PROTECTED_REASON

from .action_kinds import kind_of
from .history_words import rejected_reviews
from .records import StepRecord

THUMBNAIL_MAX_SIDE = 720
THUMBNAIL_QUALITY = 75
FINAL_SCREEN_FILE = "final_screen.png"
"""The screen a run left after its last step, in the run folder (written by the run's recorder)."""

MARK, REJECTED, HALO = "#e5006f", "#9a6700", "#ffffff"


@dataclass(frozen=True)
class Picture:
    id: str
    size: tuple[int, int]           # the screen it shows, in the phone's pixels (the figure's coordinates)


class Pictures:
    """The run's pictures, each read and encoded once; `definitions()` holds them all."""

    def __init__(self, screen_size: tuple[int, int] | None = None) -> None:
        self.screen_size = screen_size     # the phone's screen from run.json, when a picture has no clean twin
        self._by_path: dict[Path, Picture | None] = {}
        self._definitions: list[str] = []

    def picture(self, path: Path | None, screen: Path | None = None, private: bool = False) -> Picture | None:
        """The picture of `path` (None if unreadable); `screen` is the full-size screenshot whose size gives
        the phone's pixels (the annotated image sent to the model may be smaller). A `private` screen (see
        `step_is_private`) is embedded blurred: the report is shared, its pictures with it."""
        if path is None:
            return None
        if path in self._by_path:
            return self._by_path[path]
        encoded = _encoded(path, private)
        picture = None
        if encoded is not None:
            data_url, own_size = encoded
            size = _image_size(screen) or self.screen_size or own_size
            picture = Picture(f"pic-{len(self._definitions) + 1}", size)
            width, height = size
            self._definitions.append(f'<image id="{picture.id}" width="{width}" height="{height}" '
                                     f'preserveAspectRatio="none" href="{data_url}"/>')
        self._by_path[path] = picture
        return picture

    def definitions(self) -> str:
        if not self._definitions:
            return ""
        return ('<svg class="defs" width="0" height="0" aria-hidden="true" focusable="false"><defs>'
                + "".join(self._definitions) + "</defs></svg>")


def step_is_private(step: StepRecord) -> bool:
    """Whether a step's screen must not be shared: its app is on the never-send list (its picture was withheld
    from the model for that), a password field had focus, or the step typed into one."""
    withheld = step.images_withheld and step.images_withheld != PROTECTED_REASON     # protected: black anyway
    return bool(withheld) or password_in_use(step.controls) or typed_into_password(step)


def _encoded(path: Path, private: bool = False) -> tuple[str, tuple[int, int]] | None:
    """The image as a JPEG data URL (longest side at most THUMBNAIL_MAX_SIDE; blurred when `private`) and its
    own size; None if unreadable."""
    if not path.is_file():
        return None
    try:
        with Image.open(path) as opened:
            image = opened.convert("RGB")
    except (OSError, UnidentifiedImageError):
        return None
    size = image.size
    if private:
        image = blurred(image)
    image.thumbnail((THUMBNAIL_MAX_SIDE, THUMBNAIL_MAX_SIDE))
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=THUMBNAIL_QUALITY, optimize=True)
    return "data:image/jpeg;base64," + base64.b64encode(buffer.getvalue()).decode("ascii"), size


def _image_size(path: Path | None) -> tuple[int, int] | None:
    if path is None or not path.is_file():
        return None
    try:
        with Image.open(path) as image:      # the header only
            return image.size
    except (OSError, UnidentifiedImageError):
        return None


def figure(picture: Picture | None, caption: str, alt: str, marks: str = "", missing: str = "") -> str:
    """A picture with its marks, as a button that shows it large; `missing` words when there is none."""
    caption_html = f"<figcaption>{html.escape(caption)}</figcaption>" if caption else ""
    if picture is None:
        return f'<figure class="shot"><div class="missing">{html.escape(missing)}</div>{caption_html}</figure>'
    width, height = picture.size
    label = html.escape(alt, quote=True)
    return (f'<figure class="shot"><button class="zoom" type="button" title="Click to enlarge" '
            f'aria-label="Enlarge: {label}"><svg viewBox="0 0 {width} {height}" role="img" aria-label="{label}">'
            f'<use href="#{picture.id}" width="{width}" height="{height}"/>{marks}</svg></button>'
            f"{caption_html}</figure>")


# ---------------------------------------------------------------- where an action touched the screen


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _rect_of(bounds: Any) -> tuple[float, float, float, float] | None:
    if isinstance(bounds, (list, tuple)) and len(bounds) == 4 and all(_number(v) is not None for v in bounds):
        left, top, right, bottom = (float(v) for v in bounds)
        if right > left and bottom > top:
            return left, top, right, bottom
    return None


def action_marks(action: dict[str, Any] | None, target_bounds: Any, size: tuple[int, int], *,
                 rejected: bool = False, controls: Sequence[Any] = ()) -> tuple[str, str]:
    """(SVG marks, words) for where `action` touched a screen of `size` phone pixels: a ring at a tap, the
    target's box, a swipe's or scroll's arrow; ("", "") for an action that touches no place (a key, an app)."""
    if not isinstance(action, dict):
        return "", ""
    kind = kind_of(str(action.get("function") or ""))
    arguments = action.get("arguments")
    if kind is None:
        return "", ""
    try:
        args = kind.parse(arguments if isinstance(arguments, dict) else {})
    except ValueError:        # pydantic's ValidationError is one: arguments the app would not have run
        return "", ""
    width, height = size
    unit = max(6.0, min(width, height) * 0.065)      # a ring's radius: ~70 px on a 1080-pixel-wide phone
    colour = REJECTED if rejected else MARK
    rect = _rect_of(target_bounds) if kind.target_place is not None else None
    boxes = {control.id: box for control in controls if (box := _rect_of(getattr(control, "rect", None)))}
    gesture = kind.gesture(args, rect, size, boxes.get)
    if gesture is None:
        return "", ""
    parts: list[str] = []
    if rect is not None:
        left, top, right, bottom = rect
        parts.append(_halo(f'<rect x="{left:.0f}" y="{top:.0f}" width="{right - left:.0f}" height="{bottom - top:.0f}" '
                           f'rx="{unit / 4:.0f}" fill="none"', colour, unit / 8, dashed=True))
    if gesture.ring is not None:
        parts.append(_ring(*gesture.ring, unit, colour, rejected, double=gesture.held))
    if gesture.arrow is not None:
        parts.append(_arrow(*gesture.arrow, unit, colour, rejected))
    words = gesture.rejected_words if rejected else gesture.words     # rejected: the dashed mark
    return f'<g class="{"rejected" if rejected else "mark"}">{"".join(parts)}</g>', words


def step_marks(step: StepRecord, size: tuple[int, int]) -> tuple[str, list[str]]:
    """The marks of a step's executed action and of the proposals the person rejected, and their words."""
    marks, words = [], []
    for review in rejected_reviews(step):
        mark, said = action_marks(review.action, review.target_rect, size, rejected=True, controls=step.controls)
        marks.append(mark)
        words.append(said)
    if step.result is not None:        # drawn last: on top of the rejected ones
        bounds = step.target.bounds if step.target is not None else None
        mark, said = action_marks(step.action, bounds, size, controls=step.controls)
        marks.append(mark)
        words.append(said)
    return "".join(marks), [said for said in words if said]


def _halo(element: str, colour: str, stroke: float, *, dashed: bool = False) -> str:
    """The element drawn twice: a wide white line under the coloured one, so it reads on any screen."""
    dash = f' stroke-dasharray="{stroke * 3:.0f} {stroke * 2:.0f}"' if dashed else ""
    return (f'{element} stroke="{HALO}" stroke-width="{stroke * 2.4:.1f}" opacity="0.85"/>'
            f'{element} stroke="{colour}" stroke-width="{stroke:.1f}"{dash}/>')


def _ring(x: float, y: float, radius: float, colour: str, rejected: bool, double: bool = False) -> str:
    stroke = radius / 5
    parts = [_halo(f'<circle cx="{x:.0f}" cy="{y:.0f}" r="{radius:.0f}" fill="none"', colour, stroke, dashed=rejected)]
    if double:
        outer = f'<circle cx="{x:.0f}" cy="{y:.0f}" r="{radius * 1.45:.0f}" fill="none"'
        parts.append(_halo(outer, colour, stroke / 1.5))
    if rejected:            # a cross where the rejected tap would have landed
        arm = radius * 0.45
        parts.append(_halo(f'<path d="M{x - arm:.0f} {y - arm:.0f}L{x + arm:.0f} {y + arm:.0f}'
                           f'M{x - arm:.0f} {y + arm:.0f}L{x + arm:.0f} {y - arm:.0f}" fill="none"', colour, stroke))
    else:
        parts.append(f'<circle cx="{x:.0f}" cy="{y:.0f}" r="{radius / 4:.0f}" fill="{colour}" '
                     f'stroke="{HALO}" stroke-width="{stroke / 2:.1f}"/>')
    return "".join(parts)


def _arrow(x1: float, y1: float, x2: float, y2: float, unit: float, colour: str, rejected: bool) -> str:
    """A line from the start to the end with a head at the end (a polygon: no marker references)."""
    stroke = unit / 4
    angle = math.atan2(y2 - y1, x2 - x1)
    head = unit * 0.9
    tip = (x2, y2)
    left = (x2 - head * math.cos(angle - 0.5), y2 - head * math.sin(angle - 0.5))
    right = (x2 - head * math.cos(angle + 0.5), y2 - head * math.sin(angle + 0.5))
    points = " ".join(f"{px:.0f},{py:.0f}" for px, py in (tip, left, right))
    return (_halo(f'<line x1="{x1:.0f}" y1="{y1:.0f}" x2="{x2:.0f}" y2="{y2:.0f}" stroke-linecap="round"',
                  colour, stroke, dashed=rejected)
            + f'<circle cx="{x1:.0f}" cy="{y1:.0f}" r="{stroke * 1.2:.0f}" fill="{colour}"/>'
            + f'<polygon points="{points}" fill="{colour}" stroke="{HALO}" stroke-width="{stroke / 3:.1f}"/>')


ZOOM_CSS = """
.defs { position: absolute; width: 0; height: 0; overflow: hidden; }
.shots { display: grid; grid-template-columns: 1fr 1fr; gap: 10px; align-content: start; }
.shot { margin: 0; }
.shot figcaption { font-size: 12px; color: #57606a; margin-top: 4px; line-height: 1.3; }
.shot .zoom { display: block; width: 100%; padding: 0; border: 1px solid #d8dee4; border-radius: 6px;
  background: #fff; cursor: zoom-in; overflow: hidden; }
.shot .zoom:focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }
.shot svg { display: block; width: 100%; height: auto; }
.shot .missing { aspect-ratio: 9 / 20; display: flex; align-items: center; justify-content: center;
  background: #f6f8fa; border: 1px dashed #afb8c1; border-radius: 6px; color: #57606a; text-align: center;
  padding: 8px; font-size: 13px; }
.zoomed { position: fixed; inset: 0; background: rgba(15, 20, 25, .86); display: flex; align-items: center;
  justify-content: center; z-index: 10; cursor: zoom-out; padding: 2vh; }
.zoomed svg { height: 96vh; width: auto; max-width: 96vw; background: #fff; border-radius: 8px; }
"""

ZOOM_SCRIPT = """<script>
document.addEventListener("click", function (event) {
  var open = document.querySelector(".zoomed");
  if (open) { open.remove(); return; }
  var button = event.target.closest ? event.target.closest("button.zoom") : null;
  if (!button) { return; }
  var layer = document.createElement("div");
  layer.className = "zoomed";
  layer.setAttribute("role", "dialog");
  layer.setAttribute("aria-label", button.getAttribute("aria-label") + " (click or Escape to close)");
  layer.appendChild(button.querySelector("svg").cloneNode(true));
  document.body.appendChild(layer);
});
document.addEventListener("keydown", function (event) {
  var open = document.querySelector(".zoomed");
  if (open && event.key === "Escape") { open.remove(); }
});
</script>"""
