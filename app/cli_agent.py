"""agentdesk run / doctor / key: the agent from the terminal. No Qt here."""

from __future__ import annotations

import asyncio
import getpass
import json
import signal
import sys
from dataclasses import dataclass

from app.console import ConsoleSupervisor
from app.core import paths
from app.core.agent.agent_run import AgentRun
from app.core.agent.llm_client import ModelClient, ModelError
from app.core.agent.run_context import RunEvents
from app.core.agent.trajectory import TrajectoryWriter
from app.core.config import AgentSettings, ProviderSettings, Settings, load_settings, needs_api_key
from app.core.device.errors import ADB_KEYBOARD_FIX, DeviceError
from app.core.device.input_commands import ADB_KEYBOARD_IME
from app.core.device.phone_connection import open_phone
from app.core.redaction import setup_logging
from app.core.secrets import SecretStore, resolve_api_key



def load_user_settings(err=None) -> Settings:
    settings, warnings = load_settings(paths.settings_path())
    for warning in warnings:
        print(f"warning: {warning}", file=err or sys.stderr)
    return settings




def apply_overrides(settings: Settings, args) -> Settings:
    """Command-line options win over the settings file (validated like the file is)."""
    provider = {k: v for k, v in (("base_url", args.base_url), ("model", args.model)) if v}
    agent = {"max_steps": args.max_steps} if args.max_steps else {}
    if args.auto or args.step:
        agent["mode"] = "auto" if args.auto else "step"
    return Settings(provider=ProviderSettings.model_validate({**settings.provider.model_dump(), **provider}),
                    images=settings.images, prices=settings.prices,
                    agent=AgentSettings.model_validate({**settings.agent.model_dump(), **agent}))


async def run_request(args) -> int:
    settings = apply_overrides(load_user_settings(), args)
    key, key_source = resolve_api_key(settings.provider.key_name)
    if key is None and needs_api_key(settings.provider.base_url):
        print("error: no API key. Store one with `agentdesk key set`, or set OPENAI_API_KEY for scripts.",
              file=sys.stderr)
        return 2
    connection = await open_phone(args.device)
    console = ConsoleSupervisor(out=sys.stderr if args.json else sys.stdout)
    try:
        if connection.note:
            print(connection.note, file=sys.stderr)
        device = connection.device
        screen = await device.screen_info()
        trajectory = await asyncio.to_thread(
            TrajectoryWriter.create, args.request,
            {"serial": device.serial, "model": connection.listing.model, "size": list(screen.display_size),
             "virtual": connection.is_virtual},
            {"base_url": settings.provider.base_url, "model": settings.provider.model, "key_from": key_source},
            settings.model_dump(mode="json"))
        events = RunEvents(step_finished=console.step_finished, message=lambda text: console.say(f"  {text}"))
        async with ModelClient(settings.provider, key) as client:
            run = AgentRun(args.request, device, settings, client, console, trajectory=trajectory, events=events)
            try:
                asyncio.get_running_loop().add_signal_handler(signal.SIGINT, run.stop)
            except (NotImplementedError, RuntimeError):
                pass
            console.say(f"Running “{args.request}” on {device.serial} with {settings.provider.model} "
                        f"({settings.agent.mode} mode, at most {settings.agent.max_steps} steps)")
            result = await run.run()
    finally:
        await asyncio.to_thread(connection.close)
    console.say(f"\nResult: {result.status} after {result.steps_taken} steps in {result.time_seconds:.1f} s"
                f" — {result.completion_reason}")
    console.say(f"Trajectory: {result.run_dir}\nReport:     {result.report_path}")
    if args.json:
        print(json.dumps(result.to_dict(), indent=1))
    return 0 if result.succeeded else 1


def cmd_run(args) -> int:
    setup_logging(args.verbose)
    return asyncio.run(run_request(args))


# ---------------------------------------------------------------------------- doctor


