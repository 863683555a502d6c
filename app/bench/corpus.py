"""Real uiautomator dumps from real phones (../shared/corpus/ui-dumps), when they are beside the checkout.

The guide's budgets are for a screen with ~300 nodes; the virtual phone's densest screens have
about a third of that, so the figures named for a ~300-node screen use the corpus dump closest
to 300 nodes and say which it was. Without the corpus they are not measured and say why
(`NO_DENSE_SCREEN`); the phone's own screen has rows of its own.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

DENSE_SCREEN_NODES = 300


def corpus_dir() -> Path | None:
    root = Path(os.environ.get("AGENTDESK_SHARED", Path(__file__).resolve().parents[2].parent / "shared"))
    folder = root / "corpus" / "ui-dumps"
    return folder if folder.is_dir() else None


def corpus_dumps() -> list[Path]:
    folder = corpus_dir()
    return sorted(folder.rglob("*.xml")) if folder is not None else []


def node_count(xml: str | bytes) -> int:
    if isinstance(xml, bytes):
        return xml.count(b"<node ")
    return xml.count("<node ")


@dataclass(frozen=True)
class DenseScreen:
    """The dump a density-dependent figure is measured on, and where it came from."""

    xml: str
    source: str          # e.g. "corpus dump kram1k__android_avito_parsing/search_hierarchy.xml"
    nodes: int

    def describe(self) -> str:
        return f"{self.source} ({self.nodes} nodes)"


def dense_corpus_screen() -> DenseScreen | None:
    """The corpus dump closest to ~300 nodes, or None without the corpus."""
    folder = corpus_dir()
    dumps = corpus_dumps()
    if folder is None or not dumps:
        return None
    best = min(dumps, key=lambda p: abs(node_count(p.read_bytes()) - DENSE_SCREEN_NODES))
    xml = best.read_bytes().decode("utf-8", "replace")
    return DenseScreen(xml, f"corpus dump {best.relative_to(folder)}", node_count(xml))


NO_DENSE_SCREEN = ("not measured: no ~300-node screen here (real phones' dumps are in ../shared/corpus/ui-dumps, "
                   "not beside the project; set AGENTDESK_SHARED)")
"""What a row named for the ~300-node screen says where the corpus is missing, instead of measuring another."""
