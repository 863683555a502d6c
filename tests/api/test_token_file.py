"""One token story: without a keyring the task API's token is kept in a file only the user can read, the same
across restarts, and every command (`api token`, `serve --print-token`, `mcp`) finds it; an unsafe token file is
refused with a sentence saying what to do."""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
import sys

import keyring
import pytest
from keyring.backends import fail

from app.api.token import TOKEN_VARIABLE, TokenProblem, api_token, rotate_api_token
from app.core import paths
from app.core.secrets import SecretStore
from tests.conftest import REPO_ROOT

NO_KEYRING = "keyring.backends.fail.Keyring"


@pytest.fixture
def no_keyring():
    """This process without a keyring (as on a headless Linux)."""
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(previous)


def cli(*args: str, home) -> subprocess.CompletedProcess:
    """`agentdesk ARGS` with no keyring and no token variable: only the folder AGENTDESK_HOME is shared."""
    env = {key: os.environ[key] for key in ("PATH", "PYTHONPATH", "LANG") if key in os.environ}
    env.update(AGENTDESK_HOME=str(home), PYTHON_KEYRING_BACKEND=NO_KEYRING)
    return subprocess.run([sys.executable, "-m", "app.cli", *args], cwd=REPO_ROOT, env=env, capture_output=True,
                          text=True, timeout=60)


def mode(path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_without_a_keyring_the_token_lives_in_a_private_file_and_lasts(agent_home, no_keyring):
    path = paths.api_token_path()
    assert not path.exists()
    previous = os.umask(0)                      # a permissive umask must not loosen the file
    try:
        made = api_token({})
    finally:
        os.umask(previous)
    assert made.kept and made.kind == "file" and str(path) in made.source and made.value not in repr(made)
    assert path.read_text().strip() == made.value and mode(path) == 0o600
    assert api_token({}).value == made.value                    # the next process (or restart) finds it
    assert api_token({}, create=False).value == made.value
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]
    rotated = rotate_api_token({})
    assert rotated.value != made.value and api_token({}).value == rotated.value and mode(path) == 0o600


def test_the_keyring_is_read_first_and_a_rotation_into_it_leaves_no_old_token_on_disk(agent_home):
    store = SecretStore("AgentDesk API file test")
    path = paths.api_token_path()
    path.write_text("an-old-token-from-a-keyringless-day-0123\n")
    path.chmod(0o600)
    assert api_token({}, store).value == "an-old-token-from-a-keyringless-day-0123"   # kept working when a keyring came
    rotated = rotate_api_token({}, store)
    assert rotated.kind == "keyring" and not path.exists() and api_token({}, store).value == rotated.value
    assert api_token({TOKEN_VARIABLE: "the-environment-wins-0123456"}, store).value == "the-environment-wins-0123456"


def test_a_token_file_that_is_a_link_is_refused_saying_so(agent_home, no_keyring, tmp_path):
    elsewhere = tmp_path / "planted"
    elsewhere.write_text("a-token-someone-else-chose-0123456\n")
    elsewhere.chmod(0o600)
    path = paths.api_token_path()
    path.symlink_to(elsewhere)
    for attempt in (lambda: api_token({}), lambda: api_token({}, create=False), lambda: rotate_api_token({})):
        with pytest.raises(TokenProblem, match="symbolic link") as refused:
            attempt()
        assert "Remove" in str(refused.value) and "a-token-someone" not in str(refused.value)
    assert elsewhere.read_text() == "a-token-someone-else-chose-0123456\n"      # nothing written through the link


@pytest.mark.parametrize("loose", [0o644, 0o640, 0o604, 0o620])
def test_a_token_file_others_can_read_or_change_is_refused_saying_what_to_do(agent_home, no_keyring, loose):
    path = paths.api_token_path()
    path.write_text("a-token-others-may-have-read-0123456\n")
    path.chmod(loose)
    with pytest.raises(TokenProblem, match="other users") as refused:
        api_token({})
    assert f"chmod 600 {path}" in str(refused.value) and f"{loose:03o}" in str(refused.value)
    assert "a-token-others" not in str(refused.value)


def test_every_command_prints_the_same_kept_token_without_a_keyring(tmp_path):
    printed = cli("api", "token", home=tmp_path)
    assert printed.returncode == 0, printed.stderr
    token = printed.stdout.strip()
    path = tmp_path / "config" / "api-token"
    assert len(token) >= 32 and path.read_text().strip() == token and mode(path) == 0o600
    again = cli("serve", "--print-token", home=tmp_path)
    assert (again.returncode, again.stdout.strip()) == (0, token)
    path.chmod(0o644)
    unsafe = cli("api", "token", home=tmp_path)
    assert unsafe.returncode == 2 and unsafe.stdout == "" and "other users" in unsafe.stderr
    assert "Traceback" not in unsafe.stderr and token not in unsafe.stderr


async def cli_beside(*args: str, home) -> tuple[int, str, str]:
    """`cli` without blocking the loop a desk of this test serves on."""
    env = {key: os.environ[key] for key in ("PATH", "PYTHONPATH", "LANG") if key in os.environ}
    env.update(AGENTDESK_HOME=str(home), PYTHON_KEYRING_BACKEND=NO_KEYRING)
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "app.cli", *args, cwd=REPO_ROOT, env=env,
                                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = await process.communicate()
    return process.returncode, out.decode(), err.decode()


@pytest.mark.asyncio
async def test_api_token_prints_the_running_desks_token_and_says_when_it_cannot(make_desk, agent_home, no_keyring):
    desk = await make_desk(announce=True, token=None)           # a keyring-less desk, as the window's
    code, out, err = await cli_beside("api", "token", home=agent_home)
    assert (code, out.strip()) == (0, desk.api.token.value), err
    await desk.api.stop()
    other = await make_desk(announce=True)                      # a desk whose token is its own (as from its variable)
    code, out, err = await cli_beside("api", "token", home=agent_home)
    assert code == 1 and out == "" and other.api.url in err and "is not its token" in err
    assert "API token…" in err and "Traceback" not in err and desk.api.token.value not in err
