"""Topology generation, addressing, ASNs, VNIs and the lossless profile of designed fabrics."""

import ipaddress
import os
from collections import Counter

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import (
    design_from_file, design_from_intent, traffic_class_byte)
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.errors import IntentError
from tests.unit.utils.paths import ROOT

LAB = os.path.join(ROOT, 'fabrics', 'lab.yml')


def rail_networks(rails, prefix=24):
    return [{'name': 'rail%d' % rail, 'vlan': 100 + rail, 'subnet': '10.%d.0.0/%d' % (100 + rail, prefix), 'rails': [rail]}
            for rail in range(rails)]


@pytest.fixture(scope='module')
def lab():
    return design_from_file(LAB)


@pytest.fixture(scope='module')
def big():
    return design_from_intent({
        'name': 'pod16k',
        'topology': {'rail_optimized': {'servers': 2048, 'rails': 8, 'nic_speed_gbps': 400, 'leaf_radix': 64,
                                        'spine_radix': 64}},
        'overlay': {'networks': rail_networks(8, 20)},
    })


def test_lab_counts(lab):
    summary = lab.summary()
    assert (summary['hosts'], summary['leaves'], summary['spines'], summary['super_spines']) == (4, 4, 2, 0)
    assert summary['tiers'] == 2 and summary['links'] == 16 and summary['oversubscription'] == 1.0


def test_rail_wiring(lab):
    for host in lab.device_names('host'):
        model = lab.device(host)
        assert [entry['rail'] for entry in model['rails']] == [0, 1]
        for entry in model['rails']:
            assert lab.device(entry['leaf'])['rail'] == entry['rail']


def test_16k_gpu_fabric_is_three_tier_and_non_blocking(big):
    summary = big.summary()
    assert summary['gpus'] == 16384
    assert (summary['leaves'], summary['spines'], summary['super_spines'], summary['tiers'], summary['pods']) == (
        512, 512, 256, 3, 16)
    roles = Counter(link.role for link in big.links)
    assert roles == {'host_leaf': 16384, 'leaf_spine': 16384, 'spine_super_spine': 16384}


def test_ports_are_unique_and_within_radix(big):
    for node in big.nodes.values():
        ports = [link.end(node)[0] for link in node.links]
        assert len(ports) == len(set(ports)), node.name
        if node.role != 'host':
            assert max(ports) <= 64, node.name
            # Every switch port is used once: 32 down + 32 up on leaves and spines.
            assert len(ports) == 64 or node.role == 'super_spine'


def test_each_rail_leaf_serves_one_rail(big):
    for node in big.nodes.values():
        if node.role == 'leaf':
            rails = {link.rail for link in node.links if link.role == 'host_leaf'}
            assert rails == {node.rail}


def test_spines_join_their_plane_in_every_pod(big):
    planes = Counter()
    for link in big.links:
        if link.role == 'spine_super_spine':
            assert link.lower.plane == link.upper.plane
            planes[link.upper.name] += 1
    # A super-spine takes the same number of links from each of the 16 pods.
    assert set(planes.values()) == {64}


def test_addresses_are_unique_and_paired(big):
    seen = set()
    for lower, upper, prefix in big.link_ip.values():
        assert prefix == 31
        network = ipaddress.ip_network('%s/31' % upper)
        assert ipaddress.ip_address(lower) in network and upper == str(network.network_address)
        assert lower not in seen and upper not in seen
        seen.update((lower, upper))
    router_ids = list(big.router_id.values())
    assert len(router_ids) == len(set(router_ids)) == 1280
    assert len(set(big.vtep.values())) == 512


def test_asn_scheme(big):
    leaves = [big.asn[name] for name in big.device_names('leaf')]
    assert leaves == list(range(4200000000, 4200000512))
    assert {big.asn[name] for name in big.device_names('spine')} == set(range(65100, 65116))
    assert {big.asn[name] for name in big.device_names('super_spine')} == {65000}


def test_bgp_neighbors_match_links(lab):
    leaf = lab.device('leaf001')
    assert [(n['peer'], n['remote_asn'], n['ip']) for n in leaf['bgp']['neighbors']] == [
        ('spine001', 65100, '10.0.0.0'), ('spine002', 65100, '10.0.0.2')]
    spine = lab.device('spine001')
    assert len(spine['bgp']['neighbors']) == 4
    assert {n['remote_asn'] for n in spine['bgp']['neighbors']} == {4200000000, 4200000001, 4200000002, 4200000003}


