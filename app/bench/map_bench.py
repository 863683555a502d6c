"""`agentdesk bench map`: does the Map of screens stay responsive while it draws a large app?

A synthetic map of one app — 300 screens by default, about two actions leaving each, every screen
with a card and a small picture — is written to a temporary graph folder with the same stores runs
write (`TransitionStore.append`, `CardStore.write`). The Map window opens on it offscreen, on a qasync
loop, while a 5 ms QTimer measures the longest gap of the GUI event loop (a stall) from the moment the
window is shown until the map is fully drawn and painted, and the time that takes.

Ours reads the graph, lays it out and loads the pictures in worker threads, then adds the items in
pieces of at most a few milliseconds. The baseline, measured in the same run, reads the graph the same
way but lays it out, loads the pictures and adds every item in one call on the GUI thread. Ours and the
baseline alternate, `rounds` times each; the medians are printed.
"""

from __future__ import annotations

import asyncio
import gc
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from .gui_bench import STALL_BUDGET_MS, _StallMeter
from .table import BenchTable

if TYPE_CHECKING:
    from app.gui.map.map_window import MapWindow

SCREENS = 300
ACTIONS = 2
ROUNDS = 3
APP = "com.example.atlas"
MODEL, ANDROID = "Bench Phone", "14"
SETTLE_SECONDS = 0.3
"""After the last item is added, the meter keeps running this long: the first paint of the map counts."""
LAYOUT_BUDGET_MS = 1000.0


def _picture(index: int):
    """A small phone-shaped picture: a coloured app bar, a title block and a few rows."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (360, 800), (250, 250, 252))
    draw = ImageDraw.Draw(image)
    hue = (index * 47) % 255
    draw.rectangle((0, 0, 360, 90), fill=(hue, 120, 255 - hue))
    draw.rectangle((20, 30, 200, 60), fill=(255, 255, 255))
    for row in range(6):
        top = 120 + row * 100
        draw.rectangle((20, top, 340, top + 70), outline=(200, 200, 210), fill=(240, 241, 245))
        draw.rectangle((40, top + 20, 80 + (index * 13 + row * 29) % 200, top + 45), fill=(90, 90, 100))
    return image


def write_synthetic_map(root: Path, screens: int = SCREENS, actions: int = ACTIONS, seed: int = 3,
                        pictures: bool = True) -> str:
    """Write one app's map of `screens` screens (a tree from its entry screen, plus `actions - 1` more
    actions from each screen to others) under `root`; returns the phone kind it was written for."""
    from app.core.learning.screen_cards import CardStore, ScreenCard
    from app.core.learning.transitions import Transition, TransitionStore, phone_kind
    from app.core.perception.locator import ControlSummary, TargetLocator

    rng = random.Random(seed)
    kind = phone_kind(MODEL, ANDROID)
    ids = [f"{APP}/.Screen{index}#{index:012x}" for index in range(screens)]
    launcher = "com.android.launcher3/.Launcher#000000000000"
    cards = CardStore(root, kind)
    for index, screen in enumerate(ids + [launcher]):
        controls = [ControlSummary(1, f"Screen {index}", "TextView", f"{APP}:id/title", f"Screen {index}",
                                   rect=[40, 120, 600, 180])]
        controls += [ControlSummary(2 + row, f"Item {row}", "TextView", f"{APP}:id/item", f"Item {row}",
                                    rect=[0, 300 + row * 160, 1080, 440 + row * 160], flags=["clickable"])
                     for row in range(5)]
        card = ScreenCard(id=screen, app=screen.split("/", 1)[0], activity=screen.split("/")[1].split("#")[0],
                          title=f"Screen {index}" if screen != launcher else "Home", controls=controls)
        cards.write(card, _picture(index) if pictures else None)
    start = datetime(2026, 11, 21, 9, 0)
    moves = []

    def move(source: str, target: str, label: str, run: int, step: int) -> Transition:
        return Transition(from_screen=source, to_screen=target, app=source.split("/", 1)[0],
                          from_activity=source.split("/")[1].split("#")[0],
                          to_activity=target.split("/")[1].split("#")[0],
                          action={"function": "click_control", "arguments": {"control_id": 2}},
                          action_text=f"Tap “{label}”", locator=TargetLocator(name=label, text=label),
                          success=True, duration_ms=300 + rng.random() * 900, run_id=f"bench-run-{run}",
                          step=step, at=(start + timedelta(minutes=run, seconds=step)).isoformat(),
                          phone_model=MODEL, android_version=ANDROID)

    moves.append(Transition(from_screen=launcher, to_screen=ids[0], app="com.android.launcher3",
                            action={"function": "launch_app", "arguments": {"package_name": APP}},
                            action_text="Open Atlas", success=True, duration_ms=800, run_id="bench-run-0",
                            step=0, at=start.isoformat(), phone_model=MODEL, android_version=ANDROID))
    for index in range(1, screens):
        parent = (index - 1) // 3
        moves.append(move(ids[parent], ids[index], f"Item {index % 3 + 1} of screen {parent}", index, 1))
        for extra in range(actions - 1):
            target = ids[rng.randrange(screens)]
            if target != ids[index]:
                moves.append(move(ids[index], target, f"Link {extra + 1} of screen {index}", index, 2 + extra))
    TransitionStore(root).append(moves)
    return kind


async def _ours(root: Path, kind: str) -> tuple[_StallMeter, float, MapWindow]:
    from app.gui.map.map_window import MapWindow

    window = MapWindow(None, root)
    window.resize(1360, 900)
    meter = _StallMeter()
    started = time.perf_counter()
    window.show()
    await asyncio.sleep(0)
    await window.settled()
    drawn = (time.perf_counter() - started) * 1000
    await asyncio.sleep(SETTLE_SECONDS)
    meter.timer.stop()
    return meter, drawn, window


async def _baseline(root: Path, kind: str) -> tuple[_StallMeter, float, MapWindow]:
    from app.gui.map.map_data import load_map_data, prepare_drawing
    from app.gui.map.map_window import MapWindow

    window = MapWindow(None, root)
    window.resize(1360, 900)
    meter = _StallMeter()
    started = time.perf_counter()
    window.data = await asyncio.to_thread(load_map_data, kind, root)     # read off the GUI thread, as ours
    window.show()
    window.pages.setCurrentIndex(0)
    window.view.draw_now(prepare_drawing(window.data.graph, APP))        # layout, pictures, items: one call
    drawn = (time.perf_counter() - started) * 1000
    await asyncio.sleep(SETTLE_SECONDS)
    meter.timer.stop()
    return meter, drawn, window


async def _close(window) -> None:
    await window.shutdown()
    window.close()
    window.deleteLater()
    await asyncio.sleep(0.05)


def _fitted_repaint_ms(window) -> float:
    """One repaint of the whole map fitted in the window (every card in view)."""
    window.view.fit()
    viewport = window.view.viewport()
    viewport.repaint()
    started = time.perf_counter()
    viewport.repaint()
    return (time.perf_counter() - started) * 1000


class _CollectorPauses:
    """The longest pause of Python's full (oldest generation) garbage collection while it is installed."""

    def __init__(self) -> None:
        self.worst = 0.0
        self._began = 0.0

    def __call__(self, phase: str, info: dict) -> None:
        if info.get("generation") != 2:
            return
        if phase == "start":
            self._began = time.perf_counter()
        else:
            self.worst = max(self.worst, (time.perf_counter() - self._began) * 1000)

    def __enter__(self) -> _CollectorPauses:
        gc.callbacks.append(self)
        return self

    def __exit__(self, *_) -> None:
        gc.callbacks.remove(self)


