"""What a run records about the phone besides its id and model: its Android version and screen size.

Read once per device (one `getprop` and the screen facts the device layer caches), so a skill
or a screen map can tell where it was recorded; a phone that cannot tell leaves them out.
"""

from __future__ import annotations

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
