"""What the model is told: the system message, one user message per step, retry and reflection prompts.

The wording lives in `app/resources/prompts/*.txt` (sections marked `## name`, filled with
`string.Template`); this module decides what goes in. The function list is generated
from the registry of action kinds (`action_kinds`: names, argument models, hints), so the prompt
cannot drift from what validation accepts.

The images are those the step made (`images.send`; with "auto", the default, `image_choice` decides:
the annotated one, and the clean one too when the ids hide what matters or the model asked), each
sent with the `detail` of the provider's preset. With `images.send = "none"`, or when the step has
no images (the client found the model reads text only), no image part is sent and the message says
the controls list is all the model gets; `without_images` turns a message built with images into
that text-only form.

Everything here is sent with every request, so it is kept short (GUIDE §5: 1,500 tokens on a dense
screen with the system message and the reply tool; `agentdesk bench agent` measures it).

Screen text is untrusted (GUIDE §6): controls go inside `<screen_controls untrusted="true">`,
and anything that could close that block early is neutralised. Control centres are given
in the model's coordinates (`CoordinateMapper`), the same ones it must answer in.
"""

from __future__ import annotations

import json
import re
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from importlib.resources import files
from string import Template
from typing import Any, Literal, get_args, get_origin

from app.core.agent.action_kinds import kind_of
from app.core.agent.actions import ARGUMENT_MODELS, FUNCTION_NAMES, GO_TO_SCREEN, NO_ACTION, USE_SKILL, Status
from app.core.agent.coordinates import CoordinateMapper
from app.core.agent.memory import MemoryItem
from app.core.config import Settings
from app.core.device.app_catalog import WELL_KNOWN_LABELS
from app.core.perception.controls import PROMPT_FLAGS, Control
from app.core.perception.protected_screen import hide_password
from app.core.providers import image_detail_for

REPLY_TOOL_NAME = "act"
APPS_CHAR_LIMIT = 400
STEP_LINE_LIMIT = 120
PLAN_LINE_LIMIT = 100
PLAN_STEPS_SHOWN = 5
_BLOCK_TAG = re.compile(r"<\s*/?\s*screen_controls\b[^>]*>?", re.IGNORECASE)
_TYPE_NAMES = {int: "int", float: "number", str: "str", bool: "bool"}
_NUMBER_TYPES = {"int", "number", "int|number", "number|int"}


@dataclass
class ScreenContext:
    """One screen as the prompt shows it. `image_urls` ("annotated"/"clean") are data URLs of the
    already downscaled images; `image_size` is their size in pixels, `screen_size` the device's."""

    controls: list[Control]
    screen_size: tuple[int, int]
    image_size: tuple[int, int]
    foreground_package: str = ""
    installed_apps: list[str] = field(default_factory=list)
    image_urls: dict[str, str] = field(default_factory=dict)
    screen_only: bool = False
SKILLS_SHOWN = 20
"""Skills listed in a step's prompt at most (the planner offers the most used ones first)."""


