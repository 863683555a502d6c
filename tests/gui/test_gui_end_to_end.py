"""End to end in the window: type a request, approve, edit, override by clicking the mirror, check the phone."""

from __future__ import annotations

import asyncio

import keyring
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from app.core.config import AgentSettings, ProviderSettings, Settings
from app.core.secrets import SecretStore
from app.gui.main_window import MainWindow
from tests.support.memory_keyring import MemoryKeyring
from tests.support.openai_server import FakeOpenAIServer, act, click, json_reply, type_into


async def until(condition, seconds: float = 15.0):
    for _ in range(int(seconds / 0.05)):
        value = condition()
        if value:
            return value
        await asyncio.sleep(0.05)
    raise AssertionError("timed out waiting")


@pytest.mark.asyncio
async def test_note_task_with_approvals_an_edit_and_an_override_on_the_mirror(qapp, tmp_path, monkeypatch, virtual_adb):
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-gui-e2e-0123456789")
    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    script = [json_reply(act("launch_app", package_name="com.agentdesk.notes")), click("New note"),
              type_into("Title", "Grocries"), type_into("Note", "milk, eggs"),
              json_reply(act("press_key", key_code="BACK")), json_reply(act("", status="FINISH"))]
    window = MainWindow(asyncio.Event(), SecretStore())
    window.show()
    try:
        with FakeOpenAIServer(script) as model:
            window.settings = Settings(provider=ProviderSettings(base_url=model.base_url, model="gpt-4o"),
                                       agent=AgentSettings())
            await window.start()
            await until(lambda: window.mirror.device_size != (0, 0))
            window.request.request.setPlainText("Create a note called Groceries with milk, eggs")
            QTest.mouseClick(window.request.run_button, Qt.MouseButton.LeftButton)
            approval = window.approval

            async def next_proposal(step: int):
                return await until(lambda: approval.proposal if approval.proposal and approval.proposal.step == step else None)

            await next_proposal(1)
            QTest.mouseClick(approval.approve_button, Qt.MouseButton.LeftButton)          # approve 1
            await next_proposal(2)
            QTest.keyClick(approval.approve_button, Qt.Key.Key_Return)                      # approve 2 (Enter)
            proposal = await next_proposal(3)
            assert proposal.action.arguments["text"] == "Grocries"
            QTest.mouseClick(approval.edit_button, Qt.MouseButton.LeftButton)               # edit the typo
            approval.edit_fields["text"].setText("Groceries")
            QTest.keyClick(approval.edit_fields["text"], Qt.Key.Key_Return)
            await next_proposal(4)
            approval.approve()                                                              # approve 3
            proposal = await next_proposal(5)
            assert proposal.action.function == "press_key"
            QTest.mouseClick(approval.override_button, Qt.MouseButton.LeftButton)           # override: pick "Save"
            assert window.mirror.interaction_mode == "pick"
            save = next(c for c in window.mirror.controls if c.name == "Save")
            point = window.mirror.device_to_widget(*save.center)
            QTest.mouseClick(window.mirror, Qt.MouseButton.LeftButton, pos=point.toPoint())
            await next_proposal(6)
            approval.approve()                                                              # finish
            result = await until(lambda: window.controller.task.done() and window.controller.task.result(), 30)
        assert result.status == "success", result
        notes = virtual_adb.devices[0].phone.state()["notes"]
        assert any(n["title"] == "Groceries" and n["body"] == "milk, eggs" for n in notes), notes
        decisions = [window.timeline.model.steps[i].decision.kind for i in range(6)]
        assert decisions == ["approve", "approve", "edit", "approve", "override", "approve"]
        assert window.request.run_button.isEnabled()
    finally:
        window.close()
        await window.shutdown()
        keyring.set_keyring(previous)
