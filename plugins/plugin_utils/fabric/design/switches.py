# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The switch device model: what one switch's renderer reads, put together from the other parts of the design
(ports from hardware, addresses, overlay, lossless), one switch at a time."""

from __future__ import annotations

import ipaddress

from ..asic import get_asic
from ..intent import nos_release
from ..model import Neighbor, SwitchModel
from ..platforms import get_platform
from .hardware import hardware_model


def interface(design, node, link):
    """The model of `link`'s end on switch `node`."""
    port, peer, peer_port = link.end(node)  # pylint: disable=unused-variable
    upward = link.lower is node
    if peer.role != 'host':
        peer_interface = design.ports[peer.name][link.index]['name']
    else:
        peer_interface = design.servers.interface(link.rail)
    physical = design.ports[node.name][link.index]
    addresses = design.link_ip.get(link.index)
    ipv4 = peer_ipv4 = None
    if addresses:
        mine, theirs = (addresses[0], addresses[1]) if upward else (addresses[1], addresses[0])
        ipv4, peer_ipv4 = '%s/%d' % (mine, addresses[2]), theirs
    mode = 'routed' if ipv4 else 'unnumbered'
    access_vlan = None
    if link.role == 'host_leaf' and ipv4 is None:
        mode = 'access'
        access_vlan = design.network_by_rail[link.rail]['vlan']
    room = design.buffers.room(node, link)
    return {
        'name': physical['name'],
        'port': port,
        'link_index': link.index,
        'link_role': link.role,
        'direction': 'up' if upward else 'down',
        'speed_gbps': link.speed_gbps,
        'lanes': physical['lanes'],
        # Hardware of the port from the switch model: front-panel cage and sub-port, the SKU's lanes and alias,
        # the breakout mode of the cage (as the model spells it) and FEC (RS on 25G+ lanes).
        'cage': physical['cage'],
        'subport': physical['subport'],
        'lane_ids': physical['lane_ids'],
        'alias': physical['alias'],
        'breakout': physical['breakout'],
        'breakout_parent': physical['parent'],
        'split': physical['split'],
        'fec': physical['fec'],
        'mtu': design.lossless['mtu']['switch'],
        'cable_length_m': link.cable_length_m,
        'peer': peer.name,
        'peer_role': peer.role,
        'peer_interface': peer_interface,
        # ECN thresholds of this port's lossless queues, scaled with its speed (lossless.ecn).
        'ecn': design.buffers.ecn(node.asic, link.speed_gbps),
        'peer_asn': design.asn.get(peer.name),
        'description': '%s %s' % (peer.name, peer_interface),
        'mode': mode,
        'ipv4': ipv4,
        'peer_ipv4': peer_ipv4,
        'access_vlan': access_vlan,
        'rail': link.rail,
        'headroom': {'xon': room.xon, 'xoff': room.xoff, 'size': room.size} if room else None,
    }


def switch_model(design, node) -> SwitchModel:
    """The model of one switch (see model.SwitchModel)."""
    intent = design.intent
    asic = get_asic(node.asic) if node.asic else None
    interfaces = [interface(design, node, link) for link in node.links]
    numbered = intent['underlay']['routing'] == 'ebgp_numbered'
    fabric_interfaces = [item for item in interfaces if item['link_role'] != 'host_leaf']
    neighbors: list[Neighbor] = [{
        'peer': item['peer'], 'interface': item['name'], 'ip': item['peer_ipv4'] if numbered else None,
        'remote_asn': item['peer_asn'], 'direction': item['direction'],
        'description': '%s:%s' % (item['peer'], item['peer_interface']),
    } for item in fabric_interfaces]
    is_leaf = node.role == 'leaf'
    timers = intent['underlay']['timers']
    evpn_enabled = design.overlay.enabled
    router_id = design.router_id[node.name]
    advertise = ['%s/32' % router_id]
    if is_leaf:
        if evpn_enabled:
            advertise.append('%s/32' % design.vtep[node.name])
        if intent['hosts']['attachment'] == 'routed':
            advertise.extend(str(ipaddress.IPv4Interface(item['ipv4']).network)
                             for item in interfaces if item['link_role'] == 'host_leaf')
    model: SwitchModel = {
        'name': node.name,
        'fabric': design.name,
        'role': node.role,
        'platform': node.platform,
        'asic': node.asic,
        'asic_vendor': asic.vendor if asic else None,
        'hardware': hardware_model(node),
        # RoCE entropy: hash fields (the UDP source port differs per queue pair), VXLAN inner headers, and
        # adaptive routing on the fabric ports when the intent opts in (validated against the hardware).
        'ecmp': dict(intent['underlay']['ecmp']),
        'nos_release': nos_release(intent, node.platform, node.name),
        'pod': node.pod,
        'rail': node.rail,
        'management_ip': design.management_ip.get(node.name),
        'management': design.addressing.management_model(node),
        'asn': design.asn[node.name],
        'router_id': router_id,
        'mtu': design.lossless['mtu']['switch'],
        'interfaces': interfaces,
        'bgp': {
            'asn': design.asn[node.name],
            'router_id': router_id,
            'numbered': numbered,
            'bfd': intent['underlay']['bfd'],
            'bfd_timers': {'interval_ms': timers['bfd_interval_ms'], 'multiplier': timers['bfd_multiplier']},
            'timers': {'keepalive_s': timers['keepalive_s'], 'hold_s': timers['hold_s']},
            # Advertise a prefix only once it is programmed in hardware (a NOS option such as `update wait-install`),
            # so a restarting switch does not attract traffic it would black-hole.
            'wait_for_fib': True,
            'neighbors': neighbors,
            'advertise': advertise,
            'evpn': evpn_enabled,
            'maximum_paths': max(2, len(neighbors)),
        },
        'evpn': design.overlay.evpn_model(node, interfaces, router_id, design.vtep[node.name], design.lossless)
        if is_leaf and evpn_enabled else None,
        'qos': design.lossless if get_platform(node.platform).lossless_dataplane else None,
        'buffer': design.buffers.buffer_model(node, interfaces),
    }
    return model
