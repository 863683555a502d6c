"""The system services behind the phone's command-line programs: packages, processes and tasks,
the log, the battery and display overrides. One `AndroidSystem` per phone (`phone.system`);
callers hold the phone's lock.
"""

from __future__ import annotations

import random
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from .apps import LAUNCHER
from .packages import PackageManager
from .system_log import SystemLog

if TYPE_CHECKING:
    from .phone import VirtualPhone

SHELL_UID = 2000
SYSTEM_SERVER_PID = 612
LAUNCHER_INTENT = "act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] flg=0x10200000"


@dataclass
class Battery:
    """What BatteryService reports; `dumpsys battery set/unplug/reset` change it."""

    level: int = 100
    ac: bool = False
    usb: bool = True          # the phone is on the USB cable adb uses
    wireless: bool = False
    status: int = 5           # BATTERY_STATUS_FULL (2 = charging, 3 = discharging)
    temperature: int = 250    # tenths of a degree Celsius
    voltage: int = 4350       # mV


def uid_name(uid: int) -> str:
    """How ps and the log name a uid: u0a150 for app 10150, the number for system uids."""
    return f"u0a{uid - 10000}" if uid >= 10000 else str(uid)


class AndroidSystem:
    def __init__(self, phone: VirtualPhone) -> None:
        self.phone = phone
        self.random = random.Random(f"{phone.serial}/{phone.profile.name}")
        self.boot_time = phone.now() - timedelta(minutes=37, seconds=12)
        self.physical = (phone.width, phone.height, phone.density)
        self.packages = PackageManager(phone, self.random)
        self.log = SystemLog(phone.now)
        self.battery = Battery()
        self.properties: dict[str, str] = {}   # what `setprop` changed
        self._hashes: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._named: dict[object, str] = {}
        self._tasks: dict[str, tuple[int, object]] = {}
        self._next_task = 100 + self.random.randrange(50)
        self._pids: dict[str, tuple[int, object]] = {}
        self._next_pid = 4000 + self.random.randrange(2000)
        self._starting: tuple[str, int] | None = None
        self.last_launch: tuple[str, int, bool] | None = None   # (component, ms to first frame, cold start)
        self._boot_log()

    # ------------------------------------------------------------------ identities
    def hash_of(self, key: object) -> str:
        """The identity hash Java prints for an object (Window{7c1e3d5 ...}): stable while a live
        object (a screen, a record) lives, or for as long as the phone lives for a hashable name."""
        try:
            weakref.ref(key)
            table, key = (self._hashes, key) if type(key).__hash__ is not None else (self._named, ("id", id(key)))
        except TypeError:   # not weak-referable: a name such as ("task", 12)
            table = self._named
        if key not in table:
            table[key] = f"{self.random.randrange(1 << 28, 1 << 32):x}"
        return table[key]

    def task_id(self, package: str) -> int:
        """The task of a running app; a new id once its task was finished and started again."""
        app = self.phone.apps.get(package)
        root = app.stack[0] if app is not None and app.stack else None
        known = self._tasks.get(package)
        if known is None or known[1] is not root:
            known = (1 if package == LAUNCHER else self._next_task, root)
            if package != LAUNCHER:
                self._next_task += 1
            self._tasks[package] = known
        return known[0]

    def pid_of(self, package: str) -> int | None:
        """The pid of a running app's process; None when it does not run (it has no task)."""
        return self._process(package)[0]

    def _process(self, package: str) -> tuple[int | None, bool]:
        """(pid, whether the process starts now). A process lives as long as its app's task does."""
        app = self.phone.apps.get(package)
        if app is None or not app.stack:
            self._pids.pop(package, None)
            return None, False
        known = self._pids.get(package)
        if known is not None and known[1] is app.stack[0]:
            return known[0], False
        pid = self._next_pid
        self._next_pid += self.random.randrange(3, 40)
        self._pids[package] = (pid, app.stack[0])
        return pid, True

    def running_apps(self) -> list[tuple[int, str]]:
        """(pid, package) of every running app process, oldest first."""
        running = [(pid, p) for p in list(self.phone.apps) if (pid := self.pid_of(p)) is not None]
        return sorted(running)

    # ------------------------------------------------------------------ activity starts
    @contextmanager
    def starting(self, intent: str, caller_uid: int = SHELL_UID) -> Iterator[None]:
        """Within this block an activity start is logged with `intent` ("{act=... cmp=...}") as its cause."""
        self._starting = (intent, caller_uid)
        try:
            yield
        finally:
            self._starting = None

    def activity_started(self, package: str, activity: str) -> None:
        """Log what ActivityTaskManager logs when an activity starts (the phone calls this)."""
        record = self.packages.get(package)
        short = activity[len(package):] if activity.startswith(package + ".") else activity
        component = f"{package}/{short}"
        intent, uid = self._starting or (f"{LAUNCHER_INTENT} cmp={component}", self.uid_of(LAUNCHER))
        sdk = self.phone.profile.sdk
        tag = "ActivityTaskManager" if sdk >= 29 else "ActivityManager"
        mode, tail = (" with LAUNCH_MULTIPLE", " (BAL_ALLOW_PERMISSION) result code=0") if sdk >= 34 else ("", "")
        self.log.write("I", tag, f"START u0 {{{intent}}}{mode} from uid {uid}{tail}", SYSTEM_SERVER_PID,
                       SYSTEM_SERVER_PID + 1035, buffer="system")
        pid, cold = self._process(package)
        if cold and record is not None:
            self.log.write("I", "ActivityManager", f"Start proc {pid}:{package}/{uid_name(record.uid)} "
                           f"for top-activity {{{component}}}", SYSTEM_SERVER_PID, SYSTEM_SERVER_PID + 28,
                           buffer="system")
        took = self.random.randrange(280, 900) if cold else self.random.randrange(60, 220)
        self.last_launch = (component, took, cold)
        displayed = f"Displayed {component} for user 0: +{took}ms" if sdk >= 34 else f"Displayed {component}: +{took}ms"
        self.log.write("I", tag, displayed, SYSTEM_SERVER_PID, SYSTEM_SERVER_PID + 40, buffer="system")

    def uid_of(self, package: str) -> int:
        record = self.packages.get(package)
        return record.uid if record else SHELL_UID

    # ------------------------------------------------------------------ display overrides (wm size / density)
    def set_display(self, width: int | None = None, height: int | None = None, density: int | None = None) -> None:
        """Force the display's size or density (None keeps it); the apps lay themselves out again."""
        phone = self.phone
        phone.width = width or phone.width
        phone.height = height or phone.height
        phone.density = density or phone.density
        phone.changed()

    # ------------------------------------------------------------------ the log a phone has after booting
    def _boot_log(self) -> None:
        at = self.boot_time
        lines = [
            (0.2, "I", "zygote64", "Zygote: Starting ART VM", 321, "main"),
            (3.1, "I", "SystemServer", "Entered the Android system server!", SYSTEM_SERVER_PID, "system"),
            (9.8, "I", "ActivityManager", "System now ready", SYSTEM_SERVER_PID, "system"),
            (14.6, "I", "ActivityTaskManager" if self.phone.profile.sdk >= 29 else "ActivityManager",
             f"START u0 {{act=android.intent.action.MAIN cat=[android.intent.category.HOME] flg=0x10000100 "
             f"cmp={LAUNCHER}/.uioverride.QuickstepLauncher}} from uid 0", SYSTEM_SERVER_PID, "system"),
            (21.0, "I", "BootReceiver", "Copying audit failures to DropBox", SYSTEM_SERVER_PID, "system"),
            (23.4, "I", "WifiService", "WifiService starting up with Wi-Fi disabled", SYSTEM_SERVER_PID, "system"),
            (27.9, "I", "adbd", "adbd started", 512, "main"),
        ]
        for seconds, level, tag, message, pid, buffer in lines:
            self.log.write(level, tag, message, pid, at=at + timedelta(seconds=seconds), buffer=buffer)
