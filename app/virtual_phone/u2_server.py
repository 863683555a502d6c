"""uiautomator2's on-phone server (u2.jar 0.4.1 from uiautomator2 3.7.1), as the virtual phone runs it.

uiautomator2's client (core.launch_uiautomator) pushes the jar and runs, through `adb shell`:
    CLASSPATH=/data/local/tmp/u2.jar app_process / com.wetest.uia2.Main -p 9008
The virtual phone cannot run dex code; app_process.py checks that the file on CLASSPATH is the pinned
jar (U2_JAR_SHA256) and this module then behaves as that server does:
- it prints "[server] INFO: [UiAutomator2Server] Starting Server" (the jar's Ln and Main), takes the
  phone's one UiAutomation connection (ui_automation.py) — when another client holds it, it prints
  the `IllegalStateException: UiAutomationService …already registered!` line and exits, which
  uiautomator2's client turns into AccessibilityServiceAlreadyRegisteredError;
- it serves HTTP (u2_http.py) on the phone's `tcp:PORT` through DeviceSockets, so `adb forward
  tcp:X tcp:9008`, the `tcp:9008` device service (adbutils create_connection) and any other way into
  the phone's sockets all reach it: `GET /ping` → `pong`, `POST /jsonrpc/0` → JSON-RPC (u2_jsonrpc.py), `/stop` ends it;
- it runs as long as the ADB shell connection that started it stays open (uiautomator2 stops the
  server by closing that connection); then it stops listening, closes its connections and lets go
  of UiAutomation. Its console comes back when it ends: the shell service does not stream.

Methods (names and result shapes from openatx/android-uiautomator-server's AutomatorService,
DeviceInfo and ConfiguratorInfo): dumpWindowHierarchy(compressed[, maxDepth[, rootInActive]]),
deviceInfo(), getConfigurator(), setConfigurator(info), waitForIdle(timeout). The dump is the
phone's own `uiautomator dump` writer (the same XML for the same screen); it first waits for the
screen to be idle as UiDevice.waitForIdle() does — 500 ms without UI events (UiAutomatorBridge; `uiautomator
dump` wants 1000 ms), at most Configurator's waitForIdleTimeout, then
dumps anyway (QueryController logs "Could not detect idle state" and goes on), so a screen that never
goes idle still gets a tree — and costs SERVER_DUMP in the latency profile. `compressed` is
accepted and changes nothing: the virtual phone's views are all important for accessibility.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .device_sockets import normalise_address
from .latency import SERVER_DUMP
from .scrcpy_server import ServerLog
from .shell import Result
from .u2_http import Request, Response, serve_connection
from .u2_jsonrpc import JavaException, JsonRpcService, Overload, to_boolean, to_int, to_long
from .u2_tree import cut_depth, device_info

if TYPE_CHECKING:
    import socket

    from .attached_device import AttachedDevice
    from .shell_io import Process

U2_SERVER_CLASS = "com.wetest.uia2.Main"
U2_JAR_SHA256 = "87c8ac9505970d42aa5922baa90114808fda6f47f9e5fbd4caa0f621c2c8d30d"
"""u2.jar 0.4.1 as uiautomator2 3.7.1 ships it (uiautomator2/assets/u2.jar). The one place the pin lives."""
U2_JAR_DEVICE_PATH = "/data/local/tmp/u2.jar"
DEFAULT_PORT = 9008
MAX_CONNECTIONS = 32          # more at once are closed at once (each one is a thread on the host)
POLL_SECONDS = 0.1
IDLE_QUIET_SECONDS = 0.5      # UiAutomatorBridge.QUIET_TIME_TO_BE_CONSIDERD_IDLE_STATE (500 ms, sic);
                              # `uiautomator dump` waits for 1000 ms without events instead
CONFIGURATOR_DEFAULTS = {     # androidx.test.uiautomator.Configurator's defaults, in ConfiguratorInfo's order
    "actionAcknowledgmentTimeout": 3000, "keyInjectionDelay": 0, "scrollAcknowledgmentTimeout": 200,
    "waitForIdleTimeout": 10000, "waitForSelectorTimeout": 10000, "uiAutomationFlags": 0}


def run_u2_server(device: AttachedDevice, server_args: list[str], process: Process, classpath: str) -> Result:
    """`app_process / com.wetest.uia2.Main [-p PORT]` with the pinned jar on CLASSPATH."""
    log = ServerLog()
    log.info("[UiAutomator2Server] Starting Server")
    port = DEFAULT_PORT
    args = list(server_args)
    while args:
        arg = args.pop(0)
        if arg == "-p" and args:
            value = args.pop(0)
            if not value.isdigit() or not 0 < int(value) < 65536:
                return _exception(log, f'java.lang.NumberFormatException: For input string: "{value[:100]}"')
            port = int(value)
    holder = f"uiautomator2 server (port {port})"
    if not device.ui_automation.acquire(holder):
        return _exception(log, device.ui_automation.already_registered())
    try:
        return U2Server(device, port, log, lambda: device.ui_automation.release(holder)).run(
            process.budget.cancelled)
    finally:
        device.ui_automation.release(holder)


def _exception(log: ServerLog, line: str) -> Result:
    result = log.result(1)
    return Result(chunks=[*result.chunks, (1, (line + "\n").encode("utf-8", "replace"))], code=1)


class U2Server:
    """One run of the server: its listening address, its connections and its settings."""

    def __init__(self, device: AttachedDevice, port: int, log: ServerLog, release: Callable[[], None]):
        self.device, self.phone, self.log = device, device.phone, log
        self.release = release     # lets go of UiAutomation: before the port closes, so "nothing
                                   # listens" means the phone is free again
        self.address = normalise_address(f"tcp:{port}")
        self.stop = threading.Event()
        self.configurator = dict(CONFIGURATOR_DEFAULTS)
        self._lock = threading.Lock()
        self._connections: set[socket.socket] = set()
        self.rpc = JsonRpcService({
            "dumpWindowHierarchy": [Overload(1, lambda c: self.dump(to_boolean(c), 50, None)),
                                    Overload(2, lambda c, d: self.dump(to_boolean(c), to_int(d), None)),
                                    Overload(3, lambda c, d, a: self.dump(to_boolean(c), to_int(d), to_boolean(a)))],
            "deviceInfo": [Overload(0, lambda: device_info(self.phone))],
            "getConfigurator": [Overload(0, lambda: dict(self.configurator))],
            "setConfigurator": [Overload(1, self.set_configurator)],
            "waitForIdle": [Overload(1, lambda t: self.wait_for_idle(to_long(t)))],
        })

    def run(self, cancelled: Callable[[], bool]) -> Result:
        if self.address in self.device.sockets.listening():
            return _exception(self.log, "java.net.BindException: Address already in use")
        self.device.sockets.listen(self.address, self._serve)
        try:
            while not self.stop.wait(POLL_SECONDS):
                if cancelled():
                    break
            return self.log.result(0)
        finally:
            self.stop.set()
            self.release()
            self.device.sockets.stop_listening(self.address)
            with self._lock:
                connections = list(self._connections)
            for sock in connections:
                _shut(sock)

    # ------------------------------------------------------------------ HTTP
    def _serve(self, sock: socket.socket) -> None:
        with self._lock:
            if self.stop.is_set() or len(self._connections) >= MAX_CONNECTIONS:
                return                      # DeviceSockets closes it
            self._connections.add(sock)
        try:
            serve_connection(sock, self.route, self.stop.is_set)
        finally:
            with self._lock:
                self._connections.discard(sock)

    def route(self, request: Request) -> Response:
        if request.uri == "/stop":
            return Response(200, "text/html", b"Server stopped!!!", after=self.stop.set)
        if request.uri == "/ping":
            return Response(200, "text/html", b"pong")
        if request.uri == "/jsonrpc/0":
            if request.method not in ("POST", "PUT"):
                body = request.query.encode() if request.query else None
            else:
                body = request.body
            if body is None:
                return Response(500, "text/plain", b"Invalid http post data!")
            return Response(200, "application/json", self.rpc.handle(body))
        return Response(404, "text/plain", f"{request.uri} not found!".encode("utf-8", "replace"))

    # ------------------------------------------------------------------ methods
    def idle_timeout_seconds(self) -> float:
        return max(0, int(self.configurator["waitForIdleTimeout"])) / 1000.0

    def wait_for_idle(self, timeout_ms: int) -> None:
        phone = self.phone
        phone.motion.wait_for_idle(phone.animating_without_end, timeout=max(0, timeout_ms) / 1000.0,
                                   give_up=self.stop.is_set, quiet=IDLE_QUIET_SECONDS)

    def dump(self, compressed: bool, max_depth: int, root_in_active: bool | None) -> str:
        phone = self.phone
        # UiDevice.waitForIdle(): at most waitForIdleTimeout, then the dump goes on regardless
        phone.motion.wait_for_idle(phone.animating_without_end, timeout=self.idle_timeout_seconds(),
                                   give_up=self.stop.is_set, quiet=IDLE_QUIET_SECONDS)
        phone.timing.pause(SERVER_DUMP)
        xml = phone.dump_all_windows() if root_in_active is False else phone.dump_hierarchy()
        return cut_depth(xml, max_depth)

    def set_configurator(self, info: Any) -> dict[str, int]:
        if not isinstance(info, dict):
            raise JavaException("com.fasterxml.jackson.databind.JsonMappingException",
                                "Can not instantiate value of type [simple type, class "
                                "com.wetest.uia2.stub.ConfiguratorInfo] from JSON value")
        unknown = [key for key in info if key not in CONFIGURATOR_DEFAULTS]
        if unknown:
            raise JavaException("com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException",
                                f'Unrecognized field "{unknown[0][:100]}" (class '
                                "com.wetest.uia2.stub.ConfiguratorInfo), not marked as ignorable")
        # a ConfiguratorInfo built from JSON starts from the current settings, then takes each field
        updated = dict(self.configurator)
        for key, value in info.items():
            updated[key] = to_int(value) if key == "uiAutomationFlags" else to_long(value)
        self.configurator = updated
        return dict(updated)


def _shut(sock: socket.socket) -> None:
    import socket as socket_module
    try:
        sock.shutdown(socket_module.SHUT_RDWR)
    except OSError:
        pass
