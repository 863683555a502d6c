"""Take over and hand back in the window: the person's input goes to the phone directly, or — while they
have taken the run over — to the run, which does each action as a step "by the person".

`PersonInput` is where the mirror, its keyboard and the manual controls send taps, swipes, keys and
text; `connect_take_over(window)` wires Take over (button, Ctrl+T), the bar over the mirror and Hand back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.core.agent.actions import Action

if TYPE_CHECKING:
    from app.gui.main_window import MainWindow

WHEEL_NOT_RECORDED = "The mouse wheel is not recorded while you have the phone: drag on the mirror to scroll."


def person_action(function: str, **arguments) -> Action:
    return Action.model_validate({"function": function, "arguments": arguments, "status": "CONTINUE"})


class PersonInput:
    """The person's input, routed to the phone, or to the run while they have taken it over."""

    def __init__(self, window: MainWindow):
        self.window = window

    @property
    def to_run(self) -> bool:
        return self.window.controller.running and self.window.controller.person_has_phone

    def _act(self, what: str, action: Action) -> None:
        self.window.controller.person_act(action, what)

    def tap(self, x: int, y: int) -> None:
        if self.to_run:
            self._act("tap", person_action("tap", x=x, y=y))
        else:
            self.window.phone.tap(x, y)

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int) -> None:
        if self.to_run:
            self._act("swipe", person_action("swipe", start_x=x1, start_y=y1, end_x=x2, end_y=y2,
                                             duration_ms=max(1, min(10_000, int(duration_ms)))))
        else:
            self.window.phone.swipe(x1, y1, x2, y2, duration_ms)

    def press_key(self, key: str) -> None:
        if self.to_run:
            self._act(f"press {key}", person_action("press_key", key_code=key))
        else:
            self.window.phone.press_key(key)

    def type_text(self, text: str) -> None:
        if self.to_run:
            self._act("type", person_action("type_text", text=text))
        else:
            self.window.phone.type_text(text)

    def wheel(self, x: int, y: int, dx: float, dy: float) -> None:
        if self.to_run:
            self.window.show_status(WHEEL_NOT_RECORDED)
        else:
            self.window.phone.wheel(x, y, dx, dy)


def connect_take_over(window: MainWindow) -> None:
    """Take over (request panel, Ctrl+T), the bar over the mirror while the person has the phone, Hand back."""
    controller, bar = window.controller, window.take_over_bar
    person_steps: list[str] = []

    def taken(on: bool) -> None:
        window.request.set_running(controller.running, controller.paused, taken_over=on)
        window.phone.live_controls = on           # the mirror's boxes follow the screen the person drives
        if on:
            window.phone.request_controls()
        if on:
            person_steps.clear()
            window.approval.clear()
            window.mirror.show_proposal(None, None)
            window.mirror.set_interaction_mode("touch")
            bar.begin()
            window.show_status("You have the phone: what you do on the mirror is recorded as steps of the run. "
                               "Hand back when you are done.")
        else:
            bar.end()
            touch = window.manual.touch_button.isChecked()
            window.mirror.set_interaction_mode("touch" if touch else "inspect")

    def step_finished(item) -> None:
        if controller.person_has_phone and item.decision is not None and item.decision.kind == "person":
            person_steps.append(item.action_text)
            bar.count_step(item.action_text, len(person_steps))
            window.phone.request_controls()       # the screen the step led to

    def take_over() -> None:
        if not controller.running:
            window.show_status("There is no run to take over: Run a request first.")
        elif controller.person_has_phone:
            hand_back(bar.note.text().strip())
        else:
            controller.take_over()

    def hand_back(note: str) -> None:
        controller.hand_back(note)
        window.show_status("Handed back: the agent goes on" + (" with your note." if note else "."))

    controller.taken_over.connect(taken)
    controller.step_finished.connect(step_finished)
    window.request.take_over_requested.connect(take_over)
    bar.hand_back_requested.connect(hand_back)
    window.take_over_or_hand_back = take_over
