"""The typed records of a run (GUIDE §2 "Trajectory"): a step as steps.jsonl holds it, run.json, and
one tolerant reader for both.

`StepRecord` is one line of steps.jsonl and also what the agent remembers of a step (the prompts
use `summary_line`); `RunRecord` is run.json, with the run's `RunResult` once it has finished.
Each writes itself with `to_dict` and is read back with `from_dict`, which accepts what an older
version or a damaged file holds: unknown keys are ignored, a missing or wrongly typed field gets
its default (a wrong item of a list is left out), and each such problem is described in words in
the record's `problems`. Fields that are simply absent because an older version did not write
them are not problems.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Sequence
from dataclasses import MISSING, Field, asdict, dataclass, field, fields, is_dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar, Union, get_args, get_origin, get_type_hints

from app.core.perception.controls import Control
from app.core.perception.locator import ControlSummary, TargetLocator, summarize_controls, target_locator
from app.core.redaction import PASSWORD_MASK

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

RunStatus = Literal["success", "failed", "timeout", "stopped", "interrupted"]
DecisionKind = Literal["approve", "edit", "override", "reject", "stop", "auto", "person", "take_over"]
"""… "person": the person's own action while they had taken the run over; "take_over": the agent's step set
aside because the person took the phone."""

RECORD_VERSION = 2
"""run.json's `version`: 1 had no step target, controls, activity or report; 2 has them."""

REQUIRED = {"required": True}
"""Field metadata: the field must be present (a record without it is listed as a problem)."""

RENAMED_STEP_KEYS = {"screen_fingerprint": "screen_signature"}
"""Step keys older versions wrote under another name (old → new)."""


class TolerantRecord:
    """A record dataclass written with `to_dict` (without its `problems`, which reading fills) and read back
    with `from_dict`, tolerantly (see the module's docstring); `RECORD_WHERE` names it in problems."""

    RECORD_WHERE: ClassVar[str] = "record"
    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]      # each subclass is a dataclass

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("problems", None)
        return data

    @classmethod
    def from_dict(cls, data: Any, where: str | None = None):
        return read_record(cls, data, where or cls.RECORD_WHERE)


def now_iso(timespec: str = "seconds") -> str:
    return datetime.now(UTC).astimezone().isoformat(timespec=timespec)


@dataclass
class Decision:
    """What the person (or the auto policy) decided about a proposed action."""

    kind: DecisionKind
    by: Literal["person", "auto", "program"] = "person"   # program: through the task API or MCP
    feedback: str = ""            # the reason given with a rejection
    answer: str = ""              # the answer to an ask_user question


@dataclass
class ActionOutcome:
    success: bool
    message: str
    duration_ms: float = 0.0


REPLY_OUTCOMES = ("accepted", "invalid", "cut_off", "refused", "error")
"""What became of one model reply: used, rejected by the checks, cut off by the output budget,
refused by the server as unsupported (an image, a parameter), or an HTTP/network failure."""

PROMPT_OF_STEP = "step"
"""`ModelReplyRecord.prompt` when the reply answered the step's own prompt (its `prompt_text`),
so a long prompt is stored once per step, not once per reply."""


@dataclass
class ModelReplyRecord:
    """One model call of a step, whatever became of it: kept so that nothing about a step is lost.

    `raw_text` is what the model answered (or the server's error text); it is left empty with
    `raw_text_in_step` set when it is the same text as the step's `raw_reply` (stored once).
    `correction` is what the app told the model before this try (the previous reply's problem).
    """

    attempt: int = 0
    outcome: str = ""                                         # one of REPLY_OUTCOMES
    problem: str = ""                                         # why it was not used, short
    raw_text: str = ""
    raw_text_in_step: bool = False
    prompt: str = PROMPT_OF_STEP
    correction: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    prompt_estimated: bool = False                            # no usage reported: the tokens are the client's estimate
    max_output_tokens: int = 0                                # the output budget the call was sent with
    finish_reason: str = ""                                   # stop, length, tool_calls… as the server said
    http_status: int | None = None                            # None: no answer (timeout, connection)
    duration_ms: float = 0.0


