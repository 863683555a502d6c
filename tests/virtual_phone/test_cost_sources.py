"""Every realistic cost has a public source, its range sits where the sources put it, and the docs cite them."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.virtual_phone.cost_sources import (
    COST_SOURCES,
    FIRST_NEW_FRAME,
    IDLE_WAIT,
    STILL_PICTURE_REPEAT,
    TRANSITION,
    source_names,
)
from app.virtual_phone.latency import (
    DUMP,
    IDLE_QUIET,
    IDLE_TIMEOUT,
    REALISTIC,
    REALISTIC_ANIMATION,
    REALISTIC_COSTS,
    SCREENCAP_RAW,
    SERVER_DUMP,
)
from app.virtual_phone.motion import FIRST_NEW_FRAME_SECONDS
from app.virtual_phone.scrcpy_server import REPEAT_AFTER_SECONDS, REPEATS_OF_A_STILL_PICTURE

DOC = Path(__file__).resolve().parents[2] / "docs" / "virtual-phone.md"


def _middle(low_high: tuple[float, float]) -> float:
    return (low_high[0] + low_high[1]) / 2


@pytest.mark.parametrize("kind", sorted(REALISTIC_COSTS))
def test_each_realistic_cost_has_a_row_of_sources_and_sits_inside_them(kind):
    source = COST_SOURCES[kind]
    assert source.how_set
    if source.published is None:            # said plainly: no public figure was found
        assert not source.measurements and "no public measurement" in source.how_set
        return
    assert source.measurements and all(m.url.startswith("https://") and m.measured for m in source.measurements)
    low, high = source.published
    assert low <= _middle(REALISTIC_COSTS[kind]) + source.own_work <= high, kind


def test_ranges_are_centred_on_the_sources_not_at_their_low_end():
    for kind in (DUMP, SCREENCAP_RAW):
        charged = _middle(REALISTIC_COSTS[kind]) + COST_SOURCES[kind].own_work
        assert charged == pytest.approx(_middle(COST_SOURCES[kind].published), rel=0.05)
    assert _middle(REALISTIC_ANIMATION) == pytest.approx(_middle(COST_SOURCES[TRANSITION].published))
    assert (IDLE_QUIET, IDLE_TIMEOUT) == COST_SOURCES[IDLE_WAIT].published
    assert (FIRST_NEW_FRAME_SECONDS, FIRST_NEW_FRAME_SECONDS) == COST_SOURCES[FIRST_NEW_FRAME].published
    assert (REPEAT_AFTER_SECONDS, REPEAT_AFTER_SECONDS) == COST_SOURCES[STILL_PICTURE_REPEAT].published
    assert f"kRepeatLastFrameCount = {REPEATS_OF_A_STILL_PICTURE}:" in str(COST_SOURCES[STILL_PICTURE_REPEAT])
    assert REALISTIC.animation == REALISTIC_ANIMATION and REALISTIC.costs is REALISTIC_COSTS


def test_the_server_dump_is_charged_what_its_sources_say_of_a_simple_screen():
    assert "simple screen" in COST_SOURCES[SERVER_DUMP].how_set
    assert REALISTIC_COSTS[SERVER_DUMP][1] < REALISTIC_COSTS[DUMP][0]
    assert "hmdriver2 #10" in source_names(SERVER_DUMP) and source_names("no such cost") == "-"


def test_the_docs_cite_every_source():
    doc = DOC.read_text(encoding="utf-8")
    for source in COST_SOURCES.values():
        for measurement in source.measurements:
            assert measurement.url in doc, (source.kind, measurement.source)
