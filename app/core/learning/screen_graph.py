"""Seed 003's work graph, read from the recorded transitions: screens as nodes, actions as edges.

`load_graph(kind)` builds a `ScreenGraph` for one phone kind (model and Android version) from
the transitions file, the screens' cards and pictures, and the person's edits (names, merges):

- **Nodes** are stable screen signatures (screens that differ only by changing content already
  share one), drawn as their representative when a person merged several; each has a name —
  the person's, else the screen's title, else its activity — how often it was seen and in how many
  runs, and its card (controls) and picture when one was written.
- **Edges** are actions (`Transition.action_key`: the function and the control's locator) from
  one screen to another, with their count, median time, and *reliability*: of the latest
  `RECENT_ATTEMPTS` times that action was taken on that screen, the share that worked and led
  there. An edge whose reliability fell below `FADED_BELOW` is *faded*: drawn pale, never routed.
  `launch_app` edges lead to an app's entry screen from anywhere.
- **Layers**: an app's screens and edges are judged in the app's current version (the phone's,
  when known, else the newest recorded). What was recorded only on another version is *stale*:
  drawn, but not trusted for routes until a run confirms it on this version.

`route(start, goal)` is the most reliable short way along usable edges (networkx's Dijkstra);
`place(node)` says where a screen is ("Settings › Network & internet") along the way from its
app's entry screen.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import networkx

from app.core.paths import data_dir
from app.core.perception.locator import TargetLocator

from .map_edits import MapEdits, MapEditsStore
from .recorded_steps import OLD_CONTROL_NUMBER
from .screen_cards import SEPARATOR, CardStore, ScreenCard, app_label
from .screen_signature import short_activity
from .transitions import Transition, TransitionStore

RECENT_ATTEMPTS = 6
"""An edge is judged on the latest this-many times its action was taken on its screen."""

FADED_BELOW = 0.5
"""An edge whose reliability is below this (after at least MIN_ATTEMPTS_TO_FADE tries) is faded."""

MIN_ATTEMPTS_TO_FADE = 2

GONE_AFTER = 4
"""An edge whose action has led elsewhere (or nowhere) this many times in a row since it last led here is faded."""

ANYWHERE = "*anywhere*"
"""The route's start for `launch_app` edges: an app can be opened from any screen."""

LAUNCH = "launch_app"

HOME_SCREEN = "Home screen"


def is_launcher(package: str) -> bool:
    return "launcher" in package.casefold()


@dataclass
class ScreenNode:
    """One screen of the map."""

    id: str                                    # the representative signature id
    app: str
    activity: str = ""
    title: str = ""
    person_name: str = ""                      # the name a person gave it ("" none)
    members: list[str] = field(default_factory=list)    # every signature drawn as this node
    seen: int = 0                              # times an action reached or left it
    runs: int = 0
    card: ScreenCard | None = None
    picture: Path | None = None
    stale: bool = False                        # seen only on another version of its app
    entry: bool = False                        # where opening its app leads

    @property
    def auto_name(self) -> str:
        """The screen's title, else its activity's own name, else its app's name ("Home screen" for a launcher)."""
        if is_launcher(self.app):
            return HOME_SCREEN
        activity = short_activity(self.app, self.activity).rsplit(".", 1)[-1].split("$", 1)[0]
        return self.title or activity or app_label(self.app)

    @property
    def name(self) -> str:
        return self.person_name or self.auto_name


