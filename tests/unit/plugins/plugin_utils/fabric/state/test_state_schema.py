# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The neutral state is typed (state/schema.py) and checked at the seam: every gatherer's outputs, read from
recorded device outputs, have every field of their key's type; a parser that leaves one out fails in Gatherer.parse
naming the key, the field and the gatherer, not in a check (a stub NOS's parser without admin_up once crashed
checks/fabric.py with KeyError: 'admin_up')."""

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms import platform_names
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state import StateError, schema
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.gatherer import Gatherer, Source
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.shell import SHELL
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.sources import gatherer_for
from tests.unit.plugins.plugin_utils.fabric.state.recorded import recorded

NEUTRAL = set(schema.STATE)


@pytest.mark.parametrize('platform', platform_names() + ['host'])
def test_every_gatherer_gives_the_typed_neutral_state(platform):
    read = set()
    for model, raw in recorded(platform):
        gatherer = gatherer_for(model)
        for key, output in raw.items():
            value = gatherer.parse(key, output)  # raises StateError on a value that is not of the key's type
            assert schema.problems(key, value) == [], (model['name'], key)
            read.add(key.split(':', 1)[0])
    provided = {key for key in gatherer.sources if key in NEUTRAL}
    assert provided <= read, '%s: no recorded output for %s' % (platform, sorted(provided - read))


def interfaces_without(*fields):
    interface = {'ifname': 'eth1', 'mtu': 9100, 'operstate': 'UP', 'admin_up': True, 'lower_up': True, 'addresses': []}
    return lambda output: {'eth1': {key: value for key, value in interface.items() if key not in fields}}


def test_a_parser_that_leaves_out_fields_fails_at_the_seam():
    stub = Gatherer('stub', 'Stub NOS', [Source('interfaces', ('ip', '-j', 'addr'), interfaces_without('admin_up', 'lower_up'))],
                    reader=SHELL)
    with pytest.raises(StateError, match=r"Stub NOS gatherer .*interfaces\['eth1'\] has no admin_up, lower_up \(Interface\)"):
        stub.parse('interfaces', '[]')
    complete = Gatherer('stub', 'Stub NOS', [Source('interfaces', ('ip',), interfaces_without())], reader=SHELL)
    assert complete.parse('interfaces', '[]')['eth1']['admin_up'] is True


@pytest.mark.parametrize('key,value,words', [
    ('bgp_summary', [{'peer': '10.0.0.1'}], 'has no vrf, afi'),
    ('bgp_summary', {'10.0.0.1': {}}, 'expected a list'),
    ('lossless', {'ports': {'Ethernet0': {'mtu': 9100}}, 'source': 'x', 'issues': []}, "ports['Ethernet0'] has no"),
    ('evpn_vni', {10100: {'vni': '10100', 'type': 'L2', 'vxlan_if': 'vxlan10100', 'vtep_ip': None,
                          'remote_vteps': []}}, "vni is '10100', expected int"),
    ('interfaces', {'eth1': {'ifname': 'eth1', 'mtu': 9100, 'operstate': 'UP', 'admin_up': 'yes', 'lower_up': True,
                             'addresses': []}}, 'admin_up is'),
    ('jumbo:eth1:10.100.0.12', {'destination': '10.100.0.12'}, 'has no payload'),
])
def test_values_of_the_wrong_shape_are_named(key, value, words):
    found = schema.problems(key, value)
    assert found and words in ' '.join(found)


def test_keys_a_gatherer_reads_for_itself_have_no_type():
    assert schema.type_of('anta') is None and schema.problems('anta', {'show version|': {}}) == []
    assert schema.type_of('counters.2') is None, 'the second reading is checked as counters by Gatherer.parse'
