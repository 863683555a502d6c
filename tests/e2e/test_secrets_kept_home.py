"""One redactor on every path a run writes, prints, shares or exports (issue 25 §8, "Done when").

A hostile scripted model puts a registered key where a run still records it — its thought, a
launch_app argument, a note on the phone whose title it reads — and types a text that is registered
as a key only after the run (so the files at rest hold it, and only the way out can catch it).
Afterwards the run's folder, the screens graph's transitions and cards, a `map export` zip, a skill
saved from the run, `agentdesk skills export` and `agentdesk export` and what the CLI printed are
all free of the keys.
"""

from __future__ import annotations

import io
import uuid
import zipfile
from pathlib import Path

import pytest

from app.cli import main
from app.core.paths import data_dir
from app.core.secrets import register_secret
from app.virtual_phone.apps import NOTES
from tests.support.openai_server import act, click, json_reply, type_into

pytestmark = pytest.mark.asyncio


def files_holding(folder: Path, *secrets: str) -> list[str]:
    """The files under `folder` (zip members too) whose bytes hold any of `secrets`."""
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        parts = [(path.name, data)]
        if zipfile.is_zipfile(io.BytesIO(data)):
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                parts += [(f"{path.name}:{name}", archive.read(name)) for name in archive.namelist()]
        found += [name for name, content in parts for secret in secrets if secret.encode() in content]
    return found


def cli(capsys, *argv: str) -> str:
    """Run `agentdesk ARGV…` in this process; what it printed (stdout and stderr)."""
    code = main(list(argv))
    printed = capsys.readouterr()
    assert code in (0, None), printed.err
    return printed.out + printed.err


async def test_a_key_in_a_run_reaches_no_file_export_or_terminal(run_agent, phone_server, capsys, tmp_path):
    early = f"zqEarlyKey{uuid.uuid4().hex}"          # registered before the run, like the run's API key
    late = f"zqLateKey{uuid.uuid4().hex}"            # typed by the model, registered as a key after the run
    register_secret(early)
    phone = phone_server.devices[0].phone
    phone.apps[NOTES].notes.insert(0, {"title": f"Vault {early}", "body": "keep it"})
    script = [json_reply(act("launch_app", thought=f"the key is {early}", package_name=f"org.example.{early}")),
              json_reply(act("launch_app", package_name=NOTES)),
              click("New note"), type_into("Title", late),
              json_reply(act("", status="FINISH", thought=f"done with {early}"))]
    outcome = await run_agent("Write a note", script, mode="auto")
    assert outcome.result.status == "success", outcome.result.completion_reason
    assert outcome.state["focused_text"] == late, "the model typed the late key into the note's title"
    run_dir = Path(outcome.result.run_dir)
    graph = data_dir() / "graph"
    assert list(graph.glob("transitions-*.jsonl")) and list(graph.glob("screens-*/*.json"))

    assert files_holding(run_dir, early) == [], "the run's own files"
    assert files_holding(graph, early) == [], "the transitions and the screens' cards"

    register_secret(late)                            # from now on, everything that leaves must hide it too
    shared = tmp_path / "shared"
    shared.mkdir()
    printed = cli(capsys, "map", "export", str(shared / "map.zip"))
    printed += cli(capsys, "skills", "save", str(run_dir), "--name", "from the run")
    printed += cli(capsys, "skills", "show", "from the run")
    printed += cli(capsys, "skills", "export", "from the run", str(shared / "skill.yaml"))
    printed += cli(capsys, "export", str(run_dir))
    printed += cli(capsys, "export", str(run_dir), "--format", "yaml", "-o", str(shared / "flow.yaml"))
    printed += cli(capsys, "export", "--skill", "from the run", "-o", str(shared / "skill_script.py"))
    assert {path.name for path in shared.iterdir()} == {"map.zip", "skill.yaml", "flow.yaml", "skill_script.py"}
    assert "[redacted]" in printed
    assert early not in printed and late not in printed, "the terminal"
    assert files_holding(shared, early, late) == [], "what is shared"
    assert files_holding(data_dir() / "skills", early) == [], "the skills saved from the run"
    saved = [path.name for path in (data_dir() / "skills").iterdir() if path.name.startswith("from-the-run")]
    assert saved and files_holding(data_dir() / "skills", late) == ["write-a-note.yaml"], \
        "only the skill saved at the run's end, before the late key was registered, holds it"
