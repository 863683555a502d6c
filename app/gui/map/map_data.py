"""What the Map window shows, read and prepared in a worker thread: the graph of one phone kind, the runs
that can be played over it, and one app's drawing (layout, arrows in words, pictures as QImages).

Everything here is blocking and never touches a widget (a QImage may be made off the GUI thread; a
QPixmap may not): the window calls it through `asyncio.to_thread` and draws the result in small pieces.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from app.core.learning.screen_cards import app_label
from app.core.learning.screen_graph import ANYWHERE, GraphEdge, ScreenGraph, ScreenNode, load_graph

from .map_layout import PICTURE_HEIGHT, PICTURE_WIDTH, MapLayout, layout_map

MORE_ACTIONS = " (+{} more)"
CONTROL_NUMBER = re.compile(r"\s*\(#\d+\)$")
"""The control's number at the end of a recorded action's words: "Tap “Wi‑Fi” (#3)"."""


# ---------------------------------------------------------------------------- words


def kind_words(kind: str) -> str:
    """"Pixel 7, Android 14" for the phone kind `pixel-7-android-14`."""
    model, _, version = kind.rpartition("-android-")
    if not model:
        return kind
    model = model.replace("-", " ").strip()
    model = model[:1].upper() + model[1:]
    return f"{model}, Android {version.replace('-', '.')}"


def reliability_words(edge: GraphEdge) -> str:
    """"led here 5 of 6 times" (of the latest tries of its action), or why it cannot be judged."""
    if not edge.attempts:
        return "not tried on this version yet" if edge.stale else "not tried lately"
    return f"led here {edge.arrivals} of {edge.attempts} time{'s' if edge.attempts != 1 else ''}"


def time_words(milliseconds: float) -> str:
    """"about 350 ms", "about 1.2 s"."""
    if milliseconds <= 0:
        return "–"
    if milliseconds < 1:
        return "under 1 ms"
    if milliseconds < 1000:
        return f"about {milliseconds:.0f} ms"
    return f"about {milliseconds / 1000:.1f} s"


def times_words(count: int) -> str:
    return "once" if count == 1 else "twice" if count == 2 else f"{count} times"


def seen_words(node: ScreenNode) -> str:
    runs = f"in {node.runs} run{'s' if node.runs != 1 else ''}"
    return f"Seen {times_words(node.seen)} {runs}."


def way_words(edge: GraphEdge) -> str:
    """What a person would call the action: the recorded words ("Tap “Wi‑Fi”", without the control's number,
    which holds for one screen reading only), else its function."""
    return CONTROL_NUMBER.sub("", edge.action_text) or edge.function.replace("_", " ") or edge.action_key


# ---------------------------------------------------------------------------- the graph and its runs


@dataclass
class PathStep:
    """One step of a past run as a move on the map (node ids; None where the map does not know the screen)."""

    step: int
    from_id: str | None
    to_id: str | None
    action_text: str


@dataclass
class RunPath:
    run_id: str
    started: str
    steps: list[PathStep] = field(default_factory=list)
    label: str = ""
    request: str = ""

    def screens(self) -> list[str | None]:
        """The screens the run went through, in order (its first screen, then where each step led)."""
        if not self.steps:
            return []
        return [self.steps[0].from_id] + [step.to_id for step in self.steps]


@dataclass
class MapData:
    kind: str
    graph: ScreenGraph
    runs: list[RunPath] = field(default_factory=list)     # newest first
    problems: list[str] = field(default_factory=list)


def load_map_data(kind: str, root: Path | None = None) -> MapData:
    """One phone kind's graph and the runs recorded on it (blocking). Never raises for a broken file."""
    graph = load_graph(kind, root)
    by_run: dict[str, list] = {}
    for transition in graph.transitions:
        if transition.run_id:
            by_run.setdefault(transition.run_id, []).append(transition)
    runs = []
    for run_id, moves in by_run.items():
        moves.sort(key=lambda move: (move.step, move.at))
        steps = [PathStep(move.step, graph.resolve(move.from_screen), graph.resolve(move.to_screen),
                          CONTROL_NUMBER.sub("", move.action_text) or move.function.replace("_", " "))
                 for move in moves]
        runs.append(RunPath(run_id, min((move.at for move in moves if move.at), default=""), steps,
                            request=next((move.request for move in moves if move.request), "")))
    runs.sort(key=lambda run: (run.started, run.run_id), reverse=True)
    for run in runs:
        run.label = run_label(run, graph)
    return MapData(kind, graph, runs, list(graph.problems))


