"""The Settings provider: `settings get/put <global|system|secure> key` storage with Android-like defaults."""

from __future__ import annotations

from collections.abc import Callable

NAMESPACES = ("global", "system", "secure")

DEFAULTS: dict[str, dict[str, str]] = {
    "global": {
        "airplane_mode_on": "0",
        "airplane_mode_radios": "cell,bluetooth,wifi,nfc,wimax",
        "wifi_on": "0",
        "bluetooth_on": "0",
        "mobile_data": "1",
        "data_roaming": "0",
        "adb_enabled": "1",
        "development_settings_enabled": "1",
        "device_provisioned": "1",
        "stay_on_while_plugged_in": "0",
        "auto_time": "1",
        "auto_time_zone": "1",
        "window_animation_scale": "1.0",
        "transition_animation_scale": "1.0",
        "animator_duration_scale": "1.0",
        "device_name": "AgentDesk Virtual Phone",
    },
    "system": {
        "screen_brightness": "102",
        "screen_brightness_mode": "0",
        "screen_off_timeout": "60000",
        "accelerometer_rotation": "0",
        "user_rotation": "0",
        "font_scale": "1.0",
        "time_12_24": "12",
        "volume_music": "5",
        "volume_ring": "5",
        "volume_alarm": "6",
        "haptic_feedback_enabled": "1",
        "sound_effects_enabled": "1",
    },
    "secure": {
        "android_id": "a1b2c3d4e5f60718",
        "default_input_method": "com.android.inputmethod.latin/.LatinIME",
        "enabled_input_methods": "com.android.inputmethod.latin/.LatinIME",
        "ui_night_mode": "1",
        "location_mode": "3",
        "bluetooth_name": "AgentDesk Virtual Phone",
        "user_setup_complete": "1",
        "show_ime_with_hard_keyboard": "1",
        "accessibility_enabled": "0",
    },
}


class SettingsStore:
    """Plain storage; `on_put(namespace, key, old, new)` lets the phone react to changes."""

    def __init__(self, on_put: Callable[[str, str, str | None, str], None] | None = None) -> None:
        self._values = {ns: dict(values) for ns, values in DEFAULTS.items()}
        self._on_put = on_put

    def get(self, namespace: str, key: str) -> str | None:
        return self._values.get(namespace, {}).get(key)

    def put(self, namespace: str, key: str, value: str, notify: bool = True) -> None:
        if namespace not in self._values:
            raise KeyError(namespace)
        old = self._values[namespace].get(key)
        self._values[namespace][key] = str(value)
        if notify and self._on_put is not None and old != str(value):
            self._on_put(namespace, key, old, str(value))

    def delete(self, namespace: str, key: str) -> bool:
        return self._values.get(namespace, {}).pop(key, None) is not None

    def flag(self, namespace: str, key: str) -> bool:
        return (self.get(namespace, key) or "0").strip() not in ("0", "", "false")

    def as_int(self, namespace: str, key: str, default: int = 0) -> int:
        try:
            return int(float(self.get(namespace, key) or default))
        except ValueError:
            return default

    def items(self, namespace: str) -> list[tuple[str, str]]:
        return sorted(self._values.get(namespace, {}).items())
