"""Which phone the virtual phone pretends to be: Android version, screen and dump format.

Two generations are modelled, because real fleets hold both:
- `android14`: a recent phone (Android 14, 1080×2400, 420 dpi). Its `uiautomator dump` writes
  `drawing-order` and `hint` after `bounds`, as the dumper of recent releases does (the corpus's
  recent phones); older releases' dumper stops at `bounds`.
- `android9`: an older, smaller one (Android 9, 720×1280, 320 dpi). Its dumps stop at `bounds`.
The attribute sets match the plain dumps in the shared corpus of real phones.
"""

from __future__ import annotations

from dataclasses import dataclass

# The attributes every plain dump writes, in the order the phone writes them.
BASE_DUMP_ATTRIBUTES = ("index", "text", "resource-id", "class", "package", "content-desc", "checkable",
                        "checked", "clickable", "enabled", "focusable", "focused", "scrollable",
                        "long-clickable", "password", "selected", "bounds")


@dataclass(frozen=True)
class DeviceProfile:
    name: str
    release: str             # ro.build.version.release
    sdk: int                 # ro.build.version.sdk
    width: int
    height: int
    density: int
    model: str
    build_id: str
    security_patch: str

    @property
    def dump_attributes(self) -> tuple[str, ...]:
        """Attribute names of one dump node, in order (NAF="true", when written, comes first)."""
        if self.sdk >= 31:   # where between 9 and 14 the newer dumper arrived is not pinned down
            return BASE_DUMP_ATTRIBUTES + ("drawing-order", "hint")
        return BASE_DUMP_ATTRIBUTES

    @property
    def fingerprint(self) -> str:
        return f"agentdesk/virtual/virtual:{self.release}/{self.build_id}/1:userdebug/test-keys"


ANDROID_14 = DeviceProfile(name="android14", release="14", sdk=34, width=1080, height=2400, density=420,
                           model="AgentDesk Virtual Phone", build_id="AD1A.241121.001", security_patch="2024-11-05")
ANDROID_9 = DeviceProfile(name="android9", release="9", sdk=28, width=720, height=1280, density=320,
                          model="AgentDesk Virtual Phone 9", build_id="PQ3A.190801.002", security_patch="2019-08-01")

PROFILES = {p.name: p for p in (ANDROID_14, ANDROID_9)}


def profile_named(name: str) -> DeviceProfile:
    try:
        return PROFILES[name.lower().replace(" ", "").replace("-", "")]
    except KeyError:
        raise ValueError(f"unknown phone profile {name!r}; choose one of {', '.join(PROFILES)}") from None
