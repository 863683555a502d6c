"""The map of screens (seed 003's work graph): nodes and edges from transitions, merging by stable
signature, names a person gives that last, edges that fade, app-version layers, routes."""

from __future__ import annotations

import json

import pytest
from PIL import Image

from app.core.learning.map_edits import MapEditError, MapEditsStore
from app.core.learning.screen_cards import CardStore, ScreenCard, app_label, title_from_controls
from app.core.learning.screen_graph import ANYWHERE, build_graph, load_graph
from app.core.learning.screen_signature import stable_signature
from app.core.learning.transitions import Transition, TransitionStore, phone_kind
from app.core.perception.locator import ControlSummary, TargetLocator

SETTINGS, NOTES = "com.android.settings", "com.example.notes"
KIND = phone_kind("Pixel 7", "14")


def home(clock: str = "9:41") -> list[ControlSummary]:
    return [ControlSummary(1, clock, "TextView", "com.android.systemui:id/clock", text=clock, rect=[20, 0, 120, 60]),
            ControlSummary(2, "Settings", "TextView", rect=[40, 120, 600, 220], text="Settings"),
            ControlSummary(3, "Network & internet", "LinearLayout", rect=[0, 300, 1080, 500], flags=["clickable"]),
            ControlSummary(4, "Display", "LinearLayout", rect=[0, 500, 1080, 700], flags=["clickable"])]


def form() -> list[ControlSummary]:
    return [ControlSummary(1, "New note", "TextView", rect=[40, 120, 600, 220], text="New note"),
            ControlSummary(2, "Title", "EditText", f"{NOTES}:id/title", rect=[0, 300, 1080, 420],
                           flags=["clickable"]),
            ControlSummary(3, "Save", "Button", f"{NOTES}:id/save", rect=[800, 2200, 1040, 2300],
                           flags=["clickable"])]


def note_list() -> list[ControlSummary]:
    return [ControlSummary(1, "Notes", "TextView", rect=[40, 120, 600, 220], text="Notes"),
            ControlSummary(2, "list", "RecyclerView", f"{NOTES}:id/list", rect=[0, 300, 1080, 2200],
                           flags=["scrollable"]),
            ControlSummary(3, "Groceries", "TextView", f"{NOTES}:id/row", rect=[0, 300, 1080, 420],
                           flags=["clickable"])]


def test_two_screens_that_differ_by_a_clock_are_one_node_two_that_differ_by_content_type_are_not():
    morning = stable_signature(SETTINGS, ".Settings", home("9:41")).id
    evening = stable_signature(SETTINGS, ".Settings", home("21:07")).id
    assert morning == evening
    a_form = stable_signature(NOTES, ".Edit", form()).id
    a_list = stable_signature(NOTES, ".Edit", note_list()).id
    assert a_form != a_list
    graph = build_graph(KIND, [move(morning, a_form, "t1"), move(evening, a_list, "t2")])
    assert len([node for node in graph.nodes.values() if node.app == SETTINGS]) == 1
    assert {a_form, a_list} <= set(graph.nodes)


def move(source: str, target: str, at: str, success: bool = True, key_text: str = "Network & internet",
         function: str = "click_control", version: str = "", run: str = "r1", ms: float = 300.0) -> Transition:
    app = source.split("/", 1)[0]
    return Transition(from_screen=source, to_screen=target, app=app,
                      action={"function": function, "arguments": {"control_id": 3}},
                      action_text=f"Tap “{key_text}”", locator=TargetLocator(name=key_text, text=key_text),
                      success=success, duration_ms=ms, run_id=run, at=at, app_version=version,
                      phone_model="Pixel 7", android_version="14")


def launch(target: str, at: str, source: str = "com.android.launcher/.Home#000", version: str = "") -> Transition:
    transition = move(source, target, at, function="launch_app", version=version)
    transition.action = {"function": "launch_app", "arguments": {"package_name": SETTINGS}}
    transition.locator, transition.action_text = None, "Open the app com.android.settings"
    return transition


MAIN, NETWORK, WIFI, DISPLAY = (f"{SETTINGS}/.Settings#aaa", f"{SETTINGS}/.SubSettings#bbb",
                                f"{SETTINGS}/.SubSettings#ccc", f"{SETTINGS}/.SubSettings#ddd")


def settings_runs() -> list[Transition]:
    return [launch(MAIN, "01"), move(MAIN, NETWORK, "02"), move(NETWORK, WIFI, "03", key_text="Wi-Fi"),
            launch(MAIN, "04"), move(MAIN, DISPLAY, "05", key_text="Display")]


