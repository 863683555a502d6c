"""The syntax tree of a parsed shell command line (what shell_parser builds and shell runs)."""

from __future__ import annotations

from dataclasses import dataclass, field

# ---------------------------------------------------------------------------- words


@dataclass
class Lit:
    """Literal text; `quoted` text is neither split, globbed nor tilde-expanded."""

    text: str
    quoted: bool = False


@dataclass
class Param:
    """`$name` or `${name<op><arg>}`; op is "" for a plain expansion, "len" for ${#name}."""

    name: str
    op: str = ""
    arg: Word | None = None
    quoted: bool = False
    replacement: Word | None = None   # for ${name/pattern/replacement}


@dataclass
class CommandSub:
    """`$(...)` or backticks: the inner command list, run when the word is expanded."""

    body: Node
    quoted: bool = False


@dataclass
class Arith:
    """`$((...))`: the expression text (itself a word: it may hold $vars and $(...))."""

    expr: Word
    quoted: bool = False


Part = Lit | Param | CommandSub | Arith


@dataclass
class Word:
    parts: list[Part] = field(default_factory=list)

    def literal(self) -> str | None:
        """The text when the word is plain unquoted literal text (reserved words, names)."""
        if len(self.parts) == 1 and isinstance(self.parts[0], Lit) and not self.parts[0].quoted:
            return self.parts[0].text
        return None

    def source(self) -> str:
        """Roughly the text as written (for case patterns and messages)."""
        return "".join(p.text if isinstance(p, Lit) else "$" + getattr(p, "name", "(...)") for p in self.parts)


# ---------------------------------------------------------------------------- commands


@dataclass
class Redirect:
    fd: int
    op: str            # < > >> >| <> >& <& << <<- <<<
    target: Word       # file name, fd number, or the here-document's body


@dataclass
class Simple:
    assigns: list[tuple[str, Word]] = field(default_factory=list)
    words: list[Word] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class Pipeline:
    commands: list[Node]
    negate: bool = False


@dataclass
class AndOr:
    """first, then (op, pipeline) pairs with op "&&" or "||"."""

    first: Node
    rest: list[tuple[str, Node]] = field(default_factory=list)


@dataclass
class Sequence:
    """Commands run one after another (`;`, `&` and newlines)."""

    items: list[Node] = field(default_factory=list)


@dataclass
class If:
    clauses: list[tuple[Node, Node]]   # (condition, body) for if and each elif
    orelse: Node | None = None


@dataclass
class Loop:
    condition: Node
    body: Node
    until: bool = False


@dataclass
class For:
    name: str
    words: list[Word] | None   # None: "$@"
    body: Node


@dataclass
class Case:
    word: Word
    arms: list[tuple[list[Word], Node | None]]


@dataclass
class Group:
    body: Node
    subshell: bool = False


@dataclass
class FunctionDef:
    name: str
    body: Node


@dataclass
class ArithCommand:
    """`(( expression ))`: status 0 when the value is not zero."""

    expr: Word


@dataclass
class Conditional:
    """`[[ ... ]]`: the words between the brackets, evaluated like test with && || and patterns."""

    words: list[Word]


@dataclass
class Redirected:
    """A compound command with redirections after it (`while ...; done < file`)."""

    command: Node
    redirects: list[Redirect]


Node = (Simple | Pipeline | AndOr | Sequence | If | Loop | For | Case | Group | FunctionDef | ArithCommand
        | Conditional | Redirected)
