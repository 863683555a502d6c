"""The leak checks of tests/conftest.py can fail: a pytest run of tests that leak, in a subprocess."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ElementTree

import pytest

from tests.conftest import REPO_ROOT

LEAKY_TESTS = textwrap.dedent('''
    import asyncio
    import gc
    import threading
    import time

    import pytest


    def test_leaves_a_thread():
        stop = threading.Event()
        threading.Thread(target=stop.wait, args=(20,), name="leaky-thread", daemon=True).start()


    def test_a_thread_that_is_ending_is_fine():
        threading.Thread(target=time.sleep, args=(0.3,), name="ending-thread").start()


    @pytest.mark.asyncio
    async def test_leaves_a_task():
        asyncio.create_task(asyncio.sleep(30), name="leaky-task")


    @pytest.mark.asyncio
    async def test_drops_a_failed_task():
        async def fail():
            raise ValueError("nobody looks at this")
        task = asyncio.create_task(fail())
        await asyncio.sleep(0.01)
        del task


    def test_never_awaits_a_coroutine():
        async def forgotten():
            pass
        forgotten()
        gc.collect()


    @pytest.mark.asyncio
    async def test_clean():
        await asyncio.to_thread(time.sleep, 0.01)
        task = asyncio.create_task(asyncio.sleep(30))
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
''')

EXPECTED = {
    "test_leaves_a_thread": "left thread 'leaky-thread'",
    "test_a_thread_that_is_ending_is_fine": None,
    "test_leaves_a_task": "left task 'leaky-task'",
    "test_drops_a_failed_task": "Task exception was never retrieved",
    "test_never_awaits_a_coroutine": "was never awaited",
    "test_clean": None,
}


@pytest.mark.parametrize("folder", ["core", "gui"], ids=["asyncio-loop", "qasync-loop"])
def test_leak_checks_fail_the_tests_that_leak(tmp_path, folder):
    """Tests under a "gui" folder run on the qasync loop, others on a plain asyncio loop."""
    test_dir = tmp_path / folder
    test_dir.mkdir()
    (test_dir / "test_leaky.py").write_text(LEAKY_TESTS)
    report = tmp_path / "report.xml"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.conftest", "-c", str(REPO_ROOT / "pyproject.toml"),
         "--rootdir", str(tmp_path), "-p", "no:cacheprovider", f"--junitxml={report}", "-q", str(test_dir)],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=120,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    outcomes = {}
    for case in ElementTree.parse(report).iter("testcase"):
        problems = [child.get("message", "") + (child.text or "") for child in case
                    if child.tag in ("failure", "error")]
        outcomes[case.get("name")] = "\n".join(problems)
    assert set(outcomes) == set(EXPECTED), output
    for name, expected in EXPECTED.items():
        if expected is None:
            assert outcomes[name] == "", f"{name} should pass:\n{outcomes[name]}"
        else:
            assert expected in outcomes[name], f"{name} should fail with {expected!r}:\n{outcomes[name]}\n{output}"
