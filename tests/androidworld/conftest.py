"""AndroidWorld from ../shared/androidworld: loaded once per module, or the test skips with the reason (under
CI=true with ../shared present, a missing dependency fails it instead)."""

from __future__ import annotations

import os

import pytest

from tests.conftest import SHARED_DIR

CHECKOUT = SHARED_DIR / "androidworld"


def _must_run() -> bool:
    """Under CI with ../shared present, a missing AndroidWorld dependency fails instead of skipping."""
    return os.environ.get("CI") == "true" and SHARED_DIR.is_dir()


@pytest.fixture(scope="module")
def androidworld_registry(tmp_path_factory):
    if not CHECKOUT.is_dir():
        pytest.skip(f"AndroidWorld's source is not here: expected it at {CHECKOUT} (../shared beside the project)")
    from app.bench.androidworld.source import AndroidWorldUnavailable, load_androidworld

    home = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AGENTDESK_HOME", str(home))              # the compiled protos' cache
        try:
            registry = load_androidworld(CHECKOUT)
        except AndroidWorldUnavailable as exc:
            if _must_run():
                raise
            pytest.skip(str(exc))
    return registry


