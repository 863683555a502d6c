"""Protected screens and private data, end to end: the virtual phone's FLAG_SECURE PIN screen is
recognised (no picture goes to the model, the person is told once, the step says why), the PIN
typed never lands in the trajectory, and an app listed in images.never_send_apps never has its
screenshots sent."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from app.core.agent.events import Message
from app.core.agent.llm_client import ModelClient
from app.core.config import ImageSettings
from app.core.device.adb_transport import AdbTransport
from app.core.device.phone_session import PhoneRegistry
from app.core.perception.protected_screen import PROTECTED_MESSAGE, PROTECTED_REASON, never_send_reason
from app.core.runs.service import RunRequest, RunService
from tests.e2e.conftest import API_KEY, ScriptedPerson, approve, e2e_settings
from tests.support.openai_server import FakeOpenAIServer, act, click, has_images, json_reply, type_into

PIN = "2468"
PIN_SCREEN = "com.android.settings.password.ChooseLockPassword"
DONE = json_reply({"done": True, "reason": "the screen shows the task is done"})   # the completion check's answer


def messages_of(handle) -> list[str]:
    texts: list[str] = []
    handle.events.subscribe(lambda event: texts.append(event.text) if isinstance(event, Message) else None)
    return texts


def run_folder_text(run_dir: str) -> str:
    """Every text file the run wrote (steps.jsonl, run.json, report.html…), joined."""
    return "\n".join(path.read_text(encoding="utf-8", errors="replace")
                     for path in Path(run_dir).rglob("*") if path.suffix in (".json", ".jsonl", ".html", ".txt"))


@pytest.mark.asyncio
async def test_the_pin_screen_goes_to_the_model_as_text_only_and_the_pin_is_never_recorded(run_agent, phone_server):
    phone = phone_server.devices[0].phone
    assert phone.launch("com.android.settings", PIN_SCREEN)
    script = [type_into("password_entry", PIN), click("Next"), type_into("password_entry", PIN), click("Confirm"),
              json_reply(act("", status="FINISH", thought="The screen lock is a PIN now")), DONE]
    person = ScriptedPerson([approve] * 8)
    outcome = await run_agent("Set a four-digit screen lock PIN", script, person)

    # the phone: the PIN was set through the secure screen, and it is gone from the screen
    assert outcome.state["screen_lock"] == "pin"
    assert phone.foreground()[1] != PIN_SCREEN
    # the run
    assert outcome.result.status == "success", outcome.result
    assert outcome.trajectory_problems() == []
    steps = outcome.steps()
    assert [step.images_withheld for step in steps[:4]] == [PROTECTED_REASON] * 4
    assert steps[4].images_withheld == ""
    messages = messages_of(outcome.run)
    assert len([text for text in messages if PROTECTED_MESSAGE in text]) == 1, messages
    # the model: no picture of the secure screen, its controls as text; a picture again afterwards
    requests = outcome.model.chat_requests
    assert not any(has_images(request.body) for request in requests[:4])
    assert "Set a PIN" in json.dumps(requests[0].body["messages"][-1], ensure_ascii=False)
    assert has_images(requests[4].body)
    # the PIN: typed by the model, shown to the person, never stored
    assert any(PIN in proposal.action_text or PIN in json.dumps(proposal.action.model_dump())
               for proposal in person.shown)
    assert PIN not in run_folder_text(outcome.result.run_dir)
    assert not any(PIN in json.dumps(request.body, ensure_ascii=False) for request in requests[1:]), \
        "the next prompts recall the typing with the PIN masked"
    assert "••••" in json.dumps([step.action for step in steps[:4]], ensure_ascii=False)


@pytest.mark.asyncio
async def test_an_app_on_the_never_send_list_gets_no_picture_sent(phone_server, agent_home):
    phone = phone_server.devices[0].phone
    script = [json_reply(act("launch_app", package_name="com.android.settings")),
              click("Network & internet"), click("Wi-Fi"), click("Use Wi-Fi"),
              json_reply(act("", status="FINISH", thought="Wi-Fi is on")), DONE]
    transport = AdbTransport("127.0.0.1", phone_server.port)
    phones = PhoneRegistry()
    phones.open(transport, transport.list_devices()[0], virtual=True, timeout=10)
    with FakeOpenAIServer(script) as model:
        settings = e2e_settings(model.base_url, "auto")
        settings.images = ImageSettings(never_send_apps=["com.android.settings"])
        service = RunService(phones, settings, client_factory=functools.partial(ModelClient, backoff_seconds=0.01))
        try:
            handle = await service.start(RunRequest("Turn on Wi-Fi", api_key=API_KEY))
            result = await handle.wait()
        finally:
            await service.shutdown()
            await phones.close()
        requests = model.chat_requests

    assert phone.state()["wifi"] is True
    assert result.status == "success", result
    assert has_images(requests[0].body), "the home screen is not listed: its picture is sent"
    settings_steps = range(1, 5)
    assert not any(has_images(requests[i].body) for i in settings_steps)
    from app.core.agent.trajectory import load_run
    steps = load_run(result.run_dir).steps
    assert steps[0].images_withheld == ""
    assert all(steps[i].images_withheld == never_send_reason("com.android.settings") for i in settings_steps)
    told = [text for text in messages_of(handle) if "never sent to the model" in text]
    assert len(told) == 1 and "com.android.settings" in told[0], told