def test_unnumbered_underlay_has_no_p2p_addresses():
    design = design_from_intent({'name': 'un', 'topology': {'rail_optimized': {'servers': 4, 'rails': 2, 'leaf_radix': 4,
                                                                               'nic_speed_gbps': 100}},
                                 'underlay': {'routing': 'ebgp_unnumbered'}, 'overlay': {'networks': rail_networks(2)}})
    leaf = design.device('leaf001')
    assert all(item['ipv4'] is None for item in leaf['interfaces'])
    assert [item['mode'] for item in leaf['interfaces']] == ['access', 'access', 'unnumbered', 'unnumbered']
    assert all(neighbor['ip'] is None for neighbor in leaf['bgp']['neighbors'])


def test_evpn_model_route_targets_and_ports(lab):
    evpn = lab.device('leaf003')['evpn']
    assert evpn['vtep_ip'] == lab.vtep['leaf003']
    assert [(vlan['vlan'], vlan['vni'], vlan['route_target'], vlan['ports']) for vlan in evpn['vlans']] == [
        (100, 10100, '65000:10100', ['eth1', 'eth2'])]
    assert lab.device('spine001')['evpn'] is None


def test_host_addresses_and_nccl(lab):
    host = lab.device('gpu0003')
    assert [entry['address'] for entry in host['rails']] == ['10.100.0.12/24', '10.101.0.12/24']
    assert host['nccl'] == {'NCCL_IB_HCA': '=mlx5_0:1,mlx5_1:1', 'NCCL_IB_TC': 106, 'NCCL_SOCKET_IFNAME': '=eth0',
                            'NCCL_IB_QPS_PER_CONNECTION': 4}
    assert host['rnic']['pfc_mask'] == [0, 0, 0, 1, 0, 0, 0, 0]


def test_traffic_class_byte_sets_ect0():
    assert traffic_class_byte(26) == 106
    assert traffic_class_byte(24) == 98


def test_lossless_chain_closes():
    design = design_from_intent({'name': 'q', 'topology': {'rail_optimized': {'servers': 4, 'rails': 2, 'leaf_radix': 4,
                                                                              'nic_speed_gbps': 100}},
                                 'overlay': {'networks': rail_networks(2)}})
    qos = design.device('leaf001')['qos']
    tc = qos['dscp_to_tc'][qos['roce_dscp']]
    assert tc == 3 and qos['tc_to_pg'][tc] == 3 and qos['tc_to_queue'][tc] == 3 and qos['pfc_to_queue'][3] == 3
    assert qos['dscp_to_tc'][qos['cnp_dscp']] == qos['cnp_priority'] == 6
    assert sum(1 for value in qos['dscp_to_tc'].values() if value == 3) == 1


def test_host_nic_gets_the_switches_whole_dscp_map():
    design = design_from_intent({'name': 'q', 'topology': {'rail_optimized': {'servers': 4, 'rails': 2, 'leaf_radix': 4,
                                                                              'nic_speed_gbps': 100}},
                                 'lossless': {'pfc': {'priorities': [4]}}, 'overlay': {'networks': rail_networks(2)}})
    # All 64 code points, as the switches map them: DSCP 24, 25, 27..31 are not on the lossless priority (the NIC's
    # own default, DSCP >> 3, would put them there), DSCP 26 is on priority 4 although 26 >> 3 = 3.
    nic_map = design.device('gpu0001')['rnic']['dscp_to_priority']
    assert nic_map == design.device('leaf001')['qos']['dscp_to_tc']
    assert sorted(nic_map) == list(range(64))
    assert nic_map[26] == 4 and nic_map[48] == 6
    assert {nic_map[dscp] for dscp in (24, 25, 27, 28, 29, 30, 31, 16, 63)} == {0}


def test_extra_dscp_map_reaches_switch_and_host():
    design = design_from_intent({'name': 'd', 'topology': {'rail_optimized': {'servers': 4, 'rails': 2, 'leaf_radix': 4,
                                                                              'nic_speed_gbps': 100}},
                                 'lossless': {'dscp_map': [{'dscp': 24, 'traffic_class': 3}, {'dscp': 10, 'traffic_class': 3}]},
                                 'overlay': {'networks': rail_networks(2)}})
    qos = design.device('leaf001')['qos']
    assert [dscp for dscp, tc in qos['dscp_to_tc'].items() if tc == 3] == [10, 24, 26]
    nic_map = design.device('gpu0001')['rnic']['dscp_to_priority']
    assert [dscp for dscp, prio in nic_map.items() if prio == 3] == [10, 24, 26]


