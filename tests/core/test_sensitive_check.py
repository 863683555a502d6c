"""The sensitive check sees every action however its target is named (issue 25 §3, GUIDE §6)."""

from __future__ import annotations

import pytest

from app.core.agent.actions import Action, ReplyInvalid, parse_reply_dict
from app.core.agent.sensitive import action_sensitivity, reply_sensitivity, secret_in_text, word_in
from app.core.config import DEFAULT_SENSITIVE_WORDS
from app.core.perception.controls import Control
from app.core.secrets import register_secret

WORDS = list(DEFAULT_SENSITIVE_WORDS)


def control(control_id: int, name: str, rect: tuple[int, int, int, int], *, resource_id: str = "",
            clickable: bool = True, password: bool = False, focused: bool = False,
            class_name: str = "android.widget.Button") -> Control:
    return Control(id=control_id, name=name, type="button", class_name=class_name, resource_id=resource_id,
                   text=name, content_desc="", rect=rect, clickable=clickable, password=password, focused=focused)


SCREEN = [
    control(1, "", (0, 0, 1080, 2400), clickable=False, class_name="android.widget.FrameLayout"),
    control(2, "Basket", (0, 200, 1080, 400)),
    control(3, "Pay now", (100, 1800, 980, 1950)),
    control(4, "Total: 12.40", (100, 1700, 980, 1760), clickable=False),
]


def act(function: str, **arguments) -> Action:
    return Action(function=function, arguments=arguments)


def test_a_tap_on_a_sensitive_control_asks_like_a_click_on_it():
    clicked = action_sensitivity(act("click_control", control_id=3), SCREEN, WORDS)
    tapped = action_sensitivity(act("tap", x=540, y=1875), SCREEN, WORDS)
    assert "pay" in clicked and "Pay now" in clicked
    assert "pay" in tapped and "Pay now" in tapped and "(540, 1875)" in tapped


def test_a_swipe_from_a_sensitive_control_asks():
    reason = action_sensitivity(act("swipe", start_x=200, start_y=1870, end_x=900, end_y=1870), SCREEN, WORDS)
    assert "swipe" in reason and "Pay now" in reason


def test_a_tap_beside_a_sensitive_label_asks_when_no_control_is_there():
    bare = [SCREEN[0], control(5, "Delete account", (100, 1000, 600, 1060), clickable=False)]
    assert "next to “Delete account”" in action_sensitivity(act("tap", x=640, y=1030), bare, WORDS)
    assert action_sensitivity(act("tap", x=800, y=1500), bare, WORDS) == ""


def test_a_tap_on_a_harmless_control_does_not_ask():
    assert action_sensitivity(act("tap", x=540, y=300), SCREEN, WORDS) == ""
    assert action_sensitivity(act("tap", x=540, y=1730), SCREEN, WORDS) == ""


@pytest.mark.parametrize("resource_id, name, kind", [
    ("com.bank:id/card_number", "Card", "payment"),
    ("com.shop:id/field", "CVV", "payment"),
    ("com.bank:id/iban_input", "Account", "payment"),
    ("com.app:id/otp", "Code", "one-time code"),
    ("com.app:id/code", "Verification code", "one-time code"),
    ("com.app:id/pwd", "Password", "password"),
])
def test_typing_into_a_secret_field_asks(resource_id, name, kind):
    field = control(7, name, (0, 500, 1080, 600), resource_id=resource_id, class_name="android.widget.EditText")
    reason = action_sensitivity(act("type_text", text="1234", control_id=7), [field], WORDS)
    assert f"{kind} field" in reason
    focused = control(7, name, (0, 500, 1080, 600), resource_id=resource_id, focused=True)
    assert f"{kind} field" in action_sensitivity(act("type_text", text="1234"), [focused], WORDS)


def test_typing_into_an_ordinary_field_does_not_ask():
    field = control(7, "Search", (0, 500, 1080, 600), resource_id="com.app:id/search")
    assert action_sensitivity(act("type_text", text="pizza", control_id=7), [field], WORDS) == ""


@pytest.mark.parametrize("shown", ["Wi\u2011Fi", "Wi\u2010Fi", "Wi\u2013Fi", "Wi\u2212Fi", "Wi\uff0dFi", "WI-FI",
                                   "Wi\u00adFi", "\uff37\uff49-\uff26\uff49"])
