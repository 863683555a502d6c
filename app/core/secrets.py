"""API keys: kept in the OS keyring, or for this session only where no keyring exists.

A small interface with a fallback chain (as Vorta does): the system keyring when one
works; otherwise an in-memory store that lasts until the app quits, with a `notice` in
plain words saying where the key went and how to keep it. A key given for a run in the
environment (OPENAI_API_KEY, or the provider's own variable such as GROQ_API_KEY) wins over the
stored one (`resolve_api_key`), so a script can use another key without touching the keyring.
Every key goes only to the origin it belongs to (see app/core/key_origins.py).

This module never writes a secret to disk, never logs one, and no object here shows a
secret in its repr(). Every secret it hands out or stores is added to a process-wide
registry (`known_secrets`) that the log and trajectory redaction use.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.core.key_origins import env_key_origins, withheld_sentence

# keyring is imported where it is used: importing it (and its backends) takes ~50 ms, which the
# app's start, the log redaction and the model client need not pay.
if TYPE_CHECKING:
    from keyring.backend import KeyringBackend

log = logging.getLogger(__name__)

ENV_API_KEY = "OPENAI_API_KEY"
SESSION_ONLY = "this session only (no keyring is available on this system)"
SESSION_NOTICE = (
    "No keyring service is available on this system, so the API key is kept in memory for this "
    "session only and will be asked for again after Agent Desk quits. To keep it, install a keyring "
    "service (gnome-keyring or KWallet on Linux) and restart Agent Desk, or, for scripts, set the "
    f"{ENV_API_KEY} environment variable."
)
NO_KEYRING_HELP = (
    "Install a keyring service and try again: on Linux a Secret Service such as gnome-keyring (or KWallet), "
    "or `pip install keyrings.alt` for a file-based one (weaker: the key is then kept in a file). "
    f"Without one, give the key for each run instead: set {ENV_API_KEY}, or use "
    "`agentdesk run --api-key-env NAME` to read it from the environment variable NAME."
)
"""What `agentdesk key set` says when it cannot keep a key after the process ends."""
PROVIDER_KEY_VARIABLES = {
    "api.openai.com": ENV_API_KEY,
    "api.anthropic.com": "ANTHROPIC_API_KEY",
    "generativelanguage.googleapis.com": "GEMINI_API_KEY",
    "openrouter.ai": "OPENROUTER_API_KEY",
    "api.groq.com": "GROQ_API_KEY",
    "dashscope.aliyuncs.com": "DASHSCOPE_API_KEY",
    "dashscope-intl.aliyuncs.com": "DASHSCOPE_API_KEY",
}
"""The providers' own environment variables, by the host of their OpenAI-compatible endpoint."""
MIN_SECRET_LENGTH = 8
"""Shorter values are not registered for redaction: they would blank out ordinary words."""

_registry: set[str] = set()
_registry_lock = threading.Lock()
_session_secrets: dict[tuple[str, str], str] = {}  # (service, name) -> value, for this process only


def register_secret(value: str | None) -> None:
    """Remember a secret value so that logs and trajectories redact it."""
    if value and len(value.strip()) >= MIN_SECRET_LENGTH:
        with _registry_lock:
            _registry.add(value.strip())


def known_secrets() -> tuple[str, ...]:
    """Every registered secret, longest first (so a longer one is replaced before its parts)."""
    with _registry_lock:
        return tuple(sorted(_registry, key=len, reverse=True))


def _usable_backend(backend: KeyringBackend) -> bool:
    """False for keyring's stand-ins that store nothing: fail, null, or a chainer with no backends."""
    from keyring.backends import chainer, fail, null

    if isinstance(backend, (fail.Keyring, null.Keyring)):
        return False
    if isinstance(backend, chainer.ChainerBackend):
        return any(_usable_backend(inner) for inner in backend.backends)
    return True


def _backend_label(backend: KeyringBackend) -> str:
    """A short name for a backend: its module's last part (SecretService, macOS, Windows, kwallet)."""
    from keyring.backends import chainer

    if isinstance(backend, chainer.ChainerBackend):
        return ", ".join(_backend_label(inner) for inner in backend.backends)
    return type(backend).__module__.rpartition(".")[2]


