"""A recorded run or a skill as a script people already use: Python with uiautomator2, or a plain YAML flow.

Both exports read a `ReplayScript` and find each control again by what was recorded about it
(resource-id, text, content-desc, class, locator), never by its old numeric id, and fall back to
the recorded coordinates only when nothing else identifies the target. A password typed into a
field is never written out: the records hold PASSWORD_MASK instead, and the Python script reads
the password from an environment variable or asks for it (getpass) when it runs.

A step that cannot be exported (an unknown function, arguments that do not fit it, a target with
nothing left to find it by) is not dropped: the Python script fails there with a sentence that
says why, and the YAML flow keeps the step with a `problem` key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from app.core.agent.action_kinds import ActionKind, kind_of
from app.core.agent.action_kinds.base import CannotExport
from app.core.agent.action_kinds.press_key import U2_KEY_NAMES
from app.core.agent.action_kinds.scroll import SCROLL_SCALE, SCROLL_SWIPES
from app.core.agent.actions import Action, describe_action
from app.core.learning.recorded_steps import OLD_CONTROL_NUMBER, RecordedStep, ReplayScript
from app.core.perception.locator import LOCATOR_TEXT_LIMIT, TargetLocator, xpath_literal
from app.core.redaction import PASSWORD_MASK, redact

FORMATS = ("uiautomator2", "python", "yaml")
"""What `export_script` knows: "uiautomator2" and "python" are the same Python script."""

WAIT_SECONDS = 10
"""How long the exported script waits for each control before it gives up."""

SECRET_ENV_PREFIX = "AGENTDESK_PASSWORD_"
"""Environment variables the exported script reads passwords from: AGENTDESK_PASSWORD_1, _2…"""


@dataclass
class Locator:
    """How the exported script finds one target, and why that way (said in a comment)."""

    kind: str                                             # "selector", "xpath", "point" or "none"
    why: str
    selector: dict[str, str] = field(default_factory=dict)   # uiautomator2 selector keywords
    xpath: str = ""
    bounds: tuple[int, int, int, int] | None = None

    @property
    def point(self) -> tuple[int, int]:
        left, top, right, bottom = self.bounds or (0, 0, 0, 0)
        return (left + right) // 2, (top + bottom) // 2


__all__ = ["FORMATS", "SCROLL_SCALE", "SCROLL_SWIPES", "U2_KEY_NAMES", "choose_locator", "export_script",
           "to_uiautomator2", "to_yaml_flow", "u2_xpath"]


# ------------------------------------------------------------------------------------ locators


def _usable_text(target: TargetLocator) -> str:
    """The target's text when it may name it in a selector: never a password's (masked) text."""
    text = target.text
    if not text or target.password or PASSWORD_MASK in text or len(text) > LOCATOR_TEXT_LIMIT:
        return ""
    return text


def _bounds(target: TargetLocator) -> tuple[int, int, int, int] | None:
    values = target.bounds
    if len(values) != 4 or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return None
    left, top, right, bottom = (int(v) for v in values)
    return (left, top, right, bottom) if right > left and bottom > top else None


def u2_xpath(xpath: str) -> str:
    """A recorded locator as uiautomator2's xpath reads it: u2 renames each `<node>` to its class,
    so an index path's `node[i]` steps become `*[i]` (the dump's children are all nodes)."""
    if xpath.startswith("/hierarchy"):
        return re.sub(r"/node\[", "/*[", xpath)
    return xpath


def choose_locator(target: TargetLocator | None) -> Locator:
    """The most specific way the record justifies to find `target` again, first that applies:

    1. resourceId alone, when the recorded xpath says it was unique on the screen;
    2. resourceId with the text (or with the content-desc) when the id was shared;
    3. the text, then the content-desc (with the class when the xpath does not say it was unique);
    4. the title text inside a row that has none of its own ("Wi‑Fi" of "Wi‑Fi, Off");
    4b. the recorded xpath (an index path, made u2's), when no attribute names the control;
    5. the class name alone (the first such control) when there is not even an xpath;
    6. the centre of the recorded bounds; 7. nothing ("none": the step cannot be done again).
    """
    if target is None:
        return Locator("none", "the recording kept no locator for this control")
    rid, text, desc, cls, xpath = (target.resource_id, _usable_text(target), target.content_desc,
                                   target.class_name, target.xpath)
    desc = desc if len(desc) <= LOCATOR_TEXT_LIMIT else ""
    if rid and xpath == f"//*[@resource-id={xpath_literal(rid)}]":
        return Locator("selector", "its resource-id was unique on the recorded screen", {"resourceId": rid})
    if rid and text:
        return Locator("selector", "its resource-id was shared: with its text", {"resourceId": rid, "text": text})
    if rid and desc:
        return Locator("selector", "its resource-id was shared: with its description",
                       {"resourceId": rid, "description": desc})
    for key, value, attribute in (("text", text, "text"), ("description", desc, "content-desc")):
        if not value:
            continue
        selector = {key: value}
        if xpath == f"//*[@{attribute}={xpath_literal(value)}]":
            return Locator("selector", f"its {attribute} was unique on the recorded screen", selector)
        if cls:
            selector["className"] = cls
        return Locator("selector", f"by its {attribute}" + (" and class" if cls else ""), selector)
    row_label = target.name.split(",", 1)[0].strip()
    if row_label and PASSWORD_MASK not in row_label and not target.password and len(row_label) <= LOCATOR_TEXT_LIMIT:
        # a row without text of its own is named by the texts inside it ("Wi‑Fi, Off"): tapping its title
        # text taps the row, and survives a reordered list, where an index path would not
        return Locator("selector", "by the title text inside it (the row has no text or id of its own)",
                       {"text": row_label})
    if xpath:
        return Locator("xpath", "no unique attribute: its place in the recorded screen's tree",
                       xpath=u2_xpath(xpath))
    if cls or rid:
        selector = {"resourceId": rid} if rid else {}
        if cls:
            selector["className"] = cls
        return Locator("selector", "only its class is known: the first such control", selector)
    bounds = _bounds(target)
    if bounds is not None:
        return Locator("point", "nothing else identifies this control: its recorded coordinates", bounds=bounds)
    return Locator("none", "the recorded locator holds nothing to find the control by")


def _what(step: RecordedStep) -> str:
    """The target in words for the script's messages, never a password."""
    target = step.target
    name = ""
    if target is not None:
        name = target.name or _usable_text(target) or target.content_desc or target.resource_id
    name = name or str(step.arguments.get("control_name") or "")
    if target is not None and target.password and (not name or PASSWORD_MASK in name):
        return "the password field"
    name = name.replace(PASSWORD_MASK, "(password)")
    return f"the control “{name}”" if name else "the control"


def _described(step: RecordedStep) -> str:
    """The step in words (its recorded action_text, else the app's own description), without old control ids."""
    text = step.action_text
    if not text:
        try:
            text = describe_action(Action.model_validate(step.action))
        except ValueError:          # pydantic's ValidationError is one: an action the app would not take
            text = step.function or "(no action)"
    return OLD_CONTROL_NUMBER.sub("", text).replace(PASSWORD_MASK, "(password)")


def _kind(step: RecordedStep) -> ActionKind[Any]:
    kind = kind_of(step.function)
    if kind is None:
        raise CannotExport(f"the recorded function {step.function or '(none)'!r} is not one the app knows")
    return kind


def _checked_arguments(step: RecordedStep) -> Any:
    """The step's arguments as the typed model of its function; CannotExport saying what is wrong."""
    kind = _kind(step)
    try:
        return kind.parse(step.arguments)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
                             for e in exc.errors())
        raise CannotExport(f"its arguments do not fit {step.function}: {problems}") from None


