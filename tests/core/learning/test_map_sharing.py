"""Sharing a map between phones of the same kind: export to a zip, import adds what is new and keeps
what is here; a file that is not a map is refused in words; the `agentdesk map` command."""

from __future__ import annotations

import json
import zipfile

import pytest

from app.cli import main
from app.core.learning.map_edits import MapEditsStore
from app.core.learning.map_sharing import MapFileError, export_map, import_map
from app.core.learning.screen_cards import CardStore, ScreenCard
from app.core.learning.screen_graph import load_graph
from app.core.learning.transitions import TransitionStore
from tests.core.learning.test_screen_graph import KIND, MAIN, NETWORK, WIFI, launch, move, settings_runs


@pytest.fixture
def here(tmp_path):
    root = tmp_path / "here"
    TransitionStore(root).append(settings_runs())
    CardStore(root, KIND).write(ScreenCard(id=MAIN, app="com.android.settings", title="Settings"))
    MapEditsStore(root).rename(KIND, WIFI, "Wi-Fi page")
    return root


def test_a_map_goes_to_another_machine_and_back_without_losing_anything(here, tmp_path):
    shared = export_map(KIND, tmp_path / "settings-map.zip", here)
    there = tmp_path / "there"
    TransitionStore(there).append([launch(MAIN, "50"), move(MAIN, NETWORK, "51", run="other")])
    MapEditsStore(there).rename(KIND, WIFI, "their name")
    report = import_map(shared, there)
    assert report.transitions_added == 5 and report.transitions_known == 0
    assert report.screens_added == 1 and report.names_added == 0          # their own name is kept
    graph = load_graph(KIND, there)
    assert graph.nodes[WIFI].name == "their name" and graph.nodes[MAIN].title == "Settings"
    assert len(TransitionStore(there).read(KIND)[0]) == 7
    again = import_map(shared, there)
    assert again.transitions_added == 0 and again.transitions_known == 5
    other = import_map(shared, there, as_kind="pixel-7a-android-14")
    assert other.kind == "pixel-7a-android-14" and other.names_added == 1
    assert load_graph("pixel-7a-android-14", there).nodes[WIFI].name == "Wi-Fi page"


def test_files_that_are_not_maps_are_refused_in_words(here, tmp_path):
    with pytest.raises(FileNotFoundError, match="there is no map of 'galaxy'"):
        export_map("galaxy", tmp_path / "x.zip", here)
    text = tmp_path / "notes.txt"
    text.write_text("hello", encoding="utf-8")
    with pytest.raises(MapFileError, match="not a map file"):
        import_map(text, here)
    odd = tmp_path / "odd.zip"
    with zipfile.ZipFile(odd, "w") as archive:
        archive.writestr("about.json", json.dumps({"format": "something-else", "kind": KIND}))
        archive.writestr("transitions.jsonl", "")
    with pytest.raises(MapFileError, match="does not describe an Agent Desk map"):
        import_map(odd, here)
    sneaky = tmp_path / "sneaky.zip"
    with zipfile.ZipFile(sneaky, "w") as archive:
        archive.writestr("about.json", json.dumps({"format": "agentdesk-map", "kind": "../evil"}))
        archive.writestr("transitions.jsonl", "")
    with pytest.raises(MapFileError, match="is not a phone kind"):
        import_map(sneaky, here)


def test_the_map_command_lists_shows_names_and_shares(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path / "home"))
    assert main(["map"]) == 0
    assert "No map yet" in capsys.readouterr().out
    from app.core.paths import data_dir
    TransitionStore(data_dir() / "graph").append(settings_runs())
    assert main(["map", "list"]) == 0
    assert f"{KIND}: 5 screens, 5 actions recorded" in capsys.readouterr().out      # the launcher too
    assert main(["map", "name", WIFI, "Wi-Fi page"]) == 0
    assert main(["map", "show"]) == 0
    shown = capsys.readouterr().out
    assert f"  Settings › Wi-Fi page — seen 1 times in 1 runs — {WIFI}" in shown
    assert "Settings [entry]" in shown and "Home screen [entry]" in shown
    assert "Tap “Wi-Fi” → Wi-Fi page: led there 1 of the last 1 times, 300 ms" in shown
    assert "opening the app leads to Settings (2 times)" in shown
    assert main(["map", "export", str(tmp_path / "m.zip")]) == 0
    with pytest.raises(SystemExit, match="no map of 'nope'"):
        main(["map", "show", "--kind", "nope"])
