"""`agentdesk --self-test`: is this installation (a checkout, a wheel or the bundle) whole?

Each check runs on its own and reports what it saw; one failing check does not stop the
others. The report is a short table on stdout (or, in a windowed bundle without a console,
a file in the log folder), and the exit status is 0 only when every check passed:

- resources: every file under `app.resources` loads through importlib.resources, and the
  prompt templates build a system prompt;
- Qt: a QApplication starts on the offscreen platform, the main window is built and
  painted, and the app icon renders;
- virtual phone: the built-in phone starts on loopback and gives a screenshot and a
  controls dump through the same ADB client code a real phone uses, and the mirror streams it
  with scrcpy's server (AV1 in the Linux bundle, which has no H.264 encoder);
- scrcpy server and decoder: the scrcpy server file the mirror pushes to phones is there with
  scrcpy's LICENSE and NOTICE and has the pinned SHA-256, and PyAV loads with its H.264 and AV1
  decoders (in the Linux bundle, whose GPL encoders are left out, libx264 must refuse to open);
- keyring: the keyring package and its platform backends load; where a backend is usable, a
  throwaway secret is stored, read back and deleted (service "AgentDesk self-test"); where
  none is (a headless machine) that is reported, as the app then keeps keys for the session only.

Nothing is written to the user's folders except, without a console, the report itself.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import platform
import secrets
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

SELF_TEST_SERVICE = "AgentDesk self-test"   # the keyring entry the keyring check writes and deletes
# Backend modules of keyring per platform (they must be importable in the bundle).
KEYRING_BACKENDS = {"linux": ("keyring.backends.SecretService", "keyring.backends.kwallet"),
                    "darwin": ("keyring.backends.macOS",),
                    "win32": ("keyring.backends.Windows",)}


@dataclass
class CheckResult:
    name: str
    ok: bool
    detail: str
    ms: float


class CheckFailed(Exception):
    """A check saw something wrong; the message says what."""


def _resource_files(root: Traversable) -> list[Traversable]:
    found = []
    for entry in root.iterdir():
        if entry.is_dir():
            if entry.name != "__pycache__":
                found.extend(_resource_files(entry))
        elif not entry.name.endswith((".py", ".pyc")):
            found.append(entry)
    return found


def check_resources() -> str:
    from app.core.agent.prompts import PromptBuilder
    from app.core.config import Settings

    resources = _resource_files(files("app.resources"))
    if not resources:
        raise CheckFailed("no resource files were found in app.resources")
    total = 0
    for resource in resources:
        data = resource.read_bytes()
        if not data:
            raise CheckFailed(f"the resource {resource.name} is empty")
        total += len(data)
    names = {resource.name for resource in resources}
    for required in ("system.txt", "user.txt", "reflection.txt"):
        if required not in names:
            raise CheckFailed(f"the prompt template {required} is missing")
    system = PromptBuilder(Settings()).system_message()
    if len(str(system.get("content", ""))) < 200:
        raise CheckFailed("the system prompt came out (almost) empty")
    return f"{len(resources)} files, {total / 1024:.0f} KiB; prompts build"


def check_qt() -> str:
    """The main window painted on the real platform where a display exists (so missing X11 libraries fail
    here, in words), else offscreen."""
    from app.display_check import qt_platform_problem

    real = bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) and sys.platform.startswith("linux")
    if real and not os.environ.get("QT_QPA_PLATFORM"):
        problem = qt_platform_problem()
        if problem:
            raise CheckFailed(problem)
    elif not os.environ.get("QT_QPA_PLATFORM"):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtWidgets import QApplication

    from app.gui.app_icon import app_icon
    from app.gui.event_loop import new_qasync_loop
    from app.gui.main_window import MainWindow

    app = QApplication.instance() or QApplication([sys.argv[0]])
    loop = new_qasync_loop()
    asyncio.set_event_loop(loop)
    icon = app_icon()
    if icon.isNull() or icon.pixmap(32, 32).toImage().isNull():
        raise CheckFailed("the app icon did not load")
    window = MainWindow(asyncio.Event())
    window.resize(1280, 800)
    picture = window.grab()
    window.deleteLater()          # not close(): that would save the window layout to the user's settings
    app.processEvents()
    asyncio.set_event_loop(None)
    loop.close()                  # now, while Qt still lives (closing at exit finds its signals deleted)
    if picture.isNull() or picture.width() < 600:
        raise CheckFailed("the main window could not be painted")
    return (f"Qt {_qt_version()} on '{QApplication.platformName()}', "
            f"window painted at {picture.width()}x{picture.height()}")


def _qt_version() -> str:
    from PySide6 import QtCore

    return QtCore.qVersion()


def check_virtual_phone() -> str:
    from app.core.config import MirrorSettings, Settings
    from app.core.device.adb_transport import AdbTransport
    from app.core.device.android_device import AndroidDevice
    from app.core.device.phone_frames import PhoneFrames
    from app.desk import Desk

    async def look(port: int, serial: str) -> str:
        device = AndroidDevice(AdbTransport("127.0.0.1", port), serial)
        shot = await device.screenshot()
        colours = shot.image.convert("L").resize((64, 128)).getextrema()
        if colours[0] == colours[1]:
            raise CheckFailed("the screenshot is a single colour")
        snapshot = await device.controls()
        if not snapshot.controls:
            raise CheckFailed("the controls dump had no controls")
        frames = PhoneFrames(device, MirrorSettings, name="self-test")    # the mirror's way: scrcpy's stream
        try:
            frame = await asyncio.wait_for(frames.frame_after(), 60)
            if not frames.streaming:
                raise CheckFailed(f"the mirror could not stream the virtual phone: {frames.status}")
            streamed = f"{frames.status}, first picture {frame.size[0]}x{frame.size[1]}"
        finally:
            await frames.close()
        return (f"screenshot {shot.size[0]}x{shot.size[1]} ({shot.method}), {len(snapshot.controls)} controls; "
                f"{streamed}")

    async def on_the_desks_phone() -> str:
        desk = Desk(Settings(), virtual=True)
        try:
            server = await desk.start_virtual_phone(private=True)    # its own: never the shared one
            return await look(server.port, "emulator-5554")
        finally:
            await desk.close()
    return asyncio.run(on_the_desks_phone())


def check_scrcpy_server() -> str:
    import fractions

    import av

    from app.core.scrcpy_server_file import RESOURCE_FOLDER, SERVER_VERSION, ServerFileError, verified_server_bytes

    try:
        server = verified_server_bytes()
    except ServerFileError as exc:
        raise CheckFailed(str(exc)) from None
    folder = files("app.resources") / RESOURCE_FOLDER
    for name in ("LICENSE", "NOTICE"):
        if not folder.joinpath(name).is_file() or not folder.joinpath(name).read_bytes():
            raise CheckFailed(f"scrcpy's {name} is missing beside its server (app/resources/{RESOURCE_FOLDER})")
    for decoder in ("h264", "libdav1d"):
        av.CodecContext.create(decoder, "r").open()      # an FFmpeg that does not load fails here
    encoder = av.CodecContext.create("libx264", "w")
    encoder.width, encoder.height, encoder.pix_fmt = 64, 64, "yuv420p"
    encoder.time_base = fractions.Fraction(1, 30)
    try:
        encoder.open()
        x264 = "libx264 present"
    except av.FFmpegError:
        x264 = "libx264 left out"
    if x264 == "libx264 present" and getattr(sys, "frozen", False) and sys.platform.startswith("linux"):
        raise CheckFailed("the bundle carries the real libx264 (GPL); build.spec should replace it (docs/licences.md)")
    return (f"server {SERVER_VERSION}, {len(server)} bytes, SHA-256 ok; PyAV {av.__version__} decodes "
            f"H.264 and AV1; {x264}")


def check_keyring() -> str:
    import keyring

    wanted = next((mods for prefix, mods in KEYRING_BACKENDS.items() if sys.platform.startswith(prefix)), ())
    missing = []
    for module in wanted:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            missing.append(f"{module} ({exc})")
    if missing:
        raise CheckFailed("keyring backends missing: " + "; ".join(missing))
    from app.desk import make_key_store

    store = make_key_store(SELF_TEST_SERVICE)
    backend = type(keyring.get_keyring()).__module__
    if not store.keyring_available:
        return f"backends load; none usable here ({backend}): keys would be kept for the session only"
    probe = secrets.token_hex(16)           # a throwaway secret: stored, read back, deleted
    store.set("probe", probe)
    try:
        if store.get("probe") != probe:
            raise CheckFailed(f"{store.location()} did not give back what was stored")
    finally:
        store.delete("probe")
    if not store.keyring_available:         # the store fell back to the session on a keyring error
        raise CheckFailed(f"the keyring failed while storing a test secret ({store.notice or backend})")
    return f"keys go to {store.location()}; a test secret was stored, read back and deleted"


def check_task_api() -> str:
    import httpx2

    from app.api.token import ApiToken
    from app.core.config import Settings
    from app.desk import open_served_desk

    async def serve_and_ask() -> str:
        token = ApiToken(secrets.token_urlsafe(24), "the self-test", False)
        desk = await open_served_desk(Settings(), virtual=True, host="127.0.0.1", port=0, token=token,
                                      announce=False)
        try:
            async with httpx2.AsyncClient(base_url=desk.url, timeout=60,
                                         headers={"Authorization": f"Bearer {token.value}"}) as http:
                if (await http.get("/v1/devices", headers={"Authorization": "Bearer wrong"})).status_code != 401:
                    raise CheckFailed("the task API answered a request with a wrong token")
                devices = (await http.get("/v1/devices")).json()["devices"]
                if not devices:
                    raise CheckFailed("the task API listed no phone")
                tree = await http.get(f"/v1/devices/{devices[0]['device_id']}/ui-tree")
                if tree.status_code != 200 or not tree.json()["elements"]:
                    raise CheckFailed(f"the task API could not read the screen: {tree.text[:200]}")
                return f"served on {desk.url}; token checked; {len(tree.json()['elements'])} controls read"
        finally:
            await desk.close()
    return asyncio.run(serve_and_ask())


def check_map_of_screens() -> str:
    """The map's libraries are there (networkx routes it): a tiny map is built, routed and named."""
    import tempfile

    from app.core.learning.screen_graph import load_graph
    from app.core.learning.transitions import Transition, TransitionStore

    with tempfile.TemporaryDirectory(prefix="agentdesk-selftest-map-") as folder:
        moves = [Transition(from_screen="a.app/.Main#1", to_screen="a.app/.Next#2", app="a.app",
                            action={"function": "click_control", "arguments": {"control_id": 1}},
                            action_text="Tap “Next”", success=True, at=f"0{n}") for n in range(2)]
        TransitionStore(Path(folder)).append(moves)
        graph = load_graph(moves[0].phone_kind, Path(folder))
        route = graph.route("a.app/.Main#1", "a.app/.Next#2")
        if not route or len(graph.nodes) != 2:
            raise CheckFailed(f"a two-screen map was read as {len(graph.nodes)} screens, route {route}")
        return f"a two-screen map routed: {graph.place('a.app/.Next#2')}"


