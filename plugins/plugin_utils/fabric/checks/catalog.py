# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the design expects each device to show: sessions, VNIs and VTEPs, LLDP neighbours, interfaces,
addresses and ping targets. Every count here comes from the design; nothing is hard-coded.
"""

from __future__ import annotations

import bisect

from ..state.sources import IPV4_ICMP_OVERHEAD

AFI_IPV4 = 'ipv4Unicast'
AFI_EVPN = 'l2VpnEvpn'


def expected_sessions(model) -> list:
    """One entry per designed BGP neighbour: key (FRR's peer key), peer, interface, ip, remote_asn, afis."""
    bgp = model.get('bgp') or {}
    afis = [AFI_IPV4] + ([AFI_EVPN] if bgp.get('evpn') else [])
    sessions = []
    for neighbor in bgp.get('neighbors', []):
        key = neighbor['ip'] if bgp.get('numbered') and neighbor.get('ip') else neighbor['interface']
        sessions.append({'key': key, 'peer': neighbor['peer'], 'interface': neighbor['interface'],
                         'ip': neighbor.get('ip'), 'remote_asn': neighbor['remote_asn'], 'afis': afis})
    return sessions


def vni_vteps(ctx) -> dict:
    """{vni: {vtep_ip: leaf}} over every leaf of the fabric (computed once per run)."""
    if 'vni_vteps' not in ctx.cache:
        table = {}
        for name in ctx.design.device_names('leaf'):
            evpn = ctx.model(name).get('evpn')
            if not evpn:
                continue
            for vlan in evpn['vlans']:
                table.setdefault(vlan['vni'], {})[evpn['vtep_ip']] = name
        ctx.cache['vni_vteps'] = table
    return ctx.cache['vni_vteps']


def expected_vnis(ctx, model) -> list:
    """L2VNIs of a leaf: vni, vlan, route_target, rd and the remote VTEPs {ip: leaf} that must be flooded to."""
    evpn = model.get('evpn')
    if not evpn:
        return []
    table = vni_vteps(ctx)
    vnis = []
    for vlan in evpn['vlans']:
        remote = {ip: leaf for ip, leaf in table.get(vlan['vni'], {}).items() if ip != evpn['vtep_ip']}
        vnis.append({'vni': vlan['vni'], 'vlan': vlan['vlan'], 'route_target': vlan['route_target'],
                     'rd': vlan.get('rd'), 'remote_vteps': remote, 'vtep_ip': evpn['vtep_ip']})
    return vnis


def expected_neighbors(model) -> list:
    """LLDP: one entry per cabled port: interface, peer, peer_interface."""
    if model['role'] == 'host':
        return [{'interface': rail['interface'], 'peer': rail['leaf'], 'peer_interface': rail['leaf_interface']}
                for rail in model['rails']]
    return [{'interface': item['name'], 'peer': item['peer'], 'peer_interface': item['peer_interface']}
            for item in model['interfaces']]


def expected_interfaces(model) -> list:
    """Cabled ports with their designed MTU (and address for host rails and routed switch ports)."""
    if model['role'] == 'host':
        return [{'name': rail['interface'], 'mtu': model['mtu'], 'address': rail.get('address'),
                 'peer': '%s %s' % (rail['leaf'], rail['leaf_interface'])} for rail in model['rails']]
    return [{'name': item['name'], 'mtu': item['mtu'], 'address': item.get('ipv4'),
             'peer': '%s %s' % (item['peer'], item['peer_interface'])} for item in model['interfaces']]


def uplinks(model) -> list:
    """[(local port, peer device, peer port, designed local MTU)] of the links whose lower end is `model` (a GPU server
    rail to its leaf, a leaf uplink to its spine, a spine uplink to its super-spine): each link judged once."""
    if model['role'] == 'host':
        return [(rail['interface'], rail['leaf'], rail['leaf_interface'], model['mtu']) for rail in model['rails']]
    return [(item['name'], item['peer'], item['peer_interface'], item['mtu']) for item in model['interfaces']
            if item.get('direction') == 'up']


def link_subject(port, peer, peer_port) -> str:
    """'eth3 <-> spine001 eth1': a link seen from its lower end."""
    return '%s <-> %s %s' % (port, peer, peer_port)


def designed_vnis(model) -> dict:
    """{vni: what the design puts there} of a leaf: its L2VNIs (VLAN) and the L3VNIs of its tenant VRFs."""
    evpn = model.get('evpn') or {}
    vnis = {vlan['vni']: 'L2VNI of VLAN %d (%s)' % (vlan['vlan'], vlan['name']) for vlan in evpn.get('vlans') or []}
    vnis.update({vrf['l3vni']: 'L3VNI of VRF %s' % vrf['name'] for vrf in evpn.get('vrfs') or [] if vrf.get('l3vni')})
    return vnis


def designed_vrfs(model) -> set:
    return {vrf['name'] for vrf in (model.get('evpn') or {}).get('vrfs') or []}


def rail_members(ctx) -> dict:
    """{network name: [(host, interface, ip)]} for every host rail (computed once per run)."""
    if 'rail_members' not in ctx.cache:
        table = {}
        for name in ctx.design.device_names('host'):
            for rail in ctx.model(name)['rails']:
                key = rail.get('network') or 'rail%d' % rail['rail']
                table.setdefault(key, []).append((name, rail['interface'], rail['ip']))
        ctx.cache['rail_members'] = table
    return ctx.cache['rail_members']


def jumbo_payload(model) -> int:
    """Largest ICMP payload a host rail MTU carries unfragmented (MTU - IPv4 20 - ICMP 8)."""
    return model['mtu'] - IPV4_ICMP_OVERHEAD


def rail_order(ctx) -> dict:
    """{network name: (its members sorted, their names)}: rail_members() in the order ping_targets() takes peers in
    (computed once per run; each host looks its place up instead of sorting its rail's thousands of members)."""
    if 'rail_order' not in ctx.cache:
        order = {}
        for key, members in rail_members(ctx).items():
            ordered = sorted(members)
            order[key] = (ordered, [item[0] for item in ordered])
        ctx.cache['rail_order'] = order
    return ctx.cache['rail_order']


def ping_targets(ctx, model, max_peers=0) -> list:
    """Same-rail peers a host pings: rail, interface, network, peer, peer_ip, jumbo_payload.

    Routed attachment: the peer rails of the same rail index (reached through the leaf). `max_peers` > 0
    keeps that many peers per rail, chosen as the next hosts after this one in name order, wrapping around
    (deterministic, spreads load).
    """
    if model['role'] != 'host':
        return []
    targets = []
    order = rail_order(ctx)
    name = model['name']
    for rail in model['rails']:
        key = rail.get('network') or 'rail%d' % rail['rail']
        ordered, names = order.get(key, ((), ()))
        # this host's own entries are one run of the sorted members: the peers after it, then those before it
        first, after = bisect.bisect_left(names, name), bisect.bisect_right(names, name)
        if max_peers and len(names) - (after - first) > max_peers:
            peers = (ordered[after:after + max_peers] + ordered[:first])[:max_peers]
        else:
            peers = [item for item in rail_members(ctx).get(key, ()) if item[0] != name]
        for peer, _peer_if, peer_ip in peers:
            targets.append({'rail': rail['rail'], 'interface': rail['interface'], 'network': key, 'peer': peer,
                            'peer_ip': peer_ip, 'jumbo_payload': jumbo_payload(model)})
    return targets


ROCE_UDP_PORT = 4791


def probe_markings(ctx) -> list:
    """The DS fields the data-plane probe sends: RoCE data (ECT(0), as NCCL marks it) and CNPs."""
    profile = ctx.design.lossless
    return [{'name': 'RoCE', 'dscp': profile['roce_dscp'], 'ecn': profile['traffic_class_byte'] & 0x03},
            {'name': 'CNP', 'dscp': profile['cnp_dscp'], 'ecn': 0}]


def marking_subject(flow) -> str:
    """The subject a marking-probe flow is judged and reported under (dataplane_marking, and causes that fold it)."""
    return 'rail %d %s %s -> %s %s' % (flow['rail'], flow['interface'], flow['source'], flow['receiver'],
                                       flow['destination'])


def marking_flows(ctx) -> list:
    """The data-plane marking probe, one flow per rail network that spans several leaves: its first host sends
    UDP to port 4791 to the first host of that rail behind another leaf, and the spines listen on their links to
    the sender's leaf (only switches that forward in the kernel show transit packets to a capture; the flow then
    has no capture points). Each: rail, network, sender, interface, source, receiver, destination, leaves, vni,
    captures [{device, interface}] (computed once per run)."""
    if 'marking_flows' in ctx.cache:
        return ctx.cache['marking_flows']
    from ..platforms import get_platform  # pylint: disable=import-outside-toplevel
    members = {}
    for name in ctx.design.device_names('host'):
        for rail in ctx.model(name)['rails']:
            key = rail.get('network') or 'rail%d' % rail['rail']
            members.setdefault(key, []).append((name, rail))
    vnis = {network['name']: network['vni'] for network in ctx.design.networks}
    flows = []
    for key in sorted(members):
        sender, rail = sorted(members[key], key=lambda item: item[0])[0]
        remote = sorted((item for item in members[key] if item[1]['leaf'] != rail['leaf']), key=lambda item: item[0])
        if not remote:
            continue
        receiver, peer_rail = remote[0]
        leaf = ctx.model(rail['leaf'])
        captures = [{'device': item['peer'], 'interface': item['peer_interface']} for item in leaf['interfaces']
                    if item['direction'] == 'up'
                    and get_platform(ctx.model(item['peer'])['platform']).kernel_dataplane]
        flows.append({'rail': rail['rail'], 'network': key, 'sender': sender, 'interface': rail['interface'],
                      'source': rail['ip'], 'receiver': receiver, 'destination': peer_rail['ip'],
                      'sender_leaf': rail['leaf'], 'receiver_leaf': peer_rail['leaf'], 'vni': vnis.get(rail.get('network')),
                      'captures': captures})
    ctx.cache['marking_flows'] = flows
    return flows


def probe_duties(ctx, model) -> dict | None:
    """What a device does in the data-plane marking probe: {'send': [dscp_probe args]} on a sending host (one per
    rail it sends on), {'capture': dscp_capture args} on a switch listening on its links, None otherwise."""
    markings = probe_markings(ctx)
    flows = [flow for flow in marking_flows(ctx) if flow['captures']]
    sends = [{'source': flow['source'], 'destination': flow['destination'], 'port': ROCE_UDP_PORT,
              'markings': [{'dscp': item['dscp'], 'ecn': item['ecn']} for item in markings]}
             for flow in flows if flow['sender'] == model['name']]
    if sends:
        return {'send': sends}
    interfaces, sources = [], []
    for flow in flows:
        for point in flow['captures']:
            if point['device'] == model['name']:
                interfaces.append(point['interface'])
                sources.append(flow['source'])
    if not interfaces:
        return None
    sources = sorted(set(sources))
    return {'capture': {'interfaces': sorted(set(interfaces)), 'port': ROCE_UDP_PORT, 'sources': sources,
                        'expect': [{'source': source, 'dscp': item['dscp']} for source in sources for item in markings]}}


def catalog(ctx, names=None) -> dict:
    """Everything expected per device, for the report and for people (what will be checked)."""
    result = {}
    for name in names if names is not None else ctx.design.device_names():
        model = ctx.model(name)
        entry = {'role': model['role'], 'lldp_neighbors': len(expected_neighbors(model)),
                 'interfaces': len(expected_interfaces(model))}
        if model['role'] == 'host':
            targets = ping_targets(ctx, model, ctx.options.get('ping_peers', 0))
            entry['ping_targets'] = len(targets)
        else:
            entry['bgp_sessions'] = len(expected_sessions(model))
            vnis = expected_vnis(ctx, model)
            if vnis:
                entry['l2vnis'] = len(vnis)
                entry['remote_vteps'] = sum(len(item['remote_vteps']) for item in vnis)
        result[name] = entry
    return result


__all__ = ['expected_sessions', 'expected_vnis', 'marking_subject', 'expected_neighbors', 'expected_interfaces', 'ping_targets',
           'jumbo_payload', 'vni_vteps', 'rail_members', 'catalog', 'uplinks', 'link_subject', 'designed_vnis',
           'designed_vrfs', 'marking_flows', 'probe_markings', 'probe_duties', 'AFI_IPV4', 'AFI_EVPN', 'ROCE_UDP_PORT']
