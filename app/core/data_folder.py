"""Whether Agent Desk can write where it keeps its files, said in words a person can act on.

A run that cannot record itself must not act on the phone (issue 12, item 6), so the faces
check the data folder at start (`data_folder_problem`) and the recorder words every write
failure the same way (`storage_words`, `storage_problem`): what could not be written, where,
and why ("no space left on device", "read-only file system", "permission denied").
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

from app.core import paths

FIX_HINT = f"Set {paths.HOME_VARIABLE} to a writable folder."
PROBE_PREFIX = ".agentdesk-write-check-"


def storage_words(error: BaseException) -> str:
    """Why a write failed, in lower-case words ("no space left on device"); the error's text otherwise."""
    code = getattr(error, "errno", None)
    if isinstance(code, int) and code:
        return os.strerror(code).lower()
    return str(error) or type(error).__name__


def storage_problem(what: str, where: Path | str, error: BaseException) -> str:
    """One sentence: "could not record step 4 in /path/runs/…: no space left on device"."""
    return f"could not {what} in {where}: {storage_words(error)}"


def check_writable(folder: Path) -> OSError | None:
    """Create `folder` if needed and write, fsync and delete a small file in it; the error, or None."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f"{PROBE_PREFIX}{uuid.uuid4().hex[:8]}"
        try:
            with probe.open("xb") as handle:
                handle.write(b"agentdesk")
                handle.flush()
                os.fsync(handle.fileno())
        finally:
            probe.unlink(missing_ok=True)
    except OSError as exc:
        return exc
    return None


def unwritable_message(folder: Path, error: OSError) -> str:
    """The start-up sentence: "Agent Desk cannot write to /path (read-only file system). Set AGENTDESK_HOME…"."""
    return f"Agent Desk cannot write to {folder} ({storage_words(error)}). {FIX_HINT}"


def data_folders() -> list[Path]:
    """The folders Agent Desk writes to: runs, settings and logs (not created here)."""
    return [paths.runs_dir(create=False), paths.config_dir(create=False), paths.log_dir(create=False)]


def data_folder_problem(folders: list[Path] | None = None) -> str:
    """"" when every data folder can be written to; otherwise the sentence that says which cannot, and why."""
    for folder in folders if folders is not None else data_folders():
        error = check_writable(folder)
        if error is not None:
            return unwritable_message(folder, error)
    return ""
