# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""FRR on Linux: the lab switch (FRR's integrated frr.conf + the Linux interface state), no lossless data plane
(docs/platform-frr.md)."""

from __future__ import annotations

from .. import Platform, SecretForms


# How FRR prints secrets in its configuration (frr.conf, vtysh show running-config), after FRR's user guide
# (https://docs.frrouting.org/en/latest/): `neighbor PEER password PASSWORD` (bgp.html), `password` and
# `enable password` of the VTY (basic.html), `ip ospf authentication-key` and `ip ospf message-digest-key KEYID md5 KEY`
# (ospfd.html), `key-string` of a key chain (ripd.html). SONiC's bgp container runs FRR: the same lines.
SECRETS = SecretForms(
    lines=(
        r'\bneighbor \S+ password (?P<secret>\S+)\s*$',
        r'^\s*(?:enable )?password (?P<secret>\S+)\s*$',
        r'\bip ospf authentication-key (?P<secret>\S+)',
        r'\bip ospf message-digest-key [0-9]+ md5 (?P<secret>\S+)',
        r'^\s*key-string (?P<secret>\S+)',
    ),
    words=('password', 'authentication-key', 'message-digest-key', 'key-string'),
)


PLATFORM = Platform(
    name='frr',
    title='FRR on Linux (lab switch, no lossless data plane)',
    label='FRR',
    rank=90,
    port_prefix='eth',
    lossless_dataplane=False,
    max_lossless_priorities=8,
    mtu_max=9500,
    watchdog=None,
    config_files=('frr.conf', 'interfaces.json'),
    releases=('8.4', '8.5', '9.0', '9.1', '10.0', '10.1', '10.2', '10.3'),
    default_release='8.4',
    kernel_dataplane=True,
    svi_interface='br{vlan}',  # render.py bridge_name(): the routed network's bridge holds the gateway
    lab_kinds=('linux',),
    deploy_libraries=('netmiko',),
    secrets=SECRETS,
)
