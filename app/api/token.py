"""The bearer token every API request carries: one token per user, whichever face serves or calls.

Looked up in this order: `AGENTDESK_API_TOKEN` (scripts and CI), the OS keyring (its own entry),
then the token file in the config folder (`api-token`, readable only by the user). Made on first
use: in the keyring when one works, else in that file — so a desk without a keyring keeps its token
across restarts, and `agentdesk mcp` and `agentdesk api token` (same user, same config folder) find
it without any variable. The token never goes into the settings file, a log or `api.json`.
"""

from __future__ import annotations

import contextlib
import os
import secrets as random_source
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, overload

from app.core import paths
from app.core.private_file import PrivateFileProblem, read_private, write_private
from app.core.secrets import SecretStore, register_secret

TOKEN_VARIABLE = "AGENTDESK_API_TOKEN"
KEYRING_SERVICE = "AgentDesk API"
KEYRING_NAME = "token"
MIN_TOKEN_LENGTH = 16

TokenKind = Literal["environment", "keyring", "file", "process"]


class TokenProblem(ValueError):
    """The token given in the environment, or the token file, is not usable (the message says what to do)."""


@dataclass(frozen=True)
class ApiToken:
    value: str
    source: str             # where it came from, in words
    kept: bool              # found again by the next process (environment, keyring or token file)
    kind: TokenKind = "process"

    def __repr__(self) -> str:          # never the value
        return f"ApiToken(source={self.source!r}, kept={self.kept})"


def file_source(path: Path) -> str:
    return f"the file {path} (readable only by you)"


def _from_file(path: Path) -> ApiToken | None:
    try:
        value = read_private(path)
    except PrivateFileProblem as exc:
        raise TokenProblem(f"The task API's token file is not safe to use: {exc}") from None
    if not value:
        return None
    if len(value) < MIN_TOKEN_LENGTH:
        raise TokenProblem(f"The task API's token file {path} holds too short a token; remove it (a new token is "
                           "made).")
    register_secret(value)
    return ApiToken(value, file_source(path), True, "file")


def _fresh() -> str:
    value = random_source.token_urlsafe(32)
    register_secret(value)
    return value


@overload
def api_token(env: Mapping[str, str] = ..., store: SecretStore | None = ..., *,
              create: Literal[True] = ..., token_file: Path | None = ...) -> ApiToken: ...
@overload
def api_token(env: Mapping[str, str] = ..., store: SecretStore | None = ..., *, create: bool,
              token_file: Path | None = ...) -> ApiToken | None: ...
def api_token(env: Mapping[str, str] = os.environ, store: SecretStore | None = None, *,
              create: bool = True, token_file: Path | None = None) -> ApiToken | None:
    """The API's token: the environment's, else the keyring's, else the token file's, else a new one (kept in
    the keyring when one works, else in the token file). TokenProblem for a short token in the environment or
    an unsafe token file. Blocking (the keyring may be slow): call it in a worker thread from a loop."""
    given = env.get(TOKEN_VARIABLE, "").strip()
    if given:
        if len(given) < MIN_TOKEN_LENGTH:
            raise TokenProblem(f"{TOKEN_VARIABLE} is too short to be a safe token: use at least "
                               f"{MIN_TOKEN_LENGTH} characters (e.g. `python3 -c 'import secrets; "
                               "print(secrets.token_urlsafe(32))'`).")
        register_secret(given)
        return ApiToken(given, f"the environment variable {TOKEN_VARIABLE}", True, "environment")
    store = store or SecretStore(KEYRING_SERVICE)
    stored = store.get(KEYRING_NAME) if store.keyring_available else None
    if stored:
        return ApiToken(stored, store.location(), True, "keyring")
    path = token_file or paths.api_token_path()
    found = _from_file(path)
    if found is not None or not create:
        return found
    fresh = _fresh()
    if store.keyring_available:
        where = store.set(KEYRING_NAME, fresh)
        if store.keyring_available:          # the keyring may refuse when used
            return ApiToken(fresh, where, True, "keyring")
    try:
        kept = write_private(path, fresh, replace=False)       # another process may have made it first
    except PrivateFileProblem as exc:
        raise TokenProblem(f"The task API's token file is not safe to use: {exc}") from None
    except OSError as exc:
        return ApiToken(fresh, f"this process only (no keyring, and {path} could not be written: "
                               f"{exc.strerror or exc})", False)
    register_secret(kept)
    return ApiToken(kept, file_source(path), True, "file")


def rotate_api_token(env: Mapping[str, str] = os.environ, store: SecretStore | None = None, *,
                     token_file: Path | None = None) -> ApiToken:
    """A new token in place of the old one: in the keyring when one works (a token file left from before is
    removed), else in the token file. TokenProblem when the token is not ours to change (it comes from the
    environment) or cannot be kept. A desk running in another process keeps accepting the old token until it
    restarts; the window's own desk takes the new one at once."""
    if env.get(TOKEN_VARIABLE, "").strip():
        raise TokenProblem(f"The token comes from the environment variable {TOKEN_VARIABLE}: change it there "
                           "(and restart the desk).")
    store = store or SecretStore(KEYRING_SERVICE)
    path = token_file or paths.api_token_path()
    fresh = _fresh()
    if store.keyring_available:
        where = store.set(KEYRING_NAME, fresh)
        if store.keyring_available:
            if not path.is_symlink():
                with contextlib.suppress(OSError):
                    path.unlink()               # the keyring's token is the one now; no stale copy on disk
            return ApiToken(fresh, where, True, "keyring")
    try:
        if path.is_symlink():
            read_private(path)                  # raises, saying so
        write_private(path, fresh, replace=True)
    except PrivateFileProblem as exc:
        raise TokenProblem(f"The task API's token file is not safe to use: {exc}") from None
    except OSError as exc:
        raise TokenProblem(f"The new token could not be written to {path}: {exc.strerror or exc}; the old one is "
                           "still in use.") from None
    return ApiToken(fresh, file_source(path), True, "file")
