"""The inspector: attributes and copy buttons, the filtered table, the hierarchy tree, and no signal loops."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest

from app.core.perception.controls import Control
from app.core.perception.hierarchy import parse_hierarchy, screen_size_from_hierarchy, select_controls
from app.gui.inspector.hierarchy_model import CONTROL_ROLE
from app.gui.inspector.inspector import InspectorPanel
from app.gui.mirror.mirror_frames import qimage_from_rgb
from app.gui.mirror.mirror_view import MirrorView
from tests.gui.conftest import phone_screen, shown_inspector

AVITO_DUMP = "kram1k__android_avito_parsing/search_hierarchy.xml"


@pytest.fixture(scope="module")
def settings_screen():
    return phone_screen("com.android.settings")


@pytest.fixture
def panel(qtbot, settings_screen):
    return shown_inspector(qtbot, settings_screen)


def by_id(controls, control_id):
    return next(c for c in controls if c.id == control_id)


def shown_controls(panel: InspectorPanel) -> list[Control]:
    return [panel.proxy.index(row, 0).data(CONTROL_ROLE) for row in range(panel.proxy.rowCount())]


def tree_control(panel: InspectorPanel):
    return panel.tree_model.control_for_index(panel.tree.currentIndex())


def test_the_filter_narrows_the_table_on_any_column_ignoring_case(panel, settings_screen):
    controls = settings_screen[0]
    assert shown_controls(panel) == controls
    panel.filter_edit.setText("BATTERY")
    assert {c.id for c in shown_controls(panel)} == {8}  # a name
    panel.filter_edit.setText("com.android.settings:id/home")  # full resource-ids, though the table shows their tail
    assert {c.id for c in shown_controls(panel)} == {2}
    panel.filter_edit.setText("[0,1932]")  # bounds
    assert [c.id for c in shown_controls(panel)] == [11]
    assert panel.count_label.text() == "1 match"
    panel.filter_edit.setText("no such control")
    assert shown_controls(panel) == []
    panel.filter_edit.clear()
    assert len(shown_controls(panel)) == len(controls)


def test_filtering_never_chooses_a_control(panel, qtbot, settings_screen):
    controls = settings_screen[0]
    panel.show_control(by_id(controls, 6))
    with qtbot.assertNotEmitted(panel.control_selected):
        panel.filter_edit.setText("net")
        panel.filter_edit.clear()
    assert panel.current_control == by_id(controls, 6)


def test_clicking_a_row_selects_its_control_everywhere(panel, qtbot, settings_screen):
    controls = settings_screen[0]
    panel.tabs.setCurrentIndex(1)
    panel.filter_edit.setText("storage")
    row_rect = panel.table.visualRect(panel.proxy.index(0, 2))
    with qtbot.waitSignal(panel.control_selected) as chosen:
        QTest.mouseClick(panel.table.viewport(), Qt.MouseButton.LeftButton, pos=row_rect.center())
    storage = by_id(controls, 9)
    assert chosen.args == [storage]
    assert panel.details.fields["Name"].text() == storage.name
    assert tree_control(panel) == storage


def test_show_control_selects_the_tree_node_and_does_not_emit(panel, qtbot, settings_screen):
    controls = settings_screen[0]
    search = by_id(controls, 3)
    with qtbot.assertNotEmitted(panel.control_selected):
        panel.show_control(search)
    index = panel.tree.currentIndex()
    assert tree_control(panel) == search
    assert panel.tree.selectionModel().isSelected(index)
    assert index.data().startswith("#3 TextView")
    ancestor = index.parent()
    while ancestor.isValid():
        assert panel.tree.isExpanded(ancestor)
        ancestor = ancestor.parent()
    selected_rows = panel.table.selectionModel().selectedRows()
    assert [row.data(CONTROL_ROLE) for row in selected_rows] == [search]
    with qtbot.assertNotEmitted(panel.control_selected):
        panel.show_control(None)
    assert panel.details.stack.currentIndex() == 0 and not panel.tree.selectionModel().hasSelection()


def test_choosing_a_tree_node_that_is_a_control_selects_it(panel, qtbot, settings_screen):
    controls = settings_screen[0]
    apps = by_id(controls, 6)
    index = panel.tree_model.index_for_control(apps)
    with qtbot.waitSignal(panel.control_selected) as chosen:
        panel.tree.selectionModel().setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect)
    assert chosen.args == [apps] and panel.current_control == apps
    plain_node = panel.tree_model.index(0, 0, panel.tree_model.index(0, 0))  # a layout inside the Settings window
    assert panel.tree_model.control_for_index(plain_node) is None
    with qtbot.assertNotEmitted(panel.control_selected):
        panel.tree.selectionModel().setCurrentIndex(plain_node, QItemSelectionModel.SelectionFlag.ClearAndSelect)


def test_windows_are_labelled_with_their_package(panel, settings_screen):
    hierarchy = settings_screen[1]
    labels = [panel.tree_model.index(row, 0).data() for row in range(panel.tree_model.rowCount())]
    assert len(labels) == len(hierarchy.windows)
    assert [label.split(" ")[0] for label in labels] == [w.attributes["package"] for w in hierarchy.windows]


def test_the_control_tab_and_copy_buttons(panel, qtbot, settings_screen):
    search = by_id(settings_screen[0], 3)
    panel.show_control(search)
    fields = panel.details.fields
    assert fields["Id"].text() == "3" and fields["Type"].text() == "TextView"
    assert fields["Bounds"].text() == "[178,420][1038,567]" and fields["Size"].text() == "860 × 147"
    assert panel.details.flag_labels["enabled"].text().startswith("✓")
    assert not panel.details.flag_labels["clickable"].text().startswith("✓")
    expected = {"resource_id": search.resource_id, "text": search.text, "xpath": search.locator,
                "coordinates": "608,493"}
    assert all(expected.values())
    for key, text in expected.items():
        button = panel.details.copy_buttons[key]
        QTest.mouseClick(button, Qt.MouseButton.LeftButton)
        assert QGuiApplication.clipboard().text() == text
        assert "Copied" in button.text()
    qtbot.waitUntil(lambda: "Copied" not in panel.details.copy_buttons["coordinates"].text(), timeout=3000)
    network = by_id(settings_screen[0], 4)  # a row with no resource-id and no own text
    panel.show_control(network)
    assert not panel.details.copy_buttons["resource_id"].isEnabled()
    assert panel.details.fields["Resource-id"].text() == "—"


def test_zero_controls_and_no_hierarchy(panel, qtbot):
    with qtbot.assertNotEmitted(panel.control_selected):
        panel.set_snapshot([], None)
    assert panel.proxy.rowCount() == 0 and panel.tree_model.rowCount() == 0
    assert panel.count_label.text() == "no controls"
    assert panel.tree_stack.currentIndex() == 0 and panel.details.stack.currentIndex() == 0
    panel.filter_edit.setText("x")
    panel.show_control(None)


def test_a_new_snapshot_keeps_the_control_only_if_it_is_still_there(panel, settings_screen):
    controls, hierarchy, _ = settings_screen
    panel.show_control(by_id(controls, 8))
    panel.set_snapshot(controls, hierarchy)
    assert panel.current_control == by_id(controls, 8) and tree_control(panel) == by_id(controls, 8)
    panel.set_snapshot(controls[:3], hierarchy)
    assert panel.current_control is None


UNICODE_DUMP = """<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">
<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="org.example.ünï"
 content-desc="" clickable="false" enabled="true" bounds="[0,0][1080,2400]">
