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

from . import Check, NotApplicable, Subject, failed, register, verdict
from .catalog import marking_flows, marking_subject, probe_markings
from ..state import StateError


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


def _tunnelled(flow, marking, packets, facts):
    """(ok, text) for one marking of a VXLAN flow: every probe packet's outer header carries the inner DSCP/ECN.
    What is wrong goes to `facts` (missing markings, packets whose outer header differs)."""
    mine = [(device, packet) for device, packet in packets if packet['inner']['dscp'] == marking['dscp']]
    if not mine:
        facts['missing'].append(marking['name'])
        return False, '%s DSCP %d: no probe packet on the spine links' % (marking['name'], marking['dscp'])
    texts, ok = [], True
    for device, packet in mine:
        outer = packet['outer'] or {}
        good = (outer.get('dscp') == marking['dscp'] and outer.get('ecn') == packet['inner']['ecn']
                and packet['vni'] == flow['vni'])
        ok = ok and good
        if not good:
            facts['wrong'].append({'name': marking['name'], 'where': '%s %s' % (device, packet['interface']),
                                   'inner': packet['inner']['dscp'], 'outer': outer.get('dscp'), 'vni': packet['vni']})
        texts.append('%s %s: %s inner DSCP %d ECN %d -> outer DSCP %s ECN %s (VNI %s, %d packets)' % (
            device, packet['interface'], marking['name'], packet['inner']['dscp'], packet['inner']['ecn'],
            outer.get('dscp', 'none: not tunnelled'), outer.get('ecn', '-'), packet['vni'], packet['count']))
    return ok, '; '.join(texts)


def _routed(marking, packets, facts):
    """(ok, text) for one marking of a flow without overlay: the packet still carries the DSCP on the spine link."""
    mine = [(device, packet) for device, packet in packets if packet['outer'] is None
            and packet['inner']['dscp'] == marking['dscp']]
    if not mine:
        facts['missing'].append(marking['name'])
        return False, '%s DSCP %d: no packet with that DSCP on the spine links' % (marking['name'], marking['dscp'])
    return True, '; '.join('%s %s: %s DSCP %d ECN %d (%d packets)' % (
        device, packet['interface'], marking['name'], packet['inner']['dscp'], packet['inner']['ecn'], packet['count'])
        for device, packet in mine)


@register
class DataplaneMarking(Check):
    id = 'dataplane_marking'
    title = 'RoCE and CNP keep their DSCP on the spine links'
    category = 'dataplane'
    roles = ('host',)
    per = 'probe flow (rail, sender to a host behind another leaf)'
    state = ('marking_probe', 'marking_capture')
    rules = ('C21',)
    peers = True
    inputs = ('per rail network spanning several leaves: its first GPU server, the first host of the rail behind '
              'another leaf, the links of the sender\'s leaf to its spines, the RoCE and CNP DSCPs, the VNI')
    description = ('the host sends 20 UDP packets to port 4791 marked with the RoCE DSCP (ECT(0), as `NCCL_IB_TC` '
                   'marks) and 20 with the CNP DSCP (aifabric.fabric.dscp_probe) while the spines capture their links '
                   'to the sender\'s leaf (aifabric.fabric.dscp_capture, packet sockets); with the EVPN overlay every '
                   'captured probe carries the inner DSCP and ECN on its outer VXLAN header (VNI of the rail), without '
                   'overlay the packet keeps its DSCP')
    failure = ('per spine port, inner and outer DSCP/ECN, the VNI and the packet count, or that no probe packet reached '
               'the spine links; not applicable where the spines forward in their ASIC (a capture on the switch never '
               'sees transit packets) or the probe did not run')
    example = ('gpu0001 dataplane_marking [rail 0 eth1 10.100.0.10 -> gpu0003 10.100.0.12]: ... seen spine001 eth1: '
               'RoCE inner DSCP 26 ECN 2 -> outer DSCP 0 ECN 0 (VNI 10100, 20 packets); ...')
    na_subject = 'all probe flows'
    na_expected = 'probe packets marked on the spine links'

    def subjects(self, ctx, model):
        markings = probe_markings(ctx)
        for flow in marking_flows(ctx):
            if flow['sender'] != model['name']:
                continue
            header = 'outer VXLAN header (VNI %s)' % flow['vni'] if flow['vni'] else 'IPv4 header'
            carried = ' and '.join('%s DSCP %d ECN %d' % (item['name'], item['dscp'], item['ecn']) for item in markings)
            expected = 'on the links of %s to its spines the %s carries %s' % (flow['sender_leaf'], header, carried)
            yield Subject(marking_subject(flow), expected, port=flow['interface'], data=flow)

    def read(self, ctx, model, subject):
        flow = subject.data
        if not flow['captures']:
            raise NotApplicable('the spines of %s forward in their ASIC, so a capture on the switch never sees transit '
                                'packets; mirror a spine port (SPAN/ERSPAN) to see the marking on the wire'
                                % flow['sender_leaf'])
        state = ctx.state(model['name'])
        if not state.has('marking_probe'):
            raise NotApplicable('the probe did not run (role aifabric.fabric.validate with validate_marking_probe: '
                                'true sends and captures it)')
        sent = [probe for probe in state.get('marking_probe')
                if probe['source'] == flow['source'] and probe['destination'] == flow['destination']]
        packets, errors = _captured(ctx, flow)
        if errors and not packets:
            raise errors[0]
        return sent, packets

    def source(self, ctx, model, subject):
        return 'aifabric.fabric.dscp_probe + aifabric.fabric.dscp_capture'

    def judge(self, ctx, model, subject, state):
        sent, packets = state
        flow = subject.data
        facts = {'flow': subject.name, 'sender_leaf': flow['sender_leaf'], 'vni': flow['vni'], 'sent': bool(sent),
                 'missing': [], 'wrong': []}
        if not sent:
            return failed('no probe sent from %s to %s' % (flow['source'], flow['destination']), source='marking_probe',
                          facts=facts)
        outcomes = [_tunnelled(flow, marking, packets, facts) if flow['vni'] else _routed(marking, packets, facts)
                    for marking in probe_markings(ctx)]
        where = ', '.join('%s %s' % (point['device'], point['interface']) for point in flow['captures'])
        seen = '; '.join(text for _ok, text in outcomes) + ' (captured on %s)' % where
        return verdict(all(good for good, _text in outcomes), seen, facts=facts)

    def fact_node(self, graph, result, facts):
        if not facts['sent']:
            return ('check', result.device, self.id)
        if facts['wrong'] and facts['vni']:
            # the host marked the packet right (the inner header); the outer one is the sending leaf's doing
            return ('marking', facts['sender_leaf'], facts['vni'])
        return ('probe', result.device, facts['flow'])

    def finding(self, graph, node, evidence):
        if node[0] == 'marking':
            from .fabric import marking_finding  # pylint: disable=import-outside-toplevel
            return marking_finding(graph, node, evidence)
        if node[0] == 'probe':
            return ('probe', '%s: no probe packet of %s reached the spine links and nothing the checks read explains '
                    'it' % (node[1], node[2]), 'trace the probe from %s' % node[1])
        return super().finding(graph, node, evidence)


__all__ = ['DataplaneMarking']
