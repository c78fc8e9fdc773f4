# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Arista EOS: one startup-config in CLI syntax (docs/platform-eos.md).

Watchdog timers in seconds as the AVD eos_cli_config_gen schema gives them (github.com/aristanetworks/avd).
"""

from __future__ import annotations

from .. import Platform, SecretForms, TimerRule, WatchdogRules


def port_name(model, cage, subport, lanes, mode):
    """Ethernet<port>/<first lane>: Ethernet1/1, and Ethernet1/5 for the second 400G of an 8-lane cage."""
    return {'name': 'Ethernet%d/%d' % (cage, 1 + subport * lanes), 'parent': 'Ethernet%d/1' % cage}


# How EOS prints its secrets in its running configuration, as AVD's eos_cli_config_gen writes each line
# (github.com/aristanetworks/avd, python-avd/pyavd/_eos_cli_config_gen/j2templates/eos/: tacacs-servers.j2 at 66d0cf1d,
# radius-server.j2 and local-users.j2 at 41a2e029, router-bgp.j2 at 000975f4, snmp-server.j2 at 026fa946,
# enable-password.j2 at 32666f05, ntp.j2 at 0dc169fd). Type-7 keys are reversible: they are secrets as much as the
# clear text.
SECRETS = SecretForms(
    lines=(
        r'^\s*(?:tacacs|radius)-server\b.*?\bkey (?:[0-9]+ |8a )?(?P<secret>\S+)',  # tacacs-server host H key 7 K
        r'\bneighbor \S+ password (?!shared-secret\b)(?:[0-9]+ |8a )?(?P<secret>\S+)',  # neighbor X password 7 K
        r'^\s*snmp-server community (?P<secret>\S+)',
        r'^\s*snmp-server host \S+(?: vrf \S+)? version (?:1|2c) (?P<secret>\S+)',
        r'^\s*snmp-server user\b.*?\bauth \S+ (?P<secret>\S+)',
        r'^\s*snmp-server user\b.*?\bpriv \S+ (?P<secret>\S+)',
        r'^\s*enable (?:password|secret) (?:sha512 |[0-9]+ )?(?P<secret>\S+)',
        r'^\s*username \S+\b.*?\b(?:secret|password) (?:sha512 |[0-9]+ )?(?P<secret>\S+)',
        r'^\s*ntp authentication-key [0-9]+ \S+ (?:[0-9]+ )?(?P<secret>\S+)',
    ),
    words=('tacacs-server', 'radius-server', 'password', 'secret', 'snmp-server', 'authentication-key'),
)

PLATFORM = Platform(
    name='eos',
    title='Arista EOS (CLI)',
    label='EOS',
    rank=20,
    port_prefix='Ethernet',
    lossless_dataplane=True,
    max_lossless_priorities=2,
    mtu_max=9214,
    # EOS takes seconds: timeout/recovery with 2 decimals (10 ms steps), polling with 3 decimals.
    watchdog=WatchdogRules(detection=TimerRule(10, 60000, 10), restoration=TimerRule(10, 60000, 10),
                           poll_interval=TimerRule(5, 60000, 1), actions=('drop', 'alert'), unit='s'),
    config_files=('startup-config.cfg',),
    uses_models=True,
    port_naming=port_name,
    # Multi-agent routing is the default from 4.30.1F (AVD release notes).
    releases=('4.30', '4.31', '4.32', '4.33', '4.34'),
    default_release='4.32',
    # EOS manual, Quality of Service (Trident and Tomahawk transmit queues): `no priority` on a tx-queue makes it and
    # every lower queue round-robin [unverified, docs/platform-eos.md].
    strict_queue_on_top=True,
    # `ip access-list standard` bound to `management api http-commands` and `management ssh` (AVD).
    management_acl=True,
    management_interface='Management1',
    loopback_interface='Loopback0',
    vtep_interface='Loopback1',
    svi_interface='Vlan{vlan}',
    management_vrf='MGMT',
    lab_kinds=('ceos',),
    deploy_libraries=('napalm',),
    state_libraries=('napalm', 'anta.catalog', 'anta.device'),
    secrets=SECRETS,
)
