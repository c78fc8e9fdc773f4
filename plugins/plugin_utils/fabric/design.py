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
from collections.abc import Mapping

from .asic import get_asic
from .switch_models import get_model, load_models, physical_port, port_cage
from .errors import IssueCollector
from .intent import (VXLAN_OVERHEAD, idle_traffic_classes, load_schema, network_vni, nos_release, read_intent_file,
                     validate_intent)
from .platforms import PLATFORMS, get_platform
from .topology import build_topology, intent_rails

SWITCH_ROLES = ('leaf', 'spine', 'super_spine')
DEFAULT_ADDRESS_OFFSET = load_schema()['properties']['hosts']['properties']['address_offset']['default']
DEFAULT_MANAGEMENT_OFFSET = load_schema()['properties']['management']['properties']['offset']['default']
ROLE_LABEL = {'host': 'GPU server', 'leaf': 'leaf', 'spine': 'spine', 'super_spine': 'super-spine'}
# Anycast gateway MAC shared by every leaf's SVI of a routed network: without one MAC per gateway IP, hosts
# learn a different router MAC per leaf. Locally administered (0x02 bit), so no vendor or VRRP MAC clashes.
ANYCAST_GATEWAY_MAC = '02:00:00:00:01:01'
# VXLAN tunnels carry the lossless class end to end (uniform model, RFC 6040 ECN): the outer header copies the
# inner DSCP on encapsulation, so spines classify tunnelled RoCE on the RoCE DSCP; decapsulation keeps the inner
# DSCP the host sent; ECN is propagated both ways so congestion seen in the underlay reaches the receiver.
# NCCL queue pairs per connection on ECMP fabrics without adaptive routing (entropy: one UDP source port per QP).
DEFAULT_QPS_PER_CONNECTION = 4
# RoCEv2 UDP destination port, announced with its priority in the LLDP application TLV (IEEE 802.1Qaz).
ROCE_UDP_PORT = 4791
# A SONiC SKU's shared pools shrink to make room for headroom down to 1/4 of their default, no further.
MIN_SHRUNK_POOL_DIVISOR = 4
# SONiC pool names the design sizes (sonic-swss buffermgrd/orchagent names; every SKU has both).
INGRESS_LOSSLESS_POOL = 'ingress_lossless_pool'
EGRESS_LOSSLESS_POOL = 'egress_lossless_pool'
TUNNEL_QOS = {'encap_dscp': 'copy', 'decap_dscp': 'preserve', 'ecn': 'propagate'}


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
    # The DSCP each traffic class stands for when a VTEP derives the outer VXLAN DSCP from the class (platforms that
    # cannot copy the inner DSCP): RoCE and CNP classes their own DSCP, any other class the first DSCP mapped to it.
    tc_to_dscp = {}
    for dscp in range(64):
        tc_to_dscp.setdefault(dscp_to_tc[dscp], dscp)
    tc_to_dscp[roce_priority] = spec['roce_dscp']
    tc_to_dscp[cnp] = spec['cnp_dscp']
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
        'tc_to_dscp': dict(sorted(tc_to_dscp.items())),
        'tc_to_queue': {tc: tc for tc in range(8)},
        'pfc_to_queue': {priority: priority for priority in range(8)},
        'pfc_to_pg': {priority: priority for priority in priorities},
        'pfc_mask': [1 if priority in priorities else 0 for priority in range(8)],
        # LLDP application priority TLV: RoCEv2 (UDP 4791) on the RoCE priority, sent on host-facing ports.
        'lldp_app_priorities': [{'protocol': 'udp', 'port': ROCE_UDP_PORT, 'priority': roce_priority}],
        'ecn': dict(spec['ecn']),
        'scheduler': dict(spec['scheduler']),
        'tc_bandwidth_percent': _tc_bandwidth_percent(priorities, spec['default_traffic_class'], spec['scheduler'],
                                                      idle_traffic_classes(spec)),
        'watchdog': watchdog,
        'mtu': dict(spec['mtu']),
        'buffer': dict(spec['buffer']),
    }


def _tc_bandwidth_percent(priorities, default_tc, scheduler, idle) -> dict:
    """DWRR/ETS percent per traffic class: the lossless share split over the lossless TCs (remainder to the
    first), the lossy share to the default TC less 1 % for each class no DSCP maps to. Those idle classes get a
    DWRR share instead of strict priority, so the CNP class is the only strict one and nothing can starve the
    others (intent validation keeps the lossy share above the idle count). ETS percentages sum to 100."""
    share, remainder = divmod(scheduler['lossless_weight_percent'], len(priorities))
    weights = {tc: share + (1 if index < remainder else 0) for index, tc in enumerate(priorities)}
    weights[default_tc] = scheduler['lossy_weight_percent'] - len(idle)
    weights.update((tc, 1) for tc in idle)
    return dict(sorted(weights.items()))