class SecretStore:
    """Named secrets (e.g. API keys by `ProviderSettings.key_name`) for one keyring service.

    Session-only secrets are shared by every store of the process, so a key typed in the
    settings dialog is seen by the run that starts next.
    """

    def __init__(self, service: str = "AgentDesk") -> None:
        self.service = service
        self.notice = ""
        import keyring

        backend = keyring.get_keyring()
        self._backend: KeyringBackend | None = backend if _usable_backend(backend) else None
        if self._backend is None:
            self._use_session_only("no usable keyring backend was found")

    def __repr__(self) -> str:
        return f"SecretStore(service={self.service!r}, location={self.location()!r})"

    @property
    def keyring_available(self) -> bool:
        return self._backend is not None

    def location(self) -> str:
        """Where secrets go, in words."""
        if self._backend is None:
            return SESSION_ONLY
        return f"the system keyring ({_backend_label(self._backend)})"

    def get(self, name: str) -> str | None:
        from keyring.errors import KeyringError

        value = None
        if self._backend is not None:
            try:
                value = self._backend.get_password(self.service, name)
            except KeyringError as exc:
                self._use_session_only(f"reading from the keyring failed: {exc}")
        if self._backend is None:
            value = _session_secrets.get((self.service, name))
        register_secret(value)
        return value or None

    def set(self, name: str, value: str) -> str:
        """Store a secret; returns where it went, in words."""
        from keyring.errors import KeyringError

        value = value.strip()
        if not value:
            raise ValueError("The key is empty: paste the whole key.")
        register_secret(value)
        if self._backend is not None:
            try:
                self._backend.set_password(self.service, name, value)
                return self.location()
            except KeyringError as exc:
                self._use_session_only(f"saving to the keyring failed: {exc}")
        _session_secrets[(self.service, name)] = value
        return self.location()

    def delete(self, name: str) -> None:
        """Forget a secret; deleting one that is not stored is not an error."""
        from keyring.errors import KeyringError, PasswordDeleteError

        _session_secrets.pop((self.service, name), None)
        if self._backend is None:
            return
        try:
            self._backend.delete_password(self.service, name)
        except PasswordDeleteError:
            pass
        except KeyringError as exc:
            self._use_session_only(f"deleting from the keyring failed: {exc}")

    def _use_session_only(self, reason: str) -> None:
        self._backend = None
        self.notice = SESSION_NOTICE
        log.warning("Secrets are kept for this session only: %s", reason)


def provider_key_variable(base_url: str, declared: str | None = None) -> str:
    """The environment variable that gives a run its key: the one declared, else the provider's own (by its
    endpoint's host), else OPENAI_API_KEY (which still goes only to OpenAI's host unless allowed)."""
    if declared and declared.strip():
        return declared.strip()
    host = base_url.split("://", 1)[-1].split("/", 1)[0].rsplit("@", 1)[-1].split(":", 1)[0].lower()
    return PROVIDER_KEY_VARIABLES.get(host, ENV_API_KEY)


def env_source(variable: str) -> str:
    """Where a key read from the environment came from, in words (never the key)."""
    return f"the {variable} environment variable"


@dataclass(frozen=True)
class KeyChoice:
    """The key a run's model server gets (None: none), where it came from, and, when a key exists but belongs
    to another origin, the sentence saying so and how to allow it."""

    key: str | None
    source: str
    withheld: str = ""

    def __repr__(self) -> str:
        return f"KeyChoice(key={'…' if self.key else None}, source={self.source!r})"


def resolve_api_key(name: str, env: Mapping[str, str] = os.environ, store: SecretStore | None = None,
                    variable: str = ENV_API_KEY, *, goes_to: str, key_origin: str, also_for: Iterable[str] = (),
                    env_goes_anywhere: bool = False) -> KeyChoice:
    """The API key for a model server at the origin `goes_to`.

    The key in the environment variable `variable` wins when it may go there: to its provider's own host,
    to an origin the person allowed (`also_for`), or anywhere when the person at the terminal named the
    server (`env_goes_anywhere`); the keyring is then not read. Else the stored key `name`, when it was
    stored for `goes_to` (`key_origin`) or that origin is allowed. OPENAI_API_KEY is never sent to
    another provider's host. A key that may not go there is withheld, with the sentence saying why.
    """
    allowed = {key_origin, *also_for}
    withheld: list[str] = []
    key: str | None = env.get(variable, "").strip()
    if key:
        register_secret(key)
        own = env_key_origins(variable, PROVIDER_KEY_VARIABLES)
        if env_goes_anywhere or goes_to in own or goes_to in also_for:
            return KeyChoice(key, env_source(variable))
        withheld.append(withheld_sentence(f"The key in {variable}", " and ".join(sorted(own)) or
                                          "no model server of its own", goes_to))
    store = store or SecretStore()
    key = store.get(name)
    if key:
        if goes_to in allowed:
            return KeyChoice(key, store.location())
        withheld.append(withheld_sentence(f"The API key stored in {store.location()}", key_origin, goes_to))
    if withheld:
        return KeyChoice(None, f"none: no key may go to {goes_to}", withheld[-1])
    return KeyChoice(None, f"nowhere: no API key is saved, and {variable} is not set")
