"""Take over and hand back in the window: Take over sets the agent's proposal aside, a tap on the mirror is done
as a step "by you", the bar over the mirror takes a note, Hand back gives the phone back and the agent's next
prompt carries the note."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tests.gui.conftest import proposal_of, run_result, running_window, until
from tests.support.openai_server import act, click, json_reply

NOTE = "I opened Notes myself; make the note from here"


@pytest.mark.asyncio
async def test_the_person_takes_over_taps_on_the_mirror_and_hands_back_with_a_note(qapp, phone_home):
    script = [json_reply(act("launch_app", package_name="com.android.settings")),   # set aside: never done
              click("New note"), json_reply(act("", status="FINISH"))]
    async with running_window(script) as window:
        request, bar = window.request, window.take_over_bar
        assert not request.take_over_button.isEnabled()           # nothing to take over before a run
        request.request.setPlainText("Start a new note")
        QTest.mouseClick(request.run_button, Qt.MouseButton.LeftButton)
        await proposal_of(window, 1)
        assert request.take_over_button.isEnabled()
        QTest.mouseClick(request.take_over_button, Qt.MouseButton.LeftButton)
        await until(lambda: bar.isVisible(), 10)
        assert not request.take_over_button.isEnabled() and not request.pause_button.isEnabled()
        assert window.approval.proposal is None                    # the proposal was set aside
        assert window.mirror.interaction_mode == "touch"

        # the person taps "Notes" on the launcher, on the mirror
        notes = await until(lambda: next((c for c in window.mirror.controls if c.name == "Notes"), None), 10)
        QTest.mouseClick(window.mirror, Qt.MouseButton.LeftButton,
                         pos=window.mirror.device_to_widget(*notes.center).toPoint())
        await until(lambda: "1 step by you" in bar.steps.text(), 20)
        assert "Notes" in bar.steps.text()
        bar.note.setText(NOTE)
        QTest.mouseClick(bar.hand_back_button, Qt.MouseButton.LeftButton)
        await until(lambda: not bar.isVisible(), 10)

        proposal = await proposal_of(window, 3)                    # the agent goes on from the person's screen
        assert "New note" in proposal.action_text
        window.approval.approve()
        await proposal_of(window, 4)
        window.approval.approve()
        result = await run_result(window)

        assert result.status == "success", result
        phone = phone_home.devices[0].phone
        assert phone.foreground()[0] == "com.agentdesk.notes"
        steps = window.timeline.model.steps
        assert [step.decision.kind for step in steps[:4]] == ["take_over", "person", "approve", "approve"]
        assert steps[1].action["function"] == "click_control" and "Notes" in steps[1].action_text
        assert NOTE in steps[2].prompt_text and "The person took over the phone and did:" in steps[2].prompt_text
        assert not any("com.android.settings" in " ".join(argv) for argv in
                       phone_home.devices[0].command_lines() if argv and argv[0] in ("am", "monkey"))
        assert request.run_button.isEnabled() and not request.take_over_button.isEnabled()
