"""`agentdesk bench api`: what the task API costs a task, and whether pollers slow a running one.

Rows, on each phone:
- the API's overhead per task: from the request to the task's first action, minus the time in
  model requests and in ADB services — through HTTP (POST /v1/tasks) against the same task asked
  of the run service directly (the baseline), in alternating tasks;
- a step's wall time while 100 clients poll the task's status (each every POLL_INTERVAL_S, from
  another process, as scripts would), against the same steps with nobody polling.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import statistics
import subprocess
import sys
import textwrap
import time

import httpx2

from app.api.token import ApiToken
from app.core.agent.events import ActionExecuted, StepFinished, StepStarted
from app.core.config import AgentSettings, ImageSettings, MirrorSettings, ProviderSettings, Settings
from app.core.device.phone_id import PhoneId
from app.core.device.phone_session import PhoneSession
from app.core.runs.handle import RunHandle
from app.core.runs.service import RunRequest, RunService
from app.desk import Desk

from .agent_bench import TimedClient, TimedDevice, bench_home, loopback_model
from .phones import DEFAULT_CHOICE, BenchPhone, PhoneChoice, each_phone
from .table import BenchTable

POLLERS = 100
POLL_INTERVAL_S = 0.5
STEPS_PER_TASK = 5
OVERHEAD_BUDGET_MS = 25.0
POLL_SLOWDOWN_BUDGET = 10.0        # percent


class _Directory:
    """The one phone of a bench run, as the API's phone directory."""

    def __init__(self, session: PhoneSession) -> None:
        self._session = session
        self.registry = None

    def session(self, name=None) -> PhoneSession:
        return self._session


POLLER_SCRIPT = textwrap.dedent("""
    import asyncio, sys, httpx2
    url, token, task_id, count, interval = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
    async def poll(http, offset):
        await asyncio.sleep(offset)
        while True:
            await http.get(f"/v1/tasks/{task_id}")
            await asyncio.sleep(interval)
    async def main():
        limits = httpx2.Limits(max_connections=count)
        async with httpx2.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {token}"},
                                      limits=limits) as http:
            print("polling", flush=True)
            await asyncio.gather(*(poll(http, interval * i / count) for i in range(count)))
    asyncio.run(main())
""")