@dataclass
class GraphEdge:
    """One known action from a screen to another (or the same) screen."""

    from_id: str                               # ANYWHERE for an app's launch
    to_id: str
    action_key: str
    action: dict[str, Any] = field(default_factory=dict)     # the latest recorded {"function", "arguments"}
    locator: TargetLocator | None = None
    action_text: str = ""
    count: int = 0                             # every time it was taken (this layer)
    attempts: int = 0                          # recent times its action was taken on its screen
    arrivals: int = 0                          # of those, how many worked and led here
    failures: int = 0                          # of those, how many failed or changed nothing
    since_arrival: int = 0                     # its action's tries on its screen since it last led here
    median_ms: float = 0.0
    stale: bool = False
    runs: list[str] = field(default_factory=list)
    imported: bool = False                     # known only from an imported map: no run here took it

    @property
    def function(self) -> str:
        return str(self.action.get("function") or "")

    @property
    def words(self) -> str:
        """The action in words, without the control number it had on the screen it was recorded on."""
        return OLD_CONTROL_NUMBER.sub("", self.action_text) or self.action_key

    @property
    def reliability(self) -> float:
        """How often the action works when it is tried: arrivals against failures. Tries that led to another
        screen do not count against it (a page may open in two looks: Wi‑Fi on and off)."""
        tried = self.arrivals + self.failures
        return self.arrivals / tried if tried else 0.0

    @property
    def share(self) -> float:
        """Of the recent tries of its action on its screen, the share that led here."""
        return self.arrivals / self.attempts if self.attempts else 0.0

    @property
    def faded(self) -> bool:
        """It keeps failing, or its action has led elsewhere every time lately."""
        failing = self.arrivals + self.failures >= MIN_ATTEMPTS_TO_FADE and self.reliability < FADED_BELOW
        return failing or self.since_arrival >= GONE_AFTER

    @property
    def usable(self) -> bool:
        """Trusted for a route: not faded, not stale, and it has worked at least once lately."""
        return not self.faded and not self.stale and self.arrivals > 0

    @property
    def weight(self) -> float:
        """A route's cost of this step: one step, more when it sometimes fails, a little more when slow."""
        return (1.0 + 3.0 * (1.0 - self.reliability) + (1.0 - self.share)
                + min(self.median_ms, 10_000.0) / 10_000.0)


