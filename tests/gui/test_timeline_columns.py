"""The timeline in a narrow pane: the action column keeps room to be read; the decision shrinks to its chip,
then Time and Tokens step aside; in a wide pane every column shows in full."""

from __future__ import annotations

from app.gui.runs.timeline import TimelinePanel
from app.gui.runs.timeline_columns import ACTION_ROOM
from app.gui.runs.timeline_model import StepTableModel

ACTION = StepTableModel.COLUMNS.index("Action")
TIME, TOKENS = StepTableModel.COLUMNS.index("Time"), StepTableModel.COLUMNS.index("Tokens")


def widths_at(panel: TimelinePanel, qtbot, width: int) -> dict[str, int]:
    panel.resize(width, 400)
    qtbot.waitUntil(lambda: panel.view.viewport().width() <= width, timeout=2000)
    qtbot.wait(20)
    header = panel.view.horizontalHeader()
    return {name: (0 if header.isSectionHidden(column) else header.sectionSize(column))
            for column, name in enumerate(StepTableModel.COLUMNS)}


def test_the_action_keeps_room_as_the_pane_narrows(qtbot):
    panel = TimelinePanel()
    qtbot.addWidget(panel)
    panel.show()
    fitter = panel.column_fitter
    wide = widths_at(panel, qtbot, 1000)
    assert wide["Decision"] == fitter.chip_width + fitter.note_width
    assert wide["Time"] > 0 and wide["Tokens"] > 0 and wide["Action"] >= ACTION_ROOM

    middle = widths_at(panel, qtbot, 560)
    assert middle["Decision"] == fitter.chip_width          # the note goes to the tooltip first
    assert middle["Action"] >= ACTION_ROOM - 10, (middle, panel.view.viewport().width())

    narrow = widths_at(panel, qtbot, 500)
    assert narrow["Time"] == 0 and narrow["Tokens"] == 0    # the run's totals show them
    assert narrow["Decision"] == fitter.compact_chip_width and narrow[""] > 0
    assert narrow["Action"] >= ACTION_ROOM - 10, narrow

    fitter.fit(300)                                         # the right pane's narrowest: no thumbnails
    assert panel.view.horizontalHeader().isSectionHidden(StepTableModel.THUMBNAIL)   # (the step's detail shows them)

    again = widths_at(panel, qtbot, 1000)                   # wide again: everything back
    assert again["Time"] > 0 and again[""] > 0 and again["Decision"] == fitter.chip_width + fitter.note_width
