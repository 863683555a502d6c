"""A screen is loading while a progress indicator a person could see is on it (the kinds Android and its
libraries name so); sliders and rating bars are ProgressBars in Java but not loading, nor is a hidden one."""

from __future__ import annotations

import pytest

from app.core.perception.hierarchy import parse_hierarchy
from app.core.perception.loading import loading_indicator


def _screen(*nodes: str) -> str:
    inner = "".join(nodes)
    return ('<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0">'
            '<node index="0" text="" class="android.widget.FrameLayout" package="com.example" '
            f'bounds="[0,0][1080,2400]">{inner}</node></hierarchy>')


def _node(cls: str, bounds: str = "[492,600][588,696]", **extra: str) -> str:
    attributes = "".join(f' {key.replace("_", "-")}="{value}"' for key, value in extra.items())
    return f'<node index="0" text="" class="{cls}" package="com.example" bounds="{bounds}"{attributes}/>'


@pytest.mark.parametrize("cls", ["android.widget.ProgressBar", "androidx.core.widget.ContentLoadingProgressBar",
                                 "com.google.android.material.progressindicator.CircularProgressIndicator",
                                 "com.google.android.material.progressindicator.LinearProgressIndicator"])
def test_the_progress_indicators_of_android_and_its_libraries_count(cls):
    found = loading_indicator(parse_hierarchy(_screen(_node("android.widget.TextView"), _node(cls))))
    assert found is not None and found.class_name == cls


@pytest.mark.parametrize("node", [
    _node("android.widget.SeekBar"),
    _node("android.widget.RatingBar"),
    _node("android.widget.ProgressBar", visible_to_user="false"),
    _node("android.widget.ProgressBar", bounds="[492,600][492,696]"),          # no width: gone
    _node("android.widget.TextView", text="ProgressBar"),
])
def test_sliders_rating_bars_hidden_or_empty_indicators_and_texts_do_not(node):
    assert loading_indicator(parse_hierarchy(_screen(node))) is None


def test_the_virtual_phones_late_list_shows_one_until_its_rows_come():
    from app.virtual_phone.phone import VirtualPhone
    from tests.virtual_phone.conftest import UI

    phone = VirtualPhone(latency="realistic@0.2")
    ui = UI(phone)
    ui.tap(text="Settings")
    phone.motion.wait_for_idle(timeout=2)
    ui.tap(text="Apps")
    ui.tap(text="See all", contains=True)
    assert loading_indicator(parse_hierarchy(phone.dump_hierarchy())) is not None, "the spinner"
    page = phone.apps["com.android.settings"].top
    page.ready_at = 0.0
    phone.changed()
    assert loading_indicator(parse_hierarchy(phone.dump_hierarchy())) is None, "the rows"
