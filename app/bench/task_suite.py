"""The offline task suite: everyday requests on the virtual phone, each with a judge of the phone's true state.

A `BenchTask` is what a person would ask ("Turn on Wi-Fi"), an optional setup of the freshly
made phone (Wi-Fi already on, for "Turn off Wi-Fi"), a checker that reads the phone's own
state — never the agent's opinion — and the script the offline oracle model follows. A script
step names its control the way a model would read it from the screen (by name, optionally by
type, or as the field just above a label), never by a numeric id: the oracle must find it on
the screen it is shown, so a wrong script fails its checker.

Every checker must reject the phone as it is before the task runs (after the setup): a checker
that already passes would count a run that did nothing as a success. The tests check that.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.virtual_phone.phone import VirtualPhone

SETTINGS = "com.android.settings"
NOTES = "com.agentdesk.notes"
CLOCK = "com.android.deskclock"
CONTACTS = "com.android.contacts"
MESSAGES = "com.android.messaging"
DIALER = "com.android.dialer"
CALCULATOR = "com.agentdesk.calculator"
LAUNCHER = "com.android.launcher3"

Verdict = tuple[bool, str]


@dataclass(frozen=True)
class Target:
    """How the oracle finds a control on the screen it is shown.

    By `name` (exact first, then case- and dash-blind, then one part of a row's "Title, summary"
    name, then the start, then anywhere in it), only among controls of type `kind` when given
    ("Switch", "ViewGroup": the type the prompt shows). With `above`, the control of `kind`
    nearest above the control called `above`: a field over its label ("Hour").
    """

    name: str = ""
    kind: str = ""
    above: str = ""

    def describe(self) -> str:
        if self.above:
            return f"the {self.kind or 'control'} above “{self.above}”"
        return f"“{self.name}”" + (f" ({self.kind})" if self.kind else "")


@dataclass(frozen=True)
class ScriptStep:
    """One action of a task's script: a function, the control it acts on (if any), its other arguments."""

    function: str
    target: Target | None = None
    arguments: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        if self.function == "launch_app":
            return f"open {self.arguments.get('package_name')}"
        if self.function == "type_text":
            return f"type {self.arguments.get('text')!r} into {self.target.describe() if self.target else 'the field'}"
        if self.function == "press_key":
            return f"press {self.arguments.get('key_code')}"
        target = self.target.describe() if self.target else "?"
        if self.function == "set_switch":
            return f"turn {'on' if self.arguments.get('checked') else 'off'} {target}"
        if self.function == "slide":
            return f"drag {target} to its {'maximum' if self.arguments.get('right') else 'minimum'}"
        return f"tap {target}"


def launch(package: str) -> ScriptStep:
    return ScriptStep("launch_app", arguments={"package_name": package})


def click(name: str = "", kind: str = "", above: str = "") -> ScriptStep:
    return ScriptStep("click_control", Target(name, kind, above))


def type_into(target: Target | str, text: str) -> ScriptStep:
    """Type into a field; its current text is replaced (a field's name is its text or its hint)."""
    target = Target(target) if isinstance(target, str) else target
    return ScriptStep("type_text", target, {"text": text, "clear_current_text": True})


def press(key: str) -> ScriptStep:
    return ScriptStep("press_key", arguments={"key_code": key})


def set_switch(name: str, on: bool, kind: str = "") -> ScriptStep:
    """Tap the switch of the row called `name` only when it is not `on` already (a "verify" task's switch may
    be in its wanted state from the start: tapping it would undo that)."""
    return ScriptStep("set_switch", Target(name, kind), {"checked": on})


def slide_to_end(name: str, right: bool, kind: str = "SeekBar") -> ScriptStep:
    """Drag the slider called `name` past its right (or left) end: its maximum (or minimum)."""
    return ScriptStep("slide", Target(name, kind), {"right": right})


@dataclass(frozen=True)
class BenchTask:
    """One request of the suite: what is asked, how the phone starts, how its end state is judged."""

    name: str
    app: str
    request: str
    script: tuple[ScriptStep, ...]
    check: Callable[[dict], Verdict]
    setup: Callable[[VirtualPhone], None] | None = None
    expect: dict[str, Any] | None = None       # the FINISH reply's `expect`: what the screen shows when done
    screen: str = ""                           # the title of the screen the work is done on (go_to_screen's goal)

    def prepare(self, phone: VirtualPhone) -> None:
        """The task's setup on a freshly made phone (nothing when it has none)."""
        if self.setup is not None:
            self.setup(phone)


# ----------------------------------------------------------------------------- the true state