@dataclass
class StepRecord:
    """One step of a run, as kept for the prompts and written to steps.jsonl."""

    step: int
    request: str
    thought: str = ""
    comment: str = ""
    plan: list[str] = field(default_factory=list)
    action: dict[str, Any] = field(default_factory=dict)      # {"function", "arguments", "status"} as executed
    proposed_action: dict[str, Any] | None = None            # what the model proposed, when the person changed it
    action_text: str = ""                                     # the action in words
    status: str = "CONTINUE"
    decision: Decision | None = None
    result: ActionOutcome | None = None
    reflection: dict[str, Any] | None = None                 # success|failure|partial, confidence, reasoning
    screenshot: str = ""                                      # file names inside the run folder
    annotated_screenshot: str = ""
    foreground: str = ""                                      # the foreground app's package
    activity: str = ""                                        # its foreground activity, when known
    controls_count: int = 0
    screen_signature: str = ""                                # `screen_fingerprint` of the screen's controls
    screen_only: bool = False                                 # the controls could not be read this step
    images_withheld: str = ""                                 # why no screenshot went to the model (protected screen…)
    target: TargetLocator | None = None                       # the control the action acted on, to find it again
    controls: list[ControlSummary] = field(default_factory=list)   # the screen's controls, compact
    timings_ms: dict[str, float] = field(default_factory=dict)
    tokens: dict[str, int] = field(default_factory=dict)      # prompt, completion
    cost_usd: float = 0.0
    model_attempts: int = 0
    waiting_seconds: float = 0.0                              # time this step waited for the person (not the agent's)
    settle_ms: float = 0.0                                    # time waited for the screen to settle after the action
    error: str = ""
    prompt_text: str = ""                                     # the text part of the prompt (no images)
    raw_reply: str = ""
    model_replies: list[ModelReplyRecord] = field(default_factory=list)   # every model call of the step
    completion_check: dict[str, Any] | None = None            # after a FINISH: done, verified_by, reason
    timestamp: str = field(default_factory=now_iso)
    problems: list[str] = field(default_factory=list, compare=False, repr=False)   # from reading; never written

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        del data["problems"]
        data["controls"] = [control.to_dict() for control in self.controls]
        return data

    @classmethod
    def from_dict(cls, data: Any, where: str = "step record") -> StepRecord:
        """Read a step record, tolerantly (see the module's docstring); `where` starts each problem."""
        if isinstance(data, dict):
            renamed = {new: data[old] for old, new in RENAMED_STEP_KEYS.items() if old in data and new not in data}
            data = {**data, **renamed}
        return read_record(cls, data, where)

    def summary_line(self) -> str:
        """A compact line for the next prompts: what was done and how it went."""
        outcome = ""
        if self.result is not None:
            outcome = "ok" if self.result.success else f"failed: {self.result.message}"
        if self.reflection and self.reflection.get("verdict"):
            outcome += f"; screen check: {self.reflection['verdict']}"
        if self.decision and self.decision.kind in ("edit", "override"):
            outcome += f"; the person {'edited' if self.decision.kind == 'edit' else 'replaced'} the action"
        if self.decision and self.decision.kind == "take_over":
            outcome = "not done: the person took over the phone"
        by = " (by the person)" if self.decision and self.decision.kind == "person" else ""
        return f"step {self.step}{by}: {self.action_text or 'no action'}" + (f" → {outcome}" if outcome else "")

    def record_screen(self, controls: Sequence[Control], target: Control | None) -> None:
        """Keep the screen's controls (compact) and the target's locator with its nearby anchors,
        a password field's text masked in both."""
        self.controls = summarize_controls(controls)
        self.target = target_locator(target, controls) if target is not None else None

    def mask_text(self, secret: str, mask: str = PASSWORD_MASK) -> None:
        """Replace `secret` (text typed into a password field) wherever the record holds it."""
        if not secret:
            return
        for name in ("thought", "comment", "action_text", "error", "prompt_text", "raw_reply"):
            setattr(self, name, getattr(self, name).replace(secret, mask))
        for reply in self.model_replies:
            reply.raw_text = reply.raw_text.replace(secret, mask)
            reply.correction = reply.correction.replace(secret, mask)
        self.plan = [line.replace(secret, mask) for line in self.plan]
        self.action = _replace_in(self.action, secret, mask)
        self.proposed_action = _replace_in(self.proposed_action, secret, mask)
        self.reflection = _replace_in(self.reflection, secret, mask)


