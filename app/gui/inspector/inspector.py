"""The inspector beside the mirror: a search box over the selected control's attributes, a table of
all controls, and the UI hierarchy as a tree. The three views and the mirror stay in step: a
selection anywhere shows everywhere, the control under the mouse on the mirror is tinted in the
table and the tree, and a row or node under the mouse here is outlined on the mirror."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QItemSelectionModel, QModelIndex, QObject, Qt, Signal
from PySide6.QtGui import QFontMetrics, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QStackedWidget,
    QStyle,
    QTableView,
    QTabWidget,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from app.core.perception.controls import Control
from app.core.perception.hierarchy import UiHierarchy
from app.core.perception.xpath_search import XPathScreen
from app.gui.inspector.control_details import ControlDetails, empty_state
from app.gui.inspector.hierarchy_model import CONTROL_ROLE, ControlTableModel, HierarchyModel, control_filter_proxy
from app.gui.inspector.search_bar import SearchBar, SearchEdit
from app.gui.inspector.search_query import SearchQuery

NAME_COLUMN_WIDTH = 180   # px: name and resource-id columns show their start; the rest is elided
TREE_TAB = 2
TREE_INDENT = 12          # px per level: a node 25 levels down still starts within a narrow pane
REVEALED_MATCHES = 200
"""Tree matches whose ancestors a search expands (a search for "View" on a huge screen expands no more)."""

__all__ = ["ControlDetails", "InspectorPanel", "SearchEdit"]


class InspectorPanel(QWidget):
    """A search bar over the tabs "Control", "Controls" and "Hierarchy" of one screen.

    `control_selected` fires only when the person picks a control here (a click, a node, a
    search step); `show_control` (the mirror's selection) updates every tab without firing it,
    so there is no loop. `highlight_requested` asks the mirror to outline a rect in device
    pixels (the row or node under the mouse, a search match that is not a control), or nothing.
    """

    control_selected = Signal(object)      # Control
    highlight_requested = Signal(object)   # Rect | None

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._current: Control | None = None
        self._screen_key: tuple | None = None
        self._syncing = False
        self._query = SearchQuery()
        self._hierarchy: UiHierarchy | None = None
        self._xpath_screen: XPathScreen | None = None      # built on the first XPath search of a screen
        self._xpath_outlined = False                       # the mirror outlines an XPath's first match
        self._tree_matches: list[QModelIndex] = []
        self._match_position = -1
        self.details = ControlDetails()
        self.table_model = ControlTableModel(self)
        self.proxy = control_filter_proxy(self.table_model, self)
        self.tree_model = HierarchyModel(self)
        self.tabs = QTabWidget()
        self.tabs.setAccessibleName("Inspector")
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.details, "Control")
        self.tabs.addTab(self._build_table_tab(), "Controls")
        self.tabs.addTab(self._build_tree_tab(), "Hierarchy")
        self.tabs.currentChanged.connect(self._on_tab_changed)
        self.search_bar = SearchBar()
        self.filter_edit: SearchEdit = self.search_bar.edit
        self.previous_button, self.next_button = self.search_bar.previous_button, self.search_bar.next_button
        self.count_label = self.search_bar.count_label
        self.filter_edit.textChanged.connect(self._on_search_changed)
        self.search_bar.step_requested.connect(self.step_match)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.search_bar)
        layout.addWidget(self.tabs)
        self.find_shortcut = QShortcut(QKeySequence(QKeySequence.StandardKey.Find), self, self.focus_search,
                                       context=Qt.ShortcutContext.WindowShortcut)
        self.set_snapshot([], None)

    def _build_table_tab(self) -> QWidget:
        self.table = QTableView()
        self.table.setAccessibleName("Controls on the screen")
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
        layout.addWidget(self.table)
        return page

    def _build_tree_tab(self) -> QWidget:
        self.tree = QTreeView()
        self.tree.setAccessibleName("UI hierarchy of the screen")
        self.tree.setModel(self.tree_model)
        self.tree.setHeaderHidden(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setIndentation(TREE_INDENT)
        # At least as wide as its widest label (`_fit_tree_width`): a deep node's label is scrolled to, never
        # cut at the pane's edge. Not ResizeToContents: that measures rows again at every change of a row
        # (a search marking thousands of nodes took minutes)
        self.tree.header().setStretchLastSection(True)
        self.tree.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tree.selectionModel().selectionChanged.connect(self._on_tree_selection)
        self.tree_stack = QStackedWidget()
        self.tree_stack.addWidget(empty_state("No UI hierarchy for this screen."))
        self.tree_stack.addWidget(self.tree)
        for view in (self.table, self.tree):       # the row under the mouse is outlined on the mirror
            view.setMouseTracking(True)
            view.entered.connect(self._on_entered)
            view.viewport().installEventFilter(self)
        return self.tree_stack

    # ------------------------------------------------------------------ API

    @property
    def current_control(self) -> Control | None:
        return self._current

    def set_snapshot(self, controls: list[Control], hierarchy: UiHierarchy | None) -> None:
        """A new screen. The shown control stays if it is on it; the search runs again.
        The same screen again (the phone panel reads it every few seconds) changes nothing: the
        tree keeps what the person expanded, scrolled to and chose."""
        key = (tuple(controls), _tree_signature(hierarchy))
        if key == self._screen_key:
            self.details.set_screen(controls, hierarchy)
            return
        self._screen_key = key
        self._hierarchy, self._xpath_screen = hierarchy, None
        self._syncing = True
        try:
            self.table_model.set_controls(controls)
            self.tree_model.set_hierarchy(hierarchy, controls)
            self.details.set_screen(controls, hierarchy)
            self._fit_columns()
            self._fit_tree_width()
            self.tree_stack.setCurrentIndex(1 if hierarchy is not None and hierarchy.windows else 0)
            self.tree.expandToDepth(0)
        finally:
            self._syncing = False
        self._apply_search()
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

    def _fit_tree_width(self) -> None:
        """The tree's column at least as wide as its farthest-reaching labels (bold, as a match is shown)."""
        font = self.tree.font()
        font.setBold(True)
        metrics = QFontMetrics(font)
        decoration = self.tree.iconSize().width() if self.tree.iconSize().isValid() else 16
        widest = max((depth * TREE_INDENT + metrics.horizontalAdvance(label)
                      for depth, label in self.tree_model.widest_labels()), default=0)
        self.tree.header().setMinimumSectionSize(widest + decoration + 3 * TREE_INDENT)

    def show_control(self, control: Control | None) -> None:
        """Show `control` in every tab (from the mirror); never emits `control_selected`."""
        self._current = control
        self._sync_views(control)

    def focus_search(self) -> None:
        """Ctrl+F: into the search box, its text selected to type over."""
        self.filter_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.filter_edit.selectAll()

    def show_hovered(self, control: Control | None) -> None:
        """The control under the mouse on the mirror: its row and node tinted, scrolled into view."""
        self.table_model.set_hovered(control)
        index = self.tree_model.set_hovered(control)
        if control is None:
            return
        if self.tabs.currentIndex() == TREE_TAB and index.isValid():
            self._reveal_in_tree(index)
            self.tree.scrollTo(index, QAbstractItemView.ScrollHint.EnsureVisible)
            self._show_label_start(index)
        elif self.tabs.currentIndex() == 1:
            row = self.proxy.mapFromSource(self.table_model.index(self.table_model.row_of(control), 0))
            if row.isValid():
                self.table.scrollTo(row, QAbstractItemView.ScrollHint.EnsureVisible)

    # ------------------------------------------------------------------ search

    def _on_search_changed(self, _text: str) -> None:
        self._apply_search()
        self._preview_first_match()
        if self._query.xpath or self._xpath_outlined:       # where an XPath points, outlined on the mirror
            first = self.tree_model.node_for_index(self._tree_matches[0]) if self._tree_matches else None
            self._xpath_outlined = bool(self._query.xpath and first is not None)
            self.highlight_requested.emit(first.bounds if self._xpath_outlined and first is not None else None)

    def _apply_search(self) -> None:
        """Filter the table and mark the tree's matches; a filter never chooses a control."""
        self._query = self._evaluated(SearchQuery.parse(self.filter_edit.text()))
        self._syncing = True
        try:
            self.proxy.set_query(self._query)
            self._tree_matches = self.tree_model.search(self._query)
            self._select_in_table(self._current)
        finally:
            self._syncing = False
        self._match_position = -1
        self._update_count()

    def _evaluated(self, query: SearchQuery) -> SearchQuery:
        """An XPath query with the nodes it finds on this screen (and what it has to say about them,
        under the search box); any other query as it is."""
        if not query.xpath:
            self.search_bar.say("")
            return query
        if self._hierarchy is None or not self._hierarchy.windows:
            self.search_bar.say("This screen has no UI hierarchy to search by XPath.", error=True)
            return query
        if self._xpath_screen is None:
            self._xpath_screen = XPathScreen(self._hierarchy)
        found = self._xpath_screen.find(query.xpath)
        query = query.with_found(found.paths)
        if found.error:
            self.search_bar.say(found.error, error=True)
        elif found.total:
            controls = sum(1 for control in self.table_model.controls if query.matches_control(control))
            words = f"XPath: {found.total:,} node{'s' if found.total != 1 else ''}, " \
                    f"{controls} of them numbered control{'s' if controls != 1 else ''}"
            if found.cut:
                words += f"; the first {len(found.paths):,} are marked"
            self.search_bar.say(words + ".")
        else:
            self.search_bar.say("")
        return query

    def _preview_first_match(self) -> None:
        """While typing: every tree match shown (its ancestors expanded, up to REVEALED_MATCHES) and
        the first scrolled into view; nothing is chosen until Enter."""
        opened: set[int] = set()
        for index in self._tree_matches[:REVEALED_MATCHES]:
            ancestor = index.parent()
            while ancestor.isValid() and ancestor.internalId() not in opened:
                opened.add(ancestor.internalId())
                self.tree.expand(ancestor)
                ancestor = ancestor.parent()
        if self.tabs.currentIndex() == TREE_TAB and self._tree_matches:
            self.tree.scrollTo(self._tree_matches[0], QAbstractItemView.ScrollHint.PositionAtCenter)
            self._show_label_start(self._tree_matches[0])

    def _matches(self) -> list[QModelIndex]:
        """The matches Enter steps through: the tree's nodes on the Hierarchy tab, else the table's rows."""
        if self._query.empty:
            return []
        if self._in_tree():
            return self._tree_matches
        return [self.proxy.index(row, 0) for row in range(self.proxy.rowCount())]

    def match_count(self) -> int:
        return len(self._matches())

    def step_match(self, step: int) -> None:
        """Go to the next (1) or previous (-1) match and choose it: the mirror selects it too (a node
        that is not a control is outlined there)."""
        matches = self._matches()
        if not matches:
            self._update_count()
            return
        current = self._position_of_current(matches)
        if current is None:
            position = 0 if step > 0 else len(matches) - 1
        else:
            position = (current + step) % len(matches)
        self._match_position = position
        index = matches[position]
        if self._in_tree():
            self._reveal_in_tree(index)
            self.tree.selectionModel().setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect)
            self.tree.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)
            self._show_label_start(index)
        else:
            self._choose(index.data(CONTROL_ROLE))
            self.table.scrollTo(index)
        self._update_count()

    def _position_of_current(self, matches: list[QModelIndex]) -> int | None:
        if 0 <= self._match_position < len(matches):
            return self._match_position
        if self._in_tree():
            current = self.tree.currentIndex()
            return next((i for i, index in enumerate(matches) if index == current), None)
        return next((i for i, index in enumerate(matches) if index.data(CONTROL_ROLE) == self._current), None)

    def _in_tree(self) -> bool:
        """Matches are the tree's nodes: on the Hierarchy tab, and for an XPath (which finds nodes) anywhere."""
        return self.tabs.currentIndex() == TREE_TAB or bool(self._query.xpath)

    def _on_tab_changed(self, index: int) -> None:
        """To the Hierarchy tab: the selected node in view (it was chosen while the tree was hidden)."""
        self._restart_matches()
        current = self.tree.currentIndex()
        if index == TREE_TAB and current.isValid() and self.tree.selectionModel().isSelected(current):
            self.tree.scrollTo(current, QAbstractItemView.ScrollHint.PositionAtCenter)
            self._show_label_start(current)

    def _show_label_start(self, index: QModelIndex) -> None:
        """Scroll the tree sideways so that the node's label starts in view (a deep node sits far right)."""
        bar = self.tree.horizontalScrollBar()
        rect = self.tree.visualRect(index)
        label = self.tree.fontMetrics().horizontalAdvance(str(index.data())) + 3 * TREE_INDENT   # and its swatch
        if rect.left() < 0 or rect.left() + label > self.tree.viewport().width():
            bar.setValue(bar.value() + rect.left() - 2 * TREE_INDENT)

    def _restart_matches(self) -> None:
        self._match_position = -1
        self._update_count()

    def _update_count(self) -> None:
        total = self.table_model.rowCount()
        if self._query.empty:
            self.count_label.setText("no controls" if total == 0 else f"{total} controls")
            return
        found = self.match_count()
        if found == 0:
            self.count_label.setText("no match")
        elif 0 <= self._match_position < found:
            self.count_label.setText(f"{self._match_position + 1} of {found}")
        else:
            self.count_label.setText(f"{found} match{'es' if found != 1 else ''}")

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

    def _reveal_in_tree(self, index: QModelIndex) -> None:
        ancestor = index.parent()
        while ancestor.isValid():
            self.tree.expand(ancestor)
            ancestor = ancestor.parent()

    def _select_in_tree(self, control: Control | None) -> None:
        index = self.tree_model.index_for_control(control)
        if not index.isValid():
            self.tree.selectionModel().clearSelection()
            return
        self._reveal_in_tree(index)
        self.tree.selectionModel().setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect)
        self.tree.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)
        self._show_label_start(index)

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
        if not indexes:
            return
        control = self.tree_model.control_for_index(indexes[0])
        node = self.tree_model.node_for_index(indexes[0])
        if control is None and node is not None and not self._syncing:
            self.details.show_node(node)             # a layout, a label that is no control: its attributes,
            self.highlight_requested.emit(node.bounds)   # and an outline on the mirror
        self._choose(control)

    def _on_entered(self, index: QModelIndex) -> None:
        """The mouse over a row of the table or a node of the tree: outline it on the mirror."""
        if index.model() is self.tree_model:
            node = self.tree_model.node_for_index(index)
            self.highlight_requested.emit(node.bounds if node is not None else None)
            return
        control = index.data(CONTROL_ROLE)
        self.highlight_requested.emit(control.rect if control is not None else None)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Leave and watched in (self.table.viewport(), self.tree.viewport()):
            self.highlight_requested.emit(None)
        return super().eventFilter(watched, event)


def _tree_signature(hierarchy: UiHierarchy | None) -> tuple:
    """What the tree shows of a hierarchy, to tell the same screen read again from a changed one."""
    if hierarchy is None:
        return ()
    return tuple((node.path, node.bounds, tuple(node.attributes.items())) for node in hierarchy.iter_nodes())
