"""Needs your OK (the CONFIRM state): the model's proposal, and the person's answer — approve, edit,
override, reject, stop."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QFormLayout,
    QFrame,
    QLabel,
    QLineEdit,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from app.core.agent.action_shorthand import SHORTHAND_HELP, ShorthandError, parse_shorthand
from app.core.agent.actions import ARGUMENT_MODELS, Action, ActionRejected, check_against_screen
from app.core.agent.run_words import thought_and_comment
from app.core.agent.supervisor import Proposal, ReviewAnswer
from app.core.perception.controls import Control
from app.gui.flow_layout import FlowLayout
from app.gui.theme import set_tone

PAGE_DECIDE, PAGE_EDIT, PAGE_OVERRIDE, PAGE_REJECT, PAGE_QUESTION = range(5)


def _wrapping_label(text: str = "", *, bold: bool = False) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if bold:
        font = label.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        label.setFont(font)
    return label


def _button(text: str, primary: bool = False) -> QPushButton:
    button = QPushButton(text)
    if primary:
        button.setProperty("primary", True)
    return button


class ApprovalPanel(QFrame):
    """Shown while the run waits for the person. Emits the answer; never blocks."""

    answered = Signal(object)            # ReviewAnswer
    question_answered = Signal(str)
    pick_requested = Signal(bool)        # True: let the person pick on the mirror; False: stop picking

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("approvalPanel")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.proposal: Proposal | None = None
        self.title = _wrapping_label(bold=True)
        self.warning = _wrapping_label()
        set_tone(self.warning, "error")     # the theme's red: it reads in the light and the dark look
        self.action_label = _wrapping_label(bold=True)
        self.thought = _wrapping_label()
        self.comment = _wrapping_label()
        self.pages = QStackedWidget()
        self.pages.addWidget(self._decide_page())
        self.pages.addWidget(self._edit_page())
        self.pages.addWidget(self._override_page())
        self.pages.addWidget(self._reject_page())
        self.pages.addWidget(self._question_page())
        layout = QVBoxLayout(self)
        for widget in (self.title, self.warning, self.action_label, self.thought, self.comment, self.pages):
            layout.addWidget(widget)
        layout.addStretch(1)
        # One Enter for the whole panel: it confirms whatever page is showing.
        self.approve_shortcut = QShortcut(QKeySequence(Qt.Key.Key_Return), self, self._enter)
        self.approve_shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.keypad_enter = QShortcut(QKeySequence(Qt.Key.Key_Enter), self, self._enter,
                                      context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.setFocusProxy(self.approve_button)     # the window focuses the panel when an action waits
        self.clear()

    # ------------------------------------------------------------------ pages

    def _decide_page(self) -> QWidget:
        page = QWidget()
        row = FlowLayout(page)          # wraps onto a second row in a narrow panel
        self.approve_button = _button("&Approve  ⏎", primary=True)
        self.approve_button.setToolTip("Run this action (Enter here, Ctrl+Enter anywhere in the window, or Alt+A)")
        self.approve_button.setAccessibleName("Approve")
        self.approve_button.clicked.connect(lambda: self._answer(ReviewAnswer.approve()))
        edit = _button("&Edit…")
        edit.setToolTip("Change the action's values before it runs (Alt+E; Esc goes back)")
        edit.clicked.connect(self._start_edit)
        override = _button("&Override…")
        override.setToolTip("Do something else instead: pick a control on the mirror or type an action "
                            "(Alt+O; Esc goes back)")
        override.clicked.connect(self._start_override)
        reject = _button("Re&ject…")
        reject.setToolTip("Say why, and the model proposes again (Alt+J, or Ctrl+Backspace anywhere in the "
                          "window; Esc goes back)")
        reject.clicked.connect(lambda: self._show(PAGE_REJECT, self.feedback))
        stop = _button("&Stop")
        stop.setToolTip("End the run here (Alt+S)")
        stop.clicked.connect(lambda: self._answer(ReviewAnswer.stop()))
        for button in (self.approve_button, edit, reject, override, stop):     # also the Tab order
            row.addWidget(button)
        for before, after in ((self.approve_button, edit), (edit, reject), (reject, override), (override, stop)):
            QWidget.setTabOrder(before, after)
        self.edit_button, self.override_button, self.reject_button, self.stop_button = edit, override, reject, stop
        return page

    def _edit_page(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        self.edit_form = QFormLayout()
        layout.addLayout(self.edit_form)
        self.edit_error = _wrapping_label()
        set_tone(self.edit_error, "error")     # the theme's red: it reads in the light and the dark look
        layout.addWidget(self.edit_error)
        layout.addLayout(self._ok_cancel("Run edited action", self._finish_edit))
        self.edit_fields: dict[str, QLineEdit] = {}
        return page

    def _override_page(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(_wrapping_label("Click a control on the mirror, or type an action:"))
        self.override_text = QLineEdit()
        self.override_text.setPlaceholderText("e.g. tap 540 1200, click 7, type 3 hello, key BACK")
        self.override_text.setToolTip(SHORTHAND_HELP)
        self.override_text.setAccessibleName("Your action instead")
        layout.addWidget(self.override_text)
        self.override_error = _wrapping_label()
        set_tone(self.override_error, "error")     # the theme's red: it reads in the light and the dark look
        layout.addWidget(self.override_error)
        layout.addLayout(self._ok_cancel("Run my action", self._finish_override))
        return page

    def _reject_page(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(_wrapping_label("Why? The model reads this and proposes again:"))
        self.feedback = QLineEdit()
        self.feedback.setPlaceholderText("e.g. Use the search box instead")
        self.feedback.setAccessibleName("Why you reject the action")
        self.feedback.setToolTip("The model reads this and proposes again. Enter sends it, Esc goes back.")
        layout.addWidget(self.feedback)
        layout.addLayout(self._ok_cancel("Reject and ask again", self._finish_reject))
        return page

    def _question_page(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        self.answer_text = QLineEdit()
        self.answer_text.setPlaceholderText("Your answer")
        self.answer_text.setAccessibleName("Your answer to the agent's question")
        layout.addWidget(self.answer_text)
        send = _button("Answer", primary=True)
        send.setToolTip("Send your answer (Enter or Ctrl+Enter)")
        send.clicked.connect(self._finish_question)
        layout.addWidget(send, alignment=Qt.AlignmentFlag.AlignRight)
        return page

    def _ok_cancel(self, ok_text: str, on_ok) -> FlowLayout:
        row = FlowLayout(align_right=True)
        cancel = _button("Back")
        cancel.setToolTip("Back to the proposal (Esc)")
        cancel.clicked.connect(self.back_to_proposal)
        ok = _button(ok_text, primary=True)
        ok.setToolTip(f"{ok_text} (Enter or Ctrl+Enter)")
        ok.clicked.connect(on_ok)
        row.addWidget(cancel)
        row.addWidget(ok)
        return row

    # ------------------------------------------------------------------ showing

    def clear(self) -> None:
        self.proposal = None
        self.title.setText("No action is waiting for you.")
        for label in (self.warning, self.action_label, self.thought, self.comment):
            label.clear()
            label.hide()
        self.pages.hide()
        self.pick_requested.emit(False)

    def show_proposal(self, proposal: Proposal) -> None:
        self.proposal = proposal
        self.title.setText(f"Needs your OK · Step {proposal.step}: {proposal.proposed_by} proposes")
        self.action_label.setText(proposal.action_text)
        self._set(self.warning, f"⚠ Why it asks: {proposal.sensitive_reason}" if proposal.sensitive_reason else "")
        said = dict(thought_and_comment(proposal.thought, proposal.comment))     # a repeat is said once
        self._set(self.thought, f"Thought: {said['Thought']}" if "Thought" in said else "")
        self._set(self.comment, f"Comment: {said['Comment']}" if "Comment" in said else "")
        self.action_label.show()
        self.pages.show()
        self._show(PAGE_DECIDE, self.approve_button)

    def show_question(self, question: str) -> None:
        self.title.setText("The agent asks you:")
        self._set(self.action_label, question)
        for label in (self.warning, self.thought, self.comment):
            label.hide()
        self.pages.show()
        self.answer_text.clear()
        self._show(PAGE_QUESTION, self.answer_text)

    @staticmethod
    def _set(label: QLabel, text: str) -> None:
        label.setText(text)
        label.setVisible(bool(text))

    def _show(self, page: int, focus: QWidget | None = None) -> None:
        self.pages.setCurrentIndex(page)
        self.pick_requested.emit(page == PAGE_OVERRIDE)
        if focus is not None:
            focus.setFocus()

    # ------------------------------------------------------------------ answers

    def back_to_proposal(self) -> bool:
        """Esc or Back on the edit, override or reject page: the proposal again, focus on the button that
        opened the page. False when there is nothing to go back from."""
        opener = {PAGE_EDIT: self.edit_button, PAGE_OVERRIDE: self.override_button,
                  PAGE_REJECT: self.reject_button}.get(self.pages.currentIndex())
        if self.proposal is None or opener is None or self.pages.isHidden():
            return False
        self._show(PAGE_DECIDE, opener)
        return True

    def keyPressEvent(self, event) -> None:
        if event.key() == Qt.Key.Key_Escape and self.back_to_proposal():
            return
        super().keyPressEvent(event)

    def _answer(self, answer: ReviewAnswer) -> None:
        if self.proposal is None:
            return
        self.clear()
        self.answered.emit(answer)

    def approve(self) -> None:
        self._answer(ReviewAnswer.approve())

    def confirm(self) -> None:
        """Enter (or the window's Ctrl+Enter): confirm whatever page is showing."""
        self._enter()

    def _enter(self) -> None:
        page = self.pages.currentIndex()
        if page == PAGE_QUESTION:
            self._finish_question()
        elif self.proposal is not None:
            {PAGE_DECIDE: self.approve, PAGE_EDIT: self._finish_edit, PAGE_OVERRIDE: self._finish_override,
             PAGE_REJECT: self._finish_reject}[page]()

    def _start_edit(self) -> None:
        if self.proposal is None:      # nothing proposed: nothing to edit
            return
        action = self.proposal.action
        while self.edit_form.rowCount():
            self.edit_form.removeRow(0)
        self.edit_fields = {}
        model = ARGUMENT_MODELS.get(action.function)
        for name in (model.model_fields if model else action.arguments):
            value = action.arguments.get(name, "")
            field = QLineEdit(value if isinstance(value, str) else json.dumps(value))
            self.edit_fields[name] = field
            self.edit_form.addRow(name.replace("_", " "), field)
        self.edit_error.clear()
        self._show(PAGE_EDIT, next(iter(self.edit_fields.values()), None))

    def edited_action(self) -> Action:
        """The proposal's action with the form's values (JSON values are decoded, text stays text)."""
        arguments = {}
        for name, field in self.edit_fields.items():
            text = field.text()
            if text == "":
                continue
            try:
                value = json.loads(text)
                arguments[name] = text if isinstance(value, (dict, list)) else value
            except ValueError:
                arguments[name] = text
        if "text" in self.edit_fields:
            arguments["text"] = self.edit_fields["text"].text()
        if self.proposal is None:
            raise ValueError("There is no proposed action to edit.")
        action = Action(function=self.proposal.action.function, arguments=arguments, status=self.proposal.action.status)
        _ = action.args   # validates the arguments
        return action

    def _finish_edit(self) -> None:
        try:
            action = self.edited_action()
        except ValueError as exc:
            self.edit_error.setText(str(exc).splitlines()[0])
            return
        problem = self._not_on_screen(action)
        if problem:
            self.edit_error.setText(problem)
            return
        self._answer(ReviewAnswer.edit(action))

    def _not_on_screen(self, action: Action) -> str:
        """Why the action cannot run on the proposal's screen (a control id it does not show, a point off
        it), in words for the person; "" when it can. Checked before it runs, where the person typed."""
        proposal = self.proposal
        if proposal is None:
            return ""
        try:
            size = proposal.screen_size if all(proposal.screen_size) else (1 << 20, 1 << 20)   # unknown: no limit
            check_against_screen(action, list(proposal.controls or []), size)
        except ActionRejected as exc:
            return f"This cannot run on the screen shown: {exc} Pick a control on the mirror to see its number."
        return ""

    def _start_override(self) -> None:
        self.override_text.clear()
        self.override_error.clear()
        self._show(PAGE_OVERRIDE, self.override_text)

    def _finish_override(self) -> None:
        try:
            action = parse_shorthand(self.override_text.text())
        except ShorthandError as exc:
            self.override_error.setText(str(exc))
            return
        problem = self._not_on_screen(action)
        if problem:
            self.override_error.setText(problem)
            return
        self._answer(ReviewAnswer.override(action))

    def override_with_control(self, control: Control) -> None:
        """The person picked a control on the mirror while overriding: tap it."""
        if self.proposal is not None and self.pages.currentIndex() == PAGE_OVERRIDE:
            action = Action(function="click_control",
                            arguments={"control_id": control.id, "control_name": control.name})
            self._answer(ReviewAnswer.override(action))

    def override_with_point(self, x: int, y: int) -> None:
        if self.proposal is not None and self.pages.currentIndex() == PAGE_OVERRIDE:
            self._answer(ReviewAnswer.override(Action(function="tap", arguments={"x": x, "y": y})))

    def _finish_reject(self) -> None:
        self._answer(ReviewAnswer.reject(self.feedback.text().strip()))
        self.feedback.clear()

    def _finish_question(self) -> None:
        text = self.answer_text.text().strip()
        if text:
            self.clear()
            self.question_answered.emit(text)
