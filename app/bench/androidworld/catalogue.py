"""AndroidWorld's task list against one phone: each task runnable there, or the reason it is not.

A task names the apps it works in (AndroidWorld's `app_names`, matched to a package by its own
`adb_utils.get_adb_activity`); it is runnable on a phone that has every one of those packages. Beyond apps,
a few tasks need something a phone may lack (`NEEDS_BEYOND_APPS`), said with them."""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

NEEDS_BEYOND_APPS: Mapping[str, str] = {
    "SystemCopyToClipboard": "its checker reads the clipboard through AndroidWorld's Clipper app",
}


@dataclass(frozen=True)
class TaskEntry:
    name: str
    family: str                       # AndroidWorld's module of the task ("system", "markor"…)
    packages: tuple[str, ...]         # the apps it works in, as packages
    reason: str = ""                  # why it cannot run on this phone ("" when it can)

    @property
    def runnable(self) -> bool:
        return not self.reason


def package_of(app_name: str) -> str | None:
    """The package AndroidWorld launches for an app name (None when it knows none)."""
    from android_world.env import adb_utils

    activity = adb_utils.get_adb_activity(app_name)
    return activity.split("/")[0] if activity else None


def family_of(task: Any) -> str:
    """AndroidWorld's module of a task class ("system", "markor", "information_retrieval"…); the generated
    information-retrieval classes name theirs through their base class."""
    module = next((c.__module__ for c in getattr(task, "__mro__", (task,)) if c.__module__ not in ("abc", "builtins")),
                  "")
    return module.rsplit(".", 1)[-1]


def _app_names(task: Any) -> tuple[str, ...]:
    """A task class's apps; the information-retrieval ones name theirs only once made (from their task proto),
    so one is made, with random parameters drawn without disturbing anyone's seeded sequence."""
    names = task.app_names
    if not isinstance(names, (tuple, list)) or not names:
        state = random.getstate()
        try:
            names = task(task.generate_random_params()).app_names
        except Exception:           # noqa: BLE001 - a task that cannot be made names nothing
            names = ()
        finally:
            random.setstate(state)
    return tuple(app for app in names if app) if isinstance(names, (tuple, list)) else ()


def catalogue(tasks: Mapping[str, Any], installed: Collection[str]) -> list[TaskEntry]:
    """Every task of `tasks` (name → TaskEval class, AndroidWorld's registry), by name, judged against the
    `installed` packages of a phone."""
    entries = []
    for name in sorted(tasks):
        task = tasks[name]
        family = family_of(task)
        names = _app_names(task)
        packages = tuple(package_of(app) or "" for app in names)
        unknown = [app for app, package in zip(names, packages, strict=True) if not package]
        missing = sorted({package for package in packages if package and package not in installed})
        if not names:
            reason = "AndroidWorld names no app for it"
        elif unknown:
            reason = f"AndroidWorld names no package for {', '.join(unknown)}"
        elif missing:
            reason = f"this phone has no {', '.join(missing)}"
        else:
            reason = NEEDS_BEYOND_APPS.get(name, "")
        entries.append(TaskEntry(name, family, tuple(p for p in packages if p), reason))
    return entries
