"""The model's reply and the actions it may ask for (GUIDE §2), validated with pydantic.

A reply is `{"thought", "action": {"function", "arguments", "status"}, "comment"}` plus
optional `plan` and `questions`. `parse_reply_dict` turns a decoded dict into a
`ModelReply` whose `action.args` is the typed argument model of its function, or raises
`ReplyInvalid` with a message written for the model (it is sent back on retry).
`check_against_screen` then rejects ids and coordinates that do not exist on the
current screen, before anything runs.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from app.core.perception.controls import Control

Status = Literal["CONTINUE", "CONFIRM", "FINISH", "FAIL"]
"""CONFIRM (seed 002): the action runs only once a person has confirmed it, in every mode; then as CONTINUE."""
NO_ACTION = ""  # function of a FINISH/FAIL reply that does nothing more


class _Args(BaseModel):
    model_config = ConfigDict(extra="ignore")


class LaunchApp(_Args):
    package_name: str = Field(min_length=1)


class ClickControl(_Args):
    control_id: int
    control_name: str = ""


class LongPressControl(_Args):
    control_id: int
    control_name: str = ""


class TypeText(_Args):
    text: str
    control_id: int | None = None
    clear_current_text: bool = False


class Swipe(_Args):
    start_x: float
    start_y: float
    end_x: float
    end_y: float
    duration_ms: int = Field(300, ge=1, le=10_000)


class Scroll(_Args):
    direction: Literal["up", "down", "left", "right"]
    control_id: int | None = None

    @field_validator("direction", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.lower().strip() if isinstance(value, str) else value


class Tap(_Args):
    x: float
    y: float


class PressKey(_Args):
    key_code: str | int


class Wait(_Args):
    seconds: float = Field(1.0, gt=0, le=30)


class AskUser(_Args):
    question: str = Field(min_length=1)


class NoAction(_Args):
    pass


class UseSkill(_Args):
    """Do a saved skill's recorded steps (offered only when skills exist; never reaches the phone as such)."""

    name: str = Field(min_length=1)
    parameters: dict[str, str] = Field(default_factory=dict)


USE_SKILL = "use_skill"


class GoToScreen(_Args):
    """Go to a screen the map of earlier runs knows, by its known way (offered only when there is one;
    never reaches the phone as such: its steps do)."""

    screen: str = Field(min_length=1)


GO_TO_SCREEN = "go_to_screen"
OFFERED_ONLY = (USE_SKILL, GO_TO_SCREEN)


ARGUMENT_MODELS: dict[str, type[ActionArgs]] = {
    "launch_app": LaunchApp,
    "click_control": ClickControl,
    "long_press_control": LongPressControl,
    "type_text": TypeText,
    "swipe": Swipe,
    "scroll": Scroll,
    "tap": Tap,
    "press_key": PressKey,
    "wait": Wait,
    "ask_user": AskUser,
    USE_SKILL: UseSkill,
    GO_TO_SCREEN: GoToScreen,
}
FUNCTION_NAMES = tuple(name for name in ARGUMENT_MODELS if name not in OFFERED_ONLY)
"""The functions every model is offered; use_skill only when there are skills, go_to_screen only when the
map knows screens to go to."""
ActionArgs = (LaunchApp | ClickControl | LongPressControl | TypeText | Swipe | Scroll | Tap | PressKey | Wait
              | AskUser | UseSkill | GoToScreen | NoAction)