async def _series(root: Path, kind: str, rounds: int) -> dict[str, list]:
    """`rounds` openings of ours and of the baseline, alternating which goes first."""
    found: dict[str, list] = {"ours": [], "baseline": [], "drawn": [], "baseline drawn": [], "repaint": [],
                              "counts": [], "collector": []}
    for index in range(rounds):
        for which in (("ours", "baseline") if index % 2 == 0 else ("baseline", "ours")):
            with _CollectorPauses() as pauses:
                meter, took, window = await (_ours if which == "ours" else _baseline)(root, kind)
            found[which].append(meter)
            found["drawn" if which == "ours" else "baseline drawn"].append(took)
            if which == "ours":
                found["collector"].append(pauses.worst)
                found["repaint"].append(_fitted_repaint_ms(window))
                found["counts"].append((len(window.view.cards), len(window.view.arrows)))
            await _close(window)
    return found


async def _measure(root: Path, kind: str, rounds: int, table: BenchTable, screens: int) -> None:
    from app.gui.event_loop import keep_startup_objects_out_of_collections
    from app.gui.map.map_data import app_arrows, load_map_data
    from app.gui.map.map_layout import layout_map

    for warm_up in (_ours, _baseline):      # fonts, styles and glyphs load once per process (in the app the
        await _close((await warm_up(root, kind))[2])     # main window has loaded them): not measured
    unfrozen = await _series(root, kind, rounds)
    keep_startup_objects_out_of_collections()      # as the app does once its window has started
    try:
        found = await _series(root, kind, rounds)
    finally:
        gc.unfreeze()
    graph = (await asyncio.to_thread(load_map_data, kind, root)).graph
    arrows = app_arrows(graph, APP)
    ids = [node.id for node in graph.app_nodes(APP)]
    timings = []
    for _ in range(3):
        started = time.perf_counter()
        layout_map(ids, [(a.from_id, a.to_id) for a in arrows], graph.entry(APP))
        timings.append((time.perf_counter() - started) * 1000)

    median, name = statistics.median, "all on the GUI thread in one call"
    column = table.columns[0]
    ours, baseline = found["ours"], found["baseline"]
    table.put(column, f"longest event-loop stall while the map of {screens} screens loads and draws (median)",
              median(m.worst for m in ours), median(m.worst for m in baseline), baseline_name=name,
              budget=STALL_BUDGET_MS)
    table.put(column, "longest event-loop stall, worst round", max(m.worst for m in ours),
              max(m.worst for m in baseline), baseline_name=name)
    table.put(column, "longest full garbage collection of the process while drawing (all threads wait)",
              median(found["collector"]))
    table.put(column, "longest event-loop stall without the startup objects frozen (gc.freeze off, median)",
              median(m.worst for m in unfrozen["ours"]), median(m.worst for m in unfrozen["baseline"]),
              baseline_name=name)
    table.put(column, "of which: longest full garbage collection with gc.freeze off", median(unfrozen["collector"]))
    table.put(column, "event-loop stalls over 16 ms (one frame) while drawing", median(m.over_a_frame for m in ours),
              median(m.over_a_frame for m in baseline), unit="times", baseline_name=name)
    table.put(column, "time until the map is fully drawn (median)", median(found["drawn"]),
              median(found["baseline drawn"]), baseline_name=name)
    table.put(column, f"layout of {screens} screens (networkx; a worker thread in ours)", median(timings),
              budget=LAYOUT_BUDGET_MS)
    table.put(column, "one repaint of the whole map fitted in the window", median(found["repaint"]))
    cards, arrow_count = found["counts"][-1]
    table.put(column, "screens drawn (cards)", cards, unit="times")
    table.put(column, "arrows drawn (one per pair of screens)", arrow_count, unit="times")
    table.notes.append("Longest stall of each round, ours: " + ", ".join(f"{m.worst:.1f}" for m in ours)
                       + " ms; baseline: " + ", ".join(f"{m.worst:.1f}" for m in baseline) + " ms; with gc.freeze "
                       "off, ours: " + ", ".join(f"{m.worst:.1f}" for m in unfrozen["ours"]) + " ms.")
    table.notes.append("A full garbage collection walks every object of the process (~95,000 here, once the GUI, "
                       "networkx and the agent's modules are loaded) while holding the GIL: the GUI thread waits "
                       "for it whichever thread set it off. Loading a large map makes enough objects to set one "
                       "off. The app freezes its startup objects once its window has started (gc.freeze), so later "
                       "collections walk only newer objects; the bench does the same before the rows above, and "
                       "measures the unfrozen process too.")


