"""What a person changed on a map: screen names, and screens merged into one or split apart again.

Kept per phone kind in `graph/map-<kind>.json` ({"names": {screen id: name}, "merged": {screen id:
the id it was merged into}}), apart from the transitions, so new runs never overwrite them: a
renamed screen keeps its name because its signature is the same in every run. Written whole
through a temporary file and a rename. A file that cannot be read is described and treated as
empty, never raised: the map still draws (unnamed), and the next edit writes a sound file.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)

NAME_LIMIT = 60
"""Characters kept of a screen's name."""


class MapEditError(ValueError):
    """An edit that cannot be made (a name that is empty, a screen merged into itself…), in words."""


@dataclass
class MapEdits:
    names: dict[str, str] = field(default_factory=dict)
    merged: dict[str, str] = field(default_factory=dict)       # member id → the id it was merged into
    problems: list[str] = field(default_factory=list)

    def representative(self, screen_id: str) -> str:
        """The id `screen_id` is drawn as: the end of its merge chain (a cycle stops where it repeats)."""
        seen = {screen_id}
        while screen_id in self.merged:
            screen_id = self.merged[screen_id]
            if screen_id in seen:
                break
            seen.add(screen_id)
        return screen_id

    def members(self, screen_id: str) -> list[str]:
        """Every id drawn as `screen_id` (itself first)."""
        return [screen_id] + sorted(member for member in self.merged
                                    if member != screen_id and self.representative(member) == screen_id)


class MapEditsStore:
    """The person's edits of every phone kind's map, under `root` (the graph folder)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._lock = threading.Lock()

    def path_for(self, kind: str) -> Path:
        return self.root / f"map-{kind}.json"

    def load(self, kind: str) -> MapEdits:
        path = self.path_for(kind)
        if not path.is_file():
            return MapEdits()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            return MapEdits(problems=[f"{path}: cannot be read ({exc}); the map is shown without its names "
                                      "and merges until the next edit"])
        if not isinstance(data, dict):
            return MapEdits(problems=[f"{path}: not a JSON object; names and merges left out"])
        edits = MapEdits()
        for key in ("names", "merged"):
            value = data.get(key, {})
            if not isinstance(value, dict):
                edits.problems.append(f"{path}: '{key}' should be an object; left out")
                continue
            kept = {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, str) and k and v}
            if len(kept) < len(value):
                edits.problems.append(f"{path}: {len(value) - len(kept)} entries of '{key}' are not text; left out")
            setattr(edits, key, kept)
        return edits

    def save(self, kind: str, edits: MapEdits) -> None:
        """Write the kind's edits whole (a temporary file, then a rename)."""
        self.root.mkdir(parents=True, exist_ok=True)
        path = self.path_for(kind)
        temporary = path.with_suffix(".json.part")
        temporary.write_text(json.dumps({"names": edits.names, "merged": edits.merged}, ensure_ascii=False,
                                        indent=1, sort_keys=True), encoding="utf-8")
        os.replace(temporary, path)

    def rename(self, kind: str, screen_id: str, name: str) -> MapEdits:
        """Name the screen (its representative, when merged); an empty name goes back to the automatic one."""
        name = " ".join(name.split())[:NAME_LIMIT]
        with self._lock:
            edits = self.load(kind)
            target = edits.representative(screen_id)
            if name:
                edits.names[target] = name
            else:
                edits.names.pop(target, None)
            self.save(kind, edits)
            return edits

    def merge(self, kind: str, screen_ids: list[str], into: str) -> MapEdits:
        """Draw every screen of `screen_ids` as `into` (one node: their edges join)."""
        with self._lock:
            edits = self.load(kind)
            target = edits.representative(into)
            others = [edits.representative(screen_id) for screen_id in screen_ids]
            others = [other for other in dict.fromkeys(others) if other != target]
            if not others:
                raise MapEditError("choose at least one other screen to merge into this one")
            for other in others:
                edits.merged[other] = target
                if other in edits.names and target not in edits.names:
                    edits.names[target] = edits.names[other]
                edits.names.pop(other, None)
            self.save(kind, edits)
            return edits

    def split(self, kind: str, screen_id: str) -> MapEdits:
        """Undo the merges into `screen_id` (and its own into another): each member is its own screen again."""
        with self._lock:
            edits = self.load(kind)
            target = edits.representative(screen_id)
            members = [member for member in edits.members(target) if member != target]
            if screen_id != target:
                members = [screen_id]
            if not members:
                raise MapEditError("this screen was not merged with another; there is nothing to split")
            for member in members:
                edits.merged.pop(member, None)
            self.save(kind, edits)
            return edits
