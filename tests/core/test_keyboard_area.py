"""Which controls lie under the on-screen keyboard, and where the phone says the keyboard is."""

from __future__ import annotations

from app.core.perception.controls import Control
from app.core.perception.keyboard import a_field_has_the_focus, is_input_method, keyboard_area, under_the_keyboard

APP, KEYS = "com.android.settings", "com.android.inputmethod.latin"


def control(id_: int, rect, package: str = APP, text: str = "", cls: str = "android.widget.Button") -> Control:
    return Control(id=id_, name=text, type="button", class_name=cls, resource_id="", text=text, content_desc="",
                   rect=rect, package=package)


def test_the_keyboards_area_spans_its_keys_and_an_app_control_inside_it_is_covered():
    save = control(1, (800, 2100, 1000, 2200), text="Save")
    field = control(2, (60, 300, 1020, 450), text="Network name", cls="android.widget.EditText")
    keys = [control(10, (0, 1650, 540, 1800), KEYS, "q"), control(11, (540, 2100, 1080, 2270), KEYS, "Enter")]
    controls = [field, save, *keys]
    area = keyboard_area(controls)
    assert area == (0, 1650, 1080, 2270)
    assert under_the_keyboard(save, area) and not under_the_keyboard(field, area)
    assert not under_the_keyboard(keys[0], area), "a key is the keyboard's own"
    assert keyboard_area([field, save]) is None and not under_the_keyboard(save, None)


def test_keyboards_are_known_by_their_packages():
    assert is_input_method("com.android.inputmethod.latin") and is_input_method("com.google.android.inputmethod.latin")
    assert is_input_method("com.android.adbkeyboard") and not is_input_method("com.android.settings")


ANDROID_14_IME = """  Window #3 Window{5e1c2b1 u0 InputMethod}:
    mDisplayId=0 rootTaskId=1 mSession=Session{88e0b5c 2291:u0a10158} mClient=android.os.BinderProxy@77f9a2
    mOwnerUid=10158 showForAllUsers=true package=com.google.android.inputmethod.latin appop=NONE
    mAttrs={(0,0)(fillxwrap) gr=BOTTOM CENTER_VERTICAL sim={adjust=pan} ty=INPUT_METHOD fmt=TRANSPARENT}
    Requested w=1080 h=2274 mLayoutSeq=1416
    mGivenContentInsets=[0,1240][0,0] mGivenVisibleInsets=[0,1240][0,0]
    Frames: parent=[0,63][1080,2274] display=[0,63][1080,2274] frame=[0,63][1080,2274] last=[0,63][1080,2274]
    isOnScreen=true
    isVisible=true
"""


def test_the_keyboards_frame_is_read_from_dumpsys_window_of_old_and_new_android():
    from app.core.device.android_device import parse_keyboard_frame

    assert parse_keyboard_frame(ANDROID_14_IME) == (0, 1303, 1080, 2274), "a tall window: the insets lower its top"
    old = "  Window #3 Window{1 u0 InputMethod}:\n    mFrame=[0,1665][1080,2274]\n    isVisible=true\n"
    assert parse_keyboard_frame(old) == (0, 1665, 1080, 2274)
    assert parse_keyboard_frame(old.replace("isVisible=true", "isVisible=false")) is None, "hidden"
    assert parse_keyboard_frame("") is None, "no keyboard window: `dumpsys window InputMethod` prints nothing"
    assert parse_keyboard_frame(old.replace("[0,1665][1080,2274]", "[0,0][0,0]")) is None, "an empty frame"


ANDROID_11_IME = """  Window #2 Window{3b0d7a2 u0 InputMethod}:
    mDisplayId=0 rootTaskId=1 mSession=Session{c1f09e3 4410:u0a10141} mClient=android.os.BinderProxy@51e8c0d
    mOwnerUid=10141 showForAllUsers=true package=com.google.android.inputmethod.latin appop=NONE
    mGivenContentInsets=[0,0][0,0] mGivenVisibleInsets=[0,0][0,0]
    Frames: containing=[0,1262][1080,2148] parent=[0,1262][1080,2148] display=[0,1262][1080,2148]
    mFrame=[0,1262][1080,2148] last=[0,1262][1080,2148]
     surface=[0,0][0,0]
    isOnScreen=true
    isVisible=true
"""


def test_android_11s_layout_of_the_frames_is_read_too():
    """Android 11 prints the window's frame on its own `mFrame=` line after a `Frames:` line of other
    rectangles (containing, parent, display), as public `dumpsys window` outputs of Android 11 phones and TVs
    show; none of those others is taken for the frame."""
    from app.core.device.android_device import parse_keyboard_frame

    assert parse_keyboard_frame(ANDROID_11_IME) == (0, 1262, 1080, 2148)
    moved = ANDROID_11_IME.replace("containing=[0,1262]", "containing=[0,0]").replace("parent=[0,1262]", "parent=[0,0]")
    assert parse_keyboard_frame(moved) == (0, 1262, 1080, 2148)


def test_on_a_real_phones_dump_with_gboard_up_the_keyboard_is_found_and_covers_nothing_of_the_resized_app(
        corpus_dir):
    """kram1k__android_avito_parsing/search_hierarchy.xml: Avito's search with Gboard showing, every window dumped.
    The app resizes for the keyboard (adjustResize): its controls end where the keyboard's window begins
    ([0,1167][1080,1920]), so none lies under the keys, and the focused field says a keyboard may be up."""
    from app.core.perception.hierarchy import parse_hierarchy, screen_size_from_hierarchy, select_controls

    hierarchy = parse_hierarchy((corpus_dir / "kram1k__android_avito_parsing" / "search_hierarchy.xml").read_bytes())
    controls = select_controls(hierarchy, screen_size_from_hierarchy(hierarchy))
    keys = [c for c in controls if is_input_method(c.package)]
    app = [c for c in controls if c.package == "com.avito.android"]
    assert keys and app
    area = keyboard_area(controls)
    assert area is not None and area[1] >= 1167 and area[3] <= 1920 and area[2] - area[0] > 1000, area
    assert not [c for c in app if under_the_keyboard(c, area)]
    assert max(c.rect[3] for c in app) <= 1167 <= area[1]
    assert a_field_has_the_focus(controls)
