# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Both ends of every link, through the cabling plan: what one end shows must match what the other end shows.

Links are walked from their lower end (a GPU server rail to its leaf, a leaf uplink to its spine, a spine uplink
to its super-spine), so each link is judged once; port names come from the device models. The per-port checks
(interface_mtu, lossless_*) say whether each end matches the design; these say whether the two ends agree and
which end to look at when they do not.
"""

from __future__ import annotations

from . import ERROR, FAIL, NOT_APPLICABLE, PASS, Result, check, state_problem
from .lossless import PHASES, _collapse_na, _describe_set, _profile, switch_side
from ..intent import VXLAN_OVERHEAD
from ..state import StateError

ALL = ('leaf', 'spine', 'super_spine', 'host')


def uplinks(model) -> list:
    """[(local port, peer device, peer port, designed local MTU)] of the links whose lower end is `model`."""
    if model['role'] == 'host':
        return [(rail['interface'], rail['leaf'], rail['leaf_interface'], model['mtu']) for rail in model['rails']]
    return [(item['name'], item['peer'], item['peer_interface'], item['mtu']) for item in model['interfaces']
            if item.get('direction') == 'up']


def link_subject(model, port, peer, peer_port) -> str:
    return '%s <-> %s %s' % (port, peer, peer_port)


def _peer_item(ctx, peer, peer_port):
    return next((item for item in ctx.model(peer).get('interfaces', []) if item['name'] == peer_port), None)


@check('link_mtu', 'Both ends of every link have MTUs that fit', 'fabric', ALL, ('interfaces',), rules=('C14',),
       description='Switch-switch links: both ends have the same MTU (the designed one). GPU server rails: the NIC '
                   'MTU plus the overlay overhead fits the leaf port MTU. A mismatch names the end that differs from '
                   'the design.', peers=True)
def link_mtu(ctx, model):
    name = model['name']
    results = []
    host = model['role'] == 'host'
    overhead = VXLAN_OVERHEAD if host and ctx.design.intent['hosts']['attachment'] == 'evpn' else 0
    for port, peer, peer_port, designed in uplinks(model):
        subject = link_subject(model, port, peer, peer_port)
        item = _peer_item(ctx, peer, peer_port)
        peer_designed = item['mtu'] if item else None
        want = ('MTU %d + %d <= %s %s MTU %s' % (designed, overhead, peer, peer_port, peer_designed) if host
                else 'MTU %d on both ends' % designed)
        ends = {}
        for device, interface in ((name, port), (peer, peer_port)):
            state = ctx.state(device)
            if not state.provides('interfaces'):
                ends = None
                results.append(Result(name, 'link_mtu', subject, NOT_APPLICABLE, want, '-', 'not applicable: the %s '
                                      'gatherer does not read interfaces' % state.gatherer.title))
                break
            try:
                ends[device] = (state.get('interfaces').get(interface) or {}).get('mtu')
            except StateError as exc:
                ends = None
                results.append(state_problem(name, 'link_mtu', subject, exc, want))
                break
        if ends is None:
            continue
        local, remote = ends[name], ends[peer]
        seen = '%s %s MTU %s, %s %s MTU %s' % (name, port, local, peer, peer_port, remote)
        if host:
            ok = local == designed and remote is not None and local is not None and local + overhead <= remote
        else:
            ok = local == remote == designed
        message = ''
        if not ok:
            wrong = [('%s %s' % (device, interface)) for device, interface, value, want_value in
                     ((name, port, local, designed), (peer, peer_port, remote, peer_designed)) if value != want_value]
            message = 'look at %s (differs from the design)' % ' and '.join(wrong) if wrong else \
                'the designed MTUs do not fit each other'
        results.append(Result(name, 'link_mtu', subject, PASS if ok else FAIL, want, seen, message, rule='C14',
                              source='%s; %s' % (ctx.state(name).describe('interfaces'), ctx.state(peer).describe('interfaces')),
                              link='%s %s' % (name, port)))
    return results


def _lossless_facts(ctx, view):
    profile = _profile(ctx)
    lossless = sorted(profile['lossless_priorities'])
    queues = [(view['tc_to_queue'] or {}).get(prio, prio) for prio in lossless]
    ecn = all(((view['queues'].get(queue) or {}).get('wred') or {}).get('ecn') not in (None, 'ecn_none')
              for queue in queues)
    return {
        'PFC': _describe_set(view['pfc']),
        'RoCE DSCP %d -> TC' % profile['roce_dscp']: (view['dscp_to_tc'] or {}).get(profile['roce_dscp']),
        'CNP DSCP %d -> TC' % profile['cnp_dscp']: (view['dscp_to_tc'] or {}).get(profile['cnp_dscp']),
        'ECN on the lossless queues': 'on' if ecn else 'off',
        'PFC watchdog': 'on' if view['watchdog'] else 'off',
    }


def _designed_facts(ctx):
    profile = _profile(ctx)
    return {
        'PFC': _describe_set(sorted(profile['lossless_priorities'])),
        'RoCE DSCP %d -> TC' % profile['roce_dscp']: profile['roce_priority'],
        'CNP DSCP %d -> TC' % profile['cnp_dscp']: profile['cnp_priority'],
        'ECN on the lossless queues': 'on',
        'PFC watchdog': 'on' if profile['watchdog']['enabled'] else 'off',
    }


@check('link_lossless', 'Both ends of every switch link agree on the lossless class', 'lossless',
       ('leaf', 'spine', 'super_spine'), ('lossless',), rules=('C01', 'C03', 'C08', 'C10', 'C12'),
       description='On every switch-to-switch link both ends enable PFC on the same priorities, map the RoCE and '
                   'CNP DSCPs to the same traffic classes, mark ECN on the lossless queues and run the PFC '
                   'watchdog; a difference names the property and the end that departs from the design. GPU server '
                   'rails are compared with their leaf port by the host_switch_* checks.', peers=True)
def link_lossless(ctx, model):
    name = model['name']
    results = []
    designed = _designed_facts(ctx)
    want = ', '.join('%s %s' % (key, value) for key, value in designed.items())
    for phase in tuple(ctx.options.get('lossless_phases', PHASES)):
        for port, peer, peer_port, _mtu in uplinks(model):
            subject = '%s [%s]' % (link_subject(model, port, peer, peer_port), phase)
            sides = [switch_side(ctx, model, phase), switch_side(ctx, ctx.model(peer), phase)]
            reason = next((side['na'] for side in sides if side['na']), None)
            if reason:
                results.append(Result(name, 'link_lossless', 'all links', NOT_APPLICABLE, 'both ends lossless', '-',
                                      'not applicable: %s' % reason, rule='C01,C03,C08,C10,C12', category='lossless',
                                      source=phase))
                continue
            error = next((side['error'] for side in sides if side['error'] is not None), None)
            if error is not None:
                results.append(Result(name, 'link_lossless', subject, ERROR, want, error.message,
                                      'state: %s' % error.source, rule='C01,C03,C08,C10,C12', category='lossless',
                                      source=phase))
                continue
            views = [sides[0]['views'].get(port), sides[1]['views'].get(peer_port)]
            if None in views:
                ends = (('%s %s' % (name, port), views[0]), ('%s %s' % (peer, peer_port), views[1]))
                missing = [label for label, view in ends if view is None]
                results.append(Result(name, 'link_lossless', subject, FAIL, want, 'port missing: %s' % ', '.join(missing),
                                      rule='C01,C03,C08,C10,C12', category='lossless', source=phase))
                continue
            local, remote = _lossless_facts(ctx, views[0]), _lossless_facts(ctx, views[1])
            problems = []
            for key, value in designed.items():
                if local[key] == remote[key] == value:
                    continue
                off = [label for label, facts in (('%s %s' % (name, port), local), ('%s %s' % (peer, peer_port), remote))
                       if facts[key] != value]
                problems.append('%s: %s %s %s, %s %s %s (look at %s)' % (key, name, port, local[key], peer, peer_port,
                                                                         remote[key], ' and '.join(off)))
            seen = '; '.join(problems) or 'both ends: %s' % ', '.join('%s %s' % item for item in local.items())
            results.append(Result(name, 'link_lossless', subject, FAIL if problems else PASS, want, seen,
                                  rule='C01,C03,C08,C10,C12', category='lossless',
                                  source='%s: %s + %s' % (phase, sides[0]['source'], sides[1]['source']),
                                  link='%s %s' % (name, port)))
    return _collapse_na(results)


__all__ = ['uplinks', 'link_subject']
