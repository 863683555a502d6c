"""The timeline's columns in a narrow pane: the action keeps room to be read.

The decision column starts as wide as its chip plus the start of who decided. As the pane narrows,
what gives way, in order, until the action has ACTION_ROOM: the note (it stays in the tooltip), Time
and Tokens (the run's totals show them), the chip's longer words (shortened with "…"), the thumbnail
(the step's detail shows the screens).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QTableView

from app.gui.runs.timeline_model import StepTableModel

ACTION_ROOM = 150          # px the action column keeps before other columns give way
COMPACT_CHIP_WORD = "auto-approved"     # the narrow chip shows words up to this one's width in full

TIME, TOKENS = StepTableModel.COLUMNS.index("Time"), StepTableModel.COLUMNS.index("Tokens")
STEP = StepTableModel.COLUMNS.index("#")


class ColumnFitter(QObject):
    def __init__(self, view: QTableView, chip_width: int, note_width: int):
        super().__init__(view)
        self.view, self.chip_width, self.note_width = view, chip_width, note_width
        self.thumbnail_width = view.horizontalHeader().sectionSize(StepTableModel.THUMBNAIL)
        self.compact_chip_width = min(chip_width, view.fontMetrics().horizontalAdvance(COMPACT_CHIP_WORD) + 32)
        view.viewport().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.fit(self.view.viewport().width())
        return False

    def fit(self, width: int) -> None:
        header = self.view.horizontalHeader()
        numbers = sum(max(header.sectionSizeHint(column), self.view.sizeHintForColumn(column))
                      for column in (TIME, TOKENS))
        fixed = header.sectionSize(STEP) + header.sectionSize(StepTableModel.RESULT)
        stages = [  # (thumbnail, decision, numbers shown), from the widest look to the narrowest
            (self.thumbnail_width, self.chip_width + self.note_width, True),
            (self.thumbnail_width, self.chip_width, True),
            (self.thumbnail_width, self.chip_width, False),
            (self.thumbnail_width, self.compact_chip_width, False),
            (0, self.compact_chip_width, False),
        ]
        for thumbnail, decision, with_numbers in stages:
            if width - fixed - thumbnail - decision - (numbers if with_numbers else 0) >= ACTION_ROOM:
                break
        header.setSectionHidden(StepTableModel.THUMBNAIL, thumbnail == 0)
        for column in (TIME, TOKENS):
            header.setSectionHidden(column, not with_numbers)
        header.resizeSection(StepTableModel.DECISION, decision)
        if thumbnail:
            header.resizeSection(StepTableModel.THUMBNAIL, thumbnail)
