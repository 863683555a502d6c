"""The screens graph's data: every executed action as a transition between two screen signatures.

Seed 003's recorder. While a run goes, `TransitionRecorder` reads its events: each finished step
names the screen it was taken on (`screen_signature.stable_signature` of its app, activity and
controls) and the action executed there; the next step's screen is where that action led. Each
such move is a `Transition` — from which screen, to which, by what action on which control, how it
went, how long it took, in which run — appended to a `TransitionStore`: JSON lines under
`data_dir()/graph`, one file per phone kind (model and Android version), kept across runs, with
each new screen's card (`screen_cards.py`); `screen_graph.py` builds the map of screens from them.

The recorder never breaks the run: it writes after the run on one worker thread, and a write that
fails is logged and listed in `problems` (the graph is a by-product; the run's own record is kept).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from PIL import Image

from app.core.agent.action_kinds import kind_of
from app.core.agent.events import EventStream, RunEvent, RunFinished, StepFinished
from app.core.agent.records import REQUIRED, TolerantRecord
from app.core.agent.trajectory import step_image_names
from app.core.learning.screen_cards import CardStore, ScreenCard, title_from_controls
from app.core.learning.screen_signature import stable_signature
from app.core.paths import data_dir
from app.core.perception.locator import TargetLocator
from app.core.redaction import redact, redacted_json

log = logging.getLogger(__name__)

FILE_PREFIX = "transitions-"
FILE_SUFFIX = ".jsonl"
KIND_LIMIT = 80
"""Characters kept of a phone kind (it is part of a file name)."""

CONTENT_ARGUMENTS = ("control_id", "text")
"""Arguments left out of an action's key: a control's number holds on one screen only (with every argument
the action's kind names a control by), typed text is content."""


@dataclass
class Transition(TolerantRecord):
    """One executed action, as a move from one screen to the next.

    `from_screen` / `to_screen` are `ScreenSignature.id`s; `to_screen` is "" when the screen after
    the action is unknown (the run ended after it, or the next screen could not be read). `action`
    is {"function", "arguments"} as executed; `locator` the control it acted on, when it had one.
    """

    RECORD_WHERE: ClassVar[str] = "transition"

    from_screen: str = field(default="", metadata=REQUIRED)
    to_screen: str = ""
    app: str = ""                                   # the foreground app of the screen it was taken on
    from_activity: str = ""
    to_activity: str = ""
    action: dict[str, Any] = field(default_factory=dict)
    action_text: str = ""
    locator: TargetLocator | None = None
    success: bool = False
    duration_ms: float = 0.0
    run_id: str = ""
    request: str = ""                               # the run's request (redacted), so a map can name its runs
    step: int = 0
    at: str = ""                                    # ISO time of the step
    phone_model: str = ""
    android_version: str = ""
    app_version: str = ""                           # "" when unknown
    imported: bool = False                          # from another desk's map file (map_sharing), not run here
    problems: list[str] = field(default_factory=list, compare=False, repr=False)   # from reading; never written

    @property
    def function(self) -> str:
        return str(self.action.get("function") or "")

    @property
    def phone_kind(self) -> str:
        return phone_kind(self.phone_model, self.android_version)

    @property
    def action_key(self) -> str:
        """What the action did, the same on every run: its function and the control's locator (its
        resource-id, else text, else content-desc, else XPath), or its arguments without content."""
        function = self.function or "?"
        target = self.locator
        if target is not None:
            for name in ("resource_id", "text", "content_desc", "xpath"):
                value = getattr(target, name)
                if value:
                    return f"{function} {name}={value}"
        arguments = self.action.get("arguments")
        kind = kind_of(function)
        left_out = (*CONTENT_ARGUMENTS, *(kind.control_arguments if kind is not None else ()))
        kept = {key: value for key, value in arguments.items() if key not in left_out} \
            if isinstance(arguments, dict) else {}
        return f"{function} {json.dumps(kept, sort_keys=True, ensure_ascii=False)}" if kept else function


def _slug(text: str) -> str:
    return re.sub(r"[\W_]+", "-", text.casefold()).strip("-")


def phone_kind(model: str, android_version: str) -> str:
    """The phone kind a transition belongs to, as a file-name slug: `pixel-7-android-14`."""
    kind = f"{_slug(model) or 'unknown-phone'}-android-{_slug(android_version) or 'unknown'}"
    return kind[:KIND_LIMIT].strip("-")


class TransitionStore:
    """Transitions as JSON lines, one file per phone kind (`transitions-<kind>.jsonl`), under `root`."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = Path(root) if root is not None else data_dir() / "graph"
        self.problems: list[str] = []           # from the latest read
        self._lock = threading.Lock()           # one writer at a time in this process

    def path_for(self, kind: str) -> Path:
        return self.root / f"{FILE_PREFIX}{kind}{FILE_SUFFIX}"

    def append(self, transitions: list[Transition]) -> None:
        """Append the transitions to their phone kinds' files (blocking; call off the loop).

        Each line is written whole by one unbuffered write in append mode, so lines of several
        writers never mix. A file whose last line was cut short (a crash) first gets a newline, so
        that broken line stays the only one lost. OSError goes to the caller.
        """
        by_kind: dict[str, list[bytes]] = {}
        for transition in transitions:
            line = redacted_json(transition.to_dict()) + "\n"     # typed text, names, the request: like the run's
            by_kind.setdefault(transition.phone_kind, []).append(line.encode("utf-8"))
        if not by_kind:
            return
        with self._lock:
            self.root.mkdir(parents=True, exist_ok=True)
            for kind, lines in by_kind.items():
                path = self.path_for(kind)
                with open(path, "ab", buffering=0) as handle:
                    if handle.tell() > 0 and not _ends_with_newline(path):
                        handle.write(b"\n")
                    for encoded in lines:
                        handle.write(encoded)

    def kinds(self) -> list[str]:
        """The phone kinds that have a file, sorted."""
        if not self.root.is_dir():
            return []
        return sorted(path.name[len(FILE_PREFIX):-len(FILE_SUFFIX)]
                      for path in self.root.glob(f"{FILE_PREFIX}*{FILE_SUFFIX}") if path.is_file())

    def read(self, phone_kind: str | None = None) -> tuple[list[Transition], list[str]]:
        """The transitions of one phone kind (None: of all), in file order, and what was wrong.

        Tolerant: a line that is not JSON, not an object, or has no `from_screen` is skipped and
        described as "<file>: line N: …"; a field of the wrong type gets its default and is described
        the same way; a file that cannot be read is described and skipped.
        """
        kinds = [phone_kind] if phone_kind is not None else self.kinds()
        transitions: list[Transition] = []
        problems: list[str] = []
        for kind in kinds:
            path = self.path_for(kind)
            if not path.is_file():
                continue
            try:
                data = path.read_bytes()
            except OSError as exc:
                problems.append(f"{path}: cannot be read ({exc}); its transitions were left out")
                continue
            for number, raw in enumerate(data.split(b"\n"), start=1):
                transition = _read_line(raw, f"{path}: line {number}", problems)
                if transition is not None:
                    transitions.append(transition)
        self.problems = problems
        return transitions, problems


def _ends_with_newline(path: Path) -> bool:
    with open(path, "rb") as handle:
        handle.seek(-1, 2)
        return handle.read(1) == b"\n"


def _read_line(raw: bytes, where: str, problems: list[str]) -> Transition | None:
    """One line as a transition, or None (blank, or skipped with its problem described)."""
    if not raw.strip():
        return None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        problems.append(f"{where}: not a JSON line ({exc}); skipped")
        return None
    if not isinstance(data, dict):
        problems.append(f"{where}: not a JSON object; skipped")
        return None
    if not isinstance(data.get("from_screen"), str) or not data["from_screen"]:
        problems.append(f"{where}: no 'from_screen'; skipped")
        return None
    transition = Transition.from_dict(data, where)
    problems.extend(transition.problems)
    return transition


class TransitionRecorder:
    """Reads a run's events; `close()` appends its transitions to a store, in order, on one worker thread.
    Step N's executed action (a non-empty function with a result) goes from N's screen to the
    next step's screen; the run's last one ends at `RunFinished` (or `close()`) with an unknown `to_screen`.
    A step whose controls could not be read has no known screen: an action taken there is not recorded.
    `phone` is the run's device dict (model, serial, virtual, maybe android_version);
    `app_versions(package)` (called on the worker, once per package) says an app's version.
    """

    def __init__(self, events: EventStream, store: TransitionStore, phone: dict, run_id: str,
                 app_versions: Callable[[str], str] | None = None, run_dir: str | Path | None = None) -> None:
        self.events = events
        self.store = store
        self.run_id = run_id
        self.phone_model = str(phone.get("model") or "")
        self.android_version = str(phone.get("android_version") or "")
        self.app_versions = app_versions
        self.problems: list[str] = []
        self.written = 0
        self._versions: dict[str, str] = {}
        self._pending: Transition | None = None
        self.run_dir = Path(run_dir) if run_dir else None      # where the run's step pictures are saved
        self._pictures_due: dict[str, Path] = {}    # a new screen → its step's picture, which becomes its own
        self._cards_due: dict[str, Any] = {}       # each screen this run met → its first step (cards: after the run)
        self._finished: list[Transition] = []       # closed transitions, written after the run
        self._worker = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="agentdesk-graph")
        self._jobs: list[concurrent.futures.Future] = []     # the writes, on the worker
        self._unsubscribe: Callable[[], None] | None = None
        self._closed = False

    def attach(self) -> None:
        """Start reading the run's events (those so far first). Call on the run's loop."""
        if self._unsubscribe is None and not self._closed:
            self._unsubscribe = self.events.subscribe(self._on_event, replay=True)

    def _on_event(self, event: RunEvent) -> None:
        """On the run's loop: the step's signature (about a millisecond) here; writing on the worker. Work on
        a thread during a run competes for the GIL with the frame decoder, whose timing tells when the screen
        has settled: with signatures on the worker, a step could see a screen still sliding in."""
        if isinstance(event, StepFinished):
            self._guarded(self._step_finished, event.item)
        elif isinstance(event, RunFinished):
            self._guarded(self._flush_pending, "")

    def _guarded(self, work: Callable[..., None], *arguments: Any) -> None:
        """One piece of work, whose failure is described, never raised (the graph must never break the run)."""
        try:
            work(*arguments)
        except Exception as exc:
            self._problem(f"a step could not be turned into a transition ({exc})")

    def _step_finished(self, item: Any) -> None:
        app = str(getattr(item, "foreground", "") or "")
        activity = str(getattr(item, "activity", "") or "")
        controls = getattr(item, "controls", None) or []
        known = bool(controls) and not getattr(item, "screen_only", False)
        screen = stable_signature(app, activity, controls).id if known else ""
        if known and screen not in self._cards_due:
            self._cards_due[screen] = item          # its card is written when the run has ended
        self._flush_pending(screen, activity if known else "")
        action = getattr(item, "action", None) or {}
        result = getattr(item, "result", None)
        if not known or not isinstance(action, dict) or not action.get("function") or result is None:
            return
        duration = float(getattr(result, "duration_ms", 0.0) or 0.0)
        self._pending = Transition(
            from_screen=screen, app=app, from_activity=activity,
            action={"function": action.get("function"), "arguments": dict(action.get("arguments") or {})},
            action_text=str(getattr(item, "action_text", "") or ""), locator=getattr(item, "target", None),
            success=bool(getattr(result, "success", False)), duration_ms=duration, run_id=self.run_id,
            request=redact(str(getattr(item, "request", "") or "")),
            step=int(getattr(item, "step", 0) or 0), at=str(getattr(item, "timestamp", "") or ""),
            phone_model=self.phone_model, android_version=self.android_version)

    def _flush_pending(self, to_screen: str, to_activity: str = "") -> None:
        """Close the pending transition at `to_screen` ("" unknown) and hand it to the worker to write."""
        transition, self._pending = self._pending, None
        if transition is None:
            return
        transition.to_screen, transition.to_activity = to_screen, to_activity
        self._finished.append(transition)           # written when the run has ended (see _write_cards)

    def _write(self, transition: Transition) -> None:
        """On the worker: the app's version, then the line; a failure is logged, never raised."""
        transition.app_version = self._app_version(transition.app)
        try:
            self.store.append([transition])
            self.written += 1
        except OSError as exc:
            self._problem(f"step {transition.step}'s transition could not be written to {self.store.root} ({exc})")

    def _write_card(self, screen: str, item: Any) -> None:
        """On the worker, after the run: the screen's card, the first time any run meets it."""
        cards = CardStore(self.store.root, phone_kind(self.phone_model, self.android_version))
        if cards.has(screen):
            return
        app = str(getattr(item, "foreground", "") or "")
        controls = list(getattr(item, "controls", None) or [])
        card = ScreenCard(id=screen, app=app, activity=str(getattr(item, "activity", "") or ""), run_id=self.run_id,
                          title=title_from_controls(controls), controls=controls, app_version=self._app_version(app),
                          step=int(getattr(item, "step", 0) or 0), at=str(getattr(item, "timestamp", "") or ""))
        try:
            cards.write(card)
        except OSError as exc:
            self._problem(f"the card of screen {screen} could not be written to {cards.folder} ({exc})")
            return
        if self.run_dir is not None:
            self._pictures_due[screen] = self.run_dir / step_image_names(card.step)[0]

    def _write_cards(self) -> None:
        """On the worker, once the run has ended: the transitions, each new screen's card, and its picture from
        its step's saved screenshot. None of it happens while the run goes: an app's version asks the phone,
        and shrinking a picture takes CPU the run's screen watching needs."""
        for transition in self._finished:
            self._write(transition)
        for screen, item in self._cards_due.items():
            self._guarded(self._write_card, screen, item)
        cards = CardStore(self.store.root, phone_kind(self.phone_model, self.android_version))
        for screen, path in self._pictures_due.items():
            try:
                with Image.open(path) as picture:
                    cards.write_picture(screen, picture)
            except FileNotFoundError:
                continue                    # the step's screenshot was not saved (a storage fault, say)
            except (OSError, ValueError) as exc:
                self._problem(f"the picture of screen {screen} could not be made from {path} ({exc})")
        self._pictures_due.clear()

    def _app_version(self, package: str) -> str:
        if self.app_versions is None or not package:
            return ""
        if package not in self._versions:
            try:
                self._versions[package] = str(self.app_versions(package) or "")
            except Exception as exc:
                log.warning("the version of %s could not be read: %s", package, exc)
                self._versions[package] = ""
        return self._versions[package]

    def _problem(self, text: str) -> None:
        log.warning("screens graph of run %s: %s", self.run_id, text)
        self.problems.append(text)

    async def close(self) -> None:
        """Stop reading, write the pending transition (its next screen unknown), wait for every
        write, and shut the worker down (no thread is left running)."""
        if self._closed:
            return
        self._closed = True
        if self._unsubscribe is not None:
            self._unsubscribe()
        self._guarded(self._flush_pending, "")
        self._jobs.append(self._worker.submit(self._guarded, self._write_cards))
        for job in list(self._jobs):
            try:
                await asyncio.wrap_future(job)
            except Exception as exc:        # _write catches OSError; anything else is said here
                self._problem(f"a transition could not be written ({exc})")
        self._worker.shutdown(wait=True)    # every job is done: the thread ends at once
