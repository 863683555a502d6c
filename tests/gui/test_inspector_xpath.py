"""The inspector as the anchors' users expect it: search by XPath (what Copy XPath copies finds its
node again), the hierarchy opened and scrolled to the selected node, and a short pane that scrolls
rather than laying rows over each other."""

from __future__ import annotations

from itertools import combinations

import pytest
from PySide6.QtCore import QItemSelectionModel, QRect, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractButton, QLabel, QScrollArea, QWidget

from app.core.perception.xpath_search import XPathScreen
from app.gui.inspector.inspector import TREE_INDENT, InspectorPanel
from app.gui.mirror.mirror_frames import qimage_from_rgb
from app.gui.mirror.mirror_view import MirrorView
from tests.gui.conftest import phone_screen, shown_inspector

TREE, TABLE, DETAILS = 2, 1, 0


@pytest.fixture(scope="module")
def contacts_screen():
    return phone_screen("com.android.contacts")


@pytest.fixture(scope="module")
def settings_screen():
    return phone_screen("com.android.settings")


@pytest.fixture
def panel(qtbot, contacts_screen):
    return shown_inspector(qtbot, contacts_screen)


def enter(panel: InspectorPanel) -> None:
    QTest.keyClick(panel.filter_edit, Qt.Key.Key_Return)


def marked_paths(panel: InspectorPanel) -> list[tuple[int, ...]]:
    return [panel.tree_model.node_for_index(index).path for index in panel._tree_matches]


def test_an_xpath_marks_the_nodes_it_finds_and_enter_selects_each(panel, qtbot, contacts_screen):
    controls, hierarchy, _ = contacts_screen
    xpath = '//*[@clickable="true"]'
    expected = XPathScreen(hierarchy).find(xpath)
    panel.filter_edit.setText(xpath)
    assert marked_paths(panel) == list(expected.paths) and len(expected.paths) >= 3
    listed = [panel.proxy.index(row, 0).data(Qt.ItemDataRole.UserRole) for row in range(panel.proxy.rowCount())]
    assert listed and all(control.node_path in expected.paths for control in listed)
    assert panel.search_bar.message.isVisible()
    assert panel.search_bar.message.text().startswith(f"XPath: {expected.total} nodes")
    chosen = []
    panel.control_selected.connect(chosen.append)
    enter(panel)
    enter(panel)
    assert [c.node_path for c in chosen] == [p for p in expected.paths[:2] if p in {c.node_path for c in controls}]
    assert panel.count_label.text() == f"2 of {expected.total}"


def test_while_an_xpath_is_typed_the_mirror_outlines_its_first_match(panel, qtbot, contacts_screen):
    _, hierarchy, _ = contacts_screen
    outlines = []
    panel.highlight_requested.connect(outlines.append)
    panel.filter_edit.setText("Alex")                      # words: nothing outlined (Enter chooses)
    assert outlines == []
    panel.filter_edit.setText('//*[@clickable="true"][2]')
    first = XPathScreen(hierarchy).find('//*[@clickable="true"][2]').paths[0]
    node = next(n for n in hierarchy.iter_nodes() if n.path == first)
    assert outlines == [node.bounds]
    panel.filter_edit.setText('//*[@clickable="true"][')   # half typed: no outline
    panel.filter_edit.setText("")
    assert outlines == [node.bounds, None]


def test_what_copy_xpath_copies_finds_the_same_control_or_node(panel, settings_screen, contacts_screen):
    for controls, hierarchy, _ in (contacts_screen, settings_screen):
        panel.set_snapshot(controls, hierarchy)
        for control in controls:
            panel.show_control(control)
            xpath = panel.details.copy_text("xpath")
            panel.filter_edit.setText(xpath)
            assert marked_paths(panel) == [control.node_path], (control, xpath, panel.search_bar.message.text())
            panel.filter_edit.clear()
        plain = [node for node in hierarchy.iter_nodes()
                 if node.path not in {c.node_path for c in controls}][:25]      # layouts, labels in rows
        for node in plain:
            index = panel.tree_model._index_of(panel.tree_model._item_by_path[node.path])
            panel.tree.selectionModel().setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect)
            xpath = panel.details.copy_text("xpath")
            panel.filter_edit.setText(xpath)
            assert marked_paths(panel) == [node.path], (node.path, xpath)
            panel.filter_edit.clear()


def test_a_bad_or_costly_xpath_says_why_under_the_search_box(panel):
    panel.filter_edit.setText('//*[@text="Alex')
    message = panel.search_bar.message
    assert message.isVisible() and message.text().startswith("Not a valid XPath")
    assert panel.count_label.text() == "no match" and panel.proxy.rowCount() == 0
    panel.filter_edit.setText("//*[count(//*[count(//*[count(//*)])])]")
    assert "too many to search" in message.text()
    panel.filter_edit.setText("(1 + 1)")
    assert "not nodes" in message.text()
    panel.filter_edit.setText("Alex")                  # words again: no XPath, no message
    assert not message.isVisible() and panel.proxy.rowCount() >= 1
    panel.set_snapshot(panel.table_model.controls, None)
    panel.filter_edit.setText("//node")
    assert message.text() == "This screen has no UI hierarchy to search by XPath."