class _Writer:
    """What an action kind's export asks about one recorded step (`ScriptWriter`): how its target is found
    again, and the passwords the script reads when it runs (their environment variables, in `secrets`)."""

    def __init__(self, step: RecordedStep, locator: Locator | None, secrets: list[str]) -> None:
        self.step, self.locator, self.secrets = step, locator, secrets

    def has_target(self) -> bool:
        return self.locator is not None

    def found(self) -> str:
        if self.locator is None:                # a kind with a target asked for it on a step that names none
            raise CannotExport(f"{_what(self.step)} names no control to find again")
        return _find(self.locator, self.step)

    def found_at(self) -> tuple[int, int] | None:
        return self.locator.point if self.locator is not None and self.locator.kind == "point" else None

    def found_box(self) -> tuple[int, int, int, int] | None:
        return self.locator.bounds if self.locator is not None and self.locator.kind == "point" else None

    def typed_value(self, text: str) -> str:
        if not _is_secret(self.step, text):
            return repr(text)
        self.secrets.append(f"{SECRET_ENV_PREFIX}{len(self.secrets) + 1}")
        return f"secret({self.secrets[-1]!r}, {f'Password to type at step {self.step.step}: '!r})"

    def secret_env(self, text: str) -> str | None:
        if not _is_secret(self.step, text):
            return None
        self.secrets.append(f"{SECRET_ENV_PREFIX}{len(self.secrets) + 1}")
        return self.secrets[-1]


