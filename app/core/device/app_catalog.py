"""Installed apps: parsing `pm list packages` and finding a package from what a person calls the app."""

from __future__ import annotations

import re

# Labels of common apps whose package names do not contain their label.
WELL_KNOWN_LABELS: dict[str, tuple[str, ...]] = {
    "settings": ("com.android.settings",),
    "chrome": ("com.android.chrome",),
    "browser": ("com.android.chrome", "com.android.browser", "org.mozilla.firefox"),
    "youtube": ("com.google.android.youtube",),
    "gmail": ("com.google.android.gm",),
    "email": ("com.google.android.gm", "com.android.email"),
    "maps": ("com.google.android.apps.maps",),
    "play store": ("com.android.vending",),
    "photos": ("com.google.android.apps.photos",),
    "gallery": ("com.google.android.apps.photos", "com.android.gallery3d", "com.sec.android.gallery3d"),
    "camera": ("com.android.camera2", "com.android.camera", "com.google.android.GoogleCamera"),
    "phone": ("com.google.android.dialer", "com.android.dialer"),
    "dialer": ("com.google.android.dialer", "com.android.dialer"),
    "messages": ("com.google.android.apps.messaging", "com.android.messaging", "com.android.mms"),
    "sms": ("com.google.android.apps.messaging", "com.android.messaging", "com.android.mms"),
    "contacts": ("com.google.android.contacts", "com.android.contacts"),
    "clock": ("com.google.android.deskclock", "com.android.deskclock"),
    "alarm": ("com.google.android.deskclock", "com.android.deskclock"),
    "calendar": ("com.google.android.calendar", "com.android.calendar"),
    "calculator": ("com.google.android.calculator", "com.android.calculator2"),
    "files": ("com.google.android.documentsui", "com.android.documentsui"),
    "whatsapp": ("com.whatsapp",),
    "telegram": ("org.telegram.messenger",),
    "wechat": ("com.tencent.mm",),
    "instagram": ("com.instagram.android",),
    "facebook": ("com.facebook.katana",),
    "twitter": ("com.twitter.android",),
    "x": ("com.twitter.android",),
    "tiktok": ("com.zhiliaoapp.musically", "com.ss.android.ugc.aweme"),
    "spotify": ("com.spotify.music",),
    "notes": ("com.google.android.keep", "com.agentdesk.notes"),
    "keep": ("com.google.android.keep",),
}

_PACKAGE_RE = re.compile(r"^[A-Za-z][\w]*(\.[A-Za-z_][\w]*)+$")


def parse_package_list(output: str) -> list[str]:
    """`pm list packages` output → sorted package names."""
    return sorted({line[len("package:"):].strip() for line in output.splitlines() if line.startswith("package:")})


def looks_like_package(name: str) -> bool:
    return bool(_PACKAGE_RE.match(name.strip()))


def resolve_app(name: str, installed: list[str]) -> str | None:
    """Find the package a person means by an app name ("Settings", "notes", "com.x.y").

    Tries, in order: the exact package; a well-known label; a package whose last
    segments contain every word of the name. None when nothing (or nothing unique) fits.
    """
    wanted = name.strip()
    if wanted in installed:
        return wanted
    label = wanted.lower()
    for package in WELL_KNOWN_LABELS.get(label, ()):
        if package in installed:
            return package
    words = [w for w in re.split(r"[^a-z0-9]+", label) if w]
    if not words:
        return None
    matches = [p for p in installed if all(w in p.lower().split(".", 1)[-1] for w in words)]
    if len(matches) == 1:
        return matches[0]
    # Prefer a package whose last segment is exactly the name ("com.android.deskclock" for "deskclock").
    exact = [p for p in matches if p.lower().rsplit(".", 1)[-1] == "".join(words)]
    return exact[0] if len(exact) == 1 else None