def test_edges_carry_reliability_and_the_route_starts_with_a_launch_from_anywhere():
    graph = build_graph(KIND, settings_runs())
    assert graph.entry(SETTINGS) == MAIN and graph.nodes[MAIN].entry
    route = graph.route(None, WIFI)
    assert [edge.to_id for edge in route] == [MAIN, NETWORK, WIFI]
    assert route[0].from_id == ANYWHERE and route[0].function == "launch_app"
    assert graph.route(NETWORK, WIFI)[0].action_text == "Tap “Wi-Fi”"
    assert graph.route(WIFI, WIFI) == []
    launches = [edge for edge in graph.edges if edge.from_id == ANYWHERE]
    assert len(launches) == 1 and launches[0].count == 2 and launches[0].reliability == 1.0
    names = [node.name for node, _ in graph.destinations(NETWORK)]
    assert names[0] == graph.nodes[WIFI].name                   # the nearest first
    assert graph.outgoing(MAIN)[0].to_id in (NETWORK, DISPLAY)


def test_a_phone_kinds_file_read_back_gives_each_edges_count_reliability_and_time_and_each_screens_visits(tmp_path):
    """One edge per action and destination, whatever number its control had; a move whose next screen is
    unknown is no edge, but its screen was seen; the graph keeps the transitions it read, in time order."""
    a, b = "com.a/.A#1", "com.a/.B#2"
    moves = [move(a, b, "01", ms=100), move(a, b, "02", run="r2", ms=900), move(a, b, "03", success=False, ms=200),
             move(a, a, "04", success=False, function="press_back", ms=50),
             move(b, "", "05", function="press_back", ms=10)]
    moves[1].action["arguments"]["control_id"] = 7                   # another number, the same control
    for back in moves[3:]:
        back.locator = None
    TransitionStore(tmp_path).append(moves[2:] + moves[:2])         # the file's order is not the steps' order
    graph = load_graph(KIND, tmp_path)
    assert [move.at for move in graph.transitions] == ["01", "02", "03", "04", "05"]
    assert [(e.from_id, e.to_id, e.action_key, e.count, e.arrivals, e.failures) for e in graph.edges] == [
        (a, a, "press_back", 1, 0, 1), (a, b, "click_control text=Network & internet", 3, 2, 1)]
    tap = graph.edges[1]
    assert tap.median_ms == 200 and tap.reliability == pytest.approx(2 / 3) and tap.runs == ["r1", "r2"]
    assert set(graph.nodes) == {a, b}
    assert (graph.nodes[a].seen, graph.nodes[a].runs) == (4 + 1, 2)       # left 4 times, reached once
    assert (graph.nodes[b].seen, graph.nodes[b].app) == (1 + 3, "com.a")   # left once, reached 3 times
    empty = build_graph(KIND, [])
    assert (empty.nodes, empty.edges, empty.transitions) == ({}, [], [])


def network_edge(moves):
    graph = build_graph(KIND, moves)
    return graph, next(e for e in graph.edges if e.from_id == MAIN and e.to_id == NETWORK)


def test_an_edge_that_keeps_failing_fades_and_is_no_longer_routed():
    graph, edge = network_edge(settings_runs() + [move(MAIN, MAIN, at, success=False) for at in ("06", "07")])
    assert (edge.arrivals, edge.failures, edge.attempts) == (1, 2, 3) and edge.faded and not edge.usable
    assert graph.route(MAIN, WIFI) is None
    healthy, edge = network_edge(settings_runs())
    assert edge.usable and edge.reliability == 1.0


def test_an_edge_whose_tap_now_leads_elsewhere_every_time_fades():
    elsewhere = [move(MAIN, DISPLAY, at, key_text="Network & internet") for at in ("06", "07", "08")]
    _, edge = network_edge(settings_runs() + elsewhere)
    assert edge.since_arrival == 3 and not edge.faded            # three times: maybe a page with two looks
    graph, edge = network_edge(settings_runs() + elsewhere + [move(MAIN, DISPLAY, "09", key_text="Network & internet")])
    assert edge.since_arrival == 4 and edge.faded and graph.route(MAIN, WIFI) is None


def test_a_page_that_opens_in_two_looks_keeps_both_ways_usable():
    other = f"{SETTINGS}/.SubSettings#eee"                      # the Wi-Fi page with Wi-Fi on: other controls
    moves = settings_runs() + [move(NETWORK, other, "06", key_text="Wi-Fi"),
                               move(NETWORK, WIFI, "07", key_text="Wi-Fi"),
                               move(NETWORK, other, "08", key_text="Wi-Fi")]
    graph = build_graph(KIND, moves)
    ways = {e.to_id: e for e in graph.edges if e.from_id == NETWORK}
    assert ways[WIFI].usable and ways[other].usable
    assert (ways[WIFI].share, ways[other].share) == (0.5, 0.5) and ways[WIFI].reliability == 1.0


