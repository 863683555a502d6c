"""Benchmark tables: one row per figure, one column per phone (quick, realistic, or an attached phone),
with the figure's budget and a baseline measured in the same run next to it."""

from __future__ import annotations

from dataclasses import dataclass, field

# Units whose figures are whole numbers.
_WHOLE_UNITS = frozenset({"tokens", "characters", "nodes", "times"})


def format_number(value: float, unit: str) -> str:
    return f"{value:,.0f}" if unit in _WHOLE_UNITS else f"{value:,.1f}"


def render_grid(header: list[str], body: list[list[str]]) -> str:
    """A Markdown-style table, columns padded to their widest cell."""
    widths = [max(len(str(row[i])) for row in [header, *body]) for i in range(len(header))]

    def line(cells) -> str:
        return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    return "\n".join([line(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *map(line, body)])


@dataclass
class Cell:
    """One figure on one phone: our value and the baseline's, measured in the same run."""

    value: float
    baseline: float | None = None


@dataclass
class Row:
    figure: str
    unit: str = "ms"
    budget: float | None = None
    at_least: bool = False          # the budget is a floor (frames per second), not a ceiling
    baseline_name: str = ""
    cells: dict[str, Cell] = field(default_factory=dict)
    missing: str = ""               # why no column has a value (e.g. "not measured yet (issue 13)")

    def ok(self, column: str) -> bool:
        cell = self.cells.get(column)
        if cell is None or self.budget is None:
            return True
        return cell.value >= self.budget if self.at_least else cell.value <= self.budget

    def ratio(self, column: str) -> float | None:
        """How many times better than the baseline ours is (above 1: ours is better)."""
        cell = self.cells.get(column)
        if cell is None or cell.baseline is None or not cell.value or not cell.baseline:
            return None
        return cell.value / cell.baseline if self.at_least else cell.baseline / cell.value

    def budget_text(self) -> str:
        if self.budget is None:
            return "-"
        return f"{'>=' if self.at_least else '<='} {format_number(self.budget, self.unit)} {self.unit}"


@dataclass
class BenchTable:
    title: str
    columns: list[str] = field(default_factory=lambda: ["value"])
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def row(self, figure: str, **options) -> Row:
        """The row for `figure`, made with `options` (unit, budget, at_least, baseline_name) the first time."""
        for row in self.rows:
            if row.figure == figure:
                return row
        row = Row(figure, **options)
        self.rows.append(row)
        return row

    def put(self, column: str, figure: str, value: float, baseline: float | None = None, **options) -> Row:
        """Record one figure measured on the phone of `column`."""
        if column not in self.columns:
            raise ValueError(f"{column!r} is not a column of this table ({', '.join(self.columns)})")
        row = self.row(figure, **options)
        row.cells[column] = Cell(value, baseline)
        return row

    def not_measured(self, figure: str, why: str, **options) -> Row:
        """A figure with a budget that cannot be measured yet: printed with the reason, never dropped."""
        row = self.row(figure, **options)
        row.missing = why
        return row

    def within_budget(self) -> bool:
        return all(row.ok(column) for row in self.rows for column in self.columns)

    def value(self, figure: str, column: str | None = None) -> float:
        """One figure's value (for tests and callers); the first column by default."""
        row = next(r for r in self.rows if r.figure == figure)
        return row.cells[column or self.columns[0]].value

    def _value_text(self, row: Row, column: str) -> str:
        cell = row.cells.get(column)
        if cell is None:
            return row.missing or "-"
        text = f"{format_number(cell.value, row.unit)} {row.unit}"
        if row.budget is not None:
            text += " ok" if row.ok(column) else " OVER"
        return text

    def _baseline_text(self, row: Row) -> str:
        values = [row.cells[c].baseline if c in row.cells else None for c in self.columns]
        if all(v is None for v in values):
            return "-"
        numbers = " / ".join("-" if v is None else format_number(v, row.unit) for v in values)
        return f"{row.baseline_name}: {numbers} {row.unit}"

    def _ratio_text(self, row: Row) -> str:
        ratios = [row.ratio(c) for c in self.columns]
        if all(r is None for r in ratios):
            return "-"
        return " / ".join("-" if r is None else f"{r:.2f}x" for r in ratios)

    def render(self) -> str:
        header = ["figure", *self.columns, "budget", "baseline" + (" (" + " / ".join(self.columns) + ")"
                                                                   if len(self.columns) > 1 else ""),
                  "ratio vs baseline"]
        body = [[row.figure, *(self._value_text(row, c) for c in self.columns), row.budget_text(),
                 self._baseline_text(row), self._ratio_text(row)] for row in self.rows]
        return "\n".join([self.title, "", render_grid(header, body), "", *self.notes])

    def as_dict(self) -> dict:
        return {"title": self.title, "columns": self.columns, "notes": self.notes,
                "rows": [{"figure": r.figure, "unit": r.unit, "budget": r.budget, "at_least": r.at_least,
                          "baseline_name": r.baseline_name, "missing": r.missing,
                          "cells": {c: {"value": cell.value, "baseline": cell.baseline, "ratio": r.ratio(c),
                                        "ok": r.ok(c)} for c, cell in r.cells.items()}}
                         for r in self.rows]}
