"""Qt item models over one screen: the controls as a table, the UI hierarchy as a tree."""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import overload

from PySide6.QtCore import (
    QAbstractItemModel,
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QColor, QFont, QGuiApplication, QPalette

from app.core.perception.controls import Control
from app.core.perception.hierarchy import UiHierarchy, UiNode
from app.gui.inspector.search_query import SearchQuery
from app.gui.mirror.mirror_overlay import control_qcolor

CONTROL_ROLE = Qt.ItemDataRole.UserRole
"""Data role giving the `Control` of a row (tree: None for nodes that are not controls)."""
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
LABEL_TEXT_LIMIT = 40
ROOT = QModelIndex()
"""The invisible root's index: the parent of top-level rows (the default `parent` argument)."""


def match_brush() -> QColor:
    """Background of a search match: the palette's highlight, faint (readable in light and dark)."""
    colour = QColor(QGuiApplication.palette().color(QPalette.ColorRole.Highlight))
    colour.setAlpha(55)
    return colour


def hover_brush() -> QColor:
    """Background of the row of the control under the mouse on the mirror."""
    colour = QColor(QGuiApplication.palette().color(QPalette.ColorRole.Highlight))
    colour.setAlpha(110)
    return colour


def _rect_text(rect: tuple[int, int, int, int]) -> str:
    return "[{},{}][{},{}]".format(*rect)


def _elide(text: str, limit: int = LABEL_TEXT_LIMIT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class ControlTableModel(QAbstractTableModel):
    """One row per control: id, type, name, resource-id, rect."""

    HEADERS = ("#", "Type", "Name", "Resource id", "Bounds")
    """The resource-id column shows the part after `:id/`; its tooltip and the filter use all of it."""

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._controls: list[Control] = []
        self._hovered = -1

    def set_controls(self, controls: list[Control]) -> None:
        self.beginResetModel()
        self._controls = list(controls)
        self._hovered = -1
        self.endResetModel()

    @property
    def controls(self) -> list[Control]:
        return self._controls

    def set_hovered(self, control: Control | None) -> None:
        """Tint the row of the control under the mouse on the mirror (None: no row)."""
        row = self.row_of(control) if control is not None else -1
        if row == self._hovered:
            return
        previous, self._hovered = self._hovered, row
        for changed in (previous, row):
            if changed >= 0:
                self.dataChanged.emit(self.index(changed, 0), self.index(changed, len(self.HEADERS) - 1),
                                      [Qt.ItemDataRole.BackgroundRole])

    def control_at(self, row: int) -> Control | None:
        return self._controls[row] if 0 <= row < len(self._controls) else None

    def row_of(self, control: Control) -> int:
        """The row of `control`, or -1 when it is not in the table."""
        try:
            return self._controls.index(control)
        except ValueError:
            return -1

    @staticmethod
    def display_row(control: Control) -> tuple:
        """What the row of `control` shows, column by column."""
        return (control.id, control.type, control.name, control.resource_id.rpartition("/")[2],
                _rect_text(control.rect))

    def column_texts(self) -> list[list[str]]:
        """Every shown text, column by column (the header first)."""
        columns = [[header] for header in self.HEADERS]
        for control in self._controls:
            for column, value in zip(columns, self.display_row(control), strict=True):
                column.append(str(value))
        return columns

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = ROOT) -> int:
        return 0 if parent.isValid() else len(self._controls)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = ROOT) -> int:
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        control = self.control_at(index.row())
        if control is None:
            return None
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self.display_row(control)[column]
        if role == Qt.ItemDataRole.BackgroundRole and index.row() == self._hovered:
            return hover_brush()
        if role == SORT_ROLE:
            return (control.id, control.type.lower(), control.name.lower(), control.resource_id.lower(),
                    control.rect[1] * 100_000 + control.rect[0])[column]
        if role == Qt.ItemDataRole.ToolTipRole and column in (2, 3):
            return control.name if column == 2 else control.resource_id
        if role == Qt.ItemDataRole.DecorationRole and column == 0:
            return control_qcolor(control.id)
        if role == CONTROL_ROLE:
            return control
        return None


