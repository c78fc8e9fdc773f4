# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fabric-wide design: topology, addressing, ASNs, VNIs, lossless profile and buffer headroom.

`FabricDesign(intent)` does every fabric-wide computation once; `device(name)` then returns the plain,
JSON-serialisable model of one switch or host, which is all a renderer or host role needs. A device's
model depends only on the intent, so --limit, forks and job slicing give identical results.
"""

from __future__ import annotations

import ipaddress
from collections import Counter

from .asic import get_asic
from .errors import IssueCollector
from .intent import VXLAN_OVERHEAD, load_schema, network_vni, read_intent_file, validate_intent
from .platforms import get_platform
from .topology import build_topology, intent_rails

SWITCH_ROLES = ('leaf', 'spine', 'super_spine')
DEFAULT_ADDRESS_OFFSET = load_schema()['properties']['hosts']['properties']['address_offset']['default']
DEFAULT_MANAGEMENT_OFFSET = load_schema()['properties']['management']['properties']['offset']['default']
ROLE_LABEL = {'host': 'GPU server', 'leaf': 'leaf', 'spine': 'spine', 'super_spine': 'super-spine'}
# Anycast gateway MAC shared by every leaf's SVI of a routed network: without one MAC per gateway IP, hosts
# learn a different router MAC per leaf. Locally administered (0x02 bit), so no vendor or VRRP MAC clashes.
ANYCAST_GATEWAY_MAC = '02:00:00:00:01:01'
# Dynamic-threshold exponents (alpha = 2**n, SAI/SONiC dynamic_th -8..7) of the buffer profiles around the
# lossless PGs; the values of SONiC's Mellanox and Broadcom SKU defaults (sonic-buildimage buffers_defaults_*,
# Configuration.md): lossless PG 0, lossy PG 3, lossless queue 7 (no egress drop), lossy queue 3.
BUFFER_DYNAMIC_THRESHOLDS = {'lossless_pg': 0, 'lossy_pg': 3, 'lossless_queue': 7, 'lossy_queue': 3}


def traffic_class_byte(dscp: int) -> int:
    """IPv4 ToS / RoCE GRH traffic class for a DSCP with ECT(0) set: 26 -> 106 (doRoCE, lshca)."""
    return (dscp << 2) | 0b10


def build_lossless_profile(intent) -> dict:
    """Fabric-wide DSCP -> TC -> PG -> queue maps, PFC, ECN, scheduler and watchdog, shared by every device."""
    spec = intent['lossless']
    priorities = list(spec['pfc']['priorities'])
    roce_priority = priorities[0]
    cnp = spec['cnp_priority']
    dscp_to_tc = {dscp: spec['default_traffic_class'] for dscp in range(64)}
    dscp_to_tc.update((entry['dscp'], entry['traffic_class']) for entry in spec['dscp_map'])
    dscp_to_tc[spec['roce_dscp']] = roce_priority
    dscp_to_tc[spec['cnp_dscp']] = cnp
    tc_to_pg = {tc: (tc if tc in priorities else 0) for tc in range(8)}
    # A NIC trusting DSCP maps DSCP d to priority d >> 3 unless told otherwise: override where the fabric differs
    # for the DSCPs hosts send (RoCE, CNP and the extra entries).
    host_dscps = [spec['roce_dscp'], spec['cnp_dscp']] + [entry['dscp'] for entry in spec['dscp_map']]
    host_overrides = {dscp: dscp_to_tc[dscp] for dscp in host_dscps if dscp >> 3 != dscp_to_tc[dscp]}
    watchdog = dict(spec['pfc']['watchdog'])
    return {
        'roce_dscp': spec['roce_dscp'],
        'cnp_dscp': spec['cnp_dscp'],
        'lossless_priorities': priorities,
        'roce_priority': roce_priority,
        'cnp_priority': cnp,
        'default_traffic_class': spec['default_traffic_class'],
        'lossy_traffic_classes': [tc for tc in range(8) if tc not in priorities and tc != cnp],
        'traffic_class_byte': traffic_class_byte(spec['roce_dscp']),
        'dscp_to_tc': dscp_to_tc,
        'tc_to_pg': tc_to_pg,
        'tc_to_queue': {tc: tc for tc in range(8)},
        'pfc_to_queue': {priority: priority for priority in range(8)},
        'pfc_to_pg': {priority: priority for priority in priorities},
        'pfc_mask': [1 if priority in priorities else 0 for priority in range(8)],
        'host_dscp_to_priority_overrides': host_overrides,
        'ecn': dict(spec['ecn']),
        'scheduler': dict(spec['scheduler']),
        'tc_bandwidth_percent': _tc_bandwidth_percent(priorities, spec['default_traffic_class'], spec['scheduler']),
        'watchdog': watchdog,
        'mtu': dict(spec['mtu']),
        'buffer': dict(spec['buffer']),
    }


def _tc_bandwidth_percent(priorities, default_tc, scheduler) -> dict:
    """DWRR/ETS percent per traffic class: the lossless share split over the lossless TCs (remainder to the
    first), the lossy share to the default TC. ETS percentages must not sum above 100 (NVUE, EOS)."""
    share, remainder = divmod(scheduler['lossless_weight_percent'], len(priorities))
    weights = {tc: share + (1 if index < remainder else 0) for index, tc in enumerate(priorities)}
    weights[default_tc] = scheduler['lossy_weight_percent']
    return weights


class _Pool:
    """Sequential allocation from an IPv4 pool, checked for size up front."""

    def __init__(self, path, network, needed, issues, what, block=1):
        self.network = ipaddress.IPv4Network(network)
        self.base = int(self.network.network_address)
        self.block = block
        available = self.network.num_addresses // block
        self.fits = needed <= available
        if not self.fits:
            issues.add(path, network, 'is too small: %d %s need %d addresses, the pool has %d'
                       % (needed, what, needed * block, self.network.num_addresses))

    def address(self, index):
        offset = index * self.block
        if offset >= self.network.num_addresses:
            # The pool is too small (an issue is already recorded and the design stops before any use): stay inside.
            offset = 0
        return ipaddress.IPv4Address(self.base + offset)


class FabricDesign:
    """Everything derived from one intent. Build once, then ask for devices."""

    def __init__(self, intent: dict, issues=None):
        """`intent` has passed the schema; `issues` holds its cross-field problems (validate_intent), if any, so that
        they are reported together with the design's own."""
        self.intent = intent
        self.name = intent['name']
        issues = issues if issues is not None else IssueCollector()
        topology_unusable = any(issue.path == 'topology' or issue.path.startswith('topology.naming')
                                for issue in issues.issues)
        self.topology = None if topology_unusable else build_topology(intent, issues)
        if self.topology is None:
            # The topology has problems; still report what can be checked without it.
            rails = intent_rails(intent)
            if rails is not None:
                self._check_rails(issues, rails)
            issues.raise_if_any()
        self.nodes = self.topology.nodes
        self.links = self.topology.links
        self.lossless = build_lossless_profile(intent)
        self._lane_steps = {}  # node name -> lanes per port (port numbering step)
        self._kubernetes = None
        self._check_devices(issues)
        self._check_rails(issues, self.topology.rails)
        issues.raise_if_any()
        self._assign_asns(issues)
        self._assign_addresses(issues)
        self._build_overlay(issues)
        issues.raise_if_any()
        self._compute_buffers(issues)
        issues.raise_if_any()

    # ----------------------------------------------------------------- checks needing the topology
    def _check_devices(self, issues):
        for name, override in self.intent['topology']['devices'].items():
            node = self.nodes.get(name)
            if node is None:
                issues.add(['topology', 'devices', name], override, 'is not a device of this fabric')
            elif node.role == 'host' and set(override) & {'platform', 'asic'}:
                issues.add(['topology', 'devices', name], override, 'platform and asic apply to switches only')
        for node in self.nodes.values():
            if node.role == 'host':
                continue
            asic = get_asic(node.asic)
            if get_platform(node.platform).lossless_dataplane:
                for speed in sorted({link.speed_gbps for link in node.links}):
                    if not asic.supports_speed(speed):
                        issues.add('topology.asic.%s' % node.role, node.asic,
                                   '%s has no published headroom for %dG ports (on %s)' % (node.asic, speed, node.name))
        if not self.topology.by_role('leaf'):
            issues.add('topology', None, 'the fabric has no leaves')

    def _check_rails(self, issues, rails):
        hosts_spec = self.intent['hosts']
        for key, default in (('rail_interfaces', 'eth'), ('rdma_devices', 'mlx5_')):
            given = hosts_spec[key]
            if given and len(given) != rails:
                issues.add('hosts.%s' % key, given, 'must list one entry per rail (%d rails)' % rails)
        if hosts_spec['attachment'] != 'evpn':
            return
        covered = {}
        for index, network in enumerate(self.intent['overlay']['networks']):
            for position, rail in enumerate(network['rails']):
                if rail >= rails:
                    issues.add('overlay.networks[%d].rails[%d]' % (index, position), rail,
                               'is not a rail of this fabric (rails 0..%d)' % (rails - 1))
                covered[rail] = index
        missing = [rail for rail in range(rails) if rail not in covered]
        if missing:
            issues.add('overlay.networks', [network['name'] for network in self.intent['overlay']['networks']],
                       'rails %s attach to no network; list them in overlay.networks[].rails' % missing)
        self.rail_network = {rail: self.intent['overlay']['networks'][index] for rail, index in covered.items()}

    # ----------------------------------------------------------------- ASNs and addresses
    def switches(self):
        return [node for node in self.nodes.values() if node.role != 'host']

    def hosts(self):
        return self.topology.by_role('host')

    def _assign_asns(self, issues):
        asn = self.intent['underlay']['asn']
        leaves = self.topology.by_role('leaf')
        capacity = asn['leaf_last'] - asn['leaf_first'] + 1
        if len(leaves) > capacity:
            issues.add('underlay.asn.leaf_last', asn['leaf_last'],
                       'gives %d leaf ASNs but the fabric has %d leaves (need leaf_last >= %d)'
                       % (capacity, len(leaves), asn['leaf_first'] + len(leaves) - 1))
        self.asn = {}
        for node in self.switches():
            if node.role == 'leaf':
                self.asn[node.name] = asn['leaf_first'] + node.index - 1
            elif node.role == 'spine':
                self.asn[node.name] = asn['spine'] + node.pod - 1
            else:
                self.asn[node.name] = asn['super_spine']
        last_spine_asn = asn['spine'] + self.topology.pods - 1
        if last_spine_asn > 4294967295:
            issues.add('underlay.asn.spine', asn['spine'], 'leaves no ASN for pod %d (spine ASN + pods - 1 = %d is above '
                       '4294967295)' % (self.topology.pods, last_spine_asn))
        spine_asns = {asn['spine'] + pod - 1 for pod in range(1, self.topology.pods + 1) if asn['spine'] + pod - 1 <= 4294967295}
        for value in sorted(spine_asns):
            if value == asn['super_spine'] or asn['leaf_first'] <= value <= asn['leaf_last']:
                issues.add('underlay.asn.spine', asn['spine'],
                           'pod ASN %d collides with the super-spine or leaf ASNs' % value)
                break

    def _assign_addresses(self, issues):
        pools = self.intent['underlay']['pools']
        switches = self.switches()
        leaves = self.topology.by_role('leaf')
        fabric_links = [link for link in self.links if link.role != 'host_leaf']
        host_links = [link for link in self.links if link.role == 'host_leaf']
        loopback = _Pool('underlay.pools.loopback', pools['loopback'], len(switches) + 1, issues, 'switch loopbacks')
        vtep = _Pool('underlay.pools.vtep', pools['vtep'], len(leaves) + 1, issues, 'leaf VTEPs')
        numbered = self.intent['underlay']['routing'] == 'ebgp_numbered'
        p2p = _Pool('underlay.pools.p2p', pools['p2p'], len(fabric_links) if numbered else 0, issues,
                    'fabric /31 links', block=2)
        routed_hosts = self.intent['hosts']['attachment'] == 'routed'
        host_p2p = _Pool('underlay.pools.host_p2p', pools['host_p2p'], len(host_links) if routed_hosts else 0,
                         issues, 'host /31 links', block=2)
        self.router_id = {node.name: str(loopback.address(position + 1)) for position, node in enumerate(switches)}
        self.vtep = {node.name: str(vtep.address(position + 1)) for position, node in enumerate(leaves)}
        # Per link: (lower address, upper address, prefix length); the upper tier takes the even address.
        self.link_ip = {}
        if numbered:
            for position, link in enumerate(fabric_links):
                upper = p2p.address(position)
                self.link_ip[link.index] = (str(upper + 1), str(upper), 31)
        if routed_hosts:
            for position, link in enumerate(host_links):
                upper = host_p2p.address(position)
                self.link_ip[link.index] = (str(upper + 1), str(upper), 31)
        self._assign_management(issues)

    def _assign_management(self, issues):
        spec = self.intent['management']
        overrides = {name: item['management_ip'] for name, item in self.intent['topology']['devices'].items()
                     if 'management_ip' in item}
        self.management_ip = {}
        ordered = self.switches() + self.hosts()
        if spec['pool']:
            size = ipaddress.IPv4Network(spec['pool']).num_addresses
            if spec['offset'] >= size and spec['offset'] != DEFAULT_MANAGEMENT_OFFSET:
                issues.add('management.offset', spec['offset'], 'is beyond management.pool %s (%d addresses: offsets '
                           '0..%d)' % (spec['pool'], size, size - 1))
                return
            pool = _Pool('management.pool', spec['pool'], len(ordered) + spec['offset'], issues,
                         'devices from offset %d' % spec['offset'])
            for position, node in enumerate(ordered):
                self.management_ip[node.name] = str(pool.address(spec['offset'] + position))
        self.management_ip.update(overrides)
        owners = {}
        for name, address in self.management_ip.items():
            if address in owners:
                issues.add(['topology', 'devices', name, 'management_ip'], address,
                           'is already the management address of %s' % owners[address])
            owners[address] = name

    # ----------------------------------------------------------------- overlay
    def _build_overlay(self, issues):
        overlay = self.intent['overlay']
        rt_asn = overlay['route_target_asn']
        self.vrfs = []
        for index, vrf in enumerate(overlay['vrfs']):
            self.vrfs.append({'name': vrf['name'], 'l3vni': vrf['l3vni'],
                              'vlan': vrf['vlan'] if vrf['vlan'] is not None else 4000 + index,
                              'route_target': '%d:%d' % (rt_asn, vrf['l3vni'])})
        self.networks = []
        hosts_per_rail = len(self.hosts())
        offset = self.intent['hosts']['address_offset']
        offset_reported = False
        for index, network in enumerate(overlay['networks']):
            subnet = ipaddress.IPv4Network(network['subnet'])
            gateway = network['gateway']
            if network['vrf'] is not None and gateway is None:
                gateway = str(subnet.network_address + 1)
            last_host = offset + hosts_per_rail - 1
            if network['rails'] and offset >= subnet.num_addresses - 1 and offset != DEFAULT_ADDRESS_OFFSET:
                # The offset the user set is the culprit, not the subnet (with the default offset, the subnet is).
                if not offset_reported:
                    offset_reported = True
                    issues.add('hosts.address_offset', offset, 'is beyond the rail subnet overlay.networks[%d].subnet '
                               '%s (host offsets 1..%d)' % (index, network['subnet'], subnet.num_addresses - 2))
            elif network['rails'] and last_host >= subnet.num_addresses - 1:
                issues.add('overlay.networks[%d].subnet' % index, network['subnet'],
                           'is too small: %d hosts from hosts.address_offset %d need offsets up to %d'
                           % (hosts_per_rail, offset, last_host))
            if gateway is not None and offset <= int(ipaddress.IPv4Address(gateway)) - int(subnet.network_address) <= last_host:
                issues.add('overlay.networks[%d].gateway' % index, gateway,
                           'collides with host addresses (hosts use offsets %d..%d)' % (offset, last_host))
            self.networks.append({
                'name': network['name'], 'vlan': network['vlan'], 'vni': network_vni(self.intent, network),
                'subnet': str(subnet), 'prefixlen': subnet.prefixlen, 'vrf': network['vrf'], 'gateway': gateway,
                'rails': list(network['rails']),
                'route_target': '%d:%d' % (rt_asn, network_vni(self.intent, network)),
            })
        self.network_by_rail = {rail: net for net in self.networks for rail in net['rails']}

    # ----------------------------------------------------------------- buffers
    def _compute_buffers(self, issues):
        """Headroom per lossless priority group and the summed budget per switch."""
        buffer_spec = self.intent['lossless']['buffer']
        mtu = self.intent['lossless']['mtu']['switch']
        priorities = len(self.lossless['lossless_priorities'])
        cache = {}
        self.buffer_budget = {}
        over = {}  # role -> [switch count, worst (excess, name, needed, pool)]
        for node in self.switches():
            if not get_platform(node.platform).lossless_dataplane:
                continue
            asic = get_asic(node.asic)
            pool = buffer_spec['pool_bytes'] or asic.buffer_bytes * buffer_spec['lossless_pool_percent'] // 100
            total = 0
            for link in node.links:
                key = (node.asic, link.speed_gbps, link.cable_length_m)
                room = cache.get(key)
                if room is None:
                    room = cache[key] = asic.headroom(link.speed_gbps, link.cable_length_m, mtu,
                                                      buffer_spec['lossless_mtu'], buffer_spec['small_packet_percent'])
                # Shared-headroom ASICs reserve only xoff in the pool; the others reserve the full size.
                total += (room.xoff if asic.lookup else room.size) * priorities
            self.buffer_budget[node.name] = {'pool_bytes': pool, 'headroom_bytes': total,
                                             'shared_headroom': bool(asic.lookup)}
            if total > pool:
                entry = over.setdefault(node.role, [0, None])
                entry[0] += 1
                candidate = (total - pool, node.name, total, pool)
                if entry[1] is None or candidate > entry[1]:
                    entry[1] = candidate
        self.headroom = cache
        for role, (count, (_unused, name, total, pool)) in over.items():
            issues.add('lossless.buffer', self.intent['lossless']['buffer'],
                       '%d %s(s) need more lossless headroom than the ingress pool holds; worst %s needs %d bytes '
                       'for a %d-byte pool (raise lossless_pool_percent or pool_bytes, shorten cables, or use fewer '
                       'lossless priorities)' % (count, ROLE_LABEL[role], name, total, pool))

    # ----------------------------------------------------------------- device models
    def device_names(self, role=None):
        return [name for name, node in self.nodes.items() if role is None or node.role == role]

    def interface_name(self, node, link) -> str:
        """Name of `link`'s end on `node`, as the device models name it (hosts: the rail netdev). For docs."""
        if node.role == 'host':
            return self._host_interface(link.rail)
        return get_platform(node.platform).port_name(link.end(node)[0], self._lane_step(node))

    def _lane_step(self, node) -> int:
        """Lanes per port at the node's fastest link speed (port numbering step), cached per node."""
        step = self._lane_steps.get(node.name)
        if step is None:
            step = self._lane_steps[node.name] = get_asic(node.asic).lanes(
                max((item.speed_gbps for item in node.links), default=100))
        return step

    def device(self, name: str) -> dict:
        node = self.nodes[name]
        if node.role == 'host':
            return self._host_model(node)
        return self._switch_model(node)

    def _interface(self, node, link, platform, lane_step):
        port, peer, peer_port = link.end(node)
        upward = link.lower is node
        peer_platform = get_platform(peer.platform) if peer.role != 'host' else None
        if peer_platform is not None:
            peer_interface = peer_platform.port_name(peer_port, self._lane_step(peer))
        else:
            peer_interface = self._host_interface(link.rail)
        addresses = self.link_ip.get(link.index)
        ipv4 = peer_ipv4 = None
        if addresses:
            mine, theirs = (addresses[0], addresses[1]) if upward else (addresses[1], addresses[0])
            ipv4, peer_ipv4 = '%s/%d' % (mine, addresses[2]), theirs
        mode = 'routed' if ipv4 else 'unnumbered'
        access_vlan = None
        if link.role == 'host_leaf' and ipv4 is None:
            mode = 'access'
            access_vlan = self.network_by_rail[link.rail]['vlan']
        room = self.headroom.get((node.asic, link.speed_gbps, link.cable_length_m))
        return {
            'name': platform.port_name(port, lane_step),
            'port': port,
            'link_index': link.index,
            'link_role': link.role,
            'direction': 'up' if upward else 'down',
            'speed_gbps': link.speed_gbps,
            'lanes': get_asic(node.asic).lanes(link.speed_gbps),
            'mtu': self.lossless['mtu']['switch'],
            'cable_length_m': link.cable_length_m,
            'peer': peer.name,
            'peer_role': peer.role,
            'peer_interface': peer_interface,
            'peer_asn': self.asn.get(peer.name),
            'description': '%s %s' % (peer.name, peer_interface),
            'mode': mode,
            'ipv4': ipv4,
            'peer_ipv4': peer_ipv4,
            'access_vlan': access_vlan,
            'rail': link.rail,
            'headroom': {'xon': room.xon, 'xoff': room.xoff, 'size': room.size} if room else None,
        }

    def _host_interface(self, rail):
        given = self.intent['hosts']['rail_interfaces']
        return given[rail] if given else 'eth%d' % (rail + 1)

    def _rdma_device(self, rail):
        given = self.intent['hosts']['rdma_devices']
        return given[rail] if given else 'mlx5_%d' % rail

    def _switch_model(self, node):
        platform = get_platform(node.platform)
        asic = get_asic(node.asic)
        lane_step = self._lane_step(node)
        interfaces = [self._interface(node, link, platform, lane_step) for link in node.links]
        numbered = self.intent['underlay']['routing'] == 'ebgp_numbered'
        fabric_interfaces = [item for item in interfaces if item['link_role'] != 'host_leaf']
        neighbors = [{
            'peer': item['peer'], 'interface': item['name'], 'ip': item['peer_ipv4'] if numbered else None,
            'remote_asn': item['peer_asn'], 'direction': item['direction'],
            'description': '%s:%s' % (item['peer'], item['peer_interface']),
        } for item in fabric_interfaces]
        is_leaf = node.role == 'leaf'
        evpn_enabled = bool(self.networks or self.vrfs)
        advertise = ['%s/32' % self.router_id[node.name]]
        if is_leaf:
            if evpn_enabled:
                advertise.append('%s/32' % self.vtep[node.name])
            if self.intent['hosts']['attachment'] == 'routed':
                advertise.extend(str(ipaddress.IPv4Interface(item['ipv4']).network)
                                 for item in interfaces if item['link_role'] == 'host_leaf')
        model = {
            'name': node.name,
            'fabric': self.name,
            'role': node.role,
            'platform': node.platform,
            'asic': node.asic,
            'asic_vendor': asic.vendor,
            'pod': node.pod,
            'rail': node.rail,
            'management_ip': self.management_ip.get(node.name),
            'asn': self.asn[node.name],
            'router_id': self.router_id[node.name],
            'mtu': self.lossless['mtu']['switch'],
            'interfaces': interfaces,
            'bgp': {
                'asn': self.asn[node.name],
                'router_id': self.router_id[node.name],
                'numbered': numbered,
                'bfd': self.intent['underlay']['bfd'],
                'neighbors': neighbors,
                'advertise': advertise,
                'evpn': evpn_enabled,
                'maximum_paths': max(2, len(neighbors)),
            },
            'evpn': self._evpn_model(node, interfaces) if is_leaf and evpn_enabled else None,
            'qos': self.lossless if get_platform(node.platform).lossless_dataplane else None,
            'buffer': self._buffer_model(node, interfaces),
        }
        return model

    def _evpn_model(self, node, interfaces):
        vtep = self.vtep[node.name]
        ports_by_vlan = {}
        for item in interfaces:
            if item['access_vlan'] is not None:
                ports_by_vlan.setdefault(item['access_vlan'], []).append(item['name'])
        vlans = []
        for network in self.networks:
            # Every leaf carries every network: rail traffic may cross any leaf of the rail's VNI.
            if node.rail is not None and network['rails'] and node.rail not in network['rails']:
                continue
            vlans.append(dict(network, ports=ports_by_vlan.get(network['vlan'], []),
                              rd='%s:%d' % (self.router_id[node.name], network['vlan'])))
        vrfs = [dict(vrf, rd='%s:%d' % (self.router_id[node.name], vrf['vlan']))
                for vrf in self.vrfs if any(vlan['vrf'] == vrf['name'] for vlan in vlans)]
        return {'vtep_ip': vtep, 'source_interface': 'lo', 'udp_port': 4789, 'vlans': vlans, 'vrfs': vrfs,
                'gateway_mac': ANYCAST_GATEWAY_MAC}

    def _buffer_model(self, node, interfaces):
        budget = self.buffer_budget.get(node.name)
        if budget is None:
            return None
        profiles = {}
        for item in interfaces:
            room = item['headroom']
            name = 'pg_lossless_%d_%dm_profile' % (item['speed_gbps'] * 1000, item['cable_length_m'])
            item['buffer_profile'] = name
            profiles[name] = dict(room, name=name, speed_gbps=item['speed_gbps'], cable_length_m=item['cable_length_m'])
        asic_bytes = get_asic(node.asic).buffer_bytes
        # Egress: lossless queues may use the whole buffer; lossy queues share what the ingress lossless pool leaves.
        return dict(budget, profiles=sorted(profiles.values(), key=lambda profile: profile['name']),
                    asic_buffer_bytes=asic_bytes, egress_lossless_pool_bytes=asic_bytes,
                    egress_lossy_pool_bytes=max(asic_bytes - budget['pool_bytes'], 0),
                    dynamic_thresholds=dict(BUFFER_DYNAMIC_THRESHOLDS))

    def _host_model(self, node):
        lossless = self.lossless
        attachment = self.intent['hosts']['attachment']
        table_base = self.intent['hosts']['routing_table_base']
        rails = []
        for link in node.links:
            leaf = link.upper
            leaf_platform = get_platform(leaf.platform)
            leaf_step = self._lane_step(leaf)
            entry = {
                'rail': link.rail,
                'interface': self._host_interface(link.rail),
                'rdma_device': self._rdma_device(link.rail),
                'speed_gbps': link.speed_gbps,
                'leaf': leaf.name,
                'leaf_interface': leaf_platform.port_name(link.upper_port, leaf_step),
                'table': table_base + link.rail,
                'rule_priority': 1000 + link.rail,
                'cable_length_m': link.cable_length_m,
            }
            if attachment == 'routed':
                mine, gateway, prefix = self.link_ip[link.index]
                entry.update(address='%s/%d' % (mine, prefix), ip=mine, prefixlen=prefix, gateway=gateway,
                             network=None, vlan=None,
                             routes=[{'to': self.intent['underlay']['pools']['host_p2p'], 'via': gateway}])
            else:
                network = self.network_by_rail[link.rail]
                subnet = ipaddress.IPv4Network(network['subnet'])
                ip = str(subnet.network_address + self.intent['hosts']['address_offset'] + node.index - 1)
                entry.update(address='%s/%d' % (ip, subnet.prefixlen), ip=ip, prefixlen=subnet.prefixlen,
                             gateway=network['gateway'], network=network['name'], vlan=network['vlan'],
                             subnet=network['subnet'], routes=self._rail_routes(network))
            rails.append(entry)
        rails.sort(key=lambda entry: entry['rail'])
        nccl = self._nccl(rails)
        sysctl = {'net.ipv4.conf.all.arp_ignore': 1, 'net.ipv4.conf.all.arp_announce': 2,
                  'net.ipv4.conf.all.rp_filter': 2, 'net.ipv4.conf.default.arp_ignore': 1,
                  'net.ipv4.conf.default.arp_announce': 2, 'net.ipv4.conf.default.rp_filter': 2}
        for entry in rails:
            key = entry['interface'].replace('.', '/')
            sysctl.update({'net.ipv4.conf.%s.arp_ignore' % key: 1, 'net.ipv4.conf.%s.arp_announce' % key: 2,
                           'net.ipv4.conf.%s.rp_filter' % key: 2})
        return {
            'name': node.name,
            'fabric': self.name,
            'role': 'host',
            'index': node.index,
            'pod': node.pod,
            'group': node.group,
            'management_ip': self.management_ip.get(node.name),
            'gpus': self.topology.gpus_per_server,
            'gpudirect': self.intent['hosts']['gpudirect'],
            'attachment': attachment,
            'bootstrap_interface': self.intent['hosts']['bootstrap_interface'],
            'mtu': lossless['mtu']['host'],
            'rails': rails,
            'rnic': {
                'trust': 'dscp',
                'pfc_priorities': lossless['lossless_priorities'],
                'pfc_mask': lossless['pfc_mask'],
                'roce_dscp': lossless['roce_dscp'],
                'roce_priority': lossless['roce_priority'],
                'cnp_dscp': lossless['cnp_dscp'],
                'cnp_priority': lossless['cnp_priority'],
                'dscp_to_priority_overrides': lossless['host_dscp_to_priority_overrides'],
                'ecn_priorities': lossless['lossless_priorities'],
                'traffic_class': lossless['traffic_class_byte'],
                'mtu': lossless['mtu']['host'],
            },
            'nccl': nccl,
            'sysctl': sysctl,
            'kubernetes': self.kubernetes(),
        }

    def _rail_routes(self, network):
        """Routes of a rail NIC in an overlay network: the other subnets of its VRF via the anycast gateway."""
        if not network['gateway']:
            return []
        return [{'to': other['subnet'], 'via': network['gateway']} for other in self.networks
                if other is not network and other['vrf'] == network['vrf']]

    def kubernetes(self) -> dict:
        """Multus secondary networks, one per rail, shared by every server of the fabric (computed once).

        Pods take the upper half of each rail subnet, above the hosts' addresses.
        """
        if self._kubernetes is None:
            self._kubernetes = self._build_kubernetes()
        return self._kubernetes

    def _build_kubernetes(self):
        spec = self.intent['hosts']['kubernetes']
        if self.intent['hosts']['attachment'] != 'evpn':
            return {'enabled': False, 'reason': 'routed /31 rail attachment leaves no rail addresses for pods '
                                                '(Kubernetes secondary networks need attachment: evpn)'}
        hosts = len(self.hosts())
        first_free = self.intent['hosts']['address_offset'] + hosts
        networks = []
        for rail in range(self.topology.rails):
            network = self.network_by_rail.get(rail)
            if network is None:
                continue
            subnet = ipaddress.IPv4Network(network['subnet'])
            start = subnet.network_address + max(subnet.num_addresses // 2, first_free)
            end = subnet.broadcast_address - 1
            if start > end:
                return {'enabled': False, 'reason': 'rail subnet %s has no room for pod addresses after the %d hosts'
                                                    % (subnet, hosts)}
            gateway = network['gateway']
            exclude = ['%s/32' % gateway] if gateway and start <= ipaddress.IPv4Address(gateway) <= end else []
            networks.append({'rail': rail, 'name': '%s-rail%d' % (self.name, rail),
                             'interface': self._host_interface(rail), 'rdma_device': self._rdma_device(rail),
                             'resource_name': 'rail%d' % rail, 'subnet': str(subnet),
                             'range_start': str(start), 'range_end': str(end), 'exclude': exclude,
                             'gateway': gateway, 'routes': self._rail_routes(network),
                             'mtu': self.lossless['mtu']['host']})
        # What NCCL inside a pod and the host NIC need to agree on, from the one lossless profile.
        return dict(spec, enabled=True, networks=networks, traffic_class=self.lossless['traffic_class_byte'],
                    pfc_priorities=self.lossless['lossless_priorities'])

    def _nccl(self, rails):
        spec = self.intent['hosts']['nccl']
        settings = {
            'NCCL_IB_HCA': '=' + ','.join('%s:1' % entry['rdma_device'] for entry in rails),
            'NCCL_IB_TC': self.lossless['traffic_class_byte'],
            'NCCL_SOCKET_IFNAME': '=' + self.intent['hosts']['bootstrap_interface'],
        }
        if spec['gid_index'] is not None:
            settings['NCCL_IB_GID_INDEX'] = spec['gid_index']
        if spec['qps_per_connection'] is not None:
            settings['NCCL_IB_QPS_PER_CONNECTION'] = spec['qps_per_connection']
        settings.update(sorted(spec['extra'].items()))
        return settings

    # ----------------------------------------------------------------- fabric views for docs
    def summary(self) -> dict:
        counts = Counter(node.role for node in self.nodes.values())
        return {
            'name': self.name,
            'tiers': self.topology.tiers,
            'pods': self.topology.pods,
            'rails': self.topology.rails,
            'gpus': counts['host'] * self.topology.gpus_per_server,
            'hosts': counts['host'],
            'leaves': counts['leaf'],
            'spines': counts['spine'],
            'super_spines': counts['super_spine'],
            'links': len(self.links),
            'leaf_downlinks': self.topology.leaf_downlinks,
            'leaf_uplinks': self.topology.leaf_uplinks,
            'oversubscription': round(self.topology.oversubscription, 3),
            'platforms': dict(Counter(node.platform for node in self.switches())),
        }


def design_from_intent(data) -> FabricDesign:
    """The design of an intent mapping; IntentError lists every problem of the intent and of its design at once."""
    intent, issues = validate_intent(data)
    return FabricDesign(intent, issues)


def design_from_file(path: str) -> FabricDesign:
    return design_from_intent(read_intent_file(path))


__all__ = ['FabricDesign', 'design_from_file', 'design_from_intent', 'build_lossless_profile',
           'traffic_class_byte', 'VXLAN_OVERHEAD']
