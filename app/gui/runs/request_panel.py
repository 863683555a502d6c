"""The request: what to do in plain words, the mode and limits, and Run / Step / Pause / Stop / Take over."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.gui.flow_layout import FlowLayout


class RequestPanel(QWidget):
    run_requested = Signal(str, str, int)   # request, mode ("step" | "auto"), max steps
    step_requested = Signal(str, str, int)  # start paused and run one step (or one more step)
    pause_toggled = Signal(bool)            # True = pause
    stop_requested = Signal()
    take_over_requested = Signal()         # the person takes the phone in the middle of the run
    settings_requested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.request = QPlainTextEdit()
        self.request.setPlaceholderText("What should the agent do? e.g. “Turn on Wi-Fi” or "
                                        "“Text Ben Carter that I am running late”. Ctrl+Enter runs it.")
        self.request.setFixedHeight(72)
        self.mode = QComboBox()
        self.mode.addItem("Step: approve every action", "step")
        self.mode.addItem("Auto: ask only for sensitive actions", "auto")
        self.max_steps = QSpinBox()
        self.max_steps.setRange(1, 500)
        self.max_steps.setValue(30)
        self.max_steps.setPrefix("max ")
        self.max_steps.setSuffix(" steps")
        self.run_button = QPushButton("Run")
        self.run_button.setProperty("primary", True)
        self.run_button.setToolTip("Run the request (Ctrl+Enter in the request box, or F5)")
        self.step_button = QPushButton("Step")
        self.pause_button = QPushButton("Pause")
        self.pause_button.setCheckable(True)
        self.stop_button = QPushButton("Stop")
        self.take_over_button = QPushButton("Take over")
        self.take_over_button.setToolTip("Take the phone yourself — a captcha, a login, a choice only you can make. "
                                         "The agent waits; what you do on the mirror is recorded as steps of the "
                                         "run; Hand back gives it back with your note (Ctrl+T)")
        self.key_notice = QLabel()
        self.key_notice.setWordWrap(True)
        self.key_notice.setOpenExternalLinks(False)
        self.key_notice.linkActivated.connect(lambda _link: self.settings_requested.emit())
        self.missing_notice = QLabel()      # the Desk's preflight list: what a run is missing besides the key
        self.missing_notice.setWordWrap(True)
        self.missing_notice.setVisible(False)
        self.missing_notice.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.status = QLabel("Ready.")
        self.status.setWordWrap(True)
        # Long runs without a space (a streamed JSON reply, a URL) are cut, never laid out wider than the panel.
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

        # Rows that wrap when the panel is narrow (a small screen) instead of widening the window.
        self.mode.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.mode.setMinimumWidth(150)     # its whole text where there is room; shortened in a narrow panel
        options = FlowLayout()
        options.addWidget(self.mode)
        options.addWidget(self.max_steps)
        buttons = FlowLayout()
        for button in (self.run_button, self.step_button, self.pause_button, self.stop_button, self.take_over_button):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("<b>Request</b>"))
        layout.addWidget(self.request)
        layout.addLayout(options)
        layout.addLayout(buttons)
        layout.addWidget(self.key_notice)
        layout.addWidget(self.missing_notice)
        layout.addWidget(self.status)

        self.run_button.clicked.connect(lambda: self._emit(self.run_requested))
        self.step_button.clicked.connect(lambda: self._emit(self.step_requested))
        self.pause_button.toggled.connect(self._pause_toggled)
        self.stop_button.clicked.connect(self.stop_requested.emit)
        self.take_over_button.clicked.connect(self.take_over_requested.emit)
        self.set_running(False)

    def _emit(self, signal) -> None:
        text = self.request.toPlainText().strip()
        if not text and signal is self.run_requested:
            self.status.setText("Type a request first.")
            return
        signal.emit(text, self.mode.currentData(), self.max_steps.value())

    def _pause_toggled(self, paused: bool) -> None:
        self.pause_button.setText("Resume" if paused else "Pause")
        self.pause_toggled.emit(paused)

    def set_running(self, running: bool, paused: bool = False, taken_over: bool = False) -> None:
        self.take_over_button.setEnabled(running and not taken_over)
        self.step_button.setEnabled(not taken_over)
        self.run_button.setEnabled(not running)
        self.request.setReadOnly(running)
        self.mode.setEnabled(not running)
        self.max_steps.setEnabled(not running)
        self.pause_button.setEnabled(running and not taken_over)
        self.stop_button.setEnabled(running)
        self.pause_button.blockSignals(True)
        self.pause_button.setChecked(running and paused)
        self.pause_button.setText("Resume" if running and paused else "Pause")
        self.pause_button.blockSignals(False)

    def set_key_missing(self, missing: bool, where: str = "") -> None:
        """With no API key the agent cannot run; inspecting the phone still works."""
        if missing:
            self.key_notice.setText("No API key yet: <a href='settings'>add one in Settings</a> "
                                    "(it is kept in your system keyring). Inspecting the phone works without one.")
        self.key_notice.setVisible(missing)
        self.run_button.setToolTip("" if not missing else "Add an API key in Settings first")

    def set_missing(self, items: list[str]) -> None:
        """What a run is missing (the Desk's preflight list, the key aside), one line each; none: hidden."""
        self.missing_notice.setText("\n".join(f"• {item}" for item in items))
        self.missing_notice.setVisible(bool(items))

    def set_status(self, text: str) -> None:
        self.status.setText(text)
