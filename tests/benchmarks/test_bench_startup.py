"""`agentdesk bench startup`: the window-shown probe, and the table with and without a bundle."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from app.bench.startup_bench import COLUMN, folder_size_mb, run_startup_bench, time_to_window_ms


def test_the_app_says_when_its_window_is_shown():
    ms = time_to_window_ms([sys.executable, "-m", "app"])
    assert 0 < ms < 60_000


def test_a_program_that_never_shows_a_window_is_an_error():
    with pytest.raises(RuntimeError, match="without showing its window"):
        time_to_window_ms([sys.executable, "-c", "print('hello')"])


def test_without_a_bundle_the_table_says_how_to_build_one(tmp_path):
    table = run_startup_bench(rounds=1, bundle=str(tmp_path / "AgentDesk"))
    assert [row.figure for row in table.rows] == ["start to shown window, from source"]
    source = table.rows[0]
    cell = source.cells[COLUMN]
    assert source.baseline_name == "a bare PySide6 window" and cell.value > 0 and cell.baseline > 0
    assert any("pyinstaller build.spec" in note for note in table.notes)


def test_folder_size_counts_files_once(tmp_path: Path):
    (tmp_path / "a").write_bytes(b"x" * 1_000_000)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b").write_bytes(b"x" * 500_000)
    (tmp_path / "link").symlink_to(tmp_path / "a")
    assert folder_size_mb(tmp_path) == pytest.approx(1.5)
