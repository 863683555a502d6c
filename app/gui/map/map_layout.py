"""Where each screen of one app's map goes, and the way each arrow takes between them (no Qt: runs in a thread).

The map reads left to right from the app's entry screen:

- **Layers** are the shortest number of actions from the entry screen (networkx's breadth-first
  lengths); screens no action from the entry reaches form one last layer. A layer is a column, or
  several side by side when it is much taller than the map is wide (a list of 150 settings).
- **Rows**: inside a layer, screens are ordered by the barycentre (mean place) of the screens that
  lead to them in the layer before, then of those they lead to in the layer after (a few sweeps),
  which keeps arrows from crossing. Each screen then sits as near as its order allows to the row of
  the screens leading to it, so most arrows run level. Rows are one grid for the whole map: the gaps
  between rows and between columns are free of cards.
- **Arrows** leave a screen's right side at a port of their own (ports ordered by where they lead, so
  a screen's arrows do not cross each other), run level for the label's length, then curve into the
  next column's screen. An arrow that skips columns, goes back, or stays in its column runs along the
  free gaps instead: down the gap after its column, along the gap between two rows, up the gap before
  its target. No arrow crosses a card.

`layout_map(screens, pairs, entry)` returns a `MapLayout` with every card's top-left corner and every
arrow's route as points (a `Route`), in scene pixels.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field

import networkx

CARD_WIDTH = 150.0
"""A card: its picture (at most PICTURE_WIDTH x PICTURE_HEIGHT) and two lines of its name under it."""
CARD_HEIGHT = 300.0
PICTURE_WIDTH = 130.0
PICTURE_HEIGHT = 240.0
COLUMN_GAP = 250.0
"""Between two columns of cards: an arrow's label, then its curve."""
LABEL_SPACE = 165.0
"""How far an arrow runs level after leaving its screen: the room of its label."""
ROW_GAP = 64.0
"""Between two rows of cards: the lane of arrows that skip columns or go back."""
PORT_TOP = 24.0
"""Where the first port of a card's side is, below its top."""
PORT_STEP = 30.0
"""Between two ports of a card's side (ports share the side's height when there are many)."""
ENTRY_LEAD = 46.0
"""Length of the "opens here" arrow pointing at the entry screen."""
SWEEPS = 4
"""Barycentre sweeps (down then up) when ordering the screens of each column."""
MIN_TALLEST = 8
SHAPE = 0.75
"""A layer of more than max(MIN_TALLEST, √(screens × SHAPE)) screens is wrapped into several columns, which
keeps a large map about as wide as it is tall on screen (its columns are wider apart than its rows)."""

COLUMN_PITCH = CARD_WIDTH + COLUMN_GAP
ROW_PITCH = CARD_HEIGHT + ROW_GAP

Point = tuple[float, float]


@dataclass
class Route:
    """One arrow's way: `points` from its start (a port on the source's side) to its tip (on the target's
    side); `curved` when the middle is a smooth curve (start, end of level run, start of level run, tip),
    else a path of straight segments with rounded corners; `label_at` is the left end of its label's baseline."""

    points: list[Point]
    curved: bool
    label_at: Point


@dataclass
class MapLayout:
    positions: dict[str, Point] = field(default_factory=dict)      # screen id → its card's top-left corner
    layers: dict[str, int] = field(default_factory=dict)          # actions from the entry (last: not reached)
    columns: dict[str, int] = field(default_factory=dict)
    rows: dict[str, int] = field(default_factory=dict)
    routes: dict[tuple[str, str], Route] = field(default_factory=dict)    # (from, to) → its arrow's way
    entry_lead: list[Point] = field(default_factory=list)         # the "opens here" arrow ([] without an entry)
    width: float = 0.0
    height: float = 0.0
    unreachable: list[str] = field(default_factory=list)          # screens the entry does not lead to


