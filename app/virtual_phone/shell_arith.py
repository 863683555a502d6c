"""Shell arithmetic (`$((...))`, `((...))`, `let`) as mksh does it: C operators on 32-bit integers.

mksh's integers are 32 bits wide and wrap around; there is no `**`. Variables hold text that is
itself evaluated as an expression (an unset or empty one is 0). Errors carry mksh's wording,
e.g. "1/0: zero divisor" or "1+: unexpected 'end of expression'".
"""

from __future__ import annotations

import re
from collections.abc import Callable

_TOKEN = re.compile(r"\s*(?:(?P<num>\d+#[0-9A-Za-z@_]+|0[xX][0-9A-Fa-f]+|\d+)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|"
                    r"(?P<op><<=|>>=|\+\+|--|&&|\|\||<<|>>|<=|>=|==|!=|\+=|-=|\*=|/=|%=|&=|\^=|\|=|[-+*/%<>=!~&^|?:(),]))")
_ASSIGN_OPS = {"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|="}
_BINARY = [  # lowest to highest precedence
    {"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<", "<=", ">", ">="}, {"<<", ">>"}, {"+", "-"},
    {"*", "/", "%"},
]
MAX_VARIABLE_DEPTH = 20


class ArithError(Exception):
    """An expression mksh would refuse; the message is mksh's (without the shell's name)."""


def wrap32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


