"""agentdesk doctor: is everything a run needs in place? ADB, phones, keyring, API key, the model
(and whether it reads images), the data folder, and whether the window can open on this display.
Each check says what to fix. No Qt here."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from dataclasses import dataclass

from pydantic import ValidationError

from app.cli_agent import load_user_settings
from app.cli_model_server import missing_key_words, model_failure_words
from app.core import paths
from app.core.agent.llm_client import ModelClient, ModelError, ModelImagesRefused
from app.core.agent.model_errors import failure_reason
from app.core.config import ProviderSettings, Settings, describe_validation_error
from app.core.data_folder import data_folder_problem
from app.core.device.errors import ADB_KEYBOARD_FIX, DeviceError
from app.core.device.input_commands import ADB_KEYBOARD_IME
from app.core.key_origins import origin_of
from app.core.runs.service import MissingApiKey, RunRefused, api_key_for, provider_overrides
from app.core.secrets import provider_key_variable
from app.desk import make_key_store
from app.display_check import qt_platform_problem


@dataclass
class Check:
    name: str
    ok: bool
    detail: str


async def run_checks(settings: Settings, env_key_goes_there: bool = False, args=None) -> list[Check]:
    """Every check; with `args` (the command's flags), a model server or key problem names the flags given."""
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
    problem = await asyncio.to_thread(data_folder_problem)
    display = qt_platform_problem()
    checks.append(Check("Display", not display, display or "the desktop app can open its window here"))
    checks.append(Check("Data folder", not problem,
                        problem or f"{paths.data_dir(create=False).parent} can be written to"))
    store = make_key_store()
    checks.append(Check("Keyring", store.keyring_available,
                        store.location() if store.keyring_available else store.notice))
    try:
        key, source = api_key_for(settings, store, env_goes_anywhere=env_key_goes_there)
        checks.append(Check("API key", True, f"from {source}, sent to {origin_of(settings.provider.base_url)}"
                            if key else "not needed for a local server"))
    except MissingApiKey as exc:
        key, source = None, "none"
        words = str(exc)
        if args is not None and type(exc) is MissingApiKey:
            words = missing_key_words(args, settings, provider_key_variable(settings.provider.base_url))
        checks.append(Check("API key", False, words))
    explain = None if args is None else (lambda reason: model_failure_words(reason, args, settings, source))
    async with ModelClient(settings.provider, key) as client:
        checks.extend(await check_model(client, settings, explain))
    return checks


PROBE_QUESTION = "Reply with the word OK."


def probe_image_url() -> str:
    """A tiny (8×8) white PNG as a data URL: enough for a server to say whether the model takes images."""
    import base64
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), (255, 255, 255)).save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


async def check_model(client: ModelClient, settings: Settings,
                      explain: Callable[[str], str] | None = None) -> list[Check]:
    """The endpoint, the model's name, an answer, and whether the model reads images.

    The question goes with a tiny picture: a model that answers reads images (and is taken off
    the text-only list); one the server refuses it for reads text only, which is fine when
    the image setting is "none" and otherwise says how to set it. Then it is asked in text. A failure is
    first said by `explain(reason)` when it has words for it (the flags the person passed).
    """
    checks: list[Check] = []
    try:
        models = await client.list_models()
        listed = settings.provider.model in models or not models
        checks.append(Check("Model endpoint", True, f"{settings.provider.base_url} answers ({len(models)} models)"))
        checks.append(Check(f"Model {settings.provider.model}", listed,
                            "offered by the endpoint" if listed
                            else "not in the endpoint's list: check the name in Settings"))
        probe = [{"role": "user", "content": [{"type": "text", "text": PROBE_QUESTION},
                                              {"type": "image_url", "image_url": {"url": probe_image_url()}}]}]
        try:
            response = await client.complete(probe, fall_back_to_text=False)
            await client.forget_text_only()
            checks.append(Check("Model reads images", True, "a test picture was accepted"))
        except ModelImagesRefused as exc:
            text_only_chosen = settings.images.text_only
            advice = ("the image setting is \"none\" (text only), as it should be" if text_only_chosen else
                      "set Images → Send to \"none\" (text only) in Settings, or choose a model that can see; "
                      "a run switches to text only by itself after the first refusal")
            checks.append(Check("Model reads images", text_only_chosen,
                                f"this model reads text only (the server said: {exc.detail}); {advice}"))
            response = await client.complete([{"role": "user", "content": PROBE_QUESTION}])
        checks.append(Check("Model answers", bool(response.text or response.tool_arguments),
                            f"replied in {response.duration_ms:.0f} ms"))
    except ModelError as exc:
        said = explain(failure_reason(exc)) if explain is not None else ""
        checks.append(Check("Model endpoint", False, f"{said} ({exc})" if said else str(exc)))
    return checks


def doctor_settings(args, settings: Settings) -> Settings:
    """The saved settings with `--preset` / `--base-url` / `--model` applied, as `agentdesk run` applies them
    (validated like the file; ValueError says why)."""
    given = {name: (getattr(args, name, None) or "").strip() for name in ("preset", "base_url", "model")}
    try:
        overrides = provider_overrides(given["preset"] or None, given["base_url"] or None, given["model"] or None)
    except RunRefused as exc:
        raise ValueError(str(exc)) from None
    if not overrides:
        return settings
    try:
        provider = ProviderSettings.model_validate({**settings.provider.model_dump(), **overrides})
    except ValidationError as exc:
        raise ValueError(describe_validation_error(exc)) from None
    return settings.model_copy(update={"provider": provider})


def cmd_doctor(args) -> int:
    try:
        settings = doctor_settings(args, load_user_settings())
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    named_here = bool((getattr(args, "base_url", None) or "").strip())   # the person at the terminal named it
    checks = asyncio.run(run_checks(settings, env_key_goes_there=named_here, args=args))
    width = max(len(c.name) for c in checks)
    for check in checks:
        print(f"{'ok ' if check.ok else 'FIX'}  {check.name:<{width}}  {check.detail}")
    return 0 if all(c.ok for c in checks) else 1
