"""The run service: one run at a time per phone (in one process and across two), phones side by side,
phones named by ADB server and serial, runs listed live and past."""

from __future__ import annotations

import asyncio
import functools
import os
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_asyncio

from app.core import paths
from app.core.agent.events import Message, RunFinished, RunStarted, StepRecorded
from app.core.agent.llm_client import ModelClient
from app.core.config import AgentSettings, ProviderSettings, Settings, save_settings
from app.core.device.adb_transport import AdbTransport
from app.core.device.phone_id import AmbiguousPhone, PhoneId
from app.core.device.phone_lock import PhoneBusy
from app.core.device.phone_session import PhoneRegistry
from app.core.runs.service import MissingApiKey, RunRefused, RunRequest, RunService, settings_for
from app.virtual_phone.adb_server import VirtualAdbServer
from tests.conftest import REPO_ROOT
from tests.e2e.conftest import agent_home  # noqa: F401  (autouse: a temporary home and an in-memory keyring)
from tests.support.openai_server import FakeOpenAIServer, act, delayed, json_reply

API_KEY = "sk-test-run-service-0123456789"
FINISH = json_reply(act("", status="FINISH"))


def taps(xs: list[int], delay: float = 0.0) -> list:
    """A script of taps at model-image x = each of xs (y varies too), then FINISH; each reply after `delay`."""
    replies = [json_reply(act("tap", x=x, y=300 + 40 * i)) for i, x in enumerate(xs)] + [FINISH]
    return [delayed(delay, reply) for reply in replies] if delay else replies


def tapped_xs(attached) -> list[int]:
    """Device x of every `input tap` the phone received, in order."""
    return [int(float(argv[2])) for argv in attached.command_lines() if argv[:2] == ["input", "tap"]]


@pytest.fixture
def two_phone_server():
    server = VirtualAdbServer().start()
    server.add_phone(serial="emulator-5554")
    server.add_phone(serial="emulator-5556")
    yield server
    server.stop()


def settings_for_tests(base_url: str = "http://127.0.0.1:9/v1") -> Settings:
    return Settings(provider=ProviderSettings(base_url=base_url, model="gpt-4o", timeout_seconds=10, http_retries=1),
                    agent=AgentSettings(mode="auto", settle_seconds=0, stuck_threshold=10))


async def open_registry(server: VirtualAdbServer) -> PhoneRegistry:
    phones = PhoneRegistry()
    transport = AdbTransport("127.0.0.1", server.port)
    for listing in await asyncio.to_thread(transport.list_devices):
        phones.open(transport, listing, virtual=True, timeout=10)
    return phones


@pytest_asyncio.fixture
async def service(two_phone_server):
    phones = await open_registry(two_phone_server)
    made = RunService(phones, settings_for_tests(),
                      client_factory=functools.partial(ModelClient, backoff_seconds=0.01))
    yield made
    await made.shutdown()
    await phones.close()


@pytest.mark.asyncio
async def test_two_runs_on_one_phone_take_turns_and_never_interleave(service, two_phone_server):
    with FakeOpenAIServer(taps([100, 110, 120, 130])) as first, FakeOpenAIServer(taps([400, 410, 420, 430])) as second:
        a = await service.start(RunRequest("first", phone="emulator-5554", api_key=API_KEY,
                                           provider={"base_url": first.base_url}))
        b = await service.start(RunRequest("second", phone="emulator-5554", api_key=API_KEY,
                                           provider={"base_url": second.base_url}))
        waiting = []
        b.events.subscribe(lambda e: isinstance(e, Message) and waiting.append(e.text))
        assert b.state == "queued"
        results = await asyncio.gather(a.wait(), b.wait())
    assert [r.status for r in results] == ["success", "success"], results
    xs = tapped_xs(two_phone_server.devices[0])
    assert len(xs) == 8
    sides = ["first" if x < 540 else "second" for x in xs]
    assert sides == ["first"] * 4 + ["second"] * 4, xs      # all of the first run's taps, then the second's
    assert any("busy" in text for text in waiting)            # the second run said why it waited
    assert tapped_xs(two_phone_server.devices[1]) == []      # the other phone was never touched


@pytest.mark.asyncio
async def test_a_run_that_must_not_wait_is_refused_on_a_busy_phone(service):
    with FakeOpenAIServer(taps([100, 110, 120])) as model:
        a = await service.start(RunRequest("first", phone="emulator-5554", api_key=API_KEY,
                                           provider={"base_url": model.base_url}))
        await asyncio.sleep(0)
        with pytest.raises(PhoneBusy, match="emulator-5554.*busy"):
            await service.start(RunRequest("second", phone="emulator-5554", api_key=API_KEY, wait_if_busy=False))
        assert (await a.wait()).status == "success"
    assert [h.request for h in service.handles()] == ["first"]


