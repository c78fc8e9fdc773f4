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

from . import Check, NotApplicable, Subject, failed, register, verdict
from .catalog import link_subject, uplinks
from .sides import describe_set, phases, profile, switch_side
from ..terms import ROLES, SWITCH_ROLES, VXLAN_OVERHEAD

ALL = ROLES
LOSSLESS_RULES = ('C01', 'C03', 'C08', 'C10', 'C12')


def _peer_item(ctx, peer, peer_port):
    return next((item for item in ctx.model(peer).get('interfaces', []) if item['name'] == peer_port), None)


@register
class LinkMtu(Check):
    id = 'link_mtu'
    title = 'Both ends of every link have MTUs that fit'
    roles = ALL
    per = 'link (from its lower end)'
    state = ('interfaces',)
    rules = ('C14',)
    peers = True
    source_per_subject = True
    inputs = 'the cabling plan and the designed MTU of both ends of every link; the overlay overhead of host rails'
    description = ('switch links: both ends have the same, designed MTU; GPU server rails: the NIC MTU plus the overlay '
                   'overhead fits the leaf port MTU')
    failure = 'the MTU of both ends and which end differs from the design'
    example = ('leaf001 link_mtu [eth3 <-> spine001 eth1]: expected MTU 9100 on both ends; seen leaf001 eth3 MTU 1500, '
               'spine001 eth1 MTU 9100 (look at leaf001 eth3 (differs from the design))')

    def subjects(self, ctx, model):
        host = model['role'] == 'host'
        overhead = VXLAN_OVERHEAD if host and ctx.design.intent['hosts']['attachment'] == 'evpn' else 0
        for port, peer, peer_port, designed in uplinks(model):
            item = _peer_item(ctx, peer, peer_port)
            peer_designed = item['mtu'] if item else None
            want = ('MTU %d + %d <= %s %s MTU %s' % (designed, overhead, peer, peer_port, peer_designed) if host
                    else 'MTU %d on both ends' % designed)
            yield Subject(link_subject(port, peer, peer_port), want, port=port,
                          data=(port, peer, peer_port, designed, peer_designed, overhead))

    def read(self, ctx, model, subject):
        port, peer, peer_port = subject.data[:3]
        ends = []
        for device, interface in ((model['name'], port), (peer, peer_port)):
            state = ctx.state(device)
            if not state.provides('interfaces'):
                raise NotApplicable('the %s gatherer does not read interfaces' % state.gatherer.title)
            ends.append((state.get('interfaces').get(interface) or {}).get('mtu'))
        return ends

    def source(self, ctx, model, subject):
        return '%s; %s' % (ctx.state(model['name']).describe('interfaces'), ctx.state(subject.data[1]).describe('interfaces'))

    def judge(self, ctx, model, subject, state):
        port, peer, peer_port, designed, peer_designed, overhead = subject.data
        name, (local, remote) = model['name'], state
        seen = '%s %s MTU %s, %s %s MTU %s' % (name, port, local, peer, peer_port, remote)
        if model['role'] == 'host':
            ok = local == designed and remote is not None and local is not None and local + overhead <= remote
        else:
            ok = local == remote == designed
        if ok:
            return verdict(True, seen)
        wrong = ['%s %s' % (device, interface) for device, interface, value, want in
                 ((name, port, local, designed), (peer, peer_port, remote, peer_designed)) if value != want]
        return failed(seen, message='look at %s (differs from the design)' % ' and '.join(wrong) if wrong
                      else 'the designed MTUs do not fit each other',
                      facts={'port': port,
                             'ends': [[name, port, local, designed], [peer, peer_port, remote, peer_designed]]})

    def fact_node(self, graph, result, facts):
        return ('link_mtu',) + graph.link(result.device, facts['port'])[1:]

    def finding(self, graph, node, evidence):
        if node[0] != 'link_mtu':
            return super().finding(graph, node, evidence)
        ends = evidence[0].facts['ends']
        return ('link_mtu', 'the MTUs of %s %s (%s) and %s %s (%s) do not fit each other, both as designed' % (
            ends[0][0], ends[0][1], ends[0][2], ends[1][0], ends[1][1], ends[1][2]),
            'the intent: the switch port MTU must carry the host MTU and the overlay overhead')


