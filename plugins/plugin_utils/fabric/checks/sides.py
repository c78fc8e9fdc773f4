# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The two sides the lossless checks compare, each turned into views with the same fields (state/views.py), so one
set of rules judges every platform:

- a switch side: `design` phase, the configuration the collection renders read back by the platform's own parser
  (gatherer.design_view); `deployed` phase, the neutral `lossless` state read from the running switch;
- a host side: `design` phase, the host model; `deployed` phase, what aifabric.fabric.rnic_facts read from the NICs.

Each side is computed once per device and phase (ctx.cache) and says why it cannot be judged: `na` (a reason) or
`error` (a StateError).
"""

from __future__ import annotations

from ..platforms import get_platform
from ..render import render_model
from ..state import StateError
from ..state.sources import gatherer_for

PHASES = ('design', 'deployed')


def no_lossless_dataplane(title) -> str:
    """Why a switch without a lossless data plane (the FRR lab switch) has no lossless state to check."""
    return ('%s has no lossless data plane: PFC, ECN, buffers and the PFC watchdog cannot exist in a software lab, so '
            'the design gives these switches no lossless configuration (the switches of lossless platforms are checked here)'
            % title)


def phases(ctx) -> tuple:
    return tuple(ctx.options.get('lossless_phases', PHASES))


def profile(ctx) -> dict:
    return ctx.design.lossless


def describe_set(values) -> str:
    return '{%s}' % ','.join(str(value) for value in values) if values is not None else 'unknown'


def _rendered(model):
    """The files rendered for `model` (without local users: a design view), read back by the platform's parser."""
    try:
        return render_model(model)
    except (KeyError, ValueError) as exc:
        raise StateError('rendered configuration', 'cannot render: %s' % exc) from None


def switch_side(ctx, model, phase):
    """{'views': {port: view} | None, 'source', 'na': reason | None, 'error': StateError | None, 'issues': []}."""
    key = ('switch_side', model['name'], phase)
    if key in ctx.cache:
        return ctx.cache[key]
    platform = get_platform(model['platform'])
    gatherer = gatherer_for(model)
    side = {'views': None, 'source': None, 'na': None, 'error': None, 'issues': []}
    try:
        if not platform.lossless_dataplane or model.get('qos') is None:
            side['na'] = no_lossless_dataplane(gatherer.title)
        elif phase == 'design':
            if gatherer.design_view is None:
                side['na'] = 'the %s gatherer cannot read the rendered configuration' % gatherer.title
            else:
                state = gatherer.design_view(_rendered(model))
                side.update(views=state['ports'], issues=state['issues'], source=state['source'])
        elif not ctx.state(model['name']).provides('lossless'):
            side['na'] = 'the %s gatherer does not read the lossless configuration' % gatherer.title
        else:
            side['source'] = gatherer.describe('lossless', model)
            state = ctx.state(model['name']).get('lossless')
            side.update(views=state['ports'], issues=state['issues'], source=state['source'])
    except StateError as exc:
        side['error'] = exc.with_traceback(None)  # kept: its frames would keep what they read
    ctx.cache[key] = side
    return side


# NCCL's NCCL_IB_TC when nothing sets it (NCCL environment variables: "Default is 0").
NCCL_DEFAULT_IB_TC = 0


def _model_host_views(model):
    rnic = model['rnic']
    mapping = {int(dscp): prio for dscp, prio in rnic['dscp_to_priority'].items()}
    # What the applications mark, as rendered: nccl.conf and the RDMA-CM default ToS host_rnic writes.
    marking = [('NCCL_IB_TC (nccl.conf)', model['nccl'].get('NCCL_IB_TC', NCCL_DEFAULT_IB_TC)),
               ('RDMA-CM default ToS', rnic['traffic_class'])]
    return {rail['interface']: {
        'mtu': rnic.get('mtu', model['mtu']), 'trust': rnic['trust'], 'dscp_to_priority': mapping,
        'pfc': sorted(rnic['pfc_priorities']), 'cnp_dscp': rnic['cnp_dscp'], 'cnp_priority': rnic['cnp_priority'],
        'ecn': sorted(rnic.get('ecn_priorities') or []), 'ecn_known': True, 'pause': {'rx': False, 'tx': False},
        'exists': True, 'rdma': True, 'marking': marking, 'marking_error': None,
        # host_rnic sets the NIC's headroom cable length to the rail's cable (mlnx_qos --cable_len)
        'cable_length_m': rail['cable_length_m'], 'qos_read': True,
    } for rail in model['rails']}


