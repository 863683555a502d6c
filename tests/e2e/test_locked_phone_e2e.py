"""A run on a sleeping or locked phone: woken, unlocked only by the person, its screen kept on and restored.

Each test checks the phone as well as the run: nothing reached the locked phone, the model was
not asked before the phone was usable, and the phone's stay-on setting is back as it was.
"""

from __future__ import annotations

import functools

import pytest

from app.android.keycodes import KEYCODES
from app.core.agent.events import QuestionAsked
from app.core.agent.llm_client import ModelClient
from app.core.device.adb_transport import AdbTransport
from app.core.device.phone_session import PhoneRegistry
from app.core.runs.service import RunRequest, RunService
from tests.e2e.conftest import API_KEY, e2e_settings
from tests.support.openai_server import FakeOpenAIServer, act, json_reply

pytestmark = pytest.mark.asyncio

OPEN_SETTINGS = json_reply(act("launch_app", package_name="com.android.settings"))
FINISH = json_reply(act("", status="FINISH", thought="Settings is open"))


async def run_locked(phone_server, script, on_question, policy="person"):
    """Run "Open settings" in auto mode on the (prepared) virtual phone; `on_question(handle, question, model)`."""
    transport = AdbTransport("127.0.0.1", phone_server.port)
    phones = PhoneRegistry()
    phones.open(transport, transport.list_devices()[0], virtual=True, timeout=10)
    with FakeOpenAIServer(script) as model:
        service = RunService(phones, e2e_settings(model.base_url, "auto"),
                             client_factory=functools.partial(ModelClient, backoff_seconds=0.01))
        try:
            handle = await service.start(RunRequest("Open settings", api_key=API_KEY, policy=policy))
            handle.events.subscribe(lambda event: on_question(handle, event.question, model)
                                    if isinstance(event, QuestionAsked) else None)
            result = await handle.wait()
        finally:
            await service.shutdown()
            await phones.close()
    return result, model


def locked_and_asleep(phone_server):
    phone = phone_server.devices[0].phone
    phone.lock_screen()
    phone.key(KEYCODES["SLEEP"])
    assert phone.state()["stay_on_while_plugged_in"] == "0"
    return phone


async def test_locked_phone_is_unlocked_by_the_person_then_the_run_goes_on(phone_server):
    phone = locked_and_asleep(phone_server)
    seen = {}

    def person_unlocks(handle, question, model):
        seen.update(question=question, screen_on=phone.screen_on, locked=phone.keyguard_showing,
                    stay_on=phone.state()["stay_on_while_plugged_in"], model_calls=len(model.chat_requests))
        phone.unlock_by_hand()
        handle.answer_question(handle.pending_question_id, "unlocked")

    result, model = await run_locked(phone_server, [OPEN_SETTINGS, FINISH, FINISH], person_unlocks)
    assert result.status == "success", result
    # while the run waited: woken, still locked, kept on, and the model not yet asked
    assert seen["screen_on"] and seen["locked"] and seen["stay_on"] == "7" and seen["model_calls"] == 0
    assert "Unlock it by hand" in seen["question"]
    # the phone afterwards: unlocked, the run's action done, nothing refused by the lock screen, setting restored
    state = phone.state()
    assert state["foreground"] == "com.android.settings" and not state["locked"]
    assert phone.inputs_refused_while_locked == 0
    assert state["stay_on_while_plugged_in"] == "0"


async def test_locked_phone_with_nobody_to_ask_ends_failed(phone_server):
    phone = locked_and_asleep(phone_server)
    result, model = await run_locked(phone_server, [OPEN_SETTINGS, FINISH], lambda *_: None, policy="fail")
    assert result.status == "failed"
    assert result.completion_reason.startswith("the phone is locked")
    assert model.chat_requests == []                       # the model was never asked
    assert phone.keyguard_showing and phone.inputs_refused_while_locked == 0
    assert phone.state()["foreground"] != "com.android.settings"
    assert phone.state()["stay_on_while_plugged_in"] == "0"
    assert result.run_dir                                   # recorded like any other ending


async def test_stop_while_waiting_for_the_unlock(phone_server):
    phone = locked_and_asleep(phone_server)
    result, model = await run_locked(phone_server, [OPEN_SETTINGS, FINISH],
                                     lambda handle, question, model: handle.stop("stopped by the person"))
    assert result.status == "stopped" and "stopped by the person" in result.completion_reason
    assert model.chat_requests == []
    assert phone.keyguard_showing and phone.inputs_refused_while_locked == 0
    assert phone.state()["stay_on_while_plugged_in"] == "0"


async def test_stay_on_is_restored_after_a_failed_run(phone_server):
    phone = phone_server.devices[0].phone
    phone.settings.put("global", "stay_on_while_plugged_in", "2")
    kept = []
    result, model = await run_locked(
        phone_server, [lambda body: kept.append(phone.state()["stay_on_while_plugged_in"]) or
                       json_reply(act("", status="FAIL", thought="cannot"))(body)], lambda *_: None)
    assert result.status == "failed" and kept == ["7"]
    assert phone.state()["stay_on_while_plugged_in"] == "2"
