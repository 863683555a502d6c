"""agentdesk key: the API key in the OS keyring, and the servers it may go to. No Qt here."""

from __future__ import annotations

import getpass
import os
import sys

from app.cli_agent import load_user_settings
from app.core import paths
from app.core.config import load_settings, save_settings
from app.core.key_origins import env_key_origins, origin_of
from app.core.secrets import (
    NO_KEYRING_HELP,
    PROVIDER_KEY_VARIABLES,
    SESSION_ONLY,
    SecretStore,
    env_source,
    provider_key_variable,
)
from app.desk import make_key_store


def cmd_key(args) -> int:
    """Store, delete or show the API key, or allow it further origins. Storing needs a keyring: a key kept only
    for this process would be gone when the command ends, so that is an error that names what to install."""
    if args.action in ("allow", "disallow"):
        return key_origins_command(args.action, getattr(args, "origin", None))
    store = make_key_store()
    name = args.name
    if args.action == "set":
        if not store.keyring_available:
            print(f"error: could not store the API key: no keyring is available on this system. {NO_KEYRING_HELP}",
                  file=sys.stderr)
            return 1
        value = sys.stdin.readline().strip() if not sys.stdin.isatty() else getpass.getpass("API key (not shown): ")
        if not value:
            print("error: no key given", file=sys.stderr)
            return 2
        where = store.set(name, value)
        if where == SESSION_ONLY:      # the keyring failed when used (locked, D-Bus gone, …)
            store.delete(name)
            print(f"error: could not store the API key: the keyring refused it. {NO_KEYRING_HELP}", file=sys.stderr)
            return 1
        print(f"API key '{name}' stored in {where}.")
        print(key_belongs_to_saved_url(name))
        return 0
    if args.action == "delete":
        store.delete(name)
        print(f"API key '{name}' deleted from {store.location()}.")
        return 0
    return key_status(name, store)


def key_belongs_to_saved_url(name: str) -> str:
    """After `key set`: the key belongs to the base URL in Settings (saved so); what to say about it."""
    settings, warnings = load_settings(paths.settings_path())
    if name != settings.provider.key_name:
        return f"Runs use the key '{settings.provider.key_name}' (Settings), not '{name}'."
    origin = origin_of(settings.provider.base_url)
    if not warnings and settings.provider.key_origin != origin:
        save_settings(settings.model_copy(update={"provider": settings.provider.model_copy(
            update={"key_origin": origin})}), paths.settings_path())
    return (f"It goes only to {origin} (the base URL in Settings); allow another server with "
            "`agentdesk key allow ORIGIN`.")


def key_origins_command(action: str, given: str | None) -> int:
    """`agentdesk key allow|disallow ORIGIN`: let the key go to one more origin, or no longer."""
    try:
        origin = origin_of(given or "")
    except ValueError as exc:
        print(f"error: {exc}. Give the server's origin, e.g. `agentdesk key {action} https://llm.example.com`.",
              file=sys.stderr)
        return 2
    settings, warnings = load_settings(paths.settings_path())
    if warnings:
        for warning in warnings:
            print(f"warning: {warning}", file=sys.stderr)
        print("error: the settings file has problems (above); fix them first, so that saving keeps what you wrote.",
              file=sys.stderr)
        return 2
    also = [other for other in settings.provider.key_also_for if other != origin]
    if action == "allow":
        also.append(origin)
    save_settings(settings.model_copy(update={"provider": settings.provider.model_copy(
        update={"key_also_for": also})}), paths.settings_path())
    if action == "allow":
        print(f"The API key (stored, or OPENAI_API_KEY in the environment) may now also go to {origin}.")
    else:
        print(f"The API key no longer goes to {origin}." if origin != settings.provider.key_origin else
              f"{origin} is the server the key was stored for, so it still goes there "
              "(`agentdesk key delete` forgets the key).")
    return 0


def key_status(name: str, store: SecretStore) -> int:
    """Say where the key is stored, which origins it goes to, and whether the environment gives runs another one."""
    settings = load_user_settings()
    provider = settings.provider
    variable = provider_key_variable(provider.base_url)
    stored = store.get(name)
    print(f"API key '{name}': {'found in ' + store.location() if stored else 'not stored'}.")
    if stored:
        print(f"It goes to {provider.key_origin} (the server it was stored for).")
    if provider.key_also_for:
        print(f"Also sent to: {', '.join(provider.key_also_for)}.")
    given = os.environ.get(variable, "").strip()
    if given:
        print(f"Runs use the key from {env_source(variable)}" + (", not the stored one." if stored else "."))
    base = origin_of(provider.base_url)
    if (stored or given) and base not in {provider.key_origin, *provider.key_also_for} \
            and base not in env_key_origins(variable, PROVIDER_KEY_VARIABLES):
        print(f"The base URL in Settings ({base}) is another origin: runs there get no key until you allow it "
              f"(`agentdesk key allow {base}`).")
    if store.notice:
        print(store.notice)
    return 0 if stored or given else 1
