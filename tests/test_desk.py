"""The Desk (issue 26, item 1): the one composition root. Only it builds the run service, the phone registry and
directory, the key store and the phone opening; its preflight list names each missing thing; the faces build
through it."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import httpx2
import keyring
import pytest

from app.api.token import ApiToken
from app.core.config import ProviderSettings, Settings
from app.desk import Desk, open_served_desk
from tests.conftest import REPO_ROOT
from tests.support.memory_keyring import MemoryKeyring
from tests.support.openai_server import FakeOpenAIServer

# What only the Desk builds: `Name(` anywhere in app/ outside app/desk is a face composing it itself.
BUILT_BY_THE_DESK = ("RunService", "PhoneRegistry", "PhoneDirectory", "SecretStore", "open_phone",
                     "start_virtual_phone", "serve_desk", "list_phones", "built_in_phone", "hold_shared_phone")
# Where a constructor may appear besides app/desk: its own definition, and the few that are not a desk's part.
ALLOWED = {
    ("app/core/secrets.py", "SecretStore"),           # resolve_api_key's default store (a caller gave none)
    ("app/api/token.py", "SecretStore"),              # the API token's own keyring entry, not the key store
    ("app/api/desk_api.py", "serve_desk"),            # its definition
    ("app/cli_virtual_phone.py", "start_virtual_phone"),   # `agentdesk virtual-phone`: the virtual phone alone, no desk
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_only_the_desk_builds_the_run_service_the_phones_and_the_key_store():
    found = []
    for path in sorted((REPO_ROOT / "app").rglob("*.py")):
        relative = path.relative_to(REPO_ROOT).as_posix()
        if relative.startswith("app/desk/"):
            continue
        text = path.read_text(encoding="utf-8")
        for name in BUILT_BY_THE_DESK:
            for match in re.finditer(rf"(?<![\w.]){name}\(", text):
                line = text.count("\n", 0, match.start()) + 1
                if (relative, name) not in ALLOWED and not text[max(0, match.start() - 10):match.start()].endswith(
                        ("def ", "class ")):
                    found.append(f"{relative}:{line}: {name}(")
    assert found == [], "only app/desk may build these:\n" + "\n".join(found)


def test_the_constructor_check_can_fail(tmp_path):
    """The pattern finds a face that composes a run service itself."""
    assert re.search(r"(?<![\w.])RunService\(", "    service = RunService(phones, settings)")
    assert not re.search(r"(?<![\w.])RunService\(", "    service = desk.service")


# ---------------------------------------------------------------------- preflight

@pytest.fixture
def memory_keys():
    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    yield
    keyring.set_keyring(previous)


@pytest.fixture
def model():
    with FakeOpenAIServer([]) as server:
        yield server


def _things(missing) -> list[str]:
    return [item.thing for item in missing]


@pytest.mark.asyncio
async def test_nothing_is_missing_on_the_virtual_phone_with_a_loopback_model(virtual_adb, model, memory_keys,
                                                                             monkeypatch, tmp_path):
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path))
    monkeypatch.setattr("app.desk.preflight.qt_platform_problem", lambda: "")
    desk = Desk(Settings(provider=ProviderSettings(base_url=model.base_url, model="m")), virtual=True)
    try:
        await desk.open()
        assert await desk.preflight() == []
    finally:
        await desk.close()
    assert model.chat_requests == []          # nothing was asked of the model


@pytest.mark.asyncio
async def test_each_missing_thing_is_named_in_plain_words(model, memory_keys, monkeypatch, tmp_path):
    """No ADB server, no phone (the virtual phone turned off), no key for a remote server, no writable data
    folder, no display and no model server: each is one item, in words with its fix."""
    monkeypatch.setenv("ANDROID_ADB_SERVER_HOST", "127.0.0.1")
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(_free_port()))
    monkeypatch.delenv("AGENTDESK_ADB_SERVERS", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("AGENTDESK_HOME", str(blocked))
    monkeypatch.setattr("app.desk.preflight.qt_platform_problem", lambda: "no display is set (DISPLAY is empty)")
    remote = Settings(provider=ProviderSettings(base_url="https://llm.example.com/v1", model="m"))
    desk = Desk(remote, virtual=False)
    try:
        missing = await desk.preflight(model=False)       # (the remote server is not asked in a test)
        assert _things(missing) == ["display", "adb", "phone", "key", "data folder"]
        words = {item.thing: item.words for item in missing}
        assert "No ADB server answers" in words["adb"] and "adb start-server" in words["adb"]
        assert "No phone is ready" in words["phone"]
        assert "API key" in words["key"]
        assert str(blocked) in words["data folder"]
        assert "DISPLAY" in words["display"]
        dead = Settings(provider=ProviderSettings(base_url=f"http://127.0.0.1:{_free_port()}/v1", model="m"))
        missing = await desk.preflight(settings=dead, display=False, adb=False, phone=False)
        assert _things(missing) == ["data folder", "model"]
        assert "cannot be reached" in missing[-1].words and "base URL" in missing[-1].words
    finally:
        await desk.close()


@pytest.mark.asyncio
async def test_the_key_is_not_missing_once_given_and_a_local_model_needs_none(model, memory_keys, monkeypatch):
    monkeypatch.setattr("app.desk.preflight.qt_platform_problem", lambda: "")
    openai = Settings(provider=ProviderSettings(base_url="https://api.openai.com/v1", model="m"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-preflight-0123456789")
    desk = Desk(openai, virtual=True)
    try:
        assert "key" not in _things(await desk.preflight(model=False, adb=False))
        # the environment's key belongs to OpenAI's origin: another server is said to miss one (issue 25's rail)
        other = Settings(provider=ProviderSettings(base_url="https://llm.example.com/v1", model="m"))
        missing = await desk.preflight(settings=other, model=False, adb=False)
        assert "key" in _things(missing) and "agentdesk key allow https://llm.example.com" in missing[-1].words
        monkeypatch.delenv("OPENAI_API_KEY")
        assert "key" in _things(await desk.preflight(model=False, adb=False))
        desk.settings = Settings(provider=ProviderSettings(base_url=model.base_url, model="m"))
        assert "key" not in _things(await desk.preflight(adb=False))
    finally:
        await desk.close()


# ---------------------------------------------------------------------- the faces build through it

@pytest.mark.asyncio
async def test_serve_builds_a_desk_that_lists_its_phones_and_says_what_is_missing(model, memory_keys, monkeypatch,
                                                                                 tmp_path):
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path))
    monkeypatch.setenv("ANDROID_ADB_SERVER_HOST", "127.0.0.1")
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(_free_port()))
    token = ApiToken("desk-test-token-0123456789abcdef", "the test", False)
    desk = await open_served_desk(Settings(provider=ProviderSettings(base_url=model.base_url, model="m")),
                                  host="127.0.0.1", port=0, token=token, announce=False)
    try:
        assert desk.virtual_server is not None         # no phone attached: the built-in virtual phone
        assert "No phone is attached" in " ".join(desk.notes)
        async with httpx2.AsyncClient(base_url=desk.url,
                                     headers={"Authorization": f"Bearer {token.value}"}) as http:
            devices = (await http.get("/v1/devices")).json()["devices"]
            assert [d["virtual"] for d in devices] == [True]
            missing = (await http.get("/v1/preflight")).json()["missing"]
            assert [item["thing"] for item in missing] == ["adb"]     # the virtual phone stands in for a phone
            assert (await http.get("/v1/preflight", headers={"Authorization": "Bearer wrong"})).status_code == 401
    finally:
        await desk.close()
    assert desk.virtual_server is None


def test_only_the_composition_root_imports_both_the_task_api_and_the_virtual_phone():
    grimp = pytest.importorskip("grimp")      # import-linter's graph, installed with the test extra
    graph = grimp.build_graph("app", include_external_packages=False)

    def part_of(package: str) -> set[str]:
        return {m for m in graph.modules if m == package or m.startswith(package + ".")}
    api, virtual_phone = part_of("app.api"), part_of("app.virtual_phone")
    both = sorted(m for m in graph.modules if (imported := graph.find_modules_directly_imported_by(m)) & api
                  and imported & virtual_phone)
    assert both and all(m.startswith("app.desk") for m in both), both


def test_the_task_api_never_imports_a_composition_root():
    """The back-arrow is gone: mcp's own desk comes as a function from the command that starts it."""
    api = REPO_ROOT / "app" / "api"
    offenders = [p.name for p in api.rglob("*.py") if re.search(r"app\.desk|headless_desk", p.read_text())]
    assert offenders == []
    assert not Path(REPO_ROOT / "app" / "headless_desk.py").exists()


def test_agentdesk_run_says_what_is_missing_before_it_starts(memory_keys, capsys, monkeypatch, tmp_path):
    """The preflight list before the run: a key that is missing ends it (exit 2, no phone touched), and a model
    server that does not answer is said too."""
    from app.cli import main

    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path))
    monkeypatch.delenv("AGENTDESK_TEST_NO_SUCH_KEY", raising=False)
    port = _free_port()
    code = main(["run", "Open Settings", "--auto", "--base-url", f"http://127.0.0.1:{port}/v1", "--model", "m",
                 "--api-key-env", "AGENTDESK_TEST_NO_SUCH_KEY"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert ("error: --api-key-env AGENTDESK_TEST_NO_SUCH_KEY: the environment variable AGENTDESK_TEST_NO_SUCH_KEY "
            "is not set") in err                   # named by the flag the person passed
    assert f"warning: --base-url http://127.0.0.1:{port}/v1 did not answer (" in err
    assert "virtual phone" not in err          # it ended before any phone was opened
