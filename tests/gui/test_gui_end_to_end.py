"""End to end in the window: type a request, approve, edit, override by clicking the mirror, check the phone."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tests.gui.conftest import proposal_of, run_result, running_window
from tests.support.openai_server import act, click, json_reply, type_into


@pytest.mark.asyncio
async def test_note_task_with_approvals_an_edit_and_an_override_on_the_mirror(qapp, phone_home):
    script = [json_reply(act("launch_app", package_name="com.agentdesk.notes")), click("New note"),
              type_into("Title", "Grocries"), type_into("Note", "milk, eggs"),
              json_reply(act("press_key", key_code="BACK")), json_reply(act("", status="FINISH"))]
    async with running_window(script) as window:
        window.request.request.setPlainText("Create a note called Groceries with milk, eggs")
        QTest.mouseClick(window.request.run_button, Qt.MouseButton.LeftButton)
        approval = window.approval
        await proposal_of(window, 1)
        QTest.mouseClick(approval.approve_button, Qt.MouseButton.LeftButton)          # approve 1
        await proposal_of(window, 2)
        QTest.keyClick(approval.approve_button, Qt.Key.Key_Return)                      # approve 2 (Enter)
        proposal = await proposal_of(window, 3)
        assert proposal.action.arguments["text"] == "Grocries"
        QTest.mouseClick(approval.edit_button, Qt.MouseButton.LeftButton)               # edit the typo
        approval.edit_fields["text"].setText("Groceries")
        QTest.keyClick(approval.edit_fields["text"], Qt.Key.Key_Return)
        await proposal_of(window, 4)
        approval.approve()                                                              # approve 3
        proposal = await proposal_of(window, 5)
        assert proposal.action.function == "press_key"
        QTest.mouseClick(approval.override_button, Qt.MouseButton.LeftButton)           # override: pick "Save"
        assert window.mirror.interaction_mode == "pick"
        save = next(c for c in window.mirror.controls if c.name == "Save")
        point = window.mirror.device_to_widget(*save.center)
        QTest.mouseClick(window.mirror, Qt.MouseButton.LeftButton, pos=point.toPoint())
        await proposal_of(window, 6)
        approval.approve()                                                              # finish
        result = await run_result(window)
        assert result.status == "success", result
        notes = phone_home.devices[0].phone.state()["notes"]
        assert any(n["title"] == "Groceries" and n["body"] == "milk, eggs" for n in notes), notes
        decisions = [window.timeline.model.steps[i].decision.kind for i in range(6)]
        assert decisions == ["approve", "approve", "edit", "approve", "override", "approve"]
        assert window.request.run_button.isEnabled()
