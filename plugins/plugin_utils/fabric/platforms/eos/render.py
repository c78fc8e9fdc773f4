# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Arista EOS: one complete `startup-config.cfg` per switch, in EOS running-config section order.

Line shapes follow the AVD eos_cli_config_gen schema and templates (github.com/aristanetworks/avd, written here
from scratch) and the EOS User Manual (https://www.arista.com/en/um-eos): DSCP -> traffic-class maps (Quality of
Service), a `qos profile` bound with `service-profile` that carries trust, tx-queue scheduling, ECN
(`random-detect ecn`), PFC no-drop (Priority Flow Control) and the PFC watchdog in seconds, the VXLAN QoS
propagation knobs (VXLAN, rule C21) and eBGP/EVPN (EVPN).

EVPN rides on the underlay eBGP sessions (one session per fabric link, like the FRR and NVUE renderers),
so a mixed-vendor fabric peers cleanly. Everything here is formatting: seconds from milliseconds, speed
keywords from speed and lane count, DSCP map lines grouped from the model's dscp_to_tc.
"""

from __future__ import annotations

from typing import Any

from jinja2 import Environment

from ...model import Ecn, Lossless, SwitchModel

PROFILE = 'AIFABRIC-LOSSLESS'
PEER_GROUP = 'FABRIC'
# The standard access list of management.allowed_sources, bound to eAPI and SSH (AVD standard-access-lists.j2,
# management-api-http.j2 `ip access-group`, management-ssh.j2 `ip access-group <acl> [vrf <vrf>] in`).
MANAGEMENT_ACL = 'AIFABRIC-MGMT'
# Intent action -> EOS port action (AVD priority_flow_control.watchdog: `port action drop|notify-only`). `forward` is rejected
# by intent validation for EOS (platforms.PLATFORMS['eos'].watchdog.actions).
WATCHDOG_ACTION = {'drop': 'drop', 'alert': 'notify-only'}
# EOS `speed` keywords name the lane count for multi-lane PAM4/NRZ modes (e.g. 400g-8 vs 400g-4); single-lane
# and legacy 4x10G rates take the bare rate.
BARE_SPEEDS = (10, 25, 40)
DSCP_PER_LINE = 8  # one line per DSCP/8 block keeps the map readable and within CLI token limits


def seconds(value_ms: int, places: int) -> str:
    """EOS watchdog timers are seconds (AVD priority_flow_control.watchdog): 200 ms -> '0.2', 5 ms -> '0.005', 1000 ms -> '1'."""
    text = '%.*f' % (places, value_ms / 1000.0)
    return text.rstrip('0').rstrip('.') if '.' in text else text


def speed_keyword(speed_gbps: int, lanes: int) -> str:
    """`<rate>g-<lanes>` (400g-8 on 50G lanes, 400g-4 on 100G lanes, 100g-1); legacy 10/25/40G take the bare rate."""
    if speed_gbps in BARE_SPEEDS:
        return '%dg' % speed_gbps
    return '%dg-%d' % (speed_gbps, max(lanes, 1))


def dscp_map_lines(dscp_to_tc: dict) -> list:
    """`<dscp list> to traffic-class <tc>` bodies: every DSCP is mapped explicitly (EOS manual, Quality of Service: the EOS
    default map puts CS3 = 24..31 in TC3 and 48..55 in TC6, which would make non-RoCE traffic lossless or
    strict), grouped per traffic class and DSCP/8 block, ordered by traffic class then DSCP."""
    groups = {}
    for dscp in sorted(int(key) for key in dscp_to_tc):
        tc = dscp_to_tc[dscp] if dscp in dscp_to_tc else dscp_to_tc[str(dscp)]
        groups.setdefault((tc, dscp // DSCP_PER_LINE), []).append(str(dscp))
    return ['%s to traffic-class %d' % (' '.join(values), tc) for (tc, _unused), values in sorted(groups.items())]


def profile_name(speed_gbps: int) -> str:
    """One qos profile per port speed: the ECN thresholds scale with the speed (the rest is identical)."""
    return '%s-%dG' % (PROFILE, speed_gbps)


def queue_map(qos: Lossless) -> dict[int, int]:
    """Traffic class -> tx-queue on EOS. Its queues are strict until `no priority`, which makes the queue and every
    lower one round-robin: a strict queue serves only above every round-robin one. So the CNP class, the one strict
    class (C10), takes the highest queue, and the class that held it takes the CNP class's queue; every other class is
    then round-robin with its DWRR share, as SONiC and NVUE give them (intent validation keeps the lossless classes
    off the highest queue, platforms.eos `strict_queue_on_top`)."""
    queue_of = {int(tc): queue for tc, queue in qos['tc_to_queue'].items()}
    top = max(queue_of.values())
    cnp = qos['cnp_priority']
    if queue_of[cnp] != top:
        holder = min(tc for tc, queue in queue_of.items() if queue == top)
        queue_of[holder], queue_of[cnp] = queue_of[cnp], top
    return queue_of


def traffic_class_maps(qos: Lossless, tunnel_dscp: bool) -> list[str]:
    """`qos map traffic-class` bodies, by traffic class: the outer DSCP of bridged VXLAN per class (where the VTEP
    derives it from the class) and the tx-queue of each class queue_map() moves."""
    design = {int(tc): queue for tc, queue in qos['tc_to_queue'].items()}
    lines = [(tc, '%d to tx-queue %d' % (tc, queue)) for tc, queue in queue_map(qos).items() if design[tc] != queue]
    if tunnel_dscp:
        lines += [(int(tc), '%d to dscp %d' % (int(tc), dscp)) for tc, dscp in qos['tc_to_dscp'].items()]
    return [text for _tc, text in sorted(lines)]


def tx_queues(qos: Lossless, ecn: Ecn) -> list:
    """Scheduling per egress queue (queue_map): the CNP queue strict on top, the lossless queues DWRR + ECN, the
    default class and the classes no DSCP maps to DWRR with their share (C10, C20, C08)."""
    weights = {int(tc): percent for tc, percent in qos['tc_bandwidth_percent'].items()}
    queue_of = queue_map(qos)
    cnp_queue = queue_of[qos['cnp_priority']]
    queues: list[dict[str, Any]] = [{'id': cnp_queue, 'strict': True, 'bandwidth': None, 'ecn': None, 'ecn_count': False}]
    for tc in qos['lossless_priorities']:
        queues.append({'id': queue_of[tc], 'strict': False, 'bandwidth': weights[tc], 'ecn_count': True,
                       'ecn': (ecn['min_threshold_bytes'], ecn['max_threshold_bytes'], ecn['mark_probability_percent'])})
    for tc in [qos['default_traffic_class']] + [tc for tc in qos['lossy_traffic_classes']
                                                if tc != qos['default_traffic_class']]:
        queues.append({'id': queue_of[tc], 'strict': False, 'bandwidth': weights[tc], 'ecn': None, 'ecn_count': False})
    return sorted(queues, key=lambda queue: queue['id'])


def watchdog_view(watchdog: dict):
    if not watchdog['enabled']:
        return None
    # AVD priority_flow_control.watchdog: timeout and recovery-time take 2 decimals, polling-interval 3.
    return {
        'action': WATCHDOG_ACTION[watchdog['action']],
        'timeout': seconds(watchdog['detection_ms'], 2),
        'recovery': seconds(watchdog['restoration_ms'], 2),
        'polling': seconds(watchdog['poll_interval_ms'], 3),
    }


# Local users: admin = privilege 15 with EOS's built-in network-admin role, operator = read-only network-operator.
USER_ROLES = {'admin': '15 role network-admin', 'operator': '1 role network-operator'}
TACACS_GROUP = 'aifabric'


def acl_entries(sources: list[str]) -> list[str]:
    """`<seq> permit <source>` bodies of the management access list, in the intent's order: a /32 as `host`, the way
    AVD's examples and EOS write one; a source no rule permits is denied (docs/platform-eos.md)."""
    return ['%d permit %s' % (10 * (index + 1), 'host ' + source.split('/')[0] if source.endswith('/32') else source)
            for index, source in enumerate(sources)]


