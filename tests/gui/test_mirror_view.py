"""The mirror: device↔widget mapping, the overlay, hover/selection, touch and pick input, proposals."""

from __future__ import annotations

import pytest
from PIL import Image
from PySide6.QtCore import QEvent, QPoint, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QImage, QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from app.core.agent.actions import Action
from app.core.perception.hierarchy import parse_hierarchy, select_controls
from app.gui.mirror.mirror_frames import frame_for_view, qimage_from_rgb, ready_for_view
from app.gui.mirror.mirror_overlay import control_qcolor
from app.gui.mirror.mirror_view import MirrorView
from app.gui.mirror.proposal_overlay import PROPOSAL_COLOUR
from app.virtual_phone.phone import VirtualPhone

DEVICE = (1080, 2400)


@pytest.fixture(scope="module")
def settings_screen():
    """The virtual phone's Settings screen: its controls and the RGB bytes of its screenshot."""
    phone = VirtualPhone()
    phone.launch("com.android.settings")
    controls = select_controls(parse_hierarchy(phone.dump_hierarchy()), DEVICE)
    image = phone.screenshot().convert("RGB")
    return controls, image.tobytes(), image.size


def by_id(controls, control_id):
    return next(c for c in controls if c.id == control_id)


@pytest.fixture
def mirror(qtbot, settings_screen):
    controls, rgb, (width, height) = settings_screen
    view = MirrorView()
    qtbot.addWidget(view)
    view.resize(540, 1200)
    view.set_device_size(DEVICE)
    view.set_frame(qimage_from_rgb(rgb, width, height))
    view.set_controls(controls)
    view.show()
    qtbot.waitExposed(view)
    return view


def widget_point(view: MirrorView, x: float, y: float) -> QPoint:
    return view.device_to_widget(x, y).toPoint()


