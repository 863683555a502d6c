"""What `agentdesk run` says when the model's server cannot be used, naming what the person typed.

A person who passed `--preset llama.cpp` or `--base-url URL` reads about those flags first (what the
server was, what to start or pass instead) and only then about Settings, which the run did not use
for the server. With no flag, the words name the base URL in Settings and the flags that would
choose another server for one run. No key is ever part of these words, only where one came from.
"""

from __future__ import annotations

import re

from app.core.config import Settings
from app.core.providers import find_preset

START_COMMANDS = {"llama.cpp": "start llama-server there", "Ollama": "start it there (`ollama serve`)",
                  "LM Studio": "start the server in LM Studio", "vLLM": "start `vllm serve MODEL` there"}
"""How to start a local preset's server, in the words a person types."""

LOCAL_SERVER_FLAGS = "--preset llama.cpp, --preset Ollama or --base-url http://localhost:PORT/v1"
"""A run against a server on this machine needs no key: the flags that choose one."""


def flag_value(args, name: str) -> str:
    """The value the person gave for `--name` ("" when not given)."""
    return str(getattr(args, name.replace("-", "_"), None) or "")


def _preset_name(args) -> str:
    given = flag_value(args, "preset")
    if not given:
        return ""
    try:
        return find_preset(given).name
    except ValueError:
        return given


def server_words(args, settings: Settings) -> str:
    """The model's server as the person named it: "--preset llama.cpp (base URL …)", "--base-url URL", or
    "the base URL in Settings (…)"."""
    url = settings.provider.base_url
    preset = flag_value(args, "preset")
    if flag_value(args, "base-url"):
        return f"--base-url {url}" + (f" (with --preset {preset})" if preset else "")
    if preset:
        return f"--preset {preset} (base URL {url})"
    return f"the base URL in Settings ({url})"


def named_by_flags(args) -> bool:
    return bool(flag_value(args, "preset") or flag_value(args, "base-url"))


def unreachable_words(args, settings: Settings, reason: str = "") -> str:
    """The server did not answer: what to start, which flag to pass, and only then Settings."""
    because = f" ({reason})" if reason else ""
    start = START_COMMANDS.get(_preset_name(args), "start the server there")
    if named_by_flags(args):
        return (f"{server_words(args, settings)} did not answer{because}: {start}, or pass --base-url with the "
                "address your server listens on (without --preset and --base-url, runs use the base URL in Settings).")
    return (f"{server_words(args, settings)} did not answer{because}: {start}, or choose the server for this run "
            "with --preset NAME or --base-url URL, or change the base URL in Settings.")


def key_refused_words(args, settings: Settings, key_source: str) -> str:
    """The server refused the key (HTTP 401/403): where the key came from, the flag that gives another."""
    where = f" (from {key_source})" if key_source and key_source != "none" else ""
    return (f"{server_words(args, settings)} refused the API key{where}: pass the right one with --api-key-env NAME, "
            "or store it with `agentdesk key set`, or check the key in Settings.")


def missing_key_words(args, settings: Settings, variable: str) -> str:
    """No key was found for a server that needs one (a fresh set-up too): every way to give one, or to choose a
    local server that needs none, flags first."""
    env_name = flag_value(args, "api-key-env")
    if env_name:
        return (f"--api-key-env {env_name}: the environment variable {env_name} is not set or empty, so "
                f"{server_words(args, settings)} gets no API key. Set it, or leave out --api-key-env to use "
                f"{variable} or the stored key (`agentdesk key set`, or Settings).")
    return (f"{server_words(args, settings)} needs an API key, and none was found: set {variable} or pass "
            "--api-key-env NAME for this run, or store one with `agentdesk key set` (or in Settings). A server on "
            f"this machine needs none: {LOCAL_SERVER_FLAGS}.")


def timeout_words(args, settings: Settings) -> str:
    return (f"{server_words(args, settings)} did not answer in time ({settings.provider.timeout_seconds:g} s): "
            "a local server may still be busy; try again, or pass --base-url for another server, or raise the "
            "timeout in Settings.")


def not_found_words(args, settings: Settings) -> str:
    return (f"{server_words(args, settings)} has no model called '{settings.provider.model}': pass --model with "
            "one it serves, or --base-url if the address is wrong (or check both in Settings).")


_PREFLIGHT_REASON = re.compile(r"cannot be reached \((.*)\): ")


def preflight_reason(words: str) -> str:
    """The reason in the preflight's "cannot be reached (…)" sentence ("" when it has none)."""
    match = _PREFLIGHT_REASON.search(words)
    return match.group(1) if match else ""


def model_failure_words(reason: str, args, settings: Settings, key_source: str) -> str:
    """The flag-naming sentence for a run's model failure (`events.ModelFailed.reason`); "" when there is none."""
    if reason == "unreachable":
        return unreachable_words(args, settings)
    if reason == "key_refused":
        return key_refused_words(args, settings, key_source)
    if reason == "timeout":
        return timeout_words(args, settings)
    if reason == "not_found":
        return not_found_words(args, settings)
    return ""
