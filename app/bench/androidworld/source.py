"""Where AndroidWorld comes from: a source checkout (`--androidworld PATH`, e.g. ../shared/androidworld) or an
installed `android_world` package - never a copy inside the project.

A checkout's `.proto` files are compiled (grpc_tools, as its setup.py does) into a cache folder of ours, keyed
by the protos' contents, and the proto package is pointed at that folder too: the checkout is only read."""

from __future__ import annotations

import hashlib
import importlib
import sys
import warnings
from pathlib import Path
from types import ModuleType

from app.core.paths import data_dir

EXTRA = 'pip install -e ".[androidworld]"'
PROTO_PACKAGE = "android_world.task_evals.information_retrieval.proto"


class AndroidWorldUnavailable(RuntimeError):
    """AndroidWorld or one of its dependencies cannot be imported; the message says what to do."""


def load_androidworld(checkout: Path | None = None) -> ModuleType:
    """Import AndroidWorld's task registry (`android_world.registry`) from `checkout` or the installed package."""
    if checkout is not None:
        checkout = checkout.expanduser().resolve()
        if not (checkout / "android_world" / "__init__.py").is_file():
            raise AndroidWorldUnavailable(f"{checkout} is not an AndroidWorld checkout (no android_world/__init__.py "
                                          "in it): give the folder that holds the android_world package.")
        loaded = sys.modules.get("android_world")
        if loaded is not None and Path(loaded.__file__ or "").resolve().parent.parent != checkout:
            raise AndroidWorldUnavailable(f"Another AndroidWorld is already loaded ({loaded.__file__}).")
        if str(checkout) not in sys.path:
            sys.path.insert(0, str(checkout))
    try:
        if checkout is not None:
            _use_compiled_protos(checkout)
        with warnings.catch_warnings():       # pydub, imported by AndroidWorld, warns that ffmpeg is missing
            warnings.filterwarnings("ignore", message=".*ffmpeg.*", category=RuntimeWarning)
            return importlib.import_module("android_world.registry")
    except ModuleNotFoundError as exc:
        missing = exc.name or str(exc)
        where = f"from {checkout}" if checkout else "(no --androidworld PATH given, and none installed)"
        raise AndroidWorldUnavailable(f"AndroidWorld cannot be imported {where}: the module {missing!r} is "
                                      f"missing. Install its dependencies with {EXTRA}.") from exc


def _use_compiled_protos(checkout: Path) -> None:
    protos = sorted((checkout / "android_world").rglob("*.proto"))
    digest = hashlib.sha256(b"".join(path.read_bytes() for path in protos)).hexdigest()[:16]
    out = data_dir() / "androidworld" / "protos" / digest
    for proto in protos:
        relative = proto.relative_to(checkout)
        compiled = out / relative.with_name(relative.stem + "_pb2.py")
        if not compiled.is_file():
            _compile(checkout, relative, out)
    package = importlib.import_module(PROTO_PACKAGE)
    folder = str(out / Path(*PROTO_PACKAGE.split(".")))
    if folder not in package.__path__:
        package.__path__.append(folder)


def _compile(checkout: Path, relative: Path, out: Path) -> None:
    try:
        from grpc_tools import protoc
    except ModuleNotFoundError as exc:
        raise AndroidWorldUnavailable(f"Compiling AndroidWorld's protos needs grpcio-tools: {EXTRA}.") from exc
    out.mkdir(parents=True, exist_ok=True)
    code = protoc.main(["protoc", f"-I{checkout}", f"--python_out={out}", str(relative)])
    if code != 0:
        raise AndroidWorldUnavailable(f"protoc could not compile {relative} (exit {code}).")
