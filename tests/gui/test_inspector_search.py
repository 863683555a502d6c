"""The inspector as a tool to switch to: search and step through matches, Copy as, hover both
ways with the mirror, ids readable at any count, badges beside the labels they number."""

from __future__ import annotations

import ast

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QGuiApplication, QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QStyle

from app.core.perception.controls import Control
from app.gui.inspector.hierarchy_model import CONTROL_ROLE
from app.gui.mirror.mirror_frames import qimage_from_rgb
from app.gui.mirror.mirror_view import MirrorView
from tests.gui.conftest import phone_screen, shown_inspector

TREE, TABLE, DETAILS = 2, 1, 0


@pytest.fixture(scope="module")
def contacts_screen():
    return phone_screen("com.android.contacts")


@pytest.fixture(scope="module")
def home_screen():
    return phone_screen(None)


@pytest.fixture
def panel(qtbot, contacts_screen):
    return shown_inspector(qtbot, contacts_screen)


def make_mirror(qtbot, screen) -> MirrorView:
    controls, _, image = screen
    mirror = MirrorView()
    qtbot.addWidget(mirror)
    mirror.resize(360, 800)
    mirror.set_device_size((1080, 2400))
    mirror.set_frame(qimage_from_rgb(image.tobytes(), *image.size))
    mirror.set_controls(controls)
    mirror.show()
    qtbot.waitExposed(mirror)
    return mirror


def named(controls, name) -> Control:
    return next(c for c in controls if c.name == name or c.name.endswith(", " + name))


def enter(panel, shift: bool = False) -> None:
    modifier = Qt.KeyboardModifier.ShiftModifier if shift else Qt.KeyboardModifier.NoModifier
    QTest.keyClick(panel.filter_edit, Qt.Key.Key_Return, modifier)


def test_enter_steps_through_the_matches_and_selects_each_on_the_mirror(panel, qtbot, contacts_screen):
    mirror = make_mirror(qtbot, contacts_screen)
    panel.control_selected.connect(mirror.select_control)          # as the window wires them
    panel.tabs.setCurrentIndex(TABLE)
    with qtbot.assertNotEmitted(panel.control_selected):
        QTest.keyClicks(panel.filter_edit, "an")                  # typing alone chooses nothing
    matched = [panel.proxy.index(row, 0).data(CONTROL_ROLE) for row in range(panel.proxy.rowCount())]
    assert len(matched) >= 3 and all("an" in (c.name + c.resource_id + c.class_name).lower() for c in matched)
    assert panel.count_label.text() == f"{len(matched)} matches"
    chosen = []
    panel.control_selected.connect(chosen.append)
    enter(panel)
    enter(panel)
    assert chosen == matched[:2] and mirror.selected_control == matched[1]
    assert panel.count_label.text() == f"2 of {len(matched)}"
    enter(panel, shift=True)
    assert chosen[-1] == matched[0] and panel.details.control == matched[0]
    enter(panel, shift=True)                                           # wraps round to the last
    assert chosen[-1] == matched[-1] and panel.count_label.text() == f"{len(matched)} of {len(matched)}"
    panel.filter_edit.setText("no such thing")
    assert panel.count_label.text() == "no match"
    enter(panel)
    assert chosen[-1] == matched[-1]


def test_the_tree_search_marks_nodes_and_steps_through_them_including_plain_layouts(panel, qtbot, contacts_screen):
    panel.tabs.setCurrentIndex(TREE)
    panel.filter_edit.setText("Alex Morgan")                         # a TextView inside a row
    matches = panel._tree_matches
    assert len(matches) >= 1 and panel.count_label.text().startswith(f"{len(matches)} match")
    assert all("Alex Morgan" in index.data() for index in matches)
    assert matches[0].data(Qt.ItemDataRole.FontRole).bold()
    assert matches[0].data(Qt.ItemDataRole.BackgroundRole) is not None
    highlights = []
    panel.highlight_requested.connect(highlights.append)
    enter(panel)
    index = panel.tree.currentIndex()
    assert index == matches[0] and panel.tree.isExpanded(index.parent())
    node = panel.tree_model.node_for_index(index)
    control = panel.tree_model.control_for_index(index)
    if control is None:                     # a text that is no control: outlined on the mirror
        assert highlights[-1] == node.bounds
    else:
        assert panel.current_control == control
    panel.filter_edit.setText("class:FrameLayout")
    assert panel._tree_matches and all("FrameLayout" in panel.tree_model.node_for_index(i).class_name
                                        for i in panel._tree_matches)
    panel.filter_edit.clear()
    assert not panel._tree_matches and matches[0].data(Qt.ItemDataRole.FontRole) is None


