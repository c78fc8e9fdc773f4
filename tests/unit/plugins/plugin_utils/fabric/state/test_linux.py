# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""lldpcli, iproute2 and ping parsers on captured outputs (lldpd 1.0.16, iproute2 6.1, iputils 20221126)."""

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state import DaemonDown, StateError, as_list
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state import iproute2, lldp, ping

from tests.unit.plugins.plugin_utils.fabric.state.captures import command_result, ping_result


# --------------------------------------------------------------------------- lldpcli
def _by_port(path):
    return {item['interface']: item for item in lldp.parse_lldp_neighbors(command_result(path))}


def test_lldp_several_neighbours_list_shape():
    ports = _by_port('healthy/leaf001/lldp_neighbors.json')
    assert set(ports) == {'eth1', 'eth2'}
    assert ports['eth2']['system_name'] == 'spine001' and ports['eth2']['peer_port'] == 'eth1'
    # Linux peers send their MAC as port ID and the interface name as description.
    assert ports['eth2']['port_id_type'] == 'mac' and ports['eth2']['port_descr'] == 'eth1'


def test_lldp_single_neighbour_object_shape():
    ports = _by_port('healthy/gpu0001/lldp_neighbors.json')
    assert list(ports) == ['eth1'] and ports['eth1']['system_name'] == 'leaf001'


def test_lldp_json0_format_gives_the_same_neighbours():
    for device in ('leaf001', 'gpu0001'):
        json0 = _by_port('variants/%s_lldp_neighbors_json0.json' % device)
        plain = _by_port('healthy/%s/lldp_neighbors.json' % device)
        assert {port: (item['system_name'], item['peer_port']) for port, item in json0.items()} == \
            {port: (item['system_name'], item['peer_port']) for port, item in plain.items()}


def test_lldp_no_neighbour_and_lost_neighbour():
    assert lldp.parse_lldp_neighbors(command_result('variants/gpu0002_lldp_neighbors_none.json')) == []
    assert 'eth2' not in _by_port('link_down/leaf001/lldp_neighbors.json')


def test_lldp_ifname_port_id_is_used_as_peer_port():
    text = ('{"lldp":{"interface":{"Ethernet0":{"chassis":{"spine1":{"id":{"type":"mac","value":"0:1"}}},'
            '"port":{"id":{"type":"ifname","value":"Ethernet8"},"descr":"to leaf1"}}}}}')
    (item,) = lldp.parse_lldp_neighbors(text)
    assert item['peer_port'] == 'Ethernet8' and item['system_name'] == 'spine1'


def test_lldp_neighbour_without_system_name():
    text = '{"lldp":{"interface":{"eth1":{"chassis":{"id":{"type":"mac","value":"0:1"}},"port":{"descr":"eth9"}}}}}'
    (item,) = lldp.parse_lldp_neighbors(text)
    assert item['system_name'] is None and item['chassis_id'] == '0:1' and item['peer_port'] == 'eth9'


@pytest.mark.parametrize('result, fragment', [
    ({'rc': 127, 'stdout': '', 'stderr': 'sh: 1: lldpcli: not found'}, 'rc 127'),
    ({'rc': 0, 'stdout': '', 'stderr': ''}, 'empty output'),
    ({'rc': 0, 'stdout': '{"neighbors": []}', 'stderr': ''}, 'no "lldp" key'),
    ({'rc': 0, 'stdout': '{"lldp": {"interface": ["eth1"]}}', 'stderr': ''}, 'expected a JSON object'),
    ({'rc': 0, 'stdout': '{"lldp": {"interface": {"eth1": {"chassis": {"a": 1, "b": 2}}}}}', 'stderr': ''}, 'unknown shape'),
])
def test_lldp_malformed(result, fragment):
    with pytest.raises(StateError) as caught:
        lldp.parse_lldp_neighbors(result)
    assert fragment in str(caught.value)


