# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""EOS eAPI outputs -> platform-neutral state (tests/unit/platforms/eos/recorded: EOS 4.32 and the older 4.22 shapes)."""

import copy
import json
import os

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state import StateError
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms.eos import state as eos
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.sources import gatherer_for

from tests.unit.plugins.plugin_utils.fabric.state.captures import FIXTURES, read_recorded
from tests.unit.utils.platforms import golden


@pytest.fixture(scope='module')
def design():
    return design_from_file(os.path.join(FIXTURES, '..', 'intents', 'eos_small.yml'))


def load(*parts):
    return json.loads(read_recorded('eos', *parts))


def test_commands_are_eapi_show_commands_only(design):
    gatherer = gatherer_for(design.device('leaf001'))
    assert gatherer.reader.name == 'eapi'
    commands = [command for _key, parts in gatherer.commands(design.device('leaf001')) for command in parts]
    assert commands and all(command.startswith('show ') for command in commands)
    spine = [item[0] for item in gatherer.commands(design.device('spine001'))]
    assert spine == ['bgp_summary', 'interfaces', 'lldp', 'lossless', 'counters']


def test_bgp_summary_both_address_families_from_one_command():
    sessions = eos.parse_bgp_summary([load('4.32', 'leaf001', 'show_bgp_summary_vrf_all.json')])
    assert {(item['peer'], item['afi'], item['established'], item['remote_as']) for item in sessions} == {
        ('10.0.0.0', 'ipv4Unicast', True, 65100), ('10.0.0.0', 'l2VpnEvpn', True, 65100),
        ('10.0.0.2', 'ipv4Unicast', True, 65100), ('10.0.0.2', 'l2VpnEvpn', True, 65100)}


def test_bgp_summary_of_older_releases_two_commands():
    sessions = eos.parse_bgp_summary([load('4.22', 'leaf001', 'show_ip_bgp_summary_vrf_all.json'),
                                      load('4.22', 'leaf001', 'show_bgp_evpn_summary.json')])
    states = {(item['peer'], item['afi']): item['state'] for item in sessions}
    assert states == {('10.0.0.0', 'ipv4Unicast'): 'Established', ('10.0.0.0', 'l2VpnEvpn'): 'Established',
                      ('10.0.0.2', 'ipv4Unicast'): 'Active', ('10.0.0.2', 'l2VpnEvpn'): 'Active'}
    assert {item['prefixes_received'] for item in sessions if item['peer'] == '10.0.0.0'} == {6, 12}


def test_bgp_address_family_not_negotiated_is_not_established():
    data = load('4.32', 'leaf001', 'show_bgp_summary_vrf_all.json')
    data['vrfs']['default']['peers']['10.0.0.0']['l2VpnEvpn']['afiSafiState'] = 'advertised'
    evpn = [item for item in eos.parse_bgp_summary([data]) if item['afi'] == 'l2VpnEvpn' and item['peer'] == '10.0.0.0'][0]
    assert not evpn['established'] and evpn['state'] == 'Established (l2VpnEvpn not negotiated)'


def test_interfaces_mtu_state_and_addresses():
    interfaces = eos.parse_interfaces([load('4.32', 'leaf001', 'show_interfaces.json')])
    uplink = interfaces['Ethernet2/1']
    assert (uplink['mtu'], uplink['operstate'], uplink['admin_up'], uplink['lower_up']) == (9100, 'UP', True, True)
    assert uplink['addresses'] == [{'family': 'inet', 'address': '10.0.0.1', 'prefixlen': 31}]
    assert interfaces['Vlan101']['addresses'] == []  # only a virtual address


def test_lldp_names_current_and_pre_4_23_formats():
    current = {item['interface']: item for item in eos.parse_lldp([load('4.32', 'leaf001', 'show_lldp_neighbors_detail.json')])}
    assert (current['Ethernet2/1']['system_name'], current['Ethernet2/1']['peer_port']) == ('spine001.fabric.example.net',
                                                                                            'Ethernet1/1')
    # a Linux host sends its MAC as port id: the port description names its netdev
    assert (current['Ethernet1/1']['port_id_type'], current['Ethernet1/1']['peer_port']) == ('mac', 'eth1')
    old = eos.parse_lldp([load('4.22', 'leaf001', 'show_lldp_neighbors_detail.json')])
    assert [(item['interface'], item['peer_port']) for item in old] == [('Ethernet2/1', 'Ethernet1/1')]


