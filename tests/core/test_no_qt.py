"""app.core and app.virtual_phone must work where Qt does not exist (GUIDE §1)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.conftest import REPO_ROOT

PROBE = textwrap.dedent("""
    import importlib, pkgutil, sys

    class NoQt:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("PySide6", "shiboken6", "qasync") or name.startswith("app.gui"):
                raise ImportError(f"{name} is not allowed here")
            return None

    sys.meta_path.insert(0, NoQt())
    import app.core, app.virtual_phone
    imported = []
    for package in (app.core, app.virtual_phone):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            importlib.import_module(info.name)
            imported.append(info.name)
    leaked = [m for m in sys.modules if m.split(".")[0] in ("PySide6", "shiboken6", "qasync")]
    assert not leaked, leaked
    print(len(imported))
""")


def test_core_and_virtual_phone_import_without_qt():
    result = subprocess.run([sys.executable, "-c", PROBE], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout.strip()) >= 10   # the walk really imported the modules


def test_probe_detects_a_qt_import(tmp_path):
    """The probe itself must fail when something imports Qt (so the test above can fail)."""
    bad = PROBE.replace("import app.core, app.virtual_phone", "import app.core, app.virtual_phone\nimport PySide6")
    result = subprocess.run([sys.executable, "-c", bad], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    assert "not allowed" in result.stderr
