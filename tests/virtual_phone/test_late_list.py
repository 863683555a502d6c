"""Settings › Apps › See all apps arrives late, as Android's ApplicationsState list does: a spinner, then the rows
(more than a screen holds) without any input, a new picture for the stream when they come. At once on the quick
profile."""

from __future__ import annotations

import time

from app.virtual_phone.apps.settings import AppsPage
from app.virtual_phone.apps.settings_apps import AllAppsPage
from app.virtual_phone.phone import VirtualPhone
from tests.virtual_phone.conftest import find_node, find_nodes

SETTINGS = "com.android.settings"


def all_apps(phone: VirtualPhone) -> AllAppsPage:
    phone.launch(SETTINGS)
    settings = phone.apps[SETTINGS]
    settings.push(AppsPage(settings))
    phone.changed()
    see_all = find_nodes(phone, text="See all", contains=True)
    assert see_all, "the Apps page offers every app"
    phone.tap(*centre(see_all[0]))
    page = settings.top
    assert isinstance(page, AllAppsPage)
    return page


def centre(node) -> tuple[int, int]:
    from tests.virtual_phone.conftest import center_of

    return center_of(node)


def test_on_the_quick_phone_every_app_is_listed_at_once_below_the_fold():
    phone = VirtualPhone()
    page = all_apps(phone)
    assert not page.loading and not phone.animating_without_end()
    assert find_node(phone, text="Android System") is not None and find_node(phone, text="Shell") is None
    assert page.scroll.max_offset > phone.display_size()[1] // 2, "far more rows than the screen holds"
    phone.swipe(540, 2000, 540, 300, 100)
    assert find_node(phone, text="Shell") is not None


def test_on_the_realistic_phone_a_spinner_comes_first_then_the_rows_by_themselves():
    phone = VirtualPhone(latency="realistic")
    page = all_apps(phone)
    assert page.loading and phone.animating_without_end()
    assert find_node(phone, cls="android.widget.ProgressBar") is not None
    assert find_node(phone, text="Android System") is None
    loading = phone.screenshot()
    deadline = time.monotonic() + 3
    while page.loading and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not page.loading, "the rows came within 1.2 s"
    loaded, dump = phone.screenshot(), phone.dump_hierarchy()
    assert loaded is not loading, "their arrival is a new picture, with no input"
    assert time.monotonic() < page.icons_at, "the icons come after their rows"
    while time.monotonic() < page.icons_at + 0.05:
        time.sleep(0.02)
    with_icons = phone.screenshot()
    assert with_icons is not loaded, "the icons popping in are a new picture, with no input"
    assert phone.dump_hierarchy() == dump, "the same ImageViews, now with their pictures"
    time.sleep(0.1)
    assert phone.screenshot() is with_icons, "once the icons are drawn the screen stands still"
    assert not phone.animating_without_end()
    assert find_node(phone, cls="android.widget.ProgressBar") is None
    assert find_node(phone, text="Android System") is not None