@dataclass
class Check:
    name: str
    ok: bool
    detail: str


async def run_checks(settings: Settings) -> list[Check]:
    from app.core.device.adb_transport import AdbTransport
    from app.core.device.android_device import AndroidDevice

    checks: list[Check] = []
    transport = AdbTransport()
    try:
        version = await asyncio.to_thread(transport.server_version)
        checks.append(Check("ADB server", True, f"{transport.address}, protocol version {version}"))
        devices = await asyncio.to_thread(transport.list_devices)
    except DeviceError as exc:
        checks.append(Check("ADB server", False, str(exc)))
        devices = []
    if not devices:
        checks.append(Check("Phones", False, "none attached. Turn on USB debugging and plug the phone in, or "
                                             "`adb connect HOST:PORT`. The app uses its virtual phone meanwhile."))
    for listing in devices:
        checks.append(Check(f"Phone {listing.serial}", listing.ready, listing.describe_state()))
        if listing.ready:
            ime_ids, _ = await AndroidDevice(transport, listing.serial).input_methods()
            has_keyboard = ADB_KEYBOARD_IME in ime_ids
            checks.append(Check(f"ADB Keyboard on {listing.serial}", has_keyboard,
                                "installed: any text can be typed" if has_keyboard
                                else "not installed: only ASCII text can be typed. " + ADB_KEYBOARD_FIX))
    store = SecretStore()
    checks.append(Check("Keyring", store.keyring_available, store.location() if store.keyring_available else store.notice))
    key, source = resolve_api_key(settings.provider.key_name, store=store)
    if key is None and needs_api_key(settings.provider.base_url):
        checks.append(Check("API key", False, "none stored: `agentdesk key set`, or set OPENAI_API_KEY"))
    else:
        checks.append(Check("API key", True, f"from {source}" if key else "not needed for a local server"))
    async with ModelClient(settings.provider, key) as client:
        checks.extend(await check_model(client, settings))
    return checks


async def check_model(client: ModelClient, settings: Settings) -> list[Check]:
    checks: list[Check] = []
    try:
        models = await client.list_models()
        listed = settings.provider.model in models or not models
        checks.append(Check("Model endpoint", True, f"{settings.provider.base_url} answers ({len(models)} models)"))
        checks.append(Check(f"Model {settings.provider.model}", listed,
                            "offered by the endpoint" if listed else "not in the endpoint's list: check the name in Settings"))
        response = await client.complete([{"role": "user", "content": "Reply with the word OK."}])
        checks.append(Check("Model answers", bool(response.text or response.tool_arguments),
                            f"replied in {response.duration_ms:.0f} ms"))
    except ModelError as exc:
        checks.append(Check("Model endpoint", False, str(exc)))
    return checks


def cmd_doctor(args) -> int:
    checks = asyncio.run(run_checks(load_user_settings()))
    width = max(len(c.name) for c in checks)
    for check in checks:
        print(f"{'ok ' if check.ok else 'FIX'}  {check.name:<{width}}  {check.detail}")
    return 0 if all(c.ok for c in checks) else 1


# ---------------------------------------------------------------------------- key


def cmd_key(args) -> int:
    store = SecretStore()
    name = args.name
    if args.action == "set":
        value = sys.stdin.readline().strip() if not sys.stdin.isatty() else getpass.getpass("API key (not shown): ")
        if not value:
            print("error: no key given", file=sys.stderr)
            return 2
        where = store.set(name, value)
        print(f"API key '{name}' stored in {where}.")
        if store.notice:
            print(store.notice)
        return 0
    if args.action == "delete":
        store.delete(name)
        print(f"API key '{name}' deleted from {store.location()}.")
        return 0
    key, source = resolve_api_key(name, store=store)
    print(f"API key '{name}': {'found in ' + source if key else 'not set'}.")
    if store.notice:
        print(store.notice)
    return 0 if key else 1
