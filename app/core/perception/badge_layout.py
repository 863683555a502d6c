"""Where each control's numbered badge goes: beside its box, never over the label it numbers.

Shared by the model's annotated image (`annotate.py`, image pixels) and the mirror's overlay
(`mirror_overlay.py`, widget pixels), so both put a badge in the same place. A badge sitting
inside the top-left corner of its box hides the first letters of the control's text ("Thursday"
read as "hursday"), from the person and from the model alike; outside the box it hides nothing.

Spots tried for a box, in order of preference: above it at its left edge, left of it at its top,
above it at its right edge, inside its top-left corner, below it at its left edge, right of it
at its top, inside its other corners (top-right, bottom-left, bottom-right). A spot costs its rank in that order
(SPOT_RANKS: a later spot must buy something), plus:

- PLACED_BADGE for each badge already placed that it overlaps;
- LABELLED_BOX for each other labelled control's box it overlaps (one showing text or a
  content-description: the badge would cover its words), UNLABELLED_BOX for an unlabelled one
  (an icon, the row above: a badge inside another box looks like its number). Boxes that enclose the
  control (a list, a card around it) are not counted: every spot near the control is inside them anyway;
- OWN_LABEL for a spot inside the box of a labelled control (it would hide the first letters).

A badge that still lies over words (a labelled box that does not enclose its control, or its own when
it went inside) is one `labels_covered` reports: the mirror draws it see-through, so the letters under
it stay readable (a list row's first letters under the badge of the row below).

The cheapest spot wins (the earlier on a tie). Spots off the drawing area are not taken; when
none fits, the badge goes to its box's top-left corner pushed inside the area. Boxes and
badges are (left, top, right, bottom) with right and bottom exclusive; the work per badge is a few
lookups in a coarse grid (no pass over every box).
"""

from __future__ import annotations

from collections.abc import Sequence

Box = tuple[float, float, float, float]

PLACED_BADGE = 100
LABELLED_BOX = 20
UNLABELLED_BOX = 3
OWN_LABEL = 20
SPOT_RANKS = (0, 1, 2, 3, 4, 4, 5, 6, 6)
"""The cost of each spot of `_spots` for being where it is (outside above-left is the norm)."""
_INSIDE = (False, False, False, True, False, False, True, True, True)
_CELL = 48.0
"""Grid cell (px) for finding nearby boxes and badges quickly."""


def place_badges(boxes: Sequence[Box], sizes: Sequence[tuple[float, float]], labelled: Sequence[bool],
                 area: Box) -> list[tuple[float, float]]:
    """The top-left corner of each box's badge (badges placed in the order of `boxes`)."""
    grid = _Grid()
    for index, box in enumerate(boxes):
        grid.add_box(index, box)
    corners: list[tuple[float, float]] = []
    for index, (box, (width, height)) in enumerate(zip(boxes, sizes, strict=True)):
        corner = _best_spot(index, box, width, height, labelled, grid, area)
        grid.add_badge((corner[0], corner[1], corner[0] + width, corner[1] + height))
        corners.append(corner)
    return corners


def labels_covered(boxes: Sequence[Box], badges: Sequence[Box], labelled: Sequence[bool]) -> list[bool]:
    """For each control's badge, whether it lies over a labelled box: another's that does not enclose the
    control, or its own. Such a badge may hide the first letters of a label."""
    grid = _Grid()
    for index, box in enumerate(boxes):
        grid.add_box(index, box)
    return [grid.covers_label(badge, index, boxes[index], labelled) for index, badge in enumerate(badges)]


def _spots(box: Box, width: float, height: float) -> tuple[tuple[float, float], ...]:
    left, top, right, bottom = box
    return ((left, top - height), (left - width, top), (right - width, top - height), (left, top),
            (left, bottom), (right, top),
            (right - width, top), (left, bottom - height), (right - width, bottom - height))


def _best_spot(index: int, box: Box, width: float, height: float, labelled: Sequence[bool], grid: _Grid,
               area: Box) -> tuple[float, float]:
    best, best_cost = None, None
    for number, (x, y) in enumerate(_spots(box, width, height)):
        if x < area[0] or y < area[1] or x + width > area[2] or y + height > area[3]:
            continue
        rank = SPOT_RANKS[number]
        if best_cost is not None and best_cost <= rank:
            break                 # no later spot can be cheaper
        cost = rank + (OWN_LABEL if labelled[index] and _INSIDE[number] else 0)
        limit: int | None = None if best_cost is None else best_cost - cost
        if limit is not None and limit <= 0:
            continue
        cost += grid.cost((x, y, x + width, y + height), index, box, labelled, limit)
        if best_cost is None or cost < best_cost:
            best, best_cost = (x, y), cost
    if best is not None:
        return best
    x = min(max(box[0], area[0]), max(area[2] - width, area[0]))
    y = min(max(box[1], area[1]), max(area[3] - height, area[1]))
    return x, y


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _encloses(outer: Box, inner: Box) -> bool:
    return outer[0] <= inner[0] and outer[1] <= inner[1] and inner[2] <= outer[2] and inner[3] <= outer[3]


class _Grid:
    """Boxes and placed badges by coarse cell, so a spot is checked against its neighbours only."""

    def __init__(self) -> None:
        self.boxes: dict[tuple[int, int], list[tuple[int, Box]]] = {}
        self.badges: dict[tuple[int, int], list[Box]] = {}

    @staticmethod
    def _cells(rect: Box) -> list[tuple[int, int]]:
        first_x, last_x = int(rect[0] // _CELL), int((rect[2] - 1e-6) // _CELL)
        first_y, last_y = int(rect[1] // _CELL), int((rect[3] - 1e-6) // _CELL)
        if first_x == last_x and first_y == last_y:
            return [(first_x, first_y)]
        return [(x, y) for x in range(first_x, last_x + 1) for y in range(first_y, last_y + 1)]

    def add_box(self, index: int, box: Box) -> None:
        for cell in self._cells(box):
            self.boxes.setdefault(cell, []).append((index, box))

    def add_badge(self, badge: Box) -> None:
        for cell in self._cells(badge):
            self.badges.setdefault(cell, []).append(badge)

    def cost(self, spot: Box, index: int, own: Box, labelled: Sequence[bool], limit: int | None = None) -> int:
        """What covering the neighbours costs; counting stops once it reaches `limit` (None: no limit)."""
        cells = self._cells(spot)
        cost = 0
        seen_badges: list[Box] = []
        seen_boxes: set[int] = {index}
        for cell in cells:
            for badge in self.badges.get(cell, ()):
                if _overlap(spot, badge) and all(badge is not other for other in seen_badges):
                    seen_badges.append(badge)
                    cost += PLACED_BADGE
            for other, box in self.boxes.get(cell, ()):
                if other in seen_boxes:
                    continue
                seen_boxes.add(other)
                if _overlap(spot, box) and not _encloses(box, own):
                    cost += LABELLED_BOX if labelled[other] else UNLABELLED_BOX
            if limit is not None and cost >= limit:
                return cost
        return cost

    def covers_label(self, badge: Box, index: int, own: Box, labelled: Sequence[bool]) -> bool:
        """Whether `badge` lies over a labelled box (its own included; enclosing ones are not counted)."""
        for cell in self._cells(badge):
            for other, box in self.boxes.get(cell, ()):
                if labelled[other] and _overlap(badge, box) and (other == index or not _encloses(box, own)):
                    return True
        return False
