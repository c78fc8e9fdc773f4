# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The overlay part of the design: the rails' networks (VLAN, VNI, subnet, gateway and per-leaf SVI addresses),
the VRFs (L3VNI, route distinguisher, route target) and each leaf's EVPN model with its tunnel QoS."""

from __future__ import annotations

import ipaddress

from ..intent import network_vni, schema_default
from ..switch_models import get_model

# Anycast gateway MAC shared by every leaf's SVI of a routed network: without one MAC per gateway IP, hosts
# learn a different router MAC per leaf. Locally administered (0x02 bit), so no vendor or VRRP MAC clashes.
ANYCAST_GATEWAY_MAC = '02:00:00:00:01:01'
# VXLAN tunnels carry the lossless class end to end (uniform model, RFC 6040 ECN): the outer header copies the
# inner DSCP on encapsulation, so spines classify tunnelled RoCE on the RoCE DSCP; decapsulation keeps the inner
# DSCP the host sent; ECN is propagated both ways so congestion seen in the underlay reaches the receiver.
TUNNEL_QOS = {'encap_dscp': 'copy', 'decap_dscp': 'preserve', 'ecn': 'propagate'}


def _vrf_rd_numbers(l3vnis) -> list:
    """Assigned number of each IP-VRF's route distinguisher (router-id:number, a 16-bit field).

    The L3VNI when it fits above the VLAN range (readable, as AVD does), else the next free number from 4096: an
    RD never looks like a VLAN id (MAC-VRF RDs are router-id:VLAN), and where the L3VNI has no VLAN at all the number
    still stands apart.
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


def check_rails(intent, rails, issues):
    """Per-rail host lists match the rail count; with EVPN attachment every rail has a network."""
    hosts_spec = intent['hosts']
    for key in ('rail_interfaces', 'rdma_devices'):
        given = hosts_spec[key]
        if given and len(given) != rails:
            issues.add('hosts.%s' % key, given, 'must list one entry per rail (%d rails)' % rails)
    if hosts_spec['attachment'] != 'evpn':
        return
    covered = {}
    for index, network in enumerate(intent['overlay']['networks']):
        for position, rail in enumerate(network['rails']):
            if rail >= rails:
                issues.add('overlay.networks[%d].rails[%d]' % (index, position), rail,
                           'is not a rail of this fabric (rails 0..%d)' % (rails - 1))
            covered[rail] = index
    missing = [rail for rail in range(rails) if rail not in covered]
    if missing:
        issues.add('overlay.networks', [network['name'] for network in intent['overlay']['networks']],
                   'rails %s attach to no network; list them in overlay.networks[].rails' % missing)


class Overlay:
    """The fabric's VRFs and networks (vrfs, networks, network_by_rail) and each leaf's EVPN model."""

    def __init__(self, intent, topology, hosts, issues):
        self.intent = intent
        overlay = intent['overlay']
        rt_asn = overlay['route_target_asn']
        self.vrfs = []
        rd_numbers = _vrf_rd_numbers([vrf['l3vni'] for vrf in overlay['vrfs']])
        for index, vrf in enumerate(overlay['vrfs']):
            self.vrfs.append({'name': vrf['name'], 'l3vni': vrf['l3vni'],
                              'vlan': vrf['vlan'] if vrf['vlan'] is not None else 4000 + index,
                              'rd_number': rd_numbers[index],
                              'route_target': '%d:%d' % (rt_asn, vrf['l3vni'])})
        self.networks = []
        hosts_per_rail = len(hosts)
        offset = intent['hosts']['address_offset']
        offset_reported = False
        for index, network in enumerate(overlay['networks']):
            subnet = ipaddress.IPv4Network(network['subnet'])
            gateway = network['gateway']
            if network['vrf'] is not None and gateway is None:
                gateway = str(subnet.network_address + 1)
            last_host = offset + hosts_per_rail - 1
            # Routed networks: every leaf carrying the network has its own SVI address (a virtual-router gateway
            # such as VRR needs a unique SVI address beside the anycast one), taken from the top of the subnet.
            carriers = [leaf.name for leaf in topology.by_role('leaf')
                        if leaf.rail is None or not network['rails'] or leaf.rail in network['rails']] \
                if gateway is not None else []
            first_svi = subnet.num_addresses - 1 - len(carriers)  # offset of the lowest SVI address
            if network['rails'] and offset >= subnet.num_addresses - 1 and offset != schema_default('hosts', 'address_offset'):
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
                'name': network['name'], 'vlan': network['vlan'], 'vni': network_vni(intent, network),
                'subnet': str(subnet), 'prefixlen': subnet.prefixlen, 'vrf': network['vrf'], 'gateway': gateway,
                'rails': list(network['rails']),
                'route_target': '%d:%d' % (rt_asn, network_vni(intent, network)),
                'svi_addresses': {leaf: str(subnet.network_address + first_svi + position)
                                  for position, leaf in enumerate(carriers)},
                'svi_first_offset': first_svi if carriers else None,
            })
        self.network_by_rail = {rail: net for net in self.networks for rail in net['rails']}
        # per rail network: its first address as an integer and the routes of its servers (shared, read-only)
        self.rail_network = {net['name']: (int(ipaddress.IPv4Network(net['subnet']).network_address),
                                           self.rail_routes(net)) for net in self.networks}

    @property
    def enabled(self) -> bool:
        """EVPN runs when the fabric has a network or a VRF."""
        return bool(self.networks or self.vrfs)

    def rail_routes(self, network):
        """Routes of a rail NIC in an overlay network: the other subnets of its VRF via the anycast gateway."""
        if not network['gateway']:
            return []
        return [{'to': other['subnet'], 'via': network['gateway']} for other in self.networks
                if other is not network and other['vrf'] == network['vrf']]

    def evpn_model(self, node, interfaces, router_id, vtep, lossless):
        """The EVPN model of one leaf: its VTEP, the networks it carries (with their access ports) and their VRFs."""
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
                              rd='%s:%d' % (router_id, network['vlan']),
                              svi_ip=network['svi_addresses'].get(node.name)))
        vrfs = [dict(vrf, rd='%s:%d' % (router_id, vrf['rd_number']))
                for vrf in self.vrfs if any(vlan['vrf'] == vrf['name'] for vlan in vlans)]
        return {'vtep_ip': vtep, 'source_interface': 'lo', 'udp_port': 4789, 'vlans': vlans, 'vrfs': vrfs,
                'gateway_mac': ANYCAST_GATEWAY_MAC, 'tunnel_qos': tunnel_qos(node, lossless)}


def tunnel_qos(node, lossless):
    """How this VTEP sets the outer DSCP, and the outer DSCP tunnelled RoCE then carries.

    Hardware that copies the inner DSCP copies it; on the rest (the model says it cannot: vxlan.dscp_propagation) the
    outer DSCP follows the traffic class, which the lossless profile maps back to the RoCE DSCP (`tc_to_dscp`), so
    the spines classify tunnelled RoCE into the lossless class either way.
    """
    model = get_model(node.model) if node.model else None
    copies = model is None or model.vxlan_dscp_propagation
    # Hardware that cannot propagate ECN (the model's vxlan.ecn_propagation) leaves the outer ECN 0: the underlay
    # cannot mark tunnelled RoCE, only the leaves' own egress ports can.
    ecn = 'propagate' if model is None or model.vxlan_ecn_propagation else 'zeroed'
    qos = dict(TUNNEL_QOS, encap_dscp='copy' if copies else 'from_traffic_class', ecn=ecn)
    roce = lossless['roce_priority']
    qos['roce_outer_dscp'] = lossless['roce_dscp'] if copies else lossless['tc_to_dscp'][roce]
    return qos
