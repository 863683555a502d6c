"""One step of a run in full: both screenshots, the model's reasoning, the decision, the outcome,
the timings and the raw prompt and reply. Also the chips and images the run views share (their words
and colours come from `app.core.agent.run_words`)."""

from __future__ import annotations

import asyncio
import html
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontDatabase, QImage, QImageReader, QPainter, QPalette
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from app.core.agent.history_words import (
    human_ms,
    question_words,
    questions_of,
    reflection_for,
    rejected_reviews,
    review_words,
    step_decision,
    step_decision_note,
    who_note,
)
from app.core.agent.pipeline import ProcessingPhase
from app.core.agent.records import StepRecord
from app.core.agent.run_words import (
    NEUTRAL,
    action_words,
    decision_word,
    result_text,
    step_action_text,
    target_words,
    thought_and_comment,
)
from app.core.agent.step_reviews import ProposalReview
from app.core.agent.trajectory import step_file
from app.core.providers import Pricing, cost_words
from app.gui.window_fit import fit_window

__all__ = ["CHIP_COLOUR_ROLE", "CHIP_NOTE_ROLE", "NEUTRAL_CHIP", "ChipDelegate", "StepDetailDialog", "decision_chip",
           "error_colour", "format_ms", "read_scaled_image", "result_text", "review_chip", "step_action_text",
           "step_duration_ms", "token_counts"]

PHASES = tuple(phase.value for phase in ProcessingPhase)
PHASE_WORDS = {"data_collection": "reading the screen", "llm_interaction": "asking the model",
               "action_execution": "acting on the phone", "memory_update": "recording the step"}
CHIP_COLOUR_ROLE = Qt.ItemDataRole.UserRole + 10   # QColor of the chip a ChipDelegate paints
CHIP_NOTE_ROLE = Qt.ItemDataRole.UserRole + 11     # plain text drawn after the chip
NEUTRAL_CHIP = NEUTRAL
DETAIL_IMAGE_SIZE = QSize(900, 1800)   # screenshots are decoded to at most this size for the dialog


# ---------------------------------------------------------------- a step in words (the words: run_words)


def decision_chip(step: StepRecord) -> tuple[str, str, str]:
    """(chip text, chip colour, note) for the step's decision; the note says who decided ("by you", "your
    own action", "by you: <reason>") and the proposals rejected before it."""
    kind = step_decision(step)[0]
    if not kind:
        return "", NEUTRAL_CHIP, ""
    word = decision_word(kind)
    return word.text, word.colour, step_decision_note(step)


def review_chip(review: ProposalReview) -> tuple[str, str, str]:
    """(chip text, chip colour, note) for one proposal the person decided about (a rejected one)."""
    word = decision_word(review.decision)
    return word.text, word.colour, who_note(review.decision, review.by, review.feedback)


def step_duration_ms(step: StepRecord) -> float | None:
    """The sum of the step's phase timings (strategy timings inside them are not counted twice)."""
    values = [value for name, value in step.timings_ms.items() if name in PHASES]
    return sum(values) if values else None


def format_ms(ms: float | None) -> str:
    """A duration in human words ("0.4 s", "3 min 5 s"); "–" when unknown."""
    return human_ms(ms)


def token_counts(step: StepRecord) -> tuple[int, int]:
    """(prompt, completion) tokens of the step."""
    return step.tokens.get("prompt", 0), step.tokens.get("completion", 0)


def error_colour(palette: QPalette) -> QColor:
    """A red that reads well on the palette's base colour (light or dark theme)."""
    return QColor("#ff7b72" if palette.color(QPalette.ColorRole.Base).lightness() < 128 else "#cf222e")


def read_scaled_image(paths: Sequence[Path | None], max_size: QSize) -> QImage | None:
    """The first of `paths` that decodes, shrunk to fit `max_size`; None if none does. Runs in a worker thread."""
    for path in filter(None, paths):
        image = QImageReader(str(path)).read()
        if not image.isNull():
            if image.width() > max_size.width() or image.height() > max_size.height():
                image = image.scaled(max_size, Qt.AspectRatioMode.KeepAspectRatio,
                                     Qt.TransformationMode.SmoothTransformation)
            return image
    return None


