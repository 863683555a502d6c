"""Finding the nodes of one screen by XPath (the inspector's search box, when its text starts with
"/" or "("), evaluated with lxml on the screen's parsed hierarchy.

The tree an XPath sees is the dump as it was parsed: `<hierarchy rotation="…">` with one `<node>`
per window and the nodes' attributes as dumped, so `/hierarchy/node[1]/node[2]` and every locator
`Control.locator` and Copy XPath write find their own node. An XPath never raises here: a bad one
gives a sentence (`XPathFound.error`). A hostile one must not hang the window, and libxml2 cannot be
interrupted, so an expression is looked at before it runs: longer than MAX_EXPRESSION_CHARS, nested
deeper than MAX_NESTING, or whose estimated cost (nodes visited) passes MAX_COST on this screen is
refused with the reason. The cost estimate: a step that may visit the whole tree (an absolute path,
`following::`, `preceding::`, or a descendant step after an ancestor one) inside a predicate
multiplies by the node count, a descendant or ancestor step from the predicate's node by the tree's
depth, a sibling axis by the widest node's child count. Matches are kept up to MAX_RESULTS.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lxml import etree

from app.core.perception.hierarchy import UiHierarchy

MAX_EXPRESSION_CHARS = 600
MAX_NESTING = 12
"""Brackets and parentheses open at once."""
MAX_COST = 3_000_000
"""Nodes an XPath may be estimated to visit (a 1,700-node screen allows one whole-tree path in a predicate)."""
MAX_RESULTS = 500
"""Matches kept (the count says how many there were)."""

_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
_WHOLE_TREE_AXES = ("following::", "preceding::")
_DEPTH_AXES = ("descendant::", "descendant-or-self::", "ancestor::", "ancestor-or-self::")
_SIBLING_AXES = ("following-sibling::", "preceding-sibling::")
_LEAVES_SUBTREE = ("..", "ancestor", "parent::", "following", "preceding", "id(")


def looks_like_xpath(text: str) -> bool:
    """The search box's text is an XPath when it starts with "/" or "(" (`//*[@text="OK"]`, `(//…)[2]`)."""
    return text.lstrip().startswith(("/", "("))


@dataclass(frozen=True)
class XPathFound:
    """What an XPath found: the matched nodes' paths (`UiNode.path`) in document order, at most
    MAX_RESULTS of `total`; or `error`, a sentence saying why nothing was looked for or found."""

    paths: tuple[tuple[int, ...], ...] = ()
    total: int = 0
    error: str = ""

    @property
    def cut(self) -> bool:
        return self.total > len(self.paths)


class XPathScreen:
    """One screen's hierarchy, ready for XPath searches (its lxml tree is built on the first one)."""

    def __init__(self, hierarchy: UiHierarchy) -> None:
        self.hierarchy = hierarchy
        self._tree: etree._ElementTree | None = None
        self._size = (0, 0, 0)          # nodes, depth, widest fan-out

    def _built(self) -> etree._ElementTree:
        if self._tree is None:
            self._tree, self._size = _element_tree(self.hierarchy)
        return self._tree

    def find(self, expression: str) -> XPathFound:
        expression = expression.strip()
        tree = self._built()
        refused = refusal(expression, *self._size)
        if refused:
            return XPathFound(error=refused)
        try:
            compiled = etree.XPath(expression)
        except etree.XPathSyntaxError as error:
            return XPathFound(error=f"Not a valid XPath: {_words(error)}.")
        try:
            result = compiled(tree)
        except etree.XPathError as error:
            return XPathFound(error=f"This XPath cannot be evaluated: {_words(error)}.")
        if not isinstance(result, list):
            kind = ("true or false" if isinstance(result, bool) else "a number" if isinstance(result, float)
                    else "a text")
            return XPathFound(error=f"This XPath gives {_shown(result)} ({kind}), not nodes.")
        paths = sorted({path for path in (_path_of(item) for item in result) if path})
        if not paths and result:
            return XPathFound(error="This XPath finds only the <hierarchy> root, which is no node of the screen.")
        return XPathFound(tuple(paths[:MAX_RESULTS]), len(paths))


def find_by_xpath(hierarchy: UiHierarchy, expression: str) -> XPathFound:
    """`XPathScreen(hierarchy).find(expression)` (builds the tree each call: keep an XPathScreen to search again)."""
    return XPathScreen(hierarchy).find(expression)


# ---------------------------------------------------------------- the tree


