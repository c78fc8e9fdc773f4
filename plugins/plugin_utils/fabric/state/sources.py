# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which gatherer reads which device: a platform's own (platforms/<name>/state.py GATHERER) for a switch, host.py
for a GPU server. The checks read only these platform-neutral keys, never a platform:

| key           | shape (parser of reference)                                                          |
|---------------|--------------------------------------------------------------------------------------|
| bgp_summary   | [session] (platforms/frr/state.parse_bgp_summary)                                    |
| evpn_vni      | {vni: {vni, type, vxlan_if, vtep_ip, remote_vteps}} (platforms/frr/state.parse_evpn_vni) |
| bgp_evpn_vni  | {advertise_all_vni, vnis: {vni: {rd, import_rts, export_rts, in_kernel}}}            |
| evpn_type3    | [IMET route] (platforms/frr/state.parse_evpn_type3)                                  |
| lldp          | [neighbour] (lldp.parse_lldp_neighbors)                                              |
| interfaces    | {name: {mtu, operstate, admin_up, lower_up, addresses, ...}} (iproute2.parse_ip_link) |
| bfd           | {peer: {status, diagnostic, down_events, ...}} (platforms/frr/state.parse_bfd_peers)   |
| lossless      | {ports: {port: view}, source, issues} (views.py)                                     |
| counters      | {ports: {port: metrics}} (counters.py), read twice for rates                         |
| rnic          | RDMA NIC lossless facts of a GPU server (rnic.parse_rnic_facts)                      |
| nccl_conf     | {path, present, settings} of a GPU server's /etc/nccl.conf (host.parse_nccl_conf)    |
| marking_probe | [what a GPU server sent] (probe.parse_marking_probe), from the validate role          |
| marking_capture | {interfaces, packets} captured on a kernel-forwarding switch (probe.parse_marking_capture) |
| ping:/jumbo:  | ping results of a GPU server (ping.parse_ping)                                       |
"""

from __future__ import annotations

from ..platforms import registered
from . import host
from .host import IPV4_ICMP_OVERHEAD, ping_key

HOST = host.GATHERER


def gatherers() -> dict:
    """{platform: its gatherer} of every platform."""
    return {name: platform.part('state').GATHERER for name, platform in registered().items()}


def gatherer_for(model):
    """The gatherer of a device model (GPU servers: the host gatherer)."""
    if model['role'] == 'host':
        return HOST
    return registered()[model['platform']].part('state').GATHERER


__all__ = ['gatherers', 'HOST', 'gatherer_for', 'ping_key', 'IPV4_ICMP_OVERHEAD']
