"""A virtual phone as the ADB server sees it: connection state, files, faults, command record."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC
from typing import TypeVar

from .device_sockets import DeviceSockets
from .faults import CountedFaults
from .latency import ACTIONS, COST_AFTER, DUMP, command_kind
from .phone import VirtualPhone
from .shell import FileAccess, Result, Shell
from .storage import PhoneStorage
from .ui_automation import UiAutomationSlot

DEVICE_STATES = ("device", "offline", "unauthorized")
T = TypeVar("T")


@dataclass
class Faults(CountedFaults):
    """Trouble to inject, for tests. Counters go down as each fault fires."""

    drop_connections: int = 0        # the next N device services close the socket mid-answer
    failing_dumps: int = 0           # the next N `uiautomator dump` print "could not get idle state"
    truncated_screenshots: int = 0   # the next N `screencap` answers are cut in half
    delay_seconds: float = 0.0       # every device service waits this long before answering
    dropped_typed_characters: int = 0  # the next N texts typed (`input text`, scrcpy) lose their last character
    hostile_dumps: list[str] = field(default_factory=list)   # the next dumps, hostile (`hostile_dumps.KINDS`)
    endless_dumps_ended: int = 0     # endless dumps whose reader closed the connection (so the phone stopped)


@dataclass
class CommandRecord:
    """One simple command the phone's shell ran (after quoting and expansion)."""

    argv: list[str]
    service: str  # the ADB service line that carried it, e.g. "shell:input tap 1 2"


@dataclass
class AttachedDevice:
    """What the ADB server knows of one phone: the phone itself plus transport-level state."""

    phone: VirtualPhone
    transport_id: int
    state: str = "device"
    network_address: str | None = None   # set for phones reached by `adb connect host:port`
    storage: PhoneStorage = field(default_factory=PhoneStorage)
    faults: Faults = field(default_factory=Faults)
    commands: list[CommandRecord] = field(default_factory=list)
    services: list[str] = field(default_factory=list)
    sockets: DeviceSockets = field(default_factory=DeviceSockets)
    ui_automation: UiAutomationSlot = field(default_factory=UiAutomationSlot)   # one UI-automation client
    _record_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        phone = self.phone   # the files describe this phone (build.prop, kernel) and follow its clock
        self.storage.use_profile(phone.profile, lambda: phone.now().replace(tzinfo=UTC).timestamp())

    @property
    def serial(self) -> str:
        return self.network_address or self.phone.serial

    def record_service(self, service: str) -> None:
        with self._record_lock:
            self.services.append(service)

    def new_shell(self, service: str, cancelled: Callable[[], bool] | None = None) -> Shell:
        """The phone's /system/bin/sh for one ADB service (interactive when the service has no
        command). Every program it runs is recorded; toybox commands run without the phone's
        lock (a `sleep` must not freeze the screen) but cost what the latency profile says.
        `app_process` (scrcpy's or uiautomator2's server) runs as long as its client stays, outside the lock;
        `cancelled` says when the ADB connection that started the shell has closed."""
        from . import toybox
        from .latency import command_kind
        from .programs import PROGRAMS, run_program  # programs need AttachedDevice: imported late

        phone, kept_records = self.phone, 50_000

        def runner(argv: list[str], stdin: bytes, process) -> Result | None:
            with self._record_lock:
                self.commands.append(CommandRecord(list(argv), service))
                if len(self.commands) > 2 * kept_records:   # a runaway loop must not eat the host's memory
                    del self.commands[:kept_records]
            name = argv[0].rsplit("/", 1)[-1]
            if name in PROGRAMS:
                return self.run_timed(argv, stdin, run_program)
            if name == "app_process":
                from .app_process import run_app_process
                return run_app_process(self, argv, process)
            if name in toybox.COMMANDS or name == "toybox":
                phone.timing.pause(command_kind(argv))
                return toybox.run(argv, stdin, self.storage, process, phone)
            return None

        files: FileAccess = self.storage
        env = {"PATH": "/product/bin:/apex/com.android.runtime/bin:/apex/com.android.art/bin:/system_ext/bin:"
                       "/system/bin:/system/xbin:/odm/bin:/vendor/bin:/vendor/xbin",
               "HOME": "/", "USER": "shell", "LOGNAME": "shell", "SHELL": "/bin/sh", "HOSTNAME": "localhost",
               "TMPDIR": "/data/local/tmp", "ANDROID_DATA": "/data", "ANDROID_ROOT": "/system",
               "EXTERNAL_STORAGE": "/sdcard", "ANDROID_STORAGE": "/storage"}
        interactive = service.startswith("shell") and not service.partition(":")[2]
        return Shell(runner, files, env, interactive=interactive, cancelled=cancelled)

    def run_timed(self, argv: list[str], stdin: bytes, program) -> Result:
        """Run one command as long as it takes on the phone the latency profile describes.

        Costs are slept outside the phone's lock (a slow dump does not hold up a tap); a dump
        first waits for the screen to be idle; an action that changes the screen starts its
        transition from the last picture shown."""
        phone = self.phone
        kind = command_kind(argv)
        if kind not in COST_AFTER:
            phone.timing.pause(kind)
        if kind == DUMP and not phone.motion.wait_for_idle(phone.animating_without_end):
            return Result(stderr=b"ERROR: could not get idle state.\n")
        if kind in ACTIONS:
            result = self.act(lambda: program(self, argv, stdin))
            finger_up = phone.gesture_ends_at() - time.monotonic()
            if finger_up > 0:            # `input swipe` returns when its finger comes up, as on a phone
                time.sleep(finger_up)
        else:
            with phone.lock:
                result = program(self, argv, stdin)
        if kind in COST_AFTER:
            phone.timing.pause(kind)
        return result

    def act(self, action: Callable[[], T]) -> T:
        """Do one user action on the phone under its lock (held only for the action); when it
        changed the screen, the screen moves there from the last picture shown, as the latency
        profile says. `input` commands and the scrcpy server's control messages both come here."""
        phone = self.phone
        with phone.lock:
            before_version, before = phone.version, phone.last_picture()
            result = action()
            if phone.version != before_version:
                phone.motion.action_changed_screen(before)
        return result

    def record_input(self, argv: list[str], service: str = "scrcpy control") -> None:
        """Note input that came by another way than a shell command (scrcpy's control socket), in
        the form of the `input` command that does the same, so tests and records read one list."""
        with self._record_lock:
            self.commands.append(CommandRecord(list(argv), service))

    def command_lines(self) -> list[list[str]]:
        """argv of every command run so far (for tests)."""
        with self._record_lock:
            return [list(record.argv) for record in self.commands]