class ChipDelegate(QStyledItemDelegate):
    """Paints the cell's text as a small coloured chip, followed by an optional note."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index) -> None:
        text = index.data(Qt.ItemDataRole.DisplayRole) or ""
        base = QStyleOptionViewItem(option)
        self.initStyleOption(base, index)
        base.text = ""
        widget = option.widget
        style = widget.style() if widget else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, base, painter, widget)
        if not text:
            return
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        metrics = option.fontMetrics
        rect = option.rect.adjusted(6, 0, -6, 0)
        if metrics.horizontalAdvance(text) + 16 > rect.width():      # a narrow column: the word shortened
            text = metrics.elidedText(text, Qt.TextElideMode.ElideRight, max(0, rect.width() - 16))
        chip_width, chip_height = metrics.horizontalAdvance(text) + 16, metrics.height() + 4
        chip = QRectF(rect.left(), rect.center().y() - chip_height / 2 + 1, chip_width, chip_height)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(index.data(CHIP_COLOUR_ROLE) or NEUTRAL_CHIP))
        painter.drawRoundedRect(chip, chip_height / 2, chip_height / 2)
        painter.setPen(QColor("white"))
        painter.drawText(chip, Qt.AlignmentFlag.AlignCenter, text)
        note = index.data(CHIP_NOTE_ROLE)
        if note:
            selected = option.state & QStyle.StateFlag.State_Selected
            role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
            painter.setPen(option.palette.color(role))
            note_rect = rect.adjusted(int(chip_width) + 8, 0, 0, 0)
            painter.drawText(note_rect, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
                             metrics.elidedText(note, Qt.TextElideMode.ElideRight, note_rect.width()))
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index) -> QSize:
        text = f"{index.data(Qt.ItemDataRole.DisplayRole) or ''}  {index.data(CHIP_NOTE_ROLE) or ''}"
        return QSize(option.fontMetrics.horizontalAdvance(text) + 40, option.fontMetrics.height() + 10)


class ScreenshotView(QWidget):
    """A screenshot scaled to fit with its aspect ratio kept, under a caption."""

    def __init__(self, caption: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.caption = caption
        self.image: QImage | None = None
        self._message = "Loading…"
        self.setMinimumSize(180, 320)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def show_message(self, message: str) -> None:
        self.image, self._message = None, message
        self.update()

    def set_image(self, image: QImage | None) -> None:
        self.image, self._message = image, "No screenshot was saved"
        self.update()

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        palette = self.palette()
        caption_height = self.fontMetrics().height() + 6
        area = QRectF(self.rect().adjusted(0, caption_height, 0, 0))
        if self.image is not None:   # centred, aspect kept, the caption just above it
            scale = min(area.width() / self.image.width(), area.height() / self.image.height())
            width, height = self.image.width() * scale, self.image.height() * scale
            area = QRectF(area.left() + (area.width() - width) / 2, area.top() + (area.height() - height) / 2,
                          width, height)
            painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
            painter.drawImage(area, self.image)
        else:
            painter.fillRect(area, palette.color(QPalette.ColorRole.AlternateBase))
            painter.setPen(palette.color(QPalette.ColorRole.PlaceholderText))
            painter.drawText(area, Qt.AlignmentFlag.AlignCenter, self._message)
        painter.setPen(palette.color(QPalette.ColorRole.WindowText))
        painter.drawText(QRectF(0, area.top() - caption_height, self.width(), caption_height),
                         Qt.AlignmentFlag.AlignCenter, self.caption)
        painter.end()


def _text_area(placeholder: str) -> QPlainTextEdit:
    area = QPlainTextEdit()
    area.setReadOnly(True)
    area.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    area.setPlaceholderText(placeholder)
    area.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
    return area


class StepDetailDialog(QDialog):
    """Everything recorded about one step; Previous/Next walk through `steps` (the run's steps, live)."""

    def __init__(self, run_dir: Path, step: StepRecord, parent: QWidget | None = None,
                 *, steps: list[StepRecord] | None = None, pricing: Callable[[], Pricing | None] = lambda: None):
        super().__init__(parent)
        self.pricing = pricing          # the shown run's pricing, asked when a step is shown
        self.setModal(False)
        self.run_dir = Path(run_dir)
        self.steps = steps if steps is not None else [step]
        self.step: StepRecord = step
        self._images_task: asyncio.Task | None = None
        fit_window(self, QSize(1180, 820))

        self.clean_view, self.annotated_view = ScreenshotView("Screen"), ScreenshotView("Numbered controls")
        images = QWidget()
        image_row = QHBoxLayout(images)
        image_row.setContentsMargins(0, 0, 0, 0)
        image_row.addWidget(self.clean_view)
        image_row.addWidget(self.annotated_view)

        self.facts = QFormLayout()
        self.facts.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.facts.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        self.facts.setVerticalSpacing(8)
        facts_widget = QWidget()
        facts_widget.setLayout(self.facts)
        facts_scroll = QScrollArea()
        facts_scroll.setWidgetResizable(True)
        facts_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        facts_scroll.setWidget(facts_widget)

        self.prompt_text = _text_area("No prompt was recorded for this step.")
        self.raw_reply = _text_area("No model reply was recorded for this step.")
        texts = QTabWidget()
        texts.addTab(self.prompt_text, "Prompt")
        texts.addTab(self.raw_reply, "Model reply")

        details = QSplitter(Qt.Orientation.Vertical)
        details.addWidget(facts_scroll)
        details.addWidget(texts)
        details.setSizes([470, 330])
        body = QSplitter(Qt.Orientation.Horizontal)
        body.addWidget(images)
        body.addWidget(details)
        body.setStretchFactor(0, 1)
        body.setStretchFactor(1, 1)
        body.setSizes([660, 520])

        self.previous_button = QPushButton(self.style().standardIcon(QStyle.StandardPixmap.SP_ArrowBack), "Previous")
        self.next_button = QPushButton(self.style().standardIcon(QStyle.StandardPixmap.SP_ArrowForward), "Next")
        self.previous_button.setShortcut("Alt+Left")
        self.next_button.setShortcut("Alt+Right")
        self.previous_button.clicked.connect(lambda: self._go(-1))
        self.next_button.clicked.connect(lambda: self._go(+1))
        self.position_label = QLabel()
        close_box = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close_box.rejected.connect(self.reject)
        navigation = QHBoxLayout()
        navigation.addWidget(self.previous_button)
        navigation.addWidget(self.next_button)
        navigation.addSpacing(12)
        navigation.addWidget(self.position_label)
        navigation.addStretch(1)
        navigation.addWidget(close_box)

        layout = QVBoxLayout(self)
        layout.addWidget(body, 1)
        layout.addLayout(navigation)
        self.show_step(step)

    def show_step(self, step: StepRecord) -> None:
        """Show another step of the same run; its screenshots load in a worker thread."""
        self.step = step
        self.setWindowTitle(f"Step {step.step} — Agent Desk")
        self._fill_facts(step)
        self.prompt_text.setPlainText(step.prompt_text)
        self.raw_reply.setPlainText(step.raw_reply)
        self.refresh_navigation()
        for view in (self.clean_view, self.annotated_view):
            view.show_message("Loading…")
        if self._images_task is not None:
            self._images_task.cancel()
        try:
            self._images_task = asyncio.get_running_loop().create_task(self._load_images(step))
        except RuntimeError:   # no event loop (a synchronous caller): leave the placeholders
            self._images_task = None

    def refresh_navigation(self) -> None:
        """Enable Previous/Next for the steps there are now (a live run keeps adding some)."""
        index = self._index()
        self.previous_button.setEnabled(index > 0)
        self.next_button.setEnabled(0 <= index < len(self.steps) - 1)
        self.position_label.setText(f"Step {index + 1} of {len(self.steps)}" if index >= 0 else "")

    def done(self, result: int) -> None:
        if self._images_task is not None:
            self._images_task.cancel()
        super().done(result)

    def _index(self) -> int:
        same = (i for i, step in enumerate(self.steps) if step is self.step)
        same_number = (i for i, step in enumerate(self.steps) if step.step == self.step.step)
        return next(same, next(same_number, -1))

    def _go(self, offset: int) -> None:
        index = self._index() + offset
        if 0 <= index < len(self.steps):
            self.show_step(self.steps[index])

    async def _load_images(self, step: StepRecord) -> None:
        for view, name in ((self.clean_view, step.screenshot), (self.annotated_view, step.annotated_screenshot)):
            image = await asyncio.to_thread(read_scaled_image, [step_file(self.run_dir, name)], DETAIL_IMAGE_SIZE)
            if not isValid(view):   # the dialog was deleted meanwhile
                return
            view.set_image(image)

    def _fill_facts(self, step: StepRecord) -> None:
        while self.facts.rowCount():
            self.facts.removeRow(0)
        heading = f"Step {step.step}"
        if step.foreground:
            heading += f"  ·  {step.foreground}" + (f" / {step.activity}" if step.activity else "")
        if step.controls_count:
            heading += f"  ·  {step.controls_count} controls"
        title = QLabel(heading)
        title.setWordWrap(True)          # a long activity name must not widen the facts past the window
        font = title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        title.setFont(font)
        self.facts.addRow(title)
        for label, text in thought_and_comment(step.thought, step.comment):      # a repeat is said once
            self._add_fact(label, text)
        executed = step_action_text(step)
        proposed = action_words(step.proposed_action)
        if proposed and proposed != action_words(step.action):
            self._add_fact("Proposed", proposed, mono=True)
            self._add_fact("Executed", executed, mono=True)
        else:
            self._add_fact("Action", executed, mono=True)
        for review in rejected_reviews(step):
            proposed = review.action_text or action_words(review.action)
            self._add_fact("Rejected", f"{proposed} — {review_words(review)}")
        chip, colour, note = decision_chip(step)
        if chip:
            chip_html = (f'<span style="background:{colour}; color:white">&nbsp;{html.escape(chip)}&nbsp;</span>'
                         + (f"&nbsp; {html.escape(note)}" if note else ""))
            self._add_fact("Decision", chip_html, rich=True)
        for question in questions_of(step):
            self._add_fact("Question", question_words(question))
        outcome, failed = result_text(step)
        if step.result is not None and step.result.success and step.result.message:
            outcome += f" — {step.result.message}"
        self._add_fact("Result", outcome, failed=failed)
        reflection = reflection_for(step, self.steps) or {}   # the check of this step's action (made at the next)
        if reflection.get("verdict"):
            verdict = str(reflection["verdict"])
            if isinstance(reflection.get("confidence"), (int, float)):
                verdict += f" ({reflection['confidence']:.0%} sure)"
            if reflection.get("reasoning"):
                verdict += f" — {reflection['reasoning']}"
            self._add_fact("Screen check", verdict)
        timings = step.timings_ms
        phases = [f"{PHASE_WORDS.get(name, name.replace('_', ' '))}: {format_ms(timings[name])}"
                  for name in PHASES if name in timings]
        others = [f"{name.replace('_', ' ')}: {format_ms(value)}" for name, value in timings.items()
                  if name not in PHASES]
        if step.waiting_seconds >= 0.05:                 # the person's time, apart from the phases
            phases.append(f"waiting for you: {format_ms(step.waiting_seconds * 1000)}")
        self._add_fact("Timings", "\n".join(phases) or "none recorded")
        if others:
            self._add_fact("Detailed timings", "\n".join(others))
        prompt, completion = token_counts(step)
        usage = f"{prompt:,} prompt + {completion:,} completion tokens · {cost_words(step.cost_usd, self.pricing())}"
        if step.model_attempts > 1:
            usage += f" · {step.model_attempts} model attempts"
        self._add_fact("Usage", usage if prompt or completion else "none recorded")
        if step.target is not None:
            self._add_fact("Target", target_words(step), mono=True)
        if step.error:
            self._add_fact("Errors", step.error, failed=True)

    def _add_fact(self, label: str, value: Any, *, rich: bool = False, mono: bool = False,
                  failed: bool = False) -> None:
        if value in (None, ""):
            return
        field = QLabel(str(value))
        field.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
        field.setWordWrap(True)
        field.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        if mono:
            field.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        if failed:
            field.setStyleSheet(f"color: {error_colour(self.palette()).name()}")
        title = QLabel(label)
        title.setStyleSheet("font-weight: 600")
        self.facts.addRow(title, field)

