"""Can Qt open a window here? Asked before Qt is loaded, because when it cannot, Qt aborts the process
(exit 134) with a message that names a plugin, not the package to install. No Qt here.

On Linux, Qt's X11 plugin (xcb) needs a few system libraries that a minimal or server install
lacks; since Qt 6.5 `libxcb-cursor0` is the one most often missing. `qt_platform_problem()` tries
to load each (by its soname, as the dynamic loader would, so a bundle's own copies count) and says
which packages to install, or that there is no display at all. Other systems have no such gap.
"""

from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path

# soname → (Debian/Ubuntu package, Fedora package), for what Qt's xcb platform plugin loads.
XCB_LIBRARIES: dict[str, tuple[str, str]] = {
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11"),
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms"),
    "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil"),
    "libxcb-shape.so.0": ("libxcb-shape0", "libxcb"),
    "libxcb-randr.so.0": ("libxcb-randr0", "libxcb"),
    "libxcb-xkb.so.1": ("libxcb-xkb1", "libxcb"),
    "libEGL.so.1": ("libegl1", "libglvnd-egl"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig"),
}
HEADLESS_PLATFORMS = ("offscreen", "minimal", "vnc")


def _loads(soname: str) -> bool:
    """Whether the dynamic loader finds the library, or (in a bundle) the bundle carries its own copy,
    which Qt's libraries find by their relative search path."""
    try:
        ctypes.CDLL(soname)
    except OSError:
        bundle = getattr(sys, "_MEIPASS", None)
        if not bundle:
            return False
        return next(Path(bundle).rglob(soname), None) is not None
    return True


def missing_xcb_libraries(loads=_loads) -> list[str]:
    """The sonames of Qt's X11 plugin's libraries that cannot be loaded here."""
    return [soname for soname in XCB_LIBRARIES if not loads(soname)]


def qt_platform_problem(environ=os.environ, platform: str = sys.platform, loads=_loads) -> str:
    """Why Qt could not open a window here, with the fix; "" when nothing is known to stop it."""
    if not platform.startswith("linux"):
        return ""
    chosen = environ.get("QT_QPA_PLATFORM", "").split(":", 1)[0]
    if chosen in HEADLESS_PLATFORMS:
        return ""
    x11, wayland = bool(environ.get("DISPLAY")), bool(environ.get("WAYLAND_DISPLAY"))
    if not x11 and not wayland:
        return ("There is no display to open the window on (neither DISPLAY nor WAYLAND_DISPLAY is set). "
                "Start Agent Desk from a desktop session; on a server, use its commands instead "
                "(`agentdesk run`, `agentdesk serve`), or a virtual display: `xvfb-run -a python3 -m app`.")
    if chosen.startswith("wayland") or (wayland and not x11):
        return ""           # Qt's Wayland plugin has no such gap in the common installs
    missing = missing_xcb_libraries(loads)
    if not missing:
        return ""
    debian = " ".join(dict.fromkeys(XCB_LIBRARIES[soname][0] for soname in missing))
    fedora = " ".join(dict.fromkeys(XCB_LIBRARIES[soname][1] for soname in missing))
    return (f"Qt cannot open a window on this X11 display: these system libraries are missing: "
            f"{', '.join(missing)}. Install them, then start Agent Desk again:\n"
            f"  Debian/Ubuntu:  sudo apt install {debian}\n"
            f"  Fedora:         sudo dnf install {fedora}")
