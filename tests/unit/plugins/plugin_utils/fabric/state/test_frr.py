# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""FRR JSON parsers on outputs captured from FRR 8.4 (tests/unit/fixtures/state/captured) and broken input."""

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state import DaemonDown, StateError
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.frrouting import vtysh as frr

from tests.unit.plugins.plugin_utils.fabric.state.captures import command_result


def _sessions(path):
    return {(item['afi'], item['peer']): item for item in frr.parse_bgp_summary(command_result(path))}


def test_bgp_summary_vrf_all_healthy_spine():
    sessions = _sessions('healthy/spine001/bgp_vrf_all_summary.json')
    assert set(sessions) == {('ipv4Unicast', '10.0.0.1'), ('ipv4Unicast', '10.0.0.3'),
                             ('l2VpnEvpn', '10.0.0.1'), ('l2VpnEvpn', '10.0.0.3')}
    leaf = sessions[('l2VpnEvpn', '10.0.0.1')]
    assert leaf['established'] and leaf['state'] == 'Established'
    assert leaf['hostname'] == 'leaf001' and leaf['remote_as'] == 4200000000 and leaf['vrf'] == 'default'
    assert leaf['local_as'] == 65100 and leaf['id_type'] == 'ipv4'


def test_bgp_summary_link_down_is_active():
    sessions = _sessions('link_down/leaf001/bgp_vrf_all_summary.json')
    assert {item['state'] for item in sessions.values()} == {'Active'}
    assert not any(item['established'] for item in sessions.values())


def test_bgp_summary_plain_show_bgp_summary_shape():
    sessions = _sessions('variants/leaf001_bgp_summary.json')
    assert set(sessions) == {('ipv4Unicast', '10.0.0.0'), ('l2VpnEvpn', '10.0.0.0')}
    assert all(item['established'] for item in sessions.values())


def test_bgp_summary_unnumbered_peer_keyed_by_interface():
    sessions = _sessions('variants/spine001_bgp_vrf_all_summary_unnumbered.json')
    assert sessions[('ipv4Unicast', 'eth2')]['id_type'] == 'interface'
    assert sessions[('ipv4Unicast', 'eth2')]['established']
    idle = _sessions('variants/spine001_bgp_vrf_all_summary_unnumbered_idle.json')
    assert idle[('l2VpnEvpn', 'eth2')]['state'] == 'Idle'


def test_bgp_summary_single_address_family_shape():
    text = ('{"routerId":"10.0.0.1","as":65000,"vrfName":"default","peers":{"swp1":'
            '{"remoteAs":65001,"state":"Connect","idType":"interface"}}}')
    (session,) = frr.parse_bgp_summary(text)
    assert session['peer'] == 'swp1' and session['state'] == 'Connect' and session['afi'] == 'ipv4Unicast'


def test_bgp_summary_no_bgp_instance_is_empty():
    assert frr.parse_bgp_summary({'rc': 0, 'stdout': '{}', 'stderr': ''}) == []


def test_bgp_summary_bgpd_not_running_is_daemon_down():
    with pytest.raises(DaemonDown) as caught:
        frr.parse_bgp_summary(command_result('bgpd_stopped/leaf001/bgp_vrf_all_summary.json'))
    assert caught.value.message == 'bgpd is not running'


@pytest.mark.parametrize('stdout, fragment', [
    ('', 'empty output'),
    ('{"ipv4Unicast": {"peers": {"10.0.0.1": {"remoteAs": 1}}}', 'not valid JSON'),
    ('{"ipv4Unicast": {"peers": {"10.0.0.1": {"remoteAs": 1}}}}', 'has no state'),
    ('[1, 2]', 'expected a JSON object'),
    ('{"ipv4Unicast": {"peers": ["10.0.0.1"]}}', 'peers is list'),
])
def test_bgp_summary_malformed(stdout, fragment):
    with pytest.raises(StateError) as caught:
        frr.parse_bgp_summary({'rc': 0, 'stdout': stdout, 'stderr': ''})
    assert fragment in str(caught.value)


def test_vtysh_failure_and_unknown_command_are_errors_not_tracebacks():
    with pytest.raises(StateError) as caught:
        frr.parse_bgp_summary({'rc': 127, 'stdout': '', 'stderr': 'vtysh: command not found'})
    assert 'rc 127' in str(caught.value) and not isinstance(caught.value, DaemonDown)
    with pytest.raises(StateError) as caught:
        frr.parse_evpn_type3({'rc': 0, 'stdout': '% Unknown command: show bgp l2vpn evpn route vni all type multicast json',
                              'stderr': ''})
    assert 'does not know this command' in str(caught.value)


