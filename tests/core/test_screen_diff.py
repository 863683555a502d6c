"""Screen fingerprints, control diffs and the pixel-level change measure."""

from __future__ import annotations

from dataclasses import replace

import pytest
from PIL import Image

from app.core.perception.controls import Control
from app.core.perception.screen_diff import diff_controls, image_difference, screen_fingerprint


def make_control(control_id: int, name: str, rect, *, type_: str = "Button", resource_id: str = "", **flags) -> Control:
    return Control(
        id=control_id, name=name, type=type_, class_name=f"android.widget.{type_}", resource_id=resource_id,
        text=name, content_desc="", rect=rect, **flags,
    )


def settings_screen() -> list[Control]:
    return [
        make_control(1, "Navigate up", (0, 63, 147, 210), type_="ImageButton"),
        make_control(2, "Wi-Fi", (900, 300, 1040, 400), type_="Switch", resource_id="android:id/switch_widget",
                     checkable=True, checked=False),
        make_control(3, "Bluetooth", (900, 500, 1040, 600), type_="Switch", resource_id="android:id/switch_widget",
                     checkable=True, checked=True),
        make_control(4, "Network name", (40, 700, 1040, 800), type_="TextView", resource_id="com.x:id/title"),
        make_control(5, "Password", (40, 900, 1040, 1000), type_="TextView", resource_id="com.x:id/title"),
    ]


def test_fingerprint_ignores_ids_and_order():
    screen = settings_screen()
    renumbered = [replace(c, id=c.id + 10) for c in reversed(screen)]
    assert screen_fingerprint(renumbered) == screen_fingerprint(screen)
    assert len(screen_fingerprint(screen)) == 32


def test_fingerprint_ignores_small_jitter():
    # Rects are compared on a 16-px grid; jitter that stays within a grid cell is ignored.
    screen = [make_control(1, "Play", (32, 320, 480, 416)), make_control(2, "Stop", (512, 320, 1040, 416))]
    jittered = [replace(c, rect=(c.rect[0] + 2, c.rect[1] - 1, c.rect[2] - 2, c.rect[3] + 1)) for c in screen]
    assert screen_fingerprint(jittered) == screen_fingerprint(screen)


@pytest.mark.parametrize(
    "change",
    [
        lambda c: replace(c, name="Wi-Fi 6") if c.id == 2 else c,
        lambda c: replace(c, checked=True) if c.id == 2 else c,
        lambda c: replace(c, rect=(900, 340, 1040, 440)) if c.id == 2 else c,
        lambda c: replace(c, type="ToggleButton") if c.id == 2 else c,
    ],
)
def test_fingerprint_changes_with_content(change):
    screen = settings_screen()
    assert screen_fingerprint([change(c) for c in screen]) != screen_fingerprint(screen)


def test_no_change_between_identical_screens():
    screen = settings_screen()
    diff = diff_controls(screen, [replace(c, id=c.id + 5) for c in screen])
    assert diff.is_empty
    assert diff.summary() == "no change"


def test_toggled_switch_is_changed_not_added_and_removed():
    before = settings_screen()
    after = [replace(c, checked=True) if c.name == "Wi-Fi" else c for c in before]
    diff = diff_controls(before, after)
    assert (diff.added, diff.removed) == ([], [])
    assert len(diff.changed) == 1
    assert diff.changed[0].fields == ("checked",)
    assert diff.summary() == "1 changed (Wi-Fi switch: checked false→true)"


def test_switch_whose_label_follows_its_state_is_matched_by_resource_id():
    before = [make_control(1, "OFF", (900, 300, 1040, 400), type_="Switch", resource_id="com.x:id/toggle")]
    after = [make_control(1, "ON", (900, 300, 1040, 400), type_="Switch", resource_id="com.x:id/toggle", checked=True)]
    diff = diff_controls(before, after)
    assert [change.fields for change in diff.changed] == [("text", "checked")]
    assert not diff.added and not diff.removed


def test_added_removed_and_changed_are_counted():
    before = settings_screen()
    after = [c for c in before if c.name != "Navigate up"]
    after = [replace(c, text="hunter", name="hunter") if c.name == "Password" else c for c in after]
    after += [
        make_control(6, "Save", (40, 1200, 500, 1300)),
        make_control(7, "Cancel", (540, 1200, 1040, 1300)),
    ]
    diff = diff_controls(before, after)
    assert sorted(c.name for c in diff.added) == ["Cancel", "Save"]
    assert [c.name for c in diff.removed] == ["Navigate up"]
    assert [(ch.before.name, ch.after.name, ch.fields) for ch in diff.changed] == [("Password", "hunter", ("text",))]
    assert diff.summary() == '2 added, 1 removed, 1 changed (hunter textview: text "Password"→"hunter")'


def test_list_items_sharing_a_resource_id_are_matched_by_position():
    before = settings_screen()
    after = [replace(c, text="Guest", name="Guest") if c.name == "Network name" else c for c in before]
    diff = diff_controls(before, after)
    assert [(ch.before.name, ch.after.name) for ch in diff.changed] == [("Network name", "Guest")]


def test_far_away_item_with_the_same_resource_id_is_a_different_control():
    before = [make_control(1, "Alpha", (40, 300, 1040, 400), type_="TextView", resource_id="com.x:id/title")]
    after = [make_control(1, "Zeta", (40, 1500, 1040, 1600), type_="TextView", resource_id="com.x:id/title")]
    diff = diff_controls(before, after)
    assert ([c.name for c in diff.added], [c.name for c in diff.removed], diff.changed) == (["Zeta"], ["Alpha"], [])


def test_moved_control_is_changed_by_rect():
    before = settings_screen()
    after = [replace(c, rect=(40, 1500, 1040, 1600)) if c.name == "Password" else c for c in before]
    diff = diff_controls(before, after)
    assert [ch.fields for ch in diff.changed] == [("rect",)]
    assert "rect [40,900,1040,1000]→[40,1500,1040,1600]" in diff.summary()


def test_summary_lists_at_most_three_changes():
    before = [make_control(i, f"Box {i}", (0, i * 100, 100, i * 100 + 90), checkable=True) for i in range(1, 6)]
    after = [replace(c, checked=True) for c in before]
    summary = diff_controls(before, after).summary()
    assert summary.startswith("5 changed (Box 1 button: checked false→true; ")
    assert summary.count("→") == 3 and summary.endswith("; …)")


def test_image_difference_of_identical_and_opposite_images():
    white = Image.new("RGB", (1080, 2400), (255, 255, 255))
    assert image_difference(white, white.copy()) == 0.0
    assert image_difference(white, Image.new("RGB", (1080, 2400), (0, 0, 0))) == 1.0


def test_image_difference_measures_the_changed_share():
    before = Image.new("RGB", (1080, 2400), (255, 255, 255))
    after = before.copy()
    after.paste((20, 20, 20), (0, 0, 1080, 600))  # top quarter changes
    assert image_difference(before, after) == pytest.approx(0.25, abs=0.02)


def test_image_difference_ignores_noise_and_handles_sizes_and_modes():
    before = Image.new("RGB", (1080, 2400), (200, 200, 200))
    noisy = Image.new("RGBA", (540, 1200), (205, 198, 203, 255))  # half size, RGBA, tiny shift
    assert image_difference(before, noisy) == 0.0
