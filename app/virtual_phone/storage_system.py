"""What the phone's system partition and /proc hold: toybox links, kernel and memory figures.

The kernel versions are those of the Android generation the phone claims (GKI 6.1 for
Android 14, 4.9 for Android 9); the CPU is x86_64, as `getprop ro.product.cpu.abi` says.
"""

from __future__ import annotations

import posixpath
import stat
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from .profiles import DeviceProfile
from .storage_nodes import ROOT, SHELL, SYSTEM, Dir, File, Link, Node, StorageError
from .storage_rules import default_owner

TOYBOX_COMMANDS = (
    "[", "base64", "basename", "cat", "chmod", "cp", "cut", "date", "df", "dirname", "du", "echo", "env",
    "false", "find", "grep", "head", "id", "kill", "ln", "ls", "md5sum", "mkdir", "mv", "pidof", "printf",
    "ps", "pwd", "readlink", "realpath", "rm", "rmdir", "sed", "seq", "sha1sum", "sha256sum", "sleep",
    "sort", "stat", "tail", "tee", "test", "touch", "tr", "true", "uname", "uniq", "wc", "which", "whoami",
    "xargs", "egrep", "fgrep", "nproc", "uptime", "hostname", "printenv", "sha512sum", "toybox",
)
# Framework tools and binaries of their own (not toybox links).
SYSTEM_PROGRAMS = ("am", "pm", "wm", "cmd", "input", "settings", "ime", "monkey", "dumpsys", "getprop",
                   "setprop", "screencap", "uiautomator", "svc", "logcat", "content", "appops", "ip", "service")
SYSTEM_BINARIES = {name: "toybox" for name in TOYBOX_COMMANDS}

BOOT_TIME = time.time()


def kernel_release(profile: DeviceProfile) -> str:
    if profile.sdk >= 34:
        return "6.1.57-android14-11-gc2a1f3e5b0d8"
    if profile.sdk >= 28:
        return "4.9.148-g8d52f3e"
    return "4.4.153-g3b1a7c2"


def kernel_version(profile: DeviceProfile) -> str:
    """What `uname -v` prints."""
    if profile.sdk >= 34:
        return "#1 SMP PREEMPT Tue Nov 12 08:14:35 UTC 2024"
    return "#1 SMP PREEMPT Wed Jul 10 03:21:47 UTC 2019"


def proc_version(profile: DeviceProfile) -> str:
    compiler = ("Android (10087095, +pgo, +bolt, +lto, -mlgo, based on r487747c) clang version 17.0.2"
                if profile.sdk >= 34 else "Android (5484270 based on r353983c) clang version 9.0.3")
    return f"Linux version {kernel_release(profile)} (build-user@build-host) ({compiler}) {kernel_version(profile)}\n"


