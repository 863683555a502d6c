"""Glyphs for every script: accented Latin, CJK, Arabic and emoji drawn from the OS's fonts.

Which fonts the machine has is asked of fontconfig's `fc-list` (not of the code under test);
a test that needs a font skips, naming the Debian package, when it is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageDraw, ImageFont, features

from app.virtual_phone import fonts

ADB_IME = "com.android.adbkeyboard/.AdbIME"
ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {"中": "fonts-noto-cjk", "😀": "fonts-noto-color-emoji", "é": "fonts-dejavu-core", "ع": "fonts-dejavu-core",
            "ب": "fonts-dejavu-core"}


def needs_font(ch: str, colour: bool = False) -> None:
    """Skip unless fontconfig lists a font with a glyph for `ch` (a colour one if asked)."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        pytest.skip("fontconfig's fc-list is not installed: cannot tell which fonts this machine has")
    pattern = f":charset={ord(ch):x}" + (":color=True" if colour else "")
    found = subprocess.run([fc_list, pattern, "file"], capture_output=True, text=True, timeout=30).stdout.strip()
    if not found:
        pytest.skip(f"no {'colour ' if colour else ''}font for {ch!r} on this machine "
                    f"(apt-get install {PACKAGES.get(ch, 'fonts-noto')})")


def title_picture(make_ui, text: str) -> Image.Image:
    """A new note titled `text` (typed with ADB Keyboard), the title field's pixels without its cursor."""
    ui = make_ui(adb_keyboard_installed=True)
    ui.tap(text="Notes")
    ui.tap(desc="New note")
    assert ui.phone.set_ime(ADB_IME) and ui.phone.adb_keyboard_input(text)
    ui.tap(text="Note")                                    # focus moves to the body: no cursor in the title
    node = ui.find(rid="note_title")
    assert node.get("text") == text                        # the dump keeps the real text
    return ui.phone.screenshot().crop(ui.bounds(node)).convert("RGB")


def ink(picture: Image.Image) -> Image.Image:
    """A 1-bit picture of what differs from the background (the top left pixel)."""
    background = Image.new("RGB", picture.size, picture.getpixel((0, 0)))
    return ImageChops.difference(picture, background).convert("L").point(lambda v: 255 if v > 48 else 0)


def ink_count(picture: Image.Image) -> int:
    return ink(picture).histogram()[255]


def saturated_count(picture: Image.Image) -> int:
    """Pixels of a strong colour (text here is grey or black on a pale background)."""
    _hue, saturation, value = picture.convert("HSV").split()
    strong = ImageChops.multiply(saturation.point(lambda v: 255 if v > 120 else 0),
                                 value.point(lambda v: 255 if v > 80 else 0))
    return strong.histogram()[255]


def test_cjk_is_drawn_with_real_glyphs(make_ui):
    needs_font("中")
    zhong, wen, box = (title_picture(make_ui, t) for t in ("中", "文", "\u0378"))   # U+0378: no character
    assert ink_count(zhong) > 100 and ink_count(wen) > 100
    assert zhong.tobytes() != wen.tobytes()                 # two boxes would be the same picture
    assert ink(zhong).tobytes() != ink(box).tobytes()
    korean = title_picture(make_ui, "한국어 日本語")
    assert ink(korean).getbbox()[2] > ink(zhong).getbbox()[2] * 3


def test_accented_latin_keeps_its_accent(make_ui):
    needs_font("é")
    plain, accented = title_picture(make_ui, "e"), title_picture(make_ui, "é")
    assert plain.tobytes() != accented.tobytes()
    assert ink(accented).getbbox()[1] < ink(plain).getbbox()[1] - 5      # the accent stands above the e
    for word in ("ñ", "ü", "ł", "ő"):
        assert ink_count(title_picture(make_ui, word)) > 50


def test_emoji_are_drawn_in_colour(make_ui):
    needs_font("😀", colour=True)
    emoji = title_picture(make_ui, "😀 👍 ❤️")
    assert saturated_count(emoji) > 300
    assert saturated_count(title_picture(make_ui, "abc")) == 0