def test_words_compare_as_a_person_reads_them(shown):
    assert word_in("wi-fi", shown)
    settings = [control(2, shown, (0, 200, 1080, 400))]
    assert "wi-fi" in action_sensitivity(act("click_control", control_id=2), settings, ["wi-fi"])


def test_a_word_inside_a_longer_word_does_not_match():
    assert not word_in("pay", "Paypal balance") and not word_in("send", "Sender")
    assert word_in("send", "com.app:id/send_button")


def test_a_step_without_controls_asks_when_the_request_or_the_screen_names_a_sensitive_word():
    tap = act("tap", x=540, y=1875)
    assert "request mentions “buy”" in action_sensitivity(tap, [], WORDS, request="Buy the red shoes",
                                                          screen_only=True)
    assert "screen mentions “pay”" in action_sensitivity(tap, [], WORDS, request="Fill in the form",
                                                         screen_only=True, seen="A Pay button")
    assert action_sensitivity(tap, [], WORDS, request="Open the clock", screen_only=True) == ""
    assert action_sensitivity(act("wait", seconds=1), [], WORDS, request="Buy shoes", screen_only=True) == ""


def test_the_stored_key_and_token_are_found_in_typed_text():
    register_secret("sk-unit-test-STORED-key-12345")
    assert secret_in_text("my key: sk-unit-test-STORED-key-12345 ok")
    assert secret_in_text("SK-UNIT-TEST-STORED-KEY-12345")          # read back as a person reads it
    assert not secret_in_text("sk-unit-test") and not secret_in_text("")


def confirm_reply(**action) -> dict:
    return {"thought": "The order is ready.", "comment": "Place the order for 12.40?",
            "action": {"function": "click_control", "arguments": {"control_id": 2}, "status": "CONFIRM", **action}}


def test_a_confirm_reply_is_accepted_and_asks_the_person():
    reply = parse_reply_dict(confirm_reply())
    assert reply.action.status == "CONFIRM"
    reason = reply_sensitivity(reply, reply.action, SCREEN, WORDS)
    assert reason.startswith("the model asks you to confirm: Place the order for 12.40?")


def test_a_confirm_reply_without_an_action_is_sent_back():
    with pytest.raises(ReplyInvalid, match="CONFIRM action needs a function"):
        parse_reply_dict(confirm_reply(function=""))


DIALOG = [
    Control(id=1, name="Allow Contacts to access your contacts?", type="", class_name="android.widget.TextView",
            resource_id="com.android.permissioncontroller:id/permission_message", text="", content_desc="",
            rect=(100, 900, 980, 1000), package="com.android.permissioncontroller"),
    Control(id=2, name="Allow", type="button", class_name="android.widget.Button",
            resource_id="com.android.permissioncontroller:id/permission_allow_button", text="Allow", content_desc="",
            rect=(100, 1100, 980, 1200), clickable=True, package="com.android.permissioncontroller"),
    Control(id=3, name="Close app", type="button", class_name="android.widget.Button",
            resource_id="android:id/aerr_close", text="Close app", content_desc="", rect=(100, 1300, 980, 1400),
            clickable=True, package="android"),
]


def test_answering_a_dialog_of_the_system_asks_unless_the_person_lets_the_model_answer():
    allow = action_sensitivity(act("click_control", control_id=2), DIALOG, WORDS)
    assert allow == "its target “Allow” answers a permission request of the system"
    tapped = action_sensitivity(act("tap", x=540, y=1150), DIALOG, WORDS)
    assert "(540, 1150)" in tapped and "permission request" in tapped
    close = action_sensitivity(act("click_control", control_id=3), DIALOG, WORDS)
    assert "isn’t responding" in close
    assert action_sensitivity(act("click_control", control_id=2), DIALOG, WORDS, system_dialogs="model") == ""
    assert action_sensitivity(act("click_control", control_id=2), SCREEN[:3], WORDS) == "", "an app's own button"


def test_letting_the_model_answer_system_dialogs_keeps_the_sensitive_words():
    paying = Control(id=9, name="Pay", type="button", class_name="android.widget.Button",
                     resource_id="com.android.permissioncontroller:id/permission_allow_button", text="Pay",
                     content_desc="", rect=(100, 1500, 980, 1600), clickable=True,
                     package="com.android.permissioncontroller")
    reason = action_sensitivity(act("click_control", control_id=9), [*DIALOG, paying], WORDS, system_dialogs="model")
    assert "pay" in reason and "permission request" not in reason
