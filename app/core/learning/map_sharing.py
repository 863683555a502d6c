"""Sharing a map between phones of the same kind: one zip file holds a phone kind's whole map.

`export_map` writes the kind's transitions, its screens' cards and pictures, and the person's
names and merges into a zip (`transitions.jsonl`, `map.json`, `screens/…`, and `about.json`
naming the kind). `import_map` adds such a file to this machine's map of that kind (or of
another kind the person names, for a phone that differs only in name): transitions not already
here are appended, cards and pictures fill in screens this map has none for, and names and
merges are taken where this map has none of its own. Nothing of this machine's map is lost.

A file that is not such a zip, or holds a broken part, is refused with words that say which
part and why; the map here is untouched until every part has been read.
"""

from __future__ import annotations

import json
import os
import zipfile
import zlib
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.paths import data_dir
from app.core.perception.private_screen import has_password_field, private_reason
from app.core.redaction import redact, redacted_json

from .map_edits import MapEditsStore
from .transitions import TransitionStore

FORMAT = "agentdesk-map"
VERSION = 1
PART_LIMIT = 200 * 1024 * 1024          # bytes read of one part at most (a zip bomb is refused)
TOTAL_LIMIT = 256 * 1024 * 1024         # bytes unpacked in all, checked before anything is read or written
RATIO_LIMIT = 100                       # unpacked / packed, for parts over RATIO_FLOOR (maps' text packs ~10×)
RATIO_FLOOR = 1024 * 1024
KIND_LIMIT = 100                        # characters of a phone kind (it names files)
READABLE = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)


class MapFileError(ValueError):
    """A map file that cannot be imported, in words."""


@dataclass
class ImportReport:
    kind: str
    transitions_added: int = 0
    transitions_known: int = 0
    screens_added: int = 0
    names_added: int = 0

    def __str__(self) -> str:
        return (f"map of {self.kind}: {self.transitions_added} actions added ({self.transitions_known} were "
                f"already known), {self.screens_added} screens' pictures added, {self.names_added} names or merges "
                "taken over")


def _root(root: Path | None) -> Path:
    return Path(root) if root is not None else data_dir() / "graph"


