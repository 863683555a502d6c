"""The inspector's XPath search: what Copy XPath writes finds its own node again (real dumps and the
virtual phone's screens), a bad XPath is a sentence, and a hostile one is refused rather than run."""

from __future__ import annotations

import pytest

from app.core.perception.hierarchy import parse_hierarchy, screen_size_from_hierarchy, select_controls
from app.core.perception.locator_formats import copy_formats, screen_nodes
from app.core.perception.xpath_search import MAX_RESULTS, XPathScreen, find_by_xpath, looks_like_xpath, refusal
from app.virtual_phone.hostile_dumps import FLOOD_NODES, NODE_FLOOD, hostile_dump
from app.virtual_phone.phone import VirtualPhone

HOSTILE = [
    "//*[count(//*[count(//*[count(//*)])])]",      # n⁴
    "//node[following::node[preceding::node]]",     # n³
    "//*[.//*[.//*[.//*[.//*[.//*]]]]]",
    "(" * 20 + "//*" + ")" * 20,
    "//*[@text=" + "'a' or @text=" * 80 + "'b']",  # too long
]


@pytest.fixture(scope="module")
def flooded():
    """The virtual phone's home screen with a hostile app's 20,000 extra nodes."""
    return XPathScreen(parse_hierarchy(hostile_dump(VirtualPhone().dump_hierarchy(), NODE_FLOOD)))


def virtual_screens():
    phone = VirtualPhone()
    packages = [None, *sorted(p for p in phone.installed_packages() if phone.app_label(p))]
    for package in packages:
        screen_phone = VirtualPhone()
        if package and not screen_phone.launch(package):
            continue
        yield package or "launcher", screen_phone.dump_hierarchy()


def round_trip_failures(xml) -> tuple[int, list[str]]:
    """Every control's Copy XPath and dump locator, and every node's index path, searched again."""
    hierarchy = parse_hierarchy(xml)
    controls = select_controls(hierarchy, screen_size_from_hierarchy(hierarchy))
    screen, nodes = XPathScreen(hierarchy), screen_nodes(controls, hierarchy)
    failures, checked = [], 0
    for control in controls:
        for xpath in {copy_formats(control, controls, hierarchy, nodes)["xpath"], control.locator}:
            found = screen.find(xpath)
            checked += 1
            if found.paths != (control.node_path,):
                failures.append(f"#{control.id} {xpath!r} found {found.paths[:3]} {found.error}")
    for node in hierarchy.iter_nodes():
        index_path = "/hierarchy" + "".join(f"/node[{i + 1}]" for i in node.path)
        checked += 1
        if screen.find(index_path).paths != (node.path,):
            failures.append(f"{index_path} did not find its node")
    return checked, failures


def test_copy_xpath_finds_its_own_node_on_every_real_dump(corpus_dir):
    dumps = sorted(corpus_dir.rglob("*.xml"))
    assert len(dumps) >= 50
    checked = 0
    for dump in dumps:
        count, failures = round_trip_failures(dump.read_bytes())
        assert not failures, f"{dump.relative_to(corpus_dir)}: {failures[:5]}"
        checked += count
    assert checked > 3000


def test_copy_xpath_finds_its_own_node_on_every_virtual_phone_screen():
    screens = list(virtual_screens())
    assert len(screens) >= 5
    for name, xml in screens:
        count, failures = round_trip_failures(xml)
        assert count and not failures, f"{name}: {failures[:5]}"


def test_a_screen_is_searched_by_attribute_position_and_attribute_results():
    hierarchy = parse_hierarchy(VirtualPhone().dump_hierarchy())
    screen = XPathScreen(hierarchy)
    settings = screen.find('//*[@text="Settings"]')
    assert settings.total == 1 and not settings.error
    (path,) = settings.paths
    assert screen.find('//*[@text="Settings"]/@text').paths == (path,)        # an attribute: its node
    clickable = screen.find('//*[@clickable="true"]')
    assert clickable.total >= 5 and list(clickable.paths) == sorted(clickable.paths)   # document order
    assert screen.find('(//*[@clickable="true"])[2]').paths == (clickable.paths[1],)
    assert screen.find('//*[@text="No such thing"]').paths == ()


@pytest.mark.parametrize("expression, words", [
    ('//*[@text="OK"', "Not a valid XPath"),
    ("//*[", "Not a valid XPath"),
    ("//foo:bar", "cannot be evaluated"),
    ("//*[nosuchfunction(@text)]", "cannot be evaluated"),
    ("(1 + 2)", "gives 3 (a number), not nodes"),
    ('("hello")', "gives 'hello' (a text)"),
    ("/hierarchy", "only the <hierarchy> root"),
])
def test_a_bad_xpath_is_a_sentence_not_an_exception(expression, words):
    found = find_by_xpath(parse_hierarchy(VirtualPhone().dump_hierarchy()), expression)
    assert words in found.error and found.paths == () and found.total == 0


@pytest.mark.parametrize("expression", HOSTILE)
def test_a_hostile_xpath_is_refused_before_it_runs(expression, flooded):
    found = flooded.find(expression)
    assert found.error and found.paths == ()
    assert "XPath" in found.error


def test_the_copy_forms_stay_allowed_on_a_big_screen_and_whole_tree_conditions_only_on_small_ones():
    anchored = '//*[@resource-id="com.example:id/row"][.//*[@text="Alex Morgan"]]'
    assert refusal(anchored, 20_000, 40, 500) == ""
    assert refusal('(//*[@class="android.widget.TextView"])[3]', 20_000, 40, 500) == ""
    assert refusal("//*[count(//*) > 3]", 300, 20, 20) == ""
    assert "too many to search" in refusal("//*[count(//*) > 3]", 20_000, 40, 500)


def test_matches_are_capped_and_counted(flooded):
    found = flooded.find("//node")
    assert found.total > FLOOD_NODES and len(found.paths) == MAX_RESULTS and found.cut


def test_what_counts_as_an_xpath_in_the_search_box():
    assert looks_like_xpath('//*[@text="OK"]') and looks_like_xpath("  (//node)[2]") and looks_like_xpath("/hierarchy")
    assert not looks_like_xpath("Settings") and not looks_like_xpath("id:button") and not looks_like_xpath("#12")
