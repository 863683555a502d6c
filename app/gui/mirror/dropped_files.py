"""Files dropped on the mirror, carried out on the core loop: an APK is installed, any other file goes
to the phone's Download folder (app/core/device/phone_files.py). One file after another, with
progress and a closing line that names each file's outcome, so a failure is never lost among
successes. No Qt here: it reports through a plain callable, from any thread."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from app.core.device.errors import DeviceError
from app.core.device.phone_files import install_apk, push_file

PROGRESS_EVERY_SECONDS = 0.25


def is_apk(path: Path) -> bool:
    return path.suffix.lower() == ".apk"


async def send_dropped_files(device, paths: list[Path], report: Callable[[str], None]) -> list[str]:
    """Install or push each file in turn; `report` gets progress and the outcome. Returns the outcomes."""
    outcomes: list[str] = []
    for number, path in enumerate(paths, 1):
        prefix = f"{number}/{len(paths)}: " if len(paths) > 1 else ""
        doing = f"{prefix}{'Installing' if is_apk(path) else 'Sending'} {path.name}"
        report(f"{doing}…")

        def percent(sent: int, total: int, doing: str = doing) -> None:
            report(f"{doing}… {sent * 100 // max(total, 1)}%")
        progress = _throttled(percent)
        try:
            if is_apk(path):
                outcomes.append(f"Installed {await install_apk(device, path, progress)} ({path.name}).")
            else:
                outcomes.append(f"Sent {path.name} to {await push_file(device, path, progress=progress)}.")
        except DeviceError as exc:
            message = str(exc)
            outcomes.append(message if path.name in message else f"{path.name}: {message}")
    failed = sum(1 for outcome in outcomes if not outcome.startswith(("Installed ", "Sent ")))
    summary = f"{len(paths) - failed} of {len(paths)} files done. " if len(paths) > 1 and failed else ""
    report(summary + " ".join(outcomes))
    return outcomes


def _throttled(report: Callable[[int, int], None]) -> Callable[[int, int], None]:
    """`report`, at most every PROGRESS_EVERY_SECONDS (and always at the end)."""
    last = [0.0]

    def progress(sent: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] >= PROGRESS_EVERY_SECONDS or sent >= total:
            last[0] = now
            report(sent, total)
    return progress