def test_running_config_json_and_cli_text_give_the_same_tree():
    data = load('4.32', 'leaf001', 'show_running-config.json')
    tree = eos.config_tree(data)
    with open(golden('eos', 'eos_small', 'leaf001.cfg'), encoding='utf-8') as handle:
        text_tree = eos.config_tree(handle.read())
    assert tree['qos profile AIFABRIC-LOSSLESS-400G'] == text_tree['qos profile AIFABRIC-LOSSLESS-400G']
    assert tree['qos profile AIFABRIC-LOSSLESS-400G']['tx-queue 3'] == {
        'bandwidth percent 50': None, 'no priority': None, 'random-detect ecn count': None,
        'random-detect ecn minimum-threshold 150000 bytes maximum-threshold 1500000 bytes max-mark-probability 100': None}
    assert 'no aaa root' in tree and 'no aaa root' not in text_tree


def test_lossless_view_from_running_config_and_operational_mtu():
    state = eos.parse_lossless([load('4.32', 'leaf001', 'show_running-config.json'),
                                load('4.32', 'leaf001', 'show_interfaces.json')])
    view = state['ports']['Ethernet1/1']
    assert (view['trust'], view['pfc'], view['pfcwd'], view['mtu']) == ('dscp', [3], [3], 9100)
    assert view['dscp_to_tc'][26] == 3 and view['dscp_to_tc'][48] == 6
    assert view['watchdog'] == {'action': 'drop', 'detection_ms': 200, 'restoration_ms': 400} and view['poll_ms'] == 50
    # the per-speed profile AIFABRIC-LOSSLESS-400G bound by service-profile; `random-detect ecn count` is no threshold
    assert view['queues'][3]['wred'] == {'ecn': 'ecn_all', 'green_enable': True, 'min_bytes': 150000, 'max_bytes': 1500000,
                                         'probability': 100}
    # the CNP class 6 rides tx-queue 7, the one strict-priority queue (`qos map traffic-class 6 to tx-queue 7`)
    assert view['tc_to_queue'][6] == 7 and view['tc_to_queue'][7] == 6 and view['pfc_to_queue'][3] == 3
    assert view['queues'][7]['scheduler'] == {'type': 'STRICT', 'weight': None}
    assert view['queues'][6]['scheduler'] == {'type': 'DWRR', 'weight': 1}
    assert view['headroom'] == 'platform' and view['pgs'] == {3: {'dynamic': True}} and view['egress'] == {3: 'lossless'}
    assert 'Management1' not in state['ports'] and state['source'] == 'running-config + show interfaces'


def test_lossless_view_reflects_an_interface_override_and_kbytes():
    data = load('4.32', 'leaf001', 'show_running-config.json')
    cmds = data['cmds']['interface Ethernet2/1']['cmds']
    cmds['no priority-flow-control'] = None
    profile = data['cmds']['qos profile AIFABRIC-LOSSLESS-400G']['cmds']['tx-queue 3']['cmds']
    profile.pop('random-detect ecn minimum-threshold 150000 bytes maximum-threshold 1500000 bytes max-mark-probability 100')
    profile['random-detect ecn minimum-threshold 150 kbytes maximum-threshold 3 mbytes'] = None
    view = eos.parse_lossless([data, load('4.32', 'leaf001', 'show_interfaces.json')])['ports']['Ethernet2/1']
    assert view['pfc'] == [] and view['watchdog'] is None
    assert (view['queues'][3]['wred']['min_bytes'], view['queues'][3]['wred']['max_bytes']) == (150000, 3000000)