def run_label(run: RunPath, graph: ScreenGraph) -> str:
    """"2026-11-21 09:41 · “Turn on Wi‑Fi” · 5 steps · Settings → Wi‑Fi"."""
    try:
        when = datetime.fromisoformat(run.started).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        when = run.run_id
    names = [graph.nodes[screen].name for screen in run.screens() if screen in graph.nodes]
    way = f" · {names[0]} → {names[-1]}" if len(names) > 1 else f" · {names[0]}" if names else ""
    asked = f" · “{run.request if len(run.request) <= 40 else run.request[:39] + '…'}”" if run.request else ""
    return f"{when}{asked} · {len(run.steps)} step{'s' if len(run.steps) != 1 else ''}{way}"


# ---------------------------------------------------------------------------- one app's drawing


@dataclass
class Arrow:
    """The one arrow between two screens: every action known to lead from one to the other."""

    from_id: str
    to_id: str
    edges: list[GraphEdge]

    @property
    def best(self) -> GraphEdge:
        return max(self.edges, key=lambda edge: (edge.usable, edge.reliability, edge.count, edge.action_key))

    @property
    def words(self) -> str:
        return way_words(self.best)

    @property
    def more(self) -> str:
        """" (+2 more)" when other actions lead the same way too."""
        extra = len(self.edges) - 1
        return MORE_ACTIONS.format(extra) if extra else ""

    @property
    def label(self) -> str:
        return self.words + self.more

    @property
    def style(self) -> str:
        """"normal"; "faded" when every action of it keeps failing; "stale" when all were seen only on
        another version of the app."""
        if all(edge.stale for edge in self.edges):
            return "stale"
        if all(edge.faded or edge.stale for edge in self.edges):
            return "faded"
        return "normal"

    def tooltip(self, graph: ScreenGraph) -> str:
        lines = [f"{graph.nodes[self.from_id].name} → {graph.nodes[self.to_id].name}"]
        for edge in sorted(self.edges, key=lambda edge: (-edge.reliability, -edge.count)):
            note = " (keeps failing: not used for routes)" if edge.faded else \
                " (seen on another version of the app)" if edge.stale else ""
            lines.append(f"• {way_words(edge)}: {reliability_words(edge)}, {time_words(edge.median_ms)}{note}")
        return "\n".join(lines)


@dataclass
class MapDrawing:
    """Everything needed to draw one app's map, made off the GUI thread."""

    kind: str
    app: str
    screens: list[ScreenNode]
    arrows: list[Arrow]
    layout: MapLayout
    entry: str | None
    pictures: dict[str, QImage] = field(default_factory=dict)
    tooltips: dict[tuple[str, str], str] = field(default_factory=dict)

    @property
    def title(self) -> str:
        return app_label(self.app)


def app_arrows(graph: ScreenGraph, app: str) -> list[Arrow]:
    """One arrow per pair of different screens of the app that an action joins (launches and actions
    that stay on their screen are not arrows)."""
    grouped: dict[tuple[str, str], list[GraphEdge]] = {}
    for edge in graph.app_edges(app):
        if edge.from_id != ANYWHERE and edge.from_id != edge.to_id:
            grouped.setdefault((edge.from_id, edge.to_id), []).append(edge)
    return [Arrow(a, b, edges) for (a, b), edges in grouped.items()]


def load_picture(path: Path | None) -> QImage | None:
    """The screen's small PNG, scaled to fit a card's picture box; None when there is none or it is broken."""
    if path is None:
        return None
    image = QImage(str(path))
    if image.isNull():
        return None
    return image.scaled(int(PICTURE_WIDTH), int(PICTURE_HEIGHT), Qt.AspectRatioMode.KeepAspectRatio,
                        Qt.TransformationMode.SmoothTransformation).convertToFormat(
        QImage.Format.Format_ARGB32_Premultiplied)


def prepare_drawing(graph: ScreenGraph, app: str, pictures: bool = True) -> MapDrawing:
    """The app's screens laid out, its arrows grouped and described, its pictures read (blocking)."""
    screens = sorted(graph.app_nodes(app), key=lambda node: (-node.seen, node.id))
    arrows = app_arrows(graph, app)
    entry = graph.entry(app)
    layout = layout_map([node.id for node in screens], [(arrow.from_id, arrow.to_id) for arrow in arrows], entry)
    drawing = MapDrawing(graph.kind, app, screens, arrows, layout, entry)
    drawing.tooltips = {(arrow.from_id, arrow.to_id): arrow.tooltip(graph) for arrow in arrows}
    if pictures:
        for node in screens:
            image = load_picture(node.picture)
            if image is not None:
                drawing.pictures[node.id] = image
    return drawing
