"""While the model answers, `agentdesk run` is never silent.

On a terminal the model's words are written as they stream in, on one line that grows (the
thought of a JSON reply, or the text itself: a thinking model's reasoning, prose), and before the
first word a status line says how long the model has been asked ("step 2: asking the model… 12 s"),
rewritten in place each second. The next line the console prints ends the words with a newline
(they stay readable) or clears the status line.

Piped output (a log, a CI job) gets no live line: every `TICKER_SECONDS` while the model is asked,
one line "step 2: the model is thinking… 45 s, 312 tokens", so a log shows the run is alive
without filling up.

Words still streaming in are shown a whole word at a time, through the redactor, and never the
first characters of a registered key (`redact_partial`): the rest of a secret may be on its way.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Callable
from typing import TextIO

from app.core.redaction import REDACTED, redact, redact_partial

TICKER_SECONDS = 15.0
"""How often piped output says the model is still thinking."""

CLOCK: Callable[[], float] = time.monotonic
"""The progress's clock (a test puts a stepping one here)."""

_THOUGHT = re.compile(r'"thought"\s*:\s*"')
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def readable_words(text: str) -> tuple[str, bool]:
    """What a person would read of a reply so far, and whether that part is complete.

    A JSON reply (fenced or not) shows its "thought" as far as it has come (nothing before the key
    arrives); a reply that is not JSON (a thinking model's reasoning, prose) shows as it is.
    Whitespace is folded to single spaces."""
    body = text.lstrip()
    if body.startswith("```"):
        body = body.partition("\n")[2].lstrip()
    if not body.startswith("{"):
        return " ".join(text.split()), False
    match = _THOUGHT.search(body)
    if match is None:
        return "", False
    thought, closed = _partial_json_string(body[match.end():])
    return " ".join(thought.split()), closed


def _partial_json_string(rest: str) -> tuple[str, bool]:
    """A JSON string's characters up to its closing quote (or as far as they have come)."""
    out: list[str] = []
    index = 0
    while index < len(rest):
        char = rest[index]
        if char == '"':
            return "".join(out), True
        if char != "\\":
            out.append(char)
            index += 1
            continue
        if index + 1 >= len(rest):
            break                                  # the escape is still on its way
        code = rest[index + 1]
        if code == "u":
            digits = rest[index + 2:index + 6]
            if len(digits) < 4:
                break
            try:
                out.append(json.loads(f'"\\u{digits}"'))
            except ValueError:
                pass
            index += 6
            continue
        out.append(_ESCAPES.get(code, code))
        index += 2
    return "".join(out), False


def shown_so_far(words: str, complete: bool) -> str:
    """`words` as far as they may be shown while more may follow: whole words only, redacted, and
    without the first characters of a registered key (held back until the rest shows what it is)."""
    if not complete and words and " " in words:
        words = words.rsplit(" ", 1)[0]            # the last word may be half-written
    elif not complete:
        words = ""
    shown = redact_partial(words)
    if shown.endswith(REDACTED) and not redact(words).endswith(REDACTED):
        shown = shown[:-len(REDACTED)].rstrip()    # maybe a key's start: wait for the rest
    return shown


class ModelProgress:
    """What the console shows while the model of a step is asked (see the module's words)."""

    def __init__(self, out: TextIO, *, terminal: bool, clock: Callable[[], float] | None = None,
                 ticker_seconds: float = TICKER_SECONDS) -> None:
        self.out = out
        self.terminal = terminal
        self.clock = clock or CLOCK
        self.ticker_seconds = ticker_seconds
        self.step = 0
        self.waiting = False
        self.tokens = 0
        self._since = 0.0
        self._ticked_at = 0.0          # seconds into the wait of the last ticker line (piped)
        self._open = ""                # "status": a line to clear; "words": a line to end with a newline
        self._written = ""             # the words on the open words line
        self._text = ""                # the reply so far, as last told

    # ------------------------------------------------------------------ what the run tells

    def asked(self, step: int) -> None:
        """The model is asked (again): the clock starts, the next words start a new line."""
        self.end()
        self.step, self.waiting, self.tokens, self._text = step, True, 0, ""
        self._since = self.clock()
        self._ticked_at = 0.0
        self.tick()

    def words(self, step: int, text_so_far: str, tokens: int = 0) -> None:
        """The reply so far: written as it grows on a terminal; piped, it only moves the ticker."""
        if not self.waiting or step != self.step:
            self.asked(step)           # words without a ModelAsked before them (a late reader)
        self.tokens = max(self.tokens, tokens)
        self._text = text_so_far
        if self.terminal:
            self._write_words(*readable_words(text_so_far))
        else:
            self.tick()

    def done(self) -> None:
        """The model has answered (or failed): no more ticks until it is asked again."""
        self.waiting = False
        if self._open == "status":
            self.end()

    def tick(self) -> None:
        """Called every second or so: the status line (terminal) or, every `ticker_seconds`, the ticker line."""
        if not self.waiting:
            return
        elapsed = max(0.0, self.clock() - self._since)
        if self.terminal:
            if self._open != "words":
                self._status(f"  step {self.step}: asking the model… {elapsed:.0f} s" +
                             (f", {self.tokens:,} tokens" if self.tokens else ""))
        elif elapsed - self._ticked_at >= self.ticker_seconds:
            self._ticked_at = elapsed
            tokens = f"{self.tokens:,} tokens" if self.tokens else "no words yet"
            print(f"  step {self.step}: the model is thinking… {elapsed:.0f} s, {tokens}", file=self.out, flush=True)

    # ------------------------------------------------------------------ the terminal's lines

    def end(self) -> None:
        """Before any other line: the words end with a newline (what was held back shown now), a status line goes."""
        if self._open == "words":
            rest = redact(readable_words(self._text)[0])
            if rest.startswith(self._written):
                self.out.write(rest[len(self._written):])
            self.out.write("\n")
        elif self._open == "status":
            self.out.write("\r\x1b[2K")
        if self._open:
            self.out.flush()
        self._open, self._written = "", ""

    def _write_words(self, words: str, complete: bool) -> None:
        shown = shown_so_far(words, complete)
        if not shown:
            self.tick()                # nothing readable yet: the status line counts on
            return
        if self._open == "words" and shown.startswith(self._written):
            new = shown[len(self._written):]
        else:                          # a new reply, or it changed (reasoning → the answer): a new line
            self.end()
            new = f"  step {self.step}, the model writes: " + shown
        self._written = shown
        self._open = "words"
        if new:
            self.out.write(new)
            self.out.flush()

    def _status(self, text: str) -> None:
        width = max(20, shutil.get_terminal_size((100, 24)).columns - 1)
        if len(text) > width:
            text = text[:width - 1] + "…"
        self.out.write(f"\r\x1b[2K{text}")
        self.out.flush()
        self._open = "status"