class PromptBuilder:
    """Builds the chat messages for `settings` (coordinate mode, images to send, steps to recall)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.offered_functions: tuple[str, ...] = ()     # use_skill / go_to_screen, once a system message offers them
        self.detail = image_detail_for(settings.provider)   # each image's `detail` ("" = none sent)

    def system_message(self, offer_skills: bool = False, offer_screens: bool = False) -> dict[str, Any]:
        sections = _sections("system.txt")
        self.offered_functions = (*((USE_SKILL,) if offer_skills else ()), *((GO_TO_SCREEN,) if offer_screens else ()))
        names = (*FUNCTION_NAMES, *self.offered_functions)
        functions = "\n".join(f"- {function_signature(name)}" + (f" — {hint}" if (hint := _hint(name)) else "")
                              for name in names)
        coordinates = sections[f"coordinates_{self.settings.provider.coordinate_mode}"].template.strip()
        text = sections["main"].substitute(functions=functions, coordinates=coordinates)
        return {"role": "system", "content": text.strip()}

    def user_message(self, request: str, screen: ScreenContext, memory_items: Sequence[MemoryItem] = (),
                     plan: Sequence[str] = (), feedback: str | None = None, reflection_note: str | None = None,
                     user_answers: Mapping[str, str] | Iterable[tuple[str, str]] = (),
                     stuck_warning: str | None = None, skills: Mapping[str, str] | None = None,
                     map_note: str = "") -> dict[str, Any]:
        """The step's message: the image(s), then one text part with everything the model needs."""
        sections = _sections("user.txt")
        texts: list[str] = []

        def add(name: str, **values: str) -> None:
            texts.append(sections[name].substitute(values).strip())

        image_parts, image_kinds = self._image_parts(screen.image_urls or {})
        if image_parts:
            width, height = screen.image_size
            add(f"images_{image_kinds}", width=str(width), height=str(height))
        elif not screen.screen_only:
            add("images_none")
        add("request", request=request.strip())
        if screen.foreground_package:
            add("foreground", package=_neutralise(screen.foreground_package))
        if screen.installed_apps:
            add("apps", apps=compact_app_list(screen.installed_apps, request))
        if skills:
            add("skills", skills="\n".join(f"- {_neutralise(name)}" + (f" (fits: {_neutralise(trigger)})"
                                                                        if trigger and trigger != name else "")
                                            for name, trigger in list(skills.items())[:SKILLS_SHOWN]))
        if map_note:
            add("map", map=_neutralise(map_note.strip()))
        if plan:
            add("plan", plan="\n".join(f"{number}. {_clip(step, PLAN_LINE_LIMIT)}"
                                       for number, step in enumerate(plan[:PLAN_STEPS_SHOWN], 1)))
        recent = self._recent(memory_items)
        if recent:
            add("recent_steps", steps="\n".join(_clip(_neutralise(item.summary_line()), STEP_LINE_LIMIT)
                                                for item in recent))
        if reflection_note:
            add("reflection", note=_neutralise(reflection_note))
        if feedback:
            add("feedback", feedback=feedback.strip())
        answers = list(user_answers.items() if isinstance(user_answers, Mapping) else user_answers)
        if answers:
            add("answers", answers="\n".join(f"Q: {question}\nA: {answer}" for question, answer in answers))
        if stuck_warning:
            add("stuck", warning=stuck_warning.strip())
        if screen.screen_only:
            add("screen_only" if image_parts else "screen_only_text")
        else:
            mapper = CoordinateMapper(screen.screen_size, screen.image_size, self.settings.provider.coordinate_mode)
            add("controls", controls=control_lines(screen.controls or [], mapper) or "(no controls were found)",
                flags=PROMPT_FLAGS)
        add("next")
        return {"role": "user", "content": [*image_parts, {"type": "text", "text": "\n".join(texts)}]}

    def without_images(self, messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """The messages as a text-only model gets them: image parts left out, and a step message's
        description of its images replaced by the text-only note (the client calls this when the
        server refuses images)."""
        sections = _sections("user.txt")
        note = sections["images_none"].template.strip()
        only_text = sections["screen_only_text"].template.strip()
        seeing_only = sections["screen_only"].template.strip()
        rewritten = []
        for message in messages:
            content = message.get("content")
            if isinstance(content, list):
                parts = []
                for part in content:
                    if part.get("type") == "image_url":
                        continue
                    if part.get("type") == "text":
                        text = _image_description().sub(note, part.get("text", ""), count=1)
                        part = {**part, "text": text.replace(seeing_only, only_text)}
                    parts.append(part)
                message = {**message, "content": parts}
            rewritten.append(message)
        return rewritten

    def retry_message(self, error_text: str) -> dict[str, Any]:
        """Tells the model what was wrong with its last reply and asks for one valid JSON object."""
        text = _sections("user.txt")["retry"].substitute(error=error_text.strip())
        return {"role": "user", "content": text.strip()}

    def reflection_messages(self, action_text: str, before_url: str, after_url: str) -> list[dict[str, Any]]:
        """Seed 003's model check of an action: before and after screens; the reply is
        `{"execution_result", "confidence", "reasoning", "improvement_suggestions"}`."""
        sections = _sections("reflection.txt")
        before = sections["before"].substitute(action=_neutralise(action_text)).strip()
        content = [_text_part(before), _image_part(before_url, self.detail),
                   _text_part(sections["after"].substitute().strip()), _image_part(after_url, self.detail)]
        return [{"role": "system", "content": sections["system"].substitute().strip()},
                {"role": "user", "content": content}]

    def completion_check_messages(self, request: str, claim: str, controls: Sequence[Control],
                                  screen_size: tuple[int, int], image_url: str | None) -> list[dict[str, Any]]:
        """The completion check's one short question: the request, the model's claim that it is
        done, and the fresh screen (the picture when one is sent, the controls as text)."""
        sections = _sections("completion.txt")
        listed = control_lines(controls, CoordinateMapper(screen_size, screen_size)) if controls else ""
        text = sections["user"].substitute(request=request.strip(), claim=_neutralise(claim.strip() or "(no comment)"),
                                           controls=listed or "(the controls could not be read)").strip()
        content: list[dict[str, Any]] = [_text_part(text)]
        if image_url:
            content.insert(0, _image_part(image_url, self.detail))
        return [{"role": "system", "content": sections["system"].substitute().strip()},
                {"role": "user", "content": content}]

    def query_messages(self, question: str, schema: Mapping[str, Any] | None, controls: Sequence[Control],
                       screen_size: tuple[int, int], image_url: str | None) -> list[dict[str, Any]]:
        """A task's output question, answered from the screen (the picture when one is sent, the controls
        as text), as text or as JSON matching `schema`."""
        sections = _sections("query.txt")
        shape = (sections["shape_schema"].substitute(schema=json.dumps(schema, ensure_ascii=False))
                 if schema else sections["shape_text"].substitute())
        listed = control_lines(controls, CoordinateMapper(screen_size, screen_size)) if controls else ""
        text = sections["user"].substitute(question=question.strip(),
                                           controls=listed or "(the controls could not be read)").strip()
        content: list[dict[str, Any]] = [_text_part(text)]
        if image_url:
            content.insert(0, _image_part(image_url, self.detail))
        return [{"role": "system", "content": sections["system"].substitute(shape=shape).strip()},
                {"role": "user", "content": content}]

    def reply_tool(self) -> dict[str, Any]:
        """The one tool whose call arguments are the whole reply object (GUIDE §2). Kept small: it is
        sent with every request, and the system message explains each field. The enums stay: a server
        that constrains its output to the schema (the `response_format` when tools are off) keeps to them."""
        action = {"type": "object", "properties": {
            "function": {"type": "string", "enum": [*FUNCTION_NAMES, *self.offered_functions, NO_ACTION]},
            "arguments": {"type": "object"},
            "status": {"type": "string", "enum": list(get_args(Status))}},
            "required": ["function", "arguments", "status"]}
        parameters = {"type": "object", "properties": {
            "thought": {"type": "string"}, "action": action, "comment": {"type": "string"},
            "plan": {"type": "array"}, "expect": {"type": "object"}, "clean_image": {"type": "boolean"}},
            "required": ["thought", "action", "comment"]}
        description = _sections("system.txt")["tool_description"].template.strip()
        return {"type": "function",
                "function": {"name": REPLY_TOOL_NAME, "description": description, "parameters": parameters}}

    def _image_parts(self, urls: Mapping[str, str]) -> tuple[list[dict[str, Any]], str]:
        """The images `settings.images.send` asks for (clean before annotated), falling back to what exists;
        with "auto", those the step made."""
        wanted = {"both": ("clean", "annotated"), "clean": ("clean",), "annotated": ("annotated",), "none": (),
                  "auto": ("clean", "annotated")}       # auto: what the step made (`image_choice`)
        if self.settings.images.text_only:
            return [], ""
        kinds = [kind for kind in wanted[self.settings.images.send] if urls.get(kind)]
        if not kinds:
            kinds = [kind for kind in ("clean", "annotated") if urls.get(kind)][:1]
        label = "both" if len(kinds) == 2 else (kinds[0] if kinds else "")
        return [_image_part(urls[kind], self.detail) for kind in kinds], label

    def _recent(self, memory_items: Sequence[MemoryItem]) -> list[MemoryItem]:
        count = self.settings.agent.recent_steps_in_prompt
        return list(memory_items[-count:]) if count > 0 else []


def control_lines(controls: Sequence[Control], mapper: CoordinateMapper) -> str:
    """`Control.to_prompt_line()` per control, centres in the model's coordinates, block tags neutralised;
    a password field's text is never shown (`hide_password`)."""
    controls = [hide_password(control) for control in controls]
    if not mapper.is_identity:
        controls = [replace(control, rect=mapper.rect_to_model(control.rect)) for control in controls]
    return "\n".join(_neutralise(control.to_prompt_line()) for control in controls)


def compact_app_list(apps: Sequence[str], request: str, limit: int = APPS_CHAR_LIMIT) -> str:
    """Comma-separated packages, those the request seems to mean first, cut at about `limit` characters."""
    lowered = request.lower()
    words = set(re.findall(r"[a-z0-9]{4,}", lowered))
    named = {package for label, packages in WELL_KNOWN_LABELS.items()
             if re.search(rf"\b{re.escape(label)}\b", lowered) for package in packages}

    def mentioned(package: str) -> bool:
        tail = ".".join(package.lower().split(".")[-2:])
        return package in named or any(word in tail for word in words)

    shown: list[str] = []
    length = 0
    for package in sorted(apps, key=lambda package: not mentioned(package)):
        if shown and length + len(package) + 2 > limit:
            break
        shown.append(package)
        length += len(package) + 2
    hidden = len(apps) - len(shown)
    return ", ".join(shown) + (f" (+{hidden} more)" if hidden else "")


def function_signature(name: str) -> str:
    """`type_text(text: str, control_id?, clear_current_text?: bool)` from the argument model: a number
    (int or float) has no type written, as the system message says, every other type is written."""
    arguments = []
    for argument, info in ARGUMENT_MODELS[name].model_fields.items():
        kind = _type_name(info.annotation)
        arguments.append(f"{argument}{'' if info.is_required() else '?'}"
                         + ("" if kind in _NUMBER_TYPES else f": {kind}"))
    return f"{name}({', '.join(arguments)})"


def _type_name(annotation: Any) -> str:
    origin = get_origin(annotation)
    if origin is Literal:
        return "|".join(str(value) for value in get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        return "|".join(_type_name(arg) for arg in get_args(annotation) if arg is not type(None))
    return _TYPE_NAMES.get(annotation, getattr(annotation, "__name__", str(annotation)))


@cache
def _sections(file_name: str) -> dict[str, Template]:
    """The `## name` sections of a prompt file; text before the first section is a comment."""
    text = (files("app.resources") / "prompts" / file_name).read_text(encoding="utf-8")
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("## "):
            current = sections.setdefault(line[3:].strip(), [])
        elif current is not None:
            current.append(line)
    return {name: Template("\n".join(lines).strip()) for name, lines in sections.items()}


@cache
def _image_description() -> re.Pattern[str]:
    """Matches the line of a step message that describes its images (any of the `images_*` sections)."""
    sections = _sections("user.txt")
    alternatives = []
    for kind in ("both", "annotated", "clean"):
        escaped = re.escape(sections[f"images_{kind}"].template.strip())
        alternatives.append(escaped.replace(re.escape("$width"), r"\d+").replace(re.escape("$height"), r"\d+"))
    return re.compile("|".join(f"(?:{alternative})" for alternative in alternatives))


def _hint(function: str) -> str:
    """The line that explains a function to the model: its action kind's `hint`."""
    kind = kind_of(function)
    return kind.hint if kind is not None else ""


def _neutralise(text: str) -> str:
    """Screen-derived text cannot open or close the untrusted block."""
    return _BLOCK_TAG.sub("[tag removed]", text)


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _text_part(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _image_part(url: str, detail: str = "") -> dict[str, Any]:
    """An image part; with `detail` ("high", "low", "auto") as the provider's preset sends it."""
    return {"type": "image_url", "image_url": {"url": url, **({"detail": detail} if detail else {})}}
