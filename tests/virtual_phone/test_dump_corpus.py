"""The virtual phone's dumps beside real phones' (../shared/corpus/ui-dumps): one top-level node, the
attribute set and order of each Android generation, NAF, escaping, drawing order and zero-size nodes.

"Plain" corpus dumps are those `uiautomator dump` wrote; the rest come from other tools
(uiautomator2's all-window dumps with display-id/visible-to-user, a vendor's xpos) and are left out
of the comparisons of format, not of the NAF rule.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest
from lxml import etree

from app.virtual_phone.dump_fidelity import dump_figures
from app.virtual_phone.hierarchy_xml import NAF_EXCLUDED_CLASSES
from app.virtual_phone.views import COMPOSE_VIEW, WEBVIEW

from .conftest import UI, new_phone
from .test_dump_format import ANDROID9_ATTRS, ANDROID14_ATTRS

SCREENS = {
    "home": [],
    "settings": [{"text": "Settings"}],
    "wifi": [{"text": "Settings"}, {"text": "Network & internet"}],
    "contacts": [{"text": "Contacts"}],
    "conversation": [{"text": "Messages"}, {"text": "Mom"}],
    "note_editor": [{"text": "Notes"}, {"desc": "New note"}],
    "delete_dialog": [{"text": "Notes"}, {"text": "Shopping list"}, {"desc": "Delete"}],
    "calculator": [{"text": "Calculator"}],
    "dialer": [{"text": "Phone"}],
}


@functools.cache
def virtual_dumps(profile: str) -> dict[str, str]:
    """What `uiautomator dump` writes on each screen above, on a phone of this profile."""
    dumps = {}
    for name, taps in SCREENS.items():
        ui = UI(new_phone(profile=profile))
        for query in taps:
            ui.tap(**query)
        dumps[name] = ui.phone.dump_hierarchy()
    return dumps


@pytest.fixture(scope="module")
def corpus(corpus_dir: Path) -> dict[str, bytes]:
    return {p.relative_to(corpus_dir).as_posix(): p.read_bytes() for p in sorted(corpus_dir.glob("*/*.xml"))}


def parse(data: bytes | str):
    data = data.encode("utf-8") if isinstance(data, str) else data
    return etree.fromstring(data[max(0, data.find(b"<?xml")):])


def orders(root) -> set[tuple[str, ...]]:
    return {tuple(k for k in node.attrib if k != "NAF") for node in root.iter("node")}


@pytest.fixture(scope="module")
def plain_corpus(corpus) -> dict[str, bytes]:
    plain = {name: data for name, data in corpus.items()
             if orders(parse(data)) in ({tuple(ANDROID9_ATTRS)}, {tuple(ANDROID14_ATTRS)})}
    assert len(plain) >= 40, "most corpus dumps are plain uiautomator dumps"
    return plain


@pytest.mark.parametrize("profile", ["android14", "android9"])
def test_one_top_level_node_as_in_every_plain_corpus_dump(plain_corpus, profile):
    assert {dump_figures(data).top_level_nodes for data in plain_corpus.values()} == {1}
    assert {name: dump_figures(xml).top_level_nodes for name, xml in virtual_dumps(profile).items()} == {
        name: 1 for name in SCREENS}


@pytest.mark.parametrize(("profile", "attributes"), [("android14", ANDROID14_ATTRS), ("android9", ANDROID9_ATTRS)])
def test_attribute_order_matches_the_corpus_dumps_of_that_generation(plain_corpus, profile, attributes):
    corpus_orders = {dump_figures(data).attribute_order for data in plain_corpus.values()}
    assert corpus_orders == {tuple(ANDROID9_ATTRS), tuple(ANDROID14_ATTRS)}   # the two generations the phone copies
    same_generation = [name for name, data in plain_corpus.items()
                       if dump_figures(data).attribute_order == tuple(attributes)]
    assert len(same_generation) >= 10
    for xml in virtual_dumps(profile).values():
        figures = dump_figures(xml)
        assert (figures.attribute_order, figures.attribute_orders) == (tuple(attributes), 1)


def _labelled_below(node) -> bool:
    return any(child.get("text") or child.get("content-desc") or _labelled_below(child) for child in node)


def _naf_candidate(node) -> bool:
    return (node.get("clickable") == "true" and node.get("enabled") == "true" and not node.get("text")
            and not node.get("content-desc") and not _labelled_below(node)
            and not node.get("class", "").endswith(NAF_EXCLUDED_CLASSES))


def test_naf_placement_follows_the_rule_real_dumps_follow(corpus):
    real_nafs = 0
    for data in corpus.values():
        assert dump_figures(data).naf_first
        for node in parse(data).iter("node"):
            if node.get("NAF"):
                real_nafs += 1
                assert node.get("NAF") == "true" and _naf_candidate(node)
    assert real_nafs > 50
    virtual_nafs = 0
    for profile in ("android14", "android9"):
        for xml in virtual_dumps(profile).values():
            assert dump_figures(xml).naf_first
            for node in parse(xml).iter("node"):
                assert bool(node.get("NAF")) == _naf_candidate(node)    # the phone sees every child: exact
                virtual_nafs += bool(node.get("NAF"))
    assert virtual_nafs >= 4           # the calculator's history button and the Wi‑Fi switch, on both phones


def test_escaping_as_in_the_corpus(plain_corpus):
    """Real dumps write characters beyond the BMP as &#N; and quote a value holding " with '."""
    astral_refs = re.compile(rb"&#(\d{5,7});")
    corpus_refs = [int(m) for data in plain_corpus.values() for m in astral_refs.findall(data)]
    assert corpus_refs and all(n > 0xFFFF for n in corpus_refs)
    assert not any(re.search("[\U00010000-\U0010FFFF]", data.decode("utf-8")) for data in plain_corpus.values())
    single_quoted = [m for data in plain_corpus.values()
                     for m in re.findall(rb" [a-z-]+='([^']*)'", data[data.index(b"<hierarchy"):])]
    assert single_quoted and all(b'"' in value for value in single_quoted)

    ui = UI(new_phone())
    ui.tap(text="Notes")
    ui.tap(desc="New note")
    ui.phone.input_text('Folder \U0001F4C1 "docs"')
    xml = ui.phone.dump_hierarchy()
    assert "text='Folder &#128193; \"docs\"'" in xml
    assert not re.search("[\U00010000-\U0010FFFF]", xml)
    single_quoted = re.findall(r" [a-z-]+='([^']*)'", xml[xml.index("<hierarchy"):])
    assert single_quoted and all('"' in value for value in single_quoted)