@dataclass
class ScreenGraph:
    kind: str
    nodes: dict[str, ScreenNode] = field(default_factory=dict)
    edges: list[GraphEdge] = field(default_factory=list)
    versions: dict[str, str] = field(default_factory=dict)      # app → the version its layer is
    edits: MapEdits = field(default_factory=MapEdits)
    problems: list[str] = field(default_factory=list)
    transitions: list[Transition] = field(default_factory=list, repr=False, compare=False)   # built from, by time
    _routing: Any = field(default=None, repr=False)

    # ------------------------------------------------------------------ reading

    def resolve(self, screen_id: str) -> str | None:
        """The node a signature is drawn as, or None when the map does not know it."""
        node = self.edits.representative(screen_id) if screen_id else ""
        return node if node in self.nodes else None

    def apps(self) -> list[str]:
        """The apps with screens on the map, most screens first."""
        counts: dict[str, int] = {}
        for node in self.nodes.values():
            counts[node.app] = counts.get(node.app, 0) + 1
        return sorted(counts, key=lambda app: (-counts[app], app))

    def app_nodes(self, app: str) -> list[ScreenNode]:
        return [node for node in self.nodes.values() if node.app == app]

    def app_edges(self, app: str) -> list[GraphEdge]:
        """The edges between the app's screens, and the launches into them."""
        ids = {node.id for node in self.app_nodes(app)}
        return [edge for edge in self.edges if edge.to_id in ids and (edge.from_id in ids or edge.from_id == ANYWHERE)]

    def entry(self, app: str) -> str | None:
        """The app's entry screen: where launching it led most often; else its screen nothing leads to that
        leads most places; else its most seen."""
        launches = [edge for edge in self.edges if edge.from_id == ANYWHERE and self.nodes[edge.to_id].app == app]
        if launches:
            return max(launches, key=lambda edge: (edge.arrivals, edge.count)).to_id
        nodes = self.app_nodes(app)
        if not nodes:
            return None
        reached = {edge.to_id for edge in self.edges if edge.from_id != edge.to_id}
        leaving: dict[str, int] = {}
        for edge in self.edges:
            leaving[edge.from_id] = leaving.get(edge.from_id, 0) + 1
        return max(nodes, key=lambda node: (node.id not in reached, leaving.get(node.id, 0), node.seen, node.id)).id

    def outgoing(self, node_id: str, usable_only: bool = False) -> list[GraphEdge]:
        """The actions known to leave `node_id` for another screen, most reliable first."""
        edges = [edge for edge in self.edges if edge.from_id == node_id and edge.to_id != node_id
                 and (edge.usable or not usable_only)]
        return sorted(edges, key=lambda edge: (-edge.reliability, -edge.count, edge.action_key))

    # ------------------------------------------------------------------ routes

    def _graph(self) -> networkx.DiGraph:
        if self._routing is None:
            routing: networkx.DiGraph[str] = networkx.DiGraph()
            for edge in self.edges:
                if not edge.usable or edge.from_id == edge.to_id:
                    continue
                held = routing.get_edge_data(edge.from_id, edge.to_id)
                if held is None or edge.weight < held["weight"]:
                    routing.add_edge(edge.from_id, edge.to_id, weight=edge.weight, edge=edge)
            self._routing = routing
        return self._routing

    def route(self, start: str | None, goal: str) -> list[GraphEdge] | None:
        """The best way from `start` (a node id; None: a screen the map does not know) to `goal` along
        usable edges — a launch first when that is shorter or the only way — or None when there is none.
        [] when `start` is `goal`."""
        if start is not None and start == goal:
            return []
        routing = self._graph()
        if goal not in routing:
            return None
        best: tuple[float, list[str]] | None = None
        starts = ([start] if start is not None and start in routing else []) + [ANYWHERE]
        for origin in starts:
            if origin not in routing:
                continue
            try:
                # with a target it returns (cost, path); the stubs do not overload on the target
                cost, path = cast(tuple[float, list[str]],
                                  networkx.single_source_dijkstra(routing, origin, goal, weight="weight"))
            except networkx.NetworkXNoPath:
                continue
            if best is None or cost < best[0]:
                best = (cost, path)
        if best is None:
            return None
        path = best[1]
        return [routing.edges[a, b]["edge"] for a, b in zip(path, path[1:], strict=False)]

    def destinations(self, start: str | None) -> list[tuple[ScreenNode, list[GraphEdge]]]:
        """Every screen reachable from `start` by usable edges, with its route, the nearest first."""
        routing = self._graph()
        found: dict[str, tuple[float, list[str]]] = {}
        for origin in ([start] if start is not None and start in routing else []) + [ANYWHERE]:
            if origin not in routing:
                continue
            costs, paths = cast(tuple[dict[str, float], dict[str, list[str]]],      # without a target: every node's
                                networkx.single_source_dijkstra(routing, origin, weight="weight"))
            for node, cost in costs.items():
                if node in (ANYWHERE, start) or node not in self.nodes:
                    continue
                if node not in found or cost < found[node][0]:
                    found[node] = (cost, paths[node])
        ordered = sorted(found.items(), key=lambda item: (item[1][0], self.nodes[item[0]].name))
        return [(self.nodes[node], [routing.edges[a, b]["edge"] for a, b in zip(path, path[1:], strict=False)])
                for node, (_, path) in ordered]

    def place(self, node_id: str) -> str:
        """Where the screen is, as a person says it: its app's name, then the screens on the way from the
        app's entry ("Settings › Network & internet › Internet")."""
        node = self.nodes.get(node_id)
        if node is None:
            return ""
        parts = [HOME_SCREEN if is_launcher(node.app) else app_label(node.app)]
        entry = self.entry(node.app)
        way: list[str] = [node_id]
        if entry is not None and entry != node_id:
            try:
                way = networkx.shortest_path(self._whole(), entry, node_id)
            except (networkx.NetworkXNoPath, networkx.NodeNotFound):
                way = [node_id]
        for step in way:
            name = self.nodes[step].name
            if name and name.casefold() != parts[-1].casefold():
                parts.append(name)
        return SEPARATOR.join(parts)

    def _whole(self) -> networkx.DiGraph:
        whole: networkx.DiGraph[str] = networkx.DiGraph()
        whole.add_nodes_from(self.nodes)
        whole.add_edges_from((edge.from_id, edge.to_id) for edge in self.edges
                             if edge.from_id in self.nodes and not edge.faded)
        return whole


# ---------------------------------------------------------------------------- building


def current_versions(transitions: list[Transition]) -> dict[str, str]:
    """Each app's newest recorded version (by the time of the step that recorded it)."""
    newest: dict[str, tuple[str, str]] = {}
    for transition in transitions:
        if transition.app and transition.app_version:
            held = newest.get(transition.app)
            if held is None or transition.at >= held[0]:
                newest[transition.app] = (transition.at, transition.app_version)
    return {app: version for app, (_, version) in newest.items()}


