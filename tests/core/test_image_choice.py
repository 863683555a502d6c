"""images.send "auto": one annotated picture, the clean one too when the annotation hides what matters or
the model asks; the setting's migration from files written before it existed."""

from __future__ import annotations

import json

import pytest
from PIL import Image

from app.core.agent.actions import Action, parse_reply_dict
from app.core.agent.collection_strategies import prepare_model_images
from app.core.agent.image_choice import (
    ASKED,
    NOTHING_NUMBERED,
    UNCHANGED,
    WEB,
    clean_reason_before_annotating,
    kinds_for,
)
from app.core.agent.loop_guard import StuckDetector
from app.core.config import ImageSettings, Settings, load_settings, save_settings
from app.core.perception.controls import Control

SCREEN = (1080, 2400)


def control(control_id: int, rect: tuple[int, int, int, int], name: str = "", kind: str = "TextView") -> Control:
    return Control(id=control_id, name=name or f"Item {control_id}", type=kind, class_name=f"android.widget.{kind}",
                   resource_id="", text=name or f"Item {control_id}", content_desc="", rect=rect, clickable=True)


def list_rows(count: int = 8) -> list[Control]:
    """Roomy rows: each badge finds a place beside its row's label."""
    return [control(index + 1, (0, 300 + index * 200, 1080, 460 + index * 200)) for index in range(count)]


def keyboard() -> list[Control]:
    """Six rows of small icons packed edge to edge (60 px: 30 in the model's picture), as an emoji keyboard's:
    a badge can only go over an icon, and hides much of it."""
    keys = []
    for row in range(6):
        for column in range(10):
            left, top = column * 60, 1800 + row * 60
            keys.append(control(len(keys) + 1, (left, top, left + 60, top + 60), name=chr(65 + len(keys) % 26),
                                kind="ImageView"))
    return keys


def test_badges_beside_wide_rows_or_big_keys_hide_nothing():
    from app.core.perception.annotate import hidden_share
    rows = [(0, 100 * index, 540, 100 * index + 90) for index in range(10)]
    corners = [(0, 100 * index - 14, 24, 100 * index) for index in range(10)]      # over the row above's corner
    assert hidden_share(rows, corners, [True] * 10) == 0.0
    keys = [(30 * index, 0, 30 * index + 30, 30) for index in range(10)]
    inside = [(30 * index, 0, 30 * index + 24, 14) for index in range(10)]
    assert hidden_share(keys, inside, [True] * 10) == 1.0 and hidden_share(keys, inside, [False] * 10) == 0.0


def made(controls: list[Control], send: str = "auto", reason: str = "") -> tuple[str, ...]:
    images = prepare_model_images(Image.new("RGB", SCREEN), controls, 1280, "jpeg", 80, send, clean_reason=reason)
    return tuple(images.urls)


def test_auto_sends_the_annotated_image_alone_when_nothing_is_hidden():
    assert made(list_rows()) == ("annotated",)


def test_auto_adds_the_clean_image_when_badges_cover_most_labels():
    images = prepare_model_images(Image.new("RGB", SCREEN), keyboard(), 1280, "jpeg", 80, "auto")
    assert tuple(images.urls) == ("clean", "annotated")
    assert "badges hide" in images.clean_reason


def test_auto_sends_only_the_clean_image_when_nothing_can_be_numbered():
    assert made([]) == ("clean",)
    assert made([], reason=NOTHING_NUMBERED) == ("clean",)


@pytest.mark.parametrize("send, expected", [("both", ("clean", "annotated")), ("annotated", ("annotated",)),
                                            ("clean", ("clean",)), ("none", ())])
def test_the_other_settings_are_kept_whatever_the_screen(send, expected):
    assert made(keyboard(), send) == expected
    assert made(list_rows(), send) == expected


def test_why_the_clean_image_goes_too():
    rows = list_rows()
    plain = {"screen_only": False, "asked": False, "unchanged": False}
    assert clean_reason_before_annotating(rows, SCREEN, **plain) == ""
    assert clean_reason_before_annotating(rows, SCREEN, **{**plain, "asked": True}) == ASKED
    assert clean_reason_before_annotating(rows, SCREEN, **{**plain, "unchanged": True}) == UNCHANGED
    assert clean_reason_before_annotating(rows, SCREEN, **{**plain, "screen_only": True}) == NOTHING_NUMBERED
    assert clean_reason_before_annotating([], SCREEN, **plain) == NOTHING_NUMBERED
    page = [*rows, control(9, (0, 200, 1080, 2200), "Checkout", kind="WebView")]
    assert clean_reason_before_annotating(page, SCREEN, **plain) == WEB
    small_page = [*rows, control(9, (0, 200, 300, 400), "Ad", kind="WebView")]
    assert clean_reason_before_annotating(small_page, SCREEN, **plain) == ""
    assert made(rows, reason=ASKED) == ("clean", "annotated")
    assert kinds_for("auto", "") == ("annotated",) and kinds_for("auto", UNCHANGED) == ("clean", "annotated")


def test_the_model_asks_for_the_clean_image_with_a_plain_true_only():
    base = {"thought": "t", "action": {"function": "wait", "arguments": {}, "status": "CONTINUE"}, "comment": ""}
    assert parse_reply_dict({**base, "clean_image": True}).clean_image
    assert not parse_reply_dict(base).clean_image
    for junk in ("yes", 1, None, [True], {"clean": True}):
        assert not parse_reply_dict({**base, "clean_image": junk}).clean_image   # never a reason to refuse it


def test_the_stuck_detector_knows_the_screen_the_last_action_ran_on():
    stuck = StuckDetector()
    assert stuck.last_screen() is None
    stuck.record(Action(function="wait", arguments={}), "screen-a")
    assert stuck.last_screen() == "screen-a"


# ------------------------------------------------------------------------ the setting and its migration


def test_auto_is_the_default_and_every_choice_is_accepted():
    assert ImageSettings().send == "auto"
    for choice in ("auto", " Auto ", "annotated", "both", "clean", "none"):
        ImageSettings(send=choice)
    with pytest.raises(ValueError, match="must be one of auto, annotated, both, clean, none"):
        ImageSettings(send="some")


@pytest.mark.parametrize("written, version, read", [
    ("both", None, "auto"),          # a file from before "auto": "both" was everyone's default
    ("Both", None, "auto"),
    ("annotated", None, "annotated"),  # a choice stays
    ("none", None, "none"),
    ("clean", None, "clean"),
    ("both", 2, "both"),             # chosen after "auto" existed: kept
])
def test_old_settings_files_are_migrated(tmp_path, written, version, read):
    path = tmp_path / "settings.json"
    data = {"images": {"send": written, "max_side": 1024}, **({"version": version} if version else {})}
    path.write_text(json.dumps(data), encoding="utf-8")
    settings, warnings = load_settings(path)
    assert (settings.images.send, settings.images.max_side, warnings) == (read, 1024, [])


def test_a_saved_file_says_its_version_and_reads_back_the_same(tmp_path):
    path = tmp_path / "settings.json"
    settings = Settings()
    settings.images.send = "both"
    save_settings(settings, path)
    assert json.loads(path.read_text(encoding="utf-8"))["version"] == 2
    assert load_settings(path)[0].images.send == "both"


def test_a_strange_version_or_images_section_is_not_a_crash(tmp_path):
    path = tmp_path / "settings.json"
    for data in ({"version": "x", "images": {"send": "both"}}, {"images": "both"}, {"images": {"send": 3}}):
        path.write_text(json.dumps(data), encoding="utf-8")
        settings, _ = load_settings(path)
        assert settings.images.send in ("auto", "both")
