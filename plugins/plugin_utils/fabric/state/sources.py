# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The registry: which gatherer reads which platform (one line per NOS), and the platform-neutral state keys.

Each gatherer (gatherer.py) lives in its platform's sibling file: frr.py (the FRR lab switch), sonic.py, eos.py,
nvue.py, and host.py for GPU servers. The checks read only these neutral keys, never a platform:

| key           | shape (parser of reference)                                                          |
|---------------|--------------------------------------------------------------------------------------|
| bgp_summary   | [session] (frr.parse_bgp_summary)                                                    |
| evpn_vni      | {vni: {vni, type, vxlan_if, vtep_ip, remote_vteps}} (frr.parse_evpn_vni)             |
| bgp_evpn_vni  | {advertise_all_vni, vnis: {vni: {rd, import_rts, export_rts, in_kernel}}}            |
| evpn_type3    | [IMET route] (frr.parse_evpn_type3)                                                  |
| lldp          | [neighbour] (lldp.parse_lldp_neighbors)                                              |
| interfaces    | {name: {mtu, operstate, admin_up, lower_up, addresses, ...}} (iproute2.parse_ip_link) |
| lossless      | {ports: {port: view}, source, issues} (views.py)                                     |
| counters      | {ports: {port: metrics}} (counters.py), read twice for rates                         |
| rnic          | RDMA NIC lossless facts of a GPU server (rnic.parse_rnic_facts)                      |
| nccl_conf     | {path, present, settings} of a GPU server's /etc/nccl.conf (host.parse_nccl_conf)    |
| marking_probe | [what a GPU server sent] (probe.parse_marking_probe), from the validate role          |
| marking_capture | {interfaces, packets} captured on a kernel-forwarding switch (probe.parse_marking_capture) |
| ping:/jumbo:  | ping results of a GPU server (ping.parse_ping)                                       |
"""

from __future__ import annotations

from . import eos, frr, host, nvue, sonic
from .host import IPV4_ICMP_OVERHEAD, ping_key

GATHERERS = {
    'frr': frr.GATHERER,
    'sonic': sonic.GATHERER,
    'eos': eos.GATHERER,
    'nvue': nvue.GATHERER,
}
HOST = host.GATHERER


def gatherer_for(model):
    """The gatherer of a device model (GPU servers: the host gatherer)."""
    if model['role'] == 'host':
        return HOST
    return GATHERERS[model['platform']]


__all__ = ['GATHERERS', 'HOST', 'gatherer_for', 'ping_key', 'IPV4_ICMP_OVERHEAD']