<node index="0" text="Réglages 📶 設定 שלום" resource-id="org.example:id/title" class="android.widget.Button"
 package="org.example.ünï" content-desc="" clickable="true" enabled="true" bounds="[0,100][1080,300]"/>
<node index="1" text="" resource-id="" class="android.widget.ImageButton" package="org.example.ünï"
 content-desc="🔍 Поиск" clickable="true" enabled="true" bounds="[0,300][200,500]"/>
</node></hierarchy>"""


def test_unicode_and_emoji_names(panel):
    hierarchy = parse_hierarchy(UNICODE_DUMP)
    controls = select_controls(hierarchy, (1080, 2400))
    panel.set_snapshot(controls, hierarchy)
    title = next(c for c in controls if c.text.startswith("Réglages"))
    panel.filter_edit.setText("📶")
    assert shown_controls(panel) == [title]
    panel.filter_edit.setText("поиск")
    assert [c.content_desc for c in shown_controls(panel)] == ["🔍 Поиск"]
    panel.show_control(title)
    assert panel.details.fields["Name"].text() == "Réglages 📶 設定 שלום"
    assert panel.tree.currentIndex().data() == f"#{title.id} Button “Réglages 📶 設定 שלום”"
    assert panel.tree_model.index(0, 0).data().startswith("org.example.ünï")


def test_a_large_corpus_screen_loads(panel, qtbot, corpus_dir):
    hierarchy = parse_hierarchy((corpus_dir / AVITO_DUMP).read_bytes())
    nodes = list(hierarchy.iter_nodes())
    assert len(nodes) >= 300
    selected = select_controls(hierarchy, screen_size_from_hierarchy(hierarchy))
    # Every node with bounds as a control too, to load 300+ rows and tree matches.
    every_node = [Control(id=i, name=n.attributes.get("text", ""), type=n.class_name.rpartition(".")[2],
                          class_name=n.class_name, resource_id=n.attributes.get("resource-id", ""), text="",
                          content_desc="", rect=n.bounds, node_path=n.path, window=n.window)
                  for i, n in enumerate((n for n in nodes if n.bounds), start=1)]
    for controls in (selected, every_node):
        panel.set_snapshot(controls, hierarchy)
        assert panel.proxy.rowCount() == len(controls)
        assert all(panel.tree_model.index_for_control(c).isValid() for c in controls)
        last = controls[-1]
        panel.show_control(last)
        assert tree_control(panel) == last
    assert len(every_node) >= 300


def test_the_mirror_and_the_inspector_stay_in_step_without_loops(panel, qtbot, settings_screen):
    controls, _, image = settings_screen
    mirror = MirrorView()
    qtbot.addWidget(mirror)
    mirror.resize(360, 800)
    mirror.set_frame(qimage_from_rgb(image.tobytes(), *image.size))
    mirror.set_controls(controls)
    mirror.show()
    qtbot.waitExposed(mirror)
    mirror_choices, inspector_choices = [], []
    mirror.control_selected.connect(mirror_choices.append)
    panel.control_selected.connect(inspector_choices.append)
    mirror.control_selected.connect(panel.show_control)  # wired as the main window wires them
    panel.control_selected.connect(mirror.select_control)
    battery = by_id(controls, 11)
    QTest.mouseClick(mirror, Qt.MouseButton.LeftButton, pos=mirror.device_to_widget(*battery.center).toPoint())
    assert panel.current_control == battery and tree_control(panel) == battery
    apps = by_id(controls, 6)
    panel.tree.selectionModel().setCurrentIndex(panel.tree_model.index_for_control(apps),
                                                QItemSelectionModel.SelectionFlag.ClearAndSelect)
    assert mirror.selected_control == apps
    assert mirror_choices == [battery] and inspector_choices == [apps]
