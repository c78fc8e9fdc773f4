# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The addressing part of the design: ASNs, loopbacks, VTEPs, the /31 of every numbered link and the management
addresses, each pool checked for size up front."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping

from ..intent import schema_default
from ..platforms import get_platform


def dotted(value: int) -> str:
    """An IPv4 address as text, without building an IPv4Address object (tens of thousands per large fabric)."""
    return '%d.%d.%d.%d' % (value >> 24, (value >> 16) & 255, (value >> 8) & 255, value & 255)


class _Pool:
    """Sequential allocation from an IPv4 pool, checked for size up front."""

    def __init__(self, path, network, needed, issues, what, block=1, skipped=0):
        """`needed` blocks of `block` addresses for `needed` `what`, after the pool's first `skipped` blocks."""
        self.network = ipaddress.IPv4Network(network)
        self.base = int(self.network.network_address)
        self.block = block
        self.size = self.network.num_addresses
        available = self.size // block
        self.fits = skipped + needed <= available
        if not self.fits:
            issues.add(path, network, 'is too small: %d %s need %d addresses, the pool has %d'
                       % (needed, what, (skipped + needed) * block, self.size))

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


class Addressing:
    """ASNs (asn), loopbacks (router_id), VTEPs (vtep), link /31s (link_ip) and management addresses
    (management_ip, management_network, management_gateway) of a fabric."""

    def __init__(self, intent, topology, switches, hosts, issues):
        self.intent = intent
        self.topology = topology
        self._assign_asns(switches, issues)
        self._assign_addresses(switches, issues)
        self._assign_management(switches + hosts, issues)

    def _assign_asns(self, switches, issues):
        asn = self.intent['underlay']['asn']
        leaves = self.topology.by_role('leaf')
        capacity = asn['leaf_last'] - asn['leaf_first'] + 1
        if len(leaves) > capacity:
            issues.add('underlay.asn.leaf_last', asn['leaf_last'],
                       'gives %d leaf ASNs but the fabric has %d leaves (need leaf_last >= %d)'
                       % (capacity, len(leaves), asn['leaf_first'] + len(leaves) - 1))
        self.asn = {}
        for node in switches:
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

    def _assign_addresses(self, switches, issues):
        pools = self.intent['underlay']['pools']
        leaves = self.topology.by_role('leaf')
        fabric_links = [link for link in self.topology.links if link.role != 'host_leaf']
        host_links = [link for link in self.topology.links if link.role == 'host_leaf']
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

    def _assign_management(self, ordered, issues):
        spec = self.intent['management']
        overrides = {name: item['management_ip'] for name, item in self.intent['topology']['devices'].items()
                     if 'management_ip' in item}
        self.management_ip = {}
        self.management_network = None
        self.management_gateway = None
        if spec['pool']:
            size = ipaddress.IPv4Network(spec['pool']).num_addresses
            if spec['offset'] >= size and spec['offset'] != schema_default('management', 'offset'):
                issues.add('management.offset', spec['offset'], 'is beyond management.pool %s (%d addresses: offsets '
                           '0..%d)' % (spec['pool'], size, size - 1))
                return
            pool = _Pool('management.pool', spec['pool'], len(ordered), issues,
                         'devices from offset %d' % spec['offset'], skipped=spec['offset'])
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
            elif self.management_network and name in overrides and self.topology.nodes[name].role != 'host' and \
                    ipaddress.IPv4Address(address) not in self.management_network:
                issues.add(['topology', 'devices', name, 'management_ip'], address,
                           'is outside management.pool %s (the switch gets the pool\'s prefix length and gateway)'
                           % self.management_network)
            owners[address] = name

    def management_model(self, node):
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
            'allowed_sources': list(spec['allowed_sources']),
            'users': [{'name': user['name'], 'role': user['role']} for user in spec['users']],
        }