def test_headroom_per_interface_and_budget():
    design = design_from_intent({'name': 'b', 'topology': {'rail_optimized': {'servers': 4, 'rails': 2, 'leaf_radix': 4,
                                                                              'nic_speed_gbps': 100}},
                                 'overlay': {'networks': rail_networks(2)}})
    leaf = design.device('leaf001')
    rooms = {item['cable_length_m']: item['headroom']['xoff'] for item in leaf['interfaces']}
    assert rooms[5] < rooms[40]
    budget = leaf['buffer']
    assert budget['headroom_bytes'] == sum(item['headroom']['size'] for item in leaf['interfaces'])
    # SONiC on the default SN5600 (dynamic buffer model, NVIDIA's image): the switch computes the shared pools from
    # the SKU's buffer (egress lossless pool of buffers_defaults_t1.j2) less every PG's headroom and what its pool
    # calculator reserves (sonic-swss cfgmgr/buffer_pool_mellanox.lua), split over the two ingress pools. Written out
    # here: 4 lossless 100G ports (one 100G lane each, in one cage) and 63 unused 8-lane cages, all up; Spectrum-4
    # pipeline latency 19 KiB, twice less 1 KiB on an 8-lane port.
    ports_up, lossless_ports, kib = 4 + 63, 4, 1024
    management = lossless_ports * 19 * kib + (ports_up - lossless_ports) * (2 * 19 - 1) * kib
    reserved = management + lossless_ports * 19 * kib + lossless_ports * 9216 + ports_up * 10 * kib + 256 * kib
    assert budget['reserved_bytes'] == reserved, budget['reserved']
    assert budget['egress_lossless_pool_bytes'] == 158229504
    assert budget['pool_bytes'] == (158229504 - reserved - budget['headroom_bytes']) // 2
    assert budget['headroom_room_bytes'] == 158229504 - reserved - 2 * (52161690 // 4) >= budget['headroom_bytes']
    assert budget['pool_source'].startswith('ACS-SN5600 HWSKU defaults, shared pools computed by the switch')
    assert [profile['name'] for profile in budget['profiles']] == ['pg_lossless_100000_40m_profile',
                                                                   'pg_lossless_100000_5m_profile']


def test_routed_host_attachment():
    design = design_from_intent({'name': 'r', 'topology': {'rail_optimized': {'servers': 4, 'rails': 2, 'leaf_radix': 4,
                                                                              'nic_speed_gbps': 100}},
                                 'hosts': {'attachment': 'routed'}})
    host = design.device('gpu0001')['rails'][0]
    leaf = design.device(host['leaf'])
    port = next(item for item in leaf['interfaces'] if item['peer'] == 'gpu0001')
    assert port['mode'] == 'routed' and port['peer_ipv4'] == host['ip'] and host['gateway'] == port['ipv4'].split('/')[0]
    assert host['routes'] == [{'to': '10.128.0.0/13', 'via': host['gateway']}]
    assert str(ipaddress.ip_interface(port['ipv4']).network) in leaf['bgp']['advertise']


def test_explicit_topology():
    design = design_from_intent({
        'name': 'ex',
        'topology': {'explicit': {
            'nodes': [{'name': 's1', 'role': 'spine'}, {'name': 'l1', 'role': 'leaf'}, {'name': 'h1', 'role': 'host'}],
            'links': [{'a': 's1', 'b': 'l1', 'speed_gbps': 400, 'a_port': 7},
                      {'a': 'h1', 'b': 'l1', 'speed_gbps': 400, 'cable_length_m': 3}]}},
        'overlay': {'networks': rail_networks(1)}})
    leaf = design.device('l1')
    assert [(item['port'], item['peer'], item['cable_length_m']) for item in leaf['interfaces']] == [
        (1, 's1', 40), (2, 'h1', 3)]
    assert design.device('s1')['interfaces'][0]['port'] == 7


def test_device_models_are_deterministic(lab):
    again = design_from_file(LAB)
    assert all(lab.device(name) == again.device(name) for name in lab.device_names())


def test_routed_networks_get_one_svi_address_per_leaf():
    design = design_from_intent({'name': 'v', 'topology': {'rail_optimized': {'servers': 4, 'rails': 2, 'leaf_radix': 4,
                                                                              'nic_speed_gbps': 100}},
                                 'overlay': {'vrfs': [{'name': 'T', 'l3vni': 5000}],
                                             'networks': [dict(rail_networks(2)[0], vrf='T'), rail_networks(2)[1]]}})
    addresses = {leaf: next(vlan['svi_ip'] for vlan in design.device(leaf)['evpn']['vlans'] if vlan['vlan'] == 100)
                 for leaf in ('leaf001', 'leaf003')}
    assert sorted(addresses.values()) == ['10.100.0.253', '10.100.0.254']
    # Kubernetes pod ranges stop below the SVI block.
    network = next(item for item in design.kubernetes()['networks'] if item['rail'] == 0)
    assert network['range_end'] == '10.100.0.252'


def test_a_routed_subnet_needs_room_for_the_svi_addresses():
    with pytest.raises(IntentError) as error:
        design_from_intent({'name': 'v', 'topology': {'rail_optimized': {'servers': 4, 'rails': 2, 'leaf_radix': 4,
                                                                         'nic_speed_gbps': 100}},
                            'hosts': {'address_offset': 2},
                            'overlay': {'vrfs': [{'name': 'T', 'l3vni': 5000}],
                                        'networks': [dict(rail_networks(2, 29)[0], vrf='T'), rail_networks(2)[1]]}})
    assert 'overlay.networks[0].subnet' in str(error.value) and 'per-leaf SVI' in str(error.value)


@pytest.mark.parametrize('speed,asic,expected', [
    (100, None, (150000, 1500000)),
    (400, None, (600000, 6000000)),
    (400, 'spectrum4', (600000, 6000000)),      # 192-byte cells divide both
    (400, 'tomahawk5', (600202, 6000242)),      # rounded up to 254-byte cells
    (800, 'spectrum3', (1200096, 6710832)),     # max capped at a tenth of the 64 MiB buffer, in cells
])
def test_ecn_thresholds_scale_with_speed_and_asic(speed, asic, expected):
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.asic import get_asic
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import ecn_thresholds
    spec = {'min_threshold_bytes': 150000, 'max_threshold_bytes': 1500000, 'mark_probability_percent': 100,
            'reference_speed_gbps': 100, 'scale_with_speed': True}
    result = ecn_thresholds(spec, speed, get_asic(asic) if asic else None)
    assert (result['min_threshold_bytes'], result['max_threshold_bytes']) == expected
    fixed = ecn_thresholds(dict(spec, scale_with_speed=False), speed, get_asic('spectrum4'))
    assert (fixed['min_threshold_bytes'], fixed['max_threshold_bytes']) == (150000, 1500000)


# NVIDIA's RoCE profile (Cumulus Linux 5.15 "RDMA over Converged Ethernet - RoCE": Spectrum-4 programs a 150,000 B
# minimum and a 1.43 MB = 1,500,000 B maximum, probability 100, whatever the port speed): bytes per port speed.
VENDOR_ECN_BY_SPEED = {speed: (150000, 1500000, 100) for speed in (10, 25, 40, 50, 100, 200, 400, 800)}


@pytest.mark.parametrize('speed', sorted(VENDOR_ECN_BY_SPEED))
@pytest.mark.parametrize('asic', ['spectrum3', 'spectrum4', 'tomahawk4', 'tomahawk5'])
def test_default_ecn_thresholds_are_the_vendor_profile_at_every_speed(speed, asic):
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.asic import get_asic
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import ecn_thresholds
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.intent import validate_intent
    intent, _issues = validate_intent({'name': 'e', 'topology': {'rail_optimized': {
        'servers': 4, 'rails': 2, 'leaf_radix': 4, 'nic_speed_gbps': 400}}})
    result = ecn_thresholds(intent['lossless']['ecn'], speed, get_asic(asic))
    assert (result['min_threshold_bytes'], result['max_threshold_bytes'],
            result['mark_probability_percent']) == VENDOR_ECN_BY_SPEED[speed]


def test_each_port_gets_the_ecn_of_its_speed():
    design = design_from_intent({'name': 'e', 'topology': {'rail_optimized': {
        'servers': 4, 'rails': 2, 'leaf_radix': 4, 'nic_speed_gbps': 400, 'uplink_speed_gbps': 800}},
        'overlay': {'networks': rail_networks(2)}, 'lossless': {'ecn': {'scale_with_speed': True}}})
    leaf = design.device('leaf001')
    assert {(item['speed_gbps'], item['ecn']['min_threshold_bytes']) for item in leaf['interfaces']} == {
        (400, 600000), (800, 1200000)}
    default = design_from_intent({'name': 'e', 'topology': {'rail_optimized': {
        'servers': 4, 'rails': 2, 'leaf_radix': 4, 'nic_speed_gbps': 400, 'uplink_speed_gbps': 800}},
        'overlay': {'networks': rail_networks(2)}}).device('leaf001')
    assert {(item['speed_gbps'], item['ecn']['max_threshold_bytes']) for item in default['interfaces']} == {
        (400, 1500000), (800, 1500000)}