def run_map_bench(rounds: int = ROUNDS, screens: int = SCREENS, actions: int = ACTIONS) -> BenchTable:
    """`rounds` openings of the Map window on a synthetic app of `screens` screens, ours and the baseline's."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import qasync
    from PySide6.QtWidgets import QApplication

    from app.gui.event_loop import prepare_gui_loop

    rounds = max(1, rounds)
    table = BenchTable(f"agentdesk bench map — Map of screens window 1360x900 offscreen, one app of {screens} "
                       f"screens (~{actions} actions each, with pictures), {rounds} + {rounds} interleaved openings",
                       ["value"])
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication), "the window needs a QApplication, not a QCoreApplication"
    app.setQuitOnLastWindowClosed(False)
    with tempfile.TemporaryDirectory(prefix="agentdesk-map-bench-") as folder:
        root = Path(folder) / "graph"
        started = time.perf_counter()
        kind = write_synthetic_map(root, screens, actions)
        written = time.perf_counter() - started

        async def main() -> None:
            prepare_gui_loop(asyncio.get_running_loop())
            await _measure(root, kind, rounds, table, screens)
        qasync.run(main())
    table.notes.append(f"The synthetic map (transitions, cards and {screens} pictures) was written in "
                       f"{written:.1f} s with the stores runs use. One opening of each, not measured, loads fonts "
                       "and styles first (the app's main window has loaded them before the map opens). A 5 ms "
                       f"QTimer measures the GUI loop from the window's showing until {SETTLE_SECONDS:g} s after "
                       "the last item was added.")
    return table