@contextlib.contextmanager
def _pollers(url: str, token: str, task_id: str):
    process = subprocess.Popen([sys.executable, "-c", POLLER_SCRIPT, url, token, task_id, str(POLLERS),
                                str(POLL_INTERVAL_S)], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None, "stdout=PIPE"
    try:
        process.stdout.readline()           # "polling": its clients are made
        time.sleep(POLL_INTERVAL_S)         # every client has sent its first request
        yield
    finally:
        process.kill()
        process.wait(5)


class _AskedService(RunService):
    """The run service, noting when it was last asked to start a run (the API's part of the way ends there)."""

    asked_at = 0.0

    async def start(self, request: RunRequest) -> RunHandle:
        self.asked_at = time.perf_counter()
        return await super().start(request)


async def _one_task(phone: BenchPhone, model_url: str, how: str) -> tuple[float, float, list[float]]:
    """(overhead to the first action, time from the request to the run service being asked, [wall ms of
    each step after the first]) of one task, asked `how`:
    "direct" (the run service), "api" (HTTP), or "polled" (HTTP, with 100 clients polling its status)."""
    device = TimedDevice(phone.transport(), phone.serial)
    settings = Settings(provider=ProviderSettings(base_url=model_url, model="bench", use_tools=False),
                        images=ImageSettings(), mirror=MirrorSettings(stream="screenshots"),
                        agent=AgentSettings(mode="auto", max_steps=STEPS_PER_TASK, settle_seconds=0,
                                            stuck_threshold=10))
    client = TimedClient(settings.provider, "bench-key")
    desk = Desk(settings, virtual=False, client_factory=lambda *args, **kwargs: client, bad_servers_noted=True,
                service_type=_AskedService)
    session = desk.phones.add(PhoneSession(PhoneId(device.transport.address, phone.serial), device,
                                           mirror_settings=lambda: settings.mirror))
    service = desk.service
    assert isinstance(service, _AskedService)
    token = ApiToken(secrets.token_urlsafe(24), "the bench", False)
    api = await desk.serve(host="127.0.0.1", port=0, token=token, announce=False, directory=_Directory(session))
    marks: dict[str, float] = {}
    starts: dict[int, float] = {}
    walls: list[float] = []

    def on_event(event) -> None:
        now = time.perf_counter()
        if isinstance(event, ActionExecuted) and "first_action" not in marks:
            marks["first_action"], marks["model_ms"] = now, client.model_ms
        elif isinstance(event, StepStarted):
            starts[event.step] = now
        elif isinstance(event, StepFinished) and event.step > 1:
            walls.append((now - starts[event.step]) * 1000)
    task_id = f"bench-{secrets.token_hex(4)}"
    polling = _pollers(api.url, token.value, task_id) if how == "polled" else contextlib.nullcontext()
    try:
        async with httpx2.AsyncClient(base_url=api.url, headers={"Authorization": f"Bearer {token.value}"}) as http:
            await http.get("/v1/health")           # the connection is open before the clock starts
            with polling:
                started = time.perf_counter()
                if how == "direct":
                    handle = await service.start(RunRequest("Benchmark: look at the screen", phone=session.id,
                                                            api_key="bench-key", policy="fail", run_id=task_id))
                else:
                    answer = await http.post("/v1/tasks", json={"task_id": task_id, "ai_prompt":
                                                                "Benchmark: look at the screen"})
                    answer.raise_for_status()
                    accepted = service.get(task_id)
                    assert accepted is not None, "the API answered 2xx: the run service has the task"
                    handle = accepted
                handle.events.subscribe(on_event)
                await asyncio.to_thread(lambda: None)
                await handle.wait()
    finally:
        await desk.close()
    first = marks["first_action"]
    overhead = (first - started) * 1000 - device.busy_ms(started, first) - marks["model_ms"]
    return overhead, (service.asked_at - started) * 1000, walls


def _measure(phone: BenchPhone, model_url: str, rounds: int, table: BenchTable) -> None:
    figures: dict[str, list] = {"direct": [], "api": [], "polled": []}
    for index in range(rounds):
        shift = index % 3
        for how in (["direct", "api", "polled"] * 2)[shift:shift + 3]:
            figures[how].append(asyncio.run(_one_task(phone, model_url, how)))
    median = statistics.median
    overhead = {how: median(o for o, _, _ in runs) for how, runs in figures.items()}
    asking = median(a for _, a, _ in figures["api"])
    steps = {how: median(w for _, _, walls in runs for w in walls) for how, runs in figures.items()}
    table.put(phone.column, "a task's overhead: request to first action, minus model and phone time",
              overhead["api"], overhead["direct"], baseline_name="the same task asked of the run service directly")
    table.put(phone.column, "the task API's share of it: request sent to the run service asked (HTTP, checks)",
              asking, budget=OVERHEAD_BUDGET_MS)
    table.put(phone.column, f"one step of a task while {POLLERS} clients poll its status, wall time",
              steps["polled"], steps["api"], baseline_name="the same steps, nobody polling")
    table.put(phone.column, f"steps slowed by {POLLERS} pollers", max(0.0, (steps["polled"] / steps["api"] - 1) * 100),
              unit="%", budget=POLL_SLOWDOWN_BUDGET)


def run_api_bench(rounds: int = 4, choice: PhoneChoice = DEFAULT_CHOICE) -> BenchTable:
    table = BenchTable(f"agentdesk bench api — {choice.describe()}, loopback model, median of {rounds} tasks "
                       f"of {STEPS_PER_TASK} steps each way", choice.columns)
    with bench_home(), loopback_model() as model_url, contextlib.closing(each_phone(choice)) as phones:
        for phone in phones:
            _measure(phone, model_url, rounds, table)
    table.notes += [
        "Overhead: from sending the request (HTTP POST /v1/tasks over a kept-alive loopback connection, or "
        "RunService.start for the baseline) to the first action done on the phone, minus the time in ADB "
        "services and model requests. It includes the run's own start (its folder, the phone's screen kept on).",
        f"Pollers: {POLLERS} HTTP clients in another process, each asking GET /v1/tasks/{{id}} every "
        f"{POLL_INTERVAL_S:g} s ({POLLERS / POLL_INTERVAL_S:.0f} requests a second) while the task runs; the API "
        "serves them on the run's own event loop.",
    ]
    return table
