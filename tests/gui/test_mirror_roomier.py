"""A roomier desk at 1280×720 (issue 27 point 7): the mirror gets the height and the width, badges never hide the
first letters of a row, the readout says "Live · 60 fps" from the frames the mirror painted, and 1:1 and full
screen (F11, Esc leaves) as scrcpy users expect."""

from __future__ import annotations

import asyncio

import pytest
import pytest_asyncio
from PySide6.QtCore import QPoint, QPointF, QSize, Qt
from PySide6.QtGui import QImage
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from app.core.perception.hierarchy import parse_hierarchy, select_controls
from app.gui.mirror.frame_rate import ShownFrames, mirror_state_words
from app.gui.mirror.mirror_frames import qimage_from_rgb
from app.gui.mirror.mirror_overlay import DeviceMapping
from app.gui.mirror.mirror_view import MirrorView
from app.virtual_phone.phone import VirtualPhone

DEVICE = (1080, 2400)
SMALL = (1240, 660)        # what the window first takes on a 1280×720 screen (less a title bar and a panel)
BEFORE_PICTURE_WIDTH = 220  # px: the phone's picture at that size before (a header row, two bar rows, both panes)


async def settle() -> None:
    for _ in range(3):
        QApplication.processEvents()
        await asyncio.sleep(0.05)


# ----------------------------------------------------------------------------- badges


def alarm_list():
    """The virtual phone's Clock app: a real list of alarm rows (label, time, schedule) and its text nodes."""
    phone = VirtualPhone()
    phone.launch("com.android.deskclock")
    hierarchy = parse_hierarchy(phone.dump_hierarchy())
    texts = [(node.attributes["text"], node.bounds) for node in hierarchy.iter_nodes()
             if node.attributes.get("text") and node.bounds]
    image = phone.screenshot().convert("RGB")
    return select_controls(hierarchy, DEVICE), texts, image


def first_letters(bounds, mapping: DeviceMapping):
    """Where a text node's first letters are, in widget px: its left end, two line-heights wide (inside its
    bounds by a pixel, as the boxes are drawn)."""
    left, top, right, bottom = bounds
    return mapping.rect((left, top, min(right, left + 2 * (bottom - top)), bottom)).adjusted(1, 1, -1, -1)


def test_no_solid_badge_covers_the_first_letters_of_a_list_row(qtbot):
    controls, texts, image = alarm_list()
    view = MirrorView()
    qtbot.addWidget(view)
    view.resize(256, 569)                       # the mirror's picture at 1280×720
    view.set_device_size(DEVICE)
    view.set_frame(qimage_from_rgb(image.tobytes(), *image.size))
    view.set_controls(controls)
    view.show()
    qtbot.waitExposed(view)
    layer = view._layer
    picture = QImage(view.size(), QImage.Format.Format_ARGB32_Premultiplied)
    picture.fill(Qt.GlobalColor.transparent)
    from PySide6.QtGui import QPainter
    painter = QPainter(picture)
    layer.paint(painter, view.mapping(), view.size(), 1.0)
    painter.end()
    mapping = view.mapping()
    covering = []
    for control, badge, see_through in zip(controls, layer.badge_rects, layer.see_through, strict=True):
        for text, bounds in texts:
            if not badge.intersects(first_letters(bounds, mapping)):
                continue
            covering.append((control.id, text))
            inside = badge.adjusted(1, 1, -1, -1)
            alpha = picture.pixelColor(QPoint(int(inside.left()), int(inside.bottom()))).alpha()
            assert see_through and alpha < 200, \
                f"#{control.id}'s badge hides the first letters of “{text}” with a solid fill (alpha {alpha})"
    rows = [c for c in controls if c.clickable and not c.text and "," in c.name]
    assert rows, "the alarm list has rows named after the words they hold"
    for row, badge in zip(controls, layer.badge_rects, strict=True):
        if row in rows:
            box = mapping.rect(row.rect)
            assert not box.adjusted(2, 2, -2, -2).contains(badge.topLeft() + QPointF(1, 1)), \
                f"the row {row.name!r} has its badge inside its own top-left corner, over its words"


# ----------------------------------------------------------------------------- readout