def test_a_shadow_of_emoji_is_one_colour():
    needs_font("😀", colour=True)
    from app.virtual_phone.render import paste_text

    pictures = []
    for silhouette in (False, True):
        im = Image.new("RGBA", (200, 80), (255, 255, 255, 255))
        paste_text(im, "😀👍", 40, (0, 0, 0), 10, 10, silhouette=silhouette)
        pictures.append(im.convert("RGB"))
    coloured, shadow = pictures
    assert saturated_count(coloured) > 300 and saturated_count(shadow) == 0
    shadow_box, coloured_box = ink(shadow).getbbox(), ink(coloured).getbbox()
    assert all(abs(a - b) <= 2 for a, b in zip(shadow_box, coloured_box, strict=True))   # the same shapes, in black


def test_arabic_is_drawn(make_ui):
    needs_font("ع")
    arabic, boxes = title_picture(make_ui, "العربية"), title_picture(make_ui, "\u0378" * 7)   # 7 letters
    assert ink_count(arabic) > 200
    assert ink(arabic).tobytes() != ink(boxes).tobytes()


def test_arabic_letters_join_with_raqm():
    needs_font("ب")
    if not features.check("raqm"):
        pytest.skip("Pillow was built without raqm: Arabic letters are drawn unjoined")
    isolated = fonts.width("ب", 40)
    assert fonts.width("ببب", 40) < 3 * isolated - 5        # joined forms are narrower than three isolated ones


def test_missing_glyphs_are_boxes_of_the_bundled_font():
    first, second = fonts.line_image("\u0378", 40), fonts.line_image("\u0379", 40)   # no font has these
    assert first.mask.tobytes() == second.mask.tobytes()
    assert first.mask.getbbox() is not None and first.colour is None


def test_ascii_is_drawn_by_the_bundled_font_as_before():
    for text, bold in (("Hello, World 123", False), ("Settings", True)):
        line = fonts.line_image(text, 40, bold)
        stroke = 1 if bold else 0
        f = ImageFont.load_default(size=40)
        ascent, descent = f.getmetrics()
        expected = Image.new("L", (int(f.getlength(text)) + 2 * stroke + 2, ascent + descent + 2 * stroke), 0)
        ImageDraw.Draw(expected).text((stroke, stroke), text, font=f, fill=255, stroke_width=stroke, stroke_fill=255)
        assert line.mask.tobytes() == expected.tobytes() and line.colour is None
        assert (line.dx, line.dy) == (-stroke, -stroke)


SAMPLES = ["Café ñ ü ł ő", "中文 日本語 한국어", "العربية نص", "😀 👍 ❤️ 👨\u200d👩\u200d👧", "mixed 中 é 😀 ع x",
           "\u0378 – • ⌫"]