def layout_map(screens: list[str], pairs: list[tuple[str, str]], entry: str | None) -> MapLayout:
    """Cards and arrows for `screens` (ids), joined by `pairs` ((from, to): one arrow each), read from `entry`.
    Pairs naming an unknown screen, and a screen's pairs to itself, are left out."""
    known = set(screens)
    pairs = list(dict.fromkeys((a, b) for a, b in pairs if a in known and b in known and a != b))
    graph: networkx.DiGraph[str] = networkx.DiGraph()
    graph.add_nodes_from(screens)
    graph.add_edges_from(pairs)
    layers, unreachable = _layers(graph, screens, entry)
    tallest = max(MIN_TALLEST, math.ceil(math.sqrt(len(screens) * SHAPE)))
    columns, rows = _place(graph, layers, tallest)
    layout = MapLayout(layers=layers, columns=columns, rows=rows, unreachable=unreachable)
    top = min(rows.values(), default=0)
    for screen in screens:
        rows[screen] -= top
        layout.positions[screen] = (ENTRY_LEAD + columns[screen] * COLUMN_PITCH, rows[screen] * ROW_PITCH)
    layout.routes = _routes(pairs, layout)
    points = [point for route in layout.routes.values() for point in route.points]
    xs = [x + CARD_WIDTH for x, _ in layout.positions.values()] + [x for x, _ in points]
    ys = [y + CARD_HEIGHT for _, y in layout.positions.values()] + [y for _, y in points]
    layout.width = max(xs, default=0.0) + 10
    layout.height = max(ys, default=0.0) + 10
    if entry is not None and entry in layout.positions:
        x, y = layout.positions[entry]
        layout.entry_lead = [(x - ENTRY_LEAD + 4, y + CARD_HEIGHT / 2), (x, y + CARD_HEIGHT / 2)]
    return layout


# ---------------------------------------------------------------------------- columns and rows


def _layers(graph: networkx.DiGraph, screens: list[str], entry: str | None) -> tuple[dict[str, int], list[str]]:
    """Each screen's layer: its distance from the entry; the screens it does not reach in one last layer."""
    lengths = dict(networkx.single_source_shortest_path_length(graph, entry)) if entry in graph else {}
    layers = {screen: lengths[screen] for screen in screens if screen in lengths}
    rest = [screen for screen in screens if screen not in lengths]
    last = max(layers.values(), default=-1) + 1
    layers.update((screen, last) for screen in rest)
    return layers, rest