# The one file and its template: sections/ holds one template per configuration section, included in order.
FILE = 'startup-config.cfg'
TEMPLATE = 'eos/startup-config.cfg.j2'


def render(model: SwitchModel, env: Environment) -> dict[str, str]:
    return {FILE: env.get_template(TEMPLATE).render(context(model))}


def context(model: SwitchModel) -> dict[str, Any]:
    """What the templates format: the model and the view derived from it (each section template renders alone
    from it)."""
    qos = model['qos']
    evpn = model['evpn']
    management = model['management']
    return {
        'm': model,
        'mgmt': management,
        'in_vrf': ' vrf %s' % management['vrf'] if management['vrf'] else '',
        'acl': MANAGEMENT_ACL if management['allowed_sources'] else None,
        'acl_entries': acl_entries(management['allowed_sources']),
        'tacacs_group': TACACS_GROUP,
        'user_roles': USER_ROLES,
        'bgp': model['bgp'],
        'evpn': evpn,
        'interfaces': model['interfaces'],
        'profile_name': profile_name,
        # One qos profile per port speed, in speed order, with that speed's ECN thresholds.
        'profiles': [{'name': profile_name(speed), 'queues': tx_queues(qos, ecn)}
                     for speed, ecn in sorted({item['speed_gbps']: item['ecn'] for item in model['interfaces']}.items())]
        if qos else [],
        'peer_group': PEER_GROUP,
        'speed_keyword': speed_keyword,
        'dscp_map': dscp_map_lines(qos['dscp_to_tc']) if qos else [],
        'watchdog': watchdog_view(qos['watchdog']) if qos else None,
        'svis': [vlan for vlan in evpn['vlans'] if vlan['vrf'] and vlan['gateway']] if evpn else [],
        'transit': model['role'] != 'leaf',
        # Without DSCP propagation the outer VXLAN DSCP is the class's DSCP (TC -> DSCP map), VXLAN DSCP Mapping.
        'tc_maps': traffic_class_maps(qos, bool(evpn and evpn['tunnel_qos']['encap_dscp'] == 'from_traffic_class'))
        if qos else [],
    }
