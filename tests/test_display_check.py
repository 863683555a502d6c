"""Before Qt is loaded: a missing X11 library or a missing display is said in words with the packages to
install, instead of Qt aborting the process; the self-test and doctor say the same."""

from __future__ import annotations

import subprocess
import sys

from app.display_check import XCB_LIBRARIES, missing_xcb_libraries, qt_platform_problem


def test_a_missing_xcb_cursor_names_the_packages_to_install():
    problem = qt_platform_problem({"DISPLAY": ":0"}, "linux", loads=lambda soname: "cursor" not in soname)
    assert "libxcb-cursor.so.0" in problem
    assert "sudo apt install libxcb-cursor0" in problem and "sudo dnf install xcb-util-cursor" in problem
    assert "libxkbcommon" not in problem


def test_no_display_and_headless_platforms_and_other_systems():
    assert "no display" in qt_platform_problem({}, "linux", loads=lambda soname: True)
    assert "xvfb-run" in qt_platform_problem({}, "linux", loads=lambda soname: True)
    assert qt_platform_problem({"QT_QPA_PLATFORM": "offscreen"}, "linux", loads=lambda soname: False) == ""
    assert qt_platform_problem({"WAYLAND_DISPLAY": "wayland-0"}, "linux", loads=lambda soname: False) == ""
    assert qt_platform_problem({}, "win32", loads=lambda soname: False) == ""
    assert qt_platform_problem({"DISPLAY": ":0"}, "linux", loads=lambda soname: True) == ""


def test_every_library_is_really_tried():
    tried: list[str] = []
    assert missing_xcb_libraries(lambda soname: tried.append(soname) or soname.startswith("libEGL")) == [
        soname for soname in XCB_LIBRARIES if not soname.startswith("libEGL")]
    assert tried == list(XCB_LIBRARIES)


def test_the_app_says_so_and_exits_instead_of_aborting():
    env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "PYTHONPATH": ":".join(sys.path)}    # no DISPLAY at all
    done = subprocess.run([sys.executable, "-m", "app"], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "There is no display to open the window on" in done.stderr
