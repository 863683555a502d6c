"""A run on a phone made ready for it: woken, unlocked by the person, its screen kept on until the end.

Before the agent's first step the phone is woken if asleep; if it is locked the run asks the
person (the run's question, as `ask_user` does) to unlock it by hand and waits, for as long as
the person takes (the person's time, not the agent's). A run whose policy is to fail rather
than wait ends "failed" with "the phone is locked"; a stop while waiting ends it "stopped".
The phone's `stay_on_while_plugged_in` is set for the run and put back whatever happens.
"""

from __future__ import annotations

import logging

from app.core.agent.agent_run import AgentRun
from app.core.agent.memory import RunResult, RunStatus
from app.core.agent.supervisor import NeedsPerson, RunStopped, RunTimedOut, Supervisor
from app.core.device.android_device import AndroidDevice
from app.core.device.errors import DeviceError
from app.core.device.screen_power import PHONE_LOCKED, StayOn, wait_until_unlocked

log = logging.getLogger(__name__)


def _ended_before_a_step(run: AgentRun, status: RunStatus, reason: str, error: str = "") -> RunResult:
    clock = run.control.clock
    return RunResult(status, 0, [], round(clock.agent_seconds + clock.waiting_seconds, 2), error=error,
                     completion_reason=reason, agent_seconds=round(clock.agent_seconds, 2),
                     waiting_seconds=round(clock.waiting_seconds, 2))


async def run_on_ready_phone(run: AgentRun, device: AndroidDevice, supervisor: Supervisor) -> RunResult:
    """Wake and (by the person) unlock the phone, keep its screen on, run; restore the setting after."""
    stay_on = StayOn(device)
    try:
        await stay_on.start()
    except DeviceError as exc:      # the run can go on; the screen may go off meanwhile
        log.warning("could not keep the screen on: %s", exc)
        run.events.message(f"Could not keep the phone's screen on during the run ({exc}).")
    try:
        try:
            await wait_until_unlocked(device, lambda question: run.control.interruptible(supervisor.ask(question)),
                                      run.events.message)
        except NeedsPerson:
            return _ended_before_a_step(run, "failed", PHONE_LOCKED, PHONE_LOCKED)
        except RunStopped as exc:
            return _ended_before_a_step(run, "stopped", str(exc) or "stopped by the person while the phone was locked")
        except RunTimedOut as exc:
            return _ended_before_a_step(run, "timeout", str(exc))
        except DeviceError as exc:
            return _ended_before_a_step(run, "failed", str(exc), str(exc))
        return await run.run()
    finally:
        try:
            await stay_on.restore()
        except DeviceError as exc:
            log.warning("could not restore the phone's stay-on setting: %s", exc)
            run.events.message(f"Could not put back the phone's screen-timeout setting ({exc}); "
                               f"check Settings › Developer options › Stay awake.")
