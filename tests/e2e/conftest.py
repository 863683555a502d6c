"""End-to-end fixtures: a virtual phone with a fixed clock, a scripted model, a scripted person.

Runs go through the run service, as every face's do; the scripted person answers from the
run's event stream through the run's handle, as the window and the console do.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

import pytest

from app.core import paths
from app.core.agent.events import QuestionAsked, ReviewRequested
from app.core.agent.llm_client import ModelClient
from app.core.agent.memory import RunResult
from app.core.agent.supervisor import Proposal, ReviewAnswer
from app.core.agent.trajectory import check_run, load_run
from app.core.config import AgentSettings, ProviderSettings, Settings, save_settings
from app.core.device.adb_transport import AdbTransport
from app.core.device.phone_session import PhoneRegistry
from app.core.runs.handle import RunHandle
from app.core.runs.service import RunRequest, RunService
from app.virtual_phone.adb_server import VirtualAdbServer
from app.virtual_phone.attached_device import AttachedDevice
from app.virtual_phone.phone import VirtualPhone
from tests.support.agent_home import temporary_home
from tests.support.openai_server import FakeOpenAIServer

API_KEY = "sk-test-E2E-do-not-leak-0123456789abcdef"
FIXED_TIME = datetime(2026, 11, 21, 9, 41)


@pytest.fixture(autouse=True)
def agent_home(tmp_path, monkeypatch):
    """Runs, settings and logs under a temporary folder; an in-memory keyring."""
    yield from temporary_home(tmp_path, monkeypatch)


@pytest.fixture
def cli_env(phone_server, monkeypatch):
    """`agentdesk` at a terminal: default settings saved, the model's key in the environment."""
    save_settings(Settings(agent=AgentSettings()), paths.settings_path())
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    return phone_server


@pytest.fixture
def phone_server(monkeypatch, request):
    """The virtual phone; `@pytest.mark.phone_latency("realistic@0.25")` makes it as slow as a phone."""
    marker = request.node.get_closest_marker("phone_latency")
    server = VirtualAdbServer().start()
    server.add_phone(VirtualPhone(clock=lambda: FIXED_TIME, latency=marker.args[0] if marker else "quick"))
    monkeypatch.setenv("ANDROID_ADB_SERVER_HOST", "127.0.0.1")
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(server.port))
    yield server
    server.stop()


@dataclass
class ScriptedPerson:
    """Answers reviews from a list of callables (proposal → answer); records what it was shown.

    A review it has no answer for is recorded in `unexpected` and answered with Stop. An answer that fails
    (a failed assertion about the proposal, no reply left for a question) stops the run at once, and
    `raise_failure()` (which `run_agent` calls when the run has ended) raises it in the test, with its message:
    the run's event stream would otherwise log it and wait for an answer until the test timed out.
    """

    answers: list[Callable[[Proposal], ReviewAnswer]] = field(default_factory=list)
    replies: list[str] = field(default_factory=list)
    shown: list[Proposal] = field(default_factory=list)
    questions: list[str] = field(default_factory=list)
    unexpected: list[str] = field(default_factory=list)
    failures: list[BaseException] = field(default_factory=list)
    model: FakeOpenAIServer | None = None          # the run's model server, set by run_agent before attach

    def attach(self, handle: RunHandle) -> None:
        def on_event(event) -> None:
            try:
                if isinstance(event, ReviewRequested):
                    self.shown.append(event.proposal)
                    if not self.answers:
                        self.unexpected.append(event.proposal.action_text)
                        handle.answer(event.proposal.id, ReviewAnswer.stop())
                        return
                    handle.answer(event.proposal.id, self.answers.pop(0)(event.proposal))
                elif isinstance(event, QuestionAsked):
                    self.questions.append(event.question)
                    if not self.replies:
                        raise AssertionError(f"the run asked a question the script has no reply for: "
                                             f"{event.question!r}")
                    handle.answer_question(event.question_id, self.replies.pop(0))
            except Exception as failure:
                self.failed(handle, failure)
        handle.events.subscribe(on_event)

    def failed(self, handle: RunHandle, failure: BaseException) -> None:
        """The scripted person's own failure: kept for `raise_failure`, and the run stopped so it ends now."""
        self.failures.append(failure)
        handle.stop(f"the scripted person failed: {failure!r}")

    def raise_failure(self) -> None:
        """Raise the first failure of the person's script, if any (the test fails with its message)."""
        if self.failures:
            raise self.failures[0]


