"""The window's middle column: the mirror and one bar with the manual controls, the mirror's own
buttons (boxes on/off, 1:1, full screen) and its readout ("Live · 60 fps"). Nothing sits above the
mirror: the phone's picture gets the height. Where the column is wide enough for the phone at its full
height and the bar beside it (a small screen with the inspector shut), the bar stands beside the phone,
its groups in rows; otherwise it lies below the phone and wraps onto more rows only when narrow.

The mirror fits its column (aspect kept), or shows one phone pixel per screen pixel (1:1, as scrcpy's
"pixel perfect"), scrolling where the phone is bigger than the column.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import QBoxLayout, QFrame, QLabel, QScrollArea, QStyle, QToolButton, QWidget

from app.gui.mirror.frame_rate import READOUT_WORDS, mirror_state_tip, mirror_state_words
from app.gui.mirror.manual_controls import ManualControlBar
from app.gui.mirror.mirror_view import MirrorView

READOUT_MS = 1000
SIDE_BAR_WIDTH = 300
"""px: the bar beside the phone."""
PHONE_ASPECT = 1080 / 2400
"""Until the phone says its size."""
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
    """The mirror (in a scroll area, for 1:1) with the bar below or beside it."""

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

        self.overlay_button = _tool_button("Boxes", "Show the numbered boxes of the controls (Ctrl+B)", "Boxes")
        self.overlay_button.setChecked(True)
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
        for button in (self.overlay_button, self.actual_size_button, self.full_screen_button):
            button.setFixedHeight(self.manual.touch_button.maximumHeight())      # one height along the bar
        self._layout = QBoxLayout(QBoxLayout.Direction.TopToBottom, self)
        self._layout.setContentsMargins(4, 4, 4, 0)
        self._layout.setSpacing(2)
        self.bar_beside = False
        self._arrange(False)
        self._readout = QTimer(self, interval=READOUT_MS)
        self._readout.timeout.connect(self.refresh_state)
        self.refresh_state()

    # ------------------------------------------------------------------ the bar: below or beside

    def _wants_bar_beside(self) -> bool:
        """Whether the phone, as tall as the column, still leaves room for the bar beside it (never in 1:1)."""
        if self._actual_size:
            return False
        width, height = self.mirror.device_size
        aspect = width / height if width and height else PHONE_ASPECT
        margins = self._layout.contentsMargins()
        picture = (self.height() - margins.top() - margins.bottom()) * aspect
        return self.width() - margins.left() - margins.right() - SIDE_BAR_WIDTH - 8 >= picture

    def _arrange(self, beside: bool) -> None:
        layout = self._layout
        while layout.count():
            layout.takeAt(0)
        self.bar_beside = beside
        if beside:
            layout.setDirection(QBoxLayout.Direction.LeftToRight)
            self.manual.setMaximumWidth(SIDE_BAR_WIDTH)
            layout.addWidget(self.mirror_area, 1)
            layout.addWidget(self.manual, 0, Qt.AlignmentFlag.AlignTop)
        else:
            layout.setDirection(QBoxLayout.Direction.TopToBottom)
            self.manual.setMaximumWidth(16777215)
            layout.addWidget(self.mirror_area, 1)
            layout.addWidget(self.manual)

    def _place_bar(self) -> None:
        beside = self._wants_bar_beside()
        if beside != self.bar_beside:
            self._arrange(beside)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._place_bar()

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
        self._place_bar()

    def device_size_changed(self) -> None:
        """The phone's size (or rotation) changed: in 1:1 the mirror takes the phone's size in screen pixels."""
        self._place_bar()         # a phone turned sideways wants the width: the bar goes below it
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
