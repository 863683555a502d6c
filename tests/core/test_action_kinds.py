"""The registry of action kinds is where every table about actions comes from, and each kind is whole; the two
ways input reaches a phone implement the same channel."""

from __future__ import annotations

import inspect

import pytest

from app.core.agent.action_kinds import ACTION_KINDS, kind_of
from app.core.agent.action_kinds.base import ActionKind
from app.core.agent.actions import ARGUMENT_MODELS, FUNCTION_NAMES, Action
from app.core.agent.coordinates import CoordinateMapper
from app.core.agent.prompts import PromptBuilder
from app.core.config import Settings
from app.core.device.input_channel import FallbackInput, InputChannel, ShellInput
from app.core.device.scrcpy_input import ScrcpyInput
from app.core.learning.recorded_steps import RecordedStep


def test_names_are_unique_and_the_tables_come_from_the_registry():
    names = [kind.name for kind in ACTION_KINDS]
    assert len(names) == len(set(names))
    assert list(ARGUMENT_MODELS) == names
    assert FUNCTION_NAMES == tuple(kind.name for kind in ACTION_KINDS if kind.offered_always)
    assert {"use_skill", "go_to_screen"}.isdisjoint(FUNCTION_NAMES)
    system = PromptBuilder(Settings()).system_message()["content"]
    for kind in ACTION_KINDS:
        assert (f"- {kind.name}(" in system) == kind.offered_always, kind.name
        assert kind.hint and f" — {kind.hint}" in PromptBuilder(Settings()).system_message(True, True)["content"]


@pytest.mark.parametrize("kind", ACTION_KINDS, ids=lambda kind: kind.name)
def test_every_kind_is_whole(kind: ActionKind):
    own = type(kind).__dict__
    assert "describe" in own, f"{kind.name} says nothing in words"
    assert "perform" in own, f"{kind.name} cannot be carried out"
    if kind.places and kind.touches_phone:
        assert "gesture" in own, f"{kind.name} touches the screen but draws no mark"
    for x, y in kind.point_arguments:
        assert {x, y} <= set(kind.arguments.model_fields), f"{kind.name} names points it has no arguments for"
    for argument in kind.control_arguments:
        assert argument in kind.arguments.model_fields


def test_the_targets_and_points_are_the_ones_the_app_always_had():
    targeted = {kind.name for kind in ACTION_KINDS if kind.target_argument == "control_id"}
    assert targeted == {"click_control", "long_press_control", "type_text", "scroll"}
    assert kind_of("tap").point_arguments == (("x", "y"),)
    assert kind_of("swipe").point_arguments == (("start_x", "start_y"), ("end_x", "end_y"))
    assert RecordedStep(1, {"function": "scroll", "arguments": {"direction": "down", "control_id": 4}}).needs_target
    assert not RecordedStep(1, {"function": "scroll", "arguments": {"direction": "down"}}).needs_target


def test_every_point_of_every_kind_is_mapped_to_the_device():
    mapper = CoordinateMapper((1080, 2400), (540, 1200))
    swipe = mapper.action_to_device(Action(function="swipe", arguments={"start_x": 10, "start_y": 20, "end_x": 30,
                                                                          "end_y": 40}))
    assert swipe.arguments == {"start_x": 20, "start_y": 40, "end_x": 60, "end_y": 80}
    tap = mapper.action_to_device(Action(function="tap", arguments={"x": 5, "y": 6}))
    assert tap.arguments == {"x": 10, "y": 12}


@pytest.mark.parametrize("way", [ShellInput, ScrcpyInput, FallbackInput])
def test_both_ways_in_and_the_fallback_implement_the_channel(way: type):
    wanted = {name for name, member in vars(InputChannel).items() if inspect.iscoroutinefunction(member)}
    assert wanted and wanted <= {name for name, member in vars(way).items() if inspect.iscoroutinefunction(member)}
