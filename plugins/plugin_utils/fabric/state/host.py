# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The GPU server gatherer: Linux (iproute2, lldpd, ping) and the RDMA NICs (aifabric.fabric.rnic_facts).

Pings carry their target in the key: `ping:<rail interface>:<address>` and `jumbo:<rail interface>:<address>`
(catalog.ping_targets chooses the targets from the design). The RDMA NIC facts are read by the rnic_facts module
through the Ansible connection, once in full (`rnic`) and twice for counters (`counters`, `counters.2`).
"""

from __future__ import annotations

from . import StateError, command_output, iproute2, lldp, ping, require_mapping
from .counters import number
from .gatherer import Gatherer, Source
from .probe import PROBE_SOURCE
from .rnic import SOURCE as RNIC_SOURCE, parse_rnic_facts
from .shell import SHELL
from .schema import Counters, NcclConf

NCCL_CONF = '/etc/nccl.conf'  # what host_nccl installs (NCCL reads it after the environment)
RNIC_MODULE = 'aifabric.fabric.rnic_facts'
RNIC_PARTS = ['devices', 'qos', 'ecn', 'pause', 'traffic_class', 'rdma_cm']
COUNTER_PARTS = ['devices', 'counters']
# RDMA hw counters (mlx5 counters.c) the health rules read; names as /sys/class/infiniband/<dev>/ports/<p>/hw_counters.
RDMA_COUNTERS = ('np_ecn_marked_roce_packets', 'np_cnp_sent', 'rp_cnp_handled', 'out_of_sequence', 'packet_seq_err',
                 'implied_nak_seq_err', 'local_ack_timeout_err', 'rx_discards_phy')
PING_COUNT = 3
PING_INTERVAL = '0.2'
PING_WAIT = 2
IPV4_ICMP_OVERHEAD = 28  # IPv4 header 20 + ICMP echo header 8


def ping_key(kind: str, interface: str, address: str) -> str:
    return '%s:%s:%s' % (kind, interface, address)


def ping_argv(interface: str, address: str, payload: int | None = None) -> list:
    argv = ['ping', '-n', '-c', str(PING_COUNT), '-i', PING_INTERVAL, '-W', str(PING_WAIT), '-I', interface]
    if payload is not None:
        argv += ['-M', 'do', '-s', str(payload)]
    return argv + [address]


def _pings(model, options):
    commands = []
    for target in options.get('pings') or ():
        commands.append((ping_key('ping', target['interface'], target['peer_ip']),
                         ping_argv(target['interface'], target['peer_ip'])))
        commands.append((ping_key('jumbo', target['interface'], target['peer_ip']),
                         ping_argv(target['interface'], target['peer_ip'], target['jumbo_payload'])))
    return commands


def _ping_parser(key):
    return ping.parse_ping if key.startswith(('ping:', 'jumbo:')) else None


def _module(name, gather):
    return lambda model, options: ({'module': name, 'args': {'gather': list(gather)}}
                                   if options.get('rnic', True) else None)


def parse_rnic_counters(result) -> Counters:
    """Neutral counters of every RDMA netdev from rnic_facts (parts devices + counters).

    Per netdev: pfc_rx / pfc_tx / prio_discards per priority (ethtool -S rx|tx_prio<N>_pause, rx_prio<N>_discards),
    rx_discards_phy, and the hw counters of the RDMA device port on that netdev. A host without RDMA devices
    gives no ports and the reason under `not_applicable`.
    """
    facts = parse_rnic_facts(result)  # validates the shape, reports a failed or skipped module
    raw = result
    if isinstance(raw, dict) and 'ansible_facts' in raw:
        raw = raw['ansible_facts'].get('aifabric_rnic')
    source = RNIC_SOURCE
    ports = {}
    hw_by_netdev = {}
    for device in require_mapping(source, raw.get('devices') or {}, 'devices').values():
        for port in (device or {}).get('ports') or []:
            if isinstance(port, dict) and port.get('netdev'):
                hw_by_netdev[port['netdev']] = port.get('hw_counters') or {}
    for netdev, data in (raw.get('interfaces') or {}).items():
        if netdev not in facts['interfaces'] or not facts['interfaces'][netdev]['rdma_devices']:
            continue
        counters = (data or {}).get('counters') or {}
        per_priority = counters.get('per_priority') or {}
        entry = {'pfc_rx': {}, 'pfc_tx': {}, 'prio_discards': {}}
        for prio, values in per_priority.items():
            for name, target in (('rx_pause', 'pfc_rx'), ('tx_pause', 'pfc_tx'), ('rx_discards', 'prio_discards')):
                if name in (values or {}):
                    entry[target][int(prio)] = number(source, values[name], '%s prio %s %s' % (netdev, prio, name))
        for name in ('rx_discards_phy', 'tx_pause_storm_error_events'):
            if name in (counters.get('port') or {}):
                entry[name] = number(source, counters['port'][name], '%s %s' % (netdev, name))
        for name in RDMA_COUNTERS:
            if name in hw_by_netdev.get(netdev, {}):
                entry[name] = number(source, hw_by_netdev[netdev][name], '%s hw counter %s' % (netdev, name))
        ports[netdev] = entry
    if not ports and not facts['not_applicable'] and facts['interfaces']:
        raise StateError(source, 'no counters of any RDMA netdev (rnic_facts gathered without the counters part?)')
    return {'ports': ports, 'not_applicable': facts['not_applicable']}


def parse_nccl_conf(result) -> NcclConf:
    """NCCL_* settings of /etc/nccl.conf as NCCL reads them: one KEY=VALUE per line split at the first '=', '#'
    lines skipped, and the first line of a key wins (NCCL src/misc/param.cc setEnvFile: setenv without overwrite,
    so the environment wins over the file too). {'path', 'present', 'settings'}; a missing file is present False."""
    source = 'cat %s' % NCCL_CONF
    if isinstance(result, dict) and result.get('rc') not in (0, None) and 'No such file' in (result.get('stderr') or ''):
        return {'path': NCCL_CONF, 'present': False, 'settings': {}}
    settings = {}
    for line in command_output(source, result).splitlines():
        if not line or line.startswith('#') or '=' not in line:
            continue
        key, value = line.split('=', 1)
        settings.setdefault(key, value)
    return {'path': NCCL_CONF, 'present': True, 'settings': settings}


SOURCES = (
    iproute2.SOURCE,
    Source('nccl_conf', ['cat', NCCL_CONF], parse_nccl_conf),
    lldp.SOURCE,
    Source('rnic', _module(RNIC_MODULE, RNIC_PARTS), parse_rnic_facts),
    Source('counters', _module(RNIC_MODULE, COUNTER_PARTS), parse_rnic_counters),
    PROBE_SOURCE,
)
GATHERER = Gatherer('host', 'GPU server (Linux)', SOURCES, reader=SHELL, extra=_pings, extra_parser=_ping_parser)

__all__ = ['GATHERER', 'ping_key', 'ping_argv', 'parse_rnic_counters', 'parse_nccl_conf', 'IPV4_ICMP_OVERHEAD',
           'RNIC_PARTS', 'COUNTER_PARTS', 'NCCL_CONF']
