"""The sensitive check: does an action need a person even in auto mode, and why.

Every door that acts on the phone (the model's proposal, a person's edit, a skill, a
replay) asks `action_sensitivity`; the answer is the reason in words, "" when the
action may run without asking. The check sees the action however its target is named:
by control id, by a point (the control under it, else the text near it), typing (the
field's kind). Words compare as a person reads them: case, NFKC and every dash aside.
`secret_in_text` is the stronger rule for typing: the stored key or the API token is
never typed at all (the executor refuses it, whoever asked).
"""

from __future__ import annotations

import re
import unicodedata

from app.core.perception.controls import Control
from app.core.secrets import known_secrets

from .action_kinds import kind_of
from .actions import Action, ModelReply

_DASHES = re.compile("[\u00ad\u2010-\u2015\u2043\u2212\u2e3a\u2e3b\ufe58\ufe63\uff0d]")
NEAR_POINT = 0.06
"""With no control under a point, controls within this share of the screen's width of it give its text."""
MIN_NEAR_PIXELS = 48

FIELD_KINDS = (
    ("a password field", ("password", "passcode", "passwd", "pin code")),
    ("a payment field", ("card number", "card no", "cardnumber", "card_number", "credit card", "debit card", "cvv",
                         "cvc", "cvv2", "security code", "iban", "expiry", "expiration date", "routing number",
                         "account number", "sort code")),
    ("a one-time code field", ("otp", "one-time", "one time code", "verification code", "verify code",
                               "auth code", "2fa", "security token", "sms code", "confirmation code")),
)
"""What a typed-into field is, by the words of its resource-id, hint or name."""


def as_read(text: str) -> str:
    """Text as a person reads it: NFKC, case-folded, every dash and hyphen a plain "-"."""
    return _DASHES.sub("-", unicodedata.normalize("NFKC", text)).casefold()


def word_in(word: str, text: str) -> bool:
    """Whether `word` stands in `text` as a word (not inside a longer one), read as a person reads."""
    word = as_read(word).strip()
    return bool(word) and re.search(rf"(?<![^\W\d_]){re.escape(word)}(?![^\W\d_])", as_read(text)) is not None


def sensitive_word_in(text: str, words: list[str]) -> str:
    """The first sensitive word that stands in `text`, else ""."""
    return next((word for word in words if word_in(word, text)), "")


def control_label(control: Control) -> str:
    return " ".join(filter(None, (control.name, control.text, control.content_desc, control.resource_id)))


def action_target(action: Action, controls: list[Control]) -> Control | None:
    """The control an action names by id as its target (its kind's `target_place`), if any."""
    kind = kind_of(action.function)
    place = kind.target_place if kind is not None else None
    control_id = kind.control_id(action.args, place) if kind is not None and place is not None else None
    if control_id is None:
        return None
    return next((c for c in controls if c.id == control_id), None)


def action_point(action: Action) -> tuple[float, float] | None:
    """Where an action by coordinates touches the screen (a swipe: where it starts)."""
    kind = kind_of(action.function)
    return kind.first_point(action.args) if kind is not None else None


def _contains(control: Control, x: float, y: float) -> bool:
    left, top, right, bottom = control.rect
    return left <= x < right and top <= y < bottom


def controls_under(x: float, y: float, controls: list[Control]) -> list[Control]:
    """The smallest control under a point, and the smallest clickable one (what a tap presses) if another."""
    under = [c for c in controls if _contains(c, x, y)]
    if not under:
        return []
    smallest = min(under, key=lambda c: c.width * c.height)
    pressed = [c for c in under if c.clickable or c.long_clickable]
    found = [smallest]
    if pressed and (press := min(pressed, key=lambda c: c.width * c.height)) is not smallest:
        found.append(press)
    return found


def controls_near(x: float, y: float, controls: list[Control]) -> list[Control]:
    """Controls whose rect lies close to a point (the screen text around a tap on nothing)."""
    span = max((c.rect[2] for c in controls), default=0)
    reach = max(MIN_NEAR_PIXELS, NEAR_POINT * span)

    def distance(c: Control) -> float:
        left, top, right, bottom = c.rect
        return max(left - x, 0, x - right) + max(top - y, 0, y - bottom)
    return [c for c in controls if distance(c) <= reach]


