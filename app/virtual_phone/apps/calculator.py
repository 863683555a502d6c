"""Calculator (com.agentdesk.calculator, a third-party app): a display and a key pad."""

from __future__ import annotations

from fractions import Fraction

from .. import theme
from ..views import BUTTON, FRAME, LINEAR, View
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


class CalculatorScreen(Screen):
    activity = MAIN
    background = theme.SURFACE

    def __init__(self, app: App) -> None:
        super().__init__(app)
        self.expr = ""
        self.result = ""

    def build(self, ctx: Ctx) -> list[View]:
        l, t, r, b = ctx.content
        rows = len(KEYS)
        key_h = min(ctx.dp(84), (b - t) * 6 // 10 // rows)
        pad_top = b - rows * key_h - ctx.dp(16)
        views = [text(ctx, (l + ctx.dp(24), t + ctx.dp(24), r - ctx.dp(24), pad_top - ctx.dp(96)), self.expr or "0",
                      size=44, align="right", rid="formula", cls="android.widget.EditText"),
                 text(ctx, (l + ctx.dp(24), pad_top - ctx.dp(96), r - ctx.dp(24), pad_top - ctx.dp(24)), self.result,
                      size=30, align="right", color=theme.TEXT_SECONDARY, rid="result")]
        pad = View(LINEAR, (l, pad_top, r, b), rid=ctx.rid("pad"))
        w = (r - l - ctx.dp(24)) // 4
        for ri, row in enumerate(KEYS):
            for ci, label in enumerate(row):
                x, y = l + ctx.dp(12) + ci * w, pad_top + ri * key_h
                op = label in "÷×−+="
                bg = (255, 218, 214) if op else ((230, 225, 229) if label in "C()⌫" else theme.BACKGROUND)
                pad.add(View(BUTTON, (x + ctx.dp(4), y + ctx.dp(4), x + w - ctx.dp(4), y + key_h - ctx.dp(4)), text=label,
                             desc=DESC.get(label, ""), rid=ctx.rid(f"key_{ri}_{ci}"), kind="text", clickable=True,
                             on_click=lambda k=label: self.press(k), size=ctx.sp(26), align="center",
                             color=theme.TEXT, bg=bg, radius=(key_h - ctx.dp(8)) // 2))
        views.append(pad)
        return [View(FRAME, ctx.content, *views, rid=ctx.rid("main_calculator"))]

    def press(self, key: str) -> None:
        if key == "C":
            self.expr, self.result = "", ""
        elif key == "⌫":
            self.expr = self.expr[:-1]
        elif key == "=":
            self.result = evaluate(self.expr) if self.expr else ""
            if self.result != "Error":
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