# ------------------------------------------------------------------------------------ Python


def _comment(text: str) -> str:
    """`text` fit for one comment line: line breaks joined, unprintable characters escaped."""
    text = " ".join(str(text).splitlines()).replace(PASSWORD_MASK, "(password)")
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def _is_secret(step: RecordedStep, text: str) -> bool:
    return PASSWORD_MASK in text or bool(step.target is not None and step.target.password)


def _find(locator: Locator, step: RecordedStep) -> str:
    """The expression that waits for the target and returns it (raising StepFailed when it is missing)."""
    if locator.kind == "selector":
        keywords = ", ".join(f"{key}={value!r}" for key, value in locator.selector.items())
        found = f"d({keywords})"
    else:
        found = f"d.xpath({locator.xpath!r})"
    return f"find({found}, {_what(step)!r}, {step.step})"


def _python_step(step: RecordedStep, secrets: list[str]) -> list[str]:
    """The lines of `main()` for one step (without the leading comment): the action kind's export."""
    kind = _kind(step)
    args = _checked_arguments(step)
    locator = choose_locator(step.target) if step.needs_target else None
    lines: list[str] = []
    if locator is not None:
        if locator.kind == "none":
            raise CannotExport(f"{_what(step)} cannot be found again: {locator.why}")
        lines.append(f"# found {'at' if locator.kind == 'point' else 'by'}: {locator.why}")
    return lines + kind.export_python(args, _Writer(step, locator, secrets))


_PYTHON_HELPERS = f'''
WAIT_SECONDS = {WAIT_SECONDS}


class StepFailed(RuntimeError):
    """The phone does not show what the recording saw, or a step could not be exported."""


def find(selector, what, step):
    """`selector` once its control is on the screen; StepFailed when it does not come."""
    if not selector.wait(timeout=WAIT_SECONDS):
        raise StepFailed(f"step {{step}}: {{what}} did not appear within {{WAIT_SECONDS}} s")
    return selector


def area(found):
    """The found control's rectangle (left, top, right, bottom), to scroll inside it."""
    bounds = found.info["bounds"]
    return (bounds["left"], bounds["top"], bounds["right"], bounds["bottom"])


def secret(name, prompt):
    """A password: from the environment variable `name`, else asked without echo."""
    return os.environ.get(name) or getpass.getpass(prompt)


def cannot(step, why):
    raise StepFailed(f"step {{step}} could not be exported: {{why}}")
'''


def _header(script: ReplayScript, what: str) -> list[str]:
    """Comment lines saying what was recorded, when and on which phone."""
    phone = ", ".join(f"{key}: {value}" for key, value in script.recorded_on.items() if value not in ("", None))
    when = next((str(script.recorded_on[key]) for key in ("started_at", "recorded_at", "date")
                 if script.recorded_on.get(key)), "")
    lines = [f"{what} exported by Agent Desk.", f"Request: {script.request or '(none)'}",
             f"Recorded from: {script.source or '(unknown)'}", f"Recorded on: {phone or 'an unknown phone'}",
             f"When: {when or 'not recorded'}", f"The recorded run ended: {script.ended or 'unknown'}"]
    if script.finish_comment:
        lines.append(f"It said: {script.finish_comment}")
    lines += [f"Could not be read from the run: {problem}" for problem in script.problems]
    return [f"# {_comment(line)}" for line in lines]


def to_uiautomator2(script: ReplayScript, serial: str = "") -> str:
    """The script's steps as a runnable Python program driving the phone with uiautomator2.

    `serial` names the phone to connect to (none: uiautomator2's default, ANDROID_SERIAL or the only
    phone). Each targeted step waits up to WAIT_SECONDS for its control and stops with a clear
    message when it does not come."""
    if not isinstance(script, ReplayScript):
        raise TypeError(f"to_uiautomator2 needs a ReplayScript, not {type(script).__name__}")
    secrets: list[str] = []
    body: list[str] = []
    for step in script.steps:
        body.append(f"# step {step.step}: {_comment(_described(step))}")
        if step.screen.package or step.screen.activity:
            body.append(f"# on: {_comment('/'.join(p for p in (step.screen.package, step.screen.activity) if p))}")
        try:
            body += _python_step(step, secrets)
        except CannotExport as exc:
            body.append(f"cannot({step.step}, {str(exc).replace(PASSWORD_MASK, '(password)')!r})")
        body.append("")
    lines = ["#!/usr/bin/env python3", *_header(script, "A recorded phone run")]
    lines.append("# Needs: pip install uiautomator2, and the phone connected over ADB.")
    if secrets:
        lines.append(f"# Passwords are read from {', '.join(secrets)} (or asked for when unset).")
    lines += ["", "import getpass", "import os", "import sys", "import time", "", "import uiautomator2 as u2",
              *_PYTHON_HELPERS.splitlines(), "", "",
              "def main():", f"    d = u2.connect({serial!r})" if serial else "    d = u2.connect()"]
    lines += [f"    {line}" if line else "" for line in body[:-1]]
    if not script.steps:
        lines.append("    pass   # the recording holds no step to do again")
    lines += ["", "", 'if __name__ == "__main__":', "    try:", "        main()", "    except StepFailed as exc:",
              "        sys.exit(str(exc))", ""]
    return "\n".join(lines)


