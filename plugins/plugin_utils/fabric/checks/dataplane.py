# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Data-plane marking: packets marked with the RoCE and CNP DSCPs keep them on the wire between leaf and spine.

A host sends UDP to port 4791 marked with each DSCP to a host of its rail behind another leaf
(aifabric.fabric.dscp_probe); the spines capture their links to the sender's leaf (aifabric.fabric.dscp_capture).
With an EVPN overlay the spines see VXLAN: the outer header must carry the DSCP (and ECN) the host put in the inner
one, else the spines classify tunnelled RoCE as best effort and cannot ECN-mark it (rule C21). Without an overlay
the packet itself must arrive with its DSCP. Only switches that forward in the kernel (the FRR lab) show transit
packets to a capture; elsewhere the check says so instead of passing.
"""

from __future__ import annotations

from . import FAIL, NOT_APPLICABLE, PASS, Result, check, state_problem
from .catalog import marking_flows, probe_markings
from ..state import StateError

CHECK = 'dataplane_marking'
CATEGORY = 'dataplane'
RULE = 'C21'


def _captured(ctx, flow):
    """([(device, packet)] of the flow's probe packets on its capture points, [StateError])."""
    packets, errors = [], []
    for point in flow['captures']:
        try:
            capture = ctx.state(point['device']).get('marking_capture')
        except StateError as exc:
            errors.append(exc)
            continue
        packets.extend((point['device'], packet) for packet in capture['packets']
                       if packet['interface'] == point['interface'] and packet['inner']['src'] == flow['source']
                       and packet['inner']['dst'] == flow['destination'])
    return packets, errors


def _tunnelled(flow, marking, packets):
    """(ok, text) for one marking of a VXLAN flow: every probe packet's outer header carries the inner DSCP/ECN."""
    mine = [(device, packet) for device, packet in packets if packet['inner']['dscp'] == marking['dscp']]
    if not mine:
        return False, '%s DSCP %d: no probe packet on the spine links' % (marking['name'], marking['dscp'])
    texts, ok = [], True
    for device, packet in mine:
        outer = packet['outer'] or {}
        good = (outer.get('dscp') == marking['dscp'] and outer.get('ecn') == packet['inner']['ecn']
                and packet['vni'] == flow['vni'])
        ok = ok and good
        texts.append('%s %s: %s inner DSCP %d ECN %d -> outer DSCP %s ECN %s (VNI %s, %d packets)' % (
            device, packet['interface'], marking['name'], packet['inner']['dscp'], packet['inner']['ecn'],
            outer.get('dscp', 'none: not tunnelled'), outer.get('ecn', '-'), packet['vni'], packet['count']))
    return ok, '; '.join(texts)


def _routed(marking, packets):
    """(ok, text) for one marking of a flow without overlay: the packet still carries the DSCP on the spine link."""
    mine = [(device, packet) for device, packet in packets if packet['outer'] is None
            and packet['inner']['dscp'] == marking['dscp']]
    if not mine:
        return False, '%s DSCP %d: no packet with that DSCP on the spine links' % (marking['name'], marking['dscp'])
    return True, '; '.join('%s %s: %s DSCP %d ECN %d (%d packets)' % (
        device, packet['interface'], marking['name'], packet['inner']['dscp'], packet['inner']['ecn'], packet['count'])
        for device, packet in mine)


@check(CHECK, 'RoCE and CNP keep their DSCP on the spine links', CATEGORY, ('host',),
       ('marking_probe', 'marking_capture'), (RULE,), peers=True,
       description='A host sends UDP to port 4791 marked with the RoCE and the CNP DSCP to a host of its rail '
                   'behind another leaf; the spines capture their links to the sender\'s leaf and the outer VXLAN '
                   'header (or the packet, without overlay) must carry the DSCP and ECN the host set (C21).')
def dataplane_marking(ctx, model):
    results = []
    markings = probe_markings(ctx)
    for flow in marking_flows(ctx):
        if flow['sender'] != model['name']:
            continue
        subject = 'rail %d %s %s -> %s %s' % (flow['rail'], flow['interface'], flow['source'], flow['receiver'],
                                               flow['destination'])
        header = 'outer VXLAN header (VNI %s)' % flow['vni'] if flow['vni'] else 'IPv4 header'
        expected = ('on the links of %s to its spines the %s carries %s' % (
            flow['sender_leaf'], header, ' and '.join('%s DSCP %d ECN %d' % (item['name'], item['dscp'], item['ecn'])
                                                     for item in markings)))
        if not flow['captures']:
            results.append(Result(model['name'], CHECK, subject, NOT_APPLICABLE, expected, '-',
                                  'not applicable: the spines of %s forward in their ASIC, so a capture on the '
                                  'switch never sees transit packets; mirror a spine port (SPAN/ERSPAN) to see the '
                                  'marking on the wire' % flow['sender_leaf'], rule=RULE, category=CATEGORY))
            continue
        if not ctx.state(model['name']).has('marking_probe'):
            results.append(Result(model['name'], CHECK, subject, NOT_APPLICABLE, expected, '-',
                                  'not applicable: the probe did not run (role aifabric.fabric.validate with '
                                  'validate_marking_probe: true sends and captures it)', rule=RULE, category=CATEGORY))
            continue
        try:
            sent = [probe for probe in ctx.state(model['name']).get('marking_probe')
                    if probe['source'] == flow['source'] and probe['destination'] == flow['destination']]
        except StateError as exc:
            results.append(state_problem(model['name'], CHECK, subject, exc, expected, rule=RULE, category=CATEGORY))
            continue
        packets, errors = _captured(ctx, flow)
        if errors and not packets:
            results.append(state_problem(model['name'], CHECK, subject, errors[0], expected, rule=RULE, category=CATEGORY))
            continue
        if not sent:
            results.append(Result(model['name'], CHECK, subject, FAIL, expected, 'no probe sent from %s to %s'
                                  % (flow['source'], flow['destination']), rule=RULE, category=CATEGORY,
                                  source='marking_probe'))
            continue
        outcomes = [_tunnelled(flow, marking, packets) if flow['vni'] else _routed(marking, packets)
                    for marking in markings]
        where = ', '.join('%s %s' % (point['device'], point['interface']) for point in flow['captures'])
        seen = '; '.join(text for _ok, text in outcomes) + ' (captured on %s)' % where
        ok = all(good for good, _text in outcomes)
        results.append(Result(model['name'], CHECK, subject, PASS if ok else FAIL, expected, seen, rule=RULE,
                              category=CATEGORY, source='aifabric.fabric.dscp_probe + aifabric.fabric.dscp_capture',
                              link='%s %s' % (model['name'], flow['interface'])))
    return results


__all__ = ['dataplane_marking']
