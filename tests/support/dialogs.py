"""Answering the app's small questions (QInputDialog) in GUI tests, as a person would."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QInputDialog

from tests.support.waiting import until


async def answer_input_dialog(text: str | None) -> tuple[str, list[str]]:
    """Wait for the shown question, type `text` and press OK (None: Cancel); returns what it offered:
    its prefilled text and its choices (empty unless it is a choice)."""
    found: list[QInputDialog] = []
    await until(lambda: found.extend(w for w in QApplication.topLevelWidgets()
                                     if isinstance(w, QInputDialog) and w.isVisible()) or found)
    ask = found[0]
    offered = ask.textValue(), list(ask.comboBoxItems())
    if text is None:
        ask.reject()
    else:
        ask.setTextValue(text)
        ask.accept()
    return offered
