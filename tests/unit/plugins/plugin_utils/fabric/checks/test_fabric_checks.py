# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fabric checks on captured state: healthy passes, every captured fault fails the right check on the right
device with expected against seen, and every count comes from the design."""

import copy
import json
import os
import types

import hypothesis
import pytest
from hypothesis import strategies as st

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import catalog
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state import StateError

from tests.unit.plugins.plugin_utils.fabric.state.captures import INTENT, REPO, scenario_states

FABRIC = ('fabric',)


@pytest.fixture(scope='module')
def design():
    return design_from_file(INTENT)


def run(design, scenario=None, states=None, **options):
    ctx = checks.Context(design, states if states is not None else scenario_states(scenario), options)
    return checks.run(ctx, categories=FABRIC)


def bad(results):
    return {(item.device, item.check, item.subject): item for item in results if item.status != checks.PASS}


def test_healthy_capture_passes_every_fabric_check(design):
    results = run(design, 'healthy')
    assert bad(results) == {}
    ids = {item.check for item in results}
    assert ids == {check.id for check in checks.REGISTRY.values() if check.category == 'fabric'}


def test_counts_come_from_the_design(design):
    results = run(design, 'healthy')
    ctx = checks.Context(design)
    count = {}
    for item in results:
        count[item.check] = count.get(item.check, 0) + 1
    switches = design.device_names('leaf') + design.device_names('spine')
    assert count['bgp_session'] == sum(len(ctx.model(name)['bgp']['neighbors']) for name in switches)
    assert count['evpn_vtep'] == sum(len(item['remote_vteps']) for name in design.device_names('leaf')
                                     for item in catalog.expected_vnis(ctx, ctx.model(name)))
    assert count['lldp_neighbor'] == 2 * len(design.links)
    hosts = design.device_names('host')
    assert count['reachability'] == count['jumbo_frames'] == sum(
        len(catalog.ping_targets(ctx, ctx.model(name))) for name in hosts)


def test_link_down_names_interface_bgp_and_lldp_on_both_ends(design):
    found = bad(run(design, 'link_down'))
    leaf_port = found[('leaf001', 'interface_state', 'eth2')]
    assert leaf_port.status == checks.FAIL and leaf_port.expected == 'up (to spine001 eth1)'
    assert leaf_port.seen == 'DOWN, admin down'
    assert found[('spine001', 'interface_state', 'eth1')].seen == 'DOWN, admin up, no carrier'
    session = found[('leaf001', 'bgp_session', '10.0.0.0 spine001')]
    assert session.seen == 'ipv4Unicast Active, l2VpnEvpn Active, remote AS 65100'
    assert found[('spine001', 'lldp_neighbor', 'eth1')].seen == 'no LLDP neighbour'
    assert not any(key[1] == 'interface_mtu' for key in found)
    # The capture fabric has one spine, so the overlay breaks too and the hosts say so.
    assert found[('gpu0001', 'reachability', 'eth1 -> gpu0002 10.100.0.11')].seen == 'no reply (3 of 3 lost)'
    assert 'no type-3 route from 10.254.16.1' in found[('leaf002', 'evpn_vtep', 'VNI 10100 from leaf001 10.254.16.1')].seen


def test_bgpd_stopped_is_a_failure_not_an_error(design):
    found = bad(run(design, 'bgpd_stopped'))
    session = found[('leaf001', 'bgp_session', '10.0.0.0 spine001')]
    assert session.status == checks.FAIL and session.seen == 'bgpd is not running'
    assert found[('leaf001', 'evpn_vni', 'VNI 10100')].status == checks.FAIL
    assert found[('spine001', 'bgp_session', '10.0.0.1 leaf001')].seen.startswith('ipv4Unicast Active')
    assert not any(item.status == checks.ERROR for item in found.values())


def test_host_mtu_fault_names_the_rail_and_the_jumbo_path(design):
    found = bad(run(design, 'host_mtu_1500'))
    assert set(found) == {('gpu0001', 'interface_mtu', 'eth1'),
                          ('gpu0001', 'link_mtu', 'eth1 <-> leaf001 eth1'),
                          ('gpu0001', 'jumbo_frames', 'eth1 -> gpu0002 10.100.0.11'),
                          ('gpu0002', 'jumbo_frames', 'eth1 -> gpu0001 10.100.0.10')}
    mtu = found[('gpu0001', 'interface_mtu', 'eth1')]
    assert (mtu.expected, mtu.seen, mtu.rule) == ('MTU 9000', 'MTU 1500', 'C14')
    link = found[('gpu0001', 'link_mtu', 'eth1 <-> leaf001 eth1')]
    assert link.seen == 'gpu0001 eth1 MTU 1500, leaf001 eth1 MTU 9100'
    assert link.message == 'look at gpu0001 eth1 (differs from the design)'
    assert 'local interface MTU 1500' in found[('gpu0001', 'jumbo_frames', 'eth1 -> gpu0002 10.100.0.11')].seen


def test_wrong_route_target_names_the_vni_and_explains_the_missing_vtep(design):
    found = bad(run(design, 'wrong_route_target'))
    target = found[('leaf001', 'evpn_route_target', 'VNI 10100')]
    assert target.expected == 'import 65000:10100, export 65000:10100'
    assert target.seen == 'import 65000:10999, export 65000:10999'
    assert ('leaf002', 'evpn_route_target', 'VNI 10100') not in found
    remote = found[('leaf002', 'evpn_vtep', 'VNI 10100 from leaf001 10.254.16.1')].seen
    assert 'carries RT 65000:10999 but this leaf imports 65000:10100' in remote
    local = found[('leaf001', 'evpn_vtep', 'VNI 10100 from leaf002 10.254.16.2')].seen
    assert 'carries RT 65000:10100 but this leaf imports 65000:10999' in local


def _mutate(states, device, key, change):
    states = copy.deepcopy(states)
    raw = states[device][key]
    data = json.loads(raw['stdout'])
    change(data)
    raw['stdout'] = json.dumps(data)
    return states


def test_unexpected_bgp_peer_is_reported(design):
    def add_peer(data):
        data['default']['ipv4Unicast']['peers']['192.0.2.9'] = {'remoteAs': 64512, 'state': 'Active', 'hostname': 'rogue'}
    found = bad(run(design, states=_mutate(scenario_states('healthy'), 'leaf001', 'bgp_summary', add_peer)))
    assert found[('leaf001', 'bgp_session', '192.0.2.9 rogue')].expected == 'no session (not in the design)'


def test_wrong_remote_as_fails_even_when_established(design):
    def change_as(data):
        for afi in data['default'].values():
            afi['peers']['10.0.0.0']['remoteAs'] = 65199
    found = bad(run(design, states=_mutate(scenario_states('healthy'), 'leaf001', 'bgp_summary', change_as)))
    assert 'remote AS 65199' in found[('leaf001', 'bgp_session', '10.0.0.0 spine001')].seen


def test_missing_neighbour_and_missing_address_family(design):
    def drop_evpn(data):
        del data['default']['l2VpnEvpn']
    found = bad(run(design, states=_mutate(scenario_states('healthy'), 'leaf001', 'bgp_summary', drop_evpn)))
    assert 'l2VpnEvpn not activated' in found[('leaf001', 'bgp_session', '10.0.0.0 spine001')].seen
    found = bad(run(design, states=_mutate(scenario_states('healthy'), 'leaf001', 'bgp_summary',
                                           lambda data: data.clear())))
    assert found[('leaf001', 'bgp_session', '10.0.0.0 spine001')].seen == 'no such neighbour configured'


def test_lldp_miscabling_is_named(design):
    def swap(data):
        item = data['lldp']['interface'][0]
        port = next(iter(item))
        item[port]['chassis'] = {'spine009': item[port]['chassis'][next(iter(item[port]['chassis']))]}
    found = bad(run(design, states=_mutate(scenario_states('healthy'), 'leaf001', 'lldp', swap)))
    (result,) = [item for key, item in found.items() if key[1] == 'lldp_neighbor']
    assert result.seen.startswith('spine009') and result.device == 'leaf001'


def test_interface_address_missing(design):
    def drop_address(data):
        for item in data:
            if item['ifname'] == 'eth1':
                item['addr_info'] = []
    found = bad(run(design, states=_mutate(scenario_states('healthy'), 'gpu0001', 'interfaces', drop_address)))
    result = found[('gpu0001', 'interface_address', 'eth1')]
    assert (result.expected, result.seen) == ('10.100.0.10/24', 'no IPv4 address')


def test_vxlan_bridge_mtu_pitfall_and_missing_device(design):
    def small_bridge(data):
        for item in data:
            if item['ifname'] == 'br100':
                item['mtu'] = 1500
    found = bad(run(design, states=_mutate(scenario_states('healthy'), 'leaf001', 'interfaces', small_bridge)))
    assert 'bridge br100 MTU 1500' in found[('leaf001', 'vxlan_device', 'VNI 10100')].seen

    def no_vxlan(data):
        data[:] = [item for item in data if item['ifname'] != 'vxlan10100']
    found = bad(run(design, states=_mutate(scenario_states('healthy'), 'leaf001', 'interfaces', no_vxlan)))
    assert found[('leaf001', 'vxlan_device', 'VNI 10100')].seen == 'no VXLAN device with VNI 10100'


def test_partial_ping_loss_threshold(design):
    states = scenario_states('healthy')
    states['gpu0001']['ping:eth1:10.100.0.11']['stdout'] = states['gpu0001']['ping:eth1:10.100.0.11']['stdout'].replace(
        '3 received, 0% packet loss', '1 received, 66.6667% packet loss')
    found = bad(run(design, states=states))
    assert '66.6667% loss > 34%' in found[('gpu0001', 'reachability', 'eth1 -> gpu0002 10.100.0.11')].seen
    assert bad(run(design, states=states, max_loss_percent=70)) == {}


def test_state_not_gathered_is_an_error_per_subject(design):
    states = scenario_states('healthy')
    del states['spine001']
    found = bad(run(design, states=states))
    assert {key for key in found if key[0] == 'spine001'} and all(item.status == checks.ERROR for item in found.values())
    assert found[('spine001', 'bgp_session', '10.0.0.1 leaf001')].seen == 'not gathered'


def test_state_a_platform_cannot_show_is_not_applicable(design):
    ctx = checks.Context(design, scenario_states('healthy'))
    results = checks.REGISTRY['health_pfc_pause'].func(ctx, ctx.model('leaf001'))
    assert [item.status for item in results] == [checks.NOT_APPLICABLE]
    assert results[0].message == 'not applicable: the FRR on Linux gatherer reads no counters'
    assert not ctx.state('leaf001').provides('lossless') and ctx.state('leaf001').provides('bgp_summary')


def test_catalog_ping_sampling_is_deterministic(design):
    ctx = checks.Context(design)
    model = ctx.model('gpu0001')
    assert [item['peer'] for item in catalog.ping_targets(ctx, model)] == ['gpu0002']
    assert catalog.ping_targets(ctx, model, max_peers=1) == catalog.ping_targets(ctx, model)
    expected = {'role': 'leaf', 'lldp_neighbors': 2, 'interfaces': 2, 'bgp_sessions': 1, 'l2vnis': 1, 'remote_vteps': 1}
    assert catalog.catalog(ctx)['leaf001'] == expected


def _peers_by_sorting(members, name, max_peers):
    """ping_targets()'s choice of peers as it was first written: every member sorted again for each host."""
    peers = [item for item in members if item[0] != name]
    if max_peers and len(peers) > max_peers:
        position = sorted([name] + [item[0] for item in peers]).index(name)
        ordered = sorted(peers)
        peers = (ordered[position:] + ordered[:position])[:max_peers]
    return peers


