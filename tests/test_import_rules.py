"""The one dependency rule (GUIDE §1), as import-linter contracts in pyproject.toml."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.conftest import REPO_ROOT

# `lint-imports` is a console script; calling its entry point through this interpreter works
# wherever the test extra is installed, whether or not the script is on PATH.
LINT_IMPORTS = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"


def lint_imports(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", LINT_IMPORTS, "--no-logo", "--no-cache", *args],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=120,
    )


def test_import_contracts_are_kept():
    result = lint_imports()
    assert result.returncode == 0, result.stdout + result.stderr
    assert " kept, 0 broken." in result.stdout, result.stdout   # the contracts were read and checked


def test_lint_imports_reports_a_broken_contract(tmp_path):
    """The check can fail: the core does import pydantic, so forbidding it must be reported."""
    config = tmp_path / "pyproject.toml"
    config.write_text(textwrap.dedent("""
        [tool.importlinter]
        root_packages = ["app"]
        include_external_packages = true

        [[tool.importlinter.contracts]]
        name = "The core never imports pydantic"
        type = "forbidden"
        source_modules = ["app.core"]
        forbidden_modules = ["pydantic"]
    """))
    result = lint_imports("--config", str(config))
    assert result.returncode != 0, result.stdout + result.stderr
    assert "The core never imports pydantic BROKEN" in " ".join(result.stdout.split())
    assert "app.core is not allowed to import pydantic" in result.stdout