def _lossless_facts(ctx, view):
    lossless = profile(ctx)
    priorities = sorted(lossless['lossless_priorities'])
    queues = [(view['tc_to_queue'] or {}).get(prio, prio) for prio in priorities]
    ecn = all(((view['queues'].get(queue) or {}).get('wred') or {}).get('ecn') not in (None, 'ecn_none')
              for queue in queues)
    return {
        'PFC': describe_set(view['pfc']),
        'RoCE DSCP %d -> TC' % lossless['roce_dscp']: (view['dscp_to_tc'] or {}).get(lossless['roce_dscp']),
        'CNP DSCP %d -> TC' % lossless['cnp_dscp']: (view['dscp_to_tc'] or {}).get(lossless['cnp_dscp']),
        'ECN on the lossless queues': 'on' if ecn else 'off',
        'PFC watchdog': 'on' if view['watchdog'] else 'off',
    }


def _designed_facts(ctx):
    lossless = profile(ctx)
    return {
        'PFC': describe_set(sorted(lossless['lossless_priorities'])),
        'RoCE DSCP %d -> TC' % lossless['roce_dscp']: lossless['roce_priority'],
        'CNP DSCP %d -> TC' % lossless['cnp_dscp']: lossless['cnp_priority'],
        'ECN on the lossless queues': 'on',
        'PFC watchdog': 'on' if lossless['watchdog']['enabled'] else 'off',
    }


@register
class LinkLossless(Check):
    id = 'link_lossless'
    title = 'Both ends of every switch link agree on the lossless class'
    category = 'lossless'
    roles = SWITCH_ROLES
    per = 'switch link (both ends), per phase'
    state = ('lossless',)
    rules = LOSSLESS_RULES
    peers = True
    source_per_subject = True
    inputs = 'the cabling plan and the lossless profile (PFC priorities, RoCE and CNP DSCP and classes, ECN, watchdog)'
    description = ('on every switch-to-switch link both ends enable PFC on the same priorities, map the RoCE and CNP '
                   'DSCPs to the same traffic classes, mark ECN on the lossless queues and run the PFC watchdog (GPU '
                   'server rails are compared with their leaf port by the host_switch_* checks)')
    failure = 'each property that differs, with both ends, and the end that departs from the design'
    example = ('leaf001 link_lossless [Ethernet2/1 <-> spine001 Ethernet1/1 [deployed]]: ... seen PFC: leaf001 '
               'Ethernet2/1 {3}, spine001 Ethernet1/1 {} (look at spine001 Ethernet1/1)')
    na_subject = 'all links'
    na_expected = 'both ends lossless'

    def subjects(self, ctx, model):
        designed = _designed_facts(ctx)
        want = ', '.join('%s %s' % (key, value) for key, value in designed.items())
        for phase in phases(ctx):
            for port, peer, peer_port, _mtu in uplinks(model):
                yield Subject('%s [%s]' % (link_subject(port, peer, peer_port), phase), want, port=port, phase=phase,
                              data=(port, peer, peer_port, designed))

    def read(self, ctx, model, subject):
        sides = [switch_side(ctx, model, subject.phase), switch_side(ctx, ctx.model(subject.data[1]), subject.phase)]
        reason = next((side['na'] for side in sides if side['na']), None)
        if reason:
            raise NotApplicable(reason)
        error = next((side['error'] for side in sides if side['error'] is not None), None)
        if error is not None:
            raise error
        return sides

    def source(self, ctx, model, subject):
        sides = [switch_side(ctx, model, subject.phase), switch_side(ctx, ctx.model(subject.data[1]), subject.phase)]
        return '%s: %s + %s' % (subject.phase, sides[0]['source'], sides[1]['source'])

    def judge(self, ctx, model, subject, state):
        port, peer, peer_port, designed = subject.data
        name = model['name']
        views = [state[0]['views'].get(port), state[1]['views'].get(peer_port)]
        if None in views:
            ends = (('%s %s' % (name, port), views[0]), ('%s %s' % (peer, peer_port), views[1]))
            return failed('port missing: %s' % ', '.join(label for label, view in ends if view is None), source=subject.phase)
        local, remote = _lossless_facts(ctx, views[0]), _lossless_facts(ctx, views[1])
        problems, departing = [], []
        for key, value in designed.items():
            if local[key] == remote[key] == value:
                continue
            off = [(device, '%s %s' % (device, interface)) for device, interface, facts in
                   ((name, port, local), (peer, peer_port, remote)) if facts[key] != value]
            departing += [device for device, _label in off if device not in departing]
            problems.append('%s: %s %s %s, %s %s %s (look at %s)' % (key, name, port, local[key], peer, peer_port,
                                                                     remote[key], ' and '.join(label for _device, label
                                                                                               in off)))
        seen = '; '.join(problems) or 'both ends: %s' % ', '.join('%s %s' % item for item in local.items())
        # the end that departs from the design is the one to blame (the other may be exactly as designed)
        return verdict(not problems, seen, facts={'phase': subject.phase, 'off': departing})


__all__ = ['LinkMtu', 'LinkLossless']
