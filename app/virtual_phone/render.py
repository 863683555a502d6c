"""Paint the view tree with Pillow. Every pixel comes from a `View`: what you see is what the dump says."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from PIL import Image, ImageChops, ImageDraw, ImageFilter

from . import fonts, theme
from .sprites import fill_circle, fill_round_rect, paste_glyph
from .views import View, Window


def paste_text(im: Image.Image, s: str, px: int, color, x: int, y: int, bold: bool = False,
               silhouette: bool = False) -> int:
    """Draw one line with its line box top at y; returns the width. Colour glyphs (emoji) keep their
    colours, unless `silhouette` asks for every glyph in `color` (a shadow)."""
    if not s:
        return 0
    line = fonts.line_image(s, px, bold)
    ascent, descent = fonts.metrics(px)
    left = x + line.dx
    top = y + (fonts.line_height(px) - (ascent + descent)) // 2 + line.dy
    mask = line.mask
    if line.colour is not None and silhouette:
        mask = ImageChops.lighter(mask, line.colour.getchannel("A"))
    im.paste(color, (left, top, left + mask.width, top + mask.height), mask)
    if line.colour is not None and not silhouette:
        _composite(im, line.colour, left, top)
    return mask.width


def _composite(im: Image.Image, overlay: Image.Image, left: int, top: int) -> None:
    """Alpha-composite `overlay` onto `im` (both RGBA) at (left, top), clipped to the picture."""
    crop = (max(0, -left), max(0, -top), min(overlay.width, im.width - left), min(overlay.height, im.height - top))
    if crop[2] > crop[0] and crop[3] > crop[1]:
        part = overlay.crop(crop) if crop != (0, 0) + overlay.size else overlay
        im.alpha_composite(part, dest=(left + crop[0], top + crop[1]))


@lru_cache(maxsize=64)
def _shadow_sprite(w: int, h: int, radius: int, blur: int) -> Image.Image:
    pad = blur * 2
    mask = Image.new("L", (w + 2 * pad, h + 2 * pad), 0)
    ImageDraw.Draw(mask).rounded_rectangle((pad, pad, pad + w, pad + h), radius=radius, fill=70)
    mask = mask.filter(ImageFilter.GaussianBlur(blur))
    sprite = Image.new("RGBA", mask.size, (0, 0, 0, 0))
    sprite.putalpha(mask)
    return sprite


def _shadow(im: Image.Image, box, radius: int) -> None:
    left, t, r, b = box
    blur = max(2, (b - t) // 14)
    sprite = _shadow_sprite(r - left, b - t, radius, blur)
    pad = blur * 2
    x, y = left - pad, t - pad + blur // 2
    if x >= 0 and y >= 0 and x + sprite.width <= im.width and y + sprite.height <= im.height:
        im.alpha_composite(sprite, dest=(x, y))


_DIM_LUT = [v * 145 // 255 for v in range(256)] * 3 + list(range(256))


def scrim(im: Image.Image, bottom: int | None = None) -> None:
    """Dim everything painted so far (above `bottom`), as the dim layer behind a dialog does."""
    box = (0, 0, im.width, im.height if bottom is None else bottom)
    im.paste(im.crop(box).point(_DIM_LUT), box)


# --------------------------------------------------------------------------- painters


def _p_text(im, v: View) -> None:
    s = v.style
    if not v.text:
        return
    px = s["size"]
    left, t, r, b = v.bounds
    pad = s.get("pad", 0)
    avail = max(1, r - left - 2 * pad)
    max_lines = s.get("lines", 1)
    if max_lines == 1 and "\n" not in v.text:
        lines = [fonts.ellipsize(v.text, px, avail)]
    else:
        lines = list(fonts.wrap(v.text, px, avail))
        if max_lines and len(lines) > max_lines:
            lines = lines[:max_lines]
            lines[-1] = fonts.ellipsize(lines[-1] + "…", px, avail)
    lh = fonts.line_height(px)
    total = lh * len(lines)
    y = t + (b - t - total) // 2 if s.get("valign", "center") == "center" else t + s.get("pad_top", pad)
    for line in lines:
        w = fonts.width(line, px)
        align = s.get("align", "left")
        x = left + pad if align == "left" else (r - pad - w if align == "right" else (left + r - w) // 2)
        paste_text(im, line, px, s["color"], x, y, s.get("bold", False))
        y += lh


def _p_edit(im, v: View) -> None:
    s = v.style
    left, t, r, b = v.bounds
    px = s["size"]
    focused = v.focused
    variant = s.get("variant", "underline")
    scale = max(1, px // 16)
    line_col = theme.PRIMARY if focused else theme.HINT
    if variant == "underline":
        th = 2 * scale if focused else scale
        im.paste(line_col, (left, b - th, r, b))
        pad_x = 0
    elif variant == "outline":
        rad = scale * 4
        fill_round_rect(im, (left, t, r, b), rad, line_col)
        w = 2 * scale if focused else scale
        fill_round_rect(im, (left + w, t + w, r - w, b - w), rad - w, s.get("fill", theme.SURFACE))
        pad_x = s.get("pad", px // 2)
    elif variant == "pill":
        fill_round_rect(im, (left, t, r, b), (b - t) // 2, theme.SURFACE_VARIANT)
        pad_x = s.get("pad", px // 2)
    else:
        pad_x = 0
    x0, x1 = left + pad_x, r - pad_x
    avail = max(1, x1 - x0)
    lh = fonts.line_height(px)
    value = s["value"]
    shown = value if value else s["hint"]
    color = theme.TEXT if value else theme.HINT
    if v.password and value:
        shown = "•" * len(value)
    if s.get("multiline"):
        lines = list(fonts.wrap(shown, px, avail))
        max_lines = max(1, (b - t - px // 2) // lh)
        y = t + px // 3
        first = max(0, len(lines) - max_lines) if focused else 0
        lines = lines[first:first + max_lines]
    else:
        lines = [shown]
        if fonts.width(shown, px) > avail:  # scrolled to the cursor (the end)
            i = 0
            while i < len(shown) and fonts.width(shown[i:], px) > avail:
                i += 1
            lines = [shown[i:]] if focused else [fonts.ellipsize(shown, px, avail)]
        y = t + (b - t - lh) // 2
    if s.get("align") == "center" and not s.get("multiline"):
        x0 = (left + r - fonts.width(lines[0], px)) // 2
    if s.get("selected_all") and value:
        w = fonts.width(lines[0], px)
        im.paste(theme.PRIMARY_LIGHT, (x0, y, x0 + w, y + lh))
    end_x, end_y = x0, y
    for line in lines:
        w = paste_text(im, line, px, color, x0, y)
        end_x, end_y = x0 + (fonts.width(line, px) if value else 0), y
        y += lh
    if s.get("show_cursor") and not s.get("selected_all"):
        cx = end_x
        if value and not s.get("multiline") and s["cursor"] < len(value):
            cx = x0 + fonts.width(lines[0][: max(0, len(lines[0]) - (len(value) - s["cursor"]))], px)
        cw = max(2, scale * 2)
        im.paste(theme.PRIMARY, (cx + 1, end_y + lh // 8, cx + 1 + cw, end_y + lh - lh // 8))


def _p_switch(im, v: View) -> None:
    left, t, r, b = v.bounds
    h = b - t
    if v.checked:
        fill_round_rect(im, v.bounds, h // 2, theme.PRIMARY if v.enabled else theme.DISABLED)
        d = int(h * 0.75)
        fill_circle(im, r - h // 2, (t + b) // 2, d // 2, theme.WHITE)
        paste_glyph(im, "check", r - h // 2, (t + b) // 2, int(d * 0.6), theme.PRIMARY)
    else:
        fill_round_rect(im, v.bounds, h // 2, theme.SWITCH_OFF_BORDER)
        bw = max(2, h // 16)
        fill_round_rect(im, (left + bw, t + bw, r - bw, b - bw), h // 2 - bw, theme.SWITCH_OFF_TRACK)
        d = int(h * 0.5)
        fill_circle(im, left + h // 2, (t + b) // 2, d // 2, theme.SWITCH_OFF_BORDER)


def _p_seekbar(im, v: View) -> None:
    left, t, r, b = v.bounds
    s = v.style
    pad = s.get("pad", 0)
    x0, x1 = left + pad, r - pad
    cy = (t + b) // 2
    th = max(4, (b - t) // 6)
    x = int(x0 + (x1 - x0) * s.get("value", 0.0))
    fill_round_rect(im, (x0, cy - th // 2, x1, cy + th // 2), th // 2, theme.SURFACE_VARIANT)
    fill_round_rect(im, (x0, cy - th // 2, max(x0 + th, x), cy + th // 2), th // 2, theme.PRIMARY)
    fill_circle(im, x, cy, int((b - t) * 0.22), theme.PRIMARY)


def _p_spinner(im, v: View) -> None:
    """An indeterminate circular ProgressBar: a quarter-circle arc at `angle` degrees on a pale ring."""
    left, t, r, b = v.bounds
    s = v.style
    width = max(2, (r - left) // 10)
    box = (left + width, t + width, r - width, b - width)
    draw = ImageDraw.Draw(im)
    draw.ellipse(box, outline=theme.SURFACE_VARIANT, width=width)
    start = s.get("angle", 0)
    draw.arc(box, start, start + 100, fill=theme.PRIMARY, width=width)


def _p_icon(im, v: View) -> None:
    s = v.style
    left, t, r, b = v.bounds
    cx, cy = (left + r) // 2, (t + b) // 2
    if s.get("circle"):
        fill_circle(im, cx, cy, min(r - left, b - t) // 2, s["circle"])
    if s.get("glyph"):                 # none: an image not loaded yet (its placeholder circle only)
        paste_glyph(im, s["glyph"], cx, cy, s["gsize"], s.get("color", theme.TEXT))


def _p_avatar(im, v: View) -> None:
    s = v.style
    left, t, r, b = v.bounds
    fill_circle(im, (left + r) // 2, (t + b) // 2, (r - left) // 2, s["color"])
    px = s["size"]
    w = fonts.width(s["letter"], px)
    paste_text(im, s["letter"], px, theme.WHITE, (left + r - w) // 2, (t + b - fonts.line_height(px)) // 2, True)


def _p_fab(im, v: View) -> None:
    s = v.style
    left, t, r, b = v.bounds
    g = (b - t) * 3 // 7
    if v.text:
        gx = left + (b - t) // 2 - (b - t) // 14
        paste_glyph(im, s["glyph"], gx, (t + b) // 2, g, s["fg"])
        px = s["size"]
        paste_text(im, v.text, px, s["fg"], gx + g // 2 + (b - t) // 5, (t + b - fonts.line_height(px)) // 2, True)
    else:
        paste_glyph(im, s["glyph"], (left + r) // 2, (t + b) // 2, g, s["fg"])


def _p_appicon(im, v: View) -> None:
    s = v.style
    left, t, r, b = v.bounds
    d = s["icon"]
    cx = (left + r) // 2
    cy = t + s["icon_top"] + d // 2
    fill_circle(im, cx, cy, d // 2, s["color"])
    paste_glyph(im, s["glyph"], cx, cy, int(d * 0.52), theme.WHITE)
    if s.get("label", True):
        px = s["size"]
        label = fonts.ellipsize(v.text, px, r - left - 4)
        w = fonts.width(label, px)
        y = cy + d // 2 + d // 10
        paste_text(im, label, px, (0, 0, 0), (left + r - w) // 2 + 2, y + 2,
                   silhouette=True)  # a shadow on the wallpaper
        paste_text(im, label, px, s.get("fg", theme.WHITE), (left + r - w) // 2, y)


def _p_image(im, v: View) -> None:
    img = v.style["image"]
    left, t = v.bounds[0], v.bounds[1]
    if img.mode == "RGBA":
        if left >= 0 and t >= 0 and left + img.width <= im.width and t + img.height <= im.height:
            im.alpha_composite(img, dest=(left, t))
        else:
            im.paste(img, (left, t), img)
    else:
        im.paste(img, (left, t))


def _p_action(im, v: View) -> None:
    """A round icon with its label underneath (contact actions, dial pad keys)."""
    s = v.style
    left, t, r, b = v.bounds
    d = s["icon"]
    cx = (left + r) // 2
    fill_circle(im, cx, t + d // 2, d // 2, s.get("circle", theme.PRIMARY_LIGHT))
    paste_glyph(im, s["glyph"], cx, t + d // 2, int(d * 0.45), s.get("color", theme.PRIMARY))
    if v.text:
        px = s["size"]
        w = fonts.width(v.text, px)
        paste_text(im, v.text, px, s.get("fg", theme.TEXT), cx - w // 2, t + d + d // 8)


PAINTERS: dict[str, Callable[[Image.Image, View], None]] = {
    "text": _p_text, "edit": _p_edit, "switch": _p_switch, "seekbar": _p_seekbar, "icon": _p_icon,
    "spinner": _p_spinner,
    "avatar": _p_avatar, "fab": _p_fab, "appicon": _p_appicon, "image": _p_image,
    "action": _p_action,
}


def paint(im: Image.Image, v: View) -> None:
    s = v.style
    bg = s.get("bg")
    if bg is not None or s.get("border"):
        radius = s.get("radius", 0)
        if s.get("shadow"):
            _shadow(im, v.bounds, radius)
        border = s.get("border")
        if border:
            fill_round_rect(im, v.bounds, radius, border[0])
            w = border[1]
            left, t, r, b = v.bounds
            fill_round_rect(im, (left + w, t + w, r - w, b - w), max(0, radius - w),
                            bg or s.get("under", theme.SURFACE))
        elif bg is not None:
            fill_round_rect(im, v.bounds, radius, bg)
    painter = PAINTERS.get(v.kind)
    if painter is not None:
        painter(im, v)
    if not v.children:
        return
    saved = save_overflow(im, v) if v.clip else ()
    for child in v.children:
        paint(im, child)
    for box, strip in saved:
        im.paste(strip, box)


def save_overflow(im: Image.Image, v: View) -> list:
    """The strips of the picture around a clipping view that its children would paint over (restored after)."""
    left, t, r, b = v.bounds
    ul = min(c.bounds[0] for c in v.children)
    ut = min(c.bounds[1] for c in v.children)
    ur = max(c.bounds[2] for c in v.children)
    ub = max(c.bounds[3] for c in v.children)
    boxes = []
    if ut < t:
        boxes.append((min(left, ul), max(0, ut), max(r, ur), t))
    if ub > b:
        boxes.append((min(left, ul), b, max(r, ur), min(im.height, ub)))
    if ul < left:
        boxes.append((max(0, ul), t, left, b))
    if ur > r:
        boxes.append((r, t, min(im.width, ur), b))
    out = []
    for box in boxes:
        box = (max(0, box[0]), max(0, box[1]), min(im.width, box[2]), min(im.height, box[3]))
        if box[2] > box[0] and box[3] > box[1]:
            out.append((box, im.crop(box)))
    return out


def render(windows: list[Window], size: tuple[int, int], base: Image.Image | None = None) -> Image.Image:
    """Paint the windows bottom to top. `base` (e.g. the wallpaper) is copied, never modified."""
    im = base.copy() if base is not None else Image.new("RGBA", size, theme.BACKGROUND + (255,))
    ime_top = min((w.bounds[1] for w in windows if w.role == "ime"), default=None)  # the keyboard covers the rest
    for win in windows:
        if win.role == "dialog" and win.dim:
            scrim(im, ime_top)
        paint(im, win.root)
    return im
