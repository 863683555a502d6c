"""The approval flow without a mouse: every answer by keys alone, Tab through the buttons in order,
Escape back to the proposal, and each button's key written in its tooltip. Only key presses here."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from app.core.agent.actions import Action
from app.core.agent.supervisor import ReviewAnswer
from app.gui.runs.approval_panel import PAGE_DECIDE, PAGE_EDIT, PAGE_OVERRIDE, PAGE_REJECT, ApprovalPanel
from tests.gui.conftest import shown_window
from tests.gui.test_approval_and_controller import proposal
from tests.support.waiting import until

CTRL, ALT, SHIFT = (Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.AltModifier,
                    Qt.KeyboardModifier.ShiftModifier)


@pytest.fixture
def panel(qtbot):
    """The panel showing a proposal (a tap on control 4), focused as the window focuses it."""
    widget = ApprovalPanel()
    qtbot.addWidget(widget)
    answers: list[ReviewAnswer] = []
    widget.answered.connect(answers.append)
    with qtbot.waitActive(widget):
        widget.show()
    widget.show_proposal(proposal(Action(function="click_control", arguments={"control_id": 4})))
    widget.setFocus()
    return widget, answers


def press(qtbot, key: Qt.Key, modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
    """A key press where the keyboard focus is, as a person's typing goes."""
    qtbot.keyClick(QApplication.focusWidget(), key, modifier)


def press_alt(qtbot, letter: Qt.Key, done) -> None:
    """Alt+letter, a button's mnemonic: Qt shows the button pressed for a moment, then clicks it."""
    press(qtbot, letter, ALT)
    qtbot.waitUntil(done, timeout=2000)


def type_text(qtbot, text: str) -> None:
    qtbot.keyClicks(QApplication.focusWidget(), text)


def test_enter_approves_where_the_window_puts_the_focus(panel, qtbot):
    widget, answers = panel
    assert QApplication.focusWidget() is widget.approve_button
    press(qtbot, Qt.Key.Key_Return)
    assert [a.kind for a in answers] == ["approve"]
    widget.show_proposal(proposal(Action(function="click_control", arguments={"control_id": 4}), step=2))
    press(qtbot, Qt.Key.Key_Enter, Qt.KeyboardModifier.KeypadModifier)       # the keypad's Enter too
    assert [a.kind for a in answers] == ["approve", "approve"]


def test_tab_goes_approve_edit_reject_override_stop_and_back(panel, qtbot):
    widget, _answers = panel
    order = [widget.approve_button, widget.edit_button, widget.reject_button, widget.override_button,
             widget.stop_button]
    seen = [QApplication.focusWidget()]
    for _ in order[1:]:
        press(qtbot, Qt.Key.Key_Tab)
        seen.append(QApplication.focusWidget())
    assert seen == order
    for expected in reversed(order[:-1]):
        press(qtbot, Qt.Key.Key_Backtab, SHIFT)
        assert QApplication.focusWidget() is expected


def test_every_button_has_a_key_and_its_tooltip_says_which(panel):
    widget, _answers = panel
    keys = {}
    for button in (widget.approve_button, widget.edit_button, widget.reject_button, widget.override_button,
                   widget.stop_button):
        mnemonic = re.search(r"&(\w)", button.text())
        assert mnemonic, f"{button.text()!r} has no Alt+letter"
        keys[button] = mnemonic.group(1).upper()
        assert f"Alt+{keys[button]}" in button.toolTip(), button.toolTip()
    assert len(set(keys.values())) == len(keys), "two buttons share a letter"
    assert "Enter" in widget.approve_button.toolTip() and "Ctrl+Backspace" in widget.reject_button.toolTip()


@pytest.mark.parametrize("letter, kind", [(Qt.Key.Key_A, "approve"), (Qt.Key.Key_S, "stop")])
def test_alt_letters_answer_at_once(panel, qtbot, letter, kind):
    widget, answers = panel
    press_alt(qtbot, letter, lambda: bool(answers))
    assert [a.kind for a in answers] == [kind]


def test_reject_by_keys_puts_the_focus_in_the_feedback_and_enter_sends_it(panel, qtbot):
    widget, answers = panel
    press_alt(qtbot, Qt.Key.Key_J, lambda: widget.pages.currentIndex() == PAGE_REJECT)
    assert QApplication.focusWidget() is widget.feedback
    type_text(qtbot, "Use the search box")
    press(qtbot, Qt.Key.Key_Return)
    assert [(a.kind, a.feedback) for a in answers] == [("reject", "Use the search box")]