def _decor_orders(root) -> list[tuple[str, str]]:
    """(class, drawing-order) down the first three levels of an app window's decor."""
    node, out = root[0], []
    for _ in range(3):
        out.append((node.get("class"), node.get("drawing-order")))
        if not len(node):
            break
        node = node[0]
    return out


def test_drawing_order_of_the_decor_as_in_the_corpus(plain_corpus):
    decor = [("android.widget.FrameLayout", "0"), ("android.widget.LinearLayout", "1"),
             ("android.widget.FrameLayout", "2")]
    real = [name for name, data in plain_corpus.items()
            if "drawing-order" in dump_figures(data).attribute_order and
            [c for c, _ in _decor_orders(parse(data))] == [c for c, _ in decor]]
    assert len(real) >= 8
    assert all(_decor_orders(parse(plain_corpus[name])) == decor for name in real)
    for name, xml in virtual_dumps("android14").items():
        if name != "delete_dialog":                        # a dialog's window has no LinearLayout
            assert _decor_orders(parse(xml)) == decor, name


def _provided(root, host_class: str) -> list:
    """The nodes a provider reports: those below a ComposeView, or a WebView's nodes with all below them."""
    found = {}
    for host in root.iter("node"):
        if host.get("class") == host_class:
            found.update((id(n), n) for n in host.iter("node") if n is not host or host_class == WEBVIEW)
    return [n for n in found.values() if n.get("drawing-order") is not None]


def test_provider_nodes_have_the_drawing_order_their_provider_reports_as_in_the_corpus(plain_corpus):
    """Chromium reports 0 for every WebView node; Compose (recent versions) the node's index."""
    real_web = [n for data in plain_corpus.values() for n in _provided(parse(data), WEBVIEW)]
    assert len(real_web) > 20 and {n.get("drawing-order") for n in real_web} == {"0"}
    ui = UI(new_phone())
    ui.phone.launch("com.android.settings", "com.android.settings.Settings$SupportDashboardActivity")
    web = _provided(parse(ui.phone.dump_hierarchy()), WEBVIEW)
    assert len(web) > 15 and {n.get("drawing-order") for n in web} == {"0"}

    real_compose = [n for data in plain_corpus.values() for n in _provided(parse(data), COMPOSE_VIEW)]
    matching = sum(n.get("drawing-order") == n.get("index") for n in real_compose)
    assert len(real_compose) > 100 and matching > len(real_compose) * 2 // 3
    compose = _provided(parse(virtual_dumps("android14")["calculator"]), COMPOSE_VIEW)
    assert len(compose) > 40 and all(n.get("drawing-order") == n.get("index") for n in compose)
    assert {n.get("drawing-order") for n in compose} > {"0", "1", "2"}


def test_zero_size_nodes_only_in_the_older_generation_as_in_the_corpus(plain_corpus):
    """Older dumpers clip to the display without the navigation bar, so the app's bar background is
    [0,0][0,0]; the dumper that writes drawing-order clips to the whole display and has none."""
    older = [d for d in plain_corpus.values() if dump_figures(d).attribute_order == tuple(ANDROID9_ATTRS)]
    recent = [d for d in plain_corpus.values() if dump_figures(d).attribute_order == tuple(ANDROID14_ATTRS)]
    backgrounds = [n.get("bounds") for d in older for n in parse(d).iter("node")
                   if n.get("resource-id") == "android:id/navigationBarBackground"]
    assert len(backgrounds) >= 10 and backgrounds.count("[0,0][0,0]") >= len(backgrounds) * 3 // 4
    assert sum(dump_figures(d).zero_size_nodes for d in older) >= 10
    assert sum(dump_figures(d).zero_size_nodes for d in recent) == 0
    for name, xml in virtual_dumps("android9").items():
        nodes = parse(xml).findall(".//node[@resource-id='android:id/navigationBarBackground']")
        assert [n.get("bounds") for n in nodes] == (["[0,0][0,0]"] if name not in ("home", "delete_dialog") else [])
    assert sum(dump_figures(xml).zero_size_nodes for xml in virtual_dumps("android9").values()) >= 5
    assert sum(dump_figures(xml).zero_size_nodes for xml in virtual_dumps("android14").values()) == 0


def test_node_counts_and_depths_within_what_real_screens_have(plain_corpus):
    real = [dump_figures(data) for data in plain_corpus.values()]
    counts, depths = sorted(f.node_count for f in real), sorted(f.max_depth for f in real)
    for xml in virtual_dumps("android14").values():
        figures = dump_figures(xml)
        assert counts[0] <= figures.node_count <= counts[-1]
        assert depths[0] <= figures.max_depth <= depths[-1]
