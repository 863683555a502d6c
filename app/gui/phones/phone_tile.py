"""One phone in the Phones window: its name, a small live picture of its screen, a request with Run and
Stop, its run's state in words, and — when the run waits for the person — the proposal with Approve and
Reject, or the agent's question with an answer field.

The tile is widgets only: it says what the person asked for as signals, and shows what it is told.
`PhoneFollower` (phone_follower.py) connects it to the phone and its runs.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from app.gui.flow_layout import FlowLayout
from app.gui.mirror.mirror_frames import fitted_rect, paint_frame
from app.gui.theme import set_tone

THUMB_SIZE = QSize(160, 350)       # the picture's area: a phone's 9:20 screen, small
TILE_MIN_WIDTH = 400               # a tile is never narrower (the grid's columns follow from it)
TILE_MAX_WIDTH = 720               # nor wider: a few phones on a wide screen keep their tiles compact
MODES = (("Step", "step", "every action waits for your OK"),
         ("Auto", "auto", "actions run on their own; risky ones wait for your OK"))


class ScreenThumb(QWidget):
    """The phone's screen, fitted into a small area (aspect kept); a sentence until the first frame."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.image: QImage | None = None
        self.frames_shown = 0
        self.setFixedSize(THUMB_SIZE)
        self.setAccessibleName("Phone screen")

    def set_image(self, image: QImage) -> None:
        self.image = image
        self.frames_shown += 1
        self.update()

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), self.palette().color(self.backgroundRole()).darker(115))
        if self.image is None or self.image.isNull():
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, "No picture yet")
        else:
            paint_frame(painter, self.image, fitted_rect(self.image, self.size()))
        painter.end()


def _label(text: str = "", tone: str = "", bold: bool = False) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)   # wraps, never widens the tile
    if tone:
        set_tone(label, tone)
    if bold:
        font = label.font()
        font.setBold(True)
        label.setFont(font)
    return label


