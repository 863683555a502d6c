"""The window's middle column: the mirror and, below it, one bar that wraps onto more rows only when
the column is narrow: the manual controls, the mirror's own buttons (boxes on/off, 1:1, full screen)
and its readout ("Live · 60 fps"). Nothing sits above the mirror: the phone's picture gets the height.

The mirror fits its column (aspect kept), or shows one phone pixel per screen pixel (1:1, as scrcpy's
"pixel perfect"), scrolling where the phone is bigger than the column.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QLabel, QPushButton, QScrollArea, QStyle, QToolButton, QVBoxLayout, QWidget

from app.gui.mirror.frame_rate import READOUT_WORDS, mirror_state_tip, mirror_state_words
from app.gui.mirror.manual_controls import ManualControlBar
from app.gui.mirror.mirror_view import MirrorView

READOUT_MS = 1000
"""How often the readout says again how many frames the mirror painted in the last second."""


def _fixed_label(texts: tuple[str, ...]) -> QLabel:
    """A label of a fixed size, as wide as the widest of `texts`: a label whose size can change makes Qt
    lay out the whole window again each time its text changes (here every second)."""
    label = QLabel("")
    metrics = label.fontMetrics()
    label.setFixedSize(max(metrics.horizontalAdvance(text) for text in texts) + 8, metrics.height() + 4)
    label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
    return label


def _tool_button(text: str, tip: str, name: str) -> QToolButton:
    button = QToolButton()
    button.setText(text)
    button.setToolTip(tip)
    button.setAccessibleName(name)
    button.setCheckable(True)
    return button


class MirrorPanel(QWidget):
    """The mirror (in a scroll area, for 1:1) with the bar below it."""

    actual_size_toggled = Signal(bool)      # the 1:1 button was pressed (the window's View action follows)
    full_screen_toggled = Signal(bool)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.mirror = MirrorView()
        self.mirror.setAccessibleName("Phone screen")
        self.mirror.setAccessibleDescription("The phone's screen, mirrored. Tab and Shift+Tab go through its "
                                             "controls in inspect mode; in touch mode keys are sent to the phone.")
        self.mirror.set_placeholder("Connecting to the phone…")
        self.mirror_area = QScrollArea()
        self.mirror_area.setFrameShape(QFrame.Shape.NoFrame)
        self.mirror_area.setAccessibleName("Phone screen area")
        self.mirror_area.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.mirror_area.setWidget(self.mirror)
        self.mirror.device_size_changed.connect(self.device_size_changed)
        self._actual_size = False
        self._fit()

        self.overlay_button = QPushButton("Boxes")
        self.overlay_button.setCheckable(True)
        self.overlay_button.setChecked(True)
        self.overlay_button.setToolTip("Show the numbered boxes of the controls (Ctrl+B)")
        self.actual_size_button = _tool_button("1:1", "One phone pixel per screen pixel; scroll to see the rest "
                                               "(Ctrl+1). Off: the phone fits the window.", "Actual size")
        self.actual_size_button.toggled.connect(self.actual_size_toggled)
        self.full_screen_button = _tool_button("Full screen", "Full screen: only the phone (F11; Esc leaves)",
                                               "Full screen")
        self.full_screen_button.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_TitleBarMaxButton))
        self.full_screen_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        self.full_screen_button.toggled.connect(self.full_screen_toggled)
        self.state_label = _fixed_label(READOUT_WORDS)     # "Live · 60 fps"; where the frames come from in its tooltip
        self.state_label.setAccessibleName("Mirror state")
        self._source, self._status = "", ""
        self.manual = ManualControlBar()
        self.manual.add_group(self.overlay_button, self.actual_size_button, self.full_screen_button)
        self.manual.add_group(self.state_label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 0)
        layout.setSpacing(2)
        layout.addWidget(self.mirror_area, 1)
        layout.addWidget(self.manual)
        self._readout = QTimer(self, interval=READOUT_MS)
        self._readout.timeout.connect(self.refresh_state)
        self.refresh_state()

    # ------------------------------------------------------------------ readout

    def refresh_state(self) -> None:
        """Say where the pictures come from and how many the mirror painted in the last second."""
        shown = self.mirror.shown_frames
        self.state_label.setText(mirror_state_words(self._source, shown.per_second(), shown.total > 0, self._status))

    def show_frame_source(self, short: str, status: str) -> None:
        """The frame source ("Stream" or "Screenshots") and its whole status, for the readout and its tooltip."""
        self._source, self._status = short, status
        self.state_label.setToolTip(mirror_state_tip(short, status))
        self.refresh_state()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._readout.start()

    def hideEvent(self, event) -> None:
        super().hideEvent(event)
        self._readout.stop()           # hidden: nothing ticks

    # ------------------------------------------------------------------ 1:1

    @property
    def actual_size(self) -> bool:
        return self._actual_size

    def set_actual_size(self, on: bool) -> None:
        """1:1 (one phone pixel per screen pixel, scrolling) or fit the column (aspect kept)."""
        self._actual_size = bool(on)
        blocked = self.actual_size_button.blockSignals(True)
        self.actual_size_button.setChecked(self._actual_size)
        self.actual_size_button.blockSignals(blocked)
        if self._actual_size:
            self.device_size_changed()
        else:
            self._fit()

    def device_size_changed(self) -> None:
        """The phone's size (or rotation) changed: in 1:1 the mirror takes the phone's size in screen pixels."""
        if not self._actual_size:
            return
        width, height = self.mirror.device_size
        if not width or not height:
            return
        ratio = self.mirror.devicePixelRatioF() or 1.0
        size = QSize(round(width / ratio), round(height / ratio))
        if self.mirror.size() == size and not self.mirror_area.widgetResizable():
            return
        self.mirror_area.setWidgetResizable(False)
        self.mirror_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.mirror_area.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.mirror.setFixedSize(size)

    def _fit(self) -> None:
        self.mirror_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.mirror_area.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.mirror.setMinimumSize(self.mirror.minimum_fit_size())
        self.mirror.setMaximumSize(16777215, 16777215)
        self.mirror_area.setWidgetResizable(True)
