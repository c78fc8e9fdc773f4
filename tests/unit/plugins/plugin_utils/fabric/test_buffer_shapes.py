"""The design computes one buffer budget per switch shape (hardware, links' speeds and cable lengths in port order) and
gives every switch of that shape its own copy: each switch's budget must be exactly what the design computes for that
switch alone, and no two switches may share a dict that one of them could change.
"""

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_intent
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design.lossless import Buffers
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.errors import IntentError, IssueCollector

# Switch models of one NOS each, so that a device override keeps its role's platform.
SONIC_MODELS = ('nvidia-sn5600', 'nvidia-sn4700', 'dell-z9664f', 'dell-z9864f')


@st.composite
def fabrics(draw):
    rails = draw(st.integers(1, 4))
    servers = draw(st.integers(2, 80))
    leaf_model, spine_model = draw(st.sampled_from(SONIC_MODELS)), draw(st.sampled_from(SONIC_MODELS))
    intent = {
        'name': 'shapes',
        'topology': {'rail_optimized': {'servers': servers, 'rails': rails, 'nic_speed_gbps': 400,
                                        'oversubscription': draw(st.sampled_from([1.0, 2.0]))},
                     'platform': {'leaf': 'sonic', 'spine': 'sonic'},
                     'model': {'leaf': leaf_model, 'spine': spine_model}},
        'overlay': {'networks': [{'name': 'rail%d' % rail, 'vlan': 100 + rail, 'subnet': '10.%d.0.0/22' % (100 + rail),
                                  'rails': [rail]} for rail in range(rails)]},
        'lossless': {'pfc': {'priorities': draw(st.sampled_from([[3], [3, 4]]))},
                     'cable_length_m': {'host_leaf': draw(st.sampled_from([3, 5, 30])),
                                        'leaf_spine': draw(st.sampled_from([5, 30, 100, 300]))}},
    }
    # Some devices of another model: shapes that differ from their role's.
    overrides = draw(st.dictionaries(st.sampled_from(['leaf001', 'leaf002', 'leaf003', 'spine001', 'spine002']),
                                     st.sampled_from(SONIC_MODELS), max_size=3))
    if overrides:
        intent['topology']['devices'] = {name: {'model': model} for name, model in overrides.items()}
    return intent


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fabrics())
def test_each_switch_budget_is_its_own_computation(intent):
    try:
        design = design_from_intent(intent)
    except IntentError:
        event('refused')
        return  # an intent this generator made that does not fit (a model, a size): not what this test is about
    event('designed')
    switches = [node for node in design.switches() if node.name in design.buffer_budget]
    assert switches
    seen = set()
    for node in switches:
        alone = Buffers(design.intent, design.lossless, [node], IssueCollector())
        budget = design.buffer_budget[node.name]
        assert budget == alone.buffer_budget[node.name], node.name
        own = [budget] + ([budget['sku']] if budget['sku'] else []) + list((budget['pools'] or {}).values()) + \
            ([budget['pools']] if budget['pools'] else [])
        assert not seen.intersection(map(id, own)), '%s shares a dict with another switch' % node.name
        seen.update(map(id, own))
    # The headroom table: every (model or ASIC, speed, cable length) of the switches, in the order they first appear.
    table = {}
    for node in switches:
        table.update(Buffers(design.intent, design.lossless, [node], IssueCollector()).headroom)
    assert list(design.headroom) == list(table)
    assert design.headroom == table


def test_switches_of_one_shape_over_the_buffer_are_all_counted():
    """Every leaf of a fabric has one shape, and each is over its buffer on 2 km cables: the refusal counts them all
    and names the worst as before (the largest excess, then the last name)."""
    def intent(leaf_spine_m):
        return {'name': 'o', 'topology': {'rail_optimized': {'servers': 128, 'rails': 2, 'nic_speed_gbps': 400,
                                                             'leaf_radix': 64, 'oversubscription': 1.0},
                                          'platform': {'leaf': 'sonic', 'spine': 'sonic'},
                                          'model': {'leaf': 'nvidia-sn5600', 'spine': 'nvidia-sn5600'}},
                'overlay': {'networks': [{'name': 'rail%d' % rail, 'vlan': 100 + rail, 'rails': [rail],
                                          'subnet': '10.%d.0.0/22' % (100 + rail)} for rail in range(2)]},
                'lossless': {'pfc': {'priorities': [3, 4]},
                             'cable_length_m': {'host_leaf': min(leaf_spine_m, 999), 'leaf_spine': leaf_spine_m}}}
    leaves = design_from_intent(intent(3)).device_names('leaf')
    assert len(leaves) > 2
    with pytest.raises(IntentError) as refused:  # the leaves do not fit their buffer on 2 km cables
        design_from_intent(intent(2000))
    report = refused.value.report()
    assert '%d leaf(s) need more lossless headroom than the buffer holds; worst %s needs' % (
        len(leaves), max(leaves)) in report, report
