"""Test support: ADB Keyboard's APK as github.com/senzhk/ADBKeyBoard builds it, made with the same APK
builder the install tests use (tests/virtual_phone/fake_apk.py).

Its manifest, like the real one: package com.android.adbkeyboard, version 2 ("2.0"), minSdk 21,
targetSdk 33, no activity at all, and one service `AdbIME` (written without a leading dot, as the
real manifest writes it) guarded by BIND_INPUT_METHOD with an android.view.InputMethod intent filter.
"""

from __future__ import annotations

from pathlib import Path

from tests.virtual_phone.fake_apk import build_apk

PACKAGE = "com.android.adbkeyboard"
IME = "com.android.adbkeyboard/.AdbIME"


def adb_keyboard_apk(**manifest) -> bytes:
    """The APK's bytes; `manifest` overrides (version_code=5, target_sdk=19, input_method=None…)."""
    fields = dict(label="ADBKeyBoard", version_code=2, version_name="2.0", min_sdk=21, target_sdk=33,
                  activities=(), input_method="AdbIME")
    fields.update(manifest)
    return build_apk(PACKAGE, **fields)


def write_adb_keyboard_apk(folder: Path, name: str = "ADBKeyboard.apk", **manifest) -> Path:
    """The APK written to `folder`/`name`, as a person's download would be."""
    path = Path(folder) / name
    path.write_bytes(adb_keyboard_apk(**manifest))
    return path