def test_evpn_vni_flood_list_from_imet_routes_the_vlan_imports():
    outputs = [load('4.32', 'leaf001', name) for name in ('show_vxlan_vni.json', 'show_bgp_evpn_route-type_imet.json',
                                                          'show_running-config.json')]
    vnis = eos.parse_evpn_vni(outputs)
    assert vnis[10101]['type'] == 'L2' and vnis[10101]['remote_vteps'] == ['10.254.16.3']
    assert vnis[10101]['vtep_ip'] == '10.254.16.1' and vnis[50001]['type'] == 'L3'
    # a wrong route-target on the VLAN imports nothing
    config = outputs[2]
    vlan = config['cmds']['router bgp 4200000000']['cmds']['vlan 101']['cmds']
    vlan.pop('route-target both 65000:10101')
    vlan['route-target both 65000:10999'] = None
    assert eos.parse_evpn_vni(outputs)[10101]['remote_vteps'] == []


def test_bgp_evpn_vni_route_targets_and_vlan_binding():
    data = eos.parse_bgp_evpn_vni([load('4.32', 'leaf001', 'show_running-config.json'),
                                   load('4.32', 'leaf001', 'show_vxlan_vni.json')])
    assert data['vnis'][10101]['import_rts'] == ['65000:10101'] == data['vnis'][10101]['export_rts']
    assert data['vnis'][10101]['rd'] == '10.254.0.1:101'


def test_imet_routes():
    routes = eos.parse_imet([load('4.32', 'leaf001', 'show_bgp_evpn_route-type_imet.json')])
    from_leaf003 = [item for item in routes if item['vtep'] == '10.254.16.3']
    assert from_leaf003[0]['route_targets'] == ['65000:10101'] and from_leaf003[0]['valid']


def test_counters_from_the_four_commands():
    outputs = [load('4.32', 'leaf001', name + '.json') for name in (
        'show_priority-flow-control_counters', 'show_priority-flow-control_counters_watchdog',
        'show_interfaces_counters_queue_detail', 'show_qos_interfaces_ecn_counters_queue')]
    ports = eos.parse_counters(outputs)['ports']
    port = ports['Ethernet1/1']
    assert (port['pfc_rx_total'], port['pfc_tx_total']) == (1822, 907)
    assert port['wd_storms'][3] == 0 and port['wd_stormed'][3] is False
    assert port['queue_dropped'][3] == 0 and port['queue_ecn_marked'] == {3: 412}  # '-': ECN not on that queue
    outputs[1]['interfaceCounters']['Ethernet1/1']['txQueues']['3'].update(stuckCount=2, state='stuck')
    port = eos.parse_counters(outputs)['ports']['Ethernet1/1']
    assert port['wd_storms'][3] == 2 and port['wd_stormed'][3] is True


@pytest.mark.parametrize('output, message', [
    (None, 'not gathered'),
    ('', 'empty output'),
    ('{"vrfs": ', 'not valid JSON'),
    ({'errors': ["CLI command 1 of 1 'show bgp summary vrf all' failed: invalid command"]}, 'eAPI error: CLI command 1'),
    ({'vrfs': {'default': {'peers': {'10.0.0.0': {'peerAsn': '65100'}}}}}, 'peer 10.0.0.0 in vrf default has no peerState'),
    ({'vrfs': []}, 'vrfs is list, expected a JSON object'),
])
def test_bgp_summary_bad_output_is_a_state_error(output, message):
    with pytest.raises(StateError, match=message):
        eos.parse_bgp_summary([output])


@pytest.mark.parametrize('parser, output, message', [
    (eos.parse_interfaces, [{'interfaces': {'Ethernet1/1': {'name': 'Ethernet1/1'}}}], 'has no mtu or lineProtocolStatus'),
    (eos.parse_lldp, [{'lldpNeighbors': {'Ethernet1/1': []}}], 'port Ethernet1/1 is list'),
    (eos.parse_imet, [{'evpnRoutes': {'RD: x': {'evpnRoutePaths': []}}}], 'names no originating VTEP'),
    (eos.parse_counters, [{}, {}, {}], 'expected 4 command outputs, got 3'),
    (eos.parse_counters, [{'interfaceCounters': {'Ethernet1/1': {'rxFrames': 'many'}}}, {}, {}, {}], 'rxFrames is not a number'),
    (eos.parse_lossless, [{'cmds': {}}, ''], 'empty output'),
    (eos.config_tree, '', 'empty configuration'),
])
def test_malformed_outputs_are_state_errors(parser, output, message):
    with pytest.raises(StateError, match=message):
        parser(copy.deepcopy(output))