def test_escape_goes_back_to_the_proposal_from_every_page(panel, qtbot):
    widget, answers = panel
    for letter, page, opener in ((Qt.Key.Key_J, PAGE_REJECT, widget.reject_button),
                                 (Qt.Key.Key_E, PAGE_EDIT, widget.edit_button),
                                 (Qt.Key.Key_O, PAGE_OVERRIDE, widget.override_button)):
        press_alt(qtbot, letter, lambda page=page: widget.pages.currentIndex() == page)
        type_text(qtbot, "9")
        press(qtbot, Qt.Key.Key_Escape)
        assert widget.pages.currentIndex() == PAGE_DECIDE, f"Esc left page {page} showing"
        assert QApplication.focusWidget() is opener, "the focus goes back to the button that opened the page"
    assert answers == []
    press(qtbot, Qt.Key.Key_Escape)          # on the proposal itself Escape answers nothing
    assert answers == [] and widget.pages.currentIndex() == PAGE_DECIDE


def test_edit_by_keys(panel, qtbot):
    widget, answers = panel
    press_alt(qtbot, Qt.Key.Key_E, lambda: widget.pages.currentIndex() == PAGE_EDIT)
    field = widget.edit_fields["control_id"]
    assert QApplication.focusWidget() is field and field.text() == "4"
    assert field.accessibleName() or widget.edit_form.labelForField(field).buddy() is field
    press(qtbot, Qt.Key.Key_A, CTRL)
    type_text(qtbot, "3")
    press(qtbot, Qt.Key.Key_Return)
    assert [(a.kind, a.action.arguments["control_id"]) for a in answers] == [("edit", 3)]


def test_override_by_keys(panel, qtbot):
    widget, answers = panel
    press_alt(qtbot, Qt.Key.Key_O, lambda: widget.pages.currentIndex() == PAGE_OVERRIDE)
    assert QApplication.focusWidget() is widget.override_text
    type_text(qtbot, "tap 540 1200")
    press(qtbot, Qt.Key.Key_Return)
    assert [(a.kind, a.action.arguments) for a in answers] == [("override", {"x": 540, "y": 1200})]


def test_the_agents_question_is_answered_by_keys(panel, qtbot):
    widget, _answers = panel
    replies: list[str] = []
    widget.question_answered.connect(replies.append)
    widget.show_question("Which account?")
    assert QApplication.focusWidget() is widget.answer_text
    type_text(qtbot, "The work one")
    press(qtbot, Qt.Key.Key_Return)
    assert replies == ["The work one"]


@pytest.mark.asyncio
async def test_in_the_window_ctrl_backspace_rejects_and_ctrl_enter_sends_or_approves(qapp, private_home, qtbot):
    async with shown_window() as window:
        window.activateWindow()
        await until(lambda: QApplication.activeWindow() is window)
        answers: list[ReviewAnswer] = []
        window.approval.answered.connect(answers.append)
        window._review(proposal(Action(function="click_control", arguments={"control_id": 4})))
        assert QApplication.focusWidget() is window.approval.approve_button
        press(qtbot, Qt.Key.Key_Backspace, CTRL)
        assert QApplication.focusWidget() is window.approval.feedback
        type_text(qtbot, "Not that one")
        press(qtbot, Qt.Key.Key_Return, CTRL)
        assert [(a.kind, a.feedback) for a in answers] == [("reject", "Not that one")]

        window._review(proposal(Action(function="click_control", arguments={"control_id": 4}), step=2))
        window.request.request.setFocus()            # the focus elsewhere in the window: Ctrl+Enter still approves
        press(qtbot, Qt.Key.Key_Return, CTRL)
        assert [a.kind for a in answers] == ["reject", "approve"]

        window._review(proposal(Action(function="click_control", arguments={"control_id": 4}), step=3))
        press(qtbot, Qt.Key.Key_O, ALT)
        await until(lambda: window.approval.pages.currentIndex() == PAGE_OVERRIDE)
        assert window.mirror.interaction_mode == "pick" and QApplication.focusWidget() is window.approval.override_text
        press(qtbot, Qt.Key.Key_Escape)              # the mirror's own Escape (it stops picking) goes back too
        assert window.approval.pages.currentIndex() == PAGE_DECIDE and window.mirror.interaction_mode != "pick"
        assert QApplication.focusWidget() is window.approval.override_button
        assert len(answers) == 2
