"""Every control of the main window has a name a screen reader can say, in each state the window
shows (a proposal waiting, an edit open, each inspector tab); and the safety net that names what the
widget files left unnamed only ever has to name the few things it is meant for."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QComboBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.agent.actions import Action
from app.gui.accessibility import accessible_name, name_unnamed_widgets, unnamed_controls
from tests.gui.conftest import shown_window
from tests.gui.test_approval_and_controller import proposal


def owned_part(widget: QWidget) -> bool:
    """A spin box's editor or a combo box's list: it says its owner's name."""
    parent, grandparent = widget.parentWidget(), widget.parentWidget().parentWidget()
    return isinstance(parent, (QAbstractSpinBox, QComboBox)) or isinstance(grandparent, QComboBox)


def test_the_safety_net_names_from_label_tooltip_placeholder_and_object_name(qtbot):
    root = QWidget()
    qtbot.addWidget(root)
    layout = QVBoxLayout(root)
    host, host_label = QLineEdit(), QLabel("&Host:")
    host_label.setBuddy(host)
    icon_only = QToolButton()
    icon_only.setToolTip("Refresh the list (F5)\nAsks every ADB server again")
    search = QLineEdit(placeholderText="Search text, id…")
    notes_caption, notes = QLabel("<b>Notes</b>"), QPlainTextEdit()
    steps = QSpinBox(prefix="max ", suffix=" steps")
    table = QTableView(objectName="runSteps")
    nameless = QTableView()
    form = QFormLayout()
    port = QLineEdit()
    form.addRow("Port", port)
    explicit = QLineEdit()
    explicit.setAccessibleName("Already named")
    for widget in (host_label, host, icon_only, search, notes_caption, notes, steps, table, nameless, explicit):
        layout.addWidget(widget)
    layout.addLayout(form)

    named = dict((id(widget), name) for widget, name in name_unnamed_widgets(root))

    assert accessible_name(host).startswith("Host") and id(host) not in named    # Qt's own rule for buddies
    assert named[id(icon_only)] == "Refresh the list (F5)"
    assert named[id(search)] == "Search text, id…"
    assert named[id(notes)] == "Notes"
    assert named[id(steps)] == "Max steps"
    assert named[id(table)] == "Run steps"
    assert accessible_name(port) == "Port"
    assert id(explicit) not in named and explicit.accessibleName() == "Already named"
    assert unnamed_controls(root) == [nameless], "a control nothing can name is reported, not invented"


def window_states(window):
    """Show the window's states one after the other, yielding a word for each."""
    yield "idle"
    window._review(proposal(Action(function="type_text", arguments={"text": "hi", "control_id": 4})))
    yield "a proposal waiting"
    window.approval.edit_button.click()
    yield "editing the proposal"
    window.approval.back_to_proposal()
    window.approval.reject_button.click()
    yield "rejecting"
    window.approval.show_question("Which account?")
    yield "a question"
    for index in range(window.inspector.tabs.count()):
        window.inspector.tabs.setCurrentIndex(index)
        yield f"inspector tab {window.inspector.tabs.tabText(index)}"


@pytest.mark.asyncio
async def test_every_control_of_the_window_has_a_name(qapp, private_home):
    async with shown_window() as window:
        for state in window_states(window):
            unnamed = [f"{type(widget).__name__} in {type(widget.parentWidget()).__name__}"
                       for widget in unnamed_controls(window, visible_only=True)]
            assert not unnamed, f"{state}: {unnamed}"
        assert not unnamed_controls(window), "hidden controls have their names too, for when they show"


@pytest.mark.asyncio
async def test_names_come_from_the_widgets_own_files_not_the_safety_net(qapp, private_home):
    """The net names only the request box and the step limit (their file is another's) and the inner parts
    of spin and combo boxes. A name removed from a widget's file shows up here (or as a control without a
    name above)."""
    async with shown_window() as window:
        derived = {id(widget): name for widget, name in window.derived_accessible_names}
        expected = {id(window.request.request): "Request", id(window.request.max_steps): "Max steps"}
        assert {key: derived[key] for key in expected if key in derived} == {
            key: name for key, name in expected.items()}
        surprises = [f"{type(widget).__name__} named {name!r}" for widget, name in window.derived_accessible_names
                     if id(widget) not in expected and not owned_part(widget)]
        assert not surprises, "name these where they are made: " + "; ".join(surprises)
        for widget, name in ((window.mirror, "Phone screen"), (window.left_pane, "Phones, request and approval"),
                             (window.approval.approve_button, "Approve"), (window.timeline.view, "Steps of the run"),
                             (window.inspector.table, "Controls on the screen")):
            assert accessible_name(widget) == name
