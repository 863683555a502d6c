"""The environment AndroidWorld's tasks are given, on one phone reached through an ADB server.

AndroidWorld's task code reaches the phone only through `env.controller`: `execute_adb_call(AdbRequest)`,
`pull_file`/`push_file`, `get_ui_elements`. The requests are read by android_env's own `AdbCallParser`, as on
AndroidWorld's emulator; what differs is the `adb` it calls: instead of running the adb program, `DeskAdb` sends
the same commands over the ADB protocol (adbutils), with the shell's exit status (shell v2) making a failed
command an error as adb's would. An `adb` command the adapter does not know fails with a message, never OK.

Everything here is blocking, as AndroidWorld's code is: the bench calls it from a worker thread."""

from __future__ import annotations

import os
import subprocess
from typing import Any

import adbutils

ROOT_WAIT_SECONDS = 10.0


class DeskAdb:
    """The `adb` android_env's AdbCallParser runs (`execute_command(args)` → bytes, CalledProcessError on
    failure, TimeoutExpired), over an ADB server's protocol."""

    def __init__(self, host: str, port: int, serial: str, default_timeout: float = 60.0) -> None:
        self.client = adbutils.AdbClient(host, port)
        self.serial = serial
        self.default_timeout = default_timeout
        self.commands: list[list[str]] = []           # every command asked for, in order (for the record)

    @property
    def device(self) -> adbutils.AdbDevice:
        return self.client.device(self.serial)

    def execute_command(self, args: list[str], timeout: float | None = None, device_specific: bool = True) -> bytes:
        del device_specific
        args = [str(arg) for arg in args]
        self.commands.append(args)
        limit = timeout or self.default_timeout
        verb, rest = (args[0], args[1:]) if args else ("", [])
        try:
            if verb == "shell":
                return self._shell(rest, limit)
            if verb in ("root", "unroot"):
                return self._restart_adbd(verb)
            if verb == "push" and len(rest) == 2:
                self.device.sync.push(rest[0], rest[1])
                return f"{rest[0]}: 1 file pushed.\n".encode()
            if verb == "pull" and len(rest) == 2:
                self.device.sync.pull(rest[0], rest[1])
                return f"{rest[0]}: 1 file pulled.\n".encode()
            if verb == "install" and rest:
                self.device.install(rest[-1], nolaunch=True, silent=True)
                return b"Success\n"
        except adbutils.AdbTimeout as exc:
            raise subprocess.TimeoutExpired(["adb", *args], limit) from exc
        except adbutils.AdbError as exc:
            raise subprocess.CalledProcessError(1, ["adb", *args], output=str(exc).encode()) from exc
        raise subprocess.CalledProcessError(
            1, ["adb", *args], output=f"adb {verb}: not supported by Agent Desk's AndroidWorld adapter\n".encode())

    def _shell(self, words: list[str], timeout: float) -> bytes:
        # adb joins its arguments with spaces into one command line, unquoted, as here
        result = self.device.shell2(" ".join(words), timeout=timeout, encoding=None, v2=True)
        output = bytes(result.output)
        if result.returncode != 0:
            raise subprocess.CalledProcessError(result.returncode, ["adb", "shell", *words], output=output)
        return output

    def _restart_adbd(self, verb: str) -> bytes:
        with self.client.make_connection() as connection:
            connection.send_command(f"host:transport:{self.serial}")
            connection.check_okay()
            connection.send_command(f"{verb}:")
            connection.check_okay()
            return connection.read_until_close(encoding=None)


class DeskController:
    """`env.controller` as AndroidWorld's tasks use it."""

    def __init__(self, adb: DeskAdb) -> None:
        from android_env.components.adb_call_parser import AdbCallParser

        self.adb = adb
        self._parser = AdbCallParser(adb)      # duck-typed: it calls execute_command only

    @property
    def env(self) -> DeskController:
        """What AndroidWorld's file helpers are handed (they call `execute_adb_call` on it)."""
        return self

    def execute_adb_call(self, request: Any) -> Any:
        return self._parser.parse(request)

    def get_ui_elements(self) -> list[Any]:
        from android_world.env import adb_utils, representation_utils

        return representation_utils.xml_dump_to_ui_elements(adb_utils.uiautomator_dump(self))

    def pull_file(self, remote_db_file_path: str, timeout_sec: float | None = None) -> Any:
        from android_world.utils import file_utils

        return file_utils.tmp_directory_from_device(os.path.dirname(remote_db_file_path), self, timeout_sec)

    def push_file(self, local_db_file_path: str, remote_db_file_path: str, timeout_sec: float | None = None) -> None:
        from android_world.utils import file_utils

        file_utils.clear_directory(os.path.dirname(remote_db_file_path), self)
        file_utils.copy_data_to_device(local_db_file_path, remote_db_file_path, self, timeout_sec)


class DeskEnv:
    """The `env` AndroidWorld's `initialize_task`, `is_successful` and `tear_down` are given."""

    def __init__(self, controller: DeskController) -> None:
        self.controller = controller
        self.interaction_cache = ""           # what the agent answered (information-retrieval tasks read it)

    def get_state(self, wait_to_stabilize: bool = False) -> Any:
        """The screen's UI elements, as AndroidWorld's State (pixels are not read: no checker uses them)."""
        from android_world.env.interface import State

        return State(pixels=None, forest=None, ui_elements=self.controller.get_ui_elements())