def hover(view: MirrorView, point: QPoint) -> None:
    """Move the mouse over `view` (sent to it directly: a window left open by another test
    could otherwise be the one under the offscreen cursor)."""
    event = QMouseEvent(QEvent.Type.MouseMove, QPointF(point), QPointF(view.mapToGlobal(point)),
                        Qt.MouseButton.NoButton, Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(view, event)


def pixel(image: QImage, point: QPointF | QPoint) -> QColor:
    point = QPointF(point).toPoint()
    return image.pixelColor(point.x(), point.y())


def differs(a: QColor, b: QColor, tolerance: int = 40) -> bool:
    return abs(a.red() - b.red()) + abs(a.green() - b.green()) + abs(a.blue() - b.blue()) > tolerance


def colour_near(image: QImage, point: QPointF, colour: QColor, tolerance: int = 60, reach: int = 2) -> bool:
    """Whether a pixel within `reach` of `point` has `colour` (lines are a few pixels wide)."""
    centre = QPointF(point).toPoint()
    return any(not differs(pixel(image, QPoint(centre.x() + dx, centre.y() + dy)), colour, tolerance)
               for dx in range(-reach, reach + 1) for dy in range(-reach, reach + 1)
               if image.rect().contains(centre.x() + dx, centre.y() + dy))


# ---------------------------------------------------------------- mapping


@pytest.mark.parametrize("size", [(540, 1200), (300, 900), (900, 500), (1000, 1000), (201, 777)])
def test_mapping_keeps_the_aspect_and_round_trips(mirror, size):
    mirror.resize(*size)
    frame = mirror.frame_rect()
    assert frame.width() / frame.height() == pytest.approx(1080 / 2400, rel=1e-3)
    assert QRectF(mirror.rect()).contains(frame.adjusted(0.5, 0.5, -0.5, -0.5))
    assert frame.width() == pytest.approx(size[0], abs=0.5) or frame.height() == pytest.approx(size[1], abs=0.5)
    assert mirror.device_to_widget(0, 0) == frame.topLeft()
    bottom_right = mirror.device_to_widget(1080, 2400)
    assert bottom_right.x() == pytest.approx(frame.right()) and bottom_right.y() == pytest.approx(frame.bottom())
    device_px_per_widget_px = 1080 / frame.width()
    for x, y in [(0, 0), (540, 1200), (1079, 2399), (17, 2301), (1000, 90)]:
        back = mirror.widget_to_device(mirror.device_to_widget(x + 0.5, y + 0.5))
        assert abs(back[0] - x) <= device_px_per_widget_px and abs(back[1] - y) <= device_px_per_widget_px
    assert mirror.widget_to_device(frame.topLeft() - QPointF(2, 2)) is None


def test_a_downscaled_frame_still_maps_to_device_pixels(mirror, settings_screen):
    _, rgb, (width, height) = settings_screen
    small = qimage_from_rgb(rgb, width, height).scaled(QSize(270, 600))
    mirror.set_frame(small)
    frame = mirror.frame_rect()
    assert mirror.widget_to_device(frame.center()) == (540, 1200)
    assert mirror.device_size == DEVICE


def test_frames_for_the_view_keep_their_colours(settings_screen):
    _, rgb, (width, height) = settings_screen
    screenshot = Image.frombytes("RGB", (width, height), rgb).convert("RGBA")  # as phones send them
    data, size = frame_for_view(screenshot, QSize(460, 1000))
    assert size == (540, 1200), "halved: the largest whole factor that stays above the view"
    frame = qimage_from_rgb(data, *size)
    reduced = screenshot.reduce(2)
    for x, y in [(0, 0), (50, 350), (539, 1199), (270, 600)]:
        assert frame.pixelColor(x, y).getRgb()[:3] == reduced.getpixel((x, y))[:3]
    assert qimage_from_rgb(rgb, width, height).pixelColor(60, 700).getRgb()[:3] == screenshot.getpixel((60, 700))[:3]


def test_the_streams_bgrx_rows_reach_the_view_unconverted_and_keep_their_colours(settings_screen):
    """A decoder's rows carry padding past the picture's width; the mirror wraps them as they are
    (no worker thread, no packing) when the frame needs no shrinking, and shrinks it otherwise."""
    from app.core.device.screen_capture import PackedPixels, Screenshot

    _, rgb, (width, height) = settings_screen
    picture = Image.frombytes("RGB", (width, height), rgb)
    padding = 64
    row = width * 4 + padding
    packed = picture.tobytes("raw", "BGRX")
    data = b"".join(packed[y * width * 4:(y + 1) * width * 4] + b"\xee" * padding for y in range(height))
    shot = Screenshot(picture, "stream", 0.0, 1.0, pixels=PackedPixels(data, width, height, row))
    frame = ready_for_view(shot, QSize(width - 1, height - 1))
    assert frame is not None and (frame.width(), frame.height()) == (width, height)
    for x, y in [(0, 0), (50, 350), (width - 1, height - 1), (width // 2, height // 2)]:
        assert frame.pixelColor(x, y).getRgb()[:3] == picture.getpixel((x, y))
    assert ready_for_view(shot, QSize(width // 2, height // 2)) is None, "twice the view: frame_for_view halves it"
    assert ready_for_view(Screenshot(picture, "raw", 1.0, 1.0), QSize(width, height)) is None, "a screencap has no rows"


def test_without_a_frame_the_placeholder_shows_and_input_is_ignored(qtbot):
    view = MirrorView()
    qtbot.addWidget(view)
    view.resize(400, 800)
    view.set_placeholder("No phone attached")
    view.set_interaction_mode("touch")
    view.show()
    qtbot.waitExposed(view)
    assert view.frame_rect().isEmpty() and view.widget_to_device(QPointF(200, 400)) is None
    with qtbot.assertNotEmitted(view.tap_requested):
        QTest.mouseClick(view, Qt.MouseButton.LeftButton, pos=QPoint(200, 400))
    shot = view.grab().toImage()
    inside, background = pixel(shot, QPoint(200, 330)), pixel(shot, QPoint(5, 5))
    assert differs(inside, background, 20), "the phone outline is drawn"


# ---------------------------------------------------------------- hover, selection


def test_hover_reports_the_smallest_control_under_the_cursor(mirror, qtbot):
    controls = mirror.controls
    network, recycler = by_id(controls, 4), by_id(controls, 1)
    assert recycler.type == "RecyclerView"
    hover(mirror, widget_point(mirror, *by_id(controls, 9).center))  # from a known control
    assert mirror.hovered_control == by_id(controls, 9)
    before = mirror.grab().toImage()
    seen = []
    mirror.control_hovered.connect(seen.append)
    hover(mirror, widget_point(mirror, *network.center))
    assert seen[-1] == network and mirror.hovered_control == network
    after = mirror.grab().toImage()
    probe = widget_point(mirror, network.rect[0] + 600, network.rect[1] + 20)
    assert differs(pixel(before, probe), pixel(after, probe), 20), "the hovered control is tinted"
    hover(mirror, widget_point(mirror, 30, 300))  # inside the list only, beside the title
    assert seen[-1] == recycler
    hover(mirror, widget_point(mirror, 500, 40))  # the status bar between the clock and the icons
    assert seen[-1] is None


def test_click_selects_and_clicking_again_cycles_through_stacked_controls(mirror, qtbot):
    controls = mirror.controls
    network, recycler = by_id(controls, 4), by_id(controls, 1)
    assert mirror.controls_at(*network.center) == [network, recycler]
    point = widget_point(mirror, *network.center)
    chosen = []
    mirror.control_selected.connect(chosen.append)
    for _ in range(3):
        QTest.mouseClick(mirror, Qt.MouseButton.LeftButton, pos=point)
    assert chosen == [network, recycler, network]
    QTest.mouseClick(mirror, Qt.MouseButton.LeftButton, pos=point + QPoint(0, 2))  # "nearly" the same spot
    assert chosen[-1] == recycler
    battery = by_id(controls, 8)
    QTest.mouseClick(mirror, Qt.MouseButton.LeftButton, pos=widget_point(mirror, *battery.center))
    assert chosen[-1] == battery and mirror.selected_control == battery


def test_tab_and_shift_tab_cycle_the_stack(mirror, qtbot):
    network, recycler = by_id(mirror.controls, 4), by_id(mirror.controls, 1)
    chosen = []
    mirror.control_selected.connect(chosen.append)
    QTest.mouseClick(mirror, Qt.MouseButton.LeftButton, pos=widget_point(mirror, *network.center))
    QTest.keyClick(mirror, Qt.Key.Key_Tab)
    QTest.keyClick(mirror, Qt.Key.Key_Tab)
    QTest.keyClick(mirror, Qt.Key.Key_Backtab)
    assert chosen == [network, recycler, network, recycler]


def test_select_control_draws_the_selection_without_emitting(mirror, qtbot):
    target = by_id(mirror.controls, 9)
    before = mirror.grab().toImage()
    with qtbot.assertNotEmitted(mirror.control_selected):
        mirror.select_control(target)
    after = mirror.grab().toImage()
    edge = mirror.device_to_widget(target.rect[0] + 200, target.rect[1])
    outside = widget_point(mirror, 540, 420)  # another control: dimmed around the selection
    assert differs(pixel(before, edge), pixel(after, edge))
    assert differs(pixel(before, outside), pixel(after, outside), 20)
    assert mirror.selected_control == target
    mirror.set_controls(mirror.controls)  # the same screen again: the selection stays
    assert mirror.selected_control == target
    mirror.set_controls(mirror.controls[:5])
    assert mirror.selected_control is None


def test_overlay_toggle_changes_the_painted_pixels(mirror):
    storage = by_id(mirror.controls, 4)      # the first row: its badge, above it, covers no words (solid)
    left_edge = mirror.device_to_widget(storage.rect[0], (storage.rect[1] + storage.rect[3]) / 2)
    badge = mirror.device_to_widget(storage.rect[0], storage.rect[1]) + QPointF(4, -4)  # above its box
    with_overlay = mirror.grab().toImage()
    mirror.set_overlay_visible(False)
    assert not mirror.overlay_visible
    without = mirror.grab().toImage()
    colour = control_qcolor(storage.id)
    assert not differs(pixel(with_overlay, badge), colour, 30), "the badge has the control's colour"
    assert colour_near(with_overlay, left_edge, colour)
    assert not colour_near(without, left_edge, colour)
    mirror.set_overlay_visible(True)
    assert mirror.grab().toImage() == with_overlay


def test_a_full_size_frame_paints_and_reports_its_time(mirror, settings_screen):
    _, rgb, (width, height) = settings_screen
    mirror.set_frame(qimage_from_rgb(rgb, width, height))
    mirror.repaint()
    assert mirror.last_paint_ms > 0


# ---------------------------------------------------------------- touch and pick


def test_touch_mode_click_taps_in_device_pixels(mirror, qtbot):
    mirror.set_interaction_mode("touch")
    assert mirror.cursor().shape() == Qt.CursorShape.PointingHandCursor
    tolerance = 1080 / mirror.frame_rect().width() + 1
    with qtbot.waitSignal(mirror.tap_requested) as tap:
        QTest.mouseClick(mirror, Qt.MouseButton.LeftButton, pos=widget_point(mirror, 540, 1000))
    x, y = tap.args
    assert abs(x - 540) <= tolerance and abs(y - 1000) <= tolerance
    with qtbot.assertNotEmitted(mirror.control_selected):
        QTest.mouseClick(mirror, Qt.MouseButton.LeftButton, pos=widget_point(mirror, 540, 1000))


def test_touch_mode_drag_swipes_with_its_duration_and_a_trail(mirror, qtbot):
    mirror.set_interaction_mode("touch")
    start, middle, end = (widget_point(mirror, 540, y) for y in (1800, 1300, 700))
    QTest.mousePress(mirror, Qt.MouseButton.LeftButton, pos=start)
    QTest.mouseMove(mirror, middle)
    QTest.mouseMove(mirror, end)
    trail_probe = mirror.device_to_widget(540, 1500)
    during = mirror.grab().toImage()
    with qtbot.waitSignal(mirror.swipe_requested) as swipe:
        QTest.mouseRelease(mirror, Qt.MouseButton.LeftButton, pos=end, delay=450)
    x1, y1, x2, y2, duration = swipe.args
    tolerance = 1080 / mirror.frame_rect().width() + 1
    assert abs(x1 - 540) <= tolerance and abs(y1 - 1800) <= tolerance
    assert abs(x2 - 540) <= tolerance and abs(y2 - 700) <= tolerance
    assert 450 <= duration <= 2000
    accent = mirror.palette().color(mirror.palette().ColorRole.Highlight)
    assert colour_near(during, trail_probe, accent, 150), "the finger's trail is drawn"


def test_a_quick_flick_lasts_at_least_the_minimum(mirror, qtbot):
    mirror.set_interaction_mode("touch")
    start, end = widget_point(mirror, 900, 1200), widget_point(mirror, 100, 1200)
    QTest.mousePress(mirror, Qt.MouseButton.LeftButton, pos=start)
    QTest.mouseMove(mirror, end)
    with qtbot.waitSignal(mirror.swipe_requested) as swipe:
        QTest.mouseRelease(mirror, Qt.MouseButton.LeftButton, pos=end)
    assert swipe.args[4] == 100


def test_pick_mode_picks_a_control_or_a_point_and_escape_cancels(mirror, qtbot):
    mirror.set_interaction_mode("touch")
    mirror.set_interaction_mode("pick")
    assert mirror.cursor().shape() == Qt.CursorShape.CrossCursor
    network = by_id(mirror.controls, 4)
    with qtbot.waitSignal(mirror.control_picked) as picked:
        QTest.mouseClick(mirror, Qt.MouseButton.LeftButton, pos=widget_point(mirror, *network.center))
    assert picked.args == [network]
    with qtbot.waitSignal(mirror.point_picked) as point:
        QTest.mouseClick(mirror, Qt.MouseButton.LeftButton, pos=widget_point(mirror, 500, 40))
    assert abs(point.args[0] - 500) <= 3 and abs(point.args[1] - 40) <= 3
    assert mirror.interaction_mode == "pick", "picking goes on until cancelled"
    with qtbot.waitSignal(mirror.pick_cancelled), qtbot.waitSignal(mirror.interaction_mode_changed) as changed:
        QTest.keyClick(mirror, Qt.Key.Key_Escape)
    assert changed.args == ["touch"] and mirror.interaction_mode == "touch"
    with qtbot.assertNotEmitted(mirror.pick_cancelled):
        QTest.keyClick(mirror, Qt.Key.Key_Escape)
    with pytest.raises(ValueError):
        mirror.set_interaction_mode("drag")


# ---------------------------------------------------------------- proposals


def test_a_proposed_click_is_drawn_around_its_target_and_cleared(mirror):
    target = by_id(mirror.controls, 6)
    plain = mirror.grab().toImage()
    mirror.show_proposal(Action(function="click_control", arguments={"control_id": 9}), target)
    shown = mirror.grab().toImage()
    border = mirror.device_to_widget(target.rect[0] + 400, target.rect[1])
    centre = mirror.device_to_widget(*target.center)
    ring = centre + QPointF(16, 0)
    assert colour_near(shown, border, PROPOSAL_COLOUR)
    assert colour_near(shown, ring, PROPOSAL_COLOUR)
    assert not colour_near(plain, ring, PROPOSAL_COLOUR)
    mirror.show_proposal(None, None)
    assert mirror.grab().toImage() == plain


@pytest.mark.parametrize("action, probe", [
    (Action(function="swipe", arguments={"start_x": 540, "start_y": 1900, "end_x": 540, "end_y": 800}), (540, 1300)),
    (Action(function="tap", arguments={"x": 300, "y": 2000}), (300, 2000)),
    (Action(function="scroll", arguments={"direction": "down"}), (540, 1200)),
])
def test_gestures_without_a_target_are_drawn(mirror, action, probe):
    plain = mirror.grab().toImage()
    mirror.show_proposal(action, None)
    shown = mirror.grab().toImage()
    point = mirror.device_to_widget(*probe)
    assert differs(pixel(plain, point), pixel(shown, point))


def test_typing_shows_a_caption_next_to_the_field(mirror):
    field = by_id(mirror.controls, 3)
    plain = mirror.grab().toImage()
    mirror.show_proposal(Action(function="type_text", arguments={"text": "wi-fi ✓ 日本", "control_id": 6}), field)
    shown = mirror.grab().toImage()
    below = mirror.device_to_widget(field.center[0], field.rect[3] + 40)
    assert differs(pixel(plain, below), pixel(shown, below))


def test_a_drag_to_another_control_is_an_arrow_between_them(mirror):
    start, end = by_id(mirror.controls, 3), by_id(mirror.controls, 6)
    plain = mirror.grab().toImage()
    action = Action(function="drag", arguments={"from_control_id": 3, "to_control_id": 6})
    mirror.show_proposal(action, start, mirror.controls)
    shown = mirror.grab().toImage()
    middle = mirror.device_to_widget((start.center[0] + end.center[0]) / 2, (start.center[1] + end.center[1]) / 2)
    assert differs(pixel(plain, middle), pixel(shown, middle))
    # the drop control is outlined too (dashed): its box's edge, away from the arrow, is drawn on
    edge = mirror.device_to_widget(end.rect[2] - 60, end.rect[3])
    assert any(colour_near(shown, edge + QPointF(0, dy), PROPOSAL_COLOUR) for dy in (-1, 0, 1)) and \
        not colour_near(plain, edge, PROPOSAL_COLOUR)
    mirror.show_proposal(action, start)      # without the screen's controls the drop is unknown: a caption
    assert mirror.grab().toImage() != shown
