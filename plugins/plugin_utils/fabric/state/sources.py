# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which read-only command gathers which state on which platform, and which parser reads it.

A source key names one piece of state (`bgp_summary`, `lldp`, ...). Ping sources carry their target:
`ping:<rail interface>:<address>` and `jumbo:<rail interface>:<address>`. Every command only reads: vtysh
`show ... json`, `ip -j`, `lldpcli show`, `ping`, `sonic-cfggen -d --print-data`. A new platform adds its
command list here and, when its output differs, a parser module.
"""

from __future__ import annotations

from . import frr, iproute2, lldp, ping, rnic, sonic

PARSERS = {
    'bgp_summary': frr.parse_bgp_summary,
    'evpn_vni': frr.parse_evpn_vni,
    'bgp_evpn_vni': frr.parse_bgp_evpn_vni,
    'evpn_type3': frr.parse_evpn_type3,
    'lldp': lldp.parse_lldp_neighbors,
    'interfaces': iproute2.parse_ip_link,
    'config_db': sonic.parse_config_db,
    'rnic': rnic.parse_rnic_facts,
}
PING_PARSER = ping.parse_ping

_VTYSH = 'vtysh'
_FRR_SWITCH = (
    ('bgp_summary', (_VTYSH, '-c', 'show bgp vrf all summary json'), None),
    ('evpn_vni', (_VTYSH, '-c', 'show evpn vni json'), ('leaf',)),
    ('bgp_evpn_vni', (_VTYSH, '-c', 'show bgp l2vpn evpn vni json'), ('leaf',)),
    ('evpn_type3', (_VTYSH, '-c', 'show bgp l2vpn evpn route type multicast json'), ('leaf',)),
)
_LINUX = (
    ('interfaces', ('ip', '-j', '-d', 'addr', 'show'), None),
    ('lldp', ('lldpcli', '-f', 'json', 'show', 'neighbors'), None),
)
COMMANDS = {
    'frr': _FRR_SWITCH + _LINUX,
    # SONiC runs FRR in its bgp container; `vtysh` on the host execs into it. CONFIG_DB holds the QoS state.
    'sonic': _FRR_SWITCH + _LINUX + (('config_db', ('sonic-cfggen', '-d', '--print-data'), None),),
    'host': _LINUX,
}
# State a platform keeps that no gatherer reads yet; checks needing it report "not applicable".
UNSUPPORTED = {'eos': 'no state gatherer for Arista EOS in this release',
               'nvue': 'no state gatherer for NVIDIA Cumulus (NVUE) in this release'}

PING_COUNT = 3
PING_INTERVAL = '0.2'
PING_WAIT = 2
IPV4_ICMP_OVERHEAD = 28  # IPv4 header 20 + ICMP echo header 8


def platform_of(model: dict) -> str:
    return 'host' if model['role'] == 'host' else model['platform']


def ping_key(kind: str, interface: str, address: str) -> str:
    return '%s:%s:%s' % (kind, interface, address)


def ping_argv(interface: str, address: str, payload: int | None = None) -> list:
    argv = ['ping', '-n', '-c', str(PING_COUNT), '-i', PING_INTERVAL, '-W', str(PING_WAIT), '-I', interface]
    if payload is not None:
        argv += ['-M', 'do', '-s', str(payload)]
    return argv + [address]


def commands_for(model: dict, pings=()) -> list:
    """[{key, argv}] to run on the device of `model`; pings from catalog.ping_targets()."""
    platform = platform_of(model)
    commands = []
    for key, argv, roles in COMMANDS.get(platform, ()):
        if roles is None or model['role'] in roles:
            commands.append({'key': key, 'argv': list(argv)})
    for target in pings:
        commands.append({'key': ping_key('ping', target['interface'], target['peer_ip']),
                         'argv': ping_argv(target['interface'], target['peer_ip'])})
        commands.append({'key': ping_key('jumbo', target['interface'], target['peer_ip']),
                         'argv': ping_argv(target['interface'], target['peer_ip'], target['jumbo_payload'])})
    return commands


def parser_for(key: str):
    if key.startswith(('ping:', 'jumbo:')):
        return PING_PARSER
    return PARSERS.get(key)


__all__ = ['PARSERS', 'COMMANDS', 'UNSUPPORTED', 'commands_for', 'parser_for', 'ping_key', 'ping_argv',
           'platform_of', 'IPV4_ICMP_OVERHEAD']
