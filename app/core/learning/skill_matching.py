"""A skill's trigger and parameters, which skill answers a request, and how this phone differs.

A trigger is the recorded request with the values the steps used pulled out as placeholders:
"Turn on {item}". `{{` and `}}` stand for literal braces. Matching needs no model: first the
recorded request itself (compared normalised: case-folded, spaces collapsed, trailing
punctuation dropped), then the trigger, where each placeholder takes one or more words (as few
as will do) and the literal parts are compared the same way. Among several skills that match,
an exact match wins, then the one that failed less and succeeded more, then the newest.

`pull_parameters` makes a trigger from a recorded request and its steps; `differences` says in
words how the current phone differs from the one a skill was recorded on; `parse_text` and
`dump_text` are the YAML/JSON that skill files are written in.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import yaml

from app.core.agent.action_kinds import kind_of
from app.core.learning.recorded_steps import RecordedStep, ReplayScript, recorded_label
from app.core.redaction import PASSWORD_MASK

if TYPE_CHECKING:
    from app.core.learning.skills import Skill

PLACEHOLDER_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_TOKEN = re.compile(r"\{\{|\}\}|\{(" + PLACEHOLDER_NAME + r")\}|[{}]")
_TRAILING_PUNCTUATION = ".!?;:,…。！？"


class TriggerError(ValueError):
    """A trigger that cannot be read: a brace that is neither `{name}` nor `{{` / `}}`."""


def normalise_request(text: str) -> str:
    """A request as compared: case-folded, runs of spaces collapsed, trailing punctuation dropped."""
    return _tidy(text).casefold()


def _tidy(text: str) -> str:
    """Spaces collapsed and trailing punctuation dropped, case kept (values keep the person's spelling)."""
    return " ".join(text.split()).rstrip(_TRAILING_PUNCTUATION + " ")


def parse_trigger(trigger: str) -> list[tuple[str, str]]:
    """The trigger's pieces in order: ("text", literal) or ("name", placeholder name).

    Raises TriggerError for a stray brace, naming where it is."""
    pieces: list[tuple[str, str]] = []
    literal: list[str] = []
    position = 0
    for found in _TOKEN.finditer(trigger):
        literal.append(trigger[position:found.start()])
        position = found.end()
        token = found.group(0)
        if token in ("{{", "}}"):
            literal.append(token[0])
        elif found.group(1):
            if literal:
                pieces.append(("text", "".join(literal)))
                literal = []
            pieces.append(("name", found.group(1)))
        else:
            raise TriggerError(f"the {token!r} at character {found.start() + 1} is not a {{name}} placeholder "
                               "(names are letters, digits and _; write {{ or }} for a brace itself)")
    literal.append(trigger[position:])
    if "".join(literal):
        pieces.append(("text", "".join(literal)))
    return [(kind, value) for kind, value in pieces if value]


def trigger_names(trigger: str) -> list[str]:
    """The placeholder names of a trigger, each once, in order (raises TriggerError)."""
    names: list[str] = []
    for kind, value in parse_trigger(trigger):
        if kind == "name" and value not in names:
            names.append(value)
    return names


def trigger_problems(trigger: str, parameters: dict[str, str], where: str) -> list[str]:
    """What is wrong with a skill's trigger: a stray brace, or a placeholder with no parameter."""
    try:
        names = trigger_names(trigger)
    except TriggerError as exc:
        return [f"{where}: 'trigger' cannot be read: {exc}"]
    return [f"{where}: 'trigger' uses {{{name}}}, but 'parameters' has no '{name}'"
            for name in names if name not in parameters]


def escape_literal(text: str) -> str:
    """`text` as a trigger's literal part (braces doubled)."""
    return text.replace("{", "{{").replace("}", "}}")


def narrow_trigger(trigger: str, values: dict[str, str], keep: set[str]) -> str:
    """The trigger with only the placeholders named in `keep`; each other one written out as its value."""
    return "".join(escape_literal(value) if kind == "text" else
                   ("{" + value + "}" if value in keep else escape_literal(values.get(value, "")))
                   for kind, value in parse_trigger(trigger))


def fill_trigger(trigger: str, values: dict[str, str]) -> str:
    """The trigger with each placeholder replaced by its value (a missing one stays `{name}`)."""
    return "".join(value if kind == "text" else values.get(value, "{" + value + "}")
                   for kind, value in parse_trigger(trigger))


def trigger_pattern(trigger: str) -> re.Pattern[str]:
    """A regular expression matching a tidied request against the trigger (case-insensitive).

    Each placeholder takes one or more words, non-greedy; a placeholder used twice must take the
    same words both times. Raises TriggerError."""
    parts: list[str] = []
    seen: set[str] = set()
    pieces = parse_trigger(_tidy(trigger))      # literal parts tidied as requests are
    for kind, value in pieces:
        if kind == "name":
            parts.append(f"(?P={value})" if value in seen else rf"(?P<{value}>\S+?(?:\s+\S+?)*?)")
            seen.add(value)
        else:
            parts.append("".join(r"\s+" if chunk.isspace() else re.escape(chunk)
                                 for chunk in re.split(r"(\s+)", value) if chunk))
    return re.compile("".join(parts), re.IGNORECASE)


def match_trigger(trigger: str, request: str) -> dict[str, str] | None:
    """The placeholder values when `request` matches `trigger`, else None (also for a broken trigger)."""
    try:
        pattern = trigger_pattern(trigger)
    except (TriggerError, re.error):
        return None
    found = pattern.fullmatch(_tidy(request))
    return {name: value for name, value in found.groupdict().items()} if found is not None else None


@dataclass
class SkillMatch:
    """A skill that answers a request, and the values to run it with."""

    skill: Skill
    values: dict[str, str] = field(default_factory=dict)
    exact: bool = False          # the request is the recorded one (values are the recorded ones)


def match_request(request: str, skills: Iterable[Skill]) -> SkillMatch | None:
    """The best enabled skill for `request`, or None (see the module's docstring for the order)."""
    wanted = normalise_request(request)
    if not wanted:
        return None
    matches: list[SkillMatch] = []
    for skill in skills:
        if not skill.enabled:
            continue
        if skill.request and normalise_request(skill.request) == wanted:
            matches.append(SkillMatch(skill, dict(skill.parameters), exact=True))
            continue
        values = match_trigger(skill.trigger, request) if skill.trigger else None
        if values is not None:
            matches.append(SkillMatch(skill, values, exact=False))
    if not matches:
        return None
    return min(matches, key=lambda match: (not match.exact, match.skill.history.failures,
                                           -match.skill.history.successes, -_timestamp(match.skill.created_at)))


def _timestamp(text: str) -> float:
    """Seconds since the epoch of an ISO time, 0 when it is missing or unreadable."""
    try:
        return datetime.fromisoformat(text).timestamp()
    except (TypeError, ValueError, OverflowError, OSError):
        return 0.0


# ---------------------------------------------------------------- pulling parameters out of a request

def mask_password(step: RecordedStep) -> None:
    """Keep no password: text typed into (or shown by) a password field becomes PASSWORD_MASK."""
    target = step.target
    if target is None or not target.password:
        return
    if step.function == "type_text" and step.arguments.get("text"):
        step.arguments["text"] = PASSWORD_MASK
    if target.text:
        target.text = PASSWORD_MASK


def _role(resource_id: str) -> str:
    """A parameter name from a resource-id's tail ("com.x:id/wifi_switch" → "wifi_switch"), or "item"."""
    tail = resource_id.rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    slug = re.sub(r"[^a-z0-9]+", "_", tail.lower()).strip("_")
    return slug if slug and re.fullmatch(PLACEHOLDER_NAME, slug) else "item"


def _values_used(steps: list[RecordedStep]) -> list[tuple[str, str]]:
    """(role, value) of every value the steps used, in step order; never a password or a mask."""
    found: list[tuple[str, object]] = []          # a typed text may be anything in a hand-written file
    for step in steps:
        target = step.target
        if target is not None and target.password:
            continue
        if step.function == "type_text":
            found.append(("text", step.arguments.get("text")))
        elif (kind := kind_of(step.function)) is not None and kind.target_label_may_vary and target is not None:
            # only what `ReplayScript.with_parameters` can put a new value in: the words the control was
            # recorded by, never words inside a longer name ("Network & internet, Mobile, Wi‑Fi, hotspot")
            found.append((_role(target.resource_id), recorded_label(target)))
    return [(role, value) for role, value in found
            if isinstance(value, str) and value.strip() and PASSWORD_MASK not in value]


_DASH = re.compile("\\\\?[-\u2010\u2011\u2012\u2013\u2014\u2212]")
_ANY_DASH = "[-\u2010\u2011\u2012\u2013\u2014\u2212]"
"""Screens write "Wi‑Fi" with a non-breaking hyphen where people type "Wi-Fi": any dash matches any dash."""


def pull_parameters(request: str, steps: list[RecordedStep]) -> tuple[str, dict[str, str]]:
    """The trigger (request with placeholders) and the parameters' recorded values."""
    used = _values_used(steps)
    taken: list[tuple[int, int]] = []
    claimed: dict[int, list[tuple[int, int]]] = {}
    seen: set[str] = set()
    for index in sorted(range(len(used)), key=lambda i: -len(used[i][1].strip())):   # longest first: no part-claims
        value = used[index][1].strip()
        if value.casefold() in seen:
            continue
        pattern = re.compile(r"(?<!\w)" + _DASH.sub(_ANY_DASH, re.escape(value)) + r"(?!\w)", re.IGNORECASE)
        spans = [hit.span() for hit in pattern.finditer(request)
                 if not any(hit.start() < end and start < hit.end() for start, end in taken)]
        if spans:
            seen.add(value.casefold())
            claimed[index] = spans
            taken += spans
    parameters: dict[str, str] = {}
    names: dict[tuple[int, int], str] = {}
    for index in sorted(claimed):                        # names in step order
        role, value = used[index]
        name = next(candidate for number in itertools.count(1)
                    if (candidate := role if number == 1 else f"{role}_{number}") not in parameters)
        parameters[name] = value
        names.update({span: name for span in claimed[index]})
    pieces, position = [], 0
    for (start, end), name in sorted(names.items()):
        pieces += [escape_literal(request[position:start]), "{" + name + "}"]
        position = end
    pieces.append(escape_literal(request[position:]))
    return "".join(pieces), parameters


# ---------------------------------------------------------------- where a skill was recorded, and this phone

_FACT_KEYS = {"model": ("model",), "android": ("android", "android_version", "release"),
              "screen": ("screen_size", "screen size", "screen", "display_size", "size"),
              "apps": ("app_versions", "apps")}


def _facts(phone: dict[str, Any]) -> dict[str, Any]:
    """A phone's model, Android version, screen size (w, h) and app versions, from whichever keys it has."""
    facts: dict[str, Any] = {}
    for fact, keys in _FACT_KEYS.items():
        value = next((phone[key] for key in keys if phone.get(key) not in (None, "", [], {})), None)
        if fact in ("model", "android") and isinstance(value, (str, int, float)) and not isinstance(value, bool):
            facts[fact] = str(value).strip()
        elif fact == "screen":
            facts[fact] = _screen_size(value)
        elif fact == "apps" and isinstance(value, dict):
            facts[fact] = {str(package): str(version) for package, version in value.items()}
    return facts


def _screen_size(value: Any) -> tuple[int, int] | None:
    if isinstance(value, dict):
        value = (value.get("width"), value.get("height"))
    elif isinstance(value, str):
        value = re.findall(r"\d+", value)
    try:
        width, height = (int(part) for part in value)
    except (TypeError, ValueError):
        return None
    return (width, height) if width > 0 and height > 0 else None


def differences(skill: Skill | ReplayScript, phone: dict[str, Any]) -> list[str]:
    """Plain sentences saying how `phone` differs from where the skill was recorded (model, Android
    version, screen size, app versions). Only what both sides know is compared; the skill stays usable."""
    recorded, current = _facts(skill.recorded_on), _facts(phone)
    sentences = []
    if any(fact in recorded and fact in current and recorded[fact].casefold() != current[fact].casefold()
           for fact in ("model", "android")):
        sentences.append(f"recorded on {_describe(recorded)}, this is {_describe(current)}")
    then, now = recorded.get("screen"), current.get("screen")
    if then and now and sorted(then) != sorted(now):          # the same screen turned is not a difference
        sentences.append(f"recorded on a {then[0]}×{then[1]} screen, this one is {now[0]}×{now[1]}")
    for package in sorted(set(recorded.get("apps", {})) & set(current.get("apps", {}))):
        old, new = recorded["apps"][package], current["apps"][package]
        if old != new:
            sentences.append(f"{package} was version {old} when recorded, this phone has {new}")
    return sentences


def _describe(facts: dict[str, Any]) -> str:
    android = f" (Android {facts['android']})" if facts.get("android") else ""
    return (facts.get("model") or "a phone of unknown model") + android


# ---------------------------------------------------------------- the files' formats

class _Loader(yaml.SafeLoader):
    """Safe YAML without aliases (a skill file never needs them; they could blow up in size) and
    without implicit timestamps (times stay text, as they were written)."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            raise yaml.YAMLError(f"line {mark.line + 1}, column {mark.column + 1}: "
                                 "aliases (*name) are not allowed in a skill file")
        return super().compose_node(parent, index)


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rule) for tag, rule in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}


class _Dumper(yaml.SafeDumper):
    """Block style, except a list of plain values (bounds, a node path) on one line; no aliases."""

    def ignore_aliases(self, data: Any) -> bool:
        return True

    def represent_list(self, data: Any) -> Any:
        flow = bool(data) and all(isinstance(item, (int, float)) and not isinstance(item, bool) for item in data)
        return self.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow or None)


_Dumper.add_representer(list, _Dumper.represent_list)


def parse_text(text: str, fmt: str) -> Any:
    """The data of a "yaml" or "json" text; ValueError says why it is not valid (with line and column)."""
    try:
        return json.loads(text) if fmt == "json" else yaml.load(text, Loader=_Loader)
    except json.JSONDecodeError as exc:
        raise ValueError(f"is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except yaml.YAMLError as exc:
        mark, problem = getattr(exc, "problem_mark", None), getattr(exc, "problem", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: {problem}" if mark is not None and problem \
            else " ".join(str(exc).split())
        raise ValueError(f"is not valid YAML ({where})") from None
    except RecursionError:
        raise ValueError("is nested too deeply to be a skill") from None


def dump_text(data: Any, fmt: str) -> str:
    """`data` as "json" or block-style "yaml" text, keys in their order, no aliases."""
    if fmt == "json":
        return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False, width=100)