def phone_state(phone: VirtualPhone) -> dict:
    """`VirtualPhone.state()` plus what it leaves out that a task judges: the calculator's display and
    history (read from its open screen; None and [] when it is not running)."""
    state = phone.state()
    calculator = phone.apps.get(CALCULATOR)
    screens = [screen for screen in getattr(calculator, "stack", []) if hasattr(screen, "expr")]
    shown = screens[-1] if screens else None
    state["calculator"] = {"display": shown.expr if shown else None,
                           "history": list(shown.history) if shown else []}
    return state


# ----------------------------------------------------------------------------- checkers


def _switch(key: str, wanted: bool, label: str) -> Callable[[dict], Verdict]:
    def check(state: dict) -> Verdict:
        value = state.get(key)
        return value is wanted, f"{label} is {'on' if value else 'off'} (wanted {'on' if wanted else 'off'})"
    return check


def _digits(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit())


def _note_created(state: dict) -> Verdict:
    notes = state.get("notes", [])
    found = any(n.get("title") == "Groceries" and n.get("body") == "milk, eggs" for n in notes)
    titles = [n.get("title") for n in notes]
    return found, f"notes: {titles}" + ("" if found else "; no “Groceries” with “milk, eggs”")


def _note_deleted(state: dict) -> Verdict:
    titles = [n.get("title") for n in state.get("notes", [])]
    if "Ideas" in titles:
        return False, f"the note “Ideas” is still there ({titles})"
    if "Shopping list" not in titles:
        return False, f"the note “Shopping list” was deleted too ({titles})"
    return True, f"notes left: {titles}"


def _alarm(hour: int, minute: int, enabled: bool, must_exist_once: bool = False) -> Callable[[dict], Verdict]:
    def check(state: dict) -> Verdict:
        alarms = state.get("alarms", [])
        same = [a for a in alarms if a.get("hour") == hour and a.get("minute") == minute]
        listed = [f"{a.get('hour')}:{a.get('minute'):02d} {'on' if a.get('enabled') else 'off'}" for a in alarms]
        if not same:
            return False, f"no {hour}:{minute:02d} alarm ({listed})"
        if must_exist_once and len(same) != 1:
            return False, f"{len(same)} alarms at {hour}:{minute:02d} ({listed})"
        ok = all(a.get("enabled") is enabled for a in same)
        return ok, f"alarms: {listed}"
    return check


def _contact_created(state: dict) -> Verdict:
    people = [c for c in state.get("contacts", []) if c.get("name") == "Nora Quinn"]
    if not people:
        return False, "no contact called Nora Quinn"
    number = _digits(people[0].get("phone", ""))
    return number.endswith("5550107777"), f"Nora Quinn's number is {people[0].get('phone')!r}"


def _sent(to: str, body: str) -> Callable[[dict], Verdict]:
    def check(state: dict) -> Verdict:
        sent = state.get("messages_sent", [])
        ok = {"to": to, "body": body} in sent
        return ok, f"messages sent: {sent}" if sent else "no message was sent"
    return check


def _called(to: str = "", number: str = "") -> Callable[[dict], Verdict]:
    def check(state: dict) -> Verdict:
        calls = state.get("calls", [])
        ok = any((not to or c.get("to") == to) and (not number or _digits(c.get("number", "")) == number)
                 for c in calls)
        return ok, f"calls: {calls}" if calls else "no call was made"
    return check


def _calculated(state: dict) -> Verdict:
    calculator = state.get("calculator") or {}
    history = calculator.get("history") or []
    ok = calculator.get("display") == "84" and "12×7 = 84" in history
    return ok, f"the calculator shows {calculator.get('display')!r}, history {history}"


def _foreground(package: str) -> Callable[[dict], Verdict]:
    def check(state: dict) -> Verdict:
        return state.get("foreground") == package, f"{state.get('foreground')} is in the foreground"
    return check


def _wifi_already_on(phone: VirtualPhone) -> None:
    phone.put_setting("global", "wifi_on", "1")


# ----------------------------------------------------------------------------- the suite

WIFI = "Wi-Fi"       # the phone writes Wi‑Fi with a non-breaking hyphen; the oracle compares dashes as ASCII

