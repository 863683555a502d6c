"""The agent loop against a real OpenAI-compatible server: llama.cpp's llama-server with SmolLM2-135M.

A 135M model cannot do phone tasks; what these tests check is that a run against a real server
(text only, no tool calls, slow, replies cut off at max_tokens) ends in a defined, honestly
reported state with everything recorded, and that the phone saw only what the run says it did.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core.agent.trajectory import load_run
from app.core.device.adb_transport import AdbTransport
from app.core.device.phone_session import PhoneRegistry
from app.core.runs.service import RunRequest, RunService
from tests.conftest import SHARED_DIR
from tests.e2e.conftest import e2e_settings
from tests.support.real_model import RealModelUnavailable, start_real_model_server, stop_real_model_server

pytestmark = pytest.mark.asyncio

DEFINED_ENDINGS = {"success", "failed", "stopped", "timeout"}


@pytest.fixture(scope="module")
def real_model():
    try:
        server = start_real_model_server(SHARED_DIR)
    except RealModelUnavailable as exc:
        pytest.skip(str(exc))
    yield server
    stop_real_model_server(server)


async def run_on_real_model(phone_server, real_model, request: str, **agent):
    transport = AdbTransport("127.0.0.1", phone_server.port)
    phones = PhoneRegistry()
    phones.open(transport, transport.list_devices()[0], virtual=True, timeout=10)
    settings = e2e_settings(real_model.base_url, "auto",
                            {"model": real_model.model, "timeout_seconds": 120, "max_output_tokens": 200}, **agent)
    service = RunService(phones, settings)
    try:
        handle = await service.start(RunRequest(request))
        result = await handle.wait()
    finally:
        await service.shutdown()
        await phones.close()
    return result


async def test_a_run_on_a_real_text_only_server_ends_in_a_defined_recorded_state(phone_server, real_model):
    phone = phone_server.devices[0].phone
    before = phone.state()
    result = await run_on_real_model(phone_server, real_model, "Turn on Wi-Fi", max_steps=2)

    assert result.status in DEFINED_ENDINGS, result
    assert result.completion_reason
    # The server cannot read images: the run goes on text only instead of failing on the refusal.
    assert "image input is not supported" not in result.completion_reason, result.completion_reason
    record = json.loads((Path(result.run_dir) / "run.json").read_text())
    assert record["result"]["status"] == result.status and record["report"]
    loaded = load_run(result.run_dir)
    assert len(loaded.steps) == result.steps_taken
    # The phone saw no more actions than the run reports having executed.
    if not result.actions_executed:
        assert phone.state()["foreground"] == before["foreground"]
