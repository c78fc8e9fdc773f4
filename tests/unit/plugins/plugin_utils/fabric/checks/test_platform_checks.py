# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The same checks on EOS and NVUE state: a healthy leaf and spine pass every fabric and lossless check that their
own state decides, and each fault is named on the device and port where it is (no check names a platform)."""

import copy
import os

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file

from tests.unit.plugins.plugin_utils.fabric.state.captures import FIXTURES, eos_raw, nvue_raw

CHECKED = ('leaf001', 'spine001')
# checks that need the GPU servers' state (not in these fixtures) and the Linux-kernel VXLAN checks of FRR switches
SKIPPED = {'host_switch_dscp', 'host_switch_pfc', 'host_switch_cnp', 'host_switch_ecn', 'host_switch_mtu',
           'reachability', 'jumbo_frames', 'vxlan_device', 'vtep_address'}


def intent(name):
    return design_from_file(os.path.join(FIXTURES, '..', 'intents', name))


@pytest.fixture(scope='module')
def eos_design():
    return intent('eos_small.yml')


@pytest.fixture(scope='module')
def nvue_design():
    return intent('nvue_small.yml')


def eos_states(design):
    states = {name: eos_raw(design.device(name)) for name in ('leaf001', 'leaf003', 'spine001')}
    states['spine002'] = eos_raw(design.device('spine002'), device='spine001')  # same ports as spine001
    return states


def nvue_states(design):
    states = {name: nvue_raw(design.device(name)) for name in ('leaf001', 'leaf003', 'spine001')}
    states['spine002'] = nvue_raw(design.device('spine002'), device='spine001')
    return states


def run(design, states, devices=CHECKED):
    ctx = checks.Context(design, states, {'lossless_phases': ('deployed',)})
    ids = set(checks.REGISTRY) - SKIPPED
    return checks.run(ctx, devices=list(devices), check_ids=ids, categories=('fabric', 'lossless'))


def bad(results):
    return {(item.device, item.check, item.subject): item for item in results if item.status != checks.PASS}


@pytest.mark.parametrize('platform', ['eos', 'nvue'])
def test_healthy_leaf_and_spine_pass(platform, eos_design, nvue_design):
    design, states = (eos_design, eos_states(eos_design)) if platform == 'eos' else (nvue_design, nvue_states(nvue_design))
    results = run(design, states)
    assert bad(results) == {}
    found = {item.check for item in results}
    assert {'bgp_session', 'evpn_vni', 'evpn_route_target', 'evpn_vtep', 'lldp_neighbor', 'interface_state',
            'interface_mtu', 'interface_address', 'link_mtu', 'link_lossless', 'lossless_pfc', 'lossless_watchdog',
            'lossless_watchdog_state', 'lossless_ecn', 'lossless_dscp_map', 'lossless_buffers', 'vtep_route'} <= found
    sessions = [item for item in results if item.check == 'bgp_session' and item.device == 'leaf001']
    assert len(sessions) == 2 and all('Established in ipv4Unicast, l2VpnEvpn' in item.expected for item in sessions)
    # results name the platform's own commands
    source = [item.source for item in sessions][0]
    assert source == ('show bgp summary vrf all' if platform == 'eos' else 'nv show vrf default router bgp neighbor -o json')


def test_eos_wrong_vni_on_one_leaf_is_named(eos_design):
    states = eos_states(eos_design)
    for key in ('evpn_vni', 'bgp_evpn_vni'):
        for output in states['leaf001'][key]:
            bindings = (output.get('vxlanIntfs') or {}).get('Vxlan1', {}).get('vniBindings')
            if bindings:
                bindings['10999'] = bindings.pop('10101')
    found = bad(run(eos_design, states))
    vni = found[('leaf001', 'evpn_vni', 'VNI 10101')]
    assert vni.seen == 'not on the VXLAN data plane (VNIs there: 10999, 50001), not in BGP EVPN'
    assert {key[0] for key in found} == {'leaf001'}


def test_eos_mtu_mismatch_on_one_end_of_one_fabric_link(eos_design):
    states = eos_states(eos_design)
    states['spine001'] = copy.deepcopy(states['spine001'])
    for key in ('interfaces', 'lossless'):
        for output in states['spine001'][key]:
            if 'interfaces' in output:
                output['interfaces']['Ethernet1/1']['mtu'] = 1500
    found = bad(run(eos_design, states))
    link = found[('leaf001', 'link_mtu', 'Ethernet2/1 <-> spine001 Ethernet1/1')]
    assert link.seen == 'leaf001 Ethernet2/1 MTU 9100, spine001 Ethernet1/1 MTU 1500'
    assert link.message == 'look at spine001 Ethernet1/1 (differs from the design)'
    assert found[('spine001', 'interface_mtu', 'Ethernet1/1')].seen == 'MTU 1500'
    assert ('leaf001', 'interface_mtu', 'Ethernet2/1') not in found


def test_eos_pfc_off_on_the_spine_end_fails_the_link_and_the_port(eos_design):
    states = eos_states(eos_design)
    config = states['spine001']['lossless'][0]
    config['cmds']['interface Ethernet1/1']['cmds']['no priority-flow-control'] = None
    found = bad(run(eos_design, states))
    link = found[('leaf001', 'link_lossless', 'Ethernet2/1 <-> spine001 Ethernet1/1 [deployed]')]
    assert 'PFC: leaf001 Ethernet2/1 {3}, spine001 Ethernet1/1 {} (look at spine001 Ethernet1/1)' in link.seen
    assert found[('spine001', 'lossless_pfc', 'Ethernet1/1 [deployed]')].seen == 'PFC on {}'


def test_eos_trust_cos_on_a_port_fails_the_dscp_rule(eos_design):
    states = eos_states(eos_design)
    states['leaf001']['lossless'][0]['cmds']['interface Ethernet2/1']['cmds']['qos trust cos'] = None
    found = bad(run(eos_design, states))
    assert found[('leaf001', 'lossless_dscp_map', 'Ethernet2/1 [deployed]')].seen.startswith('trust cos, DSCP 26 -> TC 3')


def test_nvue_wrong_vni_and_bgp_down(nvue_design):
    states = nvue_states(nvue_design)
    for output in (states['leaf001']['evpn_vni'], states['leaf001']['bgp_evpn_vni'][1]):  # both read nv show evpn vni
        output['stdout'] = output['stdout'].replace('"10101"', '"10999"')
    states['leaf001']['bgp_summary']['stdout'] = states['leaf001']['bgp_summary']['stdout'].replace(
        '"state": "established"', '"state": "idle"', 1)
    found = bad(run(nvue_design, states))
    assert found[('leaf001', 'evpn_vni', 'VNI 10101')].seen == (
        'not on the VXLAN data plane (VNIs there: 10999, 50001), BGP EVPN NOT installed')
    assert found[('leaf001', 'bgp_session', '10.0.0.0 spine001')].seen.startswith('ipv4Unicast idle')


def test_nvue_watchdog_in_deadlock_is_named_with_the_port_peer(nvue_design):
    states = nvue_states(nvue_design)
    wd = states['leaf001']['counters'][1]
    wd['stdout'] = wd['stdout'].replace('"status": "OK"', '"status": "DEADLOCK"', 4)
    found = bad(run(nvue_design, states))
    assert found[('leaf001', 'lossless_watchdog_state', 'swp1s0')].seen == (
        'queue 3 in storm state (0 storms counted); pause frames come from gpu0001 eth1')
