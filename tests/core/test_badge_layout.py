"""Badges beside their boxes, not over the labels they number: the shared placement, the model's
annotated image, and every corpus screen."""

from __future__ import annotations

import pytest
from PIL import Image

from app.core.perception.annotate import annotate, control_colour, is_labelled_box
from app.core.perception.badge_layout import place_badges
from app.core.perception.controls import Control
from app.core.perception.hierarchy import parse_hierarchy, screen_size_from_hierarchy, select_controls
from app.virtual_phone.phone import VirtualPhone

AREA = (0, 0, 540, 1200)
BADGE = (20, 14)
GREY = (128, 128, 128)


def overlaps(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def badge_box(corner, size=BADGE):
    return (corner[0], corner[1], corner[0] + size[0], corner[1] + size[1])


def test_a_badge_goes_above_the_top_left_corner_when_there_is_room():
    [corner] = place_badges([(100, 200, 400, 260)], [BADGE], [True], AREA)
    assert corner == (100, 200 - BADGE[1])


def test_at_the_top_of_the_area_it_goes_left_of_the_box_and_never_over_its_label():
    [corner] = place_badges([(60, 0, 400, 60)], [BADGE], [True], AREA)
    assert corner == (60 - BADGE[0], 0)


def test_a_labelled_box_filling_the_area_edge_keeps_its_label_clear_by_going_below():
    [corner] = place_badges([(0, 0, 540, 60)], [BADGE], [True], AREA)
    assert not overlaps(badge_box(corner), (0, 0, 540, 60))


def test_inside_only_when_there_is_no_room_outside():
    [corner] = place_badges([(0, 0, 540, 1200)], [BADGE], [False], AREA)
    assert corner == (0, 0)


def test_the_label_above_is_not_covered_either():
    title, field = (100, 100, 400, 140), (100, 140, 400, 200)    # a title sitting on top of a field
    corners = place_badges([title, field], [BADGE, BADGE], [True, True], AREA)
    for corner in corners:
        assert not overlaps(badge_box(corner), title) and not overlaps(badge_box(corner), field)
    assert not overlaps(badge_box(corners[0]), badge_box(corners[1]))


def test_a_row_of_touching_icons_gets_badges_that_do_not_overlap():
    icons = [(20 + 40 * i, 300, 60 + 40 * i, 340) for i in range(10)]
    corners = place_badges(icons, [(26, 14)] * 10, [False] * 10, AREA)
    boxes = [badge_box(corner, (26, 14)) for corner in corners]
    assert all(not overlaps(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:])


def test_a_list_row_without_words_of_its_own_keeps_the_badge_above_it_like_its_neighbours():
    rows = [(0, 300 + 60 * i, 540, 360 + 60 * i) for i in range(6)]     # touching rows, full width
    corners = place_badges(rows, [BADGE] * 6, [False] * 6, AREA)
    assert [corner[1] for corner in corners] == [row[1] - BADGE[1] for row in rows]


def home_screen() -> tuple[list[Control], Image.Image]:
    phone = VirtualPhone()
    controls = select_controls(parse_hierarchy(phone.dump_hierarchy()), (1080, 2400))
    return controls, phone.screenshot().convert("RGB")


def test_the_home_screen_date_keeps_its_first_letter_on_the_models_image():
    controls, screenshot = home_screen()
    days = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
    date = next(control for control in controls if control.text.startswith(days))
    plain = screenshot.resize((540, 1200))
    marked = annotate(plain, controls, scale=0.5)
    left, top, right, bottom = (round(v * 0.5) for v in date.rect)
    inside = (left + 4, top + 4, left + 80, bottom - 4)          # where "Thu" is written
    assert marked.crop(inside).tobytes() == plain.crop(inside).tobytes(), "the badge covers the date's text"
    above = (left, top - 16, left + 14, top)
    assert control_colour(date.id) in {colour for _, colour in marked.crop(above).getcolors(4096)}


def corpus_screens(corpus_dir):
    for path in sorted(corpus_dir.glob("*/*.xml")):
        try:
            hierarchy = parse_hierarchy(path.read_bytes())
        except ValueError:
            continue
        size = screen_size_from_hierarchy(hierarchy)
        if size[0] > 0:
            yield path.name, select_controls(hierarchy, size), size


@pytest.mark.parametrize("scale", [0.5])
def test_on_every_corpus_screen_a_badge_covers_a_label_only_when_every_spot_outside_would(corpus_dir, scale):
    checked = 0
    for name, controls, (width, height) in corpus_screens(corpus_dir):
        boxes = [tuple(v * scale for v in c.rect) for c in controls]
        labelled = [is_labelled_box(c) for c in controls]
        corners = place_badges(boxes, [BADGE] * len(boxes), labelled, (0, 0, width * scale, height * scale))
        placed = [badge_box(corner) for corner in corners]
        for index, (box, badge) in enumerate(zip(boxes, placed, strict=True)):
            if not (labelled[index] and overlaps(badge, box)):
                continue
            for spot in outside_spots(box):
                assert not is_free(spot, index, boxes, labelled, placed[:index], (width * scale, height * scale)), \
                    f"{name}: #{controls[index].id}'s badge covers its label though {spot} was free"
        checked += len(controls)
    assert checked > 500


def outside_spots(box):
    left, top, right, bottom = box
    width, height = BADGE
    return [badge_box(spot) for spot in ((left, top - height), (left - width, top), (right - width, top - height),
                                         (left, bottom), (right, top))]


def is_free(spot, index, boxes, labelled, earlier_badges, size) -> bool:
    if spot[0] < 0 or spot[1] < 0 or spot[2] > size[0] or spot[3] > size[1]:
        return False
    own = boxes[index]
    for other, box in enumerate(boxes):
        encloses = box[0] <= own[0] and box[1] <= own[1] and own[2] <= box[2] and own[3] <= box[3]
        if other != index and not encloses and overlaps(spot, box) and labelled[other]:
            return False
    return not any(overlaps(spot, badge) for badge in earlier_badges)


def test_annotating_a_dense_300_control_screen_places_every_badge_on_the_image():
    controls = [Control(id=i + 1, name=f"c{i}", type="TextView", class_name="android.widget.TextView",
                        resource_id="", text=f"Item {i}", content_desc="",
                        rect=((i % 6) * 180, (i // 6) * 48, (i % 6) * 180 + 170, (i // 6) * 48 + 44))
                for i in range(300)]
    image = Image.new("RGB", (540, 1200), GREY)
    result = annotate(image, controls, scale=0.5)
    assert result.size == image.size
    found = {colour for _, colour in result.getcolors(540 * 1200)}
    assert all(control_colour(c.id) in found for c in controls[:12])
