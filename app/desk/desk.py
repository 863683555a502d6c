"""The Desk: the one composition root every face builds on.

It owns the settings, the key store, the phone directory (one `PhoneDirectory`, one
`track-devices` connection per ADB server), the virtual-phone policy (when no phone is attached,
the built-in virtual phone), the run service and the task API. The window, `agentdesk run`,
`serve`, `mcp` (when it runs its own desk) and the self-test build a Desk and ask it; none
composes these itself, so a guard rail (which server a key may reach, one run per phone) lives
here once for every face. It lives on one asyncio loop (the window's core thread, or the
command's own loop); `settings` may be replaced from another thread (the window's Settings).
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.core import paths
from app.core.agent.llm_client import ModelClient
from app.core.config import Settings, load_settings
from app.core.device.adb_servers import PhoneDirectory, adb_servers
from app.core.device.local_adb import LOOPBACK, LocalAdbServer
from app.core.device.phone_id import PhoneId
from app.core.device.phone_session import PhoneRegistry
from app.core.device.tree_server import tree_server_policy
from app.core.runs.handle import PersonPolicy
from app.core.runs.service import MissingApiKey, RunRequest, RunService, api_key_for
from app.core.secrets import SecretStore

from .phone_opening import BuiltInPhone, PhoneConnection, built_in_phone, open_phone
from .shared_phone import PORT_VARIABLE, SharedPhone, shared_port

if TYPE_CHECKING:        # the API (FastAPI, uvicorn) loads when it is served, not with the window
    from app.api.desk_api import DeskApi
    from app.api.token import ApiToken
    from app.virtual_phone.adb_server import VirtualAdbServer
from .preflight import Missing, preflight

log = logging.getLogger(__name__)

VIRTUAL_PORT_VARIABLE = PORT_VARIABLE
SETTINGS_POLL_SECONDS = 2.0     # how often `serve` looks whether the settings file changed


def _what() -> str:
    """This process, as the built-in phone lists its users ("agentdesk run", "agentdesk-gui")."""
    program = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "python"
    program = {"__main__.py": "agentdesk-gui", "cli.py": "agentdesk"}.get(program, program)   # (python -m app…)
    return " ".join([program, *sys.argv[1:2]])[:80]


def make_key_store(service: str | None = None) -> SecretStore:
    """The store of API keys (the OS keyring, else this session only). Blocking: keyring's backend detection
    takes ~90 ms, and a locked keyring may wait for an unlock prompt."""
    return SecretStore() if service is None else SecretStore(service=service)


def load_desk_settings() -> tuple[Settings, list[str]]:
    """The saved settings and what was wrong with the file (each a sentence)."""
    return load_settings(paths.settings_path())


def _stamp(path: Path) -> tuple[int, int] | None:
    """When a file last changed, and its size (None: it is not there)."""
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


class Desk:
    """Settings, keys, phones, the virtual phone, runs and the task API, put together once."""

    def __init__(self, settings: Settings, *, virtual: bool | None = None, secrets: SecretStore | None = None,
                 client_factory: Callable[..., ModelClient] | None = None, local: LocalAdbServer | None = None,
                 bad_servers_noted: bool = False, service_type: type[RunService] = RunService) -> None:
        """`virtual`: the virtual-phone policy (None: when no phone is ready; True: only it; False: never).
        A bad AGENTDESK_ADB_SERVERS raises ValueError naming it, or with `bad_servers_noted` is said in `notes`
        (this machine's phones are listed still). `service_type`: a bench's measuring run service."""
        self.settings = settings
        self.virtual = virtual
        self.secrets = secrets
        self._making_secrets: asyncio.Future[SecretStore] | None = None
        self.local = local or LocalAdbServer()
        self.phones = PhoneRegistry(lambda: self.settings.mirror, lambda: tree_server_policy(self.settings))
        self.notes: list[str] = []          # what the person should know about the phones (said once, at start)
        try:
            servers = adb_servers(self.settings.adb) if not virtual else []
        except ValueError as exc:
            if not bad_servers_noted:
                raise
            self.notes.append(f"Other machines' phones are not listed: {exc}")
            servers = [self.local.address]
        self.directory = PhoneDirectory(self.phones, servers, self.local)
        try:
            self.shared_port = shared_port()
        except ValueError as exc:
            if not bad_servers_noted:
                raise
            self.notes.append(f"The built-in phone is not shared: {exc}")
            self.shared_port = 0
        if self.shared_port:        # the built-in phone another process started is listed as any phone is
            self.directory.add_server(f"127.0.0.1:{self.shared_port}", virtual=True, quiet=True)
        options: dict[str, Any] = {"client_factory": client_factory} if client_factory is not None else {}
        self.service = service_type(self.phones, lambda: self.settings, secrets=secrets, **options)
        self.api: DeskApi | None = None
        self.virtual_server: BuiltInPhone | None = None     # the built-in phone, while this desk holds it
        self._connections: list[PhoneConnection] = []
        self._following: asyncio.Task | None = None

    # ------------------------------------------------------------------ keys

    async def key_store(self) -> SecretStore:
        """The key store, made in a worker thread the first time (the run service uses the same one)."""
        if self.secrets is None:
            if self._making_secrets is None:
                self._making_secrets = asyncio.ensure_future(asyncio.to_thread(make_key_store))
            self.secrets = await self._making_secrets
        self.service.secrets = self.secrets
        return self.secrets

    async def api_key(self, settings: Settings | None = None, request: RunRequest | None = None
                      ) -> tuple[str | None, str]:
        """The key a run would use and where it comes from (only for the origin it belongs to), as the run
        service decides it. Raises MissingApiKey (KeyForAnotherOrigin names the origin)."""
        store = await self.key_store()
        return await asyncio.to_thread(
            api_key_for, settings or self.settings, store, request.api_key if request else None,
            request.api_key_env if request else None,
            env_goes_anywhere=bool(request and request.env_key_to_base_url))

    # ------------------------------------------------------------------ phones

    async def open(self) -> None:
        """Ask every ADB server for its phones; when none is ready, start the built-in virtual phone (as the
        policy says). Then watch every server. What to tell the person is added to `notes`."""
        virtual = self.virtual
        if virtual:
            entries = []
        else:
            entries = await self.directory.refresh()
            for server, reason in self.directory.unreachable().items():
                self.notes.append(f"ADB server {server} did not answer ({reason}).")
        if virtual is not False and not any(entry.ready and not entry.virtual for entry in entries):
            await self.start_virtual_phone()     # (another process's built-in phone is held, so it stays)
            await self.directory.refresh()
            self.notes.append("No phone is attached: tasks go to the built-in virtual phone." if not virtual
                              else "Using the built-in virtual phone.")
        self.directory.start()

    @property
    def keep_virtual_phone(self) -> bool:
        return self.settings.adb.keep_virtual_phone

    def _keep_wish(self) -> bool:
        """Whether the built-in phone should stay after its last user: this desk's settings say so, or the saved
        ones do (a command built on default settings must not undo the person's choice). Blocking: reads the file."""
        if self.keep_virtual_phone:
            return True
        try:
            return load_settings(paths.settings_path())[0].adb.keep_virtual_phone
        except Exception:          # an unreadable settings file keeps nothing (it is reported elsewhere)
            return False

    async def start_virtual_phone(self, *, private: bool = False) -> SharedPhone | VirtualAdbServer:  # BuiltInPhone
        """The built-in phone, held and listed: the one every process of this computer shares (on
        AGENTDESK_VIRTUAL_PORT, else 5038), started when none runs; `private`: one of this desk's own."""
        if self.virtual_server is None:
            started, note = await asyncio.to_thread(lambda: built_in_phone(
                keep=self._keep_wish(), what=_what(), private=private or not self.shared_port))
            self.virtual_server = started
            if note:
                self.notes.append(note)
        server = self.virtual_server
        self.directory.add_server(f"127.0.0.1:{server.port}", virtual=True)
        return server

    async def open_phone(self, serial: str | None = None, *, local: bool = False) -> PhoneConnection:
        """One phone to work with, its session in the desk's registry: `serial` (a serial or a full id), else the
        first ready one of this machine's server, else the virtual phone (see `phone_opening.open_phone`).
        `local`: start this machine's ADB server when none runs. Raises DeviceError."""
        named = PhoneId.parse(serial) if serial else None
        if named is not None and self.shared_port and named.server.rpartition(":")[0].strip("[]") in LOOPBACK and \
                named.server.endswith(f":{self.shared_port}"):
            await self.start_virtual_phone()      # the built-in phone by its full id: held, so it stays meanwhile
        keep = await asyncio.to_thread(self._keep_wish) if self.shared_port and self.virtual is not False else False
        connection = await open_phone(serial, virtual=self.virtual, registry=self.phones,
                                      local=self.local if local else None, keep=keep,
                                      what=_what())
        if connection.virtual_server is not None:
            self._connections.append(connection)
            if self.virtual_server is None:
                self.virtual_server = connection.virtual_server
                self.directory.add_server(f"127.0.0.1:{connection.virtual_server.port}", virtual=True)
        return connection

    def watch_settings_servers(self) -> list[str]:
        """After the settings changed: also list the servers they and AGENTDESK_ADB_SERVERS name now (a bad list
        changes nothing), and tell the built-in phone whether to stay. Returns the servers new to the list."""
        for holder in [self.virtual_server, *(c.virtual_server for c in self._connections)]:
            if isinstance(holder, SharedPhone):
                holder.keep(self.keep_virtual_phone)
        if self.virtual:
            return []
        try:
            servers = adb_servers(self.settings.adb)
        except ValueError as exc:
            log.info("the ADB servers in the settings are not listed: %s", exc)
            return []
        new = [address for address in servers if address not in self.directory.servers]
        for address in servers:
            self.directory.add_server(address)
        return new

    def follow_settings_file(self, path: Path | None = None, every: float = SETTINGS_POLL_SECONDS) -> None:
        """Watch the settings file (a command without a window, `serve`): when the window or a person changes
        it, the ADB servers it names are listed and the keep setting applies, without a restart. Other settings
        stay as the command was started with. Call on the desk's loop; `close()` ends it."""
        if self._following is None:
            path = path or paths.settings_path()
            self._following = asyncio.ensure_future(self._follow_settings(path, _stamp(path), every))

    async def _follow_settings(self, path: Path, seen: tuple[int, int] | None, every: float) -> None:
        while True:
            await asyncio.sleep(every)
            now = await asyncio.to_thread(_stamp, path)
            if now == seen:
                continue
            seen = now
            saved, problems = await asyncio.to_thread(load_settings, path)
            if problems:
                log.info("the changed settings file is not used: %s", "; ".join(problems))
                continue
            self.settings = self.settings.model_copy(update={"adb": saved.adb})
            for address in self.watch_settings_servers():
                log.info("now listing the phones of ADB server %s (named in the settings)", address)

    def watch(self, address: str | None = None) -> None:
        """Watch every server the desk lists (and `address` too); call on the desk's loop."""
        if address is not None:
            self.directory.add_server(address)
        self.directory.start()

    # ------------------------------------------------------------------ the task API

    async def serve(self, *, host: str | None = None, port: int | None = None, token: ApiToken | None = None,
                    policy: PersonPolicy = "person", announce: bool = True, directory: Any = None) -> DeskApi:
        """Serve the task API over this desk's runs and phones (`directory`: a stand-in for the desk's, for a
        bench that times one phone). Raises ServeProblem or TokenProblem."""
        from app.api.desk_api import serve_desk

        self.api = await serve_desk(self.service, directory or self.directory, lambda: self.settings, host=host,
                                    port=port, token=token, policy=policy, announce=announce,
                                    preflight=self.preflight_words)
        return self.api

    @property
    def url(self) -> str:
        """The task API's address ("" while it is not served)."""
        return self.api.url if self.api is not None else ""

    async def stop_serving(self) -> None:
        api, self.api = self.api, None
        if api is not None:
            await api.stop()

    # ------------------------------------------------------------------ what is missing

    async def preflight(self, *, settings: Settings | None = None, request: RunRequest | None = None,
                        display: bool = True, adb: bool = True, phone: bool = True, key: bool = True,
                        model: bool = True) -> list[Missing]:
        """What is missing for a run, each in plain words (empty: nothing): the display (for the window), the
        ADB server, a ready phone (the virtual phone counts when the desk uses it), the API key (as a run of
        `request` with `settings` would resolve it), the data folder, the model's server. A face leaves out what
        it does not need (`display=False` …)."""
        settings = settings or self.settings
        key_problem = ""
        if key:
            try:
                await self.api_key(settings, request)
            except MissingApiKey as exc:
                key_problem = str(exc)
        ready = any(entry.ready for entry in self.directory.entries()) or any(
            session.listing.ready for session in self.phones.sessions())
        return await preflight(settings, self.local.address if adb else None, display=display,
                               phone=phone and not ready, key_problem=key_problem, model=model)

    async def preflight_words(self) -> list[dict[str, str]]:
        """The preflight list for the task API (no display: a script does not open the window)."""
        return [item.to_dict() for item in await self.preflight(display=False)]

    # ------------------------------------------------------------------ closing

    async def close(self) -> None:
        """Stop the runs (recorded), the API, the watchers, the phones and the virtual phone."""
        following, self._following = self._following, None
        if following is not None:
            following.cancel()
            await asyncio.gather(following, return_exceptions=True)
        await self.service.shutdown()
        await self.stop_serving()
        await self.directory.stop()
        await self.phones.close()
        connections, self._connections = self._connections, []
        for connection in connections:
            if connection.virtual_server is self.virtual_server:
                self.virtual_server = None
            await asyncio.to_thread(connection.close)
        if self.virtual_server is not None:
            server, self.virtual_server = self.virtual_server, None
            await asyncio.to_thread(server.stop)

    async def stop_helpers(self) -> None:
        """Last on quit: stop this machine's ADB server if the app started it (none ran before)."""
        await asyncio.to_thread(self.local.stop_if_ours)


async def open_served_desk(settings: Settings, *, virtual: bool | None = None, host: str | None = None,
                           port: int | None = None, token: ApiToken | None = None, policy: PersonPolicy = "person",
                           announce: bool = True, client_factory: Callable[..., ModelClient] | None = None) -> Desk:
    """A desk without a window (`agentdesk serve`, and `agentdesk mcp` when no desk runs): its phones found (the
    virtual one as `virtual` says), its runs served as the task API. Raises ValueError for a bad
    AGENTDESK_ADB_SERVERS, ServeProblem when the port is taken."""
    desk = Desk(settings, virtual=virtual, client_factory=client_factory)
    try:
        await desk.open()
        desk.follow_settings_file()          # servers the window (or a person) adds to the settings, at once
        await desk.serve(host=host, port=port, token=token, policy=policy, announce=announce)
    except BaseException:
        await desk.close()
        raise
    return desk