@pytest.mark.asyncio
async def test_runs_on_two_phones_go_side_by_side(service, two_phone_server):
    with FakeOpenAIServer(taps([100, 110, 120], 0.3)) as first, \
            FakeOpenAIServer(taps([400, 410, 420], 0.3)) as second:
        a = await service.start(RunRequest("left", phone="emulator-5554", api_key=API_KEY,
                                           provider={"base_url": first.base_url}))
        b = await service.start(RunRequest("right", phone="emulator-5556", api_key=API_KEY,
                                           provider={"base_url": second.base_url}))
        await asyncio.sleep(0.5)
        assert a.state == b.state == "running"            # neither waits for the other
        results = await asyncio.gather(a.wait(), b.wait())
    assert [r.status for r in results] == ["success", "success"]
    assert len(tapped_xs(two_phone_server.devices[0])) == len(tapped_xs(two_phone_server.devices[1])) == 3


@pytest.mark.asyncio
async def test_a_late_reader_sees_the_whole_run_and_pictures_are_not_kept(service):
    with FakeOpenAIServer(taps([100])) as model:
        handle = await service.start(RunRequest("look", api_key=API_KEY, provider={"base_url": model.base_url}))
        await handle.wait()
    seen = []
    handle.events.subscribe(seen.append)          # after the run ended
    kinds = [event.kind for event in seen]
    assert kinds[0] == "run_started" or kinds[1] == "run_started"
    assert kinds[-1] == "run_finished" and kinds.count("step_recorded") == 2
    assert isinstance(seen[-1], RunFinished) and seen[-1].result.status == "success"
    started = next(e for e in seen if isinstance(e, RunStarted))
    assert started.phone["serial"] == "emulator-5554" and started.run_dir == handle.run_dir
    observations = [e for e in seen if e.kind == "observation_ready"]
    assert observations and all(e.screenshot is None for e in observations)
    recorded = [e for e in seen if isinstance(e, StepRecorded)]
    assert all((paths.runs_dir() / os.path.basename(handle.run_dir) / e.item.screenshot).is_file() for e in recorded)


@pytest.mark.asyncio
async def test_runs_are_listed_live_and_past(service):
    with FakeOpenAIServer(taps([100])) as model:
        handle = await service.start(RunRequest("list me", api_key=API_KEY, provider={"base_url": model.base_url}))
        assert service.get(handle.id) is handle and service.live() == [handle]
        await handle.wait()
    assert service.live() == []
    past = await asyncio.to_thread(service.past)
    assert [summary.request for summary in past] == ["list me"] and past[0].status == "success"


@pytest.mark.asyncio
async def test_no_person_policy_fails_with_the_reason_instead_of_waiting(service, two_phone_server):
    with FakeOpenAIServer(taps([100])) as model:
        result = await service.run(RunRequest("needs approval", mode="step", policy="fail", api_key=API_KEY,
                                              provider={"base_url": model.base_url}))
    assert result.status == "failed" and "needs a person to approve" in result.completion_reason
    assert tapped_xs(two_phone_server.devices[0]) == []       # nothing reached the phone


@pytest.mark.asyncio
async def test_hold_policy_waits_until_someone_answers(service, two_phone_server):
    from app.core.agent.supervisor import ReviewAnswer

    with FakeOpenAIServer(taps([100])) as model:
        handle = await service.start(RunRequest("held", mode="step", policy="hold", api_key=API_KEY,
                                                provider={"base_url": model.base_url}))
        for _ in range(200):
            if handle.awaiting_review:
                break
            await asyncio.sleep(0.02)
        assert handle.state == "waiting_for_person" and handle.pending_proposal.step == 1
        handle.answer(handle.pending_id, ReviewAnswer.approve())
        for _ in range(200):
            if handle.awaiting_review:
                break
            await asyncio.sleep(0.02)
        handle.answer(handle.pending_id, ReviewAnswer.approve())      # the FINISH
        result = await handle.wait()
    assert result.status == "success" and len(tapped_xs(two_phone_server.devices[0])) == 1


@pytest.mark.asyncio
async def test_requests_that_cannot_run_are_refused_with_the_reason(service):
    with pytest.raises(MissingApiKey, match="API key"):
        await service.start(RunRequest("no key", provider={"base_url": "https://api.openai.com/v1"}))
    with pytest.raises(RunRefused, match="max_steps"):
        await service.start(RunRequest("bad", max_steps=-3, api_key=API_KEY))
    with pytest.raises(RunRefused, match="empty"):
        await service.start(RunRequest("  ", api_key=API_KEY))
    assert service.handles() == []