class Action(BaseModel):
    """One action of the model (or of the person, when they override)."""

    model_config = ConfigDict(extra="ignore")

    function: str = NO_ACTION
    arguments: dict[str, Any] = Field(default_factory=dict)
    status: Status = "CONTINUE"

    @field_validator("status", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.upper().strip() if isinstance(value, str) else value

    @field_validator("function", mode="before")
    @classmethod
    def _normalise_function(cls, value: Any) -> Any:
        return "" if value is None else (value.strip() if isinstance(value, str) else value)

    @model_validator(mode="after")
    def _check_function(self) -> Action:
        if self.function.lower() in ("none", "finish", "fail", "done", "stop"):
            self.function = NO_ACTION
        if self.function == NO_ACTION:
            if self.status in ("CONTINUE", "CONFIRM"):
                raise ValueError(f"a {self.status} action needs a function; use status FINISH or FAIL when done")
        elif self.function not in ARGUMENT_MODELS:
            raise ValueError(f"unknown function '{self.function}'; use one of: {', '.join(FUNCTION_NAMES)}")
        else:
            ARGUMENT_MODELS[self.function].model_validate(self.arguments)
        return self

    @property
    def args(self) -> ActionArgs:
        """The arguments as the typed model of the function."""
        return ARGUMENT_MODELS.get(self.function, NoAction).model_validate(self.arguments)

    @property
    def does_something(self) -> bool:
        return self.function != NO_ACTION


class Expectation(BaseModel):
    """What a FINISH says the screen now shows, so a fresh dump can check it: a control (by its
    name or text) and its state or text — or, without a control, a text shown somewhere."""

    model_config = ConfigDict(extra="ignore")

    control: str = ""
    checked: bool | None = None
    selected: bool | None = None
    text: str | None = None

    @property
    def names_a_fact(self) -> bool:
        """A state or text to look for: a control merely being there proves nothing."""
        return self.text is not None and self.text.strip() != "" or (
            bool(self.control.strip()) and (self.checked is not None or self.selected is not None))


class ModelReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    thought: str = ""
    action: Action
    comment: str = ""
    plan: list[str] = Field(default_factory=list)
    questions: list[str] = Field(default_factory=list)
    expect: Expectation | None = None      # with FINISH: what the screen should now show

    @field_validator("expect", mode="before")
    @classmethod
    def _lenient_expectation(cls, value: Any) -> Any:
        """A malformed expectation is dropped (the FINISH is then checked by the model), never
        a reason to refuse the whole reply."""
        if not isinstance(value, dict):
            return None
        try:
            return Expectation.model_validate(value)
        except ValidationError:
            return None

    @field_validator("plan", "questions", mode="before")
    @classmethod
    def _listify(cls, value: Any) -> Any:
        if value is None:
            return []
        if isinstance(value, str):
            return [line.strip(" -*\t") for line in value.splitlines() if line.strip()]
        return value


class ReplyInvalid(ValueError):
    """The model's reply cannot be used; the message tells the model what to fix."""


def parse_reply_dict(data: Any) -> ModelReply:
    """Validate a decoded reply. Accepts a top-level action too (some models flatten it)."""
    if not isinstance(data, dict):
        raise ReplyInvalid("The reply must be a JSON object with keys thought, action, comment.")
    if "action" not in data and "function" in data:
        data = {"thought": data.get("thought", ""), "comment": data.get("comment", ""),
                "plan": data.get("plan"), "questions": data.get("questions"), "expect": data.get("expect"),
                "action": {k: data[k] for k in ("function", "arguments", "status") if k in data}}
    try:
        return ModelReply.model_validate(data)
    except ValidationError as exc:
        raise ReplyInvalid(_explain(exc)) from exc


def _explain(error: ValidationError) -> str:
    problems = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"]) or "reply"
        message = item["msg"].removeprefix("Value error, ")
        problems.append(f"{where}: {message}")
    return "The reply is not valid: " + "; ".join(problems) + "."


# ---------------------------------------------------------------------------- the screen


class ActionRejected(ValueError):
    """The action names something that is not on this screen; the message is for the model."""


def find_control(controls: list[Control], control_id: int) -> Control:
    for control in controls:
        if control.id == control_id:
            return control
    valid = f"1..{len(controls)}" if controls else "none (no controls were found on this screen)"
    raise ActionRejected(f"control_id {control_id} does not exist on this screen; valid ids are {valid}.")


def check_against_screen(action: Action, controls: list[Control], screen_size: tuple[int, int]) -> None:
    """Reject hallucinated control ids and coordinates off the screen (device pixels)."""
    args = action.args
    if isinstance(args, (ClickControl, LongPressControl)):
        find_control(controls, args.control_id)
    elif isinstance(args, (TypeText, Scroll)) and args.control_id is not None:
        find_control(controls, args.control_id)
    width, height = screen_size
    points: list[tuple[float, float]] = []
    if isinstance(args, Tap):
        points = [(args.x, args.y)]
    elif isinstance(args, Swipe):
        points = [(args.start_x, args.start_y), (args.end_x, args.end_y)]
    for x, y in points:
        if not (0 <= x < width and 0 <= y < height):
            raise ActionRejected(f"the point ({x:.0f}, {y:.0f}) is outside the screen "
                                 f"(0..{width - 1}, 0..{height - 1} in device pixels).")


def describe_action(action: Action, controls: list[Control] | None = None) -> str:
    """The action in words a person reads at a glance: 'Tap “Wi-Fi” (#4)'."""
    if not action.does_something:
        return {"FINISH": "Finish: the task is done", "FAIL": "Give up: the task cannot be done"}.get(
            action.status, "No action")
    args = action.args

    def control_name(control_id: int, fallback: str) -> str:
        known = next((c for c in controls or [] if c.id == control_id), None)
        return f"“{(known.name if known else fallback) or '?'}” (#{control_id})"

    if isinstance(args, ClickControl):
        return f"Tap {control_name(args.control_id, args.control_name)}"
    if isinstance(args, LongPressControl):
        return f"Long-press {control_name(args.control_id, args.control_name)}"
    if isinstance(args, TypeText):
        target = f" into {control_name(args.control_id, '')}" if args.control_id is not None else ""
        shown = args.text if len(args.text) <= 60 else args.text[:57] + "…"
        return f"{'Replace the text with' if args.clear_current_text else 'Type'} “{shown}”{target}"
    if isinstance(args, LaunchApp):
        return f"Open the app {args.package_name}"
    if isinstance(args, Swipe):
        return f"Swipe from ({args.start_x:.0f}, {args.start_y:.0f}) to ({args.end_x:.0f}, {args.end_y:.0f})"
    if isinstance(args, Scroll):
        where = f" in {control_name(args.control_id, '')}" if args.control_id is not None else ""
        return f"Scroll {args.direction}{where}"
    if isinstance(args, Tap):
        return f"Tap at ({args.x:.0f}, {args.y:.0f})"
    if isinstance(args, PressKey):
        return f"Press {str(args.key_code).upper()}"
    if isinstance(args, Wait):
        return f"Wait {args.seconds:g} s"
    if isinstance(args, AskUser):
        return f"Ask you: {args.question}"
    if isinstance(args, UseSkill):
        values = ", ".join(f"{name} = {value}" for name, value in args.parameters.items())
        return f"Use the skill “{args.name}”" + (f" with {values}" if values else "")
    if isinstance(args, GoToScreen):
        return f"Go to “{args.screen}” by its known way"
    return action.function
