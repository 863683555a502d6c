"""Trouble a test or a bench injects into the virtual phone, counted: each fault fires for the next N occasions."""

from __future__ import annotations


class CountedFaults:
    """A dataclass of counters (and other settings); `take(name)` consumes one occurrence of a counted fault."""

    def take(self, name: str) -> bool:
        """True when the fault `name` fires now (its counter was above 0, and goes down by one)."""
        count = getattr(self, name)
        if count > 0:
            setattr(self, name, count - 1)
            return True
        return False