def _nccl_marking(ctx, name):
    """(label, NCCL_IB_TC) from the host's /etc/nccl.conf, or a StateError."""
    try:
        conf = ctx.state(name).get('nccl_conf')
    except StateError as exc:
        return exc
    if not conf['present']:
        return ('NCCL_IB_TC (no %s: NCCL default)' % conf['path'], NCCL_DEFAULT_IB_TC)
    value = conf['settings'].get('NCCL_IB_TC')
    if value is None:
        return ('NCCL_IB_TC (not in %s: NCCL default)' % conf['path'], NCCL_DEFAULT_IB_TC)
    try:
        return ('NCCL_IB_TC (%s)' % conf['path'], int(value))
    except ValueError:
        return StateError('nccl_conf', 'NCCL_IB_TC=%r in %s is not a number' % (value, conf['path']))


def _facts_host_views(parsed, nccl):
    views = {}
    for name, data in parsed['interfaces'].items():
        ecn = None
        if data['ecn_rp_priorities'] is not None:
            ecn = sorted(set(data['ecn_rp_priorities']) & set(data['ecn_np_priorities'] or []))
        marking = [] if isinstance(nccl, StateError) else [nccl]
        if data['rdma_cm_tos'] is not None:
            marking.append(('RDMA-CM default ToS', data['rdma_cm_tos']))
        if data['traffic_class'] is not None:
            # MLNX_OFED's global verbs traffic class replaces what every application asks for, NCCL_IB_TC included.
            marking.append(('verbs traffic class (overrides NCCL_IB_TC)', data['traffic_class']))
        views[name] = {
            'mtu': data['mtu'], 'trust': data['trust'], 'dscp_to_priority': data['dscp_to_priority'],
            'pfc': data['pfc_priorities'], 'cnp_dscp': data['cnp_dscp'], 'cnp_priority': data['cnp_priority'],
            'ecn': ecn, 'ecn_known': ecn is not None, 'pause': data['pause'], 'exists': data['exists'],
            'rdma': bool(data['rdma_devices']), 'qos_tool': data['qos_tool'],
            'cable_length_m': data['cable_length_m'], 'qos_read': data['qos_tool'] is not None,
            'marking': marking, 'marking_error': nccl if isinstance(nccl, StateError) else None,
        }
    return views


def host_side(ctx, model, phase):
    """Like switch_side, for a GPU server: the host model (design) or its rnic_facts (deployed)."""
    key = ('host_side', model['name'], phase)
    if key in ctx.cache:
        return ctx.cache[key]
    side = {'views': None, 'source': None, 'na': None, 'error': None}
    if phase == 'design':
        side['source'] = 'host model'
        side['views'] = _model_host_views(model)
    else:
        side['source'] = 'rnic_facts'
        try:
            parsed = ctx.state(model['name']).get('rnic')
            if parsed['not_applicable']:
                side['na'] = parsed['not_applicable']
            else:
                side['views'] = _facts_host_views(parsed, _nccl_marking(ctx, model['name']))
        except StateError as exc:
            side['error'] = exc.with_traceback(None)  # kept: its frames would keep what they read
    ctx.cache[key] = side
    return side


__all__ = ['switch_side', 'host_side', 'describe_set', 'profile', 'phases', 'no_lossless_dataplane', 'PHASES']