def test_lldpd_not_running_is_a_fact_not_an_error():
    """lldpcli without an lldpd (Debian bookworm's lldpd 1.0.16 stopped, as printed in the lab): rc 1 and a warning
    with a time stamp. It is the daemon being down, not unreadable output, and the time stamp is not part of it."""
    stderr = '2026-12-02T01:10:45 [WARN/control] unable to connect to socket /run/lldpd.socket: No such file or directory\n'
    result = {'rc': 1, 'stdout': '', 'stderr': stderr}
    with pytest.raises(DaemonDown) as caught:
        lldp.parse_lldp_neighbors(result)
    assert caught.value.daemon == 'lldpd' and caught.value.message == 'lldpd is not running'


def test_as_list_quirk_helper():
    assert as_list(None) == [] and as_list({'a': 1}) == [{'a': 1}] and as_list([1]) == [1]


# --------------------------------------------------------------------------- iproute2
def test_ip_addr_switch_details():
    links = iproute2.parse_ip_link(command_result('healthy/leaf001/ip_addr.json'))
    assert links['eth2']['mtu'] == 9100 and iproute2.is_up(links['eth2'])
    assert links['eth2']['addresses'][0] == {'family': 'inet', 'address': '10.0.0.1', 'prefixlen': 31}
    vxlan = links['vxlan10100']
    assert vxlan['kind'] == 'vxlan' and vxlan['vxlan'] == {'id': 10100, 'local': '10.254.16.1', 'port': 4789, 'tos': 1}
    assert vxlan['master'] == 'br100' and links['br100']['kind'] == 'bridge' and links['br100']['mtu'] == 9050
    assert iproute2.is_up(vxlan)  # VXLAN devices report operstate UNKNOWN when up


def test_vxlan_tos_inherit_and_routes_as_iproute2_prints_them():
    """iproute2 6.1 JSON of the lab (recorded on leaf001): `tos inherit` is "tos": "0x1"; a blackhole route has a
    type and no next hop; a BGP route its ECMP next hops."""
    link = iproute2.parse_ip_link('[{"ifname":"vxlan10100","flags":["BROADCAST","MULTICAST","UP","LOWER_UP"],"mtu":9050,'
                                  '"operstate":"UNKNOWN","linkinfo":{"info_kind":"vxlan","info_data":{"id":10100,'
                                  '"local":"10.254.16.1","port":4789,"learning":false,"tos":"0x1","ttl":0}}}]')
    assert link['vxlan10100']['vxlan']['tos'] == 1
    # iproute2 6.1 leaves tos out when it is 0 (a device without `tos inherit`, printed in the lab)
    plain = iproute2.parse_ip_link('[{"ifname":"vxtest","flags":["BROADCAST"],"mtu":1500,"operstate":"DOWN",'
                                   '"linkinfo":{"info_kind":"vxlan","info_data":{"id":5,"local":"10.9.9.9","port":4789,'
                                   '"learning":false,"ttl":0,"df":"unset"}}}]')
    assert plain['vxtest']['vxlan']['tos'] == 0
    routes = iproute2.parse_ip_route(
        '[{"type":"blackhole","dst":"10.254.16.3","flags":[]},{"dst":"10.254.16.4","nhid":31,"protocol":"bgp",'
        '"metric":20,"flags":[],"nexthops":[{"gateway":"10.0.0.0","dev":"eth3","weight":1,"flags":[]},'
        '{"gateway":"10.0.0.2","dev":"eth4","weight":1,"flags":[]}]}]')
    assert routes[0] == {'dst': '10.254.16.3', 'type': 'blackhole', 'protocol': None, 'metric': None, 'nexthops': []}
    assert routes[1]['type'] == 'unicast' and [hop['dev'] for hop in routes[1]['nexthops']] == ['eth3', 'eth4']


def test_ip_link_down_both_ends():
    leaf = iproute2.parse_ip_link(command_result('link_down/leaf001/ip_addr.json'))['eth2']
    spine = iproute2.parse_ip_link(command_result('link_down/spine001/ip_addr.json'))['eth1']
    assert not leaf['admin_up'] and not iproute2.is_up(leaf)
    assert spine['admin_up'] and not spine['lower_up'] and not iproute2.is_up(spine)