@hypothesis.settings(max_examples=200, deadline=None)
@hypothesis.given(hosts=st.lists(st.sampled_from(['gpu%04d' % number for number in range(1, 13)]), min_size=1,
                                 max_size=24),
                  max_peers=st.integers(min_value=0, max_value=14), data=st.data())
def test_ping_peers_are_the_next_hosts_in_name_order_whatever_the_rail(hosts, max_peers, data):
    # members in any order, a host on the rail once or more (two interfaces on one network), the host asking last
    members = [(host, 'eth%d' % index, '10.0.%d.%d' % (index, number)) for number, (index, host) in
               enumerate(zip(data.draw(st.lists(st.integers(0, 3), min_size=len(hosts), max_size=len(hosts))), hosts))]
    name = data.draw(st.sampled_from(hosts + ['gpu0099']))
    ctx = types.SimpleNamespace(cache={'rail_members': {'rail1': members}})
    model = {'role': 'host', 'name': name, 'mtu': 9000, 'rails': [{'rail': 1, 'interface': 'eth1', 'network': 'rail1'}]}
    found = [(item['peer'], item['peer_ip']) for item in catalog.ping_targets(ctx, model, max_peers)]
    assert found == [(peer, ip) for peer, _interface, ip in _peers_by_sorting(members, name, max_peers)]