CHECKS: tuple[tuple[str, Callable[[], str]], ...] = (
    ("resources", check_resources),
    ("Qt, main window, icon", check_qt),
    ("virtual phone", check_virtual_phone),
    ("scrcpy server and decoder", check_scrcpy_server),
    ("keyring", check_keyring),
    ("task API", check_task_api),
    ("map of screens", check_map_of_screens),
)


def run_checks() -> list[CheckResult]:
    results = []
    for name, check in CHECKS:
        started = time.perf_counter()
        try:
            detail, ok = check(), True
        except CheckFailed as exc:
            detail, ok = str(exc), False
        except Exception as exc:   # an import that failed in a bundle, say: report it, go on
            detail, ok = f"{type(exc).__name__}: {exc}", False
            traceback.print_exc(file=sys.stderr if sys.stderr else None)
        results.append(CheckResult(name, ok, detail, (time.perf_counter() - started) * 1000))
    return results


def installation_kind() -> str:
    """"bundle" (PyInstaller), "installed package" (a wheel in site-packages) or "checkout"."""
    if getattr(sys, "frozen", False):
        return "bundle"
    import app

    return "installed package" if "site-packages" in Path(app.__file__).parts else "checkout"


def render(results: list[CheckResult]) -> str:
    from app import __version__

    where = installation_kind()
    lines = [f"Agent Desk {__version__} self-test ({where}, Python {platform.python_version()}, "
             f"{platform.system()} {platform.machine()})", ""]
    width = max(len(result.name) for result in results)
    for result in results:
        verdict = "ok  " if result.ok else "FAIL"
        lines.append(f"  {verdict}  {result.name.ljust(width)}  {result.ms:6.0f} ms  {result.detail}")
    failed = [result.name for result in results if not result.ok]
    lines += ["", "All checks passed." if not failed else f"Failed: {', '.join(failed)}."]
    return "\n".join(lines)


def main() -> int:
    from app.core import paths

    report_file = None if sys.stdout is not None else paths.log_dir() / "self-test.txt"
    # Keep the user's folders untouched: settings and runs of this process go to a temporary home.
    temporary_home = None
    if not os.environ.get(paths.HOME_VARIABLE):
        temporary_home = tempfile.mkdtemp(prefix="agentdesk-self-test-")
        os.environ[paths.HOME_VARIABLE] = temporary_home
    try:
        results = run_checks()
    finally:
        if temporary_home:
            shutil.rmtree(temporary_home, ignore_errors=True)
    report = render(results)
    if report_file is None:
        print(report)
    else:                      # a windowed bundle has no console: leave the report where it can be found
        report_file.write_text(report + "\n", encoding="utf-8")
    return 0 if all(result.ok for result in results) else 1
