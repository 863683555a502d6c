"""Navigation by the map: where the phone is, the known ways on, and going to a known screen.

`MapGuide` holds one phone kind's `ScreenGraph` for a run. Before the model decides a step,
`observe` finds the screen on the map (by its stable signature) and writes the prompt's "map"
section: where the phone is ("Settings › Network & internet"), the actions known to lead on from
here, and the known screens the model may go to with `go_to_screen` — the reachable ones along
usable edges, those whose names share words with the request first.

`way_to` turns the chosen screen's route into a `ReplayScript` that a `ScriptPlayer` walks like a
skill, without the model: each step's control is found again by its locator, and before each step
the phone must show the screen the route expects (`screens_before`); at the end it must show the
destination (`arrival`). At the first surprise — an edge that now leads elsewhere, a control that
is gone — the player hands back to the model, told where it stopped. The steps taken are recorded
as transitions like any other, so an edge that keeps failing loses reliability and fades. A way with
an action known only from an imported map asks before its first step, even in auto mode
(`ReplayScript.approval_needed`); once a run here has taken it, it is this map's own.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .recorded_steps import ExpectedScreen, RecordedStep, ReplayScript
from .screen_cards import app_label
from .screen_graph import ANYWHERE, LAUNCH, GraphEdge, ScreenGraph, load_graph
from .screen_signature import stable_signature
from .transitions import phone_kind

log = logging.getLogger(__name__)

OFFERED_SCREENS = 8
"""Known screens listed for go_to_screen at most."""

WAYS_SHOWN = 5
"""Known ways on from the current screen listed at most."""

_WORD = re.compile(r"[^\W_]+")

COMMON_WORDS = frozenset({"the", "to", "on", "off", "an", "of", "in", "and", "my", "me", "turn", "switch", "open",
                          "set", "please", "phone", "for", "with", "go", "it", "is", "at", "by", "from", "up"})
"""Words of a request that say nothing about which screen it needs."""


def _words(text: str) -> set[str]:
    words = _WORD.findall(text.casefold().replace("‑", "-").replace("-", ""))
    return {word for word in words if len(word) > 1 and word not in COMMON_WORDS}


@dataclass
class Way:
    """A route to a known screen, ready to be walked."""

    name: str                                   # the name the model chose it by
    goal: str                                   # the node id
    edges: list[GraphEdge]


class MapGuide:
    """One run's use of the map (see the module's docstring)."""

    def __init__(self, graph: ScreenGraph, request: str = "") -> None:
        self.graph = graph
        self.request_words = _words(request)
        self.here: str | None = None            # the current screen's node (None: unknown to the map)
        self.here_signature = ""
        self.offered: dict[str, Way] = {}
        self.refused: set[str] = set()          # names whose way could not be taken: not offered again

    @property
    def useful(self) -> bool:
        """Whether the map knows any usable way at all (else it is not worth a prompt section)."""
        return any(edge.usable and edge.from_id != edge.to_id for edge in self.graph.edges)

    def signature(self, foreground: str, activity: str, controls: Sequence) -> str:
        return stable_signature(foreground, activity, controls).id

    def observe(self, foreground: str, activity: str, controls: Sequence) -> str:
        """Find the phone's screen on the map; the prompt's map section (also kept in `offered`)."""
        self.here_signature = self.signature(foreground, activity, controls)
        self.here = self.graph.resolve(self.here_signature)
        graph = self.graph
        lines: list[str] = []
        if self.here is not None:
            lines.append(f"Where you are, by the map of screens earlier runs visited: {graph.place(self.here)}.")
            ways = graph.outgoing(self.here, usable_only=True)[:WAYS_SHOWN]
            if ways:
                lines.append("Known ways on from here:")
                lines += [f"- {edge.words} → {graph.place(edge.to_id)}"
                          f" (led there {edge.arrivals} of the last {edge.attempts} times)" for edge in ways]
        else:
            lines.append(f"Where you are: a screen of {app_label(foreground)} the map of earlier runs does not know "
                         "yet.")
        self.offered = {}
        for node, route in self._ranked(graph.destinations(self.here)):
            name = graph.place(node.id)
            if name in self.offered and route:          # the same place in another state: say how it is reached
                name = f"{name} (after {route[-1].words})"
            if name in self.offered:
                name = f"{name} ({node.id.rsplit('#', 1)[-1][:6]})"
            if name in self.refused:
                continue
            self.offered[name] = Way(name, node.id, route)
        if self.offered:
            lines.append("Known screens you can go to with go_to_screen (the steps are taken for you; you are asked "
                         "again on arrival):")
            lines += [f'- "{name}" ({len(way.edges)} step{"s" if len(way.edges) != 1 else ""})'
                      for name, way in self.offered.items()]
        return "\n".join(lines)

    def _ranked(self, reachable: list) -> list:
        """The reachable screens worth offering: those whose place, name or controls share words with the
        request first ("airplane mode" is a switch on Network & internet), then the nearest."""
        def shared(item) -> int:
            node = item[0]
            labels = " ".join(str(control.name) for control in node.card.controls) if node.card is not None else ""
            return len(self.request_words & _words(f"{self.graph.place(node.id)} {node.name} {labels}"))
        ranked = sorted(reachable, key=lambda item: (-shared(item), len(item[1])))
        return ranked[:OFFERED_SCREENS]

    def offered_names(self) -> dict[str, str]:
        return {name: way.goal for name, way in self.offered.items()}

    def way_to(self, name: str) -> tuple[ReplayScript, list[frozenset[str]], frozenset[str]] | str:
        """The script of the way to the offered screen `name`, the screens expected before each of its
        steps, and the destination's signatures; or why there is none."""
        way = self.offered.get(name)
        if way is None:
            return "it is not one of the known screens listed"
        route = self.graph.route(self.here, way.goal)
        if route is None:
            return "the map no longer knows a working way there"
        if not route:
            return "the phone already shows that screen"
        script = ReplayScript(request=f"go to {name}", source="the map of screens", ended="success")
        before: list[frozenset[str]] = []
        for number, edge in enumerate(route, start=1):
            action = {"function": edge.function, "arguments": dict(edge.action.get("arguments") or {}),
                      "status": "CONTINUE"}
            source = self.graph.nodes.get(edge.from_id)
            script.steps.append(RecordedStep(
                step=number, action=action, action_text=edge.action_text, target=edge.locator,
                screen=ExpectedScreen(package=source.app if source is not None and edge.function != LAUNCH else "")))
            members = frozenset(source.members) if source is not None and edge.from_id != ANYWHERE else frozenset()
            before.append(frozenset() if edge.function == LAUNCH else members)
        if any(edge.imported for edge in route):
            script.approval_needed = (f"the way to “{name}” came from an imported map and no run here has "
                                      "taken it, so you approve its first step")
        goal = self.graph.nodes[way.goal]
        return script, before, frozenset(goal.members)

    def name_of(self, signature: str) -> str:
        """A screen's place on the map by its signature, or "" when the map does not know it."""
        node = self.graph.resolve(signature)
        return self.graph.place(node) if node is not None else ""


async def map_guide(phone: dict, request: str, tell: Callable[[str], None]) -> MapGuide | None:
    """The run's guide from the map of its phone kind (read off the loop), or None when the map knows no
    usable way yet or cannot be read (told, never raised: the run goes on without it)."""
    kind = phone_kind(str(phone.get("model") or ""), str(phone.get("android_version") or ""))
    try:
        graph = await asyncio.to_thread(load_graph, kind)
    except Exception as exc:
        log.warning("the map of %s could not be read: %s", kind, exc)
        tell(f"The map of screens could not be read ({exc}); the model finds its way without it.")
        return None
    guide = MapGuide(graph, request)
    if not guide.useful:
        return None
    screens = len(graph.nodes)
    tell(f"The map of screens earlier runs visited on this kind of phone ({screens} screens) guides the model.")
    return guide