def test_a_new_app_version_starts_a_new_layer_the_old_edges_are_not_trusted():
    old = [launch(MAIN, "01", version="14.0"), move(MAIN, NETWORK, "02", version="14.0"),
           move(NETWORK, WIFI, "03", key_text="Wi-Fi", version="14.0")]
    new = [launch(MAIN, "10"), move(MAIN, DISPLAY, "11", key_text="Display", version="15.0")]
    graph = build_graph(KIND, old + new)
    assert graph.versions[SETTINGS] == "15.0"
    stale = next(e for e in graph.edges if e.to_id == NETWORK)
    assert stale.stale and not stale.usable and graph.nodes[NETWORK].stale and not graph.nodes[MAIN].stale
    assert graph.route(None, WIFI) is None
    confirmed = build_graph(KIND, old + new + [move(MAIN, NETWORK, "12", version="15.0")])
    assert not next(e for e in confirmed.edges if e.to_id == NETWORK).stale
    assert build_graph(KIND, old, versions={SETTINGS: "14.0"}).route(None, WIFI) is not None


def test_a_renamed_screen_keeps_its_name_after_new_runs_and_merge_then_split(tmp_path):
    store = TransitionStore(tmp_path)
    store.append(settings_runs())
    edits = MapEditsStore(tmp_path)
    edits.rename(KIND, WIFI, "Wi-Fi settings")
    store.append([launch(MAIN, "20", ), move(MAIN, NETWORK, "21"), move(NETWORK, WIFI, "22", key_text="Wi-Fi")])
    graph = load_graph(KIND, tmp_path)
    assert graph.nodes[WIFI].name == "Wi-Fi settings" and graph.nodes[WIFI].person_name
    assert graph.place(WIFI).endswith("Wi-Fi settings")

    edits.merge(KIND, [DISPLAY], into=NETWORK)
    merged = load_graph(KIND, tmp_path)
    assert DISPLAY not in merged.nodes and DISPLAY in merged.nodes[NETWORK].members
    assert merged.resolve(DISPLAY) == NETWORK
    with pytest.raises(MapEditError):
        edits.merge(KIND, [NETWORK], into=NETWORK)
    edits.split(KIND, NETWORK)
    assert DISPLAY in load_graph(KIND, tmp_path).nodes
    with pytest.raises(MapEditError, match="nothing to split"):
        edits.split(KIND, NETWORK)
    edits.rename(KIND, WIFI, "  ")
    assert load_graph(KIND, tmp_path).nodes[WIFI].person_name == ""


def test_a_broken_edits_file_or_card_is_described_not_raised(tmp_path):
    store = TransitionStore(tmp_path)
    store.append(settings_runs())
    (tmp_path / f"map-{KIND}.json").write_text("{not json", encoding="utf-8")
    cards = CardStore(tmp_path, KIND)
    cards.folder.mkdir(parents=True)
    cards.card_path(MAIN).write_text(json.dumps({"id": "another"}), encoding="utf-8")
    graph = load_graph(KIND, tmp_path)
    assert len(graph.nodes) == 5
    assert any("cannot be read" in problem for problem in graph.problems)
    assert any("not the card of" in problem for problem in graph.problems)
    MapEditsStore(tmp_path).rename(KIND, MAIN, "Settings home")        # the next edit writes a sound file
    assert load_graph(KIND, tmp_path).nodes[MAIN].name == "Settings home"


def test_cards_keep_the_first_picture_and_give_screens_their_titles(tmp_path):
    cards = CardStore(tmp_path, KIND)
    picture = Image.new("RGB", (1080, 2400), "white")
    cards.write(ScreenCard(id=MAIN, app=SETTINGS, title=title_from_controls(home()), controls=home()), picture)
    cards.write(ScreenCard(id=MAIN, app=SETTINGS, title="Something else"), picture)      # kept as first met
    store = TransitionStore(tmp_path)
    store.append(settings_runs())
    graph = load_graph(KIND, tmp_path)
    node = graph.nodes[MAIN]
    assert node.title == "Settings" and node.card.controls[2].name == "Network & internet"
    with Image.open(node.picture) as small:
        assert small.size == (180, 400)
    assert graph.place(MAIN) == "Settings"
    assert title_from_controls(form()) == "New note" and title_from_controls([]) == ""
    assert app_label(SETTINGS) == "Settings" and app_label(NOTES) == "Notes"


def test_a_rows_summary_is_state_not_structure():
    """"Wi‑Fi, Off" and "Wi‑Fi, AndroidWifi" are the same row: the page is one screen; another row title is not."""
    def page(summary: str, title: str = "Wi‑Fi") -> list[ControlSummary]:
        return [ControlSummary(1, "Network & internet", "TextView", rect=[40, 120, 600, 220],
                               text="Network & internet"),
                ControlSummary(2, f"{title}, {summary}", "LinearLayout", rect=[0, 300, 1080, 500], flags=["clickable"])]
    off = stable_signature(SETTINGS, ".SubSettings", page("Off")).id
    assert off == stable_signature(SETTINGS, ".SubSettings", page("AndroidWifi")).id
    assert off != stable_signature(SETTINGS, ".SubSettings", page("Off", title="Airplane mode")).id
