"""visible_change (issue 25 §4): one changed digit counts; the status bar, a repeated frame and the focused
field's blinking cursor do not."""

from __future__ import annotations

from PIL import Image, ImageDraw

from app.core.perception.picture_change import grey_picture, visible_change

FIELD = (60, 1000, 1020, 1120)


def screen(digit: str = "3", clock: str = "9:41", cursor: bool = False, typed: str = "Hello") -> Image.Image:
    image = Image.new("RGB", (1080, 2400), "white")
    draw = ImageDraw.Draw(image)
    draw.text((40, 20), clock, fill="black", font_size=36)                # the status bar's clock
    draw.text((80, 600), f"{digit} new messages", fill="black", font_size=37)   # 14 sp at 420 dpi
    draw.rectangle(FIELD, outline="grey")
    draw.text((80, 1030), typed, fill="black", font_size=42)
    if cursor:
        draw.rectangle((200, 1030, 205, 1090), fill=(103, 80, 164))       # a 2-dp cursor
    return grey_picture(image)


def test_one_changed_digit_is_a_change_and_a_repeated_frame_is_not():
    assert visible_change(screen("3"), screen("4"), ignore_top=63)
    assert not visible_change(screen("3"), screen("3"), ignore_top=63)


def test_the_status_bar_is_not_the_screen():
    assert not visible_change(screen(clock="9:41"), screen(clock="9:42"), ignore_top=63)
    assert visible_change(screen(clock="9:41"), screen(clock="9:42"))


def test_a_blinking_cursor_in_the_focused_field_is_not_a_change_but_typing_is():
    assert not visible_change(screen(cursor=True), screen(cursor=False), ignore_top=63, focused_field=FIELD)
    assert visible_change(screen(cursor=True), screen(cursor=False), ignore_top=63)     # no field focused
    assert visible_change(screen(cursor=True), screen(cursor=True, typed="Hello 4"), ignore_top=63,
                          focused_field=FIELD)
