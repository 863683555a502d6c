"""What the map shows of each screen: a card (its app, activity, title, controls) and a thumbnail.

The transitions file says how screens connect; a card says what a screen looks like. The first
time a run sees a screen signature, `TransitionRecorder` writes its card and a small picture under
`graph/screens-<phone kind>/`: `<key>.json` and `<key>.png`, where `<key>` is a short hash of the
signature id (ids hold "/" and "#", which file names should not). Later runs leave them alone, so
a card shows the screen as it was first met; `CardStore.read` is tolerant of a broken card (it is
skipped and described, like a broken transition line).

Also here: the words the map and the prompt use for a screen — its title as the controls show it
(`title_from_controls`) and an app's label (`app_label`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from PIL import Image

from app.core.agent.records import REQUIRED, TolerantRecord
from app.core.device.app_catalog import WELL_KNOWN_LABELS
from app.core.perception.locator import ControlSummary
from app.core.redaction import redacted_json

log = logging.getLogger(__name__)

THUMBNAIL_WIDTH = 180
"""Pixels across a screen's picture on the map (the height follows the screen's shape)."""

TITLE_BAND = 0.22
"""A screen's title lies in this top share of the screen."""

TITLE_LONGEST = 40
"""A text longer than this is not a title."""

SEPARATOR = " › "
"""Between the parts of a screen's place: "Settings › Network & internet"."""

SYSTEM_IDS = ("com.android.systemui:", "android:id/statusBarBackground", "android:id/navigationBarBackground")

_LABELS = {package: label for label, packages in reversed(list(WELL_KNOWN_LABELS.items())) for package in packages}


def app_label(package: str) -> str:
    """What a person calls the app: "Settings" for com.android.settings, else the package's last
    meaningful part, capitalised ("Notes" for com.example.notes)."""
    if not package:
        return "?"
    known = _LABELS.get(package)
    if known:
        return known[:1].upper() + known[1:]
    parts = [part for part in package.split(".") if part not in ("android", "app", "apps", "google", "com", "org")]
    tail = parts[-1] if parts else package.rsplit(".", 1)[-1]
    return tail[:1].upper() + tail[1:]


def card_key(screen_id: str) -> str:
    """The file name (without suffix) of a screen's card and picture."""
    return hashlib.blake2b(screen_id.encode("utf-8"), digest_size=8).hexdigest()


def _bottom(summary: ControlSummary) -> int:
    rect = summary.rect
    return rect[3] if isinstance(rect, list) and len(rect) == 4 else 0


def title_from_controls(controls: Sequence[ControlSummary]) -> str:
    """The screen's title from a step's controls: a short text in the top of the screen that is not
    a button, a field, the status bar, or a text with digits (a date, a clock, a count: they change
    while the screen stays the same); one whose resource id says "title" first, else
    the topmost, the leftmost of a row. "" when there is none."""
    height = max((_bottom(control) for control in controls), default=0)
    if height <= 0:
        return ""
    candidates = []
    for control in controls:
        text = " ".join(str(control.text or "").split())
        rect = control.rect if isinstance(control.rect, list) and len(control.rect) == 4 else None
        flags = control.flags if isinstance(control.flags, list) else []
        rid = str(control.resource_id or "")
        ending = rid.rsplit("/", 1)[-1].lower()
        titled = "title" in ending and ending != "title"
        if (rect is None or not text or len(text) > TITLE_LONGEST or any(ch.isdigit() for ch in text)
                or rect[1] > height * TITLE_BAND or rid.startswith(SYSTEM_IDS)
                or "Edit" in str(control.type or "") or "password" in flags
                or ("clickable" in flags and not titled)):
            continue
        candidates.append((not titled, rect[1], rect[0], text))
    return min(candidates)[3] if candidates else ""


@dataclass
class ScreenCard(TolerantRecord):
    """One screen as first met: enough to draw it and say what can be done on it."""

    RECORD_WHERE: ClassVar[str] = "screen card"

    id: str = field(default="", metadata=REQUIRED)      # the ScreenSignature.id
    app: str = ""
    activity: str = ""
    title: str = ""
    controls: list[ControlSummary] = field(default_factory=list)
    screen_size: list[int] = field(default_factory=list)
    app_version: str = ""
    run_id: str = ""
    step: int = 0
    at: str = ""
    problems: list[str] = field(default_factory=list, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data["controls"] = [control.to_dict() for control in self.controls]
        return data


class CardStore:
    """The cards and pictures of one phone kind's screens, under `root/screens-<kind>/`."""

    def __init__(self, root: Path, kind: str) -> None:
        self.folder = Path(root) / f"screens-{kind}"
        self.problems: list[str] = []

    def card_path(self, screen_id: str) -> Path:
        return self.folder / f"{card_key(screen_id)}.json"

    def picture_path(self, screen_id: str) -> Path:
        return self.folder / f"{card_key(screen_id)}.png"

    def has(self, screen_id: str) -> bool:
        return self.card_path(screen_id).is_file()

    def write(self, card: ScreenCard, picture: Any = None) -> None:
        """Write the card (and a thumbnail of `picture`, a PIL image, when given) if the screen has none
        yet; blocking, call off the loop. OSError goes to the caller."""
        if self.has(card.id):
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        if picture is not None:
            self.write_picture(card.id, picture)
        temporary = self.card_path(card.id).with_suffix(".json.part")
        temporary.write_text(redacted_json(card.to_dict()), encoding="utf-8")     # a control may show a key
        os.replace(temporary, self.card_path(card.id))

    def write_picture(self, screen_id: str, picture: Any) -> None:
        """A small copy of `picture` (a PIL image) as the screen's picture, if it has none yet (blocking)."""
        if self.picture_path(screen_id).is_file():
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        width = min(THUMBNAIL_WIDTH, picture.width) or 1
        height = max(1, round(picture.height * width / max(picture.width, 1)))
        small = picture.resize((width, height), Image.Resampling.BOX).convert("RGB")
        temporary = self.picture_path(screen_id).with_suffix(".png.part")
        small.save(temporary, format="PNG")
        os.replace(temporary, self.picture_path(screen_id))

    def read(self, screen_id: str) -> ScreenCard | None:
        """The screen's card, or None (none written, or unreadable: described in `problems`)."""
        path = self.card_path(screen_id)
        if not path.is_file():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            self.problems.append(f"{path}: not a readable screen card ({exc}); left out")
            return None
        if not isinstance(data, dict) or data.get("id") != screen_id:
            self.problems.append(f"{path}: not the card of {screen_id}; left out")
            return None
        card = ScreenCard.from_dict(data, str(path))
        self.problems.extend(card.problems)
        return card

    def picture(self, screen_id: str) -> Path | None:
        path = self.picture_path(screen_id)
        return path if path.is_file() else None
