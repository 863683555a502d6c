"""Figures that say how a UI dump is shaped, to set the virtual phone's dumps beside real phones'.

`dump_figures(xml)` reads one `uiautomator dump` (junk before `<?xml` allowed, as `adb shell` output
often has) and counts what a fidelity table compares: top-level nodes, attribute names and their
order, nodes, NAF nodes, zero-size nodes and depth. Standard library only, so a benchmark can call
it without the app.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass

_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")


@dataclass(frozen=True)
class DumpFigures:
    top_level_nodes: int
    attribute_order: tuple[str, ...]   # the most common attribute order, NAF left out
    attribute_orders: int              # how many different orders the nodes use (NAF left out)
    node_count: int
    naf_count: int
    naf_first: bool                    # every NAF attribute is the node's first
    zero_size_nodes: int
    max_depth: int                     # 1 = top-level nodes only


def dump_figures(xml: str | bytes) -> DumpFigures:
    """The figures of one dump; ValueError when it is not a dump."""
    data = xml.encode("utf-8") if isinstance(xml, str) else bytes(xml)
    start = data.find(b"<?xml")
    if start < 0:
        start = data.find(b"<hierarchy")
    if start < 0:
        raise ValueError("no <hierarchy> in the dump")
    try:
        root = ET.fromstring(data[start:])
    except ET.ParseError as e:
        raise ValueError(f"not well-formed XML: {e}") from None
    if root.tag != "hierarchy":
        raise ValueError(f"the document element is <{root.tag}>, not <hierarchy>")
    orders: Counter[tuple[str, ...]] = Counter()
    naf = zero = nodes = depth = 0
    naf_first = True
    stack = [(node, 1) for node in root if node.tag == "node"]
    top = len(stack)
    while stack:
        node, level = stack.pop()
        nodes += 1
        depth = max(depth, level)
        names = list(node.attrib)
        if "NAF" in names:
            naf += 1
            naf_first = naf_first and names[0] == "NAF"
            names.remove("NAF")
        orders[tuple(names)] += 1
        m = _BOUNDS.fullmatch(node.get("bounds", ""))
        if m and (int(m[3]) <= int(m[1]) or int(m[4]) <= int(m[2])):
            zero += 1
        stack.extend((child, level + 1) for child in node if child.tag == "node")
    order = orders.most_common(1)[0][0] if orders else ()
    return DumpFigures(top_level_nodes=top, attribute_order=order, attribute_orders=len(orders), node_count=nodes,
                       naf_count=naf, naf_first=naf_first, zero_size_nodes=zero, max_depth=depth)
