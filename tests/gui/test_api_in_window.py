"""The window serving the task API: a task a script posts shows in the window live, and the person
approves its steps there; the script reads the result over HTTP."""

from __future__ import annotations

import asyncio

import httpx2
import keyring
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from app.core.config import AgentSettings, ApiSettings, ProviderSettings, Settings
from app.core.secrets import SecretStore
from app.gui.main_window import MainWindow
from tests.support.memory_keyring import MemoryKeyring
from tests.support.openai_server import FakeOpenAIServer, act, json_reply
from tests.support.waiting import until

TOKEN = "window-test-token-0123456789abcdef"


@pytest.mark.asyncio
async def test_a_posted_task_is_shown_and_approved_in_the_window(qapp, tmp_path, monkeypatch, virtual_adb):
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path))
    monkeypatch.setenv("AGENTDESK_API_TOKEN", TOKEN)
    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    script = [json_reply(act("press_key", key_code="HOME")), json_reply(act("", status="FINISH"))]
    window = MainWindow(asyncio.Event(), SecretStore())
    window.show()
    try:
        with FakeOpenAIServer(script) as model:
            window.settings = Settings(provider=ProviderSettings(base_url=model.base_url, model="gpt-4o"),
                                       agent=AgentSettings(), api=ApiSettings(serve=True, port=0))
            await window.start()
            assert window.api_host.url.startswith("http://127.0.0.1:")
            assert "Task API on" in window.status.text()
            async with httpx2.AsyncClient(base_url=window.api_host.url,
                                         headers={"Authorization": f"Bearer {TOKEN}"}) as http:
                posted = await http.post("/v1/tasks", json={"ai_prompt": "Go to the home screen",
                                                            "parameters": {"mode": "step"}})
                assert posted.status_code == 202, posted.text
                task_id = posted.json()["task_id"]
                approval = window.approval
                for step in (1, 2):                        # the person approves in the window
                    await until(lambda step=step: approval.proposal is not None and approval.proposal.step == step)
                    QTest.mouseClick(approval.approve_button, Qt.MouseButton.LeftButton)
                result = (await http.get(f"/v1/tasks/{task_id}", params={"wait_seconds": 10})).json()
            assert result["status"] == "success", result
            assert [a["decision"] for a in result["actions_executed"]] == ["approve"]
            await until(lambda: window.controller.task is not None and window.controller.task.done())
            assert window.timeline.model.steps and window.request.run_button.isEnabled()
    finally:
        window.close()
        await window.shutdown()
        keyring.set_keyring(previous)
