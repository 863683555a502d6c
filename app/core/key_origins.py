"""Where an API key may be sent: the origin (scheme, host, port) it was stored for, and the ones a person allowed.

A stored key belongs to the origin of the base URL it was stored with (`ProviderSettings.key_origin`; a key
stored before origins were kept belongs to the base URL saved beside it). A key in a provider's own
environment variable (GROQ_API_KEY, OPENAI_API_KEY, …) belongs to that provider's https host. Further origins
are the person's to allow (`ProviderSettings.key_also_for`: Settings, or `agentdesk key allow ORIGIN`). A run
whose model server is another origin gets no key: a task, a preset or a redirect cannot take it elsewhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

DEFAULT_PORTS = {"http": 80, "https": 443}


def origin_of(url: str) -> str:
    """`scheme://host[:port]` of an http(s) URL: lower-case, the default port left out, no user or path.
    `localhost` and `127.0.0.1` stay different origins (as browsers keep them). ValueError says what is wrong."""
    text = (url or "").strip()
    try:
        parts = urlsplit(text if "://" in text else f"//{text}")
        port = parts.port
    except ValueError:
        raise ValueError(f"“{text}” is not a web address (scheme://host:port)") from None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise ValueError(f"“{text}” must start with http:// or https://")
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise ValueError(f"“{text}” names no host")
    if ":" in host:                      # an IPv6 address keeps its brackets
        host = f"[{host}]"
    return f"{scheme}://{host}" + (f":{port}" if port is not None and port != DEFAULT_PORTS[scheme] else "")


def origins_of(lines: Iterable[str]) -> list[str]:
    """Each non-blank line's origin, once each, in order; ValueError names the first bad one."""
    found: list[str] = []
    for line in lines:
        if line.strip() and (origin := origin_of(line)) not in found:
            found.append(origin)
    return found


def env_key_origins(variable: str, provider_hosts: dict[str, str]) -> set[str]:
    """The origins a provider's environment variable belongs to: its hosts over https."""
    return {f"https://{host}" for host, name in provider_hosts.items() if name == variable}


def withheld_sentence(what: str, belongs_to: str, origin: str) -> str:
    """Why a key was not sent, and how to allow it: one sentence."""
    return (f"{what} belongs to {belongs_to}, so it is not sent to {origin}, this run's model server. "
            f"To send it there, add {origin} under “Also send this key to” in Settings, or run "
            f"`agentdesk key allow {origin}`.")

