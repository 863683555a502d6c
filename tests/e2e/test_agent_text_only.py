"""A model that cannot see: the run switches to text only once, finishes its task, and the model is remembered.

The scripted server refuses every request carrying an image the way llama.cpp without a
vision projector does (HTTP 500 "image input is not supported…"), or OpenAI's text-only
models do (HTTP 400 "Invalid content type. image_url is only supported by certain models.").
"""

from __future__ import annotations

import functools

import pytest

from app.cli import main
from app.core import paths
from app.core.agent.events import Message
from app.core.agent.llm_client import ModelClient
from app.core.agent.text_only import TextOnlyModels
from app.core.agent.trajectory import check_run
from app.core.config import ImageSettings, Settings, save_settings
from app.core.device.adb_transport import AdbTransport
from app.core.device.phone_session import PhoneRegistry
from app.core.runs.service import RunRequest, RunService
from tests.e2e.conftest import API_KEY, e2e_settings
from tests.support.openai_server import FakeOpenAIServer, act, click, has_images, is_completion_check, json_reply

WIFI_SCRIPT = [json_reply(act("launch_app", package_name="com.android.settings")),
               click("Network & internet"), click("Wi-Fi"), click("Use Wi-Fi"),
               json_reply(act("", status="FINISH", thought="Wi-Fi is on"))]


async def run_on(model: FakeOpenAIServer, phone_server, request: str):
    """One auto-mode run through the run service; returns (result, the run's messages)."""
    transport = AdbTransport("127.0.0.1", phone_server.port)
    phones = PhoneRegistry()
    phones.open(transport, transport.list_devices()[0], virtual=True, timeout=10)
    service = RunService(phones, e2e_settings(model.base_url, "auto"),
                         client_factory=functools.partial(ModelClient, backoff_seconds=0.01))
    messages: list[str] = []
    try:
        handle = await service.start(RunRequest(request, api_key=API_KEY))
        handle.events.subscribe(lambda event: messages.append(event.text) if isinstance(event, Message) else None)
        result = await handle.wait()
    finally:
        await service.shutdown()
        await phones.close()
    return result, messages


def switch_messages(messages: list[str]) -> list[str]:
    return [text for text in messages if "cannot read images" in text]


@pytest.mark.asyncio
@pytest.mark.parametrize("server_kind", ["llama.cpp", "openai"])
async def test_a_text_only_model_finishes_the_task_and_is_remembered(phone_server, agent_home, server_kind):
    phone = phone_server.devices[0].phone
    with FakeOpenAIServer(WIFI_SCRIPT, refuse_images=server_kind) as model:
        result, messages = await run_on(model, phone_server, "Turn on Wi-Fi")
        assert result.status == "success", result
        assert phone.state()["wifi"] is True
        assert check_run(result.run_dir) == []
        requests = model.chat_requests
        assert has_images(requests[0].body), "the first step tried with images"
        assert not any(has_images(request.body) for request in requests[1:]), "no image after the refusal"
        steps = [request for request in requests if not is_completion_check(request.body)]
        assert len(steps) == len(WIFI_SCRIPT) + 1, "one refused request, then one per step: nothing retried"
        checks = model.completion_check_requests
        assert len(checks) == 1 and not has_images(checks[0].body), "the FINISH was checked, as text"
        assert result.verification == "model"
        assert len(switch_messages(messages)) == 1, messages
        assert "all you get of the screen" in str(requests[1].body["messages"][-1]["content"])
        assert TextOnlyModels().contains(model.base_url, "gpt-4o")
        assert (agent_home / "data" / "text_only_models.json").exists()

        # The next run starts text-only: no image is ever sent, and there is no switch to tell.
        model.add(json_reply(act("", status="FINISH", thought="Wi-Fi is already on")))
        before = len(model.chat_requests)
        second, second_messages = await run_on(model, phone_server, "Check that Wi-Fi is on")
    assert second.status == "success", second
    assert not any(has_images(request.body) for request in model.chat_requests[before:])
    assert len(model.chat_requests) - before == 2, "the FINISH and its completion check"
    assert switch_messages(second_messages) == []
    assert any("earlier run" in text for text in second_messages)
    assert phone.state()["wifi"] is True


def doctor_lines(out: str) -> dict[str, str]:
    """`agentdesk doctor`'s lines by check name: "ok"/"FIX" and the detail."""
    return {line[5:].split("  ", 1)[0].strip(): line for line in out.splitlines() if line[:3] in ("ok ", "FIX")}


@pytest.mark.parametrize("server_kind", ["llama.cpp", "openai"])
def test_doctor_says_a_text_only_model_reads_text_only(phone_server, monkeypatch, capsys, server_kind):
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    save_settings(Settings(), paths.settings_path())       # Settings name another endpoint and model
    with FakeOpenAIServer([json_reply({"ok": True})], models=["smollm2"], refuse_images=server_kind) as model:
        main(["doctor", "--base-url", model.base_url, "--model", "smollm2"])
        lines = doctor_lines(capsys.readouterr().out)
        assert lines["Model reads images"].startswith("FIX")
        assert "this model reads text only" in lines["Model reads images"]
        assert 'Send to "none"' in lines["Model reads images"]
        assert lines["Model answers"].startswith("ok ")
        assert lines["Model smollm2"].startswith("ok ")
        assert lines["Data folder"].startswith("ok ")
        assert [has_images(r.body) for r in model.chat_requests] == [True, False]
        assert TextOnlyModels().contains(model.base_url, "smollm2")

        # With the image setting "none", a text-only model is as it should be.
        save_settings(Settings(images=ImageSettings(send="none")), paths.settings_path())
        model.add(json_reply({"ok": True}))
        main(["doctor", "--base-url", model.base_url, "--model", "smollm2"])
        assert doctor_lines(capsys.readouterr().out)["Model reads images"].startswith("ok ")


def test_doctor_takes_a_model_that_now_sees_off_the_text_only_list(phone_server, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    with FakeOpenAIServer([json_reply({"ok": True})]) as model:
        TextOnlyModels().remember(model.base_url, "fake-vision", "refused before the projector was added")
        main(["doctor", "--base-url", model.base_url, "--model", "fake-vision"])
        lines = doctor_lines(capsys.readouterr().out)
        assert lines["Model reads images"].startswith("ok ") and lines["Model answers"].startswith("ok ")
        assert has_images(model.chat_requests[0].body)
        assert not TextOnlyModels().contains(model.base_url, "fake-vision")


def test_doctor_refuses_a_bad_base_url_clearly(monkeypatch, capsys):
    assert main(["doctor", "--base-url", "localhost:8080"]) == 2
    assert "must start with http:// or https://" in capsys.readouterr().err
