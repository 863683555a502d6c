"""The window fits a 1280×720 screen: its minimum size, every pane reachable and uncut at 1280×640,
the mirror taking the width that is left, the layout kept per screen, and Ctrl+Enter."""

from __future__ import annotations

import asyncio

import pytest
import pytest_asyncio
from PySide6.QtCore import QPoint, QRect, QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from app.core.agent.actions import Action
from app.core.agent.supervisor import Proposal
from app.gui import window_state
from app.gui.window_menus import ctrl_enter

SMALL = (1280, 640)     # a 1280×720 screen less a title bar and a panel


@pytest_asyncio.fixture
async def window(window_in_private_home):
    yield window_in_private_home


async def settle() -> None:
    for _ in range(3):
        QApplication.processEvents()
        await asyncio.sleep(0.05)


def a_proposal(step: int = 1) -> Proposal:
    return Proposal(step=step, action=Action(function="press_key", arguments={"key_code": "HOME"}),
                    action_text="Press Home", thought="The home screen has the Settings icon. " * 4,
                    comment="Going home first")


def shown_whole(widget: QWidget, window: QWidget) -> bool:
    """Visible, inside the window, and not clipped by any pane, scroll area or splitter around it."""
    top_left = widget.mapTo(window, QPoint(0, 0))
    inside = window.rect().contains(QRect(top_left, widget.size()))
    return widget.isVisible() and inside and widget.visibleRegion().boundingRect() == widget.rect()


@pytest.mark.asyncio
async def test_the_minimum_size_fits_a_1280_by_720_screen(window):
    assert window.minimumWidth() <= SMALL[0] and window.minimumHeight() <= SMALL[1]
    assert window.minimumSizeHint().width() <= SMALL[0] and window.minimumSizeHint().height() <= SMALL[1]
    window.resize(600, 300)                       # asked smaller: it stops at its minimum
    await settle()
    assert window.width() <= SMALL[0] and window.height() <= SMALL[1]
    window.resize(*SMALL)
    await settle()
    assert (window.width(), window.height()) == SMALL, "the window takes 1280×640 without growing"


@pytest.mark.asyncio
async def test_every_pane_is_reachable_and_uncut_at_1280_by_640(window):
    window.resize(*SMALL)
    await settle()
    window.splitters["main"].setSizes([300, 420, 560])      # what the first-run layout gives a 1280 screen
    window.approval.show_proposal(a_proposal())
    window._review(a_proposal())
    await settle()
    timeline, inspector, request = window.timeline, window.inspector, window.request
    for widget in (inspector.tabs, timeline.view, timeline.past_runs_button, timeline.report_button,
                   timeline.folder_button, request.request, request.run_button, request.stop_button,
                   window.approval, window.approval.approve_button, window.approval.reject_button,
                   window.mirror, window.manual.touch_button, window.manual.more_button, window.manual.text_field):
        name = widget.accessibleName() or widget.objectName()
        assert shown_whole(widget, window), f"{type(widget).__name__} {name} is cut off or hidden at 1280×640"
    assert window.right_pane.horizontalScrollBar().maximum() == 0, "the timeline's columns need no sideways scroll"
    assert window.mirror.width() >= 250 and window.mirror.height() >= 300, "the phone is still worth looking at"


@pytest.mark.asyncio
async def test_the_first_layout_on_a_small_screen_shows_every_pane_whole(window):
    """No saved layout: the window's own first layout at 1280×640 (no splitter set by hand)."""
    from app.gui.window_layout import pane_widths

    window.resize(*SMALL)
    main = window.splitters["main"]
    main.setSizes(pane_widths(SMALL[0] - 2 * main.handleWidth(), SMALL[1]))
    await settle()
    left, mirror, right = main.sizes()
    assert min(left, mirror, right) > 0
    for widget in (window.timeline.past_runs_button, window.inspector.tabs, window.request.run_button):
        assert shown_whole(widget, window)
    assert window.right_pane.horizontalScrollBar().maximum() == 0


@pytest.mark.asyncio
async def test_a_narrow_side_pane_scrolls_instead_of_widening_the_window(window):
    window.resize(*SMALL)
    await settle()
    main = window.splitters["main"]
    main.setSizes([0, 2000, 0])              # both side panes dragged to their narrowest
    await settle()
    assert window.width() == SMALL[0]
    left, mirror, right = main.sizes()
    assert left == 0 or left >= window.left_pane.minimumWidth()
    main.setSizes([260, 2000, 300])
    await settle()
    scroll = window.right_pane.horizontalScrollBar()
    if scroll.maximum() > 0:                 # the timeline's buttons are reached by scrolling sideways
        scroll.setValue(scroll.maximum())
        await settle()
    assert shown_whole(window.timeline.past_runs_button, window)


@pytest.mark.asyncio
async def test_the_mirror_takes_the_width_that_is_left(window):
    window.resize(*SMALL)
    await settle()
    before = window.splitters["main"].sizes()
    window.resize(1700, 900)
    await settle()
    after = window.splitters["main"].sizes()
    assert after[0] == before[0] and after[2] == before[2], "side panes keep their width"
    assert after[1] > before[1] + 300, "the mirror gets the new width"


