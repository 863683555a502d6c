"""Protected screens and private data: a FLAG_SECURE capture is recognised, listed apps never send
pictures, and a password field's text never reaches the model."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw
from pydantic import ValidationError

from app.core.agent.coordinates import CoordinateMapper
from app.core.agent.memory import StepRecord
from app.core.agent.prompts import control_lines
from app.core.agent.records import RunRecord
from app.core.agent.report import render_report
from app.core.agent.trajectory import LoadedRun
from app.core.config import ImageSettings, Settings
from app.core.perception.controls import Control
from app.core.perception.hierarchy import extract_controls
from app.core.perception.protected_screen import (
    PROTECTED_REASON,
    UNKNOWN_APP_REASON,
    hide_password,
    looks_protected,
    never_send_reason,
    withheld_reason,
)
from app.virtual_phone.phone import VirtualPhone

SIZE = (1080, 2400)
SECRET = "hunter2-Secret!"
PIN_SCREEN = "com.android.settings.password.ChooseLockPassword"


def label(control_id: int, text: str, rect, **fields) -> Control:
    return Control(id=control_id, name=fields.pop("name", text), type=fields.pop("type", "TextView"),
                   class_name="android.widget.TextView", resource_id=fields.pop("resource_id", ""), text=text,
                   content_desc="", rect=rect, **fields)


CONTROLS = [label(1, "Sign in to your bank", (60, 300, 1020, 420)), label(2, "Account number", (60, 500, 1020, 600)),
            label(3, "Continue", (700, 1500, 1020, 1600), type="Button"),
            label(4, "", (60, 650, 1020, 760), type="EditText")]          # no text: not looked at


def capture(*, app_black: bool, text_colour=(230, 230, 230), background=(18, 18, 18)) -> Image.Image:
    """A phone capture: status bar and navigation bar drawn, the app's window black (secure) or a
    dark-theme app whose labels are drawn in light text."""
    image = Image.new("RGBA", SIZE, (0, 0, 0, 255) if app_black else background + (255,))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, SIZE[0], 80), fill=(40, 40, 60))
    draw.text((40, 20), "9:41", fill=(255, 255, 255))
    draw.rectangle((0, 2280, SIZE[0], SIZE[1]), fill=(30, 30, 30))
    draw.ellipse((500, 2310, 580, 2370), fill=(220, 220, 220))
    if not app_black:
        for control in CONTROLS:
            if control.text:
                draw.text((control.rect[0] + 10, control.rect[1] + 20), control.text, fill=text_colour,
                          font_size=48)
    return image


def test_a_black_app_window_with_text_controls_is_protected():
    assert looks_protected(capture(app_black=True), CONTROLS)


def test_a_dark_app_that_draws_its_text_is_not_protected():
    assert not looks_protected(capture(app_black=False), CONTROLS)
    assert not looks_protected(capture(app_black=False, text_colour=(90, 90, 90), background=(0, 0, 0)), CONTROLS)


def test_a_black_screen_without_text_controls_says_nothing():
    assert not looks_protected(capture(app_black=True), [c for c in CONTROLS if not c.text])
    assert not looks_protected(capture(app_black=True), [])


def test_a_scaled_mirror_frame_is_judged_in_device_pixels():
    small = capture(app_black=True).resize((270, 600))
    assert looks_protected(small, CONTROLS, screen_size=SIZE)
    assert not looks_protected(capture(app_black=False).resize((270, 600)), CONTROLS, screen_size=SIZE)


def test_a_keyboard_over_one_label_still_counts_as_protected():
    image = capture(app_black=True)
    ImageDraw.Draw(image).rectangle((0, 1450, SIZE[0], 2280), fill=(60, 60, 70))   # the keyboard over "Continue"
    labels = CONTROLS + [label(5, "Forgot PIN?", (60, 800, 1020, 900)), label(6, "Help", (60, 950, 1020, 1050))]
    assert looks_protected(image, labels)


def pin_screen_phone() -> VirtualPhone:
    """The virtual phone on Settings › Security & privacy › Screen lock (FLAG_SECURE)."""
    phone = VirtualPhone()
    assert phone.launch("com.android.settings", PIN_SCREEN)
    return phone


def test_the_virtual_phones_pin_screen_is_protected_and_its_plain_screens_are_not():
    phone = pin_screen_phone()
    assert phone.foreground()[1] == PIN_SCREEN
    controls = extract_controls(phone.dump_hierarchy(), phone.display_size())
    assert any(c.text == "Set a PIN" for c in controls)
    assert looks_protected(phone.screenshot(), controls)
    phone.press_back()
    assert phone.foreground()[1] != PIN_SCREEN
    plain = extract_controls(phone.dump_hierarchy(), phone.display_size())
    assert plain and not looks_protected(phone.screenshot(), plain)


# ------------------------------------------------------------------ never-send apps

def test_a_listed_app_is_withheld_whatever_its_screen_shows():
    shot = capture(app_black=False)
    assert withheld_reason(shot, CONTROLS, "com.example.bank", ["com.example.bank"]) \
        == never_send_reason("com.example.bank")
    assert withheld_reason(shot, CONTROLS, "com.example.notes", ["com.example.bank"]) == ""
    assert withheld_reason(shot, CONTROLS, "", ["com.example.bank"]) == UNKNOWN_APP_REASON
    assert withheld_reason(shot, CONTROLS, "", []) == ""
    assert withheld_reason(capture(app_black=True), CONTROLS, "com.example.notes", []) == PROTECTED_REASON


def test_the_never_send_setting_takes_package_names_only():
    assert ImageSettings().never_send_apps == []
    assert ImageSettings(never_send_apps="com.example.bank, org.example.vault  com.example.bank").never_send_apps \
        == ["com.example.bank", "org.example.vault"]
    with pytest.raises(ValidationError, match="package names such as com.example.bank, not 'rm -rf /'"):
        ImageSettings(never_send_apps=["rm -rf /"])
    with pytest.raises(ValidationError, match="not 7"):
        ImageSettings(never_send_apps=[7])
    settings = Settings.model_validate({"images": {"never_send_apps": ["com.example.bank"]}})
    assert Settings.model_validate(settings.model_dump()).images.never_send_apps == ["com.example.bank"]


# ------------------------------------------------------------------ password text

def test_a_password_fields_text_never_reaches_the_prompt():
    field = label(7, SECRET, (60, 650, 1020, 760), type="EditText", password=True, focused=True)
    named = label(8, SECRET, (60, 800, 1020, 900), type="EditText", password=True, name="Password")
    lines = control_lines([field, named, CONTROLS[0]], CoordinateMapper(SIZE, (540, 1200)))
    assert SECRET not in lines
    assert "(hidden: password field)" in lines and '"Password"' in lines and "Sign in to your bank" in lines
    assert hide_password(CONTROLS[0]) is CONTROLS[0]


def test_the_step_record_and_report_say_why_no_picture_was_sent(tmp_path):
    step = StepRecord(step=1, request="r", images_withheld=PROTECTED_REASON)
    again = StepRecord.from_dict(step.to_dict())
    assert again.images_withheld == PROTECTED_REASON and not again.problems
    html = render_report(LoadedRun(tmp_path, RunRecord(request="r", started_at="2026-11-21T09:41:00"), [again]))
    assert "no picture sent: protected screen" in html
