"""What every action kind declares, and the little all of them share.

An action kind is one class (one module in this package): its function name, its argument model,
the places it touches on the screen (`Place`: a control named by id, a point, or either), its words,
how it is performed, what the sensitive check looks at, its export and its replay. Most of that is
worked out here from the places; a kind writes only what is its own. The registry (`__init__.py`)
lists the kinds, and every table the app needs (which functions name a control, which arguments are
points, the functions offered to the model) is read from it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict

from app.core.perception.controls import Control

if TYPE_CHECKING:
    from app.core.device.android_device import AndroidDevice
    from app.core.perception.locator import ControlSummary

Point = tuple[float, float]
Box = tuple[float, float, float, float]
T = TypeVar("T")


class ActionArguments(BaseModel):
    """The arguments of one function, validated with pydantic; unknown keys are ignored."""

    model_config = ConfigDict(extra="ignore")


ArgsT = TypeVar("ArgsT", bound=ActionArguments)


class ActionRejected(ValueError):
    """The action names something that is not on this screen; the message is for the model."""


class CannotExport(Exception):
    """A recorded step that has no faithful translation into a script; the message says why."""


class ShorthandError(ValueError):
    """A typed action that cannot be read; the message says what to type instead."""


def number(word: str) -> float:
    """A typed number, or ShorthandError naming the word."""
    try:
        return float(word)
    except ValueError:
        raise ShorthandError(f"'{word}' is not a number") from None


def find_control(controls: Sequence[Control], control_id: int) -> Control:
    for control in controls:
        if control.id == control_id:
            return control
    valid = f"1..{len(controls)}" if controls else "none (no controls were found on this screen)"
    raise ActionRejected(f"control_id {control_id} does not exist on this screen; valid ids are {valid}.")


@dataclass(frozen=True)
class Place:
    """One place an action touches: a control named by its id (`control` is that argument's name), a point
    (`x`, `y` name the arguments, device pixels after `CoordinateMapper`), or either (a drag's ends).

    The sensitive check reads the named control's words when `control_checked` (`control_words` name it in
    the reason, "{name}" standing for its name; "" : "its target “…”"), and the control under the point (else
    the text near it) when `point_words` says how to name the gesture ("the tap at")."""

    control: str | None = None
    x: str | None = None
    y: str | None = None
    control_checked: bool = True
    control_words: str = ""
    point_words: str = ""


@dataclass(frozen=True)
class TypedText:
    """What a type action typed and where, kept until the field is read back."""

    text: str
    target: Control | None     # the field named by control_id; None: whichever field has focus
    password: bool
    where: str


@dataclass(frozen=True)
class Gesture:
    """Where an action touched the screen, as the report and the mirror draw it (device pixels): a ring (a
    double one when `held`), an arrow, or only the target's box; `words` say it, `rejected_words` when the
    person turned the proposal down."""

    words: str
    rejected_words: str
    ring: Point | None = None
    held: bool = False
    arrow: Box | None = None
    end_box: Box | None = None      # the control an arrow ends on (where a drag drops), when it names one


class RunControlLike(Protocol):
    async def interruptible(self, awaitable: Awaitable[T]) -> T: ...


class Performer(Protocol):
    """What an action is performed with: the phone (its input goes over the phone's `InputChannel`), the run's
    control (a wait or a question ends when the run is stopped), the person, and what was typed."""

    @property
    def device(self) -> AndroidDevice: ...
    @property
    def control(self) -> RunControlLike: ...
    @property
    def ask_person(self) -> Callable[[str], Awaitable[str]]: ...

    last_answer: str
    typed: TypedText | None


class ScriptWriter(Protocol):
    """What a kind's export may ask of the exporter about the recorded step's target and secrets."""

    def found(self) -> str:
        """The Python expression that waits for the target and returns it."""
        ...

    def found_at(self) -> tuple[int, int] | None:
        """The target's recorded centre when only its coordinates identify it, else None."""
        ...

    def found_box(self) -> tuple[int, int, int, int] | None:
        """The target's recorded bounds when only its coordinates identify it, else None."""
        ...

    def has_target(self) -> bool:
        """Whether the step names a control that the script finds again."""
        ...

    def typed_value(self, text: str) -> str:
        """The Python expression for text to type: a password is read when the script runs, never written."""
        ...

    def secret_env(self, text: str) -> str | None:
        """For the YAML flow: the environment variable a password is read from, None for other text."""
        ...


def no_box(control_id: int) -> Box | None:
    """No control's box is known (a `box_of` for `ActionKind.gesture`)."""
    return None


def pixels(value: float) -> int:
    """Device pixels as a whole number (uiautomator2 takes a float below 1 as a part of the screen)."""
    return int(round(value))


class ActionKind(Generic[ArgsT]):
    """One function the model (or a person, a replay, a skill) may ask for. Subclasses set the class
    attributes and write `describe` and `perform`; the rest has a default worked out from `places`."""

    name: ClassVar[str]
    arguments: type[ArgsT]
    hint: ClassVar[str] = ""
    """The line that explains the function to the model in the system message."""
    places: ClassVar[tuple[Place, ...]] = ()
    offered_always: ClassVar[bool] = True
    """False for functions offered only when there is something to offer (skills, known screens)."""
    touches_phone: ClassVar[bool] = True
    """False for an action that only waits or asks the person: the sensitive check never stops it."""
    target_label_may_vary: ClassVar[bool] = False
    """Whether the target's label may be a skill's parameter (tapping “Wi‑Fi” or “Bluetooth” is one step)."""
    shorthand: ClassVar[tuple[str, ...]] = ()
    """How a person types it in the console (`tap X Y`); the verbs `from_shorthand` reads."""

    # ---------------------------------------------------------------- arguments and places

    def parse(self, arguments: Mapping[str, Any]) -> ArgsT:
        return self.arguments.model_validate(dict(arguments))

    @property
    def target_place(self) -> Place | None:
        """The place whose control is the action's target (recorded with its locator, found again on replay)."""
        return next((place for place in self.places if place.control is not None), None)

    @property
    def target_argument(self) -> str | None:
        place = self.target_place
        return place.control if place is not None else None

    @property
    def control_arguments(self) -> tuple[str, ...]:
        """The names of every argument that names a control by its id (a number that holds on one screen)."""
        return tuple(place.control for place in self.places if place.control is not None)

    @property
    def point_arguments(self) -> tuple[tuple[str, str], ...]:
        """The (x, y) argument names of every point, in device pixels once mapped from the model's."""
        return tuple((place.x, place.y) for place in self.places if place.x is not None and place.y is not None)

    @staticmethod
    def control_id(args: ActionArguments, place: Place) -> int | None:
        value = getattr(args, place.control, None) if place.control is not None else None
        return value if isinstance(value, int) else None

    @staticmethod
    def point(args: ActionArguments, place: Place) -> Point | None:
        if place.x is None or place.y is None:
            return None
        x, y = getattr(args, place.x, None), getattr(args, place.y, None)
        return (float(x), float(y)) if isinstance(x, (int, float)) and isinstance(y, (int, float)) else None

    def first_point(self, args: ArgsT) -> Point | None:
        """Where the action touches the screen by coordinates (a swipe: where it starts); None if it names none."""
        return next((point for place in self.places if (point := self.point(args, place)) is not None), None)

    def where(self, args: ArgsT, place: Place, controls: Sequence[Control]) -> Point:
        """The point a place stands for on this screen: its control's centre, else its point."""
        control_id = self.control_id(args, place)
        if control_id is not None:
            centre = find_control(controls, control_id).center
            return float(centre[0]), float(centre[1])
        point = self.point(args, place)
        if point is None:
            raise ActionRejected(f"{self.name} needs a control or a point for {place.control or place.x}.")
        return point

    def check_against_screen(self, args: ArgsT, controls: Sequence[Control], screen_size: tuple[int, int]) -> None:
        """Reject control ids that are not on this screen and points off it (device pixels)."""
        width, height = screen_size
        for place in self.places:
            control_id = self.control_id(args, place)
            if control_id is not None:
                find_control(controls, control_id)
            point = self.point(args, place)
            if point is not None and not (0 <= point[0] < width and 0 <= point[1] < height):
                raise ActionRejected(f"the point ({point[0]:.0f}, {point[1]:.0f}) is outside the screen "
                                     f"(0..{width - 1}, 0..{height - 1} in device pixels).")

    # ---------------------------------------------------------------- words

    def describe(self, args: ArgsT, name: Callable[[int, str], str]) -> str:
        """The action in words a person reads at a glance; `name(control_id, fallback)` names a control."""
        return self.name

    def from_shorthand(self, verb: str, words: list[str]) -> dict[str, Any] | None:
        """The arguments of a typed action (`verb` lower-case, `words` after it); None when not this kind's."""
        return None

    # ---------------------------------------------------------------- doing it

    async def perform(self, args: ArgsT, performer: Performer, controls: list[Control]) -> str:
        """Carry the action out; returns what was done, in words. Raises DeviceError or ActionRejected."""
        raise NotImplementedError(f"{self.name} is not carried out on the phone as such")

    # ---------------------------------------------------------------- the sensitive check

    def sensitive_reason(self, args: ArgsT, controls: Sequence[Control], check_control: Callable[[Control, str], str],
                         check_point: Callable[[str, Point], str]) -> str:
        """Why the action needs a person, from its places: the words of each control it names (when
        `control_checked`; `check_control(control, place.control_words)`), the control under each point it
        names (when the place has `point_words`; `check_point(place.point_words, point)`)."""
        for place in self.places:
            control_id = self.control_id(args, place)
            if control_id is not None:
                control = next((c for c in controls if c.id == control_id), None)
                if control is not None and place.control_checked and (
                        reason := check_control(control, place.control_words)):
                    return reason
                continue
            point = self.point(args, place)
            if point is not None and place.point_words and (reason := check_point(place.point_words, point)):
                return reason
        return ""

    # ---------------------------------------------------------------- pictures

    def gesture(self, args: ArgsT, target: Box | None, screen_size: tuple[int, int],
                box_of: Callable[[int], Box | None] = no_box) -> Gesture | None:
        """What to draw where the action touched a screen of `screen_size`; `target` is its target's box and
        `box_of(control_id)` the box of another control it names, where known."""
        return None

    # ---------------------------------------------------------------- replay and export

    def recorded(self, arguments: dict[str, Any], controls: Sequence[ControlSummary]) -> dict[str, Any]:
        """The arguments as a replay keeps them: a control named by id other than the target (whose locator
        the record keeps) becomes its recorded centre, when the place also takes a point."""
        target = self.target_place
        kept = dict(arguments)
        for place in self.places:
            if place is target or place.control is None or place.x is None or place.y is None:
                continue
            control_id = kept.get(place.control)
            control = next((c for c in controls if c.id == control_id), None) if control_id is not None else None
            if control is not None and len(control.rect) == 4:
                left, top, right, bottom = control.rect
                kept.pop(place.control)
                kept[place.x], kept[place.y] = (left + right) // 2, (top + bottom) // 2
        return kept

    def replayed(self, arguments: dict[str, Any], found: Control) -> dict[str, Any]:
        """The recorded arguments with the target found again on the current screen."""
        replayed = dict(arguments)
        if self.target_argument is not None:
            replayed[self.target_argument] = found.id
        if "control_name" in replayed:
            replayed["control_name"] = found.name
        return replayed

    def export_python(self, args: ArgsT, writer: ScriptWriter) -> list[str]:
        """The lines of a uiautomator2 script that do the action again (raise CannotExport when none can)."""
        return []

    def export_yaml(self, arguments: dict[str, Any], writer: ScriptWriter) -> dict[str, Any]:
        """The arguments as the YAML flow writes them: without the target's id (it held on one screen only)."""
        return {key: value for key, value in arguments.items() if key != self.target_argument}
