"""The bearer token every API request carries.

Made on first use and kept in the OS keyring (its own entry, never in the settings file or a
log); `AGENTDESK_API_TOKEN` overrides it for scripts and CI. Without a keyring the token lives
for this process only, and the server prints it at start so the caller can use it.
"""

from __future__ import annotations

import os
import secrets as random_source
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, overload

from app.core.secrets import SecretStore, register_secret

TOKEN_VARIABLE = "AGENTDESK_API_TOKEN"
KEYRING_SERVICE = "AgentDesk API"
KEYRING_NAME = "token"
MIN_TOKEN_LENGTH = 16


class TokenProblem(ValueError):
    """The token given in the environment is not usable."""


@dataclass(frozen=True)
class ApiToken:
    value: str
    source: str             # where it came from, in words
    kept: bool              # found again by the next process (keyring or environment)

    def __repr__(self) -> str:          # never the value
        return f"ApiToken(source={self.source!r}, kept={self.kept})"


@overload
def api_token(env: Mapping[str, str] = ..., store: SecretStore | None = ..., *,
              create: Literal[True] = ...) -> ApiToken: ...
@overload
def api_token(env: Mapping[str, str] = ..., store: SecretStore | None = ..., *, create: bool) -> ApiToken | None: ...
def api_token(env: Mapping[str, str] = os.environ, store: SecretStore | None = None, *,
              create: bool = True) -> ApiToken | None:
    """The API's token: the environment's, else the keyring's, else a new one (stored when a keyring
    exists). Blocking (the keyring may be slow): call it in a worker thread from a loop."""
    given = env.get(TOKEN_VARIABLE, "").strip()
    if given:
        if len(given) < MIN_TOKEN_LENGTH:
            raise TokenProblem(f"{TOKEN_VARIABLE} is too short to be a safe token: use at least "
                               f"{MIN_TOKEN_LENGTH} characters (e.g. `python3 -c 'import secrets; "
                               "print(secrets.token_urlsafe(32))'`).")
        register_secret(given)
        return ApiToken(given, f"the environment variable {TOKEN_VARIABLE}", True)
    store = store or SecretStore(KEYRING_SERVICE)
    stored = store.get(KEYRING_NAME) if store.keyring_available else None
    if stored:
        return ApiToken(stored, store.location(), True)
    if not create:
        return None
    fresh = random_source.token_urlsafe(32)
    register_secret(fresh)
    if store.keyring_available:
        where = store.set(KEYRING_NAME, fresh)
        if store.keyring_available:          # the keyring may refuse when used
            return ApiToken(fresh, where, True)
    return ApiToken(fresh, "this process only (no keyring is available)", False)


def rotate_api_token(env: Mapping[str, str] = os.environ, store: SecretStore | None = None) -> ApiToken:
    """A new token in the keyring in place of the old one. TokenProblem when the token is not the keyring's to
    change (it comes from the environment, or no keyring exists). A desk running in another process keeps
    accepting the old token until it restarts; the window's own desk takes the new one at once."""
    if env.get(TOKEN_VARIABLE, "").strip():
        raise TokenProblem(f"The token comes from the environment variable {TOKEN_VARIABLE}: change it there "
                           "(and restart the desk).")
    store = store or SecretStore(KEYRING_SERVICE)
    if not store.keyring_available:
        raise TokenProblem("No keyring is available, so the token lives only as long as the desk's process: "
                           "restarting the desk makes a new one.")
    fresh = random_source.token_urlsafe(32)
    register_secret(fresh)
    where = store.set(KEYRING_NAME, fresh)
    if not store.keyring_available:
        raise TokenProblem("The keyring refused the new token; the old one is still in use.")
    return ApiToken(fresh, where, True)
