"""One step of a run in full: both screenshots, the model's reasoning, the decision, the outcome,
the timings and the raw prompt and reply. Also the words, chips and images the run views share."""

from __future__ import annotations

import asyncio
import html
from pathlib import Path
from typing import Any, Sequence

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontDatabase, QImage, QImageReader, QPainter, QPalette
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QFormLayout, QHBoxLayout, QLabel, QPlainTextEdit,
                               QPushButton, QScrollArea, QSizePolicy, QSplitter, QStyle, QStyledItemDelegate,
                               QStyleOptionViewItem, QTabWidget, QVBoxLayout, QWidget)
from shiboken6 import isValid

from app.core.agent.pipeline import ProcessingPhase
from app.core.agent.trajectory import step_file
from app.core.agent.report import action_words

PHASES = tuple(phase.value for phase in ProcessingPhase)
CHIP_COLOUR_ROLE = Qt.ItemDataRole.UserRole + 10   # QColor of the chip a ChipDelegate paints
CHIP_NOTE_ROLE = Qt.ItemDataRole.UserRole + 11     # plain text drawn after the chip
DECISION_CHIPS = {  # decision kind → (chip text, colour)
    "approve": ("approved", "#1a7f37"), "edit": ("edited", "#0969da"), "override": ("overridden", "#8250df"),
    "reject": ("rejected", "#bc4c00"), "stop": ("stopped", "#6e7781"), "auto": ("auto", "#1b7c83"),
}
STATUS_COLOURS = {  # run status → chip colour
    "success": "#1a7f37", "failed": "#cf222e", "timeout": "#bc4c00", "stopped": "#6e7781",
    "unfinished": "#8250df", "unreadable": "#6e7781",
}
NEUTRAL_CHIP = "#6e7781"
DETAIL_IMAGE_SIZE = QSize(900, 1800)   # screenshots are decoded to at most this size for the dialog


# ---------------------------------------------------------------- a step in words


def step_action_text(step: dict[str, Any]) -> str:
    """The executed action in words, as the agent described it."""
    return step.get("action_text") or action_words(step.get("action")) or "no action"


def decision_chip(step: dict[str, Any]) -> tuple[str, str, str]:
    """(chip text, chip colour, note) for the step's decision; the note holds feedback or an answer."""
    decision = step.get("decision")
    if not isinstance(decision, dict) or not decision.get("kind"):
        return "", NEUTRAL_CHIP, ""
    text, colour = DECISION_CHIPS.get(decision["kind"], (str(decision["kind"]), NEUTRAL_CHIP))
    notes = []
    if decision.get("by") == "auto" and decision["kind"] != "auto":
        notes.append("by the auto policy")
    if decision.get("feedback"):
        notes.append(f"“{decision['feedback']}”")
    if decision.get("answer"):
        notes.append(f"answer: {decision['answer']}")
    return text, colour, " · ".join(notes)


def result_text(step: dict[str, Any]) -> tuple[str, bool]:
    """The outcome in words ("ok", "failed: …", "not executed"), and whether it failed."""
    result = step.get("result")
    if not isinstance(result, dict):
        text, failed = ("error: " + step["error"], True) if step.get("error") else ("not executed", False)
    elif result.get("success"):
        text, failed = "ok", False
    else:
        text, failed = f"failed: {result.get('message') or 'no reason given'}", True
    if step.get("screen_only"):
        text += " · screenshot only"
    return text, failed


def step_duration_ms(step: dict[str, Any]) -> float | None:
    """The sum of the step's phase timings (strategy timings inside them are not counted twice)."""
    timings = step.get("timings_ms")
    if not isinstance(timings, dict):
        return None
    values = [value for name, value in timings.items() if name in PHASES and isinstance(value, (int, float))]
    return sum(values) if values else None


def format_ms(ms: float | None) -> str:
    if ms is None:
        return "–"
    return f"{ms:,.0f} ms" if ms < 1000 else f"{ms / 1000:,.1f} s"


