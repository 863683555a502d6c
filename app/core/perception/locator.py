"""XPath locators that find a control's node again in the dump it came from."""

from __future__ import annotations

LOCATOR_TEXT_LIMIT = 100
"""Longer values are not used in locators (the index path is shorter and as exact)."""

_KEYS = ("resource-id", "text", "content-desc")


class LocatorIndex:
    """Counts attribute values over a whole dump, so a locator only uses unique ones.

    Rules, first match wins:
    1. `//*[@resource-id="…"]` when that resource-id occurs once in the dump;
    2. `//*[@text="…"]` when the text occurs once (never a password's text);
    3. `//*[@content-desc="…"]` when the content-desc occurs once;
    4. the absolute index path `/hierarchy/node[i]/node[j]…` (1-based, as XPath counts).
    Values longer than LOCATOR_TEXT_LIMIT are skipped. Every locator selects exactly
    one `<node>` when evaluated with lxml on the dump.
    """

    def __init__(self) -> None:
        self._counts: dict[str, dict[str, int]] = {key: {} for key in _KEYS}

    def add(self, attributes: dict[str, str]) -> None:
        """Count one node; call it for every node of the dump."""
        for key, table in self._counts.items():
            value = attributes.get(key)
            if value:
                table[value] = table.get(value, 0) + 1

    def locator(self, path: tuple[int, ...], attributes: dict[str, str], *, password: bool) -> str:
        """The locator of the node at `path` (0-based indexes among `<node>` siblings)."""
        for key in _KEYS:
            value = attributes.get(key, "")
            if key == "text" and password:
                continue
            if value and len(value) <= LOCATOR_TEXT_LIMIT and self._counts[key].get(value) == 1:
                return f"//*[@{key}={xpath_literal(value)}]"
        return "/hierarchy" + "".join(f"/node[{index + 1}]" for index in path)


def xpath_literal(value: str) -> str:
    """`value` as an XPath 1.0 string literal (which has no escapes: concat() when needed)."""
    if '"' not in value:
        return f'"{value}"'
    if "'" not in value:
        return f"'{value}'"
    pieces = ", '\"', ".join(f'"{piece}"' for piece in value.split('"'))
    return f"concat({pieces})"
