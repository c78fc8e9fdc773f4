# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Equal lossless views are one object (a fabric's ports run one QoS configuration), and only equal ones are."""

import json
import os

from hypothesis import given, settings, strategies as st

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_model
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state import views
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.sources import gatherer_for

from tests.unit.utils.paths import ROOT

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(-1, 1, allow_nan=False), st.sampled_from('ab'))
KEYS = st.integers(0, 3) | st.sampled_from('xy')
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
                      max_leaves=8)
VIEWS = st.dictionaries(st.sampled_from(views.FIELDS), VALUES, max_size=6).map(lambda fields: views.port_view(**fields))


@settings(max_examples=300, deadline=None)
@given(st.lists(VIEWS, min_size=2, max_size=6))
def test_views_are_shared_only_when_they_are_the_same(made):
    shared = [views.shared_view(view) for view in made]
    for view, kept in zip(made, shared):
        assert kept == view and list(kept) == list(view) and repr(kept) == repr(view)  # 1, 1.0 and True stay apart
    for view, kept in zip(made, shared):
        for other, other_kept in zip(made, shared):
            assert (kept is other_kept) == (repr(view) == repr(other))


def test_equal_views_of_separate_parses_are_one_object():
    """Two spines of one tier read back from their rendered files: equal port views are the same dict, and so are
    equal maps of views that differ elsewhere."""
    design = design_from_file(os.path.join(ROOT, 'tests', 'unit', 'fixtures', 'intents', 'nvue_unnumbered.yml'))
    spines = [name for name, node in design.nodes.items() if node.role == 'spine' and node.platform == 'nvue'][:2]
    states = []
    for name in spines:
        model = design.device(name)
        states.append(gatherer_for(model).design_view(render_model(model)))
    first, second = (list(state['ports'].values()) for state in states)
    assert len({id(view) for view in first + second}) < len(first + second)
    assert len({id(view['dscp_to_tc']) for view in first + second if view['dscp_to_tc']}) == len(
        {repr(view['dscp_to_tc']) for view in first + second if view['dscp_to_tc']})


def test_the_table_starts_again_past_its_limit(monkeypatch):
    monkeypatch.setattr(views, 'SHARED_LIMIT', 10)
    for value in range(40):  # a hostile device: every view distinct
        views.shared_view(views.port_view(mtu=value, pfc=[value]))
    assert len(views._SHARED) <= 10 + 2  # pylint: disable=protected-access


def test_routes_over_one_ecmp_group_share_its_next_hops():
    """A leaf's routes to the other VTEPs over the same uplinks hold one list of next hops, on every platform's
    parser; a route over other hops keeps its own, and nothing read changes."""
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state import iproute2  # pylint: disable=import-outside-toplevel
    ecmp = [{'gateway': '10.0.0.%d' % index, 'dev': 'eth%d' % index} for index in (1, 3)]
    table = [{'dst': '10.254.16.%d' % vtep, 'protocol': 'bgp', 'metric': 20, 'nexthops': [dict(hop) for hop in ecmp]}
             for vtep in range(2, 40)] + [{'dst': '10.254.16.99', 'type': 'blackhole', 'protocol': 'boot'},
                                          {'dst': '10.254.16.98', 'dev': 'eth5', 'gateway': '10.9.9.9'}]
    routes = iproute2.parse_ip_route({'rc': 0, 'stdout': json.dumps(table)})
    assert [route['nexthops'] for route in routes[:38]] == [ecmp] * 38
    assert len({id(route['nexthops']) for route in routes[:38]}) == 1
    assert routes[38]['nexthops'] == [] and routes[39]['nexthops'] == [{'gateway': '10.9.9.9', 'dev': 'eth5'}]
    assert routes[39]['nexthops'] is not routes[0]['nexthops']
    assert views.route_table([{'dst': 'x', 'nexthops': 'not hops'}])[0]['nexthops'] == 'not hops'
