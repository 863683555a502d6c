"""The older, smaller phone (Android 9, 720×1280, 320 dpi): every app lays out on it and dumps in
Android 9's format (no drawing-order, no hint)."""

from __future__ import annotations

import pytest

from app.virtual_phone.dump_fidelity import dump_figures
from app.virtual_phone.phone import VirtualPhone

from .conftest import UI, new_phone
from .test_dump_format import ANDROID9_ATTRS

APPS = sorted(p for p, a in VirtualPhone().apps.items() if a.launchable)


@pytest.mark.parametrize("package", APPS)
def test_each_app_fits_the_small_screen_and_dumps_as_android_9(package):
    ui = UI(new_phone(profile="android9"))
    assert ui.phone.launch(package)
    ui.phone.hide_keyboard()
    shot = ui.phone.screenshot()
    assert shot.size == (720, 1280)
    xml = ui.phone.dump_hierarchy()
    figures = dump_figures(xml)
    assert figures.attribute_order == tuple(ANDROID9_ATTRS) and figures.attribute_orders == 1
    assert figures.top_level_nodes == 1
    nodes = list(ui.parse(xml).iter("node"))
    min_target = 32 * 320 // 160
    for node in nodes:
        left, t, r, b = ui.bounds(node)
        assert 0 <= left <= r <= 720 and 0 <= t <= b <= 1280, node.attrib
    clickables = [n for n in nodes if n.get("clickable") == "true"]
    assert clickables, package
    for node in clickables:
        view = ui.phone.hit_test(*ui.node_center(node))
        left, t, r, b = ui.bounds(node)
        if view is not None and view.bounds == (left, t, r, b):               # not cut by a list's edge
            assert min(r - left, b - t) >= min_target, node.attrib
    texts = [n for n in nodes if n.get("text")]
    assert texts and all(ui.bounds(n)[2] - ui.bounds(n)[0] > 0 for n in texts)
