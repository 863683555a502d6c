"""The Map of screens: the layout reads left to right and keeps arrows off cards; the window lists phone kinds
and apps, draws one card per screen and one arrow per pair of screens (the entry marked, failing actions
pale), shows the selected screen's controls and ways on, keeps a person's names, merges and splits screens,
frames the phone's screen (by signature, and live from the virtual phone), plays a past run as a path, and
says what to do when nothing is recorded. Transitions and cards are written with the stores runs use,
under a temporary graph folder."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import keyring
import pytest
import pytest_asyncio
from PIL import Image
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from app.core.device.phone_facts import phone_facts
from app.core.learning.map_edits import MapEditsStore
from app.core.learning.screen_cards import CardStore, ScreenCard
from app.core.learning.screen_signature import stable_signature
from app.core.learning.transitions import Transition, TransitionStore, phone_kind
from app.core.perception.locator import ControlSummary, TargetLocator
from app.gui.map.map_layout import CARD_HEIGHT, CARD_WIDTH, layout_map
from app.gui.map.map_window import EMPTY_TEXT, MapWindow, show_map
from tests.gui.conftest import shown_window
from tests.support.dialogs import answer_input_dialog
from tests.support.memory_keyring import MemoryKeyring
from tests.support.waiting import until

pytestmark = pytest.mark.asyncio

KIND = phone_kind("Pixel 7", "14")
SETTINGS = "com.android.settings"
LAUNCHER = "com.android.launcher3/.Launcher#00000000000a"
HOME = f"{SETTINGS}/.Settings#000000000001"
NETWORK = f"{SETTINGS}/.SubSettings#000000000002"
WIFI = f"{SETTINGS}/.SubSettings#000000000003"
DISPLAY = f"{SETTINGS}/.SubSettings#000000000004"
HOTSPOT = f"{SETTINGS}/.SubSettings#000000000005"     # Wi-Fi with another look: merged into WIFI below
CLOCK = "com.google.android.deskclock/.DeskClock#000000000006"


def control(number: int, text: str, clickable: bool = True) -> ControlSummary:
    return ControlSummary(number, text, "TextView", f"android:id/item{number}", text,
                          rect=[0, 200 * number, 1080, 200 * number + 150], flags=["clickable"] if clickable else [])


def write_card(root: Path, screen: str, title: str, texts: list[str], picture: bool = True) -> None:
    controls = [control(1, title, clickable=False)] + [control(n + 2, text) for n, text in enumerate(texts)]
    activity = screen.split("/", 1)[1].split("#")[0]
    CardStore(root, KIND).write(ScreenCard(id=screen, app=screen.split("/", 1)[0], activity=activity, title=title,
                                           controls=controls),
                                Image.new("RGB", (360, 800), (120, 160, 220)) if picture else None)


def move(source: str, target: str, words: str, run: str, step: int, *, ok: bool = True, minute: int = 0,
         function: str = "click_control", app: str = SETTINGS) -> Transition:
    label = words.split("“")[-1].rstrip("”") if "“" in words else words
    return Transition(from_screen=source, to_screen=target, app=app, action={"function": function, "arguments": {}},
                      action_text=f"{words} (#{step + 2})", locator=TargetLocator(name=label, text=label),
                      success=ok, duration_ms=400.0 + step, run_id=run, step=step, request=f"request of {run}",
                      at=f"2026-03-0{1 + minute // 60}T10:{minute % 60:02d}:{step:02d}", phone_model="Pixel 7",
                      android_version="14")


def launch(run: str, minute: int) -> Transition:
    return Transition(from_screen=LAUNCHER, to_screen=HOME, app="com.android.launcher3",
                      action={"function": "launch_app", "arguments": {"package_name": SETTINGS}},
                      action_text="Open Settings", success=True, duration_ms=900.0, run_id=run, step=0,
                      at=f"2026-03-01T10:{minute:02d}:00", phone_model="Pixel 7", android_version="14")


@pytest.fixture
def graph_root(tmp_path, monkeypatch) -> Path:
    """A Settings map: Home → Network & internet → Wi-Fi, Home ⇄ Display, a failing Network → Hotspot, Clock."""
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path / "home"))
    root = tmp_path / "graph"
    write_card(root, HOME, "Settings", ["Network & internet", "Display"])
    write_card(root, NETWORK, "Network & internet", ["Wi-Fi", "Hotspot & tethering"])
    write_card(root, WIFI, "Wi-Fi", ["Use Wi-Fi"])
    write_card(root, DISPLAY, "Display", ["Dark theme"], picture=False)
    write_card(root, HOTSPOT, "Wi-Fi hotspot", ["Use hotspot"])
    TransitionStore(root).append([
        launch("run-1", 0),
        move(HOME, NETWORK, "Tap “Network & internet”", "run-1", 1),
        move(NETWORK, WIFI, "Tap “Wi-Fi”", "run-1", 2),
        launch("run-2", 30),
        move(HOME, DISPLAY, "Tap “Display”", "run-2", 1, minute=30),
        move(DISPLAY, HOME, "Press Back", "run-2", 2, minute=30, function="press_key"),
        move(HOME, NETWORK, "Tap “Internet”", "run-2", 3, minute=30),
        move(NETWORK, HOTSPOT, "Tap “Hotspot & tethering”", "run-2", 4, minute=30),
        move(HOTSPOT, NETWORK, "Press Back", "run-2", 5, minute=30, function="press_key"),
        move(NETWORK, NETWORK, "Tap “Hotspot & tethering”", "run-2", 6, ok=False, minute=30),
        move(NETWORK, NETWORK, "Tap “Hotspot & tethering”", "run-2", 7, ok=False, minute=30),
        move(CLOCK, CLOCK, "Tap “Alarm”", "run-2", 8, minute=30, app="com.google.android.deskclock"),
    ])
    return root


@pytest_asyncio.fixture
async def window(qapp, graph_root):
    window = MapWindow(None, graph_root)
    window.resize(1300, 800)
    window.show()
    await until(lambda: window.work is not None)
    await window.settled()
    yield window
    await window.shutdown()
    window.close()
    window.deleteLater()


async def answer_input(text: str | None) -> list[str]:
    """Wait for the open question, answer `text` (None: Cancel); returns the choices it offered."""
    return (await answer_input_dialog(text))[1]


# ---------------------------------------------------------------- the layout (no Qt)

async def test_the_layout_reads_left_to_right_from_the_entry_and_keeps_arrows_off_the_cards():
    rng = random.Random(7)
    screens = [f"s{n}" for n in range(80)] + ["alone"]
    pairs = [(f"s{rng.randrange(max(0, n - 6), n)}", f"s{n}") for n in range(1, 80)]
    pairs += [(f"s{n}", f"s{rng.randrange(80)}") for n in range(80)]
    layout = layout_map(screens, pairs, "s0")
    layers, columns = layout.layers, layout.columns
    assert columns["s0"] == 0 and layers["s0"] == 0 and layout.unreachable == ["alone"]
    assert columns["alone"] > max(columns[s] for s in screens if s != "alone")
    for source, target in pairs:         # layers are distances from the entry: an action leads at most one on
        assert layers[target] <= layers[source] + 1
    for a in screens:                    # and each layer lies to the right of the one before
        assert all(columns[a] < columns[b] for b in screens if layers[a] < layers[b])
    corners = list(layout.positions.values())
    assert len(set(corners)) == len(corners)
    for route in layout.routes.values():       # every point of every arrow's way lies outside every card
        points = route.points
        samples = [(a[0] + (b[0] - a[0]) * t / 20, a[1] + (b[1] - a[1]) * t / 20)
                   for a, b in zip(points, points[1:], strict=False) for t in range(21)] if not route.curved else points
        for x, y in samples:
            assert not any(cx + 1 < x < cx + CARD_WIDTH - 1 and cy + 1 < y < cy + CARD_HEIGHT - 1
                           for cx, cy in corners), (route, x, y)
    assert len(layout.routes) == len({pair for pair in pairs if pair[0] != pair[1]})


async def test_a_very_tall_layer_is_wrapped_into_several_columns():
    children = [f"c{n}" for n in range(150)]
    layout = layout_map(["home", *children], [("home", child) for child in children], "home")
    used = {layout.columns[child] for child in children}
    assert len(used) > 5 and max(layout.rows.values()) < 40          # not one column 150 screens tall
    assert sorted(used) == list(range(1, len(used) + 1))
    assert len(set(layout.positions.values())) == 151


# ---------------------------------------------------------------- drawing

async def test_the_window_lists_the_kind_and_apps_and_draws_a_card_per_screen_and_an_arrow_per_pair(window):
    assert window.kind_box.currentText() == "Pixel 7, Android 14" and window.kind_box.currentData() == KIND
    apps = [window.app_box.itemText(i) for i in range(window.app_box.count())]
    assert apps[0] == "Settings (5 screens)" and "Clock (1 screen)" in apps
    view = window.view
    assert set(view.cards) == {HOME, NETWORK, WIFI, DISPLAY, HOTSPOT} and view.complete
    assert set(view.arrows) == {(HOME, NETWORK), (NETWORK, WIFI), (HOME, DISPLAY), (DISPLAY, HOME),
                                (NETWORK, HOTSPOT), (HOTSPOT, NETWORK)}
    two_ways = view.arrows[(HOME, NETWORK)].label.text()
    assert two_ways.startswith("Tap “") and two_ways.endswith("(+1 more)") and "#" not in two_ways
    assert view.cards[HOME].entry and view.cards[HOME].badge.text() == "Start"
    assert not view.cards[NETWORK].entry and view.cards[NETWORK].badge is None
    assert view.cards[DISPLAY].name.text() == "Display" and not hasattr(view.cards[DISPLAY].picture, "pixmap")
    assert not view.cards[WIFI].picture.pixmap().isNull()
    layout = view.drawing.layout
    assert layout.columns[HOME] == 0 and layout.columns[NETWORK] == layout.columns[DISPLAY] == 1
    assert layout.columns[WIFI] == 2
    assert not window.problems.isVisible() and window.pages.currentIndex() == 0


async def test_an_action_that_keeps_failing_is_drawn_pale_and_dashed(window):
    faded, sound = window.view.arrows[(NETWORK, HOTSPOT)], window.view.arrows[(NETWORK, WIFI)]
    assert faded.style == "faded" and sound.style == "normal"
    assert faded.pen().style() == Qt.PenStyle.DashLine and sound.pen().style() == Qt.PenStyle.SolidLine
    assert faded.pen().color().alpha() < 128 and sound.pen().color().alpha() == 255
    assert "led here 1 of 3 times" in faded.toolTip()


async def test_clicking_a_screen_shows_its_controls_and_the_actions_known_to_leave_it(window):
    view, pane = window.view, window.pane
    view.centerOn(view.cards[NETWORK])
    await asyncio.sleep(0.05)
    at = view.mapFromScene(view.cards[NETWORK].sceneBoundingRect().center())
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at)
    assert window.selected == NETWORK and view.cards[NETWORK].selected
    assert pane.title.text() == "Network & internet" and pane.place.text() == "Settings › Network & internet"
    assert pane.seen.text().startswith("Seen ") and "in 2 runs" in pane.seen.text()
    assert pane.control_names() == ["Network & internet", "Wi-Fi", "Hotspot & tethering"]
    rows = pane.action_rows()
    assert rows[0] == ["Tap “Wi-Fi” → Wi-Fi", "led here 1 of 1 time", "about 402 ms"]
    assert rows[1][:2] == ["Tap “Hotspot & tethering” → Wi-Fi hotspot", "led here 1 of 3 times"]
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     view.mapFromScene(view.cards[NETWORK].sceneBoundingRect().topLeft()) - QPoint(40, 0))
    assert window.selected is None and not pane.controls.isVisible()


async def test_wheel_zooms_and_fit_shows_the_whole_map(window):
    view = window.view
    view.set_zoom(1.0)
    view.fit()
    fitted = view.zoom()
    visible = view.mapToScene(view.viewport().rect()).boundingRect()
    assert all(visible.contains(card.sceneBoundingRect()) for card in view.cards.values())
    view.set_zoom(0.3)
    assert not any(arrow.label.isVisible() for arrow in view.arrows.values())   # too small to read
    view.set_zoom(fitted)
    assert all(arrow.label.isVisible() for arrow in view.arrows.values()) == (fitted >= 0.45)


# ---------------------------------------------------------------- a person's edits

async def test_a_renamed_screen_keeps_its_name_after_reloading_and_after_new_runs(window, graph_root):
    window.select(WIFI)
    QTest.mouseClick(window.pane.rename_button, Qt.MouseButton.LeftButton)
    await answer_input("Wi-Fi settings")
    await window.settled()
    assert window.view.cards[WIFI].name.text() == "Wi-Fi settings" and window.pane.title.text() == "Wi-Fi settings"
    TransitionStore(graph_root).append([move(NETWORK, WIFI, "Tap “Wi-Fi”", "run-3", 1, minute=59)])
    await window.reload()
    assert window.data.graph.nodes[WIFI].name == "Wi-Fi settings" and window.data.graph.nodes[WIFI].seen == 2
    assert window.view.cards[WIFI].name.text() == "Wi-Fi settings"
    assert MapEditsStore(graph_root).load(KIND).names == {WIFI: "Wi-Fi settings"}


async def test_a_screens_menu_offers_rename_merge_and_split(window):
    from PySide6.QtWidgets import QMenu

    from app.gui.map.screen_edits import screen_menu

    window.select(NETWORK)
    screen_menu(window, NETWORK, QPoint(100, 100))
    menu = next(w for w in QApplication.topLevelWidgets() if isinstance(w, QMenu) and w.isVisible())
    actions = {action.text(): action for action in menu.actions()}
    assert list(actions) == ["Rename…", "Merge with…", "Split apart"] and not actions["Split apart"].isEnabled()
    actions["Rename…"].trigger()
    menu.close()
    await answer_input("Networks")
    await window.settled()
    assert window.view.cards[NETWORK].name.text() == "Networks"


async def test_two_screens_merge_into_one_and_split_apart_again(window, graph_root):
    window.select(WIFI)
    QTest.mouseClick(window.pane.merge_button, Qt.MouseButton.LeftButton)
    offered = await answer_input("Wi-Fi hotspot")
    assert "Wi-Fi hotspot" in offered and "Wi-Fi" not in offered
    await window.settled()
    assert set(window.view.cards) == {HOME, NETWORK, WIFI, DISPLAY}
    assert (NETWORK, HOTSPOT) not in window.view.arrows and (NETWORK, WIFI) in window.view.arrows
    assert "2 recorded screens are drawn as this one" in window.pane.seen.text()
    assert window.data.graph.resolve(HOTSPOT) == WIFI and window.pane.split_button.isEnabled()
    QTest.mouseClick(window.pane.split_button, Qt.MouseButton.LeftButton)
    await window.settled()
    assert set(window.view.cards) == {HOME, NETWORK, WIFI, DISPLAY, HOTSPOT}
    assert not window.pane.split_button.isEnabled()
    QTest.mouseClick(window.pane.split_button, Qt.MouseButton.LeftButton)    # disabled: nothing happens
    await window.settled()
    assert MapEditsStore(graph_root).load(KIND).merged == {}


# ---------------------------------------------------------------- the phone's screen and past runs

async def test_the_phones_screen_is_framed_by_its_signature_and_followed_into_its_app(window):
    window.show_current(HOTSPOT)
    assert window.view.current == HOTSPOT and window.view.cards[HOTSPOT].ring.isVisible()
    window.show_current(WIFI)
    assert window.view.cards[WIFI].ring.isVisible() and not window.view.cards[HOTSPOT].ring.isVisible()
    window.show_current(CLOCK)                      # another app: "Follow the phone" shows its map
    await window.settled()
    assert window.app == "com.google.android.deskclock" and window.view.cards[CLOCK].ring.isVisible()
    window.show_current("com.example/.Unknown#ffffffffffff")
    assert window.view.current is None and not window.view.cards[CLOCK].ring.isVisible()


async def test_playing_a_past_run_highlights_its_way_step_by_step(window):
    runs = [window.run_box.itemData(i) for i in range(window.run_box.count())]
    assert runs == [None, "run-2", "run-1"]                   # newest first
    assert window.run_box.itemText(2) == "2026-03-01 10:00 · “request of run-1” · 3 steps · Home screen → Wi-Fi"
    window.choose_run("run-1")
    QTest.mouseClick(window.play_button, Qt.MouseButton.LeftButton)
    await window.settled()
    assert window.player.isActive() and window.play_button.text() == "Stop"
    assert window.step_words.text() == "The run starts on “Home screen”."   # opened from the launcher
    window.player.stop()
    window.play_step()                   # the launch: Settings opens (the launcher is not on its map)
    assert window.view.path_arrows() == [] and window.view.cards[HOME].path_state == 2
    window.play_step()
    assert window.view.path_arrows() == [(HOME, NETWORK)]
    assert window.step_words.text() == "Step 2 of 3: Tap “Network & internet” → “Network & internet”"
    window.play_step()
    assert window.view.path_arrows() == [(HOME, NETWORK), (NETWORK, WIFI)]
    assert window.view.cards[WIFI].path_state == 2 and window.view.cards[NETWORK].path_state == 1
    on_path, off_path = window.view.arrows[(NETWORK, WIFI)].pen(), window.view.arrows[(HOME, DISPLAY)].pen()
    assert on_path.color().name() != off_path.color().name() and on_path.widthF() > off_path.widthF()
    assert not window.player.isActive() and window.play_button.text() == "Play"
    window.choose_run(None)
    assert window.view.path_arrows() == [] and not window.play_button.isEnabled()


# ---------------------------------------------------------------- nothing recorded, broken files

async def test_an_empty_map_says_how_to_fill_it(qapp, tmp_path):
    window = MapWindow(None, tmp_path / "graph")
    window.show()
    try:
        await until(lambda: window.work is not None)
        await window.settled()
        assert window.pages.currentIndex() == 1 and window.empty.isVisible() and window.empty.text() == EMPTY_TEXT
        assert window.kind_box.count() == 0 and window.view.cards == {}
        assert not window.app_box.isEnabled() and not window.fit_button.isEnabled()
    finally:
        await window.shutdown()
        window.close()
        window.deleteLater()


async def test_broken_lines_are_one_warning_line_and_the_rest_is_drawn(window, graph_root):
    with open(TransitionStore(graph_root).path_for(KIND), "a", encoding="utf-8") as handle:
        handle.write("{not json\n[1, 2]\n")
    await window.reload()
    assert window.problems.isVisible() and "could not be read" in window.problems.text()
    assert "and 1 more" in window.problems.text() and "line 13" in window.problems.toolTip()
    assert len(window.view.cards) == 5


# ---------------------------------------------------------------- in the main window, on the virtual phone

@pytest_asyncio.fixture
async def main_window(qapp, tmp_path, virtual_adb, monkeypatch):
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    try:
        async with shown_window() as window:
            yield window
    finally:
        keyring.set_keyring(previous)


async def test_the_menu_opens_the_map_on_the_phones_kind_and_frames_the_phones_screen(main_window):
    from app.core.paths import data_dir

    window = main_window
    await window.start()
    await until(lambda: window.phone.session is not None)
    session = window.phone.session
    reading = await window.core.run(session.screen_tree.read())
    here = stable_signature(reading.package, reading.activity, reading.controls).id
    facts = await window.core.run(phone_facts(session.device))
    kind = phone_kind(session.model, facts.get("android_version", ""))
    elsewhere = f"{reading.package}/.Elsewhere#0000000000ff"
    TransitionStore(data_dir() / "graph").append([
        Transition(from_screen=here, to_screen=elsewhere, app=reading.package, action_text="Tap “Somewhere”",
                   action={"function": "click_control", "arguments": {}}, success=True, run_id="r", step=1,
                   phone_model=session.model, android_version=facts.get("android_version", "")),
        move(HOME, NETWORK, "Tap “Network & internet”", "other-phone", 1)])      # a Pixel 7's map too
    menu = next(a for a in window.menuBar().actions() if a.text() == "&File").menu()
    next(a for a in menu.actions() if a.text() == "Map of screens…").trigger()
    map_window = window.findChild(MapWindow)
    assert map_window is not None and map_window.isVisible() and show_map(window) is map_window
    try:
        await until(lambda: map_window.view.current == here, seconds=20)
        assert map_window.kind_box.currentData() == kind and map_window.live.following
        assert map_window.view.cards[here].ring.isVisible()
        window.close()                               # the map closes with the main window
        assert not map_window.isVisible() and not map_window.live.following
    finally:
        await map_window.shutdown()
