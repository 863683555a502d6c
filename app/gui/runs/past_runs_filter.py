"""Finding a past run: a search box (words of the request, in any order and case) and a status choice
above the list, and the small dialog that asks how to run a past request again."""

from __future__ import annotations

import unicodedata
from typing import Any

from PySide6.QtCore import QSize, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from app.core.agent.run_words import RUN_STATUSES, run_status_word
from app.gui.window_fit import fit_window

ALL_STATUSES = ""


def folded(text: str) -> str:
    """Text for matching: case, accents and repeated spaces do not matter ("Café" finds "cafe")."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return " ".join("".join(c for c in decomposed if not unicodedata.combining(c)).split())


def phone_words(phone: dict[str, Any], with_server: bool = False) -> str:
    """The phone a run was on (run.json's "device"), named as the phones list names it: "Pixel 8 · 3A2B",
    with "@ host:port" (its ADB server) when `with_server`; "–" when the run did not record one."""
    serial, server = str(phone.get("serial") or ""), str(phone.get("server") or "")
    if not serial:
        return str(phone.get("id") or "–")
    name = "Virtual phone" if phone.get("virtual") else str(phone.get("model") or "Phone")
    return f"{name} · {serial}" + (f" @ {server}" if with_server and server else "")


def serials_of_several_phones(phones: list[dict[str, Any]]) -> set[str]:
    """The serials that name more than one phone among `phones` (the same serial on other ADB servers)."""
    ids: dict[str, set[str]] = {}
    for phone in phones:
        serial = str(phone.get("serial") or "")
        ids.setdefault(serial, set()).add(str(phone.get("id") or f"{serial}@{phone.get('server') or ''}"))
    return {serial for serial, named in ids.items() if serial and len(named) > 1}


def run_matches(request: str, status: str, search: str, wanted_status: str = ALL_STATUSES) -> bool:
    """Whether a run belongs in the list: every word of `search` is in its request, and its status is the
    wanted one (any, when none is chosen)."""
    if wanted_status and status != wanted_status:
        return False
    haystack = folded(request)
    return all(word in haystack for word in folded(search).split())


class RunFilterBar(QWidget):
    """The search box and the status choice; `changed` when either changes."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search the requests…")
        self.search.setClearButtonEnabled(True)
        self.search.setAccessibleName("Search past runs by their request")
        self.status = QComboBox()
        self.status.setAccessibleName("Show runs with this result")
        self.status.addItem("Any result", ALL_STATUSES)
        for key in RUN_STATUSES:
            self.status.addItem(run_status_word(key).text.capitalize(), key)
        self.search.textChanged.connect(self.changed)
        self.status.currentIndexChanged.connect(self.changed)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.search, 1)
        layout.addWidget(self.status)

    def text(self) -> str:
        return self.search.text()

    def wanted_status(self) -> str:
        return self.status.currentData() or ALL_STATUSES

    def set_status(self, status: str) -> None:
        index = self.status.findData(status)
        self.status.setCurrentIndex(max(index, 0))

    def active(self) -> bool:
        return bool(self.text().strip() or self.wanted_status())


class RerunDialog(QDialog):
    """"Run this request again": a new model run of a past run's request, with or without stored skills."""

    def __init__(self, request: str, use_skills: bool, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Run again — Agent Desk")
        shown = " ".join(request.split()) or "(no request recorded)"
        what = QLabel(f"Start a new run of “{shown}” on the current phone. The model decides each step afresh; "
                      "the mode and the step limit are the request panel's.")
        what.setWordWrap(True)
        self.use_skills = QCheckBox("Use a saved skill when one fits the request")
        self.use_skills.setToolTip("On: a saved skill that fits is replayed before the model is asked. "
                                   "Off: the model does every step (to see how it does now).")
        self.use_skills.setChecked(use_skills)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.run_button = buttons.addButton("Run again", QDialogButtonBox.ButtonRole.AcceptRole)
        self.run_button.setDefault(True)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(what)
        layout.addWidget(self.use_skills)
        layout.addWidget(buttons)
        fit_window(self, QSize(460, self.sizeHint().height()))
