# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""NVIDIA Cumulus Linux 5.x: one NVUE startup.yaml (docs/platform-nvue.md).

Limits from the Cumulus Linux 5.x NVUE command reference (pfc-watchdog polling-interval 100-5000 ms, robustness
1-1000, link mtu 552-9216).
"""

from __future__ import annotations

from .. import Platform, SecretForms, TimerRule, WatchdogRules


def port_name(model, cage, subport, lanes, mode):
    """swp<port>, or swp<port>s<sub-port> on a split cage (`nv set interface swp1 link breakout 2x`)."""
    return {'name': 'swp%d' % cage if mode.ports == 1 else 'swp%ds%d' % (cage, subport), 'parent': 'swp%d' % cage}


# Secrets in NVUE's configuration (nv config show), as the NVUE command reference names them
# (https://docs.nvidia.com/networking-ethernet-software/nvue-reference/): `system aaa tacacs server <priority> secret`
# (Set-and-Unset-Commands/TACACS/), `system aaa radius server <host> secret` (RADIUS/), `vrf <vrf> router bgp neighbor
# <peer> password` (BGP/), `system aaa user <user> password` and `hashed-password` (User-Accounts/), and
# `system snmp-server readonly-community <community>` (`service snmp-server` up to Cumulus Linux 5.10) and
# `readonly-community-v6`, whose entries are named by the community (SNMP-Server/).
SECRETS = SecretForms(
    fields=('secret', 'password', 'hashed-password'),
    names=('readonly-community', 'readonly-community-v6'),
)

PLATFORM = Platform(
    name='nvue',
    title='NVIDIA Cumulus Linux (NVUE)',
    label='NVUE',
    rank=30,
    port_prefix='swp',
    lossless_dataplane=True,
    max_lossless_priorities=2,
    mtu_max=9216,
    # NVUE sets only polling-interval and robustness; detection = poll x robustness, action drop.
    watchdog=WatchdogRules(detection=None, restoration=None, poll_interval=TimerRule(100, 5000), actions=('drop',),
                           robustness_max=1000),
    config_files=('startup.yaml',),
    uses_models=True,
    port_naming=port_name,
    adaptive_routing=True,
    svi_address=True,  # VRR: the SVI's own address beside the anycast one
    # The words of each release: releases.py (5.13 moved syslog, 5.15 renamed switches and moved services and BFD).
    releases=('5.9', '5.10', '5.11', '5.12', '5.13', '5.14', '5.15', '5.16'),
    default_release='5.14',
    lab_kinds=('cvx', 'nvidia_cumulusvx'),
    deploy_libraries=('netmiko',),
    # NVUE keeps these for itself ("NVUE Format Reference",
    # https://docs.nvidia.com/networking-ethernet-software/cumulus-linux-515/NVUE-Format-Reference/).
    reserved_vrf_names=('auto', 'none', 'null', 'any', 'all'),
    secrets=SECRETS,
)