def test_the_readout_counts_the_frames_painted_in_the_last_second():
    now = [100.0]
    shown = ShownFrames(lambda: now[0])
    for _ in range(60):
        shown.shown()
        now[0] += 1 / 60
    assert shown.per_second() == 60
    assert mirror_state_words("Stream", shown.per_second(), True) == "Live · 60 fps"
    now[0] += 1.5                                       # nothing painted since: the screen stands still
    assert shown.per_second() == 0
    assert mirror_state_words("Stream", 0, True) == "Live · screen still"
    assert mirror_state_words("Screenshots", 2, True) == "Screenshots · 2 fps"
    assert mirror_state_words("", 0, False) == "Connecting…"
    assert mirror_state_words("", 0, True, "disconnected: the phone went away") == "Disconnected"


def test_the_mirror_counts_a_frame_once_it_is_painted_not_when_it_is_replaced(qtbot):
    view = MirrorView()
    qtbot.addWidget(view)
    view.resize(200, 400)
    view.show()
    qtbot.waitExposed(view)
    frame = QImage(108, 240, QImage.Format.Format_RGB32)
    frame.fill(Qt.GlobalColor.darkCyan)
    view.set_frame(frame)
    view.set_frame(frame.copy())                        # replaced before any paint: never shown
    view.grab()
    view.grab()                                         # painted again, the same frame: not a new one
    assert view.shown_frames.total == 1


# ----------------------------------------------------------------------------- the window


@pytest_asyncio.fixture
async def window(window_in_private_home):
    yield window_in_private_home


def show_a_phone(window) -> None:
    phone = VirtualPhone()
    image = phone.screenshot().convert("RGB")
    window.mirror.set_device_size(DEVICE)
    window.mirror.set_frame(qimage_from_rgb(image.tobytes(), *image.size))


@pytest.mark.asyncio
async def test_at_1280_by_720_the_inspector_pane_starts_shut_and_the_phone_gets_the_room(window):
    from app.gui.side_panes import RIGHT, SMALL_SCREEN_WIDTH
    from app.gui.window_layout import first_layout

    assert window.screen().availableGeometry().width() < SMALL_SCREEN_WIDTH, "the offscreen screen is small"
    window.resize(*SMALL)
    first_layout(window)                                # no saved layout: the first-run layout of a small screen
    window.showNormal()
    window.resize(*SMALL)
    show_a_phone(window)
    await settle()
    main = window.splitters["main"]
    assert main.sizes()[RIGHT] == 0, "the inspector and timeline pane starts shut on a small screen"
    toggle = window.side_panes.buttons[RIGHT]
    assert toggle.isVisible() and not toggle.isChecked(), "a visible toggle in the status bar opens it"
    assert window.mirror.width() >= 600, f"the mirror's column is {window.mirror.width()} px wide"
    picture = window.mirror.frame_rect().width()
    assert picture >= BEFORE_PICTURE_WIDTH + 50, f"the phone's picture is {picture:.0f} px wide"
    assert window.mirror_panel.bar_beside, "the phone takes the column's height, its buttons beside it"
    toggle.click()
    await settle()
    assert main.sizes()[RIGHT] >= window.right_pane.minimumWidth() and toggle.isChecked()
    assert window.side_panes.actions[RIGHT].isChecked(), "View's item follows the button"
    window.side_panes.actions[RIGHT].trigger()
    await settle()
    assert main.sizes()[RIGHT] == 0 and not toggle.isChecked()


@pytest.mark.asyncio
async def test_opening_the_inspector_takes_back_the_width_the_left_pane_got_while_it_was_shut(window):
    from app.gui.side_panes import RIGHT

    window.resize(*SMALL)
    show_a_phone(window)
    main = window.splitters["main"]
    main.setSizes([369, 863, 0])            # a small screen's first layout: the left pane wider, the right shut
    await settle()
    window.side_panes.buttons[RIGHT].click()
    await settle()
    left, mirror, right = main.sizes()
    assert right >= window.right_pane.minimumWidth()
    assert mirror >= 480, f"the phone's column keeps {mirror} px (its bar in two rows)"
    assert left >= sum(main.sizes()) * 24 // 100, "the left pane keeps its usual share"


@pytest.mark.asyncio
async def test_a_narrow_column_keeps_the_bar_under_the_phone(window):
    window.resize(*SMALL)
    show_a_phone(window)
    window.splitters["main"].setSizes([300, 420, 520])       # every pane open: the phone's column is narrow
    await settle()
    panel = window.mirror_panel
    assert not panel.bar_beside
    assert panel.manual.geometry().top() >= panel.mirror_area.geometry().bottom()
    assert window.mirror.frame_rect().width() >= 200