def export_map(kind: str, target: Path, root: Path | None = None, never_send_apps: Collection[str] = ()) -> Path:
    """Write the kind's map to the zip file `target`; FileNotFoundError when this machine has no map of it.

    What goes out is redacted again (a key registered since it was recorded), and no picture of a screen
    of an app in `never_send_apps`, or of a screen with a password field, goes out (its card does)."""
    root = _root(root)
    transitions = TransitionStore(root).path_for(kind)
    if not transitions.is_file():
        known = ", ".join(TransitionStore(root).kinds()) or "none yet"
        raise FileNotFoundError(f"there is no map of {kind!r} here (the maps here: {known})")
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(target.name + ".part")
    with zipfile.ZipFile(temporary, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("about.json", json.dumps({"format": FORMAT, "version": VERSION, "kind": kind}))
        archive.writestr("transitions.jsonl", _redacted_lines(transitions.read_bytes()))
        edits = MapEditsStore(root).path_for(kind)
        if edits.is_file():
            archive.writestr("map.json", _redacted_lines(edits.read_bytes()))
        screens = root / f"screens-{kind}"
        private: set[str] = set()           # the stems of cards whose pictures stay home
        cards = sorted(screens.glob("*.json")) if screens.is_dir() else []
        for path in cards:
            card = _json_or_none(path.read_bytes())
            if isinstance(card, dict) and _private_card(card, never_send_apps):
                private.add(path.stem)
            archive.writestr(f"screens/{path.name}", _redacted_lines(path.read_bytes()))
        pictures = sorted(screens.glob("*.png")) if screens.is_dir() else []
        for path in pictures:
            if path.stem not in private and path.is_file():
                archive.write(path, f"screens/{path.name}")
    os.replace(temporary, target)
    return target


def _json_or_none(data: bytes) -> Any:
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None


def _redacted_lines(data: bytes) -> bytes:
    """JSON lines (or one JSON document) with every string redacted; a line that is no JSON is redacted as text."""
    lines = []
    for line in data.split(b"\n"):
        parsed = _json_or_none(line) if line.strip() else None
        lines.append(redacted_json(parsed).encode("utf-8") if parsed is not None
                     else redact(line.decode("utf-8", "replace")).encode("utf-8"))
    return b"\n".join(lines)


def _private_card(card: dict, never_send_apps: Collection[str]) -> bool:
    """A screen whose picture stays home: its app is never sent, or it shows a password field."""
    controls = raw if isinstance(raw := card.get("controls"), list) else []
    return bool(private_reason(str(card.get("app") or ""), never_send_apps,
                               password_in_use=has_password_field([c for c in controls if isinstance(c, dict)])))


def _check_parts(archive: zipfile.ZipFile, source: Path) -> None:
    """Refuse, before anything is unpacked: encrypted parts, compression methods we do not read, parts that
    unpack too large or far larger than they are packed (a zip bomb), and too much in all."""
    total = 0
    for info in archive.infolist():
        if info.flag_bits & 0x1:
            raise MapFileError(f"{source}: {info.filename} is encrypted; a map file is not")
        if info.compress_type not in READABLE:
            raise MapFileError(f"{source}: {info.filename} uses a compression method (number {info.compress_type}) "
                               "that map files do not use")
        if info.file_size > PART_LIMIT:
            raise MapFileError(f"{source}: {info.filename} unpacks to {info.file_size:,} bytes, more than a map's "
                               "part may be")
        if info.file_size > RATIO_FLOOR and info.file_size > RATIO_LIMIT * max(info.compress_size, 1):
            raise MapFileError(f"{source}: {info.filename} unpacks to {info.file_size // info.compress_size or 0:,} "
                               f"times its packed size (a map's parts pack at most {RATIO_LIMIT}×): refused as a "
                               "zip bomb")
        total += info.file_size
    if total > TOTAL_LIMIT:
        raise MapFileError(f"{source}: it unpacks to {total:,} bytes, more than a map file may "
                           f"({TOTAL_LIMIT // (1024 * 1024)} MB)")


def _read(archive: zipfile.ZipFile, name: str, source: Path) -> bytes:
    info = archive.getinfo(name)
    try:
        data = archive.read(name)
    except (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, NotImplementedError, OSError) as exc:
        raise MapFileError(f"{source}: {name} is damaged ({exc})") from None
    if len(data) != info.file_size:
        raise MapFileError(f"{source}: {name} is damaged (it unpacks to another size than it says)")
    return data


def _json_part(archive: zipfile.ZipFile, name: str, source: Path) -> Any:
    try:
        return json.loads(_read(archive, name, source))
    except (ValueError, RecursionError) as exc:
        raise MapFileError(f"{source}: {name} is not JSON ({one_line(exc)})") from None


def one_line(error: Exception) -> str:
    return " ".join(str(error).split())[:200]


def import_map(source: Path, root: Path | None = None, as_kind: str | None = None) -> ImportReport:
    """Add the map in the zip file `source` to this machine's map of its kind (or `as_kind`)."""
    source, root = Path(source), _root(root)
    try:
        archive = zipfile.ZipFile(source)
    except (OSError, zipfile.BadZipFile) as exc:
        raise MapFileError(f"{source}: not a map file ({exc})") from None
    with archive:
        names = set(archive.namelist())
        if "about.json" not in names or "transitions.jsonl" not in names:
            raise MapFileError(f"{source}: not a map file (it has no about.json and transitions.jsonl)")
        _check_parts(archive, source)
        about = _json_part(archive, "about.json", source)
        if not isinstance(about, dict) or about.get("format") != FORMAT or not isinstance(about.get("kind"), str):
            raise MapFileError(f"{source}: about.json does not describe an Agent Desk map")
        kind = as_kind or about["kind"]
        if not kind or "/" in kind or "\\" in kind or kind.startswith(".") or len(kind) > KIND_LIMIT \
                or not kind.isprintable():
            raise MapFileError(f"{source}: {kind[:60]!r}{'…' if len(kind) > 60 else ''} is not a phone kind")
        lines = _read(archive, "transitions.jsonl", source).splitlines()
        edits = _json_part(archive, "map.json", source) if "map.json" in names else {}
        pictures = {name.split("/", 1)[1]: _read(archive, name, source) for name in names
                    if name.startswith("screens/") and name.count("/") == 1
                    and name.endswith((".json", ".png")) and not name.endswith("/")}
    report = ImportReport(kind)
    store = TransitionStore(root)
    path = store.path_for(kind)
    known = set(path.read_bytes().splitlines()) if path.is_file() else set()
    fresh = [marked for line in lines if line.strip() and line not in known
             and (marked := marked_imported(line)) not in known]
    report.transitions_known = sum(1 for line in lines if line.strip()) - len(fresh)
    root.mkdir(parents=True, exist_ok=True)
    if fresh:
        with open(path, "ab") as handle:
            if handle.tell() > 0 and known and not path.read_bytes().endswith(b"\n"):
                handle.write(b"\n")
            handle.write(b"\n".join(fresh) + b"\n")
    report.transitions_added = len(fresh)
    folder = root / f"screens-{kind}"
    for name, data in pictures.items():
        if Path(name).name != name:
            continue
        target = folder / name
        if not target.exists():
            folder.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            report.screens_added += name.endswith(".json")
    report.names_added = _take_edits(MapEditsStore(root), kind, edits if isinstance(edits, dict) else {})
    return report


def marked_imported(line: bytes) -> bytes:
    """A transition line of a map file marked as imported (`Transition.imported`): its ways are asked before their
    first step in auto mode until a run here takes them. A line that is no JSON object stays as it is (reading
    skips it and says so)."""
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        return line
    if not isinstance(data, dict):
        return line
    data["imported"] = True
    return json.dumps(data, ensure_ascii=False).encode("utf-8")


def _take_edits(store: MapEditsStore, kind: str, incoming: dict) -> int:
    """Names and merges of the file that this map has none of its own for; how many were taken."""
    taken = 0
    current = store.load(kind)
    for key in ("names", "merged"):
        values = incoming.get(key)
        held = getattr(current, key)
        if not isinstance(values, dict):
            continue
        for screen, value in values.items():
            if isinstance(screen, str) and isinstance(value, str) and screen and value and screen not in held:
                held[screen] = value
                taken += 1
    if taken:
        store.save(kind, current)
    return taken


def kinds_with_counts(root: Path | None = None) -> list[tuple[str, int, int]]:
    """Each phone kind with a map here: (kind, screens, actions recorded)."""
    root = _root(root)
    store = TransitionStore(root)
    listing = []
    for kind in store.kinds():
        transitions, _ = store.read(kind)
        screens = {t.from_screen for t in transitions} | {t.to_screen for t in transitions if t.to_screen}
        listing.append((kind, len(screens), len(transitions)))
    return listing