# ------------------------------------------------------------------------------------ YAML


def _plain(value: Any) -> Any:
    """`value` as data yaml.safe_dump writes (dicts, lists, strings, numbers, booleans, None)."""
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def _yaml_target(target: TargetLocator | None) -> dict[str, Any]:
    """The target's recorded locators (only the non-empty ones); its bounds only when nothing else is known."""
    if target is None:
        return {}
    named = {"resource_id": target.resource_id, "text": _usable_text(target), "content_desc": target.content_desc,
             "class": target.class_name, "xpath": target.xpath}
    found: dict[str, str | list[int]] = {key: value for key, value in named.items() if value}
    if not found and (bounds := _bounds(target)) is not None:
        found["bounds"] = list(bounds)
    return found


def _yaml_step(step: RecordedStep, secrets: list[str]) -> dict[str, Any]:
    entry: dict[str, Any] = {"step": step.step, "action": step.function or "(none)", "note": _described(step)}
    arguments = {key: _plain(value) for key, value in step.arguments.items()}
    kind = kind_of(step.function)
    if kind is not None:
        before = len(secrets)
        arguments = kind.export_yaml(arguments, _Writer(step, None, secrets))
        if len(secrets) > before:
            entry["secret_env"] = secrets[-1]
    else:
        arguments.pop("control_id", None)
    if arguments:
        entry["arguments"] = arguments
    target = _yaml_target(step.target) if step.needs_target else {}
    if target:
        entry["target"] = target
    try:
        _checked_arguments(step)
        if step.needs_target and not target:
            raise CannotExport(f"{_what(step)} cannot be found again: {choose_locator(step.target).why}")
    except CannotExport as exc:
        entry["problem"] = str(exc).replace(PASSWORD_MASK, "(password)")
    expect = {key: value for key, value in (("package", step.screen.package), ("activity", step.screen.activity))
              if value}
    if expect:
        entry["expect"] = expect
    return entry


def to_yaml_flow(script: ReplayScript) -> str:
    """The script as a plain YAML document (loads back with yaml.safe_load): what was recorded, then
    `steps:` each with its action, arguments (no old control ids), target locators and expected screen."""
    if not isinstance(script, ReplayScript):
        raise TypeError(f"to_yaml_flow needs a ReplayScript, not {type(script).__name__}")
    secrets: list[str] = []
    steps = [_yaml_step(step, secrets) for step in script.steps]
    name = Path(script.source).name if script.source else ""
    document: dict[str, Any] = {"name": name or script.request, "request": script.request}
    if script.source:
        document["source"] = script.source
    document["recorded_on"] = _plain(dict(script.recorded_on))
    if script.ended:
        document["ended"] = script.ended
    if script.finish_comment:
        document["finish_comment"] = script.finish_comment
    if script.problems:
        document["problems"] = list(script.problems)
    if secrets:
        document["secrets"] = {"from_environment": secrets,
                               "why": "passwords are never recorded; each is read when the flow runs"}
    document["steps"] = steps
    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True, default_flow_style=False, width=100)


def export_script(script: ReplayScript, fmt: str, *, serial: str = "") -> str:
    """The script exported as `fmt`: "uiautomator2" or "python" (the same Python program) or "yaml".

    Raises ValueError naming the known formats for anything else."""
    key = fmt.strip().lower() if isinstance(fmt, str) else ""
    if key in ("uiautomator2", "python"):
        return redact(to_uiautomator2(script, serial))      # the one redactor: a script is shared like a file
    if key == "yaml":
        return redact(to_yaml_flow(script))
    raise ValueError(f"unknown export format {fmt!r}: use one of {', '.join(FORMATS)}")
