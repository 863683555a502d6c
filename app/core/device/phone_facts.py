"""What a run records about the phone besides its id and model: its Android version, screen size, app versions.

Read once per device (one `getprop` and the screen facts the device layer caches), so a skill
or a screen map can tell where it was recorded; a phone that cannot tell leaves them out.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import re
import shlex
from collections.abc import Callable

from app.core.device.android_device import AndroidDevice
from app.core.device.errors import DeviceError

_FACTS_ATTRIBUTE = "_recorded_facts"


async def phone_facts(device: AndroidDevice) -> dict:
    """{"android_version", "sdk", "screen_size": [w, h]} as far as the phone tells (cached on the device)."""
    cached = getattr(device, _FACTS_ATTRIBUTE, None)
    if cached is not None:
        return dict(cached)
    facts: dict = {}
    try:
        release, sdk = (await device.shell("getprop ro.build.version.release; getprop ro.build.version.sdk")
                        ).split("\n")[:2]
        facts.update({key: value.strip() for key, value in (("android_version", release), ("sdk", sdk))
                      if value.strip()})
        screen = await device.screen_info()
        facts["screen_size"] = [screen.width, screen.height]
    except (DeviceError, ValueError) as exc:       # an old or odd phone: the run goes on without them
        facts["facts_error"] = str(exc)[:200]
        return facts
    setattr(device, _FACTS_ATTRIBUTE, facts)
    return dict(facts)


APP_VERSION_TIMEOUT = 15.0


def app_version_reader(device: AndroidDevice, loop: asyncio.AbstractEventLoop) -> Callable[[str], str]:
    """A blocking `package → versionName` for worker threads (the screens graph's recorder), asking the phone
    on `loop` once per package and device; "" when the phone cannot tell."""
    versions = device._app_versions

    def read(package: str) -> str:
        if package not in versions:
            command = f"dumpsys package {shlex.quote(package)} | grep -m1 versionName"
            try:
                output = asyncio.run_coroutine_threadsafe(device.shell(command), loop).result(APP_VERSION_TIMEOUT)
            except (DeviceError, TimeoutError, RuntimeError, concurrent.futures.TimeoutError):
                return ""           # asked again next time: the phone may answer later
            found = re.search(r"versionName=(\S+)", output)
            versions[package] = found.group(1) if found else ""
        return versions[package]
    return read
