"""The prompt's budget (GUIDE §5): at most 1,500 tokens (characters / 4) on a dense screen, the system
message and the reply tool's definition included, with every control listed and nothing it needs to
act left out; the images counted apart by the model's own rule."""

from __future__ import annotations

import json
import re
from xml.sax.saxutils import quoteattr

from PIL import Image

from app.bench.agent_bench import REQUEST
from app.bench.prompt_size import PROMPT_TOKEN_BUDGET, prompt_size, tools_as_sent
from app.core.agent.coordinates import CoordinateMapper
from app.core.agent.prompts import PromptBuilder, control_lines
from app.core.config import Settings
from app.core.perception.controls import PROMPT_NAME_LIMIT, prompt_role
from app.core.perception.hierarchy import extract_controls, parse_hierarchy, screen_size_from_hierarchy
from app.core.perception.model_image import fit_for_model

DENSE_DUMP = "kram1k__android_avito_parsing/search_hierarchy.xml"      # 323 nodes, 88 controls
LINE = re.compile(r'^(\d+)(?: ([^\s"]+))?(?: ("(?:[^"\\]|\\.)*"))?(?: ([a-z,]+))? @(-?\d+),(-?\d+)$')


def node(cls: str, bounds: tuple[int, int, int, int], **attrs: object) -> str:
    attributes = {"class": f"android.widget.{cls}", "package": "com.example.shop",
                  "bounds": "[{},{}][{},{}]".format(*bounds)}
    attributes.update({key.replace("_", "-"): ("true" if value else "false") if isinstance(value, bool)
                       else str(value) for key, value in attrs.items()})
    return "<node " + " ".join(f"{key}={quoteattr(value)}" for key, value in attributes.items()) + " />"


def synthetic_dense_screen() -> str:
    """About 90 controls, as dense as the corpus screen: a search field, a row of chips, a list of
    non-Latin product rows with prices and switches, and a whole keyboard, each key long-pressable."""
    nodes = [node("EditText", (40, 60, 900, 160), text="детская игрушка", clickable=True, long_clickable=True,
                  focused=True, resource_id="com.example.shop:id/search"),
             node("ImageButton", (920, 60, 1040, 160), content_desc="Очистить", clickable=True)]
    nodes += [node("TextView", (20 + 130 * index, 180, 140 + 130 * index, 260), text=f"Категория {index}",
                   clickable=True) for index in range(8)]
    for row in range(16):
        top = 280 + row * 90
        nodes.append(node("LinearLayout", (0, top, 800, top + 90), clickable=True, long_clickable=True,
                          content_desc=f"Фигурка {row}, доставка завтра"))
        nodes.append(node("TextView", (800, top, 960, top + 90), text=f"{1000 + 37 * row} ₽"))
        nodes.append(node("Switch", (960, top, 1080, top + 90), clickable=True, checkable=True,
                          checked=row % 3 == 0))
    for row, keys in enumerate(("йцукенгшщзх", "фывапролджэ", "ячсмитьбю")):
        for column, key in enumerate(keys):
            left, top = 10 + column * 96, 1740 + row * 58
            nodes.append(node("FrameLayout", (left, top, left + 96, top + 58), content_desc=key, clickable=True,
                              long_clickable=True))
    body = "".join(nodes)
    return ("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
            f'<node class="android.widget.FrameLayout" package="com.example.shop" bounds="[0,0][1080,1920]">'
            f"{body}</node></hierarchy>")


def assert_every_control_listed(xml: str) -> None:
    """Every control's line: its id, role, name (cut at the limit), states (tap, scroll, checked,
    selected, focused…) and centre in the model image."""
    settings = Settings()
    builder = PromptBuilder(settings)
    size = prompt_size(xml, REQUEST, settings)
    controls = extract_controls(xml, screen_size_from_hierarchy(parse_hierarchy(xml)))
    screen_size = screen_size_from_hierarchy(parse_hierarchy(xml))
    image_size = fit_for_model(Image.new("L", screen_size), settings.images.max_side)[0].size
    lines = control_lines(controls, CoordinateMapper(screen_size, image_size)).splitlines()
    assert len(lines) == len(controls) == size.controls
    mapper = CoordinateMapper(screen_size, image_size)
    for control, line in zip(controls, lines, strict=True):
        match = LINE.match(line)
        assert match, line
        number, role, quoted, flags, x, y = match.groups()
        assert int(number) == control.id
        name = json.loads(quoted) if quoted else role
        assert name == control.name[:PROMPT_NAME_LIMIT - 1].rstrip() + "…" if len(control.name) > PROMPT_NAME_LIMIT \
            else name in (control.name, prompt_role(control.type) or control.type)
        if quoted:
            assert (role or "") == prompt_role(control.type)
        states = set((flags or "").split(",")) - {""}
        assert ("tap" in states) == control.clickable
        assert ("focused" in states) == control.focused and ("scroll" in states) == control.scrollable
        if control.checkable:
            assert ("checked" if control.checked else "unchecked") in states
        centre = mapper.rect_to_model(control.rect)
        assert (int(x), int(y)) == ((centre[0] + centre[2]) // 2, (centre[1] + centre[3]) // 2)
    assert builder.reply_tool()["function"]["name"] == "act"


def test_the_prompt_fits_the_budget_on_the_323_node_corpus_screen(corpus_dir):
    xml = (corpus_dir / DENSE_DUMP).read_text(encoding="utf-8")
    size = prompt_size(xml, REQUEST)
    assert size.controls == 88
    assert size.tool_chars > 0 and size.system_chars > 0                # both counted
    assert size.tokens <= PROMPT_TOKEN_BUDGET, size.describe()
    assert_every_control_listed(xml)


def test_the_prompt_fits_the_budget_on_a_dense_synthetic_screen():
    xml = synthetic_dense_screen()
    size = prompt_size(xml, REQUEST)
    assert size.controls >= 85
    assert size.tokens <= PROMPT_TOKEN_BUDGET, size.describe()
    assert size.tokens * 1.3 < size.seed_tokens                           # well under seed 000's JSON list
    assert_every_control_listed(xml)


def test_the_tool_is_counted_as_the_client_sends_it():
    builder = PromptBuilder(Settings())
    sent = tools_as_sent([builder.reply_tool()])
    assert json.loads(sent) == [builder.reply_tool()] and ", " not in sent.replace('", "', "")


def test_the_images_are_counted_apart_by_the_default_models_rule():
    size = prompt_size(synthetic_dense_screen(), REQUEST)
    assert size.images and size.image_rule.startswith("OpenAI gpt-4o, detail high")
    assert size.image_tokens == len(size.images) * 765                      # 540×960: 4 tiles each
    assert "images: " in size.describe() and "tokens (" in size.describe_images()
    text_only = Settings()
    text_only.images.send = "none"
    none = prompt_size(synthetic_dense_screen(), REQUEST, text_only)
    assert (none.images, none.image_tokens) == ((), 0) and "none sent" in none.describe_images()