class PhoneTile(QFrame):
    run_requested = Signal(str, str)      # request, mode ("step" | "auto")
    stop_requested = Signal()
    approve_requested = Signal()
    reject_requested = Signal(str)        # why (for the model); may be empty
    question_answered = Signal(str)
    show_requested = Signal()             # show this phone in the main window

    def __init__(self, name: str, mode: str = "step", parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("phoneTile")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setMaximumWidth(TILE_MAX_WIDTH)
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        policy.setHeightForWidth(True)        # wrapped words take more lines in a narrow tile: it grows taller
        self.setSizePolicy(policy)
        self.setAccessibleName(name)
        self.running = False
        self.thumb = ScreenThumb()
        self.name_label = _label(name, bold=True)
        self.show_button = QPushButton("Show in main window")
        self.show_button.setToolTip("Show this phone's mirror, inspector and timeline in the main window")
        self.show_button.clicked.connect(self.show_requested)
        self.state_label = _label("Opening the phone…")
        self.state_label.setAccessibleName("Run state")
        self.step_label = _label("", tone="muted")
        self.message_label = _label("", tone="muted")
        self.error_label = _label("", tone="error")
        self.request = QLineEdit()
        self.request.setAccessibleName("Request")
        self.request.setPlaceholderText("What should the agent do?")
        self.request.returnPressed.connect(self._run)
        self.mode_box = QComboBox()
        self.mode_box.setAccessibleName("Mode")
        for text, value, tip in MODES:
            self.mode_box.addItem(text, value)
            self.mode_box.setItemData(self.mode_box.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
        self.mode_box.setCurrentIndex(max(0, self.mode_box.findData(mode)))
        self.run_button = QPushButton("Run")
        self.run_button.setProperty("primary", True)
        self.run_button.setEnabled(False)             # until the phone is open
        self.run_button.clicked.connect(self._run)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.stop_requested)
        self.review_box = self._review_box()
        self.question_box = self._question_box()
        self._lay_out()
        self._fit_width()

    def _review_box(self) -> QFrame:
        box = QFrame()
        box.setObjectName("tileReview")
        box.setFrameShape(QFrame.Shape.StyledPanel)
        self.review_title = _label("Approve this action?", bold=True)
        self.action_label = _label()
        self.action_label.setAccessibleName("Proposed action")
        self.reject_reason = QLineEdit()
        self.reject_reason.setAccessibleName("Why not")
        self.reject_reason.setPlaceholderText("Why not? (optional)")
        self.reject_reason.setToolTip("When you reject the action, this is told to the model")
        self.approve_button = QPushButton("Approve")
        self.approve_button.setProperty("primary", True)
        self.approve_button.clicked.connect(self._approve)
        self.reject_button = QPushButton("Reject")
        self.reject_button.clicked.connect(self._reject)
        self.reject_reason.returnPressed.connect(self._reject)
        buttons = FlowLayout(spacing=6, align_right=True)     # Approve goes under Reject rather than be cut
        buttons.addWidget(self.reject_button)
        buttons.addWidget(self.approve_button)
        layout = QVBoxLayout(box)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(4)
        layout.addWidget(self.review_title)
        layout.addWidget(self.action_label)
        layout.addWidget(self.reject_reason)
        layout.addLayout(buttons)
        box.hide()
        return box

    def _question_box(self) -> QFrame:
        box = QFrame()
        box.setObjectName("tileQuestion")
        box.setFrameShape(QFrame.Shape.StyledPanel)
        self.question_label = _label()
        self.question_label.setAccessibleName("Question")
        self.answer_field = QLineEdit()
        self.answer_field.setAccessibleName("Answer")
        self.answer_field.setPlaceholderText("Your answer")
        self.answer_field.returnPressed.connect(self._answer)
        self.answer_button = QPushButton("Answer")
        self.answer_button.setProperty("primary", True)
        self.answer_button.clicked.connect(self._answer)
        row = QHBoxLayout()
        row.addWidget(self.answer_field, 1)
        row.addWidget(self.answer_button)
        layout = QVBoxLayout(box)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(4)
        layout.addWidget(_label("The agent asks:", bold=True))
        layout.addWidget(self.question_label)
        layout.addLayout(row)
        box.hide()
        return box

    def _lay_out(self) -> None:
        footer = FlowLayout(align_right=True)
        controls = FlowLayout(spacing=6)
        controls.addWidget(self.mode_box)
        controls.addWidget(self.run_button)
        controls.addWidget(self.stop_button)
        side = QVBoxLayout()
        side.setSpacing(6)
        side.addWidget(self.name_label)
        side.addWidget(self.state_label)
        side.addWidget(self.step_label)
        side.addWidget(self.message_label)
        side.addWidget(self.request)
        side.addLayout(controls)
        side.addWidget(self.review_box)
        side.addWidget(self.question_box)
        side.addWidget(self.error_label)
        side.addStretch(1)
        footer.addWidget(self.show_button)
        side.addLayout(footer)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 10, 10, 10)
        layout.setSpacing(12)
        layout.addWidget(self.thumb, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(side, 1)
        self.message_label.hide()
        self.error_label.hide()
        self.step_label.hide()

    def sizeHint(self) -> QSize:
        return QSize(TILE_MIN_WIDTH + 120, self.heightForWidth(TILE_MIN_WIDTH + 120))

    def _fit_width(self) -> None:
        """At least TILE_MIN_WIDTH, and wide enough for each button's whole text beside the picture (a big
        font makes the tile wider rather than cut "Show in main window" or "Approve")."""
        layout = self.layout()
        if layout is None:
            return
        margins, side = layout.contentsMargins(), 0
        for widget in (self.show_button, self.approve_button, self.reject_button, self.answer_button,
                       self.run_button, self.stop_button, self.mode_box):
            widget.ensurePolished()
            side = max(side, widget.sizeHint().width())
        boxes = 2 * 8 + 2 * self.review_box.frameWidth()        # the review box's margins and frame
        needed = margins.left() + margins.right() + THUMB_SIZE.width() + layout.spacing() + side + boxes
        self.setMinimumWidth(max(TILE_MIN_WIDTH, needed))

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._fit_width()

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        layout = self.layout()
        needed = layout.totalHeightForWidth(width) if layout is not None else 0
        return max(THUMB_SIZE.height() + 20, needed)

    # ------------------------------------------------------------------ the person's side

    @property
    def mode(self) -> str:
        return self.mode_box.currentData()

    def _run(self) -> None:
        if self.run_button.isEnabled():
            self.run_requested.emit(self.request.text().strip(), self.mode)

    def _approve(self) -> None:
        self.clear_review()
        self.approve_requested.emit()

    def _reject(self) -> None:
        why = self.reject_reason.text().strip()
        self.clear_review()
        self.reject_requested.emit(why)

    def _answer(self) -> None:
        text = self.answer_field.text().strip()
        if not text:
            self.answer_field.setFocus()
            return
        self.clear_question()
        self.question_answered.emit(text)

    # ------------------------------------------------------------------ what it shows

    def set_ready(self, ready: bool) -> None:
        """The phone is open (Run can start) — or could not be opened."""
        self.run_button.setEnabled(ready and not self.running)
        if ready and not self.running:
            self.set_state("Idle — type a request and press Run")

    def set_name(self, name: str) -> None:
        self.name_label.setText(name)
        self.setAccessibleName(name)

    def set_frame(self, image: QImage) -> None:
        self.thumb.set_image(image)

    def set_state(self, text: str) -> None:
        self.state_label.setText(text)

    def set_step(self, step: int, last_action: str) -> None:
        parts = [f"step {step}"] if step else []
        if last_action:
            parts.append(last_action)
        self.step_label.setText(" · ".join(parts))
        self.step_label.setVisible(bool(parts))

    def set_message(self, text: str) -> None:
        self.message_label.setText(text)
        self.message_label.setVisible(bool(text))

    def show_error(self, text: str) -> None:
        self.error_label.setText(text)
        self.error_label.setVisible(bool(text))

    def begin_run(self, request: str) -> None:
        """A run on this phone is followed from now (started here or anywhere else)."""
        self.set_running(True)
        self.show_error("")
        self.set_message("")
        self.set_step(0, "")
        self.clear_review()
        self.clear_question()
        set_tone(self.state_label, "")
        if request and self.request.text().strip() != request.strip():
            self.request.setText(request)
        self.request.setCursorPosition(0)
        self.set_state("Queued — waiting for the phone")

    def set_running(self, running: bool) -> None:
        self.running = running
        self.run_button.setEnabled(not running)
        self.stop_button.setEnabled(running)
        self.mode_box.setEnabled(not running)

    def finish_run(self, text: str, ok: bool) -> None:
        self.set_running(False)
        self.clear_review()
        self.clear_question()
        self.set_state(text)
        set_tone(self.state_label, "success" if ok else "error")

    def show_review(self, action_text: str, why: str = "") -> None:
        set_tone(self.state_label, "")
        self.review_title.setText(f"Approve this action? ({why})" if why else "Approve this action?")
        self.action_label.setText(action_text)
        self.reject_reason.clear()
        self.review_box.show()
        self.approve_button.setFocus()

    def clear_review(self) -> None:
        self.review_box.hide()
        self.action_label.clear()

    @property
    def awaiting_review(self) -> bool:
        return not self.review_box.isHidden()

    def show_question(self, question: str) -> None:
        self.question_label.setText(question)
        self.answer_field.clear()
        self.question_box.show()
        self.answer_field.setFocus()

    def clear_question(self) -> None:
        self.question_box.hide()
        self.question_label.clear()