@pytest.mark.asyncio
async def test_phones_are_named_by_server_and_serial(two_phone_server):
    other = VirtualAdbServer().start()
    other.add_phone(serial="emulator-5554")
    try:
        phones = await open_registry(two_phone_server)
        transport = AdbTransport("127.0.0.1", other.port)
        phones.open(transport, (await asyncio.to_thread(transport.list_devices))[0], virtual=True)
        with pytest.raises(AmbiguousPhone, match="SERIAL@HOST:PORT"):
            phones.get("emulator-5554")
        assert phones.get("emulator-5556").id == PhoneId(f"127.0.0.1:{two_phone_server.port}", "emulator-5556")
        full = f"emulator-5554@127.0.0.1:{other.port}"
        assert str(phones.get(full).id) == full
        await phones.close()
    finally:
        other.stop()


def test_two_processes_never_drive_one_phone_at_once(two_phone_server, agent_home, tmp_path):  # noqa: F811 (fixture)
    """Two `agentdesk run` processes asked for the same phone, each with its own data folder (the lock is
    per machine, not in the data folder): the second waits for the first's lock."""
    with FakeOpenAIServer(taps([100, 110, 120, 130], 0.2)) as first, \
            FakeOpenAIServer(taps([400, 410, 420, 430], 0.2)) as second:
        other_home = tmp_path / "other-home"
        for home in (agent_home, other_home):
            save_settings(settings_for_tests(), home / paths.settings_path().relative_to(agent_home))
        env = {**os.environ, "OPENAI_API_KEY": API_KEY,
               "ANDROID_ADB_SERVER_HOST": "127.0.0.1", "ANDROID_ADB_SERVER_PORT": str(two_phone_server.port)}
        command = [sys.executable, "-m", "app.cli", "run", "--auto", "--device", "emulator-5554"]
        processes = [subprocess.Popen(command + [name, "--base-url", model.base_url], cwd=REPO_ROOT,
                                      env={**env, "AGENTDESK_HOME": str(home)},
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                     for name, model, home in (("first run", first, agent_home), ("second run", second, other_home))]
        outputs = [process.communicate(timeout=90)[0] for process in processes]
    assert [p.returncode for p in processes] == [0, 0], outputs
    xs = tapped_xs(two_phone_server.devices[0])
    sides = ["first" if x < 540 else "second" for x in xs]
    assert len(xs) == 8 and sides in (["first"] * 4 + ["second"] * 4, ["second"] * 4 + ["first"] * 4), xs
    assert any("another Agent Desk process" in out for out in outputs), outputs


@pytest.mark.asyncio
async def test_the_runs_caps_on_pictures_reach_the_phone(two_phone_server):
    """settings.limits are the caps the phone's pictures and dumps are read with during the run."""
    settings = settings_for_tests()
    settings.limits.max_screenshot_side = 256          # the virtual phone's screen is 1080x2400
    settings.mirror.stream = "screenshots"            # a stream is asked for pictures within the cap instead
    phones = await open_registry(two_phone_server)
    phones.mirror_settings = lambda: settings.mirror
    service = RunService(phones, settings, client_factory=functools.partial(ModelClient, backoff_seconds=0.01))
    try:
        with FakeOpenAIServer(taps([100])) as model:
            handle = await service.start(RunRequest("capped", api_key=API_KEY, phone="emulator-5554",
                                                    provider={"base_url": model.base_url}))
            result = await handle.wait()
    finally:
        await service.shutdown()
        await phones.close()
    recorded = (Path(result.run_dir) / "steps.jsonl").read_text() + result.completion_reason
    assert "limits.max_screenshot_side" in recorded
    assert tapped_xs(two_phone_server.device("emulator-5554")) == []


def test_a_request_carries_its_own_spending_caps_and_bad_ones_are_refused():
    """Faces that are not the window (the coming HTTP API, MCP) set a run's caps on the request."""
    base = Settings(agent=AgentSettings(max_tokens_per_run=50_000, max_cost_usd_per_run=2.0))
    capped = settings_for(base, RunRequest("x", max_tokens=1_000, max_cost_usd=0.25))
    assert (capped.agent.max_tokens_per_run, capped.agent.max_cost_usd_per_run) == (1_000, 0.25)
    kept = settings_for(base, RunRequest("x"))
    assert (kept.agent.max_tokens_per_run, kept.agent.max_cost_usd_per_run) == (50_000, 2.0)
    uncapped = settings_for(base, RunRequest("x", max_tokens=0, max_cost_usd=0))
    assert (uncapped.agent.max_tokens_per_run, uncapped.agent.max_cost_usd_per_run) == (0, 0)
    with pytest.raises(RunRefused, match="max_cost_usd_per_run"):
        settings_for(base, RunRequest("x", max_cost_usd=-1))