def _place(graph: networkx.DiGraph, layer_of: dict[str, int], tallest: int) -> tuple[dict[str, int], dict[str, int]]:
    """Order each layer by barycentres (sweeps down and up), then give each screen its column and row: a layer
    is one column, or several side by side (filled row by row) when it has more than `tallest` screens; in a
    single column each screen sits on the row nearest its neighbours' that keeps the order."""
    layers: dict[int, list[str]] = {}
    for screen, number in layer_of.items():
        layers.setdefault(number, []).append(screen)
    order = {screen: float(index) for layer in layers.values() for index, screen in enumerate(layer)}
    numbers = sorted(layers)

    def sort_by(layer: list[str], neighbours) -> None:
        keyed = []
        for screen in layer:
            near = neighbours(screen)
            keyed.append((sum(near) / len(near) if near else order[screen], order[screen], screen))
        layer[:] = [screen for _, _, screen in sorted(keyed)]
        for index, screen in enumerate(layer):
            order[screen] = float(index)

    for _ in range(SWEEPS):
        for number in numbers[1:]:               # down: by the screens leading in from the left
            sort_by(layers[number], lambda s, n=number: [order[p] for p in graph.predecessors(s) if layer_of[p] < n]
                    or [order[p] for p in graph.successors(s) if layer_of[p] < n])
        for number in numbers[-2::-1]:           # up: by the screens they lead to on the right
            sort_by(layers[number], lambda s, n=number: [order[p] for p in graph.successors(s) if layer_of[p] > n]
                    or [order[p] for p in graph.predecessors(s) if layer_of[p] > n])
    columns: dict[str, int] = {}
    rows: dict[str, int] = {}
    column = 0
    for number in numbers:
        layer = layers[number]
        wanted = [statistics.median(seen) if (seen := [rows[p] for p in graph.predecessors(screen) if p in rows])
                  else float(index) for index, screen in enumerate(layer)]
        across = math.ceil(len(layer) / tallest)
        if across == 1:
            placed = _ordered_rows(wanted)
        else:                                    # a grid, centred on where the screens leading here are
            middle = statistics.median(wanted) if wanted else 0.0
            top = round(middle - math.ceil(len(layer) / across) / 2)
            placed = [top + index // across for index in range(len(layer))]
        for index, (screen, row) in enumerate(zip(layer, placed, strict=True)):
            columns[screen] = column + (index % across if across > 1 else 0)
            rows[screen] = row
        column += across
    if numbers:                       # the entry column: level with the screens it leads to
        first = layers[numbers[0]]
        if len(first) == 1:
            led = [rows[s] for s in graph.successors(first[0]) if s in rows and s != first[0]]
            if led:
                rows[first[0]] = round(statistics.median(led))
    return columns, rows


def _ordered_rows(wanted: list[float]) -> list[int]:
    """Strictly increasing whole rows, each as near its wanted row as the order allows (isotonic
    regression of wanted[i] - i by pool-adjacent-violators, then back)."""
    blocks: list[list[float]] = []          # [sum, count]
    for index, value in enumerate(wanted):
        blocks.append([value - index, 1.0])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            total, count = blocks.pop()
            blocks[-1][0] += total
            blocks[-1][1] += count
    rows: list[int] = []
    for total, count in blocks:
        level = round(total / count)
        rows.extend([level] * int(count))
    return [level + index for index, level in enumerate(rows)]


# ---------------------------------------------------------------------------- arrows


def _ports(count: int, top: float) -> list[float]:
    """`count` heights along a card's side, from PORT_TOP down, squeezed to fit the picture's height."""
    step = min(PORT_STEP, (PICTURE_HEIGHT - PORT_TOP) / max(count, 1))
    return [top + PORT_TOP + step * (index + 0.5) for index in range(count)]


def _routes(pairs: list[tuple[str, str]], layout: MapLayout) -> dict[tuple[str, str], Route]:
    positions, columns = layout.positions, layout.columns
    leaving: dict[str, list[tuple[str, str]]] = {}
    arriving: dict[str, list[tuple[str, str]]] = {}
    for pair in pairs:
        leaving.setdefault(pair[0], []).append(pair)
        if columns[pair[1]] == columns[pair[0]] + 1:
            arriving.setdefault(pair[1], []).append(pair)
    start: dict[tuple[str, str], float] = {}
    for source, out in leaving.items():
        out.sort(key=lambda pair: (positions[pair[1]][1], positions[pair[1]][0]))
        for pair, y in zip(out, _ports(len(out), positions[source][1]), strict=True):
            start[pair] = y
    end: dict[tuple[str, str], float] = {}
    for target, into in arriving.items():
        into.sort(key=lambda pair: positions[pair[0]][1])
        for pair, y in zip(into, _ports(len(into), positions[target][1]), strict=True):
            end[pair] = y
    routes = {}
    for number, pair in enumerate(pairs):
        source, target = pair
        (sx, sy), (tx, ty) = positions[source], positions[target]
        x0, y0 = sx + CARD_WIDTH, start[pair]
        level = (x0 + LABEL_SPACE, y0)
        label = (x0 + 8, y0 - 5)
        if pair in end:                                    # the next column: a curve through the gap
            routes[pair] = Route([(x0, y0), level, (tx - 12, end[pair]), (tx, end[pair])], True, label)
            continue
        lane = (number * 11) % 44 - 22                    # arrows sharing a gap keep apart a little
        down = ty > sy or (ty == sy and tx < sx)
        corridor = (sy + CARD_HEIGHT + ROW_GAP / 2 if down else sy - ROW_GAP / 2) + lane * 0.5
        out_x = x0 + LABEL_SPACE + 20 + lane
        if columns[target] == columns[source]:             # in its own column: back in on the right side
            tip = (tx + CARD_WIDTH, ty + CARD_HEIGHT * 0.7)
            points = [(x0, y0), (out_x, y0), (out_x, tip[1]), tip]
        else:
            in_x = tx - 24 + lane * 0.5
            tip_y = ty + CARD_HEIGHT * 0.75
            points = [(x0, y0), (out_x, y0), (out_x, corridor), (in_x, corridor), (in_x, tip_y), (tx, tip_y)]
        routes[pair] = Route(points, False, label)
    return routes
