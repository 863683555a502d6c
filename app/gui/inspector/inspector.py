"""The inspector beside the mirror: the selected control's attributes, a searchable table of
all controls, and the UI hierarchy as a tree. The three views and the mirror stay in step."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QFont, QFontDatabase, QGuiApplication, QPalette, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView, QFormLayout, QFrame, QGridLayout, QHBoxLayout, QHeaderView, QLabel, QLineEdit,
    QPushButton, QScrollArea, QStackedWidget, QStyle, QTableView, QTabWidget, QTreeView, QVBoxLayout, QWidget,
)

from app.core.perception.controls import Control
from app.core.perception.hierarchy import UiHierarchy

from app.gui.inspector.hierarchy_model import ControlTableModel, HierarchyModel, control_filter_proxy
from app.gui.mirror.mirror_overlay import control_qcolor

FLAGS = ("clickable", "long_clickable", "scrollable", "checkable", "checked", "enabled",
         "focusable", "focused", "selected", "password")
COPIED_MS = 1200
NAME_COLUMN_WIDTH = 180   # px: name and resource-id columns show their start; the rest is elided
_BREAK = "\u200b"  # zero-width space: lets long ids and XPaths wrap in a narrow panel


def _breakable(text: str) -> str:
    return text.replace("/", "/" + _BREAK).replace(".", "." + _BREAK)


def _empty_state(text: str) -> QLabel:
    label = QLabel(text)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setWordWrap(True)
    label.setMargin(24)
    label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    return label


class ControlDetails(QWidget):
    """Every attribute of one control in a read-only form, with buttons that copy the useful ones."""

    FIELDS = ("Id", "Name", "Type", "Class", "Text", "Content-desc", "Resource-id", "Package", "Bounds",
              "Size", "Center", "Window", "Locator")
    COPY_ACTIONS = (("resource_id", "Copy resource-id"), ("text", "Copy text"), ("xpath", "Copy XPath"),
                    ("coordinates", "Copy coordinates"))

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._control: Control | None = None
        self.stack = QStackedWidget()
        self.stack.addWidget(_empty_state("Select a control on the mirror, in the list or in the tree."))
        self.stack.addWidget(self._build_form())
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack)
        self._restore_timer = QTimer(self, singleShot=True, interval=COPIED_MS)
        self._restore_timer.timeout.connect(self._restore_copy_labels)

    def _build_form(self) -> QWidget:
        self.swatch = QLabel()
        self.title = QLabel()
        title_font = QFont(self.font())
        title_font.setPointSizeF(title_font.pointSizeF() * 1.25)
        title_font.setBold(True)
        self.title.setFont(title_font)
        self.title.setWordWrap(True)
        header = QHBoxLayout()
        header.addWidget(self.swatch, 0, Qt.AlignmentFlag.AlignTop)
        header.addWidget(self.title, 1)
        form = QFormLayout()
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        form.setHorizontalSpacing(12)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.DontWrapRows)
        self.fields: dict[str, QLabel] = {}
        monospace = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        for name in self.FIELDS:
            value = QLabel()
            value.setWordWrap(True)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            if name in ("Locator", "Bounds"):
                value.setFont(monospace)
            self.fields[name] = value
            form.addRow(name, value)
        self.flag_labels: dict[str, QLabel] = {}
        flags = QGridLayout()
        flags.setHorizontalSpacing(16)
        for position, flag in enumerate(FLAGS):
            label = QLabel()
            self.flag_labels[flag] = label
            flags.addWidget(label, position // 2, position % 2)
        form.addRow("Flags", flags)
        self.copy_buttons: dict[str, QPushButton] = {}
        buttons = QGridLayout()
        for position, (key, text) in enumerate(self.COPY_ACTIONS):
            button = QPushButton(text)
            button.clicked.connect(lambda _=False, k=key: self.copy(k))
            self.copy_buttons[key] = button
            buttons.addWidget(button, position // 2, position % 2)
        line = QFrame()
        line.setFrameShape(QFrame.Shape.HLine)
        line.setFrameShadow(QFrame.Shadow.Sunken)
        body = QWidget()
        column = QVBoxLayout(body)
        column.addLayout(header)
        column.addWidget(line)
        column.addLayout(form)
        column.addSpacing(8)
        column.addLayout(buttons)
        column.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(body)
        return scroll

    @property
    def control(self) -> Control | None:
        return self._control

    def show_control(self, control: Control | None) -> None:
        self._control = control
        if control is None:
            self.stack.setCurrentIndex(0)
            return
        swatch = QPixmap(16, 16)
        swatch.fill(control_qcolor(control.id))
        self.swatch.setPixmap(swatch)
        self.title.setText(f"#{control.id} {control.type}")
        left, top, right, bottom = control.rect
        values = {
            "Id": str(control.id), "Name": control.name, "Type": control.type,
            "Class": _breakable(control.class_name), "Text": control.text, "Content-desc": control.content_desc,
            "Resource-id": _breakable(control.resource_id), "Package": control.package,
            "Bounds": f"[{left},{top}][{right},{bottom}]", "Size": f"{control.width} × {control.height}",
            "Center": "{}, {}".format(*control.center), "Window": str(control.window),
            "Locator": _breakable(control.locator),
        }
        for name, value in values.items():
            label = self.fields[name]
            label.setText(value or "—")
            label.setForegroundRole(QPalette.ColorRole.WindowText if value else QPalette.ColorRole.PlaceholderText)
        for flag, label in self.flag_labels.items():
            on = bool(getattr(control, flag))
            label.setText(f"{'✓' if on else '·'} {flag.replace('_', '-')}")
            label.setForegroundRole(QPalette.ColorRole.WindowText if on else QPalette.ColorRole.PlaceholderText)
        for key, button in self.copy_buttons.items():
            button.setEnabled(bool(self.copy_text(key)))
        self.stack.setCurrentIndex(1)

    def copy_text(self, key: str) -> str:
        """What the copy button `key` puts on the clipboard for the shown control."""
        control = self._control
        if control is None:
            return ""
        return {"resource_id": control.resource_id, "text": control.text, "xpath": control.locator,
                "coordinates": "{},{}".format(*control.center)}[key]

    def copy(self, key: str) -> None:
        text = self.copy_text(key)
        if not text:
            return
        QGuiApplication.clipboard().setText(text)
        self._restore_copy_labels()
        self.copy_buttons[key].setText("Copied ✓")
        self._restore_timer.start()

    def _restore_copy_labels(self) -> None:
        for key, text in self.COPY_ACTIONS:
            self.copy_buttons[key].setText(text)


class InspectorPanel(QWidget):
    """Tabs "Control", "Controls" and "Hierarchy" for one screen.

    `control_selected` fires only when the person picks a control here; `show_control`
    (the mirror's selection) updates every tab without firing it, so there is no loop.
    """

    control_selected = Signal(object)  # Control

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._current: Control | None = None
        self._syncing = False
        self.details = ControlDetails()
        self.table_model = ControlTableModel(self)
        self.proxy = control_filter_proxy(self.table_model, self)
        self.tree_model = HierarchyModel(self)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.details, "Control")
        self.tabs.addTab(self._build_table_tab(), "Controls")
        self.tabs.addTab(self._build_tree_tab(), "Hierarchy")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs)
        self.set_snapshot([], None)

    def _build_table_tab(self) -> QWidget:
        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText("Filter by id, type, name, resource-id…")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(self._on_filter_changed)
        self.count_label = QLabel()
        self.count_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table.setAlternatingRowColors(True)
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self.table.selectionModel().selectionChanged.connect(self._on_table_selection)
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(6, 6, 6, 6)
        row = QHBoxLayout()
        row.addWidget(self.filter_edit, 1)
        row.addWidget(self.count_label)
        layout.addLayout(row)
        layout.addWidget(self.table)
        return page

    def _build_tree_tab(self) -> QWidget:
        self.tree = QTreeView()
        self.tree.setModel(self.tree_model)
        self.tree.setHeaderHidden(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tree.selectionModel().selectionChanged.connect(self._on_tree_selection)
        self.tree_stack = QStackedWidget()
        self.tree_stack.addWidget(_empty_state("No UI hierarchy for this screen."))
        self.tree_stack.addWidget(self.tree)
        return self.tree_stack

    # ------------------------------------------------------------------ API

    @property
    def current_control(self) -> Control | None:
        return self._current

    def set_snapshot(self, controls: list[Control], hierarchy: UiHierarchy | None) -> None:
        """A new screen. The shown control stays if the same control is on it."""
        self._syncing = True
        try:
            self.table_model.set_controls(controls)
            self.tree_model.set_hierarchy(hierarchy, controls)
            self._fit_columns()
            self.tree_stack.setCurrentIndex(1 if hierarchy is not None and hierarchy.windows else 0)
            self.tree.expandToDepth(0)
        finally:
            self._syncing = False
        self._update_count()
        self.show_control(self._current if self._current in controls else None)

    def _fit_columns(self) -> None:
        """Columns as wide as their texts; name and resource-id at most NAME_COLUMN_WIDTH (the rest
        is elided). Measured here in one pass: the view's resizeColumnsToContents asks the model for
        every cell through Python, ~25 ms for a big screen on the GUI thread."""
        metrics = self.table.fontMetrics()
        padding = 2 * self.table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin) + 14
        style = self.table.style()
        swatch = style.pixelMetric(QStyle.PixelMetric.PM_SmallIconSize) + 8      # the id column's colour swatch
        sort_arrow = style.pixelMetric(QStyle.PixelMetric.PM_HeaderMarkSize) + 8
        for column, texts in enumerate(self.table_model.column_texts()):
            width = max(metrics.horizontalAdvance(text) for text in texts) + padding
            if column == 0:                     # every id readable beside its swatch, under the sort arrow
                width = max(width + swatch, metrics.horizontalAdvance(texts[0]) + padding + sort_arrow)
            if column in (2, 3):
                width = min(width, NAME_COLUMN_WIDTH)
            self.table.setColumnWidth(column, width)

    def show_control(self, control: Control | None) -> None:
        """Show `control` in every tab (from the mirror); never emits `control_selected`."""
        self._current = control
        self._sync_views(control)

    # ------------------------------------------------------------------ syncing

    def _sync_views(self, control: Control | None) -> None:
        self._syncing = True
        try:
            self.details.show_control(control)
            self._select_in_table(control)
            self._select_in_tree(control)
        finally:
            self._syncing = False

    def _select_in_table(self, control: Control | None) -> None:
        selection = self.table.selectionModel()
        row = self.table_model.row_of(control) if control is not None else -1
        index = self.proxy.mapFromSource(self.table_model.index(row, 0)) if row >= 0 else QModelIndex()
        if not index.isValid():
            selection.clearSelection()
            return
        selection.setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect
                                  | QItemSelectionModel.SelectionFlag.Rows)
        self.table.scrollTo(index)

    def _select_in_tree(self, control: Control | None) -> None:
        index = self.tree_model.index_for_control(control)
        if not index.isValid():
            self.tree.selectionModel().clearSelection()
            return
        ancestor = index.parent()
        while ancestor.isValid():
            self.tree.expand(ancestor)
            ancestor = ancestor.parent()
        self.tree.selectionModel().setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect)
        self.tree.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)

    def _choose(self, control: Control | None) -> None:
        """The person chose a control in the table or the tree."""
        if self._syncing or control is None or control == self._current:
            return
        self._current = control
        self._sync_views(control)
        self.control_selected.emit(control)

    def _on_table_selection(self, *_args) -> None:
        rows = self.table.selectionModel().selectedRows()
        if rows:
            self._choose(self.table_model.control_at(self.proxy.mapToSource(rows[0]).row()))

    def _on_tree_selection(self, *_args) -> None:
        indexes = self.tree.selectionModel().selectedIndexes()
        if indexes:
            self._choose(self.tree_model.control_for_index(indexes[0]))

    def _on_filter_changed(self, text: str) -> None:
        """Narrow the table; the view moving its current row as rows vanish chooses nothing."""
        self._syncing = True
        try:
            self.proxy.setFilterFixedString(text.strip())
            self._select_in_table(self._current)
        finally:
            self._syncing = False
        self._update_count()

    def _update_count(self) -> None:
        total, shown = self.table_model.rowCount(), self.proxy.rowCount()
        if total == 0:
            self.count_label.setText("no controls")
        else:
            self.count_label.setText(f"{total} controls" if shown == total else f"{shown} of {total}")