def build_graph(kind: str, transitions: list[Transition], edits: MapEdits | None = None,
                cards: CardStore | None = None, versions: dict[str, str] | None = None) -> ScreenGraph:
    """The graph of `transitions` (one phone kind's, in time order); see the module's docstring."""
    edits = edits or MapEdits()
    layer = {**current_versions(transitions), **(versions or {})}

    def current(transition: Transition) -> bool:
        wanted = layer.get(transition.app, "")
        return not wanted or not transition.app_version or transition.app_version == wanted

    graph = ScreenGraph(kind, versions=layer, edits=edits, problems=list(edits.problems), transitions=transitions)
    runs: dict[str, set[str]] = {}
    fresh: set[str] = set()

    def node(screen_id: str, activity: str, app: str, transition: Transition) -> str:
        rep = edits.representative(screen_id)
        held = graph.nodes.get(rep)
        if held is None:
            held = graph.nodes[rep] = ScreenNode(rep, app or rep.split("/", 1)[0], activity)
        held.activity = held.activity or activity
        if screen_id not in held.members:
            held.members.append(screen_id)
        held.seen += 1
        runs.setdefault(rep, set()).add(transition.run_id)
        if current(transition):
            fresh.add(rep)
        return rep

    grouped: dict[tuple[str, str, str], list[Transition]] = {}
    tries: dict[tuple[str, str], list[Transition]] = {}
    for transition in transitions:
        source = node(transition.from_screen, transition.from_activity, transition.app, transition)
        if not transition.to_screen:
            continue            # the run ended after it: where it led is unknown, so it proves nothing
        target = node(transition.to_screen, transition.to_activity, transition.to_screen.split("/", 1)[0], transition)
        if transition.function == LAUNCH:
            source = ANYWHERE
        grouped.setdefault((source, transition.action_key, target), []).append(transition)
        if current(transition):
            tries.setdefault((source, transition.action_key), []).append(transition)

    for (source, key, target), moves in grouped.items():
        now = [move for move in moves if current(move)]
        used = now or moves
        latest = used[-1]
        every = tries.get((source, key), []) if now else used

        def arrived(move: Transition, target: str = target) -> bool:
            return move.success and edits.representative(move.to_screen) == target

        def failed(move: Transition, target: str = target) -> bool:
            return not move.success or edits.representative(move.to_screen) == edits.representative(
                move.from_screen) != target
        recent = every[-RECENT_ATTEMPTS:]
        arrivals = sum(1 for move in recent if arrived(move))
        last = max((index for index, move in enumerate(every) if arrived(move)), default=-1)
        graph.edges.append(GraphEdge(
            source, target, key, dict(latest.action), latest.locator, latest.action_text, count=len(used),
            attempts=len(recent), arrivals=arrivals, failures=sum(1 for move in recent if failed(move)),
            since_arrival=len(every) - 1 - last,
            median_ms=float(statistics.median(move.duration_ms for move in used)), stale=not now,
            runs=list(dict.fromkeys(move.run_id for move in used)),
            imported=all(move.imported for move in moves)))
    for rep, held in graph.nodes.items():
        held.runs = len(runs.get(rep, ()))
        held.stale = rep not in fresh
        held.person_name = edits.names.get(rep, "")
        if cards is not None:
            held.card = next((card for card in map(cards.read, held.members) if card is not None), None)
            held.picture = next((p for p in map(cards.picture, held.members) if p is not None), None)
            if held.card is not None:
                held.title = held.card.title
    if cards is not None:
        graph.problems += cards.problems
    graph.edges.sort(key=lambda edge: (edge.from_id, edge.to_id, edge.action_key))
    for app in graph.apps():
        entry = graph.entry(app)
        if entry is not None:
            graph.nodes[entry].entry = True
    return graph


def load_graph(kind: str, root: Path | None = None, versions: dict[str, str] | None = None) -> ScreenGraph:
    """One phone kind's graph from the graph folder (blocking: call off the loop), with the transitions it
    read in `transitions` (in time order). Never raises for a broken file: what was wrong is in `problems`."""
    root = Path(root) if root is not None else data_dir() / "graph"
    store = TransitionStore(root)
    transitions, problems = store.read(kind)
    transitions.sort(key=lambda transition: transition.at)          # stable: file order within a moment
    graph = build_graph(kind, transitions, MapEditsStore(root).load(kind), CardStore(root, kind), versions)
    graph.problems = problems + graph.problems
    return graph
