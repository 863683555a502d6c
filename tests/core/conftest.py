"""Corpus fixtures for the perception tests: the dump list (for parametrizing) and MANIFEST.tsv facts."""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import CORPUS_DIR, CORPUS_MISSING


@dataclass(frozen=True)
class ManifestEntry:
    """The facts MANIFEST.tsv states about one dump (None where it states nothing)."""

    file: str
    node_count: int
    has_screenshot: bool
    rotation: int | None
    top_level_windows: int | None
    hierarchy_extent: tuple[int, int] | None


def _dump_names(*, with_screenshot: bool = False) -> list:
    """Dumps as "folder/file.xml", sorted; where the corpus is missing, one skipped
    parameter that says so."""
    if not CORPUS_DIR.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=CORPUS_MISSING), id="no-corpus")]
    return [
        path.relative_to(CORPUS_DIR).as_posix()
        for path in sorted(CORPUS_DIR.glob("*/*.xml"))
        if not with_screenshot or path.with_suffix(".png").is_file()
    ]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """`dump_name`: every corpus dump; `screenshot_dump_name`: those with a screenshot."""
    if "dump_name" in metafunc.fixturenames:
        metafunc.parametrize("dump_name", _dump_names())
    if "screenshot_dump_name" in metafunc.fixturenames:
        metafunc.parametrize("screenshot_dump_name", _dump_names(with_screenshot=True))


@pytest.fixture(scope="session")
def manifest(corpus_dir: Path) -> dict[str, ManifestEntry]:
    with (corpus_dir / "MANIFEST.tsv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return {row["file"]: _entry(row) for row in rows}


def _entry(row: dict[str, str]) -> ManifestEntry:
    notes = row["notes"]
    size_note = row["screen_size_if_known"]
    rotation = re.search(r"\brotation=(\d)", notes)
    windows = re.search(r"\btop_level_windows=(\d+)", notes)
    extent = re.search(r"bounds span (\d+)x(\d+)", size_note)
    if extent is None and "max extent of top-level window bounds" in size_note:
        extent = re.match(r"(\d+)x(\d+)", size_note)
    return ManifestEntry(
        file=row["file"],
        node_count=int(row["node_count"]),
        has_screenshot=row["has_screenshot"] == "yes",
        rotation=int(rotation.group(1)) if rotation else None,
        top_level_windows=int(windows.group(1)) if windows else None,
        hierarchy_extent=(int(extent.group(1)), int(extent.group(2))) if extent else None,
    )


def element_path(element) -> tuple[int, ...]:
    """The index path of an lxml <node> element, as Control.node_path gives it."""
    path = []
    while element.getparent() is not None:
        parent = element.getparent()
        path.append([child for child in parent if child.tag == "node"].index(element))
        element = parent
    return tuple(reversed(path))
