"""A layout that lays its items out in a row and wraps them onto more rows when the row is too
narrow, so a row of buttons never forces its panel (and the window) wider.

Items keep their size hint; an item whose horizontal size policy can expand (a text field)
takes the width left over on its row. Rows are as high as their tallest item.
"""

from __future__ import annotations

from PySide6.QtCore import QMargins, QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QSizePolicy, QWidget, QWidgetItem


class FlowLayout(QLayout):
    def __init__(self, parent: QWidget | None = None, spacing: int = 6, *, row_spacing: int | None = None,
                 align_right: bool = False):
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._spacing = spacing
        self._row_spacing = spacing if row_spacing is None else row_spacing
        self._align_right = align_right     # rows without a growing item end at the right edge
        self.setContentsMargins(0, 0, 0, 0)

    # ------------------------------------------------------------------ QLayout

    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def insertWidget(self, index: int, widget: QWidget) -> None:
        """Put `widget` at `index` in the flow (addWidget puts it last)."""
        self.addChildWidget(widget)
        self._items.insert(index, QWidgetItem(widget))
        self.invalidate()

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def spacing(self) -> int:
        return self._spacing

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def sizeHint(self) -> QSize:
        """Everything on one row."""
        items = self._visible()
        width = sum(item.sizeHint().width() for item in items) + self._spacing * max(0, len(items) - 1)
        height = max((item.sizeHint().height() for item in items), default=0)
        return QSize(width, height).grownBy(self.contentsMargins())

    def minimumSize(self) -> QSize:
        """As narrow as the widest single item (one item a row)."""
        items = self._visible()
        width = max(((item.minimumSize() if _expands(item) else item.sizeHint()).width() for item in items), default=0)
        height = max((item.sizeHint().height() for item in items), default=0)
        return QSize(width, height).grownBy(self.contentsMargins())

    # ------------------------------------------------------------------ arranging

    def _visible(self) -> list[QLayoutItem]:
        return [item for item in self._items if not item.isEmpty()]

    def _rows(self, width: int) -> list[list[QLayoutItem]]:
        rows: list[list[QLayoutItem]] = [[]]
        used = 0
        for item in self._visible():
            hint = item.sizeHint().width()
            needed = hint if not rows[-1] else used + self._spacing + hint
            if rows[-1] and needed > width:
                rows.append([item])
                used = hint
            else:
                rows[-1].append(item)
                used = needed
        return [row for row in rows if row]

    def _arrange(self, rect: QRect, move: bool) -> int:
        margins: QMargins = self.contentsMargins()
        area = rect.marginsRemoved(margins)
        y = area.y()
        for row in self._rows(area.width()):
            height = max(item.sizeHint().height() for item in row)
            widths = [min(item.sizeHint().width(), area.width()) for item in row]
            spare = area.width() - sum(widths) - self._spacing * (len(row) - 1)
            growing = [index for index, item in enumerate(row) if _expands(item)]
            for index in growing:
                widths[index] += max(0, spare) // len(growing)
            x = area.x() + (max(0, spare) if self._align_right and not growing else 0)
            for item, width in zip(row, widths, strict=True):
                if move:
                    item_height = item.sizeHint().height()
                    item.setGeometry(QRect(QPoint(x, y + (height - item_height) // 2), QSize(width, item_height)))
                x += width + self._spacing
            y += height + self._row_spacing
        return y - self._row_spacing - area.y() + margins.top() + margins.bottom() if self._visible() else 0


def _expands(item: QLayoutItem) -> bool:
    widget = item.widget()
    policy = widget.sizePolicy() if widget is not None else None
    return policy is not None and bool(policy.horizontalPolicy().value & QSizePolicy.PolicyFlag.ExpandFlag.value)


def flow_widget(*widgets: QWidget, spacing: int = 6) -> QWidget:
    """A plain widget holding `widgets` in a flow layout."""
    holder = QWidget()
    layout = FlowLayout(holder, spacing)
    for widget in widgets:
        layout.addWidget(widget)
    return holder