def token_counts(step: dict[str, Any]) -> tuple[int, int]:
    """(prompt, completion) tokens of the step."""
    tokens = step.get("tokens") if isinstance(step.get("tokens"), dict) else {}
    return int(tokens.get("prompt") or 0), int(tokens.get("completion") or 0)


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
        chip_width, chip_height = metrics.horizontalAdvance(text) + 16, metrics.height() + 4
        rect = option.rect.adjusted(6, 0, -6, 0)
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

    def __init__(self, run_dir: Path, step: dict[str, Any], parent: QWidget | None = None,
                 *, steps: list[dict[str, Any]] | None = None):
        super().__init__(parent)
        self.setModal(False)
        self.run_dir = Path(run_dir)
        self.steps = steps if steps is not None else [step]
        self.step: dict[str, Any] = step
        self._images_task: asyncio.Task | None = None
        self.resize(1180, 820)

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

    def show_step(self, step: dict[str, Any]) -> None:
        """Show another step of the same run; its screenshots load in a worker thread."""
        self.step = step
        self.setWindowTitle(f"Step {step.get('step', '?')} — Agent Desk")
        self._fill_facts(step)
        self.prompt_text.setPlainText(str(step.get("prompt_text") or ""))
        self.raw_reply.setPlainText(str(step.get("raw_reply") or ""))
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
        same_number = (i for i, step in enumerate(self.steps) if step.get("step") == self.step.get("step"))
        return next(same, next(same_number, -1))

    def _go(self, offset: int) -> None:
        index = self._index() + offset
        if 0 <= index < len(self.steps):
            self.show_step(self.steps[index])

    async def _load_images(self, step: dict[str, Any]) -> None:
        for view, key in ((self.clean_view, "screenshot"), (self.annotated_view, "annotated_screenshot")):
            image = await asyncio.to_thread(read_scaled_image, [step_file(self.run_dir, step.get(key))],
                                            DETAIL_IMAGE_SIZE)
            if not isValid(view):   # the dialog was deleted meanwhile
                return
            view.set_image(image)

    def _fill_facts(self, step: dict[str, Any]) -> None:
        while self.facts.rowCount():
            self.facts.removeRow(0)
        heading = f"Step {step.get('step', '?')}"
        if step.get("foreground"):
            heading += f"  ·  {step['foreground']}"
        if step.get("controls_count"):
            heading += f"  ·  {step['controls_count']} controls"
        title = QLabel(heading)
        font = title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        title.setFont(font)
        self.facts.addRow(title)
        self._add_fact("Thought", step.get("thought"))
        self._add_fact("Comment", step.get("comment"))
        executed = step_action_text(step)
        proposed = action_words(step.get("proposed_action"))
        if proposed and proposed != action_words(step.get("action")):
            self._add_fact("Proposed", proposed, mono=True)
            self._add_fact("Executed", executed, mono=True)
        else:
            self._add_fact("Action", executed, mono=True)
        chip, colour, note = decision_chip(step)
        if chip:
            chip_html = (f'<span style="background:{colour}; color:white">&nbsp;{html.escape(chip)}&nbsp;</span>'
                         + (f"&nbsp; {html.escape(note)}" if note else ""))
            self._add_fact("Decision", chip_html, rich=True)
        outcome, failed = result_text(step)
        result = step.get("result") if isinstance(step.get("result"), dict) else {}
        if result.get("success") and result.get("message"):
            outcome += f" — {result['message']}"
        self._add_fact("Result", outcome, failed=failed)
        reflection = step.get("reflection") if isinstance(step.get("reflection"), dict) else {}
        if reflection.get("verdict"):
            verdict = str(reflection["verdict"])
            if isinstance(reflection.get("confidence"), (int, float)):
                verdict += f" ({reflection['confidence']:.0%} sure)"
            if reflection.get("reasoning"):
                verdict += f" — {reflection['reasoning']}"
            self._add_fact("Screen check", verdict)
        timings = step.get("timings_ms") if isinstance(step.get("timings_ms"), dict) else {}
        phases = [f"{name.replace('_', ' ')}: {format_ms(timings[name])}" for name in PHASES if name in timings]
        others = [f"{name.replace('_', ' ')}: {format_ms(value)}" for name, value in timings.items()
                  if name not in PHASES and isinstance(value, (int, float))]
        self._add_fact("Timings", "\n".join(phases) or "none recorded")
        if others:
            self._add_fact("Strategies", "\n".join(others))
        prompt, completion = token_counts(step)
        usage = f"{prompt:,} prompt + {completion:,} completion tokens · ${float(step.get('cost_usd') or 0):.4f}"
        if (step.get("model_attempts") or 0) > 1:
            usage += f" · {step['model_attempts']} model attempts"
        self._add_fact("Usage", usage if prompt or completion else "none recorded")
        if step.get("error"):
            self._add_fact("Errors", step["error"], failed=True)

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
