"""The desk's model key goes only where the person sent it (issue 25 §1), over real HTTP end to end.

A task posted over the API may name another model server (`parameters.base_url`): that server must never
receive the desk's key, stored in the keyring or given in OPENAI_API_KEY. Capturing model servers on
loopback record every request's headers: another port on this machine (a local server: the task runs
without a key), another loopback address, 127.0.0.2 (it would need a key: the task is refused with the
sentence naming the origin and how to allow it), and a 307 redirect from the allowed server to 127.0.0.2
(not followed: nothing reaches it). An origin the person allowed gets the key; a task's own key goes alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.key_origins import origin_of
from app.core.secrets import SecretStore
from tests.api.conftest import API_KEY
from tests.support.openai_server import FakeOpenAIServer, ScriptedReply, act, json_reply

pytestmark = pytest.mark.asyncio

STORED_KEY = "sk-test-stored-for-the-desk-0123456789abcdef"
TASK_KEY = "sk-test-the-task-brought-it-0123456789"
FINISH = json_reply(act("", status="FINISH", thought="Done"))


class OtherAddressModel(FakeOpenAIServer):
    """A capturing model server on 127.0.0.2: another loopback address, another origin."""

    host = "127.0.0.2"


def headers_carrying(server: FakeOpenAIServer, secret: str) -> list[tuple[str, str]]:
    """Every header, of every request the server received, that holds `secret`."""
    return [(name, value) for request in server.requests for name, value in request.headers.items()
            if secret in value]


def authorizations(server: FakeOpenAIServer) -> set[str | None]:
    return {next((v for k, v in r.headers.items() if k.lower() == "authorization"), None)
            for r in server.chat_requests}


async def run_task(desk, task_id: str, **parameters) -> dict:
    accepted = await desk.post_task("Open Settings", task_id=task_id, parameters=parameters)
    assert accepted.status_code == 202, accepted.text
    return await desk.wait_for(task_id)


async def test_a_stored_key_goes_only_to_the_server_it_was_stored_for(make_desk, monkeypatch):
    desk = await make_desk([FINISH])
    monkeypatch.delenv("OPENAI_API_KEY")
    SecretStore().set("default", STORED_KEY)      # stored with the desk's base URL: it belongs to that origin
    with FakeOpenAIServer([FINISH]) as other_port, OtherAddressModel([FINISH]) as other_address:
        await run_task(desk, "other-port", base_url=other_port.base_url, model="fake-model")
        assert other_port.chat_requests, "a local server needs no key: the task ran there"
        assert headers_carrying(other_port, STORED_KEY) == []

        refused = await desk.post_task("Open Settings", task_id="other-address",
                                       parameters={"base_url": other_address.base_url})
        assert refused.status_code == 400
        sentence = refused.json()["error"]
        assert f"not sent to {origin_of(other_address.base_url)}" in sentence
        assert f"agentdesk key allow {origin_of(other_address.base_url)}" in sentence
        assert other_address.requests == []

    await run_task(desk, "its-own-server")
    assert authorizations(desk.model) == {f"Bearer {STORED_KEY}"}
    assert all(STORED_KEY not in body for body in desk.bodies)


async def test_openai_api_key_goes_to_a_custom_server_only_when_the_person_allowed_it(make_desk):
    desk = await make_desk([FINISH, FINISH])           # OPENAI_API_KEY is set; the desk's server is 127.0.0.1:P
    await run_task(desk, "not-allowed-yet")
    assert headers_carrying(desk.model, API_KEY) == [], "OPENAI_API_KEY belongs to api.openai.com, not here"

    desk.settings.provider.key_also_for = [desk.model.base_url]     # Settings › Also send this key to
    await run_task(desk, "allowed")
    assert f"Bearer {API_KEY}" in authorizations(desk.model)
    with FakeOpenAIServer([FINISH]) as other_port, OtherAddressModel([FINISH]) as other_address:
        await run_task(desk, "other-port", base_url=other_port.base_url, model="fake-model")
        assert other_port.chat_requests and headers_carrying(other_port, API_KEY) == []
        refused = await desk.post_task("Open Settings", parameters={"base_url": other_address.base_url})
        assert refused.status_code == 400 and "OPENAI_API_KEY" in refused.json()["error"]
        assert other_address.requests == []
    assert all(API_KEY not in body for body in desk.bodies)


async def test_a_redirect_from_the_allowed_server_to_another_origin_is_not_followed(make_desk, monkeypatch):
    with OtherAddressModel([FINISH]) as elsewhere:
        moved = lambda body: ScriptedReply(status=307, error_message="moved",       # noqa: E731
                                           headers={"Location": f"{elsewhere.base_url}/chat/completions"})
        desk = await make_desk([moved] * 4)
        monkeypatch.delenv("OPENAI_API_KEY")
        SecretStore().set("default", STORED_KEY)
        result = await run_task(desk, "redirected")
        assert authorizations(desk.model) == {f"Bearer {STORED_KEY}"}, "the allowed server got the key"
        assert elsewhere.requests == [], "neither the key nor the screen went to the other origin"
    assert result["status"] == "failed"
    assert "redirected to http://127.0.0.2" in (result["error"] or "") + (result["completion_reason"] or "")


async def test_a_task_s_own_key_goes_alone_to_its_own_server_and_is_never_shown(make_desk, monkeypatch):
    desk = await make_desk()
    monkeypatch.delenv("OPENAI_API_KEY")
    SecretStore().set("default", STORED_KEY)
    with FakeOpenAIServer([FINISH]) as its_server:
        result = await run_task(desk, "own-key", base_url=its_server.base_url, model="fake-model",
                                api_key=TASK_KEY)
        assert authorizations(its_server) == {f"Bearer {TASK_KEY}"}
        assert headers_carrying(its_server, STORED_KEY) == []
    without_server = await desk.post_task("Open Settings", parameters={"api_key": TASK_KEY})
    assert without_server.status_code == 422 and without_server.json()["field"] == "parameters.api_key"
    assert all(TASK_KEY not in body and STORED_KEY not in body for body in desk.bodies)
    for path in Path(result["run_dir"]).rglob("*"):
        if path.is_file():
            assert TASK_KEY.encode() not in path.read_bytes(), f"the task's key was written to {path.name}"
