"""How big one step's prompt is, counted as a model receives it: the system message (sent with
every request), the step's text, and the reply tool's definition (sent with every request when tools
are used, as by default). Images are not counted yet (their tokens depend on the model's own rule).

The baseline is the same prompt with the controls listed as seed 000 lists them (a JSON list
of {"id", "name", "type", "rect"}), so the ratio shows what the compact control lines save.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass

from PIL import Image

from app.core.agent.coordinates import CoordinateMapper
from app.core.agent.prompts import PromptBuilder, ScreenContext, control_lines
from app.core.config import Settings
from app.core.perception.hierarchy import extract_controls, parse_hierarchy, screen_size_from_hierarchy
from app.core.perception.model_image import fit_for_model

PROMPT_TOKEN_BUDGET = 1500
CHARS_PER_TOKEN = 4
INSTALLED_APPS = ["com.agentdesk.notes", "com.agentdesk.calculator", "com.android.messaging"]


@dataclass(frozen=True)
class PromptSize:
    system_chars: int
    step_chars: int
    seed_step_chars: int      # the step's text with seed 000's control list instead of ours
    controls: int
    tool_chars: int = 0       # the reply tool's definition, as JSON

    @property
    def tokens(self) -> float:
        return (self.system_chars + self.step_chars + self.tool_chars) / CHARS_PER_TOKEN

    @property
    def seed_tokens(self) -> float:
        return (self.system_chars + self.seed_step_chars + self.tool_chars) / CHARS_PER_TOKEN

    def describe(self) -> str:
        return (f"{self.system_chars:,} characters of system message + {self.step_chars:,} of step text + "
                f"{self.tool_chars:,} of the reply tool's definition = "
                f"{self.system_chars + self.step_chars + self.tool_chars:,} characters")


def tools_as_sent(tools: list[dict]) -> str:
    """The `tools` of a request as the `openai` client puts them on the wire: compact JSON, not
    ASCII-escaped (its `openapi_dumps` uses httpx's separators)."""
    return json.dumps(tools, ensure_ascii=False, separators=(",", ":"))


def seed_control_list(controls) -> str:
    return json.dumps([{"id": str(c.id), "name": c.name, "type": c.type, "rect": list(c.rect)} for c in controls],
                      ensure_ascii=False)


def prompt_size(xml: str, request: str, settings: Settings | None = None) -> PromptSize:
    settings = settings or Settings()
    screen_size = screen_size_from_hierarchy(parse_hierarchy(xml))
    controls = extract_controls(xml, screen_size)
    image_size = fit_for_model(Image.new("L", screen_size), settings.images.max_side)[0].size
    packages = Counter(c.package for c in controls if c.package)
    builder = PromptBuilder(settings)
    screen = ScreenContext(controls=controls, screen_size=screen_size, image_size=image_size,
                           foreground_package=packages.most_common(1)[0][0] if packages else "",
                           installed_apps=INSTALLED_APPS,
                           image_urls={"clean": "data:image/jpeg;base64,AAAA",
                                       "annotated": "data:image/jpeg;base64,AAAA"})
    message = builder.user_message(request, screen)
    text = "\n".join(part.get("text", "") for part in message["content"] if part.get("type") == "text")
    ours = control_lines(controls, CoordinateMapper(screen_size, image_size, settings.provider.coordinate_mode))
    if ours not in text:
        raise RuntimeError("the step's text does not hold the control lines where the bench expects them")
    seed_chars = len(text) - len(ours) + len(seed_control_list(controls))
    tool_chars = len(tools_as_sent([builder.reply_tool()])) if settings.provider.use_tools else 0
    return PromptSize(len(builder.system_message()["content"]), len(text), seed_chars, len(controls), tool_chars)
