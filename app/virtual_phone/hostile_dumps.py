"""Dumps as hostile apps make them, injected by tests (`Faults.hostile_dumps`).

Real apps put strange things in the accessibility tree: thousands of nodes (a list that
renders every row, a game's text layer), bounds that are negative, inverted or millions of
pixels wide, and controls placed far off the screen (often exactly the ones that say "Pay
now" or hide instructions). The phone still answers with a valid dump; the app must not drown
in it, and nothing outside the screen may become something the model can tap.
"""

from __future__ import annotations

from collections.abc import Iterator
from xml.sax.saxutils import quoteattr

NODE_FLOOD = "node_flood"
ABSURD_BOUNDS = "absurd_bounds"
ENDLESS = "endless"
"""A dump that never ends: the phone keeps sending rows until the reader closes the connection
(served by the shell service as a stream, since a whole answer cannot be built)."""
KINDS = (NODE_FLOOD, ABSURD_BOUNDS, ENDLESS)
FLOOD_NODES = 20_000

OFF_SCREEN_TEXT = "Pay now"
"""The label of the clickable node an absurd-bounds dump hides off the screen."""


def _node(text: str, bounds: str, clickable: bool = True) -> str:
    return (f'<node index="0" text={quoteattr(text)} resource-id="" class="android.widget.Button" '
            f'package="com.hostile.app" content-desc="" checkable="false" checked="false" '
            f'clickable="{str(clickable).lower()}" enabled="true" focusable="true" focused="false" '
            f'scrollable="false" long-clickable="false" password="false" selected="false" bounds="{bounds}" />')


def hostile_dump(xml: str, kind: str) -> str:
    """`xml` (a plain dump) with the hostile part added inside its top-level window."""
    if kind == NODE_FLOOD:
        extra = "".join(_node(f"row {number}", f"[0,{number % 2400}][1080,{number % 2400 + 1}]", False)
                        for number in range(FLOOD_NODES))
    elif kind == ABSURD_BOUNDS:
        extra = "".join((
            _node(OFF_SCREEN_TEXT, "[5000,9000][5400,9200]"),            # wholly off the screen
            _node("Everything", "[-99999999,-99999999][99999999,99999999]"),   # absurdly large
            _node("Inverted", "[900,900][100,100]"),                    # right < left, bottom < top
            _node("Nothing", "[300,300][300,300]"),                     # empty
            _node("Above", "[0,-500][1080,-100]"),                      # above the screen
        ))
    else:
        raise ValueError(f"unknown hostile dump {kind!r}; known: {', '.join(KINDS[:-1])} "
                         f"({ENDLESS} is streamed: see endless_dump)")
    closing = xml.rindex("</node>")     # the top-level window's end
    return xml[:closing] + extra + xml[closing:]


def endless_dump(xml: str) -> Iterator[bytes]:
    """`xml` (a plain dump) up to its top-level window's end, then rows for ever: never `</hierarchy>`."""
    yield xml[:xml.rindex("</node>")].encode("utf-8")
    rows = "".join(_node(f"row {number}", f"[0,{number}][1080,{number + 1}]", False)
                   for number in range(200)).encode("utf-8")
    while True:
        yield rows