@pytest.mark.parametrize("bold", [False, True])
def test_measured_width_is_the_drawn_width(bold):
    for text in SAMPLES:
        for px in (20, 41):
            line = fonts.line_image(text, px, bold)
            boxes = [line.mask.getbbox()] + ([line.colour.getbbox()] if line.colour is not None else [])
            boxes = [b for b in boxes if b]
            assert boxes, text
            left = min(b[0] for b in boxes) + line.dx
            right = max(b[2] for b in boxes) + line.dx
            width = fonts.width(text, px)
            assert width > 0 and left >= -3, (text, px)
            assert width - max(4, px // 6) <= right <= width + 3, (text, px, right, width)   # no overflow, no gap


def test_wrapped_lines_fit_their_width():
    text = "好的 👍👍👍 see you at 7 — café? " + "😀" * 30 + " مرحبا بك " + "中文" * 20
    for line in fonts.wrap(text, 34, 500):
        assert fonts.width(line, 34) <= 500, line


def run_isolated(code: str) -> str:
    """Run `code` in a fresh interpreter (so no cache holds fonts from this one) and return its output."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=120, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_machine_without_fonts_draws_look_alikes_and_boxes():
    out = run_isolated("""
        from app.virtual_phone import font_fallback, fonts
        font_fallback.candidates = lambda: ()
        same = lambda a, b: fonts.line_image(a, 40).mask.tobytes() == fonts.line_image(b, 40).mask.tobytes()
        print(same("é", "e"), same("–", "-"), same("中", "\\u0378"), same("中", "文"), same("😀\\ufe0f", "\\u0378"))
    """)
    assert out == "True True True True True"


def build_sbix_font(path: Path) -> None:
    """A tiny font in Apple's format (sbix bitmaps, as Apple Color Emoji): a red square for 😀 at 40 and 96 px."""
    import io

    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.ttGlyphPen import TTGlyphPen
    from fontTools.ttLib import newTable
    from fontTools.ttLib.tables.sbixGlyph import Glyph
    from fontTools.ttLib.tables.sbixStrike import Strike

    builder = FontBuilder(1000, isTTF=True)
    builder.setupGlyphOrder([".notdef", "smile"])
    builder.setupCharacterMap({0x1F600: "smile"})
    builder.setupGlyf({".notdef": TTGlyphPen(None).glyph(), "smile": TTGlyphPen(None).glyph()})
    builder.setupHorizontalMetrics({".notdef": (500, 0), "smile": (1000, 0)})
    builder.setupHorizontalHeader(ascent=800, descent=-200)
    builder.setupNameTable({"familyName": "Tiny Emoji", "styleName": "Regular"})
    builder.setupOS2()
    builder.setupPost()
    png = io.BytesIO()
    Image.new("RGBA", (90, 90), (230, 20, 20, 255)).save(png, "PNG")
    table = newTable("sbix")
    for ppem in (40, 96):
        strike = Strike(ppem=ppem, resolution=72)
        strike.glyphs["smile"] = Glyph(glyphName="smile", graphicType="png ", imageData=png.getvalue())
        strike.glyphs[".notdef"] = Glyph(glyphName=".notdef")
        table.strikes[ppem] = strike
    builder.font["sbix"] = table
    builder.save(str(path))


def test_a_bitmap_colour_font_is_drawn_at_its_strike_and_scaled(tmp_path):
    build_sbix_font(tmp_path / "TinyEmoji.ttf")
    out = run_isolated(f"""
        import json
        from app.virtual_phone import font_fallback, fonts
        candidate = font_fallback.Candidate({str(tmp_path / "TinyEmoji.ttf")!r}, 0, True)
        font_fallback.candidates = lambda: (candidate,)
        face = font_fallback.face_for("😀")
        line = fonts.line_image("😀", 48)
        box = line.colour.getbbox()
        centre = line.colour.getpixel(((box[0] + box[2]) // 2, (box[1] + box[3]) // 2))
        print(json.dumps([face.strike, face.colour, centre, box[2] - box[0], line.mask.getbbox()]))
    """)
    strike, colour, centre, width, mask_ink = json.loads(out)
    assert (strike, colour, centre, mask_ink) == (96, True, [230, 20, 20, 255], None)
    assert 44 <= width <= 48            # 90 px at 96 ppem → 45 px at 48 px text (plus resampling's edge)


def test_noto_color_emoji_is_used_at_its_one_strike():
    needs_font("😀", colour=True)
    from app.virtual_phone import font_fallback

    listed = subprocess.run(["fc-list", ":family=Noto Color Emoji", "file"], capture_output=True, text=True,
                            timeout=30).stdout.split(":")[0].strip()
    if not listed:
        pytest.skip("Noto Color Emoji is not installed (apt-get install fonts-noto-color-emoji)")
    face = font_fallback.load_face(font_fallback.Candidate(listed, 0, True))
    assert face is not None and face.colour and face.strike == 109     # CBDT: Pillow loads it at 109 px only
    assert face.covers("😀👍") and not face.covers("中")
    assert face.font(20).size == 109
