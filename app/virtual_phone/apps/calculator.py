"""Calculator (com.agentdesk.calculator, a third-party app written with Jetpack Compose): a display,
a key pad and a history panel.

Its dump looks like a Compose app's: one ComposeView, then `android.view.View` nodes that
Compose's accessibility provider reports (drawing order = index), resource-ids only where the app set a
test tag (bare: "formula", "result"), each key a clickable View whose label is its TextView child,
and the history button an icon without a content description, which uiautomator marks NAF.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import partial

from .. import theme
from ..views import BY_COMPOSE, COMPOSE_VIEW, TEXT, VIEW, View
from ..widgets import Ctx, text
from . import CALCULATOR
from .base import App, Screen

MAIN = "com.agentdesk.calculator.MainActivity"
KEYS = [["C", "(", ")", "÷"], ["7", "8", "9", "×"], ["4", "5", "6", "−"], ["1", "2", "3", "+"], ["0", ".", "⌫", "="]]
DESC = {"÷": "divide", "×": "multiply", "−": "minus", "+": "plus", "=": "equals", "⌫": "delete", "C": "clear",
        ".": "point", "(": "left parenthesis", ")": "right parenthesis"}


def evaluate(expr: str) -> str:
    """Evaluate + − × ÷ and parentheses exactly; 'Error' when it is not a valid expression."""
    tokens: list[str] = []
    num = ""
    for ch in expr:
        if ch.isdigit() or ch == ".":
            num += ch
            continue
        if num:
            tokens.append(num)
            num = ""
        tokens.append({"×": "*", "÷": "/", "−": "-"}.get(ch, ch))
    if num:
        tokens.append(num)
    pos = 0

    def peek():
        return tokens[pos] if pos < len(tokens) else None

    def take():
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def atom() -> Fraction:
        tok = peek()
        if tok == "-":
            take()
            return -atom()
        if tok == "(":
            take()
            value = sum_()
            if take() != ")":
                raise ValueError
            return value
        return Fraction(take())

    def product() -> Fraction:
        value = atom()
        while peek() in ("*", "/"):
            op, rhs = take(), atom()
            value = value * rhs if op == "*" else value / rhs
        return value

    def sum_() -> Fraction:
        value = product()
        while peek() in ("+", "-"):
            op, rhs = take(), product()
            value = value + rhs if op == "+" else value - rhs
        return value

    try:
        value = sum_()
        if pos != len(tokens):
            raise ValueError
    except (ValueError, ZeroDivisionError, IndexError, TypeError):
        return "Error"
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):.10g}"


def _tagged(view: View, tag: str) -> View:
    """A Compose node with `Modifier.testTag(tag)` under testTagsAsResourceId: the bare tag is its id."""
    view.rid = tag
    return view


class CalculatorScreen(Screen):
    activity = MAIN
    background = theme.SURFACE

    def __init__(self, app: App) -> None:
        super().__init__(app)
        self.expr = ""
        self.result = ""
        self.history: list[str] = []
        self.show_history = False

    def build(self, ctx: Ctx) -> list[View]:
        left, t, r, b = ctx.content
        rows = len(KEYS)
        key_h = min(ctx.dp(84), (b - t) * 6 // 10 // rows)
        pad_top = b - rows * key_h - ctx.dp(16)
        bar_h = ctx.dp(56)
        history = View(VIEW, (r - ctx.dp(56), t + ctx.dp(4), r - ctx.dp(8), t + ctx.dp(52)), provider=BY_COMPOSE,
                       clickable=True, focusable=True, on_click=self._toggle_history,
                       bg=theme.PRIMARY_LIGHT if self.show_history else None, radius=ctx.dp(24))
        history.add(View(VIEW, (r - ctx.dp(44), t + ctx.dp(16), r - ctx.dp(20), t + ctx.dp(40)), provider=BY_COMPOSE,
                         kind="icon", glyph="clock", gsize=ctx.dp(24), color=theme.TEXT_SECONDARY))
        views = [View(VIEW, (left, t, r, t + bar_h), history, provider=BY_COMPOSE)]
        display_top = t + bar_h
        if self.show_history:
            lines = self.history[-4:] or ["No history yet"]
            line_h = ctx.dp(36)
            panel_b = min(pad_top - ctx.dp(180), display_top + line_h * len(lines) + ctx.dp(16))
            panel = View(VIEW, (left + ctx.dp(16), display_top, r - ctx.dp(16), panel_b), provider=BY_COMPOSE,
                         bg=theme.SURFACE_VARIANT, radius=ctx.dp(16), clip=True)
            for i, line in enumerate(lines):
                y = display_top + ctx.dp(8) + i * line_h
                panel.add(text(ctx, (left + ctx.dp(32), y, r - ctx.dp(32), y + line_h), line, size=16, align="right",
                               color=theme.TEXT_SECONDARY, provider=BY_COMPOSE))
            views.append(panel)
            display_top = panel_b
        views += [_tagged(text(ctx, (left + ctx.dp(24), display_top + ctx.dp(8), r - ctx.dp(24), pad_top - ctx.dp(96)),
                               self.expr or "0", size=44, align="right", provider=BY_COMPOSE), "formula"),
                  _tagged(text(ctx, (left + ctx.dp(24), pad_top - ctx.dp(96), r - ctx.dp(24), pad_top - ctx.dp(24)),
                               self.result, size=30, align="right", color=theme.TEXT_SECONDARY, provider=BY_COMPOSE),
                          "result")]
        pad = View(VIEW, (left, pad_top, r, b), provider=BY_COMPOSE)
        w = (r - left - ctx.dp(24)) // 4
        for ri, row in enumerate(KEYS):
            for ci, label in enumerate(row):
                x, y = left + ctx.dp(12) + ci * w, pad_top + ri * key_h
                op = label in "÷×−+="
                bg = (255, 218, 214) if op else ((230, 225, 229) if label in "C()⌫" else theme.BACKGROUND)
                box = (x + ctx.dp(4), y + ctx.dp(4), x + w - ctx.dp(4), y + key_h - ctx.dp(4))
                key = View(VIEW, box, provider=BY_COMPOSE, clickable=True, focusable=True,
                           on_click=partial(self.press, label), bg=bg, radius=(key_h - ctx.dp(8)) // 2)
                key.add(View(TEXT, box, text=label, desc=DESC.get(label, ""), kind="text", provider=BY_COMPOSE,
                             size=ctx.sp(26), align="center", color=theme.TEXT))
                pad.add(key)
        views.append(pad)
        semantics_root = View(VIEW, ctx.content, View(VIEW, ctx.content, *views, provider=BY_COMPOSE),
                              provider=BY_COMPOSE)
        return [View(COMPOSE_VIEW, ctx.content, semantics_root)]

    def _toggle_history(self) -> None:
        self.show_history = not self.show_history

    def press(self, key: str) -> None:
        if key == "C":
            self.expr, self.result = "", ""
        elif key == "⌫":
            self.expr = self.expr[:-1]
        elif key == "=":
            self.result = evaluate(self.expr) if self.expr else ""
            if self.result != "Error":
                if self.expr:
                    self.history.append(f"{self.expr} = {self.result}")
                self.expr, self.result = self.result, ""
        else:
            self.expr += key
            preview = evaluate(self.expr)
            self.result = preview if preview != "Error" and preview != self.expr else ""


class CalculatorApp(App):
    package = CALCULATOR
    label = "Calculator"
    glyph = "calculator"
    third_party = True
    main_activity = MAIN

    def activities(self):
        return {MAIN: lambda: CalculatorScreen(self)}

    def pages(self) -> dict[str, Callable[[], object]]:
        def keyed(keys: str, history: bool = False) -> Callable[[], None]:
            def press_them() -> None:
                screen = self.ensure_started()
                assert isinstance(screen, CalculatorScreen)
                for key in keys:
                    screen.press(key)
                screen.show_history = history
            return press_them

        return {"key pad": lambda: None, "a sum typed": keyed("12+7"),
                "history": keyed("12+7=×3=", history=True)}