def label_in_view(panel: InspectorPanel) -> bool:
    """The selected node's row is in the tree's view with its label from its start: whole, or (a label wider
    than the pane) scrolled to within a few indentation steps of the left edge, never cut off at the right."""
    index = panel.tree.currentIndex()
    rect = panel.tree.visualRect(index)
    label = panel.tree.fontMetrics().horizontalAdvance(index.data())
    view = panel.tree.viewport().rect()
    whole = rect.left() + label <= view.right()
    return index.isValid() and view.intersects(rect) and 0 <= rect.left() and (whole or rect.left() <= 3 * TREE_INDENT)


@pytest.mark.parametrize("tab_when_chosen", [DETAILS, TREE])
@pytest.mark.parametrize("width", [200, 250])
def test_the_hierarchy_opens_to_the_control_chosen_on_the_mirror(qtbot, settings_screen, tab_when_chosen, width):
    controls, hierarchy, image = settings_screen
    panel = shown_inspector(qtbot, settings_screen)
    panel.resize(width, 260)                                  # a narrow, short pane
    mirror = MirrorView()
    qtbot.addWidget(mirror)
    mirror.resize(360, 800)
    mirror.set_device_size((1080, 2400))
    mirror.set_frame(qimage_from_rgb(image.tobytes(), *image.size))
    mirror.set_controls(controls)
    mirror.show()
    qtbot.waitExposed(mirror)
    mirror.control_selected.connect(panel.show_control)      # wired as the main window wires them
    panel.tabs.setCurrentIndex(tab_when_chosen)
    deepest = max(controls, key=lambda c: (len(c.node_path), c.id))
    assert len(deepest.node_path) >= 8
    with qtbot.waitSignal(mirror.control_selected) as chosen:
        QTest.mouseClick(mirror, Qt.MouseButton.LeftButton, pos=mirror.device_to_widget(*deepest.center).toPoint())
    assert len(chosen.args[0].node_path) >= 8
    panel.tabs.setCurrentIndex(TREE)
    assert panel.tree_model.control_for_index(panel.tree.currentIndex()) == chosen.args[0]
    assert label_in_view(panel)
    panel.tabs.setCurrentIndex(tab_when_chosen)
    panel.show_control(deepest)                               # the deepest control there is
    panel.tabs.setCurrentIndex(TREE)
    assert panel.tree_model.control_for_index(panel.tree.currentIndex()) == deepest
    assert label_in_view(panel)


def row_widgets(panel: InspectorPanel) -> tuple[QScrollArea, list[QWidget]]:
    scroll = panel.details.findChild(QScrollArea)
    body = scroll.widget()
    widgets = [w for w in body.findChildren(QWidget) if isinstance(w, QLabel | QAbstractButton) and w.isVisible()]
    return scroll, widgets


@pytest.mark.parametrize("width", [240, 320, 420])
def test_a_short_pane_scrolls_and_no_two_rows_overlap(qtbot, settings_screen, width):
    controls, _, _ = settings_screen
    panel = shown_inspector(qtbot, settings_screen)
    panel.resize(width, 200)
    panel.show_control(max(controls, key=lambda c: len(c.name)))
    QTest.qWait(0)                                            # the layout's pending pass
    scroll, widgets = row_widgets(panel)
    body = scroll.widget()
    boxes = [(w, QRect(w.mapTo(body, w.rect().topLeft()), w.size())) for w in widgets]
    for (a, box_a), (b, box_b) in combinations(boxes, 2):
        assert not box_a.intersects(box_b), f"{a.text()!r} {box_a} overlaps {b.text()!r} {box_b}"
    for widget, box in boxes:
        needed = widget.heightForWidth(box.width()) if widget.hasHeightForWidth() else widget.minimumSizeHint().height()
        assert box.height() >= needed, f"{widget.text()!r} squeezed to {box.height()} px of {needed}"
    flag_tops = sorted({label.mapTo(body, label.rect().topLeft()).y() for label in panel.details.flag_labels.values()})
    flag_height = max(label.height() for label in panel.details.flag_labels.values())
    assert all(lower - upper >= flag_height + 2 for upper, lower in zip(flag_tops, flag_tops[1:], strict=False))
    assert body.height() > scroll.viewport().height()          # it scrolls…
    assert scroll.verticalScrollBar().isVisible()
    if body.width() > scroll.viewport().width():                # …sideways too, rather than cut anything off
        assert scroll.horizontalScrollBar().isVisible()
