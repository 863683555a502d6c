"""Phones: every attached phone and the virtual phone, with their state in words; connect over Wi-Fi."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)


VISIBLE_ROWS = 3     # phones listed before the list scrolls


@dataclass(frozen=True)
class DeviceEntry:
    server: str          # "host:port" of the ADB server that has it
    serial: str
    model: str
    state: str           # in words: "connected", "unauthorized — accept the prompt on the phone", …
    ready: bool
    virtual: bool = False

    @property
    def key(self) -> tuple[str, str]:
        return self.server, self.serial

    def label(self) -> str:
        name = "Virtual phone" if self.virtual else (self.model or "Phone")
        return f"{name}  ·  {self.serial}\n{self.state}"


class DevicePanel(QWidget):
    device_chosen = Signal(object)        # DeviceEntry
    connect_requested = Signal(str)       # "host:port"

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.list = QListWidget()
        self.list.setVerticalScrollMode(QListWidget.ScrollMode.ScrollPerPixel)
        self.list.itemActivated.connect(self._chosen)
        self.list.itemClicked.connect(self._chosen)
        self.address = QLineEdit()
        self.address.setPlaceholderText("Wi-Fi: 192.168.1.20:5555")
        self.address.returnPressed.connect(self._connect)
        connect = QPushButton("Connect")
        connect.clicked.connect(self._connect)
        self.note = QLabel()
        self.note.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.address, 1)
        row.addWidget(connect)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("<b>Phones</b>"))
        layout.addWidget(self.list)
        layout.addLayout(row)
        layout.addWidget(self.note)
        self.entries: list[DeviceEntry] = []
        self.current: tuple[str, str] | None = None
        self.note.hide()
        self._fit_list()

    def set_devices(self, entries: list[DeviceEntry]) -> None:
        self.entries = entries
        self.list.clear()
        for entry in entries:
            item = QListWidgetItem(entry.label())
            item.setData(Qt.ItemDataRole.UserRole, entry)
            if not entry.ready:
                item.setForeground(self.palette().placeholderText())
            self.list.addItem(item)
            if entry.key == self.current:
                item.setSelected(True)
                font = item.font()
                font.setBold(True)
                item.setFont(font)
        if not entries:
            self.list.addItem("No phone attached. Plug one in with USB debugging on.")
        self._fit_list()

    def _fit_list(self) -> None:
        """As high as its rows, up to VISIBLE_ROWS (then it scrolls): one phone takes little room."""
        rows = min(self.list.count(), VISIBLE_ROWS)
        content = sum(self.list.sizeHintForRow(row) for row in range(rows))
        self.list.setFixedHeight(max(content, self.list.fontMetrics().height() * 2) + 2 * self.list.frameWidth() + 4)

    def set_current(self, entry: DeviceEntry | None) -> None:
        self.current = entry.key if entry else None
        self.set_devices(self.entries)

    def set_note(self, text: str) -> None:
        self.note.setText(text)
        self.note.setVisible(bool(text))

    def _chosen(self, item: QListWidgetItem) -> None:
        entry = item.data(Qt.ItemDataRole.UserRole)
        if isinstance(entry, DeviceEntry) and entry.key != self.current:
            self.device_chosen.emit(entry)

    def _connect(self) -> None:
        address = self.address.text().strip()
        if address:
            self.connect_requested.emit(address)
