"""Finding a recorded target again: by what it is, never by its old id, and never a look-alike."""

from __future__ import annotations

from app.core.agent.regrounding import find_target, switch_is_on
from app.core.perception.controls import Control
from app.core.perception.locator import TargetLocator, target_locator


def control(id_: int, name: str, rect, *, cls: str = "android.widget.Button", rid: str = "", text: str | None = None,
            desc: str = "", path=(0,), **flags) -> Control:
    return Control(id_, name, cls.rsplit(".", 1)[-1], cls, rid, name if text is None else text, desc, tuple(rect),
                   node_path=tuple(path), **flags)


SAVE = control(1, "Save", (800, 100, 1000, 200), rid="app:id/save", path=(0, 1))
CANCEL = control(2, "Cancel", (600, 100, 780, 200), rid="app:id/cancel", path=(0, 0))
TITLE = control(3, "Title", (0, 300, 1080, 400), cls="android.widget.EditText", rid="app:id/title", text="",
                path=(0, 2))


def test_the_same_screen_finds_the_same_control_under_another_id():
    locator = target_locator(SAVE, [SAVE, CANCEL, TITLE])
    moved = [control(7, "Cancel", (600, 100, 780, 200), rid="app:id/cancel"),
             control(9, "Save", (800, 100, 1000, 200), rid="app:id/save")]
    found = find_target(locator, moved)
    assert found.found and found.control.id == 9


def test_a_moved_target_with_the_same_resource_id_is_found():
    locator = target_locator(SAVE, [SAVE, CANCEL])
    found = find_target(locator, [control(4, "Save", (40, 2000, 300, 2100), rid="app:id/save", path=(0, 5, 2)),
                                  CANCEL])
    assert found.control is not None and found.control.rect == (40, 2000, 300, 2100)


def test_a_changed_text_is_not_the_target():
    locator = target_locator(SAVE, [SAVE, CANCEL])
    found = find_target(locator, [control(1, "Delete", SAVE.rect, rid="app:id/save"), CANCEL])
    assert not found.found
    assert "is not on the screen" in found.reason and "another text" in found.reason


def test_a_look_alike_elsewhere_is_never_taken_for_a_missing_target():
    locator = target_locator(SAVE, [SAVE, CANCEL])
    found = find_target(locator, [control(5, "Save draft", SAVE.rect, rid="app:id/save_draft"), CANCEL])
    assert not found.found


def test_two_equal_candidates_are_ambiguous_unless_neighbours_or_place_tell():
    row_a = control(1, "Delete", (900, 100, 1000, 200), path=(0, 0, 1))
    row_b = control(2, "Delete", (900, 300, 1000, 400), path=(0, 1, 1))
    label_a = control(3, "Milk", (0, 100, 880, 200), cls="android.widget.TextView", path=(0, 0, 0))
    label_b = control(4, "Eggs", (0, 300, 880, 400), cls="android.widget.TextView", path=(0, 1, 0))
    locator = target_locator(row_b, [row_a, row_b, label_a, label_b])
    assert [anchor.name for anchor in locator.anchors][0] == "Eggs"
    # the list was re-sorted: "Eggs" is first now, and its Delete button must be the one found
    resorted = [control(11, "Delete", (900, 100, 1000, 200), path=(0, 0, 1)),
                control(12, "Delete", (900, 300, 1000, 400), path=(0, 1, 1)),
                control(13, "Eggs", (0, 100, 880, 200), cls="android.widget.TextView", path=(0, 0, 0)),
                control(14, "Milk", (0, 300, 880, 400), cls="android.widget.TextView", path=(0, 1, 0))]
    found = find_target(locator, resorted)
    assert found.control is not None and found.control.id == 11
    blind = TargetLocator(name="Delete", class_name="android.widget.Button")
    assert not find_target(blind, resorted[:2]).found
    assert "equally well" in find_target(blind, resorted[:2]).reason


def test_a_row_is_found_whatever_state_its_name_shows():
    row = control(1, "Wi‑Fi, Off", (0, 250, 1080, 440), cls="android.widget.LinearLayout", text="")
    locator = target_locator(row, [row])
    now = control(8, "Wi‑Fi, On", (0, 250, 1080, 440), cls="android.widget.LinearLayout", text="")
    assert find_target(locator, [now]).control is now


def test_an_unlabelled_control_is_only_found_at_its_recorded_place():
    icon = control(1, "", (10, 10, 90, 90), cls="android.widget.ImageView", text="", path=(0, 3))
    locator = TargetLocator(class_name=icon.class_name, bounds=list(icon.rect), node_path=[0, 3])
    assert find_target(locator, [icon]).control is icon
    elsewhere = control(1, "", (10, 900, 90, 990), cls="android.widget.ImageView", text="", path=(0, 3))
    assert not find_target(locator, [elsewhere]).found


def test_typed_text_does_not_hide_a_field():
    locator = target_locator(control(3, "Title", TITLE.rect, cls="android.widget.EditText", rid="app:id/title",
                                     text="Groceries"), [TITLE])
    now = control(6, "Title", TITLE.rect, cls="android.widget.EditText", rid="app:id/title", text="")
    assert find_target(locator, [now]).control is now


def test_the_switch_state_is_read_from_the_control_or_the_switch_in_its_row():
    row = control(1, "Use Wi‑Fi", (0, 250, 1080, 440), cls="android.widget.LinearLayout", text="")
    switch = control(2, "", (900, 300, 1000, 390), cls="android.widget.Switch", text="", checkable=True, checked=True)
    assert switch_is_on(row, [row, switch]) is True
    assert switch_is_on(switch, [row, switch]) is True
    assert switch_is_on(row, [row]) is None
