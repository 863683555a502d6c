"""CoordinateMapper: model coordinates (image pixels or 0-1000) ↔ device pixels, in one place."""

from __future__ import annotations

import pytest

from app.core.agent.actions import Action, ActionRejected, check_against_screen
from app.core.agent.coordinates import CoordinateMapper


def test_image_mode_divides_by_the_image_scale():
    mapper = CoordinateMapper((1080, 2400), (540, 1200), "image")
    assert mapper.to_device(270, 600) == (540, 1200)
    assert mapper.to_model(1080, 2400) == (540, 1200)
    back_x, back_y = mapper.to_device(*mapper.to_model(333, 777))
    assert abs(back_x - 333) <= 1 and abs(back_y - 777) <= 1        # rounding costs at most a pixel


def test_image_mode_uses_each_axis_scale():
    mapper = CoordinateMapper((1080, 1920), (360, 640), "image")     # a reduction by 3
    assert mapper.to_device(100, 100) == (300, 300)
    uneven = CoordinateMapper((1080, 2340), (540, 1169), "image")    # reduce() rounds the odd side
    assert uneven.to_device(540, 1169) == (1080, 2340)


def test_normalized_mode_is_independent_of_the_image():
    mapper = CoordinateMapper((1080, 2400), (540, 1200), "normalized")
    assert mapper.to_device(500, 500) == (540, 1200)
    assert mapper.to_device(1000, 0) == (1080, 0)
    assert mapper.to_model(540, 1200) == (500, 500)
    assert mapper.rect_to_model((0, 0, 1080, 240)) == (0, 0, 1000, 100)


def test_identity_when_the_image_is_the_screen():
    mapper = CoordinateMapper((720, 1280), (720, 1280), "image")
    assert mapper.is_identity
    assert mapper.to_device(12.4, 99.6) == (12, 100)
    assert not CoordinateMapper((720, 1280), (720, 1280), "normalized").is_identity


def test_tap_and_swipe_actions_are_mapped_in_a_copy():
    mapper = CoordinateMapper((1080, 2400), (540, 1200), "image")
    tap = Action(function="tap", arguments={"x": 100.4, "y": 50})
    mapped = mapper.action_to_device(tap)
    assert mapped.arguments == {"x": 201, "y": 100}
    assert tap.arguments == {"x": 100.4, "y": 50}                  # the original is untouched
    swipe = Action(function="swipe", arguments={"start_x": 270, "start_y": 1000, "end_x": 270, "end_y": 200,
                                                 "duration_ms": 500})
    assert mapper.action_to_device(swipe).arguments == {"start_x": 540, "start_y": 2000, "end_x": 540,
                                                        "end_y": 400, "duration_ms": 500}


def test_other_functions_are_unchanged():
    mapper = CoordinateMapper((1080, 2400), (540, 1200), "image")
    for action in (Action(function="click_control", arguments={"control_id": 3}),
                   Action(function="scroll", arguments={"direction": "down", "control_id": 2}),
                   Action(function="", status="FINISH")):
        mapped = mapper.action_to_device(action)
        assert mapped == action and mapped is not action


def test_points_are_not_clamped_so_validation_can_reject_them():
    mapper = CoordinateMapper((1080, 2400), (540, 1200), "image")
    mapped = mapper.action_to_device(Action(function="tap", arguments={"x": 600, "y": 100}))
    assert mapped.arguments["x"] == 1200
    with pytest.raises(ActionRejected, match="outside the screen"):
        check_against_screen(mapped, [], (1080, 2400))


@pytest.mark.parametrize("screen, image, mode", [((0, 100), (10, 10), "image"), ((100, 100), (10, 0), "image"),
                                                 ((100, 100), (10, 10), "percent")])
def test_impossible_sizes_and_modes_are_refused(screen, image, mode):
    with pytest.raises(ValueError):
        CoordinateMapper(screen, image, mode)