ESTIMATED_WORDS = " (partly estimated: the model server reported no usage)"
"""Said after a token count that holds the client's estimate (RunResult.tokens_estimated)."""


@dataclass
class RunResult:
    """Seed 004's result fields, plus where the run was recorded."""

    status: RunStatus
    steps_taken: int
    actions_executed: list[str]
    time_seconds: float
    error: str = ""
    completion_reason: str = ""
    run_dir: str = ""
    report_path: str = ""
    tokens: dict[str, int] = field(default_factory=dict)
    cost_usd: float = 0.0
    agent_seconds: float = 0.0          # the agent's own time: what the time limit counts
    waiting_seconds: float = 0.0        # time spent waiting for the person (reviews, answers, pauses)
    verification: str = ""              # a success: "screen" / "model" (verified by) or "claimed" (not verified)
    verification_note: str = ""         # what the completion check saw or was told
    output: Any = None                  # the answer to the task's output question (text or JSON data)
    output_error: str = ""              # why the output question has no answer
    tokens_estimated: bool = False      # some prompt tokens are the client's estimate (a server reported no usage)

    @property
    def succeeded(self) -> bool:
        return self.status == "success"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any, where: str = "run result") -> RunResult:
        return read_record(cls, data, where)


@dataclass
class RunRecord(TolerantRecord):
    """run.json: what was asked of which phone and model, when, and how it ended (read tolerantly)."""

    RECORD_WHERE: ClassVar[str] = "run.json"

    request: str = field(default="", metadata=REQUIRED)
    device: dict[str, Any] = field(default_factory=dict)
    model: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    started_at: str = field(default="", metadata=REQUIRED)
    finished_at: str = ""
    result: RunResult | None = None                          # None until the run has finished
    report: str = ""                                         # the report's file name inside the run folder
    version: int = field(default=0, metadata=REQUIRED)
    problems: list[str] = field(default_factory=list, compare=False, repr=False)   # from reading; never written


# ---------------------------------------------------------------- the tolerant reader

Record = TypeVar("Record", bound="DataclassInstance")
_BAD = object()


def read_record(cls: type[Record], data: Any, where: str) -> Record:
    """An instance of the dataclass `cls` from JSON data; its `problems` (if it has that field) list
    what was missing or wrong, each starting with `where`."""
    problems: list[str] = []
    if not isinstance(data, dict):
        problems.append(f"{where} is not a JSON object; it was read as empty")
        data = {}
    record = _read_fields(cls, data, "", where, problems)
    if "problems" in _hints(cls):
        record.problems = problems
    return record


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return get_type_hints(cls)


def _required(spec: Field) -> bool:
    return spec.metadata.get("required", False) or (spec.default is MISSING and spec.default_factory is MISSING)


def _default(spec: Field, hint: Any) -> Any:
    if spec.default is not MISSING:
        return spec.default
    if spec.default_factory is not MISSING:
        return spec.default_factory()
    return _zero(hint)


def _zero(hint: Any) -> Any:
    """The empty value of a type, for a required field that is missing or unreadable."""
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Union, types.UnionType):
        return None if type(None) in args else _zero(args[0])
    if origin is Literal:
        return type(args[0])() if args else None
    if origin in (list, dict):
        return origin()
    if hint in (str, int, float, bool, list, dict):
        return hint()
    return None


