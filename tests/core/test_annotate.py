"""Set-of-mark annotation: boxes and numbered badges drawn on a copy of the screenshot."""

from __future__ import annotations

from PIL import Image

from app.core.perception.annotate import PALETTE, annotate, control_colour
from app.core.perception.controls import Control

GREY = (128, 128, 128)


def make_control(control_id: int, rect: tuple[int, int, int, int]) -> Control:
    return Control(
        id=control_id, name=f"c{control_id}", type="Button", class_name="android.widget.Button",
        resource_id="", text="", content_desc="", rect=rect, clickable=True,
    )


def count_colour(image: Image.Image, colour: tuple[int, int, int], box: tuple[int, int, int, int]) -> int:
    region = image.crop(box)
    return {c: n for n, c in colours(region)}.get(colour, 0)


def colours(image: Image.Image) -> list[tuple[int, tuple[int, int, int]]]:
    return image.getcolors(maxcolors=image.width * image.height)


def test_returns_a_new_rgb_image_of_the_same_size_and_leaves_the_input_alone():
    source = Image.new("RGBA", (540, 1200), (250, 250, 250, 255))
    before = source.tobytes()
    result = annotate(source, [make_control(1, (100, 100, 300, 200))])
    assert result is not source
    assert (result.size, result.mode) == ((540, 1200), "RGB")
    assert source.tobytes() == before


def test_box_border_is_drawn_in_the_control_colour_and_the_inside_is_untouched():
    image = Image.new("RGB", (540, 1200), GREY)
    control = make_control(2, (100, 400, 400, 700))
    result = annotate(image, [control])
    colour = control_colour(2)
    middle_y = 550
    assert result.getpixel((101, middle_y)) == colour  # left edge, inside the 1-px outline
    assert result.getpixel((398, middle_y)) == colour  # right edge
    assert result.getpixel((100, middle_y)) != GREY  # contrasting outline
    assert result.getpixel((250, middle_y)) == GREY  # the control's content stays visible
    assert result.getpixel((50, middle_y)) == GREY  # outside the box


def test_scale_maps_device_pixels_to_image_pixels():
    image = Image.new("RGB", (540, 1200), GREY)  # a 1080x2400 screen shown at half size
    result = annotate(image, [make_control(1, (200, 800, 600, 1400))], scale=0.5)
    colour = control_colour(1)
    assert result.getpixel((101, 550)) == colour
    assert result.getpixel((201, 1100)) == GREY  # where the unscaled box would be


def test_badges_stay_inside_the_image_for_controls_at_or_beyond_the_edges():
    image = Image.new("RGB", (300, 300), GREY)
    controls = [
        make_control(1, (-50, -50, 40, 40)),  # mostly off the top-left corner
        make_control(2, (250, 260, 400, 400)),  # runs off the bottom-right corner
    ]
    result = annotate(image, controls)
    for control in controls:
        assert count_colour(result, control_colour(control.id), (0, 0, 300, 300)) > 20


def test_badges_of_boxes_sharing_a_corner_do_not_cover_each_other():
    image = Image.new("RGB", (540, 1200), GREY)
    controls = [make_control(1, (100, 400, 500, 800)), make_control(2, (100, 400, 300, 600))]
    result = annotate(image, controls)
    # Badge 1 sits just above the shared top-left corner; badge 2 must have gone elsewhere (left of it).
    above_corner = (100, 380, 115, 400)
    assert count_colour(result, control_colour(1), above_corner) > 60
    assert count_colour(result, control_colour(2), above_corner) < count_colour(result, control_colour(1), above_corner)
    left_of_corner = (80, 400, 100, 416)
    assert count_colour(result, control_colour(2), left_of_corner) > 60


def test_label_text_contrasts_with_its_badge():
    image = Image.new("RGB", (540, 1200), GREY)
    amber = PALETTE.index((255, 200, 0)) + 1
    result = annotate(image, [make_control(amber, (100, 100, 400, 400))])
    badge = result.crop((100, 75, 130, 100))       # above the box's top-left corner
    found = {colour for _, colour in colours(badge)}
    assert (255, 200, 0) in found and (0, 0, 0) in found  # dark digits on the light badge


def test_controls_off_the_image_draw_nothing():
    image = Image.new("RGB", (300, 300), GREY)
    result = annotate(image, [make_control(1, (400, 400, 500, 500)), make_control(2, (-90, 0, -10, 80))])
    assert result.tobytes() == image.tobytes()


def test_zero_controls_gives_an_unchanged_copy():
    image = Image.new("RGB", (100, 200), GREY)
    result = annotate(image, [])
    assert result is not image
    assert result.tobytes() == image.tobytes()


def test_palette_colours_are_fixed_and_cycle():
    assert control_colour(1) == PALETTE[0]
    assert control_colour(len(PALETTE) + 1) == PALETTE[0]
    assert len({control_colour(i) for i in range(1, len(PALETTE) + 1)}) == len(PALETTE)


# How fast 60 controls are drawn on a full screenshot is a figure of `agentdesk bench perception`
# ("annotate 60 controls on a full 1080x2400 screenshot", budget 100 ms), not a test.


def test_a_badge_is_the_same_pixels_as_its_box_and_number_drawn_in_place():
    """Badges are drawn once and pasted on later steps: what lands on the screenshot is what drawing the
    badge's box and number on it would give, for one- to three-digit numbers, on a second call too."""
    from PIL import ImageDraw

    from app.core.perception import annotate as annotate_module

    image = Image.new("RGB", (540, 1200), (250, 250, 250))
    controls = [make_control(number, (20, 40 + row * 110, 500, 120 + row * 110))
                for row, number in enumerate((1, 7, 42, 123))]
    font_px = max(annotate_module.MIN_FONT_PX, round(540 / 45))
    for _ in range(2):
        result = annotate(image, controls)
        for control in controls:
            width, height, text_x, text_y = annotate_module._badge_shape(font_px, str(control.id))
            left, top = control.rect[0], control.rect[1] - int(height)        # above the box, at its left edge
            colour = control_colour(control.id)
            drawn = Image.new("RGB", (int(width), int(height)), GREY)
            draw = ImageDraw.Draw(drawn)
            contrast = annotate_module._contrast(colour)
            draw.rectangle((0, 0, int(width) - 1, int(height) - 1), fill=colour, outline=contrast)
            draw.text((text_x, text_y), str(control.id), fill=contrast, font=annotate_module._font(font_px))
            pasted = result.crop((left, top, left + int(width), top + int(height)))
            assert pasted.tobytes() == drawn.tobytes(), control.id
            assert len(colours(pasted)) > 2          # the number's anti-aliased ink, not a plain box