def test_ip_host_mtu_fault():
    links = iproute2.parse_ip_link(command_result('host_mtu_1500/gpu0001/ip_addr.json'))
    assert links['eth1']['mtu'] == 1500 and links['eth1']['addresses'][0]['address'] == '10.100.0.10'


@pytest.mark.parametrize('stdout', ['', '{"ifname": "eth0"}', '[{"mtu": 1500}]', '[1'])
def test_ip_malformed(stdout):
    with pytest.raises(StateError):
        iproute2.parse_ip_link({'rc': 0, 'stdout': stdout, 'stderr': ''})


def test_ip_route():
    routes = iproute2.parse_ip_route('[{"dst":"10.254.0.1","nhid":9,"gateway":"10.0.0.1","dev":"eth1","protocol":"bgp"},'
                                     '{"dst":"default","nexthops":[{"gateway":"1.1.1.1","dev":"eth0"}]}]')
    assert routes[0]['nexthops'] == [{'gateway': '10.0.0.1', 'dev': 'eth1'}] and routes[1]['dst'] == 'default'
    with pytest.raises(StateError):
        iproute2.parse_ip_route('[{"gateway": "1.1.1.1"}]')


# --------------------------------------------------------------------------- ping
def test_ping_ok_and_jumbo_ok():
    normal = ping.parse_ping(ping_result('healthy/gpu0001/ping_10.100.0.11.json'))
    jumbo = ping.parse_ping(ping_result('healthy/gpu0001/ping_jumbo_10.100.0.11.json'))
    assert normal['ok'] and normal['received'] == 3 and normal['loss_percent'] == 0 and normal['reason'] is None
    assert jumbo['ok'] and jumbo['payload'] == 8972 and jumbo['dont_fragment']


def test_ping_local_mtu_too_small():
    result = ping.parse_ping(ping_result('host_mtu_1500/gpu0001/ping_jumbo_10.100.0.11.json'))
    assert not result['ok'] and result['local_mtu'] == 1500 and result['errors'] == 3
    assert 'local interface MTU 1500' in result['reason']


def test_ping_silent_drop_on_the_path():
    for path in ('host_mtu_1500/gpu0002/ping_jumbo_10.100.0.10.json', 'ping/overlay_mtu_drop.json'):
        result = ping.parse_ping(ping_result(path))
        assert not result['ok'] and result['local_mtu'] is None and 'dropped on the path' in result['reason']


def test_ping_fragmentation_needed_names_the_router():
    result = ping.parse_ping(ping_result('ping/frag_needed.json'))
    assert result['frag_needed'] == {'from': '10.0.0.2', 'mtu': 1500}
    assert result['reason'].startswith('10.0.0.2 reports fragmentation needed: path MTU 1500')


def test_ping_unreachable_and_connect_errors():
    host = ping.parse_ping(ping_result('ping/host_unreachable.json'))
    assert host['unreachable'] == {'from': '10.100.0.10', 'kind': 'host'} and 'unreachable' in host['reason']
    net = ping.parse_ping(ping_result('ping/network_unreachable.json'))
    assert not net['ok'] and net['connect_error'] == 'connect: Network is unreachable'


def test_ping_partial_loss_is_ok_with_loss_recorded():
    result = ping.parse_ping(ping_result('ping/partial_loss.json'))
    assert result['ok'] and result['loss_percent'] == 50.0 and result['received'] == 5


@pytest.mark.parametrize('result, fragment', [
    ('ping output', 'expected a command result'),
    ({'skipped': True}, 'not run'),
    ({'msg': 'boom'}, 'did not run'),
    ({'rc': 2, 'stdout': '', 'stderr': 'ping: invalid argument'}, 'no packet statistics'),
    ({'rc': 0, 'stdout': '', 'stderr': ''}, 'no packet statistics'),
])
def test_ping_malformed(result, fragment):
    with pytest.raises(StateError) as caught:
        ping.parse_ping(result)
    assert fragment in str(caught.value)
