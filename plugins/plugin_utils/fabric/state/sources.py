# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which gatherer reads which device: a platform's own (platforms/<name>/state.py GATHERER) for a switch, host.py
for a GPU server. The checks read only the platform-neutral keys the gatherers give, never a platform: their types
are in schema.py (bgp_summary, evpn_vni, bgp_evpn_vni, evpn_type3, lldp, interfaces, bfd, lossless, counters,
rnic, nccl_conf, marking_probe, marking_capture, ping), and Gatherer.parse holds every value against them.
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