@pytest.mark.asyncio
async def test_the_readout_under_the_mirror_says_live_in_words(window):
    window.mirror_panel.show_frame_source("Stream", "streaming (scrcpy, H264)")
    assert window.state_label.text() == "Connecting…"
    show_a_phone(window)
    window.mirror.grab()                                # painted once
    window.mirror_panel.refresh_state()
    assert window.state_label.text() == "Live · 1 fps"
    assert "H264" in window.state_label.toolTip()


@pytest.mark.asyncio
async def test_actual_size_shows_one_phone_pixel_per_screen_pixel_and_scrolls(window):
    window.resize(*SMALL)
    show_a_phone(window)
    await settle()
    window.view_modes.actual_size_action.trigger()
    await settle()
    ratio = window.mirror.devicePixelRatioF()
    assert window.mirror.size() == QSize(round(DEVICE[0] / ratio), round(DEVICE[1] / ratio))
    assert window.mirror.frame_rect().width() == pytest.approx(DEVICE[0] / ratio)
    scroll = window.mirror_panel.mirror_area
    assert scroll.verticalScrollBar().maximum() > 0, "the rest of the phone is a scroll away"
    assert window.mirror_panel.actual_size_button.isChecked()
    assert "Full resolution" in window.status.text(), "the stream's 1280-px pictures are enlarged: it says so"
    window.mirror_panel.actual_size_button.click()       # the bar's 1:1 button: back to fitting the window
    await settle()
    assert not window.view_modes.actual_size_action.isChecked()
    assert window.mirror.height() <= scroll.viewport().height() and scroll.verticalScrollBar().maximum() == 0


@pytest.mark.asyncio
async def test_f11_shows_only_the_phone_and_escape_brings_the_desk_back(window):
    window.resize(*SMALL)
    show_a_phone(window)
    await settle()
    main = window.splitters["main"]
    before = main.sizes()
    picture = window.mirror.frame_rect().width()
    window.activateWindow()
    window.mirror.setFocus()
    QTest.keyClick(window, Qt.Key.Key_F11)
    await settle()
    assert window.isFullScreen() and window.view_modes.full_screen_action.isChecked()
    assert main.sizes()[0] == 0 and main.sizes()[2] == 0
    assert not window.menuBar().isVisible() and not window.statusBar().isVisible()
    assert window.mirror.frame_rect().width() > picture, "the phone gets the whole screen's height"
    QTest.keyClick(window.mirror, Qt.Key.Key_Escape)
    await settle()
    assert not window.isFullScreen() and not window.view_modes.full_screen_action.isChecked()
    assert main.sizes() == before and window.menuBar().isVisible() and window.statusBar().isVisible()


@pytest.mark.asyncio
async def test_closing_in_full_screen_keeps_the_desks_layout_for_next_time(window):
    from app.gui.side_panes import RIGHT, show_pane

    window.resize(*SMALL)
    await settle()
    main = window.splitters["main"]
    show_pane(window, RIGHT, True)
    await settle()
    window.view_modes.set_full_screen(True)
    await settle()
    window.close()
    await settle()
    assert not window.isFullScreen()
    window.show()                             # opened again (a hidden splitter does not lay its panes out)
    await settle()
    main.setSizes([0, sum(main.sizes()), 0])
    await settle()
    assert not window.side_panes.buttons[RIGHT].isChecked()
    window.layouts.restore()                  # the layout saved on closing: both side panes open
    await settle()
    assert main.sizes()[0] > 0 and main.sizes()[RIGHT] > 0
    assert window.side_panes.buttons[RIGHT].isChecked(), "the toggles follow a restored layout"


@pytest.mark.asyncio
async def test_past_runs_from_the_file_menu_open_the_shut_timeline_pane(window, monkeypatch):
    from app.gui.side_panes import RIGHT, show_pane

    opened: list[bool] = []
    monkeypatch.setattr(window.timeline, "show_past_runs", lambda: opened.append(True))   # (the list itself)
    window.resize(*SMALL)
    show_pane(window, RIGHT, False)
    await settle()
    window.open_past_runs()                   # File › Past runs (Ctrl+O): a run chosen there shows in the timeline
    await settle()
    assert opened and window.splitters["main"].sizes()[RIGHT] > 0 and window.timeline.isVisible()
