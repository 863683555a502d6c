"""`dump_figures`: the shape of one dump, for the fidelity table (corpus beside virtual phone)."""

from __future__ import annotations

import pytest

from app.virtual_phone.dump_fidelity import dump_figures

from .conftest import UI, new_phone
from .test_dump_format import ANDROID9_ATTRS, ANDROID14_ATTRS


def node(*children: str, naf: bool = False, bounds: str = "[0,0][10,10]", extra: str = "") -> str:
    attrs = (' NAF="true"' if naf else "") + f' index="0" text="" bounds="{bounds}"{extra}'
    return f"<node{attrs}>{''.join(children)}</node>" if children else f"<node{attrs} />"


def test_figures_of_a_small_dump_with_junk_before_it():
    xml = ("WARNING: linker: junk\n<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
           + node(node(node(naf=True), node(bounds="[0,0][0,0]")), node(extra=' hint=""'))
           + node() + "</hierarchy>")
    figures = dump_figures(xml)
    assert (figures.top_level_nodes, figures.node_count, figures.max_depth) == (2, 6, 3)
    assert (figures.naf_count, figures.naf_first, figures.zero_size_nodes) == (1, True, 1)
    assert figures.attribute_order == ("index", "text", "bounds") and figures.attribute_orders == 2


def test_naf_anywhere_but_first_is_reported():
    xml = '<hierarchy><node index="0" NAF="true" bounds="[0,0][1,1]" /></hierarchy>'
    assert dump_figures(xml.encode()).naf_first is False


@pytest.mark.parametrize("bad",
                         ["", "ERROR: could not get idle state.", "<hierarchy><node>", "<?xml version='1.0' ?><foo/>"])
def test_what_is_not_a_dump_is_a_value_error(bad):
    with pytest.raises(ValueError):
        dump_figures(bad)


@pytest.mark.parametrize(("profile", "attributes"), [("android14", ANDROID14_ATTRS), ("android9", ANDROID9_ATTRS)])
def test_figures_of_the_virtual_phones_dumps(profile, attributes):
    ui = UI(new_phone(profile=profile))
    ui.tap(text="Calculator")
    figures = dump_figures(ui.phone.dump_hierarchy())
    assert figures.top_level_nodes == 1 and figures.attribute_order == tuple(attributes)
    assert figures.node_count == len(ui.parse(ui.phone.dump_hierarchy()).findall(".//node"))
    assert figures.naf_count == 1 and figures.naf_first and figures.max_depth >= 8
    assert figures.zero_size_nodes == (1 if profile == "android9" else 0)      # the navigation bar's background
