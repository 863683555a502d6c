"""A desk serving the task API over real HTTP: virtual phones on their own ADB servers, a scripted model,
the run service, and uvicorn on a free loopback port; tests talk to it with httpx2."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import httpx2
import pytest
import pytest_asyncio

from app.api.desk_api import DeskApi, serve_desk
from app.api.token import ApiToken
from app.core.agent.llm_client import ModelClient
from app.core.config import AgentSettings, ApiSettings, ProviderSettings, Settings
from app.core.device.adb_servers import PhoneDirectory
from app.core.device.phone_session import PhoneRegistry
from app.core.runs.service import RunService
from app.virtual_phone.adb_server import VirtualAdbServer
from app.virtual_phone.phone import VirtualPhone
from tests.e2e.conftest import FIXED_TIME
from tests.support.agent_home import temporary_home
from tests.support.openai_server import FakeOpenAIServer

TOKEN = "test-token-0123456789abcdefghij"
API_KEY = "sk-test-API-never-leaks-0123456789abcdef"
FIXED_TOKEN = ApiToken(TOKEN, "the test", False)


@pytest.fixture(autouse=True)
def agent_home(tmp_path, monkeypatch):
    """Runs, settings and logs under a temporary folder; an in-memory keyring (as in the e2e tests)."""
    yield from temporary_home(tmp_path, monkeypatch)


@dataclass
class Desk:
    http: httpx2.AsyncClient
    api: DeskApi
    model: FakeOpenAIServer
    servers: list[VirtualAdbServer]
    directory: PhoneDirectory
    service: RunService
    settings: Settings
    bodies: list[str] = field(default_factory=list)     # every response body, for the leak check

    @property
    def phone_ids(self) -> list[str]:
        return [str(entry.id) for entry in self.directory.entries()]

    def phone(self, index: int = 0) -> VirtualPhone:
        return self.servers[index].devices[0].phone

    async def post_task(self, prompt: str, **body) -> httpx2.Response:
        return await self.http.post("/v1/tasks", json={"ai_prompt": prompt, **body})

    async def wait_for(self, task_id: str, seconds: float = 30) -> dict:
        """The task's result once it has ended (long polls)."""
        import time

        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            result = (await self.http.get(f"/v1/tasks/{task_id}", params={"wait_seconds": 2})).json()
            if result["status"] in ("success", "failed", "timeout", "stopped"):
                return result
        raise AssertionError(f"task {task_id} did not end within {seconds} s: {result}")


def api_settings(base_url: str, agent: dict | None = None, **api) -> Settings:
    return Settings(provider=ProviderSettings(base_url=base_url, model="gpt-4o", timeout_seconds=10, http_retries=1),
                    agent=AgentSettings(mode="auto", **(agent or {})), api=ApiSettings(**api))


@pytest_asyncio.fixture
async def make_desk(monkeypatch):
    """make_desk(script, phones=1, **api settings) → a Desk; everything is stopped after the test."""
    made: list = []

    async def make(script=(), phones: int = 1, announce: bool = False, agent: dict | None = None,
                   token: ApiToken | None = FIXED_TOKEN, **api) -> Desk:
        """`token`: None lets the desk find or make its own, as the window's does."""
        monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
        servers = []
        for _ in range(phones):        # each on its own ADB server, each an emulator-5554: two machines' phones
            server = VirtualAdbServer().start()
            server.add_phone(VirtualPhone(clock=lambda: FIXED_TIME))
            servers.append(server)
            made.append(server.stop)
        model = FakeOpenAIServer(script).start()
        made.append(model.stop)
        settings = api_settings(model.base_url, agent, **api)
        registry = PhoneRegistry()
        directory = PhoneDirectory(registry, [f"127.0.0.1:{server.port}" for server in servers])
        await directory.refresh()
        directory.start()
        service = RunService(registry, settings, client_factory=functools.partial(ModelClient, backoff_seconds=0.01))
        api_desk = await serve_desk(service, directory, lambda: settings, host="127.0.0.1", port=0,
                                    token=token, announce=announce)
        desk = Desk(None, api_desk, model, servers, directory, service, settings)

        async def keep(response: httpx2.Response) -> None:
            await response.aread()
            desk.bodies.append(response.text)
        desk.http = httpx2.AsyncClient(base_url=api_desk.url, timeout=30, event_hooks={"response": [keep]},
                                      headers={"Authorization": f"Bearer {api_desk.token.value}"})

        async def close() -> None:
            await desk.http.aclose()
            await service.shutdown()
            await api_desk.stop()
            await directory.stop()
            await registry.close()
        made.append(close)
        return desk

    yield make
    for undo in reversed(made):
        result = undo()
        if hasattr(result, "__await__"):
            await result
