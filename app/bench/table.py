"""A benchmark table: one row per figure, with a baseline and a budget where there is one."""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Callable


def median_ms(fn: Callable[[], object], rounds: int, warmup: int = 1) -> float:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


@dataclass
class Row:
    figure: str
    value: float
    unit: str = "ms"
    baseline: float | None = None
    baseline_name: str = ""
    budget: float | None = None

    @property
    def ratio(self) -> float | None:
        if self.baseline is None or not self.value:
            return None
        return self.baseline / self.value

    @property
    def ok(self) -> bool:
        return self.budget is None or self.value <= self.budget


@dataclass
class BenchTable:
    title: str
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, *args, **kwargs) -> Row:
        row = Row(*args, **kwargs)
        self.rows.append(row)
        return row

    def within_budget(self) -> bool:
        return all(row.ok for row in self.rows)

    def render(self) -> str:
        header = ("figure", "value", "baseline", "speed-up", "budget", "")
        body = []
        for row in self.rows:
            value = f"{row.value:,.1f} {row.unit}"
            baseline = f"{row.baseline:,.1f} {row.unit} ({row.baseline_name})" if row.baseline is not None else "-"
            ratio = f"{row.ratio:.1f}x" if row.ratio is not None else "-"
            budget = f"<= {row.budget:g} {row.unit}" if row.budget is not None else "-"
            verdict = "" if row.budget is None else ("ok" if row.ok else "OVER")
            body.append((row.figure, value, baseline, ratio, budget, verdict))
        widths = [max(len(str(r[i])) for r in [header, *body]) for i in range(len(header))]

        def line(cells):
            return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"

        out = [self.title, "", line(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
        out += [line(r) for r in body]
        out += [""] + self.notes
        return "\n".join(out)

    def as_dict(self) -> dict:
        return {"title": self.title, "notes": self.notes,
                "rows": [{"figure": r.figure, "value": r.value, "unit": r.unit, "baseline": r.baseline,
                          "baseline_name": r.baseline_name, "ratio": r.ratio, "budget": r.budget, "ok": r.ok}
                         for r in self.rows]}