@pytest.mark.asyncio
async def test_ctrl_enter_in_the_request_box_runs_the_request(window):
    runs: list[tuple] = []
    window.request.run_requested.connect(lambda *args: runs.append(args))
    window.activateWindow()
    await settle()
    window.request.request.setFocus()
    QTest.keyClicks(window.request.request, "Turn on Wi-Fi")
    QTest.keyClick(window.request.request, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    await settle()
    assert runs and runs[0][0] == "Turn on Wi-Fi", "Ctrl+Enter in the request box starts the run"
    assert window.request.request.toPlainText() == "Turn on Wi-Fi", "and types no new line"
    QTest.keyClick(window.request.request, Qt.Key.Key_Enter,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.KeypadModifier)
    await settle()
    assert len(runs) == 2, "the keypad's Enter too"


@pytest.mark.asyncio
async def test_ctrl_enter_approves_the_waiting_action_first(window):
    answers: list = []
    window.controller.answer = answers.append          # the window's answer goes to the run: record it
    runs: list[tuple] = []
    window.request.run_requested.connect(lambda *args: runs.append(args))
    window.request.request.setPlainText("Turn on Wi-Fi")
    window._review(a_proposal())
    assert ctrl_enter(window) == "approve"
    assert [answer.kind for answer in answers] == ["approve"] and not runs
    window.approval.show_question("Which network?")
    window.approval.answer_text.setText("Home")
    said: list[str] = []
    window.approval.question_answered.connect(said.append)
    assert ctrl_enter(window) == "answer" and said == ["Home"]
    assert ctrl_enter(window) == "run" and runs, "nothing waits: Ctrl+Enter runs the request"


# ----------------------------------------------------------------------------- per screen


def ini(tmp_path) -> QSettings:
    return QSettings(str(tmp_path / "layout.ini"), QSettings.Format.IniFormat)


@pytest.mark.asyncio
async def test_each_screen_keeps_its_own_layout(window, tmp_path):
    main = window.splitters["main"]
    settings = ini(tmp_path)
    layouts = window_state.ScreenLayouts(window, window.splitters, settings)
    layouts.screen = window.screen()
    window.resize(*SMALL)
    main.setSizes([300, 400, 570])
    await settle()
    here = main.sizes()
    # The layout another (say 1920×1080) screen had: stored under that screen's key.
    main.setSizes([380, 700, 190])
    await settle()
    window_state.save_window_state(window, window.splitters, settings, key=window_state.screen_key(None))
    main.setSizes(here)
    await settle()
    layouts._screen_changed(None)             # the window moves to that screen: its layout comes back
    await settle()
    there = main.sizes()
    assert there != here and there[0] > here[0]
    layouts._screen_changed(window.screen())  # and back: this screen's layout, kept when it left
    await settle()
    assert main.sizes() == here
    assert settings.value(window_state.LAST_SCREEN_KEY) == window_state.screen_key(window.screen())


@pytest.mark.asyncio
async def test_a_saved_layout_bigger_than_the_screen_is_brought_inside_it(window, tmp_path):
    settings = ini(tmp_path)
    area = window.screen().availableGeometry()
    window.resize(area.width() + 400, area.height() + 300)
    window.move(area.right() - 50, area.top())
    window_state.save_window_state(window, window.splitters, settings)
    window.resize(*SMALL)
    assert window_state.restore_window_state(window, window.splitters, settings)
    await settle()
    assert window.width() <= max(area.width(), window.minimumWidth())
    assert window.height() <= max(area.height(), window.minimumHeight())
    assert window.x() >= area.left() and window.x() <= area.right()


def test_screen_keys_name_the_screen_and_its_size(qapp):
    screen = qapp.primaryScreen()
    key = window_state.screen_key(screen)
    assert f"{screen.size().width()}x{screen.size().height()}" in key and "/" not in key and "\\" not in key
    assert window_state.screen_key(None) == "unknown"


@pytest.mark.asyncio
async def test_a_side_pane_collapses_from_the_view_menu_and_comes_back(window):
    from app.gui.side_panes import show_pane

    window.resize(*SMALL)
    await settle()
    main = window.splitters["main"]
    show_pane(window, 2, True)                # shut at first on a small screen (test_mirror_roomier.py)
    await settle()
    mirror_before = main.sizes()[1]
    show_pane(window, 2, False)
    await settle()
    assert main.sizes()[2] == 0 and main.sizes()[1] > mirror_before, "the mirror takes the freed width"
    show_pane(window, 2, True)
    await settle()
    assert main.sizes()[2] >= window.right_pane.minimumWidth()
    assert shown_whole(window.inspector.tabs, window), (main.sizes(), window.right_pane.widget().minimumSizeHint())


def test_the_controls_table_shows_every_id_beside_its_swatch(qtbot):
    """Ids ≥ 100 are read whole: the id column makes room for the colour swatch and the sort arrow."""
    import dataclasses

    from PySide6.QtWidgets import QStyle

    from app.core.perception.hierarchy import extract_controls
    from app.gui.inspector.inspector import InspectorPanel
    from app.virtual_phone.phone import VirtualPhone

    controls = extract_controls(VirtualPhone().dump_hierarchy(), (1080, 2400))
    many = [dataclasses.replace(controls[index % len(controls)], id=index + 1) for index in range(120)]
    panel = InspectorPanel()
    qtbot.addWidget(panel)
    panel.set_snapshot(many, None)
    table = panel.table
    swatch = table.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize)
    assert table.columnWidth(0) >= swatch + table.fontMetrics().horizontalAdvance("120") + 8