def _read_fields(cls: type, data: dict, prefix: str, where: str, problems: list[str]) -> Any:
    hints = _hints(cls)
    values = {}
    for spec in fields(cls):
        if not spec.init or spec.name == "problems":
            continue
        path, hint = prefix + spec.name, hints[spec.name]
        if spec.name not in data:
            if _required(spec):
                problems.append(f"{where} has no '{path}'")
                values[spec.name] = _zero(hint)
            continue
        value = _read(data[spec.name], hint, path, where, problems)
        if value is _BAD:
            value = _default(spec, hint)
            problems.append(f"{where}: '{path}' should be {_words(hint)} but is {_kind(data[spec.name])}; "
                            f"it was read as {value!r}")
        values[spec.name] = value
    return cls(**values)


def _read(value: Any, hint: Any, path: str, where: str, problems: list[str]) -> Any:
    """`value` as `hint` describes it, or _BAD; problems inside it (a bad list item…) are appended."""
    if hint is Any:
        return value
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        for option in (arg for arg in args if arg is not type(None)):
            inner: list[str] = []
            result = _read(value, option, path, where, inner)
            if result is not _BAD:
                problems += inner
                return result
        return _BAD
    if origin is Literal:
        if value in args:
            return value
        if isinstance(value, str) and all(isinstance(arg, str) for arg in args):
            problems.append(f"{where}: '{path}' has the unknown value {value!r}")
            return value
        return _BAD
    if origin is list or hint is list:
        if not isinstance(value, list):
            return _BAD
        item_hint = args[0] if args else Any
        items = []
        for index, item in enumerate(value):
            result = _read(item, item_hint, f"{path}[{index}]", where, problems)
            if result is _BAD:
                problems.append(f"{where}: '{path}[{index}]' should be {_words(item_hint)} but is {_kind(item)}; "
                                "it was left out")
            else:
                items.append(result)
        return items
    if origin is dict or hint is dict:
        if not isinstance(value, dict):
            return _BAD
        value_hint = args[1] if args else Any
        entries = {}
        for key, item in value.items():
            result = _read(item, value_hint, f"{path}.{key}", where, problems)
            if result is _BAD:
                problems.append(f"{where}: '{path}.{key}' should be {_words(value_hint)} but is {_kind(item)}; "
                                "it was left out")
            else:
                entries[key] = result
        return entries
    if isinstance(hint, type) and is_dataclass(hint):
        return _read_fields(hint, value, path + ".", where, problems) if isinstance(value, dict) else _BAD
    if hint is bool:
        return value if isinstance(value, bool) else _BAD
    if hint is int:
        return value if isinstance(value, int) and not isinstance(value, bool) else _BAD
    if hint is float:
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else _BAD
    if isinstance(hint, type):
        return value if isinstance(value, hint) else _BAD
    return value


def _words(hint: Any) -> str:
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Union, types.UnionType):
        return " or ".join(_words(arg) for arg in args)
    if origin is Literal:
        return "one of " + ", ".join(map(repr, args))
    if origin is list or hint is list:
        return "a list"
    if origin is dict or hint is dict or is_dataclass(hint):
        return "an object"
    return {str: "text", int: "a whole number", float: "a number", bool: "true or false",
            type(None): "null"}.get(hint, getattr(hint, "__name__", str(hint)))


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the text {value[:40]!r}"
    return {type(None): "null", list: "a list", dict: "an object"}.get(type(value), type(value).__name__)


def _replace_in(data: Any, secret: str, mask: str) -> Any:
    if isinstance(data, str):
        return data.replace(secret, mask)
    if isinstance(data, dict):
        return {key: _replace_in(value, secret, mask) for key, value in data.items()}
    if isinstance(data, list):
        return [_replace_in(value, secret, mask) for value in data]
    return data