class ControlFilterProxy(QSortFilterProxyModel):
    """Sorts the control table and keeps the rows a `SearchQuery` matches."""

    def __init__(self, source: ControlTableModel, parent: QObject | None = None):
        super().__init__(parent)
        self._query = SearchQuery()
        self._source = source
        self.setSourceModel(source)
        self.setSortRole(SORT_ROLE)

    def set_query(self, query: SearchQuery) -> None:
        self.beginFilterChange()
        self._query = query
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex) -> bool:
        control = self._source.control_at(source_row)
        return control is not None and self._query.matches_control(control)


def control_filter_proxy(source: ControlTableModel, parent: QObject | None = None) -> ControlFilterProxy:
    return ControlFilterProxy(source, parent)


@dataclass(slots=True, eq=False)
class _TreeItem:
    node: UiNode
    label: str
    parent: int  # index in HierarchyModel._items; -1 for a window root
    row: int
    control: Control | None
    children: list[int] = field(default_factory=list)


class HierarchyModel(QAbstractItemModel):
    """The UI hierarchy as a tree: one root per window, labelled with its package; nodes that
    are controls show their #id and colour. Items are kept in a flat list whose positions
    are the indexes' internal ids."""

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._items: list[_TreeItem] = []
        self._roots: list[int] = []
        self._item_by_path: dict[tuple[int, ...], int] = {}
        self._matches: set[int] = set()
        self._hovered = -1

    def set_hierarchy(self, hierarchy: UiHierarchy | None, controls: list[Control]) -> None:
        self.beginResetModel()
        self._items, self._roots, self._item_by_path = [], [], {}
        self._matches, self._hovered = set(), -1
        control_by_path = {c.node_path: c for c in controls if c.node_path}
        for row, window in enumerate(hierarchy.windows if hierarchy else []):
            self._roots.append(self._add(window, -1, row, control_by_path))
        self.endResetModel()

    def _add(self, root: UiNode, parent: int, row: int, control_by_path: dict) -> int:
        """Add `root` and its subtree without recursion (dumps can be deep)."""
        first = len(self._items)
        stack = [(root, parent, row)]
        while stack:
            node, parent_item, node_row = stack.pop()
            position = len(self._items)
            control = control_by_path.get(node.path)
            self._items.append(_TreeItem(node, _node_label(node, control, parent_item == -1), parent_item,
                                         node_row, control))
            self._item_by_path[node.path] = position
            if parent_item >= 0:
                self._items[parent_item].children.append(position)
            stack.extend((child, position, child_row) for child_row, child in reversed(list(enumerate(node.children))))
        return first

    def widest_labels(self, count: int = 40) -> list[tuple[int, str]]:
        """(depth, label) of the `count` items likely to reach farthest right (a level's indentation counted
        as two characters), to size the tree's column once per screen without measuring every label."""
        def reach(item: _TreeItem) -> int:
            return 2 * len(item.node.path) + len(item.label)
        return [(len(item.node.path), item.label) for item in heapq.nlargest(count, self._items, key=reach)]

    def index_for_control(self, control: Control | None) -> QModelIndex:
        """The tree index of a control's node (matched by node path and window), else invalid."""
        if control is None or not control.node_path or control.node_path[0] != control.window:
            return QModelIndex()
        position = self._item_by_path.get(control.node_path)
        if position is None:
            return QModelIndex()
        return self.createIndex(self._items[position].row, 0, position)

    def control_for_index(self, index: QModelIndex) -> Control | None:
        return self._items[index.internalId()].control if index.isValid() else None

    def node_for_index(self, index: QModelIndex) -> UiNode | None:
        return self._items[index.internalId()].node if index.isValid() else None

    def _index_of(self, position: int) -> QModelIndex:
        return self.createIndex(self._items[position].row, 0, position)

    def search(self, query: SearchQuery) -> list[QModelIndex]:
        """Mark the nodes `query` matches (a tinted, bold row) and return them in document order."""
        found = [] if query.empty else [position for position, item in enumerate(self._items)
                                        if query.matches_node(item.node, item.control)]
        changed = self._matches.symmetric_difference(found)
        self._matches = set(found)
        for position in changed:
            index = self._index_of(position)
            self.dataChanged.emit(index, index, [Qt.ItemDataRole.BackgroundRole, Qt.ItemDataRole.FontRole])
        return [self._index_of(position) for position in found]

    def set_hovered(self, control: Control | None) -> QModelIndex:
        """Tint the node of the control under the mouse on the mirror; returns its index (or invalid)."""
        index = self.index_for_control(control)
        position = index.internalId() if index.isValid() else -1
        if position != self._hovered:
            previous, self._hovered = self._hovered, position
            for changed in (previous, position):
                if changed >= 0:
                    self.dataChanged.emit(self._index_of(changed), self._index_of(changed),
                                          [Qt.ItemDataRole.BackgroundRole])
        return index

    def index(self, row: int, column: int, parent: QModelIndex | QPersistentModelIndex = ROOT) -> QModelIndex:
        siblings = self._items[parent.internalId()].children if parent.isValid() else self._roots
        if column != 0 or not 0 <= row < len(siblings):
            return QModelIndex()
        return self.createIndex(row, 0, siblings[row])

    @overload
    def parent(self) -> QObject | None: ...
    @overload
    def parent(self, index: QModelIndex | QPersistentModelIndex) -> QModelIndex: ...
    def parent(self, index: QModelIndex | QPersistentModelIndex | None = None) -> QObject | QModelIndex | None:
        if index is None:            # QObject.parent(): the model's owner
            return super().parent()
        if not index.isValid():
            return QModelIndex()
        parent = self._items[index.internalId()].parent
        if parent < 0:
            return QModelIndex()
        return self.createIndex(self._items[parent].row, 0, parent)

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = ROOT) -> int:
        if parent.column() > 0:
            return 0
        return len(self._items[parent.internalId()].children) if parent.isValid() else len(self._roots)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = ROOT) -> int:
        return 1

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        item = self._items[index.internalId()]
        if role == Qt.ItemDataRole.DisplayRole:
            return item.label
        position = index.internalId()
        if role == Qt.ItemDataRole.BackgroundRole:
            if position == self._hovered:
                return hover_brush()
            return match_brush() if position in self._matches else None
        if role == Qt.ItemDataRole.FontRole and position in self._matches:
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.DecorationRole and item.control is not None:
            return control_qcolor(item.control.id)
        if role == Qt.ItemDataRole.ForegroundRole and item.control is None and item.parent >= 0 \
                and position not in self._matches:
            return QGuiApplication.palette().color(QPalette.ColorRole.PlaceholderText)
        if role == Qt.ItemDataRole.ToolTipRole:
            return _node_tooltip(item.node)
        if role == CONTROL_ROLE:
            return item.control
        return None


def _node_label(node: UiNode, control: Control | None, is_window: bool) -> str:
    """`#7 LinearLayout “Wi-Fi”`: class tail, then text, content-desc or resource-id tail."""
    attributes = node.attributes
    label = node.class_name.rpartition(".")[2] or "node"
    detail = attributes.get("text") or attributes.get("content-desc")
    if detail:
        label += f" “{_elide(detail)}”"
    elif attributes.get("resource-id"):
        label += " · " + attributes["resource-id"].rpartition("/")[2]
    if is_window:
        label = f"{attributes.get('package') or 'window'} — {label}"
    return f"#{control.id} {label}" if control is not None else label


def _node_tooltip(node: UiNode) -> str:
    attributes = node.attributes
    lines = [node.class_name or "node"]
    lines += [f"{key}: {attributes[key]}" for key in ("resource-id", "text", "content-desc", "package")
              if attributes.get(key)]
    lines.append(f"bounds: {_rect_text(node.bounds)}" if node.bounds else "bounds: none")
    return "\n".join(lines)
