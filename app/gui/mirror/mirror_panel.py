"""The window's middle column: the mirror, the row above it (boxes on/off, where the frames
come from, frames a second) and the manual control bar below it."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.gui.mirror.manual_controls import ManualControlBar
from app.gui.mirror.mirror_view import MirrorView


def _fixed_label(widest_text: str, tooltip: str = "") -> QLabel:
    """A right-aligned label of a fixed size: a label whose size can change makes Qt lay out the
    whole window again each time its text changes (here every second)."""
    label = QLabel("")
    metrics = label.fontMetrics()
    label.setFixedSize(metrics.horizontalAdvance(widest_text) + 8, metrics.height() + 4)
    label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    label.setToolTip(tooltip)
    return label


class MirrorPanel(QWidget):
    """The mirror with its header row and the manual control bar."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.mirror = MirrorView()
        self.mirror.setAccessibleName("Phone screen")
        self.mirror.setAccessibleDescription("The phone's screen, mirrored. Tab and Shift+Tab go through its "
                                             "controls in inspect mode; in touch mode keys are sent to the phone.")
        self.mirror.set_placeholder("Connecting to the phone…")
        self.overlay_button = QPushButton("Boxes")
        self.overlay_button.setCheckable(True)
        self.overlay_button.setChecked(True)
        self.overlay_button.setToolTip("Show the numbered boxes of the controls (Ctrl+B)")
        self.source_label = _fixed_label("Screenshots")      # the stream or screenshots; why in its tooltip
        self.fps_label = _fixed_label("999.9 fps", "Pictures a second the mirror shows; “still”: the phone's "
                                      "screen has not changed for a second (the stream then sends nothing)")
        self.manual = ManualControlBar()
        top = QHBoxLayout()
        top.addWidget(self.overlay_button)
        top.addStretch(1)
        top.addWidget(self.source_label)
        top.addWidget(self.fps_label)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.mirror, 1)
        layout.addWidget(self.manual)

    def show_fps(self, fps: float) -> None:
        self.fps_label.setText(f"{fps:.1f} fps" if fps else "still")

    def show_frame_source(self, short: str, status: str) -> None:
        """"Stream" or "Screenshots" above the mirror, the frame source's whole status as its tooltip."""
        self.source_label.setText(short)
        self.source_label.setToolTip(f"Mirror: {status}")
