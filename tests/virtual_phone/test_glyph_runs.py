"""Cutting text into clusters and runs (one font each), and finding the machine's fonts."""

from __future__ import annotations

import sys
from pathlib import Path

from app.virtual_phone import font_fallback
from app.virtual_phone.text_runs import Run, clusters, presentation, split_runs


class FakeFace:
    def __init__(self, name: str, chars: str) -> None:
        self.name, self.chars = name, set(chars)

    def covers(self, text: str) -> bool:
        return set(text) <= self.chars

    def __repr__(self) -> str:
        return self.name


CJK = FakeFace("cjk", "中文日本語 ")
EMOJI = FakeFace("emoji", "😀👍❤\ufe0f ")
ARABIC = FakeFace("arabic", "عربينص ")


def fake_choose(cluster: str) -> Run:
    for face in (CJK, EMOJI, ARABIC):
        if not cluster.isascii() and face.covers(cluster):
            return Run(face, cluster)
    return Run(None, cluster)


def test_clusters_keep_marks_sequences_and_flags_whole():
    assert clusters("e\u0301x") == ["e\u0301", "x"]                      # a combining accent stays with its letter
    assert clusters("❤\ufe0f!") == ["❤\ufe0f", "!"]                      # the variation selector too
    assert clusters("👍🏽👍") == ["👍🏽", "👍"]                               # a skin tone
    assert clusters("👨\u200d👩\u200d👧a") == ["👨\u200d👩\u200d👧", "a"]     # a ZWJ family
    assert clusters("🇯🇵🇫🇷🇩") == ["🇯🇵", "🇫🇷", "🇩"]                     # flags are pairs
    assert clusters("") == []


def test_presentation_follows_selectors_and_emoji_blocks():
    assert presentation("😀") == "emoji"
    assert presentation("❤\ufe0f") == "emoji"
    assert presentation("❤\ufe0e") == "text"
    assert presentation("❤") is None
    assert presentation("a") is None


def test_runs_change_where_the_font_changes():
    runs = split_runs("Hi 中文 😀!", fake_choose)
    assert runs == (Run(None, "Hi "), Run(CJK, "中文"), Run(None, " "), Run(EMOJI, "😀"), Run(None, "!"))
    assert [r.face for r in split_runs("abc", fake_choose)] == [None]


def test_spaces_join_right_to_left_runs_of_one_font_only():
    assert split_runs("عربي نص.", fake_choose) == (Run(ARABIC, "عربي نص"), Run(None, "."))
    assert split_runs("中文 日本", fake_choose) == (Run(CJK, "中文"), Run(None, " "), Run(CJK, "日本"))
    assert split_runs("😀 😀", fake_choose) == (Run(EMOJI, "😀"), Run(None, " "), Run(EMOJI, "😀"))


def test_folder_scan_finds_font_files_plain_styles_first(tmp_path):
    (tmp_path / "sub").mkdir()
    for name in ("Zed-Bold.ttf", "sub/Alpha.otf", "NotoColorEmoji.ttf", "DejaVuSans.ttf", "notes.txt", "old.fon"):
        (tmp_path / name).write_bytes(b"")
    found = font_fallback._folder_candidates([tmp_path, tmp_path / "missing"])
    assert [Path(c.path).name for c in found] == ["DejaVuSans.ttf", "NotoColorEmoji.ttf", "Alpha.otf", "Zed-Bold.ttf"]
    assert [c.colour_hint for c in found] == [False, True, False, False]


def test_font_folders_per_os(monkeypatch):
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setenv("WINDIR", r"D:\Win")
    assert Path(r"D:\Win") / "Fonts" in font_fallback.font_folders()
    monkeypatch.setattr(sys, "platform", "darwin")
    assert Path("/System/Library/Fonts") in font_fallback.font_folders()
    monkeypatch.setattr(sys, "platform", "linux")
    assert Path("/usr/share/fonts") in font_fallback.font_folders()


def test_a_damaged_font_file_is_skipped(tmp_path):
    junk = tmp_path / "Broken.ttf"
    junk.write_bytes(b"\x00\x01\x00\x00" + b"garbage" * 20)
    assert font_fallback.load_face(font_fallback.Candidate(str(junk), 0, False)) is None
    missing = font_fallback.Candidate(str(tmp_path / "gone.ttf"), 0, False)
    assert font_fallback.load_face(missing) is None

