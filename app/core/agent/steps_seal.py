"""A run's seal: proof that its steps.jsonl is what this desk wrote (issue 25: an edited run folder's
actions are asked before their first step in auto mode, like an imported skill's).

When a run ends, `seal` is an HMAC-SHA256 of its steps file under a key kept beside the run
folders (`<runs folder>/.steps-seal-key`, made on first use, readable by this user only), and
run.json keeps it (`STEPS_SEAL_KEY`). `is_sealed` says whether a folder's steps file still has
its seal: an edited steps file, a run.json without a seal (older runs, a run that never ended),
a folder moved elsewhere or copied from another computer all do not. A key that cannot be made
or read (a read-only folder) gives no seal, so the replay asks: never an error.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import uuid
from pathlib import Path

STEPS_SEAL_KEY = "steps_seal"
"""run.json's field holding the seal of its steps.jsonl."""
SEAL_KEY_FILE = ".steps-seal-key"
_KEY_BYTES = 32


def _seal_key(runs_root: Path, create: bool) -> bytes | None:
    """The key of the run folders under `runs_root` (made when missing and `create`), or None."""
    path = runs_root / SEAL_KEY_FILE
    try:
        key = path.read_bytes()
        return key if len(key) == _KEY_BYTES else None
    except FileNotFoundError:
        if not create:
            return None
    except OSError:
        return None
    temp = runs_root / f"{SEAL_KEY_FILE}.{uuid.uuid4().hex[:8]}.tmp"
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(secrets.token_bytes(_KEY_BYTES))
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(temp, path)           # another process may have made it first: then theirs holds
        except FileExistsError:
            pass
        return _seal_key(runs_root, create=False)
    except OSError:
        return None
    finally:
        temp.unlink(missing_ok=True)


def seal(run_dir: Path, steps: bytes) -> str:
    """The seal of a run folder's steps (hex), or "" when no key can be had."""
    key = _seal_key(Path(run_dir).absolute().parent, create=True)
    return hmac.new(key, steps, hashlib.sha256).hexdigest() if key else ""


def is_sealed(run_dir: Path | str, run_file: str = "run.json", steps_file: str = "steps.jsonl") -> bool:
    """Whether the folder's steps file still carries the seal its run.json keeps (False when either
    cannot be read, or run.json has no seal)."""
    run_dir = Path(run_dir)
    try:
        recorded = json.loads((run_dir / run_file).read_bytes()).get(STEPS_SEAL_KEY)
        steps = (run_dir / steps_file).read_bytes()
    except (OSError, ValueError, AttributeError):
        return False
    if not isinstance(recorded, str) or not recorded:
        return False
    key = _seal_key(run_dir.absolute().parent, create=False)
    if not key:
        return False
    return hmac.compare_digest(hmac.new(key, steps, hashlib.sha256).hexdigest(), recorded)
