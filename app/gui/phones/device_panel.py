"""Phones: every attached phone and the virtual phone, with their state in words; a phone plugged in
is offered at once; connect and pair over Wi-Fi, with what really happened."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
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
NO_PHONE = ("No phone attached. Plug one in with USB debugging on (Developer options). "
            "Listed nowhere? On Windows, install the phone maker's USB driver.")


@dataclass(frozen=True)
class DeviceEntry:
    server: str          # "host:port" of the ADB server that has it
    serial: str
    model: str
    state: str           # in words: "connected", "unauthorized — Allow USB debugging on the phone: …", …
    ready: bool
    virtual: bool = False

    @property
    def key(self) -> tuple[str, str]:
        return self.server, self.serial

    @property
    def name(self) -> str:
        return "Virtual phone" if self.virtual else (self.model or "Phone")

    def title(self, shared: bool = False) -> str:
        """Its name and serial; with its ADB server's host:port when another phone has the same serial
        (emulators on several machines are all "emulator-5554")."""
        return f"{self.name}  ·  {self.serial}" + (f"  @  {self.server}" if shared else "")

    def label(self, shared: bool = False) -> str:
        return f"{self.title(shared)}\n{self.state}"


def shared_serials(entries: list[DeviceEntry]) -> set[str]:
    """The serials more than one listed phone has (their ADB servers tell them apart)."""
    seen: set[str] = set()
    shared: set[str] = set()
    for entry in entries:
        (shared if entry.serial in seen else seen).add(entry.serial)
    return shared


class DevicePanel(QWidget):
    device_chosen = Signal(object)        # DeviceEntry
    connect_requested = Signal(str)       # "host:port"
    pair_requested = Signal(str, str)     # "host:port", pairing code

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.list = QListWidget()
        self.list.setAccessibleName("Phones")
        self.list.setWordWrap(True)
        self.list.setVerticalScrollMode(QListWidget.ScrollMode.ScrollPerPixel)
        self.list.itemActivated.connect(self._chosen)
        self.list.itemClicked.connect(self._chosen)
        self.offer_box, self.offer_text, self.use_button = self._offer_row()
        self.address = QLineEdit()
        self.address.setAccessibleName("Wi-Fi address")
        self.address.setPlaceholderText("Wi-Fi: 192.168.1.20:5555")
        self.address.returnPressed.connect(self._connect)
        self.connect_button = QPushButton("Connect")
        self.connect_button.clicked.connect(self._connect)
        self.code = QLineEdit()
        self.code.setAccessibleName("Pairing code")
        self.code.setPlaceholderText("Pairing code")
        self.code.setMaximumWidth(110)
        self.code.returnPressed.connect(self._pair)
        self.pair_button = QPushButton("Pair")
        self.pair_button.setToolTip("adb pair: type the address and port shown next to the pairing code "
                                    "(Wireless debugging → Pair device with pairing code), and the code")
        self.pair_button.clicked.connect(self._pair)
        self.wifi_result = QLabel()
        self.wifi_result.setWordWrap(True)
        self.wifi_result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.note = QLabel()
        self.note.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.address, 1)
        row.addWidget(self.connect_button)
        pair_row = QHBoxLayout()
        pair_row.addWidget(self.code, 1)
        pair_row.addWidget(self.pair_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("<b>Phones</b>"))
        layout.addWidget(self.list)
        layout.addWidget(self.offer_box)
        layout.addLayout(row)
        layout.addLayout(pair_row)
        layout.addWidget(self.wifi_result)
        layout.addWidget(self.note)
        self.entries: list[DeviceEntry] = []
        self.current: tuple[str, str] | None = None
        self.offered: DeviceEntry | None = None
        self.note.hide()
        self.wifi_result.hide()
        self.offer_box.hide()
        self._fit_list()

    def _offer_row(self) -> tuple[QFrame, QLabel, QPushButton]:
        box = QFrame()
        box.setFrameShape(QFrame.Shape.StyledPanel)
        text = QLabel()
        text.setWordWrap(True)
        use = QPushButton("Switch to it")
        use.clicked.connect(self._use_offered)
        dismiss = QPushButton("Not now")
        dismiss.clicked.connect(self._dismiss_offer)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(use)
        buttons.addWidget(dismiss)
        layout = QVBoxLayout(box)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addWidget(text)
        layout.addLayout(buttons)
        return box, text, use

    def follow(self, phone) -> None:
        """Wire the parts the window's own wiring does not: pairing, Wi-Fi outcomes, newly attached phones."""
        self.pair_requested.connect(phone.pair_wifi)
        phone.list.wifi_result.connect(self.show_wifi_result)
        phone.list.phone_attached.connect(self.offer)
        phone.switch_refused.connect(self.set_note)

    # ------------------------------------------------------------------ the list

    def set_devices(self, entries: list[DeviceEntry]) -> None:
        self.entries = entries
        self.list.clear()
        shared = shared_serials(entries)
        for entry in entries:
            item = QListWidgetItem(entry.label(entry.serial in shared))
            item.setData(Qt.ItemDataRole.UserRole, entry)
            item.setToolTip(f"{entry.name} {entry.serial} on the ADB server {entry.server}: {entry.state}")
            if not entry.ready:              # italic, not grey: what to do must stay readable (contrast)
                font = item.font()
                font.setItalic(True)
                item.setFont(font)
            self.list.addItem(item)
            if entry.key == self.current:
                item.setSelected(True)
                font = item.font()
                font.setBold(True)
                item.setFont(font)
        if not any(not entry.virtual for entry in entries):
            hint = QListWidgetItem(NO_PHONE)
            hint.setFlags(Qt.ItemFlag.ItemIsEnabled)       # a hint, not a phone to choose
            self.list.addItem(hint)
        self._fit_list()
        self._update_offer()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_list()                      # wrapped state words take more lines when narrower

    def _fit_list(self) -> None:
        """As high as its rows, up to VISIBLE_ROWS (then it scrolls): one phone takes little room."""
        rows = min(self.list.count(), VISIBLE_ROWS)
        self.list.doItemsLayout()
        content = sum(self.list.visualRect(self.list.model().index(row, 0)).height() or
                      self.list.sizeHintForRow(row) for row in range(rows))
        self.list.setFixedHeight(max(content, self.list.fontMetrics().height() * 2) + 2 * self.list.frameWidth() + 4)

    def set_current(self, entry: DeviceEntry | None) -> None:
        if (entry.key if entry else None) != self.current:
            self.set_note("")
        self.current = entry.key if entry else None
        self.set_devices(self.entries)

    def set_note(self, text: str) -> None:
        self.note.setText(text)
        self.note.setVisible(bool(text))

    def _chosen(self, item: QListWidgetItem) -> None:
        entry = item.data(Qt.ItemDataRole.UserRole)
        if isinstance(entry, DeviceEntry) and entry.key != self.current:
            self.device_chosen.emit(entry)

    # ------------------------------------------------------------------ a phone plugged in

    def offer(self, entry: DeviceEntry) -> None:
        """A phone was plugged in (or connected): say so here, with one click to switch to it."""
        if entry.key != self.current:
            self.offered = entry
            self._update_offer()

    def _update_offer(self) -> None:
        offered = self.offered
        now = next((e for e in self.entries if offered is not None and e.key == offered.key), None)
        if now is None or now.key == self.current:
            self.offered = None
            self.offer_box.hide()
            return
        self.offered = now
        where = f" on {now.server}" if now.serial in shared_serials(self.entries) else ""
        said = f"<b>{escape(now.name)}</b> ({escape(now.serial)}{escape(where)}) was attached"
        self.offer_text.setText(f"{said}." if now.ready else f"{said}: {escape(now.state)}.")
        self.use_button.setEnabled(now.ready)
        self.offer_box.show()

    def _use_offered(self) -> None:
        if self.offered is not None and self.offered.ready:
            self.device_chosen.emit(self.offered)

    def _dismiss_offer(self) -> None:
        self.offered = None
        self.offer_box.hide()

    # ------------------------------------------------------------------ Wi-Fi

    def _connect(self) -> None:
        address = self.address.text().strip()
        if address:
            self._busy(f"Connecting to {address}…")
            self.connect_requested.emit(address)
        else:
            self.show_wifi_result(False, "Type the phone's address as shown under Wireless debugging "
                                         "(e.g. 192.168.1.20:5555).")

    def _pair(self) -> None:
        address, code = self.address.text().strip(), self.code.text().strip()
        if address and code:
            self._busy(f"Pairing with {address}…")
            self.pair_requested.emit(address, code)
        else:
            self.show_wifi_result(False, "To pair, type the address and port shown next to the pairing code, "
                                         "and the code (Wireless debugging → Pair device with pairing code).")

    def _busy(self, text: str) -> None:
        self.connect_button.setEnabled(False)
        self.pair_button.setEnabled(False)
        self.wifi_result.setText(text)
        self.wifi_result.show()

    def show_wifi_result(self, ok: bool, text: str) -> None:
        """What a Wi-Fi connect or pairing really did."""
        self.connect_button.setEnabled(True)
        self.pair_button.setEnabled(True)
        self.wifi_result.setText(("✓ " if ok else "✗ ") + text)
        self.wifi_result.setAccessibleDescription(text)
        self.wifi_result.show()