PHONE_ACTING_PROGRAMS = ("input", "am", "monkey")    # taps, keys, typing, app launches


def phone_actions(device: AttachedDevice) -> list[list[str]]:
    """The commands that acted on a virtual phone (taps, keys, typing, launching apps), in order."""
    return [argv for argv in device.command_lines() if argv and argv[0] in PHONE_ACTING_PROGRAMS]


def approve(_proposal: Proposal) -> ReviewAnswer:
    return ReviewAnswer.approve()


@dataclass
class RunOutcome:
    result: RunResult
    run: RunHandle
    model: FakeOpenAIServer
    phone: VirtualPhone
    person: ScriptedPerson
    device: AttachedDevice

    @property
    def state(self) -> dict:
        return self.phone.state()

    def phone_actions(self) -> list[list[str]]:
        """Every command that acted on the phone (taps, keys, typing, app launches), as it reached it."""
        return phone_actions(self.device)

    def trajectory_problems(self) -> list[str]:
        return check_run(self.result.run_dir)

    def steps(self) -> list:
        return load_run(self.result.run_dir).steps


def e2e_settings(base_url: str, mode: str = "step", provider: dict | None = None, **agent) -> Settings:
    provider_settings = {"base_url": base_url, "model": "gpt-4o", "timeout_seconds": 10, "http_retries": 2,
                         **(provider or {})}
    return Settings(provider=ProviderSettings(**provider_settings),
                    agent=AgentSettings(mode=mode, **agent))   # the app's own settle time after each action


QUICK_PHONE_QUIET_SECONDS = 0.05
"""The settle wait's quiet period on the quick virtual phone, whose screens change at once (the app's default is
0.2 s, for a phone's transitions): runs that do not test settling pass settle_quiet_seconds to test it, and the
realistic phone (`phone_latency`) keeps the default."""


@pytest.fixture
def run_agent(phone_server, request):
    """Run a request with a scripted model and person through the run service; returns a RunOutcome."""
    if request.node.get_closest_marker("phone_latency") is None:
        quiet = {"settle_quiet_seconds": QUICK_PHONE_QUIET_SECONDS}
    else:
        quiet = {}

    async def run(request: str, script: list, person: ScriptedPerson | None = None, mode: str = "step",
                  backoff: float = 0.01, provider: dict | None = None, completion_checks: str = "yes",
                  request_options: dict | None = None, **agent) -> RunOutcome:
        person = person or ScriptedPerson()
        agent = {**quiet, **agent}
        attached = phone_server.devices[0]
        transport = AdbTransport("127.0.0.1", phone_server.port)
        phones = PhoneRegistry()
        phones.open(transport, transport.list_devices()[0], virtual=True, timeout=10)
        with FakeOpenAIServer(script, completion_checks=completion_checks) as model:
            service = RunService(phones, e2e_settings(model.base_url, mode, provider, **agent),
                                 client_factory=functools.partial(ModelClient, backoff_seconds=backoff))
            try:
                handle = await service.start(RunRequest(request, api_key=API_KEY, **(request_options or {})))
                person.model = model
                person.attach(handle)
                result = await handle.wait()
            finally:
                await service.shutdown()
                await phones.close()
        person.raise_failure()
        assert not person.unexpected, f"unexpected reviews: {person.unexpected}"
        return RunOutcome(result, handle, model, attached.phone, person, attached)
    return run