def test_lab_intent_catalog_counts():
    lab = design_from_file(os.path.join(REPO, 'fabrics', 'lab.yml'))
    ctx = checks.Context(lab)
    entries = catalog.catalog(ctx)
    assert sum(entry.get('bgp_sessions', 0) for entry in entries.values()) == 2 * sum(
        1 for link in lab.links if link.role == 'leaf_spine')
    assert all(entry['ping_targets'] == 2 * (len(lab.device_names('host')) - 1)
               for name, entry in entries.items() if entry['role'] == 'host')
    assert catalog.ping_targets(ctx, ctx.model('gpu0001'), max_peers=1)[0]['jumbo_payload'] == 8972


def test_device_state_parses_once_and_names_unknown_sources(design):
    ctx = checks.Context(design, {'leaf001': {'bogus': {'rc': 0, 'stdout': '{}'}, 'lldp': {'rc': 0, 'stdout': '{"lldp": {}}'}},
                                  'leaf002': {'_error': 'reading FRR needs a connection', 'lldp': {}}})
    state = ctx.state('leaf001')
    assert state.get('lldp') == [] and state.get('lldp') is state.get('lldp')
    with pytest.raises(StateError, match='the FRR on Linux gatherer does not read this state'):
        state.get('bogus')
    with pytest.raises(StateError, match='not gathered'):
        state.get('bgp_summary')
    with pytest.raises(StateError, match='reading FRR needs a connection'):
        ctx.state('leaf002').get('lldp')
    assert ctx.gathered('leaf001') and not ctx.gathered('leaf002')
    with pytest.raises(StateError, match='no gatherer for this device'):
        checks.DeviceState('stray', {'lldp': {}}).get('lldp')
