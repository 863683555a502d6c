"""`map import` of hostile zips: each is refused with one sentence before anything is written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from app.core.learning.map_sharing import MapFileError, import_map
from tests.conftest import REPO_ROOT

ABOUT = json.dumps({"format": "agentdesk-map", "version": 1, "kind": "Pixel 7"}).encode()
LINE = json.dumps({"from": "a", "to": "b", "action": {"function": "click"}}).encode()


def map_zip(path: Path, parts: dict[str, bytes] | None = None, *, about: bytes = ABOUT, method=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(path, "w", compression=method) as archive:
        archive.writestr("about.json", about)
        archive.writestr("transitions.jsonl", LINE + b"\n")
        for name, data in (parts or {}).items():
            archive.writestr(name, data)
    return path


def bomb(path: Path) -> Path:
    """A map whose five parts unpack to 199 MB each, from about 1 MB of zip (written in chunks)."""
    map_zip(path)
    chunk = b"\0" * (1024 * 1024)
    with zipfile.ZipFile(path, "a", compression=zipfile.ZIP_DEFLATED) as archive:
        for number in range(5):
            with archive.open(f"screens/s{number}.json", "w", force_zip64=True) as part:
                for _ in range(199):
                    part.write(chunk)
    return path


def written(root: Path) -> list[Path]:
    return [path for path in root.rglob("*") if path.is_file()] if root.exists() else []


def test_a_zip_bomb_is_refused_before_anything_is_written(tmp_path):
    source = bomb(tmp_path / "bomb.zip")
    assert source.stat().st_size < 2 * 1024 * 1024
    with pytest.raises(MapFileError, match="zip bomb|more than a map"):
        import_map(source, tmp_path / "graph")
    assert written(tmp_path / "graph") == []


def _encrypted(path: Path) -> Path:
    map_zip(path, {"map.json": b"{}"})
    data = bytearray(path.read_bytes())
    at = data.find(b"PK\x01\x02")          # every central-directory entry says "encrypted"
    while at != -1:
        data[at + 8] |= 1
        at = data.find(b"PK\x01\x02", at + 4)
    path.write_bytes(bytes(data))
    return path


def _method(path: Path) -> Path:
    map_zip(path, {"map.json": b"{}"})
    data = bytearray(path.read_bytes())
    at = data.find(b"PK\x01\x02")
    while at != -1:
        data[at + 10:at + 12] = (99).to_bytes(2, "little")       # AES / unknown
        at = data.find(b"PK\x01\x02", at + 4)
    path.write_bytes(bytes(data))
    return path


def _corrupt(path: Path) -> Path:
    map_zip(path, {"map.json": json.dumps({"names": {str(n): n * 7919 for n in range(2000)}}).encode()})
    data = bytearray(path.read_bytes())
    start = data.find(b"map.json") + len(b"map.json")            # inside map.json's packed bytes
    data[start + 4:start + 40] = b"\xff" * 36
    path.write_bytes(bytes(data))
    return path


HOSTILE = {
    "encrypted": (_encrypted, "encrypted"),
    "unknown method": (_method, "compression method"),
    "corrupt data": (_corrupt, "damaged"),
    "map.json not JSON": (lambda path: map_zip(path, {"map.json": b"{not json"}), "map.json is not JSON"),
    "5,000-character kind": (lambda path: map_zip(path, about=json.dumps(
        {"format": "agentdesk-map", "version": 1, "kind": "K" * 5000}).encode()), "is not a phone kind"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_bad_map_zip_is_one_sentence(tmp_path, case):
    make, words = HOSTILE[case]
    source = make(tmp_path / "bad.zip")
    with pytest.raises(MapFileError, match=words) as refused:
        import_map(source, tmp_path / "graph")
    assert "\n" not in str(refused.value) and len(str(refused.value)) < 400
    assert written(tmp_path / "graph") == []


def test_map_import_into_a_data_folder_that_cannot_be_written_is_one_line_and_non_zero(tmp_path):
    source = map_zip(tmp_path / "map.zip")
    home = tmp_path / "home"
    (home / "data").mkdir(parents=True)
    (home / "data" / "graph").write_text("a file where the maps' folder goes")   # unwritable even for root
    if os.geteuid() != 0:
        (home / "data").chmod(0o500)
    try:
        done = subprocess.run([sys.executable, "-m", "app.cli", "map", "import", str(source)], cwd=REPO_ROOT,
                              env={**os.environ, "AGENTDESK_HOME": str(home)}, capture_output=True, text=True,
                              timeout=60)
    finally:
        (home / "data").chmod(0o700)
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().count("\n") == 0 and done.stderr.startswith("error:"), done.stderr


def test_map_import_of_a_bad_zip_from_the_command_line_is_one_line_and_non_zero(tmp_path):
    source = bomb(tmp_path / "bomb.zip")
    done = subprocess.run([sys.executable, "-m", "app.cli", "map", "import", str(source)], cwd=REPO_ROOT,
                          env={**os.environ, "AGENTDESK_HOME": str(tmp_path / "home")}, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode != 0 and done.stderr.startswith("error:") and "Traceback" not in done.stderr
    assert written(tmp_path / "home" / "data" / "graph") == []
