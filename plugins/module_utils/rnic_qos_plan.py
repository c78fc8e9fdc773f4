# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Decisions of the RNIC QoS applier: desired state, comparison and the minimal command list.

Pure functions (no I/O) so every decision is unit-tested: which tool path, which settings differ, and the
exact argv to run. Rules encoded here (sources in docs/hosts.md):
- The PFC enable mask is written in ONE call with all eight priorities: mlx5 toggles the port link whenever
  the mask changes, so `all:off` then `3:on` would flap it twice; an identical mask is not written at all.
- mlnx_qos refuses --trust and --dscp2prio in the same invocation; --trust dscp on the netlink path installs
  the default map (priority = DSCP >> 3), so overrides are computed against that default.
- With iproute2 dcb, mlx5 trusts DSCP as soon as the APP table holds a DSCP entry; `dcb app replace` adds
  the wanted entries and drops the replaced ones.
- The NIC's cable length (the IEEE PFC `delay`, which mlx5 reads as metres and sizes its lossless receive buffer's
  xoff from: en/port_buffer.c calculate_xoff) goes with the PFC mask: `mlnx_qos --cable_len` in the same call (it
  sets the delay before the mask and keeps it), `dcb pfc set ... delay` in the same IEEE PFC set. mlx5 ignores 0 and
  lengths from 1000 m (MLX5E_MAX_CABLE_LENGTH), and reports 0 when its firmware owns the port buffer: nothing to set.
"""

from __future__ import annotations

PRIORITIES = tuple(range(8))
# The cable lengths mlx5 takes (en_dcbnl.c: `pfc->delay && pfc->delay < MLX5E_MAX_CABLE_LENGTH`, 1000).
CABLE_LENGTHS = (1, 999)


def cable_reported(current):
    """The NIC's cable length, or None when it reports none (0: no driver-managed port buffer, or not read)."""
    value = current.get('cable_len')
    return value if value else None


def default_dscp_map():
    """The map a NIC uses with trust dscp and no explicit entries: priority = DSCP >> 3."""
    return {dscp: dscp >> 3 for dscp in range(64)}


def desired_dscp_map(overrides):
    """Default map with the design's overrides (keys may arrive as strings from Ansible)."""
    mapping = default_dscp_map()
    for dscp, prio in (overrides or {}).items():
        dscp, prio = int(dscp), int(prio)
        if not 0 <= dscp <= 63 or prio not in PRIORITIES:
            raise ValueError('DSCP %s -> priority %s is out of range (DSCP 0..63, priority 0..7)' % (dscp, prio))
        mapping[dscp] = prio
    return mapping


def pfc_mask(priorities):
    """[0|1] x 8 with 1 exactly on the lossless priorities."""
    wanted = {int(prio) for prio in priorities or ()}
    bad = sorted(wanted - set(PRIORITIES))
    if bad:
        raise ValueError('PFC priorities %s are out of range 0..7' % bad)
    return [1 if prio in wanted else 0 for prio in PRIORITIES]


def mask_text(mask):
    """[0,0,0,1,0,0,0,0] -> '00010000' (the form lshca and people read)."""
    return ''.join(str(bit) for bit in mask)


def tos_for_dscp(dscp, ect=True):
    """ToS / RoCE traffic-class byte: DSCP << 2, plus ECT(0) (0b10) so switches can ECN-mark. 26 -> 106."""
    dscp = int(dscp)
    if not 0 <= dscp <= 63:
        raise ValueError('DSCP %d is out of range 0..63' % dscp)
    return (dscp << 2) | (0b10 if ect else 0)


def dscp_for_tos(tos):
    """Inverse: the DSCP carried by a ToS byte (ECN bits dropped). 106 -> 26."""
    tos = int(tos)
    if not 0 <= tos <= 255:
        raise ValueError('traffic class %d is out of range 0..255' % tos)
    return tos >> 2


def dscp_diff(current, desired):
    """DSCPs whose priority differs (or is missing) in `current`, ascending."""
    return [dscp for dscp in sorted(desired) if current.get(dscp) != desired[dscp]]