class _Evaluator:
    def __init__(self, text: str, get: Callable[[str], str], set_: Callable[[str, str], None], depth: int):
        self.text = text
        self.get, self.set = get, set_
        self.depth = depth
        self.tokens: list[tuple[str, str]] = []
        pos = 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            match = _TOKEN.match(text, pos)
            if not match:
                raise ArithError(f"{text}: unexpected '{text[pos:].strip()[:1]}'")
            kind = match.lastgroup
            assert kind is not None   # every alternative of _TOKEN is a named group
            self.tokens.append((kind, match.group(kind)))
            pos = match.end()
        self.index = 0

    # ------------------------------------------------------------------ helpers
    def peek(self) -> tuple[str, str]:
        return self.tokens[self.index] if self.index < len(self.tokens) else ("end", "")

    def take(self) -> tuple[str, str]:
        token = self.peek()
        self.index += 1
        return token

    def fail(self, token: tuple[str, str]) -> ArithError:
        shown = "end of expression" if token[0] == "end" else token[1]
        return ArithError(f"{self.text}: unexpected '{shown}'")

    def expect(self, op: str) -> None:
        token = self.take()
        if token != ("op", op):
            raise self.fail(token)

    def variable(self, name: str) -> int:
        value = self.get(name).strip()
        if not value:
            return 0
        if re.fullmatch(r"-?\d+", value):
            return wrap32(int(value))
        if self.depth >= MAX_VARIABLE_DEPTH:
            raise ArithError(f"{self.text}: expression recurses on parameter '{name}'")
        return evaluate(value, self.get, self.set, self.depth + 1)

    # ------------------------------------------------------------------ grammar
    def run(self) -> int:
        if not self.tokens:
            return 0
        value = self.comma()
        if self.peek()[0] != "end":
            raise self.fail(self.peek())
        return value

    def comma(self, evaluate_: bool = True) -> int:
        value = self.assignment(evaluate_)
        while self.peek() == ("op", ","):
            self.take()
            value = self.assignment(evaluate_)
        return value

    def assignment(self, evaluate_: bool = True) -> int:
        kind, text = self.peek()
        if kind == "name" and self.index + 1 < len(self.tokens):
            op_kind, op = self.tokens[self.index + 1]
            if op_kind == "op" and op in _ASSIGN_OPS:
                self.index += 2
                value = self.assignment(evaluate_)
                if not evaluate_:
                    return 0
                if op != "=":
                    value = self.apply(op[:-1], self.variable(text), value)
                self.set(text, str(value))
                return value
        return self.conditional(evaluate_)

    def conditional(self, evaluate_: bool) -> int:
        condition = self.binary(0, evaluate_)
        if self.peek() != ("op", "?"):
            return condition
        self.take()
        yes = self.comma(evaluate_ and condition != 0)
        self.expect(":")
        no = self.conditional(evaluate_ and condition == 0)
        return yes if condition else no

    def binary(self, level: int, evaluate_: bool) -> int:
        if level == len(_BINARY):
            return self.unary(evaluate_)
        left = self.binary(level + 1, evaluate_)
        while self.peek()[0] == "op" and self.peek()[1] in _BINARY[level]:
            op = self.take()[1]
            if op in ("&&", "||"):
                short = (op == "&&" and left == 0) or (op == "||" and left != 0)
                right = self.binary(level + 1, evaluate_ and not short)
                left = int(bool(left and right)) if op == "&&" else int(bool(left or right))
                continue
            right = self.binary(level + 1, evaluate_)
            left = self.apply(op, left, right) if evaluate_ else 0
        return left

    def apply(self, op: str, left: int, right: int) -> int:
        if op in ("/", "%"):
            if right == 0:
                raise ArithError(f"{self.text}: zero divisor")
            quotient = abs(left) // abs(right) * (1 if (left < 0) == (right < 0) else -1)
            return wrap32(quotient if op == "/" else left - quotient * right)
        results = {
            "+": lambda: left + right, "-": lambda: left - right, "*": lambda: left * right,
            "<<": lambda: left << (right & 31), ">>": lambda: left >> (right & 31),
            "<": lambda: int(left < right), "<=": lambda: int(left <= right), ">": lambda: int(left > right),
            ">=": lambda: int(left >= right), "==": lambda: int(left == right), "!=": lambda: int(left != right),
            "&": lambda: left & right, "^": lambda: left ^ right, "|": lambda: left | right,
        }
        return wrap32(results[op]())

    def unary(self, evaluate_: bool) -> int:
        kind, text = self.peek()
        if kind == "op" and text in ("+", "-", "!", "~"):
            self.take()
            value = self.unary(evaluate_)
            return {"+": value, "-": wrap32(-value), "!": int(value == 0), "~": wrap32(~value)}[text]
        if kind == "op" and text in ("++", "--"):
            self.take()
            name = self.take()
            if name[0] != "name":
                raise self.fail(name)
            if not evaluate_:
                return 0
            value = wrap32(self.variable(name[1]) + (1 if text == "++" else -1))
            self.set(name[1], str(value))
            return value
        return self.postfix(evaluate_)

    def postfix(self, evaluate_: bool) -> int:
        kind, text = self.take()
        if kind == "num":
            return _number(text, self.text)
        if kind == "name":
            if self.peek() in (("op", "++"), ("op", "--")):
                op = self.take()[1]
                if not evaluate_:
                    return 0
                value = self.variable(text)
                self.set(text, str(wrap32(value + (1 if op == "++" else -1))))
                return value
            return self.variable(text) if evaluate_ else 0
        if (kind, text) == ("op", "("):
            value = self.comma(evaluate_)
            self.expect(")")
            return value
        raise self.fail((kind, text))


def _number(text: str, expression: str) -> int:
    try:
        if "#" in text:
            base, digits = text.split("#", 1)
            return wrap32(int(digits, int(base)))
        if text[:2].lower() == "0x":
            return wrap32(int(text, 16))
        return wrap32(int(text, 10))
    except ValueError:
        raise ArithError(f"{expression}: bad number '{text}'") from None


def evaluate(text: str, get: Callable[[str], str], set_: Callable[[str, str], None], depth: int = 0) -> int:
    """The value of an arithmetic expression; raises ArithError with mksh's message."""
    try:
        return _Evaluator(text, get, set_, depth).run()
    except RecursionError:
        raise ArithError(f"{text}: expression too complex") from None
