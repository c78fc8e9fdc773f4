# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""FRR on Linux: `frr.conf` (FRR 8.4+ integrated configuration) and `interfaces.json` (Linux netdev state).

frr.conf carries the eBGP underlay (numbered /31 or unnumbered on IPv6 link-local) and the EVPN control
plane: leaves advertise every local VNI with explicit route-targets (one ASN per leaf makes FRR's
auto-derived ASN:VNI targets differ between leaves, so nothing would be imported), spines relay EVPN
routes unchanged. interfaces.json is the declarative kernel state that aifabric.fabric.linux_netdev
applies: loopback /32s on `lo`, fabric port addresses and MTU, one bridge per VLAN with its VXLAN device (which
copies the inner DSCP and ECN to the outer header, `tos inherit`) and access ports, plus the forwarding sysctls a
router needs.

VRFs (L3VNI, symmetric IRB) are rendered when the intent has them (`vrf` devices, FRR `vrf`/`router bgp vrf`
blocks, the anycast gateway on the routed network's bridge); the containerlab lab kernel has no VRF devices,
so the lab intent uses none and that output is proven by `vtysh -C` and unit tests only (docs/lab.md).

Only names and Linux representation are decided here (bridge `br<vlan>`, VXLAN device `vxlan<vni>`,
overlay device MTU = port MTU - VXLAN overhead); every value comes from the device model.
"""

from __future__ import annotations

from typing import Any

from jinja2 import Environment

from ...frrouting.config import bfd_profile_lines
from ...model import SwitchModel, Vrf
from ...terms import VXLAN_OVERHEAD

FRR_VERSION = '8.4'
PEER_GROUP = 'FABRIC'
RESERVED_TABLES = ('main', 'local', 'default')


def bridge_name(vlan: int) -> str:
    return 'br%d' % vlan


def vxlan_name(vni: int) -> str:
    return 'vxlan%d' % vni


def vrf_table(vrf: Vrf) -> int:
    """Kernel table of an L3VNI VRF: 1000 + VLAN keeps it clear of the host rail tables (100+)."""
    return 1000 + vrf['vlan']


def netdev_state(model: SwitchModel) -> dict:
    """The Linux network state of one FRR switch (links, routes, rules, sysctl) as plain data."""
    mtu = model['mtu']
    overlay_mtu = mtu - VXLAN_OVERHEAD
    evpn = model['evpn']
    loopback = ['%s/32' % model['router_id']]
    if evpn and evpn['vtep_ip'] != model['router_id']:
        loopback.append('%s/32' % evpn['vtep_ip'])
    links: list[dict[str, Any]] = [{'name': 'lo', 'addresses': loopback}]
    masters = {}
    if evpn:
        for vrf in evpn['vrfs']:
            links.append({'name': vrf['name'], 'kind': 'vrf', 'state': 'up', 'vrf': {'table': vrf_table(vrf)}})
            # The L3VNI: an SVI-less bridge with its own VXLAN device, enslaved to the VRF.
            links.append({'name': bridge_name(vrf['vlan']), 'kind': 'bridge', 'mtu': overlay_mtu, 'state': 'up',
                          'master': vrf['name'], 'bridge': {'stp_state': 0}})
            links.append(_vxlan_link(vrf['l3vni'], bridge_name(vrf['vlan']), evpn, overlay_mtu))
        for vlan in evpn['vlans']:
            bridge = {'name': bridge_name(vlan['vlan']), 'kind': 'bridge', 'mtu': overlay_mtu, 'state': 'up',
                      'bridge': {'stp_state': 0}}
            if vlan['vrf']:
                # The SVI of a routed network: anycast gateway address and MAC, the same on every leaf.
                bridge['master'] = vlan['vrf']
                bridge['addresses'] = ['%s/%d' % (vlan['gateway'], vlan['prefixlen'])] if vlan['gateway'] else []
                if evpn.get('gateway_mac'):
                    bridge['mac'] = evpn['gateway_mac']
            links.append(bridge)
            links.append(_vxlan_link(vlan['vni'], bridge['name'], evpn, overlay_mtu))
            for port in vlan['ports']:
                masters[port] = bridge['name']
    for item in model['interfaces']:
        link = {'name': item['name'], 'mtu': item['mtu'], 'state': 'up'}
        if item['name'] in masters:
            link['master'] = masters[item['name']]
        else:
            link['addresses'] = [item['ipv4']] if item['ipv4'] else []
        links.append(link)
    return {
        'links': links,
        'routes': [],
        'rules': [],
        'sysctl': {'net.ipv4.ip_forward': 1, 'net.ipv6.conf.all.forwarding': 1},
    }


def _vxlan_link(vni, bridge, evpn, mtu):
    # `tos inherit` (ip-link(8)): the outer IPv4 header copies the inner DSCP and ECN, as the vendor VTEPs do
    # (design TUNNEL_QOS); without it Linux sends every tunnelled packet with outer DSCP 0 and spines cannot
    # classify or mark RoCE.
    return {'name': vxlan_name(vni), 'kind': 'vxlan', 'mtu': mtu, 'state': 'up', 'master': bridge,
            'vxlan': {'id': vni, 'local': evpn['vtep_ip'], 'dstport': evpn['udp_port'], 'learning': False,
                      'tos': 'inherit' if evpn['tunnel_qos']['encap_dscp'] == 'copy' else 0},
            'bridge_slave': {'learning': False}}


def render(model: SwitchModel, env: Environment) -> dict[str, str]:
    context = dict(model, frr_version=FRR_VERSION, peer_group=PEER_GROUP, netdev=netdev_state(model),
                   bfd_profile=bfd_profile_lines(model['bgp']['bfd_timers']))
    return {
        'frr.conf': env.get_template('frr/frr.conf.j2').render(context),
        'interfaces.json': env.get_template('frr/interfaces.json.j2').render(context),
    }
