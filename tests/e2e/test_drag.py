"""The drag action (press, hold, move, release): offered to the model, done on the virtual phone's brightness
slider through the agent and from the terminal, replayed, exported, seen by the sensitive check, and refused
with a clear message when an end does not exist."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest
import yaml

from app.android.scrcpy import InjectTouchEvent
from app.cli import main
from app.core.agent.action_kinds import kind_of
from app.core.agent.action_shorthand import ShorthandError, parse_shorthand
from app.core.agent.actions import Action, ActionRejected, ReplyInvalid, check_against_screen, parse_reply_dict
from app.core.agent.coordinates import CoordinateMapper
from app.core.agent.prompts import PromptBuilder
from app.core.agent.report_images import action_marks
from app.core.agent.sensitive import action_sensitivity
from app.core.config import DEFAULT_SENSITIVE_WORDS, Settings
from app.core.device.adb_transport import AdbTransport
from app.core.device.android_device import AndroidDevice
from app.core.device.errors import DeviceError
from app.core.device.input_channel import FallbackInput, ShellInput
from app.core.device.scrcpy_input import ACTION_DOWN, ACTION_MOVE, ACTION_UP, ScrcpyInput
from app.core.perception.controls import Control
from app.core.perception.locator import ControlSummary
from tests.e2e.conftest import ScriptedPerson, approve, phone_actions
from tests.support.openai_server import FakeOpenAIServer, act, click, json_reply, user_texts

WORDS = list(DEFAULT_SENSITIVE_WORDS)
_LINE = re.compile(r'^(\d+)(?: ([^\s"]+))?(?: "(?:[^"\\]|\\.)*")?(?: [a-z,]+)? @(-?\d+),(-?\d+)$')


def slider_to_the_right(body: dict[str, Any]) -> Any:
    """The model drags the brightness slider (found in the request's controls) to the right."""
    for text in user_texts(body):
        for line in text.splitlines():
            match = _LINE.match(line.strip())
            if match and match.group(2) == "slider":          # a SeekBar's role word
                control_id, x, y = int(match.group(1)), int(match.group(3)), int(match.group(4))
                return json_reply(act("drag", from_control_id=control_id, to_x=round(x * 1.6), to_y=y,
                                      duration_ms=400))(body)
    raise LookupError("no SeekBar in the request")


DRAG_SCRIPT = [json_reply(act("launch_app", package_name="com.android.settings")), click("Display"),
               slider_to_the_right, json_reply(act("", status="FINISH"))]


def control(control_id: int, name: str, rect: tuple[int, int, int, int]) -> Control:
    return Control(id=control_id, name=name, type="button", class_name="android.widget.Button", resource_id="",
                   text=name, content_desc="", rect=rect, clickable=True)


SCREEN = [control(1, "Row one", (0, 200, 1080, 400)), control(2, "Row two", (0, 400, 1080, 600)),
          control(3, "Delete", (0, 2000, 1080, 2200))]


def drag(**arguments: Any) -> Action:
    return Action(function="drag", arguments=arguments)


# ---------------------------------------------------------------------------- the model is offered it


def test_the_prompt_and_the_tool_offer_drag():
    builder = PromptBuilder(Settings())
    system = builder.system_message()["content"]
    assert "- drag(from_control_id?, from_x?, from_y?, to_control_id?, to_x?, to_y?, duration_ms?)" in system
    assert "move a slider, reorder a list" in system
    assert "drag" in builder.reply_tool()["function"]["parameters"]["properties"]["action"]["properties"][
        "function"]["enum"]


# ---------------------------------------------------------------------------- through the agent


@pytest.mark.asyncio
async def test_the_agent_drags_the_brightness_slider(run_agent):
    outcome = await run_agent("Turn the brightness up", DRAG_SCRIPT, ScriptedPerson([approve] * 4))
    assert outcome.result.status == "success", outcome.result
    assert outcome.state["brightness"] > 200, outcome.state["brightness"]      # it was 102
    steps = outcome.steps()
    assert steps[2].action["function"] == "drag"
    assert steps[2].action_text.startswith("Drag “Brightness level”") and " to (" in steps[2].action_text
    assert steps[2].target is not None and steps[2].target.class_name == "android.widget.SeekBar"
    pressed, *moved = outcome.phone_actions()[2:]     # the stream's control socket: one held gesture
    assert pressed[:2] == ["input", "swipe"] and int(pressed[-1]) >= 500 and not moved
    assert "- drag(" in outcome.model.requests[0].body["messages"][0]["content"]
    assert outcome.trajectory_problems() == []


# ---------------------------------------------------------------------------- the terminal: run, replay, export


def test_drag_run_replayed_and_exported_from_the_terminal(cli_env, capsys, tmp_path):
    phone = cli_env.devices[0].phone
    with FakeOpenAIServer(list(DRAG_SCRIPT)) as model:
        assert main(["run", "Turn the brightness up", "--auto", "--json", "--base-url", model.base_url]) == 0
    run_dir = json.loads(capsys.readouterr().out)["run_dir"]
    assert phone.state()["brightness"] > 200

    phone.put_setting("system", "screen_brightness", "20")
    phone.force_stop("com.android.settings")
    phone.go_home()
    code = main(["replay", run_dir, "--auto", "--json", "--no-model", "--base-url", "https://api.openai.com/v1"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert json.loads(captured.out)["status"] == "success"
    assert phone.state()["brightness"] > 200, "the replay dragged the slider again"

    assert main(["export", run_dir, "--format", "yaml"]) == 0
    flow = yaml.safe_load(capsys.readouterr().out)
    dragged = flow["steps"][2]
    assert dragged["action"] == "drag" and dragged["target"]["class"] == "android.widget.SeekBar"
    assert "from_control_id" not in dragged["arguments"] and dragged["arguments"]["duration_ms"] == 400
    out_file = tmp_path / "drag.py"
    assert main(["export", run_dir, "-o", str(out_file)]) == 0
    script = out_file.read_text()
    compile(script, str(out_file), "exec")
    assert ".drag_to(" in script and "duration=0.4" in script


# ---------------------------------------------------------------------------- the pieces


def test_the_sensitive_check_sees_both_ends_of_a_drag():
    onto = action_sensitivity(drag(from_control_id=1, to_control_id=3), SCREEN, WORDS)
    assert "Delete" in onto and "drops on" in onto
    dropped_at = action_sensitivity(drag(from_x=540, from_y=300, to_x=540, to_y=2100), SCREEN, WORDS)
    assert "the drop at (540, 2100)" in dropped_at and "Delete" in dropped_at
    picked_up = action_sensitivity(drag(from_x=540, from_y=2100, to_control_id=1), SCREEN, WORDS)
    assert "the drag from (540, 2100)" in picked_up
    assert action_sensitivity(drag(from_control_id=1, to_control_id=2), SCREEN, WORDS) == ""


def test_bad_drags_are_refused_with_a_clear_message():
    with pytest.raises(ReplyInvalid, match="a drag needs to_control_id, or both to_x and to_y"):
        parse_reply_dict({"thought": "", "action": {"function": "drag", "arguments": {"from_control_id": 1,
                                                                                        "to_x": 5}}})
    with pytest.raises(ActionRejected, match="control_id 9 does not exist on this screen; valid ids are 1..3"):
        check_against_screen(drag(from_control_id=1, to_control_id=9), SCREEN, (1080, 2400))
    with pytest.raises(ActionRejected, match="outside the screen"):
        check_against_screen(drag(from_control_id=1, to_x=5000, to_y=10), SCREEN, (1080, 2400))
    with pytest.raises(ShorthandError, match="neither a control id nor a point"):
        parse_shorthand("drag 1 somewhere")


def test_typed_drag_points_mapped_to_the_device_and_marks_drawn():
    typed = parse_shorthand("drag 1 540,2100 800")
    assert typed.arguments == {"from_control_id": 1, "to_x": 540, "to_y": 2100, "duration_ms": 800}
    mapped = CoordinateMapper((1080, 2400), (540, 1200)).action_to_device(drag(from_x=100, from_y=200,
                                                                               to_control_id=2))
    assert mapped.arguments == {"from_x": 200, "from_y": 400, "to_control_id": 2}
    row_two = ControlSummary(2, "Row two", "button", rect=[0, 400, 1080, 600])
    marks, words = action_marks(drag(from_control_id=1, to_control_id=2).model_dump(), [0, 200, 1080, 400],
                                (1080, 2400), controls=[row_two])
    assert words == "dragged along the arrow" and "<line" in marks


def test_a_recorded_drag_to_a_control_is_replayed_to_where_it_was():
    kind = kind_of("drag")
    assert kind is not None
    recorded = kind.recorded({"from_control_id": 1, "to_control_id": 2, "duration_ms": 500},
                             [ControlSummary(2, "Row two", "button", rect=[0, 400, 1080, 600])])
    assert recorded == {"from_control_id": 1, "to_x": 540, "to_y": 500, "duration_ms": 500}
    assert kind.replayed(recorded, SCREEN[1]) == {**recorded, "from_control_id": 2}


@pytest.mark.asyncio
async def test_without_the_stream_a_drag_is_input_draganddrop(phone_server):
    attached = phone_server.devices[0]
    device = AndroidDevice(AdbTransport("127.0.0.1", phone_server.port), attached.serial)
    assert device.input_path == "adb shell input"
    await device.launch_app("com.android.settings")
    display = next(c for c in (await device.controls()).controls if c.name.startswith("Display"))
    await device.tap(*display.center)
    slider = next(c for c in (await device.controls(refresh=True)).controls if c.type == "SeekBar")
    await device.drag(*slider.center, slider.rect[2] - 1, slider.center[1], 300)
    assert phone_actions(attached)[-1][:2] == ["input", "draganddrop"]
    assert attached.phone.state()["brightness"] > 200


class BrokenChannel:
    name = "scrcpy control"

    async def drag(self, x1: float, y1: float, x2: float, y2: float, duration_ms: int) -> None:
        raise DeviceError("the control socket closed")


@pytest.mark.asyncio
async def test_a_drag_the_stream_could_not_deliver_goes_by_the_shell():
    sent: list[str] = []

    async def run(command: str, what: str) -> str:
        sent.append(command)
        return ""

    async def size() -> tuple[int, int]:
        return 1080, 2400

    async def rotation() -> int:
        return 0
    way = FallbackInput(ShellInput(run, size, rotation), before=lambda: None, sent=lambda _: None)
    way.fast = BrokenChannel()        # type: ignore[assignment]
    await way.drag(100, 200, 900, 200, 400)
    assert sent == ["input draganddrop 100 200 900 200 400"] and way.fast is None and way.name == "adb shell input"


class FakeSession:
    video_size = (540, 1200)

    def __init__(self) -> None:
        self.sent: list[InjectTouchEvent] = []

    def send(self, message: InjectTouchEvent) -> None:
        self.sent.append(message)


@pytest.mark.asyncio
async def test_over_scrcpy_a_drag_is_a_held_press_moves_and_a_release():
    session = FakeSession()
    channel = ScrcpyInput(session, lambda: (1080, 2400))   # type: ignore[arg-type]
    started = asyncio.get_running_loop().time()
    await channel.drag(100, 200, 900, 200, 160)
    assert asyncio.get_running_loop().time() - started >= 0.5, "held for the long-press time before moving"
    actions = [event.action for event in session.sent]
    assert actions[0] == ACTION_DOWN and actions[-1] == ACTION_UP and actions.count(ACTION_MOVE) >= 5
    assert (session.sent[-1].position.x, session.sent[-1].position.y) == (450, 100)    # video pixels