def test_search_prefixes_and_ids(panel, contacts_screen):
    controls = contacts_screen[0]

    def shown():
        return [panel.proxy.index(row, 0).data(CONTROL_ROLE) for row in range(panel.proxy.rowCount())]
    panel.filter_edit.setText("id:contacts_count")
    assert [c.resource_id for c in shown()] == ["com.android.contacts:id/contacts_count"]
    panel.filter_edit.setText("#5")
    assert [c.id for c in shown()] == [5]
    panel.filter_edit.setText("desc:create contact")
    assert [c.content_desc for c in shown()] == ["Create contact"]
    panel.filter_edit.setText("text:create contact")          # a content-desc, not a text
    assert shown() == []
    panel.filter_edit.setText("class:EditText")
    assert shown() and all("EditText" in c.class_name for c in shown())
    QTest.keyClick(panel.filter_edit, Qt.Key.Key_Escape)
    assert panel.filter_edit.text() == "" and len(shown()) == len(controls)


def test_copy_as_menu_lists_every_form_and_copies_the_one_picked(panel, qtbot, contacts_screen):
    controls = contacts_screen[0]
    row = named(controls, "Alex Morgan")
    panel.show_control(row)
    entries = {key: (label, text) for key, label, text in panel.details.copy_menu_entries()}
    assert set(entries) == {"resource_id", "text", "content_desc", "xpath", "uiselector", "uiautomator2",
                            "appium", "appium_java", "adb_tap"}
    assert entries["uiautomator2"][1] != f'd(resourceId="{row.resource_id}")', "a shared resource-id alone"
    assert entries["adb_tap"][1] == "adb shell input tap {} {}".format(*row.center)
    panel.details.copy_as_menu.aboutToShow.emit()
    actions = {action.data(): action for action in panel.details.copy_as_menu.actions()}
    assert not actions["text"].isEnabled()                         # the row has no text of its own
    actions["appium"].trigger()
    copied = QGuiApplication.clipboard().text()
    assert copied == entries["appium"][1] and copied.startswith("driver.find_element(AppiumBy.")
    assert "Copied" in panel.details.copy_as_button.text()
    count = named(controls, "30 contacts")
    panel.show_control(count)
    assert panel.details.copy_text("uiautomator2") == f'd(resourceId="{count.resource_id}")'
    assert ast.parse(panel.details.copy_text("uiautomator2"))
    assert "unique on this screen" in panel.details.fields["Selector"].text()


def hover(view, point: QPoint) -> None:
    event = QMouseEvent(QEvent.Type.MouseMove, QPointF(point), QPointF(view.mapToGlobal(point)),
                        Qt.MouseButton.NoButton, Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(view, event)


def test_hover_on_the_mirror_tints_the_row_and_node_and_shows_a_card(panel, qtbot, contacts_screen):
    controls = contacts_screen[0]
    mirror = make_mirror(qtbot, contacts_screen)
    mirror.control_hovered.connect(panel.show_hovered)
    panel.tabs.setCurrentIndex(TREE)
    target = named(controls, "Dev Patel")
    before = mirror.grab().toImage()
    cursor = mirror.device_to_widget(*target.center)
    hover(mirror, cursor.toPoint())
    assert mirror.hovered_control == target
    node = panel.tree_model.index_for_control(target)
    assert node.data(Qt.ItemDataRole.BackgroundRole) is not None
    assert panel.tree.visualRect(node).intersects(panel.tree.viewport().rect()), "scrolled into view"
    row = panel.table_model.row_of(target)
    assert panel.table_model.index(row, 2).data(Qt.ItemDataRole.BackgroundRole) is not None
    after = mirror.grab().toImage()
    card = [(cursor + QPointF(dx, dy)).toPoint() for dx in range(30, 120, 10) for dy in range(30, 60, 6)]
    changed = sum(before.pixelColor(point) != after.pixelColor(point) for point in card)
    assert changed > 0.8 * len(card), "a card with the control's attributes opens below-right of the cursor"
    hover(mirror, mirror.device_to_widget(540, 40).toPoint())     # the status bar: no control
    assert panel.table_model.index(row, 2).data(Qt.ItemDataRole.BackgroundRole) is None


def test_the_row_under_the_mouse_in_the_inspector_is_outlined_on_the_mirror(panel, qtbot, contacts_screen):
    mirror = make_mirror(qtbot, contacts_screen)
    panel.highlight_requested.connect(mirror.show_highlight)
    panel.tabs.setCurrentIndex(TABLE)
    index = panel.proxy.index(4, 2)
    control = index.data(CONTROL_ROLE)
    before = mirror.grab().toImage()
    panel.table.entered.emit(index)          # what the view emits when the mouse enters a cell
    assert mirror.highlighted_rect == control.rect
    edge = mirror.device_to_widget(control.rect[0] + 300, control.rect[1])
    assert before.pixelColor(edge.toPoint()) != mirror.grab().toImage().pixelColor(edge.toPoint())
    QApplication.sendEvent(panel.table.viewport(), QEvent(QEvent.Type.Leave))
    assert mirror.highlighted_rect is None


def many_controls(count: int) -> list[Control]:
    return [Control(id=i, name=f"Item {i}", type="TextView", class_name="android.widget.TextView",
                    resource_id=f"app:id/item_{i}", text=f"Item {i}", content_desc="",
                    rect=(0, 8 * i, 1080, 8 * i + 8)) for i in range(1, count + 1)]


def test_ids_in_the_table_show_whole_at_any_count(panel):
    controls = many_controls(300)
    panel.set_snapshot(controls, None)
    panel.tabs.setCurrentIndex(TABLE)
    metrics = panel.table.fontMetrics()
    swatch = panel.table.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize)
    for control_id in (9, 10, 99, 100, 300):
        assert panel.table.columnWidth(0) >= metrics.horizontalAdvance(str(control_id)) + swatch + 8
    assert panel.count_label.text() == "300 controls"