def _element_tree(hierarchy: UiHierarchy) -> tuple[etree._ElementTree, tuple[int, int, int]]:
    """The hierarchy as lxml elements, and its size (nodes, depth, widest fan-out) for the cost estimate."""
    root = etree.Element("hierarchy", rotation=str(hierarchy.rotation))
    nodes, depth, fan_out = 0, 1, len(hierarchy.windows)
    stack = [(window, root) for window in reversed(hierarchy.windows)]
    while stack:
        node, parent = stack.pop()
        element = etree.SubElement(parent, "node")
        for name, value in node.attributes.items():
            try:
                element.set(name, value)
            except ValueError:         # a character XML cannot hold (kept by the tolerant parse)
                element.set(name, _XML_ILLEGAL.sub("?", value))
        nodes += 1
        depth = max(depth, len(node.path))
        fan_out = max(fan_out, len(node.children))
        stack.extend((child, element) for child in reversed(node.children))
    return etree.ElementTree(root), (nodes, depth, fan_out)


def _path_of(item) -> tuple[int, ...]:
    """The `UiNode.path` of a result: a node, or the node an attribute or text belongs to (() for the root)."""
    element = item if isinstance(item, etree._Element) else getattr(item, "getparent", lambda: None)()
    if not isinstance(element, etree._Element):
        return ()
    path: list[int] = []
    parent = element.getparent()
    while parent is not None:
        path.append(parent.index(element))
        element, parent = parent, parent.getparent()
    return tuple(reversed(path))


# ---------------------------------------------------------------- what an XPath may cost


def refusal(expression: str, nodes: int, depth: int, fan_out: int) -> str:
    """Why `expression` is not run on a tree of that size, or "" when it may run."""
    if not expression:
        return "Type an XPath, e.g. //*[@text=\"OK\"]."
    if len(expression) > MAX_EXPRESSION_CHARS:
        return f"This XPath is {len(expression)} characters long; the search takes up to {MAX_EXPRESSION_CHARS}."
    levels, nesting, wide_steps = _levels(expression)
    if nesting > MAX_NESTING:
        return f"This XPath nests brackets {nesting} deep; the search takes up to {MAX_NESTING}."
    multiplier = {"tree": max(nodes, 1), "depth": max(depth, 1), "siblings": max(fan_out, 1)}
    cost = max(nodes, 1) * max(wide_steps, 1)
    for kinds in levels:                        # one level's kinds together: ancestor::*//* is depth × tree
        for kind in kinds:
            cost *= multiplier[kind]
    if cost > MAX_COST:
        return (f"This XPath could visit some {cost:,} nodes on this screen of {nodes:,} (paths inside [ ] "
                "multiply), too many to search; narrow it, e.g. with .// instead of // inside [ ].")
    return ""


def _levels(expression: str) -> tuple[list[set[str]], int, int]:
    """The kinds of wide steps at each predicate depth (index 0 = depth 1), the deepest nesting of
    brackets and parentheses, and how many wide steps sit inside predicates."""
    levels: list[set[str]] = []
    opened: list[tuple[str, int]] = []          # (bracket, where its text begins)
    nesting, wide_steps, quote, position = 0, 0, "", 0
    while position < len(expression):
        char = expression[position]
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char in "[(":
            opened.append((char, position + 1))
            nesting = max(nesting, len(opened))
        elif char in "])":
            if opened:
                opened.pop()
        else:
            predicates = [start for bracket, start in opened if bracket == "["]
            kind = _wide_step(expression, position, predicates[-1] if predicates else 0) if predicates else ""
            if kind:
                while len(levels) < len(predicates):
                    levels.append(set())
                levels[len(predicates) - 1].add(kind)
                wide_steps += 1
        position += 1
    return levels, nesting, wide_steps


def _wide_step(expression: str, position: int, predicate_start: int) -> str:
    """The kind of wide step starting at `position` inside a predicate ("tree", "depth", "siblings"), or ""."""
    rest = expression[position:]
    if rest.startswith(_WHOLE_TREE_AXES) and (position == 0 or expression[position - 1] not in "-"):
        return "tree"
    if rest.startswith(_SIBLING_AXES):
        return "siblings"
    if rest.startswith(_DEPTH_AXES) and (position == 0 or not expression[position - 1].isalnum()
                                         and expression[position - 1] != "-"):
        return "depth"
    if rest.startswith("/") and expression[position - 1:position] != "/":
        before = expression[predicate_start:position].rstrip()
        if not before or before[-1] in "[(,=<>!|+" or re.search(r"(^|\s)(and|or|div|mod)$", before):
            return "tree"                        # a path of its own, from the root
        if rest.startswith("//"):                # a path from the predicate's node, on down
            return "tree" if any(mark in before for mark in _LEAVES_SUBTREE) else "depth"
    return ""


def _words(error: Exception) -> str:
    text = str(error).strip() or type(error).__name__
    return text[:1].lower() + text[1:]


def _shown(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    text = str(value)
    return repr(text if len(text) <= 40 else text[:39] + "…")
