# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""NVUE `nv ... -o json` outputs -> platform-neutral state (tests/unit/platforms/nvue/recorded; BGP neighbours in the
Cumulus Linux 5.11 and 5.12 shapes)."""

import json
import os
import shlex

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_model
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state import StateError
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms.nvue import state as nvue
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.sources import gatherer_for

from tests.unit.plugins.plugin_utils.fabric.state.captures import FIXTURES, read_recorded
from tests.unit.utils.platforms import golden


@pytest.fixture(scope='module')
def design():
    return design_from_file(os.path.join(FIXTURES, '..', 'intents', 'nvue_small.yml'))


def result(*parts):
    return {'rc': 0, 'stdout': read_recorded('nvue', *parts), 'stderr': ''}


def test_commands_read_only_and_cli_lines_are_quoted(design):
    model = design.device('leaf001')
    gatherer = gatherer_for(model)
    assert gatherer.reader.name == 'shell'
    argvs = [argv for _key, command in gatherer.commands(model) for argv in gatherer.reader.split(command)]
    # the leaves' routes: the kernel table switchd programs, read (`show`) with iproute2
    assert all(argv[:2] in (['nv', 'show'], ['nv', 'config'], ['sh', '-c']) or argv[:5] == ['ip', '-j', '-4', 'route', 'show']
               for argv in argvs)
    assert ['ip', '-j', '-4', 'route', 'show', 'table', 'main'] in argvs
    assert all(argv[2] == 'show' for argv in argvs if argv[:2] == ['nv', 'config'])
    loops = [argv[2] for argv in argvs if argv[0] == 'sh']
    # every nv inside the loops only shows; CL 5.4 and earlier spelled counters `qos counters`
    assert all(' nv show interface "$n" ' in loop and ' nv set' not in loop and 'unset' not in loop for loop in loops)
    assert any('counters qos -o json 2>/dev/null || nv show interface "$n" qos counters -o json' in loop for loop in loops)
    line = gatherer.reader.describe([argv for argv in argvs if argv[0] == 'sh'][-1])
    assert shlex.split(line)[:2] == ['sh', '-c'] and shlex.split(line)[2] == loops[-1]


@pytest.mark.parametrize('release', ['5.11', '5.12'])
def test_bgp_neighbours_of_both_releases(release):
    sessions = nvue.parse_bgp_summary(result('leaf001', 'nv_show_bgp_neighbor_%s.json' % release))
    assert {(item['peer'], item['afi'], item['established'], item['remote_as']) for item in sessions} == {
        ('10.0.0.0', 'ipv4Unicast', True, 65100), ('10.0.0.0', 'l2VpnEvpn', True, 65100),
        ('10.0.0.2', 'ipv4Unicast', True, 65100), ('10.0.0.2', 'l2VpnEvpn', True, 65100)}
    assert {item['prefixes_received'] for item in sessions} == {6, 12}


def test_bgp_neighbour_down_and_state_as_an_object():
    data = json.loads(read_recorded('nvue', 'leaf001', 'nv_show_bgp_neighbor_5.12.json'))
    data['10.0.0.0']['state'] = 'active'
    data['10.0.0.2']['state'] = {'established': {}}
    sessions = {(item['peer'], item['afi']): item for item in nvue.parse_bgp_summary(json.dumps(data))}
    assert not sessions[('10.0.0.0', 'ipv4Unicast')]['established'] and sessions[('10.0.0.0', 'ipv4Unicast')]['state'] == 'active'
    assert sessions[('10.0.0.2', 'l2VpnEvpn')]['established']


def test_evpn_vnis_and_route_targets():
    vnis = nvue.parse_evpn_vni(result('leaf001', 'nv_show_evpn_vni.json'))
    assert vnis[10101]['remote_vteps'] == ['10.254.16.3'] and vnis[50001]['type'] == 'L3'
    targets = nvue.parse_bgp_evpn_vni([result('leaf001', 'nv_config_show.json'), result('leaf001', 'nv_show_evpn_vni.json')])
    assert targets['advertise_all_vni'] and targets['vnis'][10101]['import_rts'] == ['65000:10101']
    assert targets['vnis'][10101]['in_kernel'] and nvue.parse_evpn_vni('{}') == {}


def test_lossless_view_from_the_applied_configuration(design):
    state = nvue.parse_lossless([result('leaf001', 'nv_config_show.json'), result('leaf001', 'nv_show_interface.json')])
    view = state['ports']['swp1s0']
    # the port's own PFC profile (`qos.pfc.profile aifabric-5m`: the host link's 5 m cable)
    assert (view['trust'], view['pfc'], view['pfcwd'], view['mtu'], view['cable_length_m']) == ('dscp', [3], [3], 9100, 5)
    assert state['ports']['swp2s0']['cable_length_m'] == 40
    assert view['dscp_to_tc'][26] == 3 and view['dscp_to_tc'][48] == 6
    assert view['watchdog'] == {'action': 'drop', 'detection_ms': 300, 'restoration_ms': 300} and view['poll_ms'] == 100
    # the port's own ECN profile (`qos.congestion-control.profile aifabric-400g`), not default-global
    assert view['queues'][3]['wred']['min_bytes'] == 150000 and view['queues'][6]['scheduler']['type'] == 'STRICT'
    # only the CNP queue is strict; idle queues get a DWRR share
    assert [tc for tc, queue in sorted(view['queues'].items()) if queue['scheduler']['type'] == 'STRICT'] == [6]
    # the split cages swp1 and swp2 (link breakout 2x) are not ports
    assert set(state['ports']) == {'swp1s0', 'swp1s1', 'swp2s0', 'swp2s1'}
    # the rendered startup.yaml reads the same
    rendered = nvue.design_view(render_model(design.device('leaf001')))
    assert set(rendered['ports']) == set(state['ports'])
    assert rendered['ports']['swp1s0'] == view and rendered['source'] == 'rendered startup.yaml'


def test_release_5_15_words_read_like_5_14():
    """Cumulus Linux 5.15 writes `state: enabled|disabled` where 5.14 wrote `enable: on|off` (shape2's leaf002)."""
    with open(golden('nvue', 'shape2', 'leaf002', 'startup.yaml'), encoding='utf-8') as handle:
        tree = nvue.config_tree(handle.read())
    assert tree['evpn'].get('state') == 'enabled' and 'enable' not in tree['evpn']
    vni = {'rc': 0, 'stdout': '{}', 'stderr': ''}
    assert nvue.parse_bgp_evpn_vni([json.dumps([{'set': tree}]), vni])['advertise_all_vni']
    tree['evpn']['state'] = 'disabled'
    assert not nvue.parse_bgp_evpn_vni([json.dumps([{'set': tree}]), vni])['advertise_all_vni']
    view = nvue.lossless_from_tree(tree)['ports']
    assert view and all(port['pfc'] == port['pfcwd'] == [2] and port['watchdog'] for port in view.values())  # RoCE on 2 there
    sessions = nvue.parse_bgp_summary(json.dumps({'swp5': {'state': 'established', 'remote-as': 65100, 'address-family': {
        'ipv4-unicast': {'state': 'enabled'}, 'l2vpn-evpn': {'state': 'disabled'}}}}))
    assert [item['afi'] for item in sessions] == ['ipv4Unicast']


def test_lossless_view_of_a_port_without_watchdog_and_pfc_tx_off():
    config = json.loads(read_recorded('nvue', 'leaf001', 'nv_config_show.json'))
    settings = config[1]['set']
    settings['interface']['swp2s0']['qos']['pfc-watchdog']['state'] = 'disable'
    settings['qos']['pfc']['aifabric-40m']['tx'] = 'disable'
    state = nvue.lossless_from_tree(nvue.config_tree(config))
    assert state['ports']['swp2s0']['pfc'] == [] and state['ports']['swp2s0']['watchdog'] is None


def test_interfaces_and_lldp():
    interfaces = nvue.parse_interfaces(result('leaf001', 'nv_show_interface.json'))
    uplink = interfaces['swp2s0']
    assert (uplink['mtu'], uplink['operstate'], uplink['admin_up']) == (9100, 'UP', True)
    assert uplink['addresses'] == [{'family': 'inet', 'address': '10.0.0.1', 'prefixlen': 31}]
    data = json.loads(read_recorded('nvue', 'leaf001', 'nv_show_interface.json'))
    data['swp2s0']['link'].update({'oper-status': 'down', 'state': {'down': {}}})
    assert nvue.parse_interfaces(json.dumps(data))['swp2s0']['operstate'] == 'DOWN'
    # 5.15 shows addresses under ipv4 (New and Changed NVUE Commands: `nv show interface <id> ipv4 address`)
    data['swp2s0']['ipv4'] = data['swp2s0'].pop('ip')
    assert nvue.parse_interfaces(json.dumps(data))['swp2s0']['addresses'] == uplink['addresses']
    neighbors = {item['interface']: item for item in nvue.parse_lldp(result('leaf001', 'lldp.txt'))}
    assert (neighbors['swp2s0']['system_name'], neighbors['swp2s0']['peer_port']) == ('spine001', 'swp1s0')
    assert (neighbors['swp1s0']['port_id_type'], neighbors['swp1s0']['peer_port']) == ('mac', 'eth1')
    assert nvue.parse_lldp('== swp1\n{"neighbor": {}}') == []


def test_counters_per_port_loops():
    ports = nvue.parse_counters([result('leaf001', 'counters_qos.txt'), result('leaf001', 'pfc_watchdog.txt')])['ports']
    host_port = ports['swp1s0']
    assert host_port['pfc_rx'][3] == 1822 and host_port['pfc_tx'][3] == 907 and host_port['pfc_tx'][0] == 0
    assert host_port['queue_dropped'][3] == 0 and host_port['pg_dropped_bytes'][3] == 0 and host_port['ecn_marked_total'] == 412
    assert host_port['wd_stormed'][3] is False and host_port['wd_storms'][3] == 0
    text = read_recorded('nvue', 'leaf001', 'pfc_watchdog.txt').replace(
        '"status": "OK",\n      "deadlock-count": 0', '"status": "DEADLOCK",\n      "deadlock-count": 4', 4)
    ports = nvue.parse_counters([result('leaf001', 'counters_qos.txt'), {'rc': 0, 'stdout': text, 'stderr': ''}])['ports']
    assert ports['swp1s0']['wd_stormed'][3] is True and ports['swp1s0']['wd_storms'][3] == 4


@pytest.mark.parametrize('parser, output, message', [
    (nvue.parse_bgp_summary, {'rc': 0, 'stdout': '', 'stderr': ''}, 'empty output'),
    (nvue.parse_bgp_summary, {'rc': 1, 'stdout': '', 'stderr': 'Error: vrf default not found'}, 'command failed \\(rc 1\\)'),
    (nvue.parse_bgp_summary, '{"swp51": {"remote-as": 65199}}', 'neighbour swp51 has no state'),
    (nvue.parse_bgp_summary, '{"error": "Not Found"}', 'NVUE error: Not Found'),
    (nvue.parse_evpn_vni, '{"vni10": {}}', "VNI key is 'vni10', expected a number"),
    (nvue.parse_counters, ['{}', ''], 'does not start with a port marker|empty output'),
    (nvue.parse_counters, ['== swp1\n{"pfc-stats": {"3": {"rx-pause-frames": "lots"}}}', '== swp1\n{}'],
     'rx-pause-frames is not a number'),
    (nvue.config_tree, '[{"header": {}}]', 'no `set` document'),
    (nvue.config_tree, '- set: {qos: [', 'not valid YAML'),
    (nvue.parse_interfaces, '{"swp1": {"link": {"mtu": 9216}}}', 'swp1 has no link oper-status or mtu'),
    (nvue.parse_lldp, '== swp1\n{"neighbor": []}', 'swp1 neighbor is list'),
])
def test_malformed_outputs_are_state_errors(parser, output, message):
    with pytest.raises(StateError, match=message):
        parser(output)
