"""Every real dump of the corpus parses into a sane control list that agrees with MANIFEST.tsv."""

from __future__ import annotations

import json
from pathlib import Path

from lxml import etree
from PIL import Image

from app.core.perception.annotate import annotate
from app.core.perception.hierarchy import extract_controls, parse_hierarchy, screen_size_from_hierarchy, select_controls
from tests.core.conftest import element_path

PROMPT_CHAR_BUDGET = 6000  # GUIDE §5: 1,500 tokens at ~4 characters a token


def test_manifest_describes_every_dump(corpus_dir: Path, manifest):
    on_disk = sorted(p.relative_to(corpus_dir).as_posix() for p in corpus_dir.glob("*/*.xml"))
    assert sorted(manifest) == on_disk
    assert len(on_disk) == 77
    with_screenshot = {name for name, facts in manifest.items() if facts.has_screenshot}
    assert with_screenshot == {name for name in on_disk if (corpus_dir / name).with_suffix(".png").is_file()}


def test_dump_agrees_with_manifest(corpus_dir: Path, manifest, dump_name: str):
    hierarchy = parse_hierarchy((corpus_dir / dump_name).read_bytes())
    facts = manifest[dump_name]
    assert sum(1 for _ in hierarchy.iter_nodes()) == facts.node_count
    if facts.rotation is not None:
        assert hierarchy.rotation == facts.rotation
    if facts.top_level_windows is not None:
        assert len(hierarchy.windows) == facts.top_level_windows
    if facts.hierarchy_extent is not None:
        assert screen_size_from_hierarchy(hierarchy) == facts.hierarchy_extent


def test_dump_yields_sane_controls(corpus_dir: Path, dump_name: str):
    data = (corpus_dir / dump_name).read_bytes()
    hierarchy = parse_hierarchy(data)
    width, height = screen_size_from_hierarchy(hierarchy)
    controls = select_controls(hierarchy, (width, height))
    node_count = sum(1 for _ in hierarchy.iter_nodes())

    assert len(controls) <= node_count
    assert [c.id for c in controls] == list(range(1, len(controls) + 1))
    assert len({c.rect for c in controls}) == len(controls), "two controls cover the same rect"
    for control in controls:
        left, top, right, bottom = control.rect
        assert 0 <= left < right <= width and 0 <= top < bottom <= height, control
        assert control.name.strip() and control.type, control
        assert 0 <= control.window < len(hierarchy.windows)
    json.dumps([c.to_dict() for c in controls])
    prompt = "\n".join(c.to_prompt_line() for c in controls)
    assert len(prompt) <= PROMPT_CHAR_BUDGET


def test_every_locator_selects_exactly_its_node(corpus_dir: Path, dump_name: str):
    data = (corpus_dir / dump_name).read_bytes()
    tree = etree.fromstring(data)
    for control in extract_controls(data):
        found = tree.xpath(control.locator)
        assert len(found) == 1, control.locator
        assert element_path(found[0]) == control.node_path, control.locator


def test_controls_fit_the_screenshot(corpus_dir: Path, screenshot_dump_name: str):
    dump = corpus_dir / screenshot_dump_name
    screenshot = Image.open(dump.with_suffix(".png"))
    controls = extract_controls(dump.read_bytes(), screenshot.size)
    assert controls, "a screen with a screenshot should have controls"
    for control in controls:
        left, top, right, bottom = control.rect
        assert 0 <= left < right <= screenshot.width and 0 <= top < bottom <= screenshot.height, control
    annotated = annotate(screenshot, controls)
    assert annotated.size == screenshot.size