TASKS: tuple[BenchTask, ...] = (
    BenchTask("wifi_on", "settings", "Turn on Wi-Fi",
              (launch(SETTINGS), click("Network & internet"), click(WIFI), click(f"Use {WIFI}")),
              _switch("wifi", True, "Wi-Fi"), expect={"control": f"Use {WIFI}", "checked": True}, screen=WIFI),
    BenchTask("wifi_off", "settings", "Turn off Wi-Fi",
              (launch(SETTINGS), click("Network & internet"), click(WIFI), click(f"Use {WIFI}")),
              _switch("wifi", False, "Wi-Fi"), setup=_wifi_already_on,
              expect={"control": f"Use {WIFI}", "checked": False}, screen=WIFI),
    BenchTask("bluetooth_on", "settings", "Turn on Bluetooth",
              (launch(SETTINGS), click("Connected devices"), click("Bluetooth"), click("Use Bluetooth")),
              _switch("bluetooth", True, "Bluetooth"), expect={"control": "Use Bluetooth", "checked": True},
              screen="Bluetooth"),
    BenchTask("airplane_on", "settings", "Turn on airplane mode",
              (launch(SETTINGS), click("Network & internet"), click("Airplane mode")),
              _switch("airplane", True, "Airplane mode"), expect={"control": "Airplane mode", "checked": True},
              screen="Network & internet"),
    BenchTask("dark_theme_on", "settings", "Switch the phone to the dark theme",
              (launch(SETTINGS), click("Display"), click("Dark theme")),
              _switch("dark_theme", True, "The dark theme"), expect={"control": "Dark theme", "checked": True},
              screen="Display"),
    BenchTask("note_create", "notes", "Create a note called Groceries with milk, eggs",
              (launch(NOTES), click("New note"), type_into("Title", "Groceries"), type_into("Note", "milk, eggs"),
               click("Save")),
              _note_created, expect={"control": "Groceries", "text": "milk, eggs"}),
    BenchTask("note_delete", "notes", "Delete the note called Ideas",
              (launch(NOTES), click("Ideas"), click("Delete", kind="ImageButton"), click("Delete", kind="Button")),
              _note_deleted),
    BenchTask("alarm_add", "clock", "Set an alarm for 7:30 AM",
              (launch(CLOCK), click("Add alarm"), type_into(Target(kind="EditText", above="Hour"), "7"),
               type_into(Target(kind="EditText", above="Minute"), "30"), click("AM"), click("OK")),
              _alarm(7, 30, True, must_exist_once=True), expect={"control": "7:30 AM", "checked": True}),
    BenchTask("alarm_enable", "clock", "Turn on the 6:30 AM alarm",
              (launch(CLOCK), click("6:30 AM", kind="Switch")),
              _alarm(6, 30, True), expect={"control": "6:30 AM", "checked": True}),
    BenchTask("alarm_disable", "clock", "Turn off the 7:15 AM alarm",
              (launch(CLOCK), click("7:15 AM", kind="Switch")),
              _alarm(7, 15, False), expect={"control": "7:15 AM", "checked": False}),
    BenchTask("contact_create", "contacts", "Add a contact named Nora Quinn with the number 555 010 7777",
              (launch(CONTACTS), click("Create contact"), type_into("First name", "Nora"),
               type_into("Last name", "Quinn"), type_into("Phone", "5550107777"), click("Save", kind="Button")),
              _contact_created, expect={"control": "Nora Quinn", "text": "Nora Quinn"}),
    BenchTask("message_send", "messages", "Text Ben Carter that I am running 10 minutes late",
              (launch(MESSAGES), click("Start chat"), click("Ben Carter", kind="ViewGroup"),
               type_into("Text message", "Running 10 minutes late"), click("Send SMS")),
              _sent("Ben Carter", "Running 10 minutes late"),
              expect={"control": "Running 10 minutes late", "text": "Running 10 minutes late"}),
    BenchTask("message_reply", "messages", "Reply to Emma Thompson: See you at 12:30",
              (launch(MESSAGES), click("Emma Thompson"), type_into("Text message", "See you at 12:30"),
               click("Send SMS")),
              _sent("Emma Thompson", "See you at 12:30"),
              expect={"control": "See you at 12:30", "text": "See you at 12:30"}),
    BenchTask("call_contact", "contacts", "Call Mom",
              (launch(CONTACTS), type_into("Search contacts", "Mom"), click("Mom", kind="ViewGroup"), click("Call")),
              _called(to="Mom"), expect={"control": "", "text": "Calling"}),
    BenchTask("dial_number", "dialer", "Call the number 555-0142",
              (launch(DIALER), *(click(digit, kind="FrameLayout") for digit in "5550142"), click("dial")),
              _called(number="5550142"), expect={"control": "", "text": "Calling"}),
    BenchTask("calculate", "calculator", "Use the calculator to work out 12 × 7",
              (launch(CALCULATOR), click("1"), click("2"), click("×"), click("7"), click("=")),
              _calculated, expect={"control": "", "text": "84"}),
    BenchTask("open_clock", "launcher", "Open the Clock app from the home screen",
              (press("HOME"), click("Clock", kind="TextView")),
              _foreground(CLOCK)),
)


def task_named(name: str) -> BenchTask:
    """The suite's task called `name`; ValueError naming the tasks when there is none."""
    for task in TASKS:
        if task.name == name:
            return task
    raise ValueError(f"there is no task {name!r} in the suite; it has: {', '.join(t.name for t in TASKS)}")