def _vrf_rd_numbers(l3vnis) -> list:
    """Assigned number of each IP-VRF's route distinguisher (router-id:number, a 16-bit field).

    The L3VNI when it fits above the VLAN range (readable, as AVD does), else the next free number from 4096: an
    RD never looks like a VLAN id (MAC-VRF RDs are router-id:VLAN), and on EOS the L3VNI has no VLAN at all.
    """
    numbers = [vni if 4094 < vni <= 65535 else None for vni in l3vnis]
    taken = {number for number in numbers if number is not None}
    candidate = 4096
    for index, number in enumerate(numbers):
        if number is None or numbers.index(number) != index:
            while candidate in taken:
                candidate += 1
            numbers[index] = candidate
            taken.add(candidate)
    return numbers


# ECN maximum threshold cap: a tenth of the ASIC buffer, so one marking queue cannot claim the shared buffer before
# it marks (and the egress dynamic threshold still lets the queue reach it).
ECN_MAX_BUFFER_DIVISOR = 10


def ecn_thresholds(spec: dict, speed_gbps: int, asic=None) -> dict:
    """ECN thresholds of one port: the intent values at reference_speed_gbps scaled linearly with the port speed
    (the same queueing delay on every port: 150 KB at 100G is 12 us), rounded up to whole ASIC buffer cells and
    the maximum capped at a tenth of the ASIC buffer; or the intent values as given when scale_with_speed is off."""
    low, high = spec['min_threshold_bytes'], spec['max_threshold_bytes']
    if spec['scale_with_speed']:
        low = -(-low * speed_gbps // spec['reference_speed_gbps'])
        high = -(-high * speed_gbps // spec['reference_speed_gbps'])
        if asic is not None:
            cell = asic.cell_bytes
            low, high = -(-low // cell) * cell, -(-high // cell) * cell
            high = min(high, asic.buffer_bytes // ECN_MAX_BUFFER_DIVISOR // cell * cell)
            low = min(low, high // 2)
    return {'min_threshold_bytes': low, 'max_threshold_bytes': high,
            'mark_probability_percent': spec['mark_probability_percent']}


def dotted(value: int) -> str:
    """An IPv4 address as text, without building an IPv4Address object (tens of thousands per large fabric)."""
    return '%d.%d.%d.%d' % (value >> 24, (value >> 16) & 255, (value >> 8) & 255, value & 255)


class _Pool:
    """Sequential allocation from an IPv4 pool, checked for size up front."""

    def __init__(self, path, network, needed, issues, what, block=1):
        self.network = ipaddress.IPv4Network(network)
        self.base = int(self.network.network_address)
        self.block = block
        self.size = self.network.num_addresses
        available = self.size // block
        self.fits = needed <= available
        if not self.fits:
            issues.add(path, network, 'is too small: %d %s need %d addresses, the pool has %d'
                       % (needed, what, needed * block, self.size))

    def text(self, index, plus=0):
        """The dotted address of block `index` (+ `plus`)."""
        return dotted(self.base + self._offset(index) + plus)

    def _offset(self, index):
        offset = index * self.block
        if offset >= self.size:
            # The pool is too small (an issue is already recorded and the design stops before any use): stay inside.
            offset = 0
        return offset


class _LinkAddresses(Mapping):
    """link index -> (lower address, upper address, 31), the /31 of each numbered link from its pool, formatted on
    first use: a 16k fabric has 49,152 links, the render of one device needs its own few."""

    def __init__(self):
        self._place = {}  # link index -> (pool, position in the pool)
        self._known = {}

    def add(self, pool, links):
        self._place.update((link.index, (pool, position)) for position, link in enumerate(links))

    def __getitem__(self, index):
        known = self._known.get(index)
        if known is None:
            pool, position = self._place[index]
            known = self._known[index] = (pool.text(position, 1), pool.text(position), 31)
        return known

    def __iter__(self):
        return iter(self._place)

    def __len__(self):
        return len(self._place)


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
        self._kubernetes = None
        self._ecn_cache = {}
        self._check_devices(issues)
        self._check_rails(issues, self.topology.rails)
        issues.raise_if_any()
        self._assign_ports(issues)
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
            elif node.role == 'host' and set(override) & {'platform', 'asic', 'model', 'nos_release'}:
                issues.add(['topology', 'devices', name], override,
                           'platform, model, asic and nos_release apply to switches only')
            elif node.role != 'host' and 'nos_release' in override:
                platform = get_platform(node.platform)
                if override['nos_release'] not in platform.releases:
                    issues.add(['topology', 'devices', name, 'nos_release'], override['nos_release'],
                               'is not a supported %s release (supported: %s)'
                               % (platform.title, ', '.join(platform.releases)))
        models = load_models()
        reported = set()
        for node in self.switches():
            problem = self._hardware_problem(node, models)
            if problem and (tuple(problem[0]), problem[1]) not in reported:
                reported.add((tuple(problem[0]), problem[1]))
                issues.add(*problem)
        if self.intent['underlay']['ecmp']['adaptive_routing']:
            lacking = sorted({node.model or node.platform for node in self.switches()
                              if not get_platform(node.platform).adaptive_routing
                              or not (node.model and models[node.model].adaptive_routing)})
            if lacking:
                capable = sorted(name for name, model in models.items() if model.adaptive_routing)
                issues.add('underlay.ecmp.adaptive_routing', True,
                           'needs switches that do adaptive routing (%s, on %s); not available on: %s'
                           % (', '.join(capable), ', '.join(sorted(name for name, platform in PLATFORMS.items()
                                                                   if platform.adaptive_routing)), ', '.join(lacking)))
        if not self.topology.by_role('leaf'):
            issues.add('topology', None, 'the fabric has no leaves')

    def _hardware_path(self, node, key):
        override = self.intent['topology']['devices'].get(node.name, {})
        return ['topology', 'devices', node.name, key] if key in override else ['topology', key, node.role]

    def _hardware_problem(self, node, models):
        """(path, value, message) of the first thing wrong with a switch's platform/model/ASIC, or None."""
        platform = get_platform(node.platform)
        if node.model is None:
            if platform.uses_models:
                runs = sorted(name for name, model in models.items() if node.platform in model.nos)
                return (self._hardware_path(node, 'asic'), node.asic,
                        'no shipped switch model runs %s with this ASIC; name one in topology.model (models for %s: %s)'
                        % (node.platform, node.platform, ', '.join(runs)))
            return None
        model = models[node.model]
        if node.platform not in model.nos:
            return (self._hardware_path(node, 'model'), node.model,
                    '%s runs %s, not %s' % (model.title, ', '.join(model.nos), node.platform))
        if node.asic != model.asic:
            same = sorted(name for name, other in models.items() if other.asic == node.asic and node.platform in other.nos)
            return (self._hardware_path(node, 'asic'), node.asic,
                    'contradicts model %s (%s); drop the asic or pick a %s model (%s)'
                    % (node.model, model.asic, node.asic, ', '.join(same) or 'none shipped'))
        asic = get_asic(node.asic)
        for speed in sorted({link.speed_gbps for link in node.links}):
            if model.mode(speed) is None:
                return (self._hardware_path(node, 'model'), node.model,
                        '%s cannot run %dG ports (speeds: %s; on %s)'
                        % (model.title, speed, ', '.join('%dG' % item for item in model.speeds()), node.name))
            if platform.lossless_dataplane and not asic.supports_speed(speed, model.headroom_lookup):
                return (self._hardware_path(node, 'asic'), node.asic,
                        'no headroom data for %s at %dG (%s; on %s): lossless buffers cannot be sized'
                        % (node.asic, speed, asic.source, node.name))
        if platform.lossless_dataplane and platform.uses_sku_buffers and model.sonic is None:
            return (self._hardware_path(node, 'model'), node.model, 'has no SONiC HWSKU data')
        return None

    def _assign_ports(self, issues):
        """Name, lanes, breakout and FEC of every switch port from its model (lab platforms: prefix + number),
        keyed by link index.

        Topology port p at speed s sits on cage (p - 1) // ports_per_cage + 1 of the model's front panel (port
        numbers count ports of that speed, so an 800G uplink and a 400G host port may share a number); a cage runs
        one breakout mode, carries one link per sub-port, and the front panel has model.port_count cages.
        """
        self.ports = {}
        layouts = {}  # switches with the same model and the same ports in use (every leaf, most spines) share one
        for node in self.switches():
            pattern = tuple((link.end(node)[0], link.speed_gbps) for link in node.links)
            key = (node.platform, node.model, pattern)
            layout = layouts.get(key) or layouts.setdefault(key, self._port_layout(node, pattern))
            infos, problem = layout
            if problem:
                issues.add(self._hardware_path(node, 'model'), node.model, problem % {'switch': node.name})
            self.ports[node.name] = {link.index: info for link, info in zip(node.links, infos)}

    @staticmethod
    def _port_layout(node, pattern):
        """([physical port of each (port number, speed) of `pattern`, up to the first problem], the problem or None,
        with %(switch)s for the switch's name)."""
        platform = get_platform(node.platform)
        model = get_model(node.model) if node.model else None
        infos, cage_mode, used_slots = [], {}, set()
        for number, speed in pattern:
            if model is None:
                infos.append({'name': '%s%d' % (platform.port_prefix, number), 'lanes': None, 'lane_ids': None,
                              'alias': None, 'fec': None, 'breakout': None, 'split': False, 'parent': None,
                              'cage': number, 'subport': 0})
                continue
            info = physical_port(platform.port_naming, model, number, speed)
            if info is None:
                return infos, ('%s has %d ports; %%(switch)s needs port %d (%dG, cage %d): more ports than the model '
                               'has; pick a bigger model, fewer servers per leaf or a higher oversubscription'
                               % (model.title, model.port_count, number, speed, port_cage(model, number, speed)))
            slot = (info['cage'], info['subport'])
            if slot in used_slots:
                return infos, 'cage %d sub-port %d of %%(switch)s carries two links' % slot
            used_slots.add(slot)
            other = cage_mode.setdefault(info['cage'], info['breakout'])
            if other != info['breakout']:
                return infos, ('cage %d of %%(switch)s would need two breakout modes (%s and %s)'
                               % (info['cage'], other, info['breakout']))
            infos.append(info)
        return infos, None

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
        self.router_id = {node.name: loopback.text(position + 1) for position, node in enumerate(switches)}
        self.vtep = {node.name: vtep.text(position + 1) for position, node in enumerate(leaves)}
        # Per link: (lower address, upper address, prefix length); the upper tier takes the even address.
        self.link_ip = _LinkAddresses()
        if numbered:
            self.link_ip.add(p2p, fabric_links)
        if routed_hosts:
            self.link_ip.add(host_p2p, host_links)
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
            if not pool.fits:
                return  # one problem on the pool, not thousands of duplicate addresses that follow from it
            for position, node in enumerate(ordered):
                self.management_ip[node.name] = pool.text(spec['offset'] + position)
        self.management_ip.update(overrides)
        self.management_network = ipaddress.IPv4Network(spec['pool']) if spec['pool'] else None
        self.management_gateway = spec['gateway'] or (str(self.management_network.network_address + 1)
                                                      if self.management_network and
                                                      self.management_network.prefixlen < 31 else None)
        owners = {self.management_gateway: 'the management gateway'} if self.management_gateway else {}
        for name, address in self.management_ip.items():
            if address in owners:
                issues.add(['topology', 'devices', name, 'management_ip'], address,
                           'is already the management address of %s' % owners[address])
            elif self.management_network and name in overrides and self.nodes[name].role != 'host' and \
                    ipaddress.IPv4Address(address) not in self.management_network:
                issues.add(['topology', 'devices', name, 'management_ip'], address,
                           'is outside management.pool %s (the switch gets the pool\'s prefix length and gateway)'
                           % self.management_network)
            owners[address] = name

    def _management_model(self, node):
        """What a full-config replace must keep so the operator is not locked out: the management interface with
        its address and gateway (in the NOS's management VRF), services and local users (hashes come at render
        time from Ansible variables, never from the design)."""
        spec = self.intent['management']
        platform = get_platform(node.platform)
        address = self.management_ip.get(node.name)
        in_pool = address is not None and self.management_network is not None
        return {
            'interface': platform.management_interface,
            'vrf': platform.management_vrf if spec['vrf'] else None,
            'address': '%s/%d' % (address, self.management_network.prefixlen) if in_pool else None,
            'gateway': self.management_gateway if in_pool else None,
            'ntp_servers': list(spec['ntp_servers']),
            'syslog_servers': list(spec['syslog_servers']),
            'dns_servers': list(spec['dns_servers']),
            'dns_domain': spec['dns_domain'],
            'tacacs_servers': list(spec['tacacs_servers']),
            'users': [{'name': user['name'], 'role': user['role']} for user in spec['users']],
        }

    # ----------------------------------------------------------------- overlay
    def _build_overlay(self, issues):
        overlay = self.intent['overlay']
        rt_asn = overlay['route_target_asn']
        self.vrfs = []
        rd_numbers = _vrf_rd_numbers([vrf['l3vni'] for vrf in overlay['vrfs']])
        for index, vrf in enumerate(overlay['vrfs']):
            self.vrfs.append({'name': vrf['name'], 'l3vni': vrf['l3vni'],
                              'vlan': vrf['vlan'] if vrf['vlan'] is not None else 4000 + index,
                              'rd_number': rd_numbers[index],
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
            # Routed networks: every leaf carrying the network has its own SVI address (VRR on NVUE: the anycast
            # gateway is a virtual address; the SVI needs a unique one), taken from the top of the subnet.
            carriers = [leaf.name for leaf in self.topology.by_role('leaf')
                        if leaf.rail is None or not network['rails'] or leaf.rail in network['rails']] \
                if gateway is not None else []
            first_svi = subnet.num_addresses - 1 - len(carriers)  # offset of the lowest SVI address
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
            elif carriers and (last_host >= first_svi or first_svi <= 1):
                issues.add('overlay.networks[%d].subnet' % index, network['subnet'],
                           'is too small: %d hosts from offset %d, the gateway and %d per-leaf SVI addresses (VRR) '
                           'at the top of the subnet need %d addresses'
                           % (hosts_per_rail, offset, len(carriers), max(last_host, 1) + len(carriers) + 2))
            if gateway is not None and offset <= int(ipaddress.IPv4Address(gateway)) - int(subnet.network_address) <= last_host:
                issues.add('overlay.networks[%d].gateway' % index, gateway,
                           'collides with host addresses (hosts use offsets %d..%d)' % (offset, last_host))
            self.networks.append({
                'name': network['name'], 'vlan': network['vlan'], 'vni': network_vni(self.intent, network),
                'subnet': str(subnet), 'prefixlen': subnet.prefixlen, 'vrf': network['vrf'], 'gateway': gateway,
                'rails': list(network['rails']),
                'route_target': '%d:%d' % (rt_asn, network_vni(self.intent, network)),
                'svi_addresses': {leaf: str(subnet.network_address + first_svi + position)
                                  for position, leaf in enumerate(carriers)},
                'svi_first_offset': first_svi if carriers else None,
            })
        self.network_by_rail = {rail: net for net in self.networks for rail in net['rails']}
        # NCCL settings, sysctls and RDMA NIC QoS of servers with the same NICs: one shared (read-only) object each
        self._host_parts = {}
        # per rail network: its first address as an integer and the routes of its servers (shared, read-only)
        self._rail_network = {net['name']: (int(ipaddress.IPv4Network(net['subnet']).network_address),
                                            self._rail_routes(net)) for net in self.networks}

    # ----------------------------------------------------------------- buffers
    def _compute_buffers(self, issues):
        """Headroom per lossless priority group and the summed budget per switch, checked against the real pool.

        SONiC: pool sizes are the HWSKU's own defaults (buffers_defaults_t1.j2 of the model). Independent headroom
        (Spectrum) reserves each PG's full size outside the shared ingress pools, so the sum of sizes must fit what
        the SKU's total buffer (its egress lossless pool) leaves beside them; a shared headroom pool (Broadcom)
        holds every PG's xoff inside the ingress pool. Other NOSes size pools themselves; the check uses the ASIC's
        datasheet buffer times lossless_pool_percent (NVUE renders that percent as its traffic pool).
        """
        buffer_spec = self.intent['lossless']['buffer']
        mtu = self.intent['lossless']['mtu']['switch']
        priorities = len(self.lossless['lossless_priorities'])
        cache = {}
        self.buffer_budget = {}
        over = {}  # role -> [switch count, worst (excess, name, needed, room)]
        for node in self.switches():
            if not get_platform(node.platform).lossless_dataplane:
                continue
            asic = get_asic(node.asic)
            model = get_model(node.model) if node.model else None
            lookup = model.headroom_lookup if model else None
            shared = asic.shared_headroom(lookup)
            total = 0
            for link in node.links:
                key = (node.model or node.asic, link.speed_gbps, link.cable_length_m)
                room = cache.get(key)
                if room is None:
                    room = cache[key] = asic.headroom(link.speed_gbps, link.cable_length_m, mtu,
                                                      buffer_spec['lossless_mtu'], buffer_spec['small_packet_percent'],
                                                      lookup=lookup, shared_headroom=shared)
                # Shared-headroom ASICs reserve only xoff in the pool; the others reserve the full size.
                total += (room.xoff if shared else room.size) * priorities
            uses_sku = get_platform(node.platform).uses_sku_buffers
            sku = model.sonic['buffers'] if model and model.sonic and uses_sku else None
            budget = {'headroom_bytes': total, 'shared_headroom': shared, 'pool_source': 'asic datasheet'}
            if sku:
                pools, source, room_for_headroom = self._sku_pools(sku, total, shared, buffer_spec['pool_bytes'])
                pool = pools[INGRESS_LOSSLESS_POOL]['size']
                budget.update(pool_source='%s HWSKU defaults%s' % (model.sonic['hwsku'], source), pools=pools, sku=sku,
                              egress_lossless_pool_bytes=pools[EGRESS_LOSSLESS_POOL]['size'])
            else:
                pool = buffer_spec['pool_bytes'] or asic.buffer_bytes * buffer_spec['lossless_pool_percent'] // 100
                budget.update(egress_lossless_pool_bytes=asic.buffer_bytes)
                room_for_headroom = pool
            budget.update(pool_bytes=pool, headroom_room_bytes=max(room_for_headroom, 0))
            self.buffer_budget[node.name] = budget
            if total > room_for_headroom:
                entry = over.setdefault(node.role, [0, None])
                entry[0] += 1
                candidate = (total - room_for_headroom, node.name, total, room_for_headroom, budget['pool_source'])
                if entry[1] is None or candidate > entry[1]:
                    entry[1] = candidate
        self.headroom = cache
        for role, (count, (_unused, name, total, room, source)) in over.items():
            issues.add('lossless.buffer', self.intent['lossless']['buffer'],
                       '%d %s(s) need more lossless headroom than the buffer holds; worst %s needs %d bytes where '
                       '%d are left (%s; raise lossless_pool_percent or pool_bytes where they apply, shorten cables, '
                       'or use fewer lossless priorities)' % (count, ROLE_LABEL[role], name, total, room, source))

    @staticmethod
    def _sku_pools(sku, total, shared, pool_bytes):
        """(pools, note for pool_source, bytes left for headroom) of a SONiC SKU's pools holding `total` bytes
        of headroom. The pools are the SKU's (buffers_defaults_t1.j2); an explicit pool_bytes sizes the ingress
        lossless pool.

        Shared headroom (Broadcom SKUs): every PG's xoff sits in the ingress lossless pool's shared headroom pool,
        which is the SKU's own or the design's headroom where that needs more. Independent headroom (Spectrum):
        the SKU's total buffer (its egress lossless pool) holds the ingress pools plus every PG's reserved
        headroom. When the SKU's defaults leave too little, the pools shrink as SONiC's own Mellanox calculator
        sizes them (sonic-swss cfgmgr/buffer_pool_mellanox.lua: the ingress pools and the egress lossy pool all
        get what the total leaves, split over the ingress pools), but never below a quarter of the SKU's default:
        below that the lossless class would pause at every burst.
        """
        pools = {name: dict(fields) for name, fields in sku['pools'].items()}
        ingress = pools[INGRESS_LOSSLESS_POOL]
        if pool_bytes:
            ingress['size'] = pool_bytes
        if shared:
            ingress['xoff'] = max(ingress.get('xoff', 0), total)
            return pools, '', ingress['size']
        ingress_pools = [fields for fields in pools.values() if fields['type'] == 'ingress']
        mmu = pools[EGRESS_LOSSLESS_POOL]['size']
        room = mmu - sum(fields['size'] for fields in ingress_pools)
        if pool_bytes or room >= total:
            return pools, '', room
        floor = sku['pools'][INGRESS_LOSSLESS_POOL]['size'] // MIN_SHRUNK_POOL_DIVISOR
        size = max((mmu - total) // len(ingress_pools), floor)
        for name, fields in pools.items():
            if name != EGRESS_LOSSLESS_POOL:
                fields['size'] = size
        return pools, ', shared pools shrunk to fit the headroom', mmu - size * len(ingress_pools)

    # ----------------------------------------------------------------- device models
    def device_names(self, role=None):
        return [name for name, node in self.nodes.items() if role is None or node.role == role]

    def interface_name(self, node, link) -> str:
        """Name of `link`'s end on `node`, as the device models name it (hosts: the rail netdev). For docs."""
        if node.role == 'host':
            return self._host_interface(link.rail)
        return self.ports[node.name][link.index]['name']

    def device(self, name: str) -> dict:
        """The model of one device. It shares parts with other devices' models (physical ports, the NIC settings
        of servers with the same NICs), which renderers format once: read it, never change it."""
        node = self.nodes[name]
        if node.role == 'host':
            return self._host_model(node)
        return self._switch_model(node)

    def _interface(self, node, link):
        port, peer, peer_port = link.end(node)
        upward = link.lower is node
        if peer.role != 'host':
            peer_interface = self.ports[peer.name][link.index]['name']
        else:
            peer_interface = self._host_interface(link.rail)
        physical = self.ports[node.name][link.index]
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
        room = self.headroom.get((node.model or node.asic, link.speed_gbps, link.cable_length_m))
        return {
            'name': physical['name'],
            'port': port,
            'link_index': link.index,
            'link_role': link.role,
            'direction': 'up' if upward else 'down',
            'speed_gbps': link.speed_gbps,
            'lanes': physical['lanes'],
            # Hardware of the port from the switch model: front-panel cage and sub-port, SONiC lanes and alias,
            # the breakout mode of the cage (as platform.json spells it) and FEC (RS on 25G+ lanes).
            'cage': physical['cage'],
            'subport': physical['subport'],
            'lane_ids': physical['lane_ids'],
            'alias': physical['alias'],
            'breakout': physical['breakout'],
            'breakout_parent': physical['parent'],
            'split': physical['split'],
            'fec': physical['fec'],
            'mtu': self.lossless['mtu']['switch'],
            'cable_length_m': link.cable_length_m,
            'peer': peer.name,
            'peer_role': peer.role,
            'peer_interface': peer_interface,
            # ECN thresholds of this port's lossless queues, scaled with its speed (lossless.ecn).
            'ecn': self._ecn(node.asic, link.speed_gbps),
            'peer_asn': self.asn.get(peer.name),
            'description': '%s %s' % (peer.name, peer_interface),
            'mode': mode,
            'ipv4': ipv4,
            'peer_ipv4': peer_ipv4,
            'access_vlan': access_vlan,
            'rail': link.rail,
            'headroom': {'xon': room.xon, 'xoff': room.xoff, 'size': room.size} if room else None,
        }

    def _ecn(self, asic, speed_gbps):
        """ECN thresholds per (ASIC, speed), computed once: every port of that kind shares the same dict."""
        key = (asic, speed_gbps)
        ecn = self._ecn_cache.get(key)
        if ecn is None:
            ecn = self._ecn_cache[key] = ecn_thresholds(self.intent['lossless']['ecn'], speed_gbps,
                                                        get_asic(asic) if asic else None)
        return ecn

    def _host_interface(self, rail):
        given = self.intent['hosts']['rail_interfaces']
        return given[rail] if given else 'eth%d' % (rail + 1)

    def _rdma_device(self, rail):
        given = self.intent['hosts']['rdma_devices']
        return given[rail] if given else 'mlx5_%d' % rail

    def _switch_model(self, node):
        asic = get_asic(node.asic) if node.asic else None
        interfaces = [self._interface(node, link) for link in node.links]
        numbered = self.intent['underlay']['routing'] == 'ebgp_numbered'
        fabric_interfaces = [item for item in interfaces if item['link_role'] != 'host_leaf']
        neighbors = [{
            'peer': item['peer'], 'interface': item['name'], 'ip': item['peer_ipv4'] if numbered else None,
            'remote_asn': item['peer_asn'], 'direction': item['direction'],
            'description': '%s:%s' % (item['peer'], item['peer_interface']),
        } for item in fabric_interfaces]
        is_leaf = node.role == 'leaf'
        timers = self.intent['underlay']['timers']
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
            'asic_vendor': asic.vendor if asic else None,
            'hardware': self._hardware_model(node),
            # RoCE entropy: hash fields (the UDP source port differs per queue pair), VXLAN inner headers, and
            # adaptive routing on the fabric ports when the intent opts in (validated against the hardware).
            'ecmp': dict(self.intent['underlay']['ecmp']),
            'nos_release': nos_release(self.intent, node.platform, node.name),
            'pod': node.pod,
            'rail': node.rail,
            'management_ip': self.management_ip.get(node.name),
            'management': self._management_model(node),
            'asn': self.asn[node.name],
            'router_id': self.router_id[node.name],
            'mtu': self.lossless['mtu']['switch'],
            'interfaces': interfaces,
            'bgp': {
                'asn': self.asn[node.name],
                'router_id': self.router_id[node.name],
                'numbered': numbered,
                'bfd': self.intent['underlay']['bfd'],
                'bfd_timers': {'interval_ms': timers['bfd_interval_ms'], 'multiplier': timers['bfd_multiplier']},
                'timers': {'keepalive_s': timers['keepalive_s'], 'hold_s': timers['hold_s']},
                # Advertise a prefix only once it is programmed in hardware (EOS `update wait-install`), so a
                # restarting switch does not attract traffic it would black-hole.
                'wait_for_fib': True,
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

    def _hardware_model(self, node):
        """What the switch is: the shipped model and, for SONiC, DEVICE_METADATA platform and HWSKU."""
        if node.model is None:
            return None
        model = get_model(node.model)
        sonic = {'platform': model.sonic['platform'], 'hwsku': model.sonic['hwsku']} if model.sonic else None
        return {'model': model.name, 'title': model.title, 'vendor': model.vendor, 'ports': model.port_count,
                'sonic': sonic, 'vxlan_dscp_propagation': model.vxlan_dscp_propagation,
                'vxlan_ecn_propagation': model.vxlan_ecn_propagation}

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
            vlan = {key: value for key, value in network.items() if key not in ('svi_addresses', 'svi_first_offset')}
            vlans.append(dict(vlan, ports=ports_by_vlan.get(network['vlan'], []),
                              rd='%s:%d' % (self.router_id[node.name], network['vlan']),
                              svi_ip=network['svi_addresses'].get(node.name)))
        vrfs = [dict(vrf, rd='%s:%d' % (self.router_id[node.name], vrf['rd_number']))
                for vrf in self.vrfs if any(vlan['vrf'] == vrf['name'] for vlan in vlans)]
        return {'vtep_ip': vtep, 'source_interface': 'lo', 'udp_port': 4789, 'vlans': vlans, 'vrfs': vrfs,
                'gateway_mac': ANYCAST_GATEWAY_MAC, 'tunnel_qos': self._tunnel_qos(node)}

    def _tunnel_qos(self, node):
        """How this VTEP sets the outer DSCP, and the outer DSCP tunnelled RoCE then carries.

        Hardware that copies the inner DSCP copies it; on the rest (EOS outside the 7050X3 family) the outer DSCP
        follows the traffic class, which the lossless profile maps back to the RoCE DSCP (`tc_to_dscp`), so the
        spines classify tunnelled RoCE into the lossless class either way.
        """
        model = get_model(node.model) if node.model else None
        copies = model is None or model.vxlan_dscp_propagation
        # Without ECN propagation (EOS outside the hardware `vxlan qos ecn propagation` runs on) the outer ECN is 0:
        # the underlay cannot mark tunnelled RoCE, only the leaves' own egress ports can.
        ecn = 'propagate' if model is None or model.vxlan_ecn_propagation else 'zeroed'
        qos = dict(TUNNEL_QOS, encap_dscp='copy' if copies else 'from_traffic_class', ecn=ecn)
        roce = self.lossless['roce_priority']
        qos['roce_outer_dscp'] = self.lossless['roce_dscp'] if copies else self.lossless['tc_to_dscp'][roce]
        return qos

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
        return dict(budget, profiles=sorted(profiles.values(), key=lambda profile: profile['name']),
                    asic_buffer_bytes=get_asic(node.asic).buffer_bytes)

    def _host_model(self, node):
        lossless = self.lossless
        attachment = self.intent['hosts']['attachment']
        table_base = self.intent['hosts']['routing_table_base']
        rails = []
        for link in node.links:
            leaf = link.upper
            entry = {
                'rail': link.rail,
                'interface': self._host_interface(link.rail),
                'rdma_device': self._rdma_device(link.rail),
                'speed_gbps': link.speed_gbps,
                'leaf': leaf.name,
                'leaf_interface': self.ports[leaf.name][link.index]['name'],
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
                first, routes = self._rail_network[network['name']]
                ip = dotted(first + self.intent['hosts']['address_offset'] + node.index - 1)
                entry.update(address='%s/%d' % (ip, network['prefixlen']), ip=ip, prefixlen=network['prefixlen'],
                             gateway=network['gateway'], network=network['name'], vlan=network['vlan'],
                             subnet=network['subnet'], routes=routes)
            rails.append(entry)
        rails.sort(key=lambda entry: entry['rail'])
        nics = tuple((entry['interface'], entry['rdma_device']) for entry in rails)
        shared = self._host_parts.get(nics)
        if shared is None:
            shared = self._host_parts[nics] = (self._nccl(rails), self._host_sysctl(rails), self._host_rnic())
        nccl, sysctl, rnic = shared
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
            'rnic': rnic,
            'nccl': nccl,
            'sysctl': sysctl,
            'kubernetes': self.kubernetes(),
        }

    def _host_rnic(self):
        lossless = self.lossless
        return {
            'trust': 'dscp',
            'pfc_priorities': lossless['lossless_priorities'],
            'pfc_mask': lossless['pfc_mask'],
            'roce_dscp': lossless['roce_dscp'],
            'roce_priority': lossless['roce_priority'],
            'cnp_dscp': lossless['cnp_dscp'],
            'cnp_priority': lossless['cnp_priority'],
            # The switches' whole map: a NIC left on its default (priority = DSCP >> 3) would put DSCP 24-31 on
            # priority 3, where PFC is on, while every switch queues them as lossy.
            'dscp_to_priority': lossless['dscp_to_tc'],
            'ecn_priorities': lossless['lossless_priorities'],
            'traffic_class': lossless['traffic_class_byte'],
            'mtu': lossless['mtu']['host'],
        }

    @staticmethod
    def _host_sysctl(rails):
        sysctl = {'net.ipv4.conf.all.arp_ignore': 1, 'net.ipv4.conf.all.arp_announce': 2,
                  'net.ipv4.conf.all.rp_filter': 2, 'net.ipv4.conf.default.arp_ignore': 1,
                  'net.ipv4.conf.default.arp_announce': 2, 'net.ipv4.conf.default.rp_filter': 2}
        for entry in rails:
            key = entry['interface'].replace('.', '/')
            sysctl.update({'net.ipv4.conf.%s.arp_ignore' % key: 1, 'net.ipv4.conf.%s.arp_announce' % key: 2,
                           'net.ipv4.conf.%s.rp_filter' % key: 2})
        return sysctl

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
            # Routed networks keep the top of the subnet for the leaves' own SVI addresses.
            end = (subnet.network_address + network['svi_first_offset'] - 1 if network['svi_first_offset']
                   else subnet.broadcast_address - 1)
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
        # Entropy: on ECMP fabrics several QPs per connection give each connection several UDP source ports, hence
        # several paths; adaptive routing sprays packets itself, one QP is enough (NCCL default 1).
        qps = spec['qps_per_connection']
        if qps is None:
            qps = 1 if self.intent['underlay']['ecmp']['adaptive_routing'] else DEFAULT_QPS_PER_CONNECTION
        settings['NCCL_IB_QPS_PER_CONNECTION'] = qps
        if spec['split_data_on_qps'] is not None:
            settings['NCCL_IB_SPLIT_DATA_ON_QPS'] = spec['split_data_on_qps']
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
            # How the fabric was sized: spines per pod and parallel links per leaf-spine pair (gap: sizing).
            'spines_per_pod': self.topology.spines_per_pod,
            'links_per_leaf_spine': self.topology.links_per_leaf_spine,
            'platforms': dict(Counter(node.platform for node in self.switches())),
            'models': dict(Counter(node.model for node in self.switches() if node.model)),
        }


def design_from_intent(data) -> FabricDesign:
    """The design of an intent mapping; IntentError lists every problem of the intent and of its design at once."""
    intent, issues = validate_intent(data)
    return FabricDesign(intent, issues)


def design_from_file(path: str) -> FabricDesign:
    return design_from_intent(read_intent_file(path))


__all__ = ['FabricDesign', 'design_from_file', 'design_from_intent', 'build_lossless_profile',
           'traffic_class_byte', 'VXLAN_OVERHEAD']
