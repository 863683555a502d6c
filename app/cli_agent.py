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
from app.core.agent.events import Message, QuestionAsked, ReviewRequested, StepRecorded
from app.core.agent.llm_client import ModelClient, ModelError
from app.core.config import Settings, load_settings
from app.core.device.errors import ADB_KEYBOARD_FIX, DeviceError
from app.core.device.input_commands import ADB_KEYBOARD_IME
from app.core.device.phone_session import PhoneRegistry
from app.core.redaction import setup_logging
from app.core.runs.handle import RunHandle
from app.core.runs.service import MissingApiKey, RunRefused, RunRequest, RunService, api_key_for, settings_for
from app.core.secrets import SecretStore, resolve_api_key
from app.phone_connection import open_phone



def load_user_settings(err=None) -> Settings:
    settings, warnings = load_settings(paths.settings_path())
    for warning in warnings:
        print(f"warning: {warning}", file=err or sys.stderr)
    return settings


def run_request_from_args(args) -> RunRequest:
    """`agentdesk run`'s options as a RunRequest (the run service applies and validates them)."""
    mode = "auto" if args.auto else "step" if args.step else None
    return RunRequest(args.request, phone=args.device, mode=mode, max_steps=args.max_steps,
                      provider={"base_url": args.base_url, "model": args.model})


def follow_on_console(handle: RunHandle, console: ConsoleSupervisor) -> None:
    """Print the run's steps and messages; ask the person at the keyboard when the run waits for them."""
    asking: set[asyncio.Task] = set()

    def spawn(coro) -> None:
        task = asyncio.ensure_future(coro)
        asking.add(task)
        task.add_done_callback(asking.discard)

    async def review(proposal) -> None:
        answer = await console.review(proposal)
        if handle.awaiting_review:
            handle.answer(answer)

    async def ask(question: str) -> None:
        text = await console.ask(question)
        if handle.awaiting_answer:
            handle.answer_question(text)

    def on_event(event) -> None:
        if isinstance(event, StepRecorded):
            console.step_finished(event.item)
        elif isinstance(event, Message):
            console.say(f"  {event.text}")
        elif isinstance(event, ReviewRequested):
            spawn(review(event.proposal))
        elif isinstance(event, QuestionAsked):
            spawn(ask(event.question))

    handle.events.subscribe(on_event)


async def run_request(args) -> int:
    base = load_user_settings()
    request = run_request_from_args(args)
    try:
        settings = settings_for(base, request)
        await asyncio.to_thread(api_key_for, settings, None)
    except RunRefused as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    phones = PhoneRegistry()
    try:
        connection = await open_phone(args.device, registry=phones)
    except DeviceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    console = ConsoleSupervisor(out=sys.stderr if args.json else sys.stdout)
    service = RunService(phones, base)
    try:
        if connection.note:
            print(connection.note, file=sys.stderr)
        try:
            handle = await service.start(request)
        except (RunRefused, DeviceError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        follow_on_console(handle, console)
        try:
            asyncio.get_running_loop().add_signal_handler(signal.SIGINT, handle.stop)
        except (NotImplementedError, RuntimeError):
            pass
        console.say(f"Running “{args.request}” on {connection.session.id} with {settings.provider.model} "
                    f"({settings.agent.mode} mode, at most {settings.agent.max_steps} steps)")
        result = await handle.wait()
    finally:
        await service.shutdown()
        await phones.close()
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
    try:
        key, source = api_key_for(settings, store)
        checks.append(Check("API key", True, f"from {source}" if key else "not needed for a local server"))
    except MissingApiKey as exc:
        key = None
        checks.append(Check("API key", False, str(exc)))
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
