"""Real storage faults for tests: a small tmpfs that can be filled up or made read-only.

Root ignores file modes, so chmod cannot make a folder unwritable here; a mounted tmpfs gives
the kernel's own ENOSPC and EROFS. Where mounting is not allowed the test is skipped and says why.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def small_disk(path: Path, size_kb: int = 512, *, read_only: bool = False) -> Iterator[Path]:
    """A tmpfs of `size_kb` mounted on `path` (created), unmounted afterwards; skips the test if it cannot be."""
    if shutil.which("mount") is None:
        pytest.skip("no mount command: a real full or read-only disk cannot be made here")
    path.mkdir(parents=True, exist_ok=True)
    options = f"size={size_kb}k,mode=0755" + (",ro" if read_only else "")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"mounting a small tmpfs is not permitted here ({done.stderr.strip() or done.returncode})")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


def fill_up(disk: Path) -> None:
    """Write a file until the disk is full (ENOSPC): the next new page of any file fails."""
    chunk = b"\0" * 4096
    handle = (disk / "filler").open("wb", buffering=0)
    try:
        while True:
            handle.write(chunk)
    except OSError:
        pass
    finally:
        try:
            handle.close()
        except OSError:
            pass


def make_read_only(disk: Path) -> None:
    """Remount the disk read-only (EROFS from now on)."""
    subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True, capture_output=True)
