"""Take over and hand back, end to end: the person takes the phone in the middle of a run, their taps and
typing are carried out as steps of the run "by the person" (a PIN typed into a password field masked in
the record and the prompts), and Hand back resumes the agent with a note of what they did in its next prompt."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from app.core.agent.actions import Action
from app.core.agent.events import HandedBack, ReviewRequested, TakenOver
from app.core.agent.supervisor import ReviewAnswer
from app.core.agent.take_over import NotTakenOver
from tests.e2e.conftest import ScriptedPerson
from tests.support.openai_server import act, click, delayed, json_reply, type_into, user_texts

pytestmark = pytest.mark.asyncio

PIN = "2468"
PIN_SCREEN = "com.android.settings.password.ChooseLockPassword"
FINISH = json_reply(act("", status="FINISH", thought="The screen lock is a PIN now"))
DONE = json_reply({"done": True, "reason": "the screen shows the task is done"})


def action(function: str, **arguments) -> Action:
    return Action.model_validate({"function": function, "arguments": arguments, "status": "CONTINUE"})


def centre_of(proposal, resource_id: str) -> tuple[int, int]:
    return next(c for c in proposal.controls if c.resource_id.endswith(resource_id)).center


class TakingOverPerson(ScriptedPerson):
    """At the review of step `at`, takes the phone, does `moves(proposal, records)` — batches of actions, each
    batch sent at once as a person types, and awaited before the next batch is made from the step records
    so far (the person looks at the screen) — hands back with `note`; every other review is approved."""

    def __init__(self, at: int, moves, note: str) -> None:
        super().__init__()
        self.at, self.moves, self.note = at, moves, note
        self.records: list = []
        self.events: list = []
        self.task: asyncio.Task | None = None

    def attach(self, handle) -> None:
        async def drive(proposal) -> None:
            try:
                for batch in self.moves(proposal, self.records):
                    sent = [handle.person_act(move) for move in batch]
                    for done in sent:
                        self.records.append(await done)
                handle.hand_back(self.note)
            except BaseException as exc:     # a broken script ends the run, saying why
                self.unexpected.append(f"the person's turn failed: {exc!r}")
                handle.stop(f"the person's turn failed: {exc!r}")
                raise

        def on_event(event) -> None:
            if isinstance(event, (TakenOver, HandedBack)):
                self.events.append(event)
            if isinstance(event, ReviewRequested):
                self.shown.append(event.proposal)
                if event.step == self.at and self.task is None:
                    handle.take_over()
                    self.task = asyncio.ensure_future(drive(event.proposal))
                else:
                    handle.answer(event.proposal.id, ReviewAnswer.approve())
        handle.events.subscribe(on_event)


async def test_the_person_types_the_pin_and_hands_back_the_agent_confirms_it(run_agent, phone_server):
    phone = phone_server.devices[0].phone
    assert phone.launch("com.android.settings", PIN_SCREEN)

    def moves(proposal, records):
        x, y = centre_of(proposal, "password_entry")
        yield [action("tap", x=x, y=y), action("type_text", text=PIN[:2]), action("type_text", text=PIN[2:])]
        # the keyboard came up and moved "Next" up: the person taps where it is now
        left, top, right, bottom = next(c.rect for c in records[-1].controls if c.name == "Next")
        yield [action("tap", x=(left + right) // 2, y=(top + bottom) // 2)]

    person = TakingOverPerson(1, moves, "I typed the PIN once; type 2468 again to confirm")
    script = [type_into("password_entry", "0000"),           # step 1: set aside, the person takes over
              type_into("password_entry", PIN), click("Confirm"), FINISH, DONE]
    outcome = await run_agent("Set a four-digit screen lock PIN", script, person)

    assert outcome.result.status == "success", outcome.result
    assert outcome.state["screen_lock"] == "pin"               # the person's PIN, confirmed by the agent
    steps = outcome.steps()
    kinds = [step.decision.kind if step.decision else "" for step in steps]
    assert kinds[:4] == ["take_over", "person", "person", "person"], kinds
    assert steps[0].result is None                             # the agent's "0000" never reached the phone
    assert not any("0000" in " ".join(argv) for argv in outcome.phone_actions())
    assert steps[1].action["function"] == "click_control"       # a tap on a field: a click on that control
    assert "Next" in steps[3].action_text, [c for c in steps[3].controls if "Next" in str(c) or "primary" in str(c)]
    assert steps[2].action["function"] == "type_text"          # the two pieces typed became one step
    assert PIN not in steps[2].action_text and "••••" in steps[2].action_text
    assert all(step.result is not None and step.result.success for step in steps[1:4])
    # the hand-back note reached the next prompt, with what the person did (the PIN masked there)
    prompt = user_texts(outcome.model.chat_requests[1].body)[0]
    assert "The person took over the phone and did:" in prompt and "type 2468 again to confirm" in prompt
    assert "(by the person)" in prompt
    assert not any(PIN in json.dumps(request.body, ensure_ascii=False).replace("type 2468 again", "")
                   for request in outcome.model.chat_requests[1:])
    # the record: no PIN anywhere but the person's own note; the events told the faces
    record = "\n".join(p.read_text(encoding="utf-8") for p in Path(outcome.result.run_dir).rglob("*.jsonl"))
    assert PIN not in record.replace("type 2468 again", "")
    assert [type(event).__name__ for event in person.events] == ["TakenOver", "HandedBack"]
    assert person.events[1].steps == 3
    assert outcome.trajectory_problems() == []


async def test_taking_over_while_the_model_thinks_sets_its_step_aside_at_once(run_agent, phone_server):
    """The model would take 5 s: the take-over does not wait for it, and its reply is never acted on."""
    phone = phone_server.devices[0].phone
    person = TakingOverPerson(99, lambda _p, _r: [], "")

    script = [delayed(5, json_reply(act("launch_app", package_name="com.android.settings"))),
              json_reply(act("launch_app", package_name="com.android.contacts")), FINISH, DONE]

    async def take_over_soon(handle) -> None:
        # once the model has the step's request (on a loaded machine collecting alone may take longer than
        # any fixed wait: taking over then would set aside no model call)
        while not person.model.chat_requests:
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.2)
        handle.take_over()
        await handle.person_act(action("press_key", key_code="HOME"))
        handle.hand_back("")

    original_attach = person.attach

    def attach(handle) -> None:
        original_attach(handle)
        person.task = asyncio.ensure_future(take_over_soon(handle))
    person.attach = attach
    outcome = await run_agent("Open the contacts", script, person, mode="auto")

    assert outcome.result.status == "success", outcome.result
    steps = outcome.steps()
    assert steps[0].decision.kind == "take_over" and steps[0].result is None
    assert steps[1].decision.kind == "person" and "HOME" in steps[1].action_text.upper()
    launched = [argv for argv in outcome.phone_actions() if "com.android.settings" in " ".join(argv)]
    assert not launched, launched
    assert phone.foreground()[0] == "com.android.contacts"


async def test_the_persons_actions_need_a_taken_over_run_and_stop_ends_the_turn(run_agent, phone_server):
    errors: list[str] = []

    class StopsDuringTurn(ScriptedPerson):
        def attach(self, handle) -> None:
            def on_event(event) -> None:
                if isinstance(event, ReviewRequested):
                    try:
                        handle.person_act(action("press_key", key_code="BACK"))
                    except NotTakenOver as exc:
                        errors.append(str(exc))
                    handle.take_over()
                elif isinstance(event, TakenOver):
                    asyncio.get_running_loop().call_later(0.3, handle.stop, "stopped by the person")
            handle.events.subscribe(on_event)

    outcome = await run_agent("Open the settings", [json_reply(act("launch_app", package_name="com.android.settings"))],
                              StopsDuringTurn())
    assert errors and "take it over first" in errors[0]
    assert outcome.result.status == "stopped", outcome.result
    assert outcome.phone_actions() == []
