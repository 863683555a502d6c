"""The Hierarchy tab during a run: filled from the tree the run's own step read, step after step."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from app.core.perception.hierarchy import parse_hierarchy, select_controls
from app.gui.inspector.inspector_wiring import run_hierarchy
from app.virtual_phone.phone import VirtualPhone
from tests.gui.conftest import proposal_of, run_result, running_window
from tests.support.openai_server import act, json_reply


def reading_of(controls, hierarchy):
    return SimpleNamespace(snapshot=SimpleNamespace(controls=controls, hierarchy=hierarchy))


def test_run_hierarchy_takes_the_tree_the_controls_came_from_and_nothing_else():
    phone = VirtualPhone()
    hierarchy = parse_hierarchy(phone.dump_hierarchy())
    controls = select_controls(hierarchy, (1080, 2400))
    tree = SimpleNamespace(latest=reading_of(controls, hierarchy))
    session = SimpleNamespace(session=SimpleNamespace(screen_tree=tree))
    assert run_hierarchy(session, controls) is hierarchy
    assert run_hierarchy(session, list(controls)) is hierarchy          # an equal list (a copy) is the same screen
    assert run_hierarchy(session, controls[:-1]) is None     # another screen: no tree rather than a wrong one
    assert run_hierarchy(SimpleNamespace(session=None), controls) is None
    empty = SimpleNamespace(session=SimpleNamespace(screen_tree=SimpleNamespace(latest=None)))
    assert run_hierarchy(empty, controls) is None


@pytest.mark.asyncio
async def test_the_hierarchy_tab_follows_the_run_step_by_step(qapp, phone_home):
    script = [json_reply(act("launch_app", package_name="com.android.settings")),
              json_reply(act("press_key", key_code="HOME")), json_reply(act("", status="FINISH"))]
    async with running_window(script) as window:
        window.request.request.setPlainText("Open Settings, then go home")
        window.request.run_button.click()
        approval, inspector = window.approval, window.inspector
        packages = []
        for step in (1, 2):
            shown = await proposal_of(window, step)
            assert inspector.tree_stack.currentIndex() == 1, f"step {step}: the Hierarchy tab is empty"
            tree = inspector.tree_model
            assert tree.rowCount() > 0
            assert all(tree.index_for_control(c).isValid() for c in shown.controls)
            first = tree.index_for_control(shown.controls[0])
            assert first.data().startswith(f"#{shown.controls[0].id} ")
            inspector.tabs.setCurrentIndex(2)
            inspector.filter_edit.setText("class:FrameLayout")              # search works during runs too
            assert inspector.match_count() > 0
            inspector.filter_edit.clear()
            packages.append({tree.index(row, 0).data().split(" ")[0] for row in range(tree.rowCount())})
            approval.approve()
        assert any("com.android.settings" in found for found in packages[1:]), packages
        await proposal_of(window, 3)
        approval.approve()
        result = await run_result(window)
    assert result.status == "success", result
