# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ANTA for EOS, for real: the catalog generated from the design is a valid ANTA catalog, and ANTA's own tests run
through its library (anta.runner.main, its documented entry point) on recorded eAPI outputs (a CollectedDevice answers from them), failing where
the outputs depart from the design."""

import copy
import json
import os

import pytest
import yaml

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import anta_catalog
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.gatherer import command_key

from tests.unit.plugins.plugin_utils.fabric.state.captures import FIXTURES, eos_raw, read_recorded


@pytest.fixture(scope='module')
def design():
    return design_from_file(os.path.join(FIXTURES, '..', 'intents', 'eos_small.yml'))


def anta_outputs(ctx, name, fixture=None):
    """What the gatherer stores under `anta`: {command_key: eAPI JSON} for the commands ANTA asks for."""
    return {command_key(command): json.loads(read_recorded('eos', '4.32', fixture or name, command['cmd'].replace(' ', '_') + '.json'))
            for command in anta_catalog.eapi_commands(ctx, ctx.model(name))}


def test_catalog_from_the_design_is_a_valid_anta_catalog(design, tmp_path):
    from anta.catalog import AntaCatalog
    ctx = checks.Context(design)
    data = anta_catalog.fabric_catalog(ctx, ['leaf001', 'spine001'])
    path = tmp_path / 'anta-catalog.yml'
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    catalog = AntaCatalog.parse(str(path))
    names = {(definition.test.__name__, tuple(sorted(definition.inputs.filters.tags))) for definition in catalog.tests}
    assert ('VerifyVxlanVtep', ('leaf001',)) in names and ('VerifyBGPPeerCount', ('spine001',)) in names
    assert not any(name == 'VerifyVxlanVtep' and tags == ('spine001',) for name, tags in names)
    leaf = anta_catalog.device_catalog(ctx, ctx.model('leaf001'))
    families = leaf['anta.tests.routing.bgp'][0]['VerifyBGPPeerCount']['address_families']
    assert [(item['afi'], item['num_peers']) for item in families] == [('ipv4', 2), ('evpn', 2)]
    assert leaf['anta.tests.vxlan'][1] == {'VerifyVxlanVniBinding': {'bindings': {10101: 101, 50001: 'TENANT'}}}
    # tunnels to the leaves sharing the rail VNI and the tenant VRF (leaf003); the rail-1 leaves share neither
    assert leaf['anta.tests.vxlan'][2] == {'VerifyVxlanVtep': {'vteps': ['10.254.16.3']}}
    neighbors = leaf['anta.tests.connectivity'][0]['VerifyLLDPNeighbors']['neighbors']
    assert neighbors == [{'port': 'Ethernet2/1', 'neighbor_device': 'spine001', 'neighbor_port': 'Ethernet1/1'},
                         {'port': 'Ethernet2/5', 'neighbor_device': 'spine002', 'neighbor_port': 'Ethernet1/1'}]


def test_commands_anta_reads_come_from_its_tests(design):
    ctx = checks.Context(design)
    commands = anta_catalog.eapi_commands(ctx, ctx.model('leaf001'))
    assert {'cmd': 'show bgp summary vrf all', 'revision': 1} in commands
    assert {item['cmd'] for item in commands} == {'show bgp summary vrf all', 'show interfaces description',
                                                  'show interfaces', 'show lldp neighbors detail', 'show vxlan vni',
                                                  'show vxlan vtep'}


def test_anta_passes_on_healthy_outputs_through_its_runner(design):
    ctx = checks.Context(design)
    results = anta_catalog.run(anta_catalog.fabric_catalog(ctx, ['leaf001']), {'leaf001': anta_outputs(ctx, 'leaf001')})
    assert [(item['test'], item['result']) for item in results] == [
        ('VerifyBGPPeerCount', 'success'), ('VerifyInterfacesStatus', 'success'), ('VerifyL3MTU', 'success'),
        ('VerifyL2MTU', 'success'), ('VerifyLLDPNeighbors', 'success'), ('VerifyVxlan1Interface', 'success'),
        ('VerifyVxlanVniBinding', 'success'), ('VerifyVxlanVtep', 'success')]


def test_anta_results_beside_our_checks_pass_and_fail(design):
    states = {'leaf001': eos_raw(design.device('leaf001'))}
    ctx = checks.Context(design, states)
    states['leaf001']['anta'] = anta_outputs(ctx, 'leaf001')
    healthy = checks.run(checks.Context(design, copy.deepcopy(states)), devices=['leaf001'], check_ids={'anta'})
    assert len(healthy) == 8 and {item.status for item in healthy} == {checks.PASS}
    assert {item.category for item in healthy} == {'anta'} and healthy[0].source == 'ANTA VerifyBGPPeerCount'
    broken = copy.deepcopy(states)
    outputs = broken['leaf001']['anta']
    outputs[command_key('show interfaces', 1)]['interfaces']['Ethernet2/1']['mtu'] = 1500
    peers = outputs[command_key('show bgp summary vrf all', 1)]['vrfs']['default']['peers']
    peers['10.0.0.2']['peerState'] = 'Active'
    outputs[command_key('show vxlan vni', 1)]['vxlanIntfs']['Vxlan1']['vniBindings']['10999'] = \
        outputs[command_key('show vxlan vni', 1)]['vxlanIntfs']['Vxlan1']['vniBindings'].pop('10101')
    found = {item.subject: item for item in checks.run(checks.Context(design, broken), devices=['leaf001'],
                                                       check_ids={'anta'}) if item.status != checks.PASS}
    assert set(found) == {'VerifyBGPPeerCount', 'VerifyL3MTU', 'VerifyVxlanVniBinding'}
    assert 'Expected: 9100 Actual: 1500' in found['VerifyL3MTU'].seen and 'Ethernet2/1' in found['VerifyL3MTU'].seen
    assert '10101' in found['VerifyVxlanVniBinding'].seen
    assert all(item.status == checks.FAIL for item in found.values())


def test_anta_is_not_applicable_where_the_gatherer_speaks_no_eapi_and_an_error_without_outputs(design):
    lab = design_from_file(os.path.join(FIXTURES, 'captured', 'intent.yml'))
    results = checks.run(checks.Context(lab, {'leaf001': {'bgp_summary': {}}}), devices=['leaf001'], check_ids={'anta'})
    assert [item.status for item in results] == [checks.NOT_APPLICABLE]
    assert results[0].message.startswith('not applicable: ANTA speaks eAPI; the FRR on Linux gatherer')
    results = checks.run(checks.Context(design, {'leaf001': eos_raw(design.device('leaf001'))}), devices=['leaf001'],
                         check_ids={'anta'})
    assert [(item.status, item.seen) for item in results] == [(checks.ERROR, 'not gathered')]


def test_anta_missing_is_a_clear_error(design, monkeypatch):
    monkeypatch.setattr(anta_catalog, 'available', lambda: False)
    states = {'leaf001': dict(eos_raw(design.device('leaf001')), anta={'show version|': {}})}
    results = checks.run(checks.Context(design, states), devices=['leaf001'], check_ids={'anta'})
    assert [(item.status, item.seen) for item in results] == [(checks.ERROR, anta_catalog.MISSING)]
    assert anta_catalog.eapi_commands(checks.Context(design), design.device('leaf001')) == []
