"""Keep API keys out of logs and trajectories.

`redact` replaces every secret registered in `app.core.secrets` and anything shaped like
a credential (an Authorization/Bearer header, `api_key=…`, an OpenAI-style `sk-…` key)
with "[redacted]". `setup_logging` sends the app's log to a rotating file through
`RedactingFilter`, so a key that slips into a log message never reaches the disk.
A password field's text is never recorded at all: records keep PASSWORD_MASK instead.

The one redactor sits at each boundary where a run's words leave the process: the trajectory's
writer, the screens graph's transitions and cards (`redacted_json`), the map and script exports,
the skill files, the API's views and events, the log, and the terminal (`RedactingWriter` around
the CLI's stdout and stderr; `redact_partial` for text still streaming in, which may end in the
first characters of a key).
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import Any, TextIO

from app.core.paths import log_dir
from app.core.secrets import known_secrets

REDACTED = "[redacted]"
PASSWORD_MASK = "••••"
"""What a record keeps instead of a password field's text (or text typed into one)."""
PASSWORD_HIDDEN = "(hidden: password field)"
"""What the model is shown instead of a password field's text."""
PARTIAL_MIN_LENGTH = 4
"""A streaming text's end is cut when it matches at least this many first characters of a secret."""
LOG_FILE_NAME = "agentdesk.log"
LOG_MAX_BYTES = 1_000_000
LOG_BACKUPS = 5
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

# Each pattern keeps group 1 (the label) and replaces the rest with REDACTED.
_CREDENTIAL_PATTERNS = (
    re.compile(r"(?i)(authorization[\"']?\s*[:=]\s*[\"']?(?:bearer\s+|basic\s+)?)[^\s\"',;]+"),
    re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/-]{8,}=*"),
    re.compile(r"(?i)((?:x-)?api[_-]?key[\"']?\s*[:=]\s*[\"']?)[^\s\"'&,;]+"),
    re.compile(r"()\bsk-[A-Za-z0-9_-]{16,}"),
)


def redact(text: str) -> str:
    """`text` with every registered secret and credential-shaped string replaced by [redacted]."""
    for secret in known_secrets():
        if secret in text:
            text = text.replace(secret, REDACTED)
    for pattern in _CREDENTIAL_PATTERNS:
        text = pattern.sub(lambda match: match.group(1) + REDACTED, text)
    return text


def redact_partial(text: str) -> str:
    """`text` redacted, and its end cut where it could be the first characters of a registered secret
    (text that is still streaming in: the rest of the key may follow)."""
    text = redact(text)
    for secret in known_secrets():
        for length in range(min(len(secret) - 1, len(text)), PARTIAL_MIN_LENGTH - 1, -1):
            if text.endswith(secret[:length]):
                return text[:-length] + REDACTED
    return text


def redact_data(obj: Any) -> Any:
    """A copy of JSON-like data (dicts, lists, tuples, strings) with every string redacted."""
    if isinstance(obj, str):
        return redact(obj)
    if isinstance(obj, dict):
        return {redact_data(key): redact_data(value) for key, value in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(redact_data(value) for value in obj)
    return obj


def redacted_json(data: Any) -> str:
    """One line of JSON for a file that may be shared (graph, cards, exports): every string redacted."""
    return json.dumps(redact_data(data), ensure_ascii=False)


class RedactingWriter:
    """A text stream (stdout, stderr) whose every write is redacted first; everything else is the stream's."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(redact(text))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def show_secret(text: str) -> None:
    """Print a secret the person asked to see (`agentdesk api token`) on stdout, past the redactor."""
    out = sys.stdout
    print(text, file=out.stream if isinstance(out, RedactingWriter) else out, flush=True)


@contextmanager
def redacted_terminal() -> Iterator[None]:
    """While inside, everything printed to stdout and stderr passes through the redactor."""
    out, err = sys.stdout, sys.stderr
    sys.stdout = out if isinstance(out, RedactingWriter) else RedactingWriter(out)
    sys.stderr = err if isinstance(err, RedactingWriter) else RedactingWriter(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err


class RedactingFilter(logging.Filter):
    """Redacts a record's final message (after %-formatting), its traceback and its stack text."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # bad arguments: keep what there is, redacted, rather than lose the record
            message = f"{record.msg} (log arguments could not be formatted: {record.args!r})"
        record.msg, record.args = redact(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


class _AgentDeskLogHandler(RotatingFileHandler):
    """The app's log file handler; its own class so `setup_logging` can find it again."""


def setup_logging(verbose: bool = False) -> Path:
    """Log to `log_dir()/agentdesk.log` (1 MB × 5 files), redacted; returns the file's path.

    Calling it again changes only the level (INFO, or DEBUG when verbose); the handler is
    replaced only if the log folder has changed (AGENTDESK_HOME was set differently).
    """
    path = log_dir() / LOG_FILE_NAME
    level = logging.DEBUG if verbose else logging.INFO
    root = logging.getLogger()
    for handler in [h for h in root.handlers if isinstance(h, _AgentDeskLogHandler)]:
        if handler.baseFilename == os.path.abspath(path):
            handler.setLevel(level)
            root.setLevel(level)
            return path
        root.removeHandler(handler)
        handler.close()
    handler = _AgentDeskLogHandler(path, maxBytes=LOG_MAX_BYTES, backupCount=LOG_BACKUPS, encoding="utf-8")
    handler.setLevel(level)
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    handler.addFilter(RedactingFilter())
    root.addHandler(handler)
    root.setLevel(level)
    return path