def _meminfo(profile: DeviceProfile) -> str:
    total = 7_843_764 if profile.sdk >= 34 else 2_917_556
    rows = [("MemTotal", total), ("MemFree", total // 9), ("MemAvailable", total // 2), ("Buffers", 5_720),
            ("Cached", total // 3), ("SwapCached", 1_024), ("Active", total // 4), ("Inactive", total // 5),
            ("SwapTotal", total // 2), ("SwapFree", total // 3)]
    return "".join(f"{name + ':':<16}{value:>8} kB\n" for name, value in rows)


def _cpuinfo(profile: DeviceProfile) -> str:
    cores = 8 if profile.sdk >= 34 else 4
    return "".join(f"processor\t: {n}\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Core(TM) i5 CPU @ 2.40GHz\n"
                   f"cpu MHz\t\t: 2400.000\ncache size\t: 4096 KB\ncpu cores\t: {cores}\n\n" for n in range(cores))


def proc_files(profile: Callable[[], DeviceProfile]) -> dict[str, Callable[[], bytes]]:
    """The generated files of /proc, each a function producing its current text."""
    def uptime() -> bytes:
        up = max(0.0, time.time() - BOOT_TIME) + 3600.0
        return f"{up:.2f} {up * 6.5:.2f}\n".encode()

    return {
        "version": lambda: proc_version(profile()).encode(),
        "meminfo": lambda: _meminfo(profile()).encode(),
        "cpuinfo": lambda: _cpuinfo(profile()).encode(),
        "uptime": uptime,
        "loadavg": lambda: b"0.52 0.61 0.58 1/1432 4321\n",
    }


def initial_tree(profile: Callable[[], DeviceProfile]) -> list[tuple[str, Node]]:
    """The folders, files, links and devices a phone ships with, parents first."""
    sdk = profile().sdk
    sdcard_owner = default_owner("/sdcard", sdk)            # MediaProvider, or sdcard_rw before Android 11
    sdcard_mode = 0o2770 if sdk >= 30 else 0o771
    folders = [("/system", 0o755, ROOT, ROOT), ("/system/bin", 0o755, ROOT, SHELL),
               ("/system/etc", 0o755, ROOT, ROOT), ("/vendor", 0o755, ROOT, SHELL),
               ("/product", 0o755, ROOT, ROOT), ("/apex", 0o755, ROOT, ROOT), ("/proc", 0o555, ROOT, ROOT),
               ("/dev", 0o755, ROOT, ROOT), ("/data", 0o771, SYSTEM, SYSTEM), ("/data/local", 0o751, ROOT, ROOT),
               ("/data/local/tmp", 0o771, SHELL, SHELL), ("/storage", 0o755, ROOT, ROOT),
               ("/sdcard", sdcard_mode, *sdcard_owner)]
    folders += [(f"/sdcard/{name}", sdcard_mode, *sdcard_owner) for name in (
        "Alarms", "DCIM", "Documents", "Download", "Movies", "Music", "Notifications", "Pictures", "Podcasts",
        "Ringtones")]
    tree: list[tuple[str, Node]] = [(path, Dir(stat.S_IFDIR | mode, uid, gid)) for path, mode, uid, gid in folders]

    def binary() -> File:
        return File(stat.S_IFREG | 0o755, ROOT, SHELL, data=bytearray(b"\x7fELF"))

    tree += [("/system/bin/toybox", binary()), ("/system/bin/sh", binary())]
    tree += [(f"/system/bin/{name}", Link(stat.S_IFLNK | 0o755, ROOT, SHELL, target=target))
             for name, target in SYSTEM_BINARIES.items() if name != target]
    tree += [("/etc", Link(stat.S_IFLNK | 0o644, target="/system/etc")),
             ("/system/etc/hosts", File(stat.S_IFREG | 0o644, data=bytearray(
                 b"127.0.0.1       localhost\n::1             ip6-localhost\n"))),
             ("/system/build.prop", File(stat.S_IFREG | 0o600, data=bytearray(
                 f"ro.build.version.sdk={sdk}\nro.build.version.release={profile().release}\n".encode())))]
    tree += [(f"/system/bin/{name}", binary()) for name in SYSTEM_PROGRAMS]
    tree += [(f"/proc/{name}", File(stat.S_IFREG | 0o444, produce=produce))
             for name, produce in proc_files(profile).items()]
    tree += [("/dev/null", File(stat.S_IFCHR | 0o666)), ("/dev/zero", File(stat.S_IFCHR | 0o666, endless=b"\0")),
             ("/dev/urandom", File(stat.S_IFCHR | 0o666, endless=b"\x5a\xa5"))]
    return tree


class SystemWritesMixin:
    """What the system itself writes, past the shell's rules (a part of PhoneStorage): the build
    description when the phone's profile is chosen, an installed app's files, their removal."""

    # PhoneStorage's, declared for the type checker
    _lock: threading.RLock
    clock: Callable[[], float]
    profile: DeviceProfile

    if TYPE_CHECKING:
        @staticmethod
        def normalise(path: str) -> str: ...
        def _lookup(self, path: str, follow: bool, hops: int = 0) -> Node: ...
        def _charge(self, delta: int, new_entries: int = 0) -> None: ...
        def _new_ino(self) -> int: ...
        def _forget(self, node: Node) -> None: ...

    def use_profile(self, profile: DeviceProfile, clock: Callable[[], float] | None = None) -> None:
        """Describe this phone (kernel, build) and follow its clock from now on."""
        with self._lock:
            if clock is not None:
                self.clock = clock
            if profile != self.profile:
                self.profile = profile
                build_prop = self._lookup("/system/build.prop", follow=True)
                assert isinstance(build_prop, File)
                build_prop.data[:] = (f"ro.build.version.sdk={profile.sdk}\n"
                                      f"ro.build.version.release={profile.release}\n").encode()

    def store_system_file(self, path: str, data: bytes) -> None:
        """Write a file as a system service does (the package manager placing an APK under
        /data/app): folders are made as needed, owned by system, whatever the shell may write."""
        path = self.normalise(path)
        with self._lock:
            folder = "/"
            for name in posixpath.dirname(path).strip("/").split("/"):
                node = self._lookup(folder, follow=True)
                assert isinstance(node, Dir)
                if name not in node.entries:
                    self._charge(0, 1)
                    node.entries[name] = Dir(stat.S_IFDIR | 0o755, 1000, 1000, self.clock(), self._new_ino())
                folder = posixpath.join(folder, name)
            parent = self._lookup(folder, follow=True)
            assert isinstance(parent, Dir)
            old = parent.entries.get(posixpath.basename(path))
            self._charge(len(data) - (old.size if isinstance(old, File) else 0), 0 if old else 1)
            parent.entries[posixpath.basename(path)] = File(stat.S_IFREG | 0o644, 1000, 1000, self.clock(),
                                                            self._new_ino(), bytearray(data))

    def remove_system_tree(self, path: str) -> None:
        """Remove a folder a system service made (an uninstalled app's code folder); missing is fine."""
        path = self.normalise(path)
        with self._lock:
            try:
                parent = self._lookup(posixpath.dirname(path), follow=True)
            except StorageError:
                return
            node = parent.entries.pop(posixpath.basename(path), None) if isinstance(parent, Dir) else None
            if node is not None:
                self._forget(node)
