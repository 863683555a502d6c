"""The side pane of the Map window: the selected screen's name, where it is, how often it was seen, what is
on it (its controls) and the actions known to leave it, with buttons to rename, merge and split it."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.learning.screen_graph import ScreenGraph
from app.gui.theme import current_colors, set_tone

from .map_data import reliability_words, seen_words, time_words, way_words

NOTHING_SELECTED = "Click a screen on the map to see what is on it and where its actions lead."


def control_words(control) -> tuple[str, str]:
    """A control as the list shows it: its name (else its text, description or id) and its kind."""
    name = control.name or control.text or control.content_desc or control.resource_id.rsplit("/", 1)[-1]
    kind = control.type or "?"
    flags = control.flags if isinstance(control.flags, list) else []
    if "checkable" in flags:
        kind += " (on/off)"
    elif "clickable" in flags:
        kind += " (tappable)"
    return name or "(no name)", kind


class ScreenPane(QWidget):
    """What the map knows of one screen."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.screen_id: str | None = None
        self.title = QLabel(NOTHING_SELECTED)
        self.title.setWordWrap(True)
        self.title.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setBold(True)
        self.title_font = font
        self.place = QLabel()
        self.place.setWordWrap(True)
        self.place.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        set_tone(self.place, "muted")
        self.seen = QLabel()
        self.seen.setWordWrap(True)
        self.controls = QTreeWidget()
        self.controls.setHeaderLabels(["Control", "Kind"])
        self.controls.setRootIsDecorated(False)
        self.controls.setUniformRowHeights(True)
        self.controls.header().setStretchLastSection(False)
        self.controls.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.controls.header().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.ways_on = QTreeWidget()
        self.ways_on.setHeaderLabels(["Action → where it leads", "How well", "Takes"])
        self.ways_on.setRootIsDecorated(False)
        self.ways_on.setWordWrap(True)
        header = self.ways_on.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.rename_button = QPushButton("Rename…")
        self.rename_button.setToolTip("Give this screen a name of your own; it is kept for later runs.")
        self.merge_button = QPushButton("Merge with…")
        self.merge_button.setToolTip("Treat another screen of this app as the same screen as this one.")
        self.split_button = QPushButton("Split apart")
        self.split_button.setToolTip("Undo a merge: each screen that was merged into this one stands alone again.")
        buttons = QHBoxLayout()
        for button in (self.rename_button, self.merge_button, self.split_button):
            button.setAutoDefault(False)
            buttons.addWidget(button)
        buttons.addStretch(1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.place)
        layout.addWidget(self.seen)
        layout.addLayout(buttons)
        self.controls_heading = QLabel("<b>What is on it</b>")
        layout.addWidget(self.controls_heading)
        layout.addWidget(self.controls, 2)
        self.actions_heading = QLabel("<b>Known ways on from here</b>")
        layout.addWidget(self.actions_heading)
        layout.addWidget(self.ways_on, 3)
        layout.addStretch(0)             # with nothing selected, the hint stays at the top
        self.show_screen(None, None)

    def show_screen(self, graph: ScreenGraph | None, screen_id: str | None) -> None:
        node = graph.nodes.get(screen_id) if graph is not None and screen_id is not None else None
        self.screen_id = node.id if node is not None else None
        self.controls.clear()
        self.ways_on.clear()
        for widget in (self.place, self.seen, self.controls, self.ways_on, self.controls_heading,
                       self.actions_heading, self.rename_button, self.merge_button, self.split_button):
            widget.setVisible(node is not None)
        if graph is None or node is None:
            self.title.setFont(self.font())
            self.title.setText(NOTHING_SELECTED)
            return
        self.title.setFont(self.title_font)
        self.title.setText(node.name)
        self.title.setToolTip(f"Automatic name: {node.auto_name}" if node.person_name else "")
        self.place.setText(graph.place(node.id))
        notes = [seen_words(node)]
        if node.entry:
            notes.append("Opening the app leads here.")
        if len(node.members) > 1:
            notes.append(f"{len(node.members)} recorded screens are drawn as this one (merged).")
        if node.stale:
            notes.append("Seen only on another version of the app.")
        self.seen.setText(" ".join(notes))
        self.split_button.setEnabled(len(node.members) > 1 or any(
            graph.edits.representative(member) == node.id for member in graph.edits.merged))
        self.merge_button.setEnabled(len(graph.app_nodes(node.app)) > 1)
        controls = node.card.controls if node.card is not None else []
        for control in controls:
            QTreeWidgetItem(self.controls, list(control_words(control)))
        self.controls_heading.setText(f"<b>What is on it</b> ({len(controls)} controls)" if controls else
                                      "<b>What is on it</b> (no controls recorded)")
        muted = QColor(current_colors().placeholder)
        leaving = graph.outgoing(node.id)
        for edge in leaving:
            target = graph.nodes.get(edge.to_id)
            row = QTreeWidgetItem(self.ways_on, [f"{way_words(edge)} → {target.name if target else '?'}",
                                                 reliability_words(edge), time_words(edge.median_ms)])
            row.setToolTip(0, row.text(0))
            if edge.faded or edge.stale:
                for column in range(3):
                    row.setForeground(column, muted)
                row.setToolTip(0, "Keeps failing lately: routes do not use it." if edge.faded else
                               "Seen only on another version of the app.")
        self.actions_heading.setText("<b>Known ways on from here</b>" if leaving else
                                     "<b>Known ways on from here</b> (none recorded yet)")

    def control_names(self) -> list[str]:
        items = (self.controls.topLevelItem(i) for i in range(self.controls.topLevelItemCount()))
        return [item.text(0) for item in items if item is not None]

    def action_rows(self) -> list[list[str]]:
        items = (self.ways_on.topLevelItem(i) for i in range(self.ways_on.topLevelItemCount()))
        return [[item.text(c) for c in range(3)] for item in items if item is not None]
