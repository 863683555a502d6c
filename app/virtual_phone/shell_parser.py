"""Parsing sh as mksh reads it: pipelines, lists and compound commands, from the Lexer's tokens.

`parse(text)` returns a syntax tree (shell_ast). Errors raise ShellSyntaxError with mksh's
wording ("syntax error: 'fi' unexpected", "no closing quote").
"""

from __future__ import annotations

from collections.abc import Callable

from .shell_ast import (
    AndOr,
    ArithCommand,
    Case,
    Conditional,
    For,
    FunctionDef,
    Group,
    If,
    Lit,
    Loop,
    Node,
    Pipeline,
    Redirect,
    Redirected,
    Sequence,
    Simple,
    Word,
)
from .shell_lexer import CLOSERS, FUNCTION_PARENS, NAME_RE, RESERVED, Lexer, ShellSyntaxError, arith_end

__all__ = ["ShellSyntaxError", "parse"]


class _Parser(Lexer):
    """Commands from tokens (recursive descent over mksh's grammar)."""

    # ------------------------------------------------------------------ lists
    def parse_all(self) -> Node:
        body = self.parse_sequence(allow_empty=True)
        token = self.peek()
        if token.kind != "eof":
            raise self.unexpected(token)
        return body

    def parse_sequence(self, allow_empty: bool = False) -> Node:
        items: list[Node] = []
        self.skip_newlines()
        while True:
            token = self.peek()
            if token.kind == "eof" or (token.kind == "op" and token.value in (")", ";;")) or \
                    (token.kind == "word" and token.value in CLOSERS and token.word.literal() is not None):
                break
            items.append(self.parse_and_or())
            if self.at_op(";", "&", "\n"):
                self.next()
                self.skip_newlines()
                continue
            break
        if not items and not allow_empty:
            raise self.unexpected(self.peek())
        return items[0] if len(items) == 1 else Sequence(items)

    def parse_and_or(self) -> Node:
        first = self.parse_pipeline()
        rest = []
        while self.at_op("&&", "||"):
            op = self.next().value
            self.skip_newlines()
            rest.append((op, self.parse_pipeline()))
        return AndOr(first, rest) if rest else first

    def parse_pipeline(self) -> Node:
        negate = False
        while self.at_word("!"):
            self.next()
            negate = not negate
        commands = [self.parse_command()]
        while self.at_op("|"):
            self.next()
            self.skip_newlines()
            commands.append(self.parse_command())
        return Pipeline(commands, negate) if negate or len(commands) > 1 else commands[0]

    # ------------------------------------------------------------------ commands
    def parse_command(self) -> Node:
        token = self.peek()
        keyword = token.word.literal() if token.kind == "word" else None
        compound: Node   # every branch below sets it, returns or raises
        if token.kind == "op" and token.value == "(":
            self.enter()
            compound = self.parse_arith_command() if self.text.startswith("((", token.start) else self.parse_subshell()
            self.depth -= 1
        elif keyword in ("if", "while", "until", "for", "case", "{", "[[", "function"):
            self.enter()
            self.next()
            parsers: dict[str, Callable[[], Node]] = {
                "if": self.parse_if, "while": self.parse_while, "until": self.parse_until,
                "for": self.parse_for, "case": self.parse_case, "{": self.parse_group,
                "[[": self.parse_conditional, "function": self.parse_function_keyword}
            compound = parsers[keyword]()
            self.depth -= 1
        elif keyword in RESERVED and keyword not in ("!",):
            raise self.unexpected(token)
        elif keyword and NAME_RE.match(keyword) and self.lookahead is token and \
                (parens := FUNCTION_PARENS.match(self.text, self.pos)):
            self.next()
            self.pos = parens.end()
            return self.parse_function_body(keyword)
        elif token.kind in ("word", "redir"):
            return self.parse_simple()
        else:
            raise self.unexpected(token)
        if isinstance(compound, FunctionDef):
            return compound
        redirects = self.parse_redirects()
        return Redirected(compound, redirects) if redirects else compound

    def parse_simple(self) -> Simple:
        command = Simple()
        while True:
            token = self.peek()
            if token.kind == "redir":
                command.redirects.append(self.parse_redirect())
            elif token.kind == "word":
                self.next()
                assignment = None if command.words else _assignment(token.word)
                if assignment:
                    command.assigns.append(assignment)
                else:
                    command.words.append(token.word)
            else:
                break
        return command

    def parse_redirects(self) -> list[Redirect]:
        redirects = []
        while self.peek().kind == "redir":
            redirects.append(self.parse_redirect())
        return redirects

    def parse_redirect(self) -> Redirect:
        token = self.next()
        target = self.next()
        if target.kind != "word":
            raise self.unexpected(target)
        op = token.value
        fd = token.fd if token.fd is not None else (0 if op.startswith("<") else 1)
        redirect = Redirect(fd, op, target.word)
        if op in ("<<", "<<-"):
            delimiter = "".join(p.text if isinstance(p, Lit) else "$" + getattr(p, "name",
                                                                                "") for p in target.word.parts)
            literal = any(isinstance(p, Lit) and p.quoted for p in target.word.parts)
            self.heredocs.append((redirect, delimiter, literal))
        return redirect

    def parse_if(self) -> If:
        clauses = []
        condition = self.parse_sequence()
        self.expect_word("then")
        clauses.append((condition, self.parse_sequence()))
        orelse = None
        while True:
            if self.at_word("elif"):
                self.next()
                condition = self.parse_sequence()
                self.expect_word("then")
                clauses.append((condition, self.parse_sequence()))
            elif self.at_word("else"):
                self.next()
                orelse = self.parse_sequence()
            else:
                break
        self.expect_word("fi")
        return If(clauses, orelse)

    def parse_while(self, until: bool = False) -> Loop:
        condition = self.parse_sequence()
        return Loop(condition, self.parse_do_group(), until)

    def parse_until(self) -> Loop:
        return self.parse_while(until=True)

    def parse_do_group(self) -> Node:
        self.skip_newlines()
        self.expect_word("do")
        body = self.parse_sequence()
        self.expect_word("done")
        return body

    def parse_for(self) -> For:
        token = self.next()
        if token.kind != "word" or not NAME_RE.match(token.value):
            raise self.unexpected(token) if token.kind != "word" else ShellSyntaxError(f"{token.value}: bad identifier")
        words = None
        self.skip_newlines()
        if self.at_word("in"):
            self.next()
            words = []
            while self.peek().kind == "word":
                words.append(self.next().word)
            if not self.at_op(";", "\n"):
                raise self.unexpected(self.peek())
            self.next()
        elif self.at_op(";"):
            self.next()
        return For(token.value, words, self.parse_do_group())

    def parse_case(self) -> Case:
        token = self.next()
        if token.kind != "word":
            raise self.unexpected(token)
        self.skip_newlines()
        self.expect_word("in")
        arms = []
        self.skip_newlines()
        while not self.at_word("esac"):
            if self.at_op("("):
                self.next()
            patterns = []
            while True:
                pattern = self.next()
                if pattern.kind != "word":
                    raise self.unexpected(pattern)
                patterns.append(pattern.word)
                if not self.at_op("|"):
                    break
                self.next()
            if not self.at_op(")"):
                raise self.unexpected(self.peek())
            self.next()
            body = self.parse_sequence(allow_empty=True)
            arms.append((patterns, body if not (isinstance(body, Sequence) and not body.items) else None))
            if self.at_op(";;"):
                self.next()
                self.skip_newlines()
            elif not self.at_word("esac"):
                raise self.unexpected(self.peek())
        self.next()
        return Case(token.word, arms)

    def parse_group(self) -> Group:
        body = self.parse_sequence()
        self.expect_word("}")
        return Group(body)

    def parse_subshell(self) -> Group:
        self.next()
        body = self.parse_sequence()
        if not self.at_op(")"):
            raise self.unexpected(self.peek())
        self.next()
        return Group(body, subshell=True)

    def parse_arith_command(self) -> ArithCommand | Group:
        start = self.peek().start
        end = arith_end(self.text, start + 2)
        if end is None:
            return self.parse_subshell()
        self.lookahead = None
        self.pos = end + 2
        return ArithCommand(self.nested(self.text[start + 2:end]).lex_text_body())

    def parse_conditional(self) -> Conditional:
        words = []
        while True:
            token = self.next()
            if token.kind == "word" and token.value == "]]":
                break
            if token.kind == "word":
                words.append(token.word)
            elif token.kind in ("op", "redir") and token.value in ("&&", "||", "(", ")", "<", ">", "!"):
                words.append(Word([Lit(token.value)]))
            else:
                raise self.unexpected(token)
        return Conditional(words)

    def parse_function_keyword(self) -> FunctionDef:
        token = self.next()
        if token.kind != "word" or not NAME_RE.match(token.value):
            raise self.unexpected(token)
        match = FUNCTION_PARENS.match(self.text, self.pos)
        if match and self.lookahead is None:
            self.pos = match.end()
        return self.parse_function_body(token.value)

    def parse_function_body(self, name: str) -> FunctionDef:
        self.skip_newlines()
        self.enter()
        body = self.parse_command()
        self.depth -= 1
        return FunctionDef(name, body)


def _assignment(word: Word) -> tuple[str, Word] | None:
    first = word.parts[0] if word.parts else None
    if not isinstance(first, Lit) or first.quoted or "=" not in first.text:
        return None
    name, _, rest = first.text.partition("=")
    if not NAME_RE.match(name):
        return None
    value = Word(([Lit(rest)] if rest else []) + word.parts[1:])
    return name, value


def parse(text: str) -> Node:
    """Parse a whole command line or script into a syntax tree."""
    try:
        return _Parser(text).parse_all()
    except RecursionError:
        raise ShellSyntaxError("syntax error: nesting too deep") from None