def plan_qos(tool, interface, current, desired):
    """Commands that take `current` to `desired` for trust, PFC and the DSCP map.

    current: {'trust': 'dscp'|'pcp'|..., 'pfc': [8], 'dscp2prio': {dscp: prio}, 'cable_len': m|0|None}
    desired: {'trust': 'dscp'|'pcp', 'pfc': [8], 'dscp2prio': {dscp: prio} (full map when trust dscp),
              'cable_len': m|None (None: leave it)}
    Returns {'commands': [argv], 'changes': {setting: {'before': x, 'after': y}}}; both empty when equal.
    """
    if tool not in ('mlnx_qos', 'dcb'):
        raise ValueError('unknown QoS tool %r' % tool)
    changes = {}
    commands = []
    trust_changes = current.get('trust') != desired['trust']
    pfc_changes = list(current.get('pfc') or []) != list(desired['pfc'])
    if trust_changes:
        changes['trust'] = {'before': current.get('trust'), 'after': desired['trust']}
    if pfc_changes:
        changes['pfc'] = {'before': mask_text(current['pfc']) if current.get('pfc') else None,
                          'after': mask_text(desired['pfc'])}
    cable = desired.get('cable_len')
    cable_changes = cable is not None and cable_reported(current) is not None and cable_reported(current) != cable
    if cable_changes:
        changes['cable_len'] = {'before': current['cable_len'], 'after': cable}
    wants_dscp = desired['trust'] == 'dscp'
    if wants_dscp:
        if current.get('trust') == 'dscp':
            base = dict(current.get('dscp2prio') or {})
        elif tool == 'mlnx_qos':
            base = default_dscp_map()  # what --trust dscp installs
        else:
            base = dict(current.get('dscp2prio') or {})
        differing = dscp_diff(base, desired['dscp2prio'])
        if differing:
            changes['dscp2prio'] = {'before': {d: (current.get('dscp2prio') or {}).get(d) for d in differing},
                                    'after': {d: desired['dscp2prio'][d] for d in differing}}
    else:
        differing = sorted(current.get('dscp2prio') or {}) if tool == 'dcb' else []
    if tool == 'mlnx_qos':
        first = ['mlnx_qos', '-i', interface]
        if trust_changes:
            first += ['--trust', desired['trust']]
        if pfc_changes:
            first += ['--pfc', ','.join(str(bit) for bit in desired['pfc'])]
        if cable_changes:
            first += ['--cable_len', str(cable)]
        if len(first) > 3:
            commands.append(first)
        if wants_dscp and differing:
            second = ['mlnx_qos', '-i', interface]
            for dscp in differing:
                second += ['--dscp2prio', 'set,%d,%d' % (dscp, desired['dscp2prio'][dscp])]
            commands.append(second)
    else:
        # PFC first and in one call with all eight priorities: the final mask, one link toggle at most; the cable
        # length rides in the same IEEE PFC set.
        if pfc_changes or cable_changes:
            command = ['dcb', 'pfc', 'set', 'dev', interface]
            if pfc_changes:
                command += ['prio-pfc'] + ['%d:%s' % (prio, 'on' if bit else 'off')
                                           for prio, bit in enumerate(desired['pfc'])]
            if cable_changes:
                command += ['delay', str(cable)]
            commands.append(command)
        if wants_dscp and differing:
            commands.append(['dcb', 'app', 'replace', 'dev', interface, 'dscp-prio']
                            + ['%d:%d' % (dscp, desired['dscp2prio'][dscp]) for dscp in differing])
        elif not wants_dscp and differing:
            current_map = current.get('dscp2prio') or {}
            commands.append(['dcb', 'app', 'del', 'dev', interface, 'dscp-prio']
                            + ['%d:%d' % (dscp, current_map[dscp]) for dscp in differing])
    return {'commands': commands, 'changes': changes}


def qos_matches(actual, desired):
    """Settings still differing after an apply (read-back check): list of names, empty when all match."""
    wrong = []
    if actual.get('trust') != desired['trust']:
        wrong.append('trust')
    if list(actual.get('pfc') or []) != list(desired['pfc']):
        wrong.append('pfc')
    if desired['trust'] == 'dscp' and dscp_diff(actual.get('dscp2prio') or {}, desired['dscp2prio']):
        wrong.append('dscp2prio')
    if desired.get('cable_len') is not None and cable_reported(actual) not in (None, desired['cable_len']):
        wrong.append('cable_len')
    return wrong


def plan_sysfs_values(current, desired):
    """Generic compare for file-backed knobs: {path: value} pairs that differ, in the order given.

    current: {path: int|None}; desired: ordered {path: int}. Missing current (None) counts as different.
    """
    return [(path, current.get(path), value) for path, value in desired.items() if current.get(path) != value]


def plan_global_pause(pause):
    """ethtool -A arguments to switch IEEE 802.3x global pause off (it conflicts with PFC); [] when off."""
    if pause is None:
        return []
    if pause.get('rx') or pause.get('tx'):
        return ['rx', 'off', 'tx', 'off']
    return []