def test_badges_show_every_digit_and_never_cover_the_label_they_number(qtbot, home_screen):
    mirror = make_mirror(qtbot, home_screen)
    layer = mirror._layer
    for control_id in (7, 42, 123):
        colour, ink, text, width, height = layer._badge(control_id)
        assert width >= layer._metrics.horizontalAdvance(str(control_id)) + 4
    date = next(control for control in mirror.controls if control.type == "TextView" and control.text)
    with_overlay = mirror.grab().toImage()
    mirror.set_overlay_visible(False)
    without = mirror.grab().toImage()
    box = mirror.device_to_widget(*date.rect[:2])
    for dx in range(4, 40, 3):                  # the first letters of the date, inside its box
        for dy in range(4, 14, 3):
            point = (box + QPointF(dx, dy)).toPoint()
            assert with_overlay.pixelColor(point) == without.pixelColor(point), "a badge covers the date"


def test_a_node_that_is_no_control_shows_its_attributes_and_locators(panel, contacts_screen):
    panel.tabs.setCurrentIndex(TREE)
    panel.filter_edit.setText("Dev Patel")
    highlights = []
    panel.highlight_requested.connect(highlights.append)
    text_nodes = [i for i in panel._tree_matches if panel.tree_model.control_for_index(i) is None]
    assert text_nodes, "the name is a TextView inside the row, not a numbered control"
    while panel.tree.currentIndex() != text_nodes[0]:
        enter(panel)
    node = panel.tree_model.node_for_index(text_nodes[0])
    assert panel.details.title.text() == "TextView (not a numbered control)"
    assert panel.details.fields["Text"].text() == "Dev Patel" and highlights[-1] == node.bounds
    assert panel.details.copy_text("uiautomator2") == 'd(text="Dev Patel")'


def test_the_same_screen_read_again_keeps_the_tree_as_the_person_left_it(panel, contacts_screen):
    controls, hierarchy, _ = contacts_screen
    panel.tabs.setCurrentIndex(TREE)
    row = panel.tree_model.index_for_control(named(controls, "Emma Thompson"))
    panel.tree.expand(row)
    reread = parse_hierarchy_again(contacts_screen)
    panel.set_snapshot(list(controls), reread)          # the phone panel's refresh: equal, not the same objects
    assert panel.tree.isExpanded(panel.tree_model.index_for_control(named(controls, "Emma Thompson")))
    panel.set_snapshot(controls[:-1], hierarchy)        # a changed screen starts afresh
    assert not panel.tree.isExpanded(panel.tree_model.index_for_control(named(controls, "Emma Thompson")))


def parse_hierarchy_again(screen):
    """The same screen read again: equal nodes, new objects."""
    import copy

    return copy.deepcopy(screen[1])


def test_ctrl_f_goes_to_the_search_box(panel):
    from PySide6.QtGui import QKeySequence

    assert panel.find_shortcut.key() == QKeySequence(QKeySequence.StandardKey.Find)
    panel.filter_edit.setText("alex")
    panel.tree.setFocus()
    panel.find_shortcut.activated.emit()
    assert panel.filter_edit.hasFocus() and panel.filter_edit.selectedText() == "alex"