def test_evpn_vni_healthy_and_detail_shapes_agree():
    plain = frr.parse_evpn_vni(command_result('healthy/leaf001/evpn_vni.json'))
    detail = frr.parse_evpn_vni(command_result('variants/leaf001_evpn_vni_detail.json'))
    assert plain[10100]['remote_vteps'] == ['10.254.16.2'] == detail[10100]['remote_vteps']
    assert plain[10100]['type'] == 'L2' and plain[10100]['vxlan_if'] == 'vxlan10100'
    assert detail[10100]['vtep_ip'] == '10.254.16.1'


def test_evpn_vni_without_remote_vteps_key():
    vnis = frr.parse_evpn_vni(command_result('wrong_route_target/leaf002/evpn_vni.json'))
    assert vnis[10100]['remote_vteps'] == []


def test_evpn_vni_empty_output_means_no_evpn():
    assert frr.parse_evpn_vni(command_result('bgpd_stopped/leaf001/evpn_vni.json')) == {}
    assert frr.parse_evpn_vni({'rc': 0, 'stdout': '', 'stderr': ''}) == {}


@pytest.mark.parametrize('stdout', ['{"10100": {"type": "L2"}}', '{"10100": {"vni": "x"}}', '"text"', '{"a":'])
def test_evpn_vni_malformed(stdout):
    with pytest.raises(StateError):
        frr.parse_evpn_vni({'rc': 0, 'stdout': stdout, 'stderr': ''})


def test_bgp_evpn_vni_route_targets():
    healthy = frr.parse_bgp_evpn_vni(command_result('healthy/leaf001/bgp_evpn_vni.json'))
    assert healthy['advertise_all_vni'] is True
    assert healthy['vnis'][10100]['import_rts'] == ['65000:10100'] == healthy['vnis'][10100]['export_rts']
    assert healthy['vnis'][10100]['in_kernel'] is True and healthy['vnis'][10100]['rd'] == '10.254.0.1:100'
    wrong = frr.parse_bgp_evpn_vni(command_result('wrong_route_target/leaf001/bgp_evpn_vni.json'))
    assert wrong['vnis'][10100]['import_rts'] == ['65000:10999']


def test_bgp_evpn_vni_spine_has_none():
    spine = frr.parse_bgp_evpn_vni(command_result('variants/spine001_bgp_evpn_vni_no_vni.json'))
    assert spine == {'advertise_all_vni': False, 'vnis': {}}


def test_bgp_evpn_vni_malformed():
    with pytest.raises(StateError):
        frr.parse_bgp_evpn_vni({'rc': 0, 'stdout': '{"foo": 1}', 'stderr': ''})
    with pytest.raises(StateError):
        frr.parse_bgp_evpn_vni({'rc': 0, 'stdout': '{"10100": {"vni": 10100, "importRTs": "65000:1"}}', 'stderr': ''})
    with pytest.raises(DaemonDown):
        frr.parse_bgp_evpn_vni(command_result('bgpd_stopped/leaf001/bgp_evpn_vni.json'))


def test_evpn_type3_routes_with_route_targets():
    routes = frr.parse_evpn_type3(command_result('wrong_route_target/leaf002/bgp_evpn_route_type_multicast.json'))
    by_vtep = {route['vtep']: route for route in routes}
    assert by_vtep['10.254.16.1']['route_targets'] == ['65000:10999']
    assert by_vtep['10.254.16.1']['as_path'] == '65100 4200000000' and by_vtep['10.254.16.1']['best']
    assert by_vtep['10.254.16.2']['route_targets'] == ['65000:10100'] and by_vtep['10.254.16.2']['rd'] == '10.254.0.2:100'
    spine = frr.parse_evpn_type3(command_result('healthy/spine001/bgp_evpn_route_type_multicast.json'))
    assert sorted(route['vtep'] for route in spine) == ['10.254.16.1', '10.254.16.2']


def test_evpn_type3_flat_path_list_and_other_types_ignored():
    text = ('{"1.1.1.1:2":{"rd":"1.1.1.1:2","[3]:[0]:[32]:[1.1.1.1]":{"paths":[{"valid":true,"bestpath":true,'
            '"ip":"1.1.1.1","extendedCommunity":{"string":"RT:1:2 ET:8"}}]},"[2]:[0]:[48]:[aa:bb:cc:dd:ee:ff]":'
            '{"paths":[[{"valid":true}]]}},"numPrefix":2}')
    (route,) = frr.parse_evpn_type3(text)
    assert route['vtep'] == '1.1.1.1' and route['route_targets'] == ['1:2']


def test_evpn_type3_malformed():
    with pytest.raises(StateError):
        frr.parse_evpn_type3('{"1:1":{"[3]:[0]:[32]:[1.1.1.1]":{"paths":"none"}}}')
    with pytest.raises(StateError):
        frr.parse_evpn_type3('{"1:1":{"[3]:[0]:[32]:[1.1.1.1]":{"paths":[["x"]]}}}')