def field_kind(field: Control) -> str:
    """'a password field', 'a payment field', 'a one-time code field', or "" for any other field."""
    if field.password:
        return "a password field"
    label = " ".join(filter(None, (field.resource_id.replace("_", " "), field.resource_id, field.name,
                                   field.content_desc)))
    for kind, words in FIELD_KINDS:
        if sensitive_word_in(label, list(words)):
            return kind
    return ""


def secret_in_text(text: str) -> bool:
    """Whether `text` holds a registered secret (the stored API key, the API token), as typed or read."""
    if not text:
        return False
    read = as_read(text)
    return any(secret in text or as_read(secret) in read for secret in known_secrets())


PERMISSION_CONTROLLERS = ("com.android.permissioncontroller", "com.google.android.permissioncontroller")
NOT_RESPONDING_IDS = "android:id/aerr_"          # AppNotRespondingDialog's buttons (aerr_close, aerr_wait)


def system_dialog_of(control: Control) -> str:
    """What dialog of the system `control` belongs to ("a permission request"…), "" when none."""
    if control.package in PERMISSION_CONTROLLERS:
        return "a permission request"
    if control.resource_id.startswith(NOT_RESPONDING_IDS):
        return "an “isn’t responding” dialog"
    return ""


def target_sensitivity(control: Control, words: list[str], subject: str = "its target “{name}”") -> str:
    """'its target “Pay” matches the sensitive word “pay”', or "" when no word matches."""
    word = sensitive_word_in(control_label(control), words)
    return f"{subject.format(name=control.name)} matches the sensitive word “{word}”" if word else ""


def action_sensitivity(action: Action, controls: list[Control], words: list[str], *, request: str = "",
                       screen_only: bool = False, seen: str = "", system_dialogs: str = "ask") -> str:
    """Why `action` needs a person even in auto mode; "" when it does not.

    `controls` are the step's; `request` is the person's request and `seen` what else is known of
    the screen (the model's description of it), both read only when the step has no controls
    (`screen_only`): then any action on the phone asks when either shows a sensitive word.
    `system_dialogs` ("ask" / "model", the agent setting): whether answering a dialog of the system
    (a permission request, "isn't responding") asks the person.
    """
    kind = kind_of(action.function)
    if kind is None or not kind.touches_phone:       # no action, a wait, a question to the person
        return ""
    if screen_only:
        for where, text in (("the request", request), ("the screen", seen)):
            if word := sensitive_word_in(text, words):
                return f"the screen's controls could not be read and {where} mentions “{word}”"

    def dialog_reason(control: Control, subject: str) -> str:
        dialog = system_dialog_of(control) if system_dialogs == "ask" else ""
        return f"{subject.format(name=control.name)} answers {dialog} of the system" if dialog else ""

    def check_point(gesture: str, point: tuple[float, float]) -> str:
        under = [control for control in controls_under(*point, controls) if control_label(control).strip()]
        for control in under or controls_near(*point, controls):     # on nothing named: the text around it
            where = "is on" if under else "is next to"
            subject = f"{gesture} ({point[0]:.0f}, {point[1]:.0f}) {where} " + "“{name}”, which"
            if reason := dialog_reason(control, subject) or target_sensitivity(control, words, subject):
                return reason
        return ""
    def check_control(control: Control, subject: str) -> str:
        return dialog_reason(control, subject or "its target “{name}”") or \
            target_sensitivity(control, words, *((subject,) if subject else ()))
    return kind.sensitive_reason(action.args, controls, check_control, check_point)


def reply_sensitivity(reply: ModelReply, action: Action, controls: list[Control], words: list[str], *,
                      request: str = "", screen_only: bool = False, system_dialogs: str = "ask") -> str:
    """Why the model's proposal needs a person: a CONFIRM reply (seed 002: the model itself asks for the
    person's word) first, then whatever `action_sensitivity` finds. `action` is the reply's, in device pixels."""
    reasons = []
    if action.status == "CONFIRM":
        asks = " ".join((reply.comment or reply.thought or "this action").split())
        reasons.append(f"the model asks you to confirm: {asks[:300]}")
    found = action_sensitivity(action, controls, words, request=request, screen_only=screen_only,
                               seen=f"{reply.thought}\n{reply.comment}", system_dialogs=system_dialogs)
    return "; ".join(filter(None, (*reasons, found)))
