# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""dataplane_marking: the probe plan comes from the design; the check passes only when the spines saw the RoCE and
CNP DSCPs on the outer VXLAN header, and says why it cannot judge (vendor spines, probe not run)."""

import copy
import os

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import catalog
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file

from tests.unit.plugins.plugin_utils.fabric.state.captures import FIXTURES, REPO

LAB = os.path.join(REPO, 'fabrics', 'lab.yml')


@pytest.fixture(scope='module')
def lab():
    return design_from_file(LAB)


def probe_result(source, destination):
    return {'changed': False, 'source': source, 'destination': destination, 'port': 4791, 'source_port': 40000,
            'sent': [{'dscp': 26, 'ecn': 2, 'tos': 106, 'packets': 20}, {'dscp': 48, 'ecn': 0, 'tos': 192, 'packets': 20}]}


def packet(interface, source, destination, inner_dscp, inner_ecn, outer_dscp, outer_ecn, vni, count=20):
    return {'interface': interface, 'count': count, 'vni': vni,
            'outer': {'src': '10.254.16.1', 'dst': '10.254.16.3', 'dscp': outer_dscp, 'ecn': outer_ecn},
            'inner': {'src': source, 'dst': destination, 'dscp': inner_dscp, 'ecn': inner_ecn, 'dport': 4791}}


def capture_result(packets):
    return {'finished': 1, 'changed': False, 'interfaces': ['eth1', 'eth2'], 'packets': packets, 'seconds': 1.2}


def healthy(outer=lambda dscp: dscp):
    """States of the lab after the probe: spine001 carried rail 0, spine002 rail 1 (ECMP), as the hosts marked."""
    sent = {'results': [probe_result('10.100.0.10', '10.100.0.12'), probe_result('10.101.0.10', '10.101.0.12')]}
    spine001 = [packet('eth1', '10.100.0.10', '10.100.0.12', 26, 2, outer(26), 2, 10100),
                packet('eth1', '10.100.0.10', '10.100.0.12', 48, 0, outer(48), 0, 10100)]
    spine002 = [packet('eth2', '10.101.0.10', '10.101.0.12', 26, 2, outer(26), 2, 10101),
                packet('eth2', '10.101.0.10', '10.101.0.12', 48, 0, outer(48), 0, 10101)]
    return {'gpu0001': {'marking_probe': sent}, 'spine001': {'marking_capture': capture_result(spine001)},
            'spine002': {'marking_capture': capture_result(spine002)}}


def run(design, states):
    ctx = checks.Context(design, states)
    return {item.subject: item for item in checks.run(ctx, devices=['gpu0001'], check_ids={'dataplane_marking'})}


def test_the_plan_sends_across_leaves_of_each_rail_and_captures_on_the_spine_links(lab):
    ctx = checks.Context(lab)
    flows = catalog.marking_flows(ctx)
    assert [(flow['sender'], flow['source'], flow['receiver'], flow['destination'], flow['sender_leaf'],
             flow['receiver_leaf'], flow['vni']) for flow in flows] == [
        ('gpu0001', '10.100.0.10', 'gpu0003', '10.100.0.12', 'leaf001', 'leaf003', 10100),
        ('gpu0001', '10.101.0.10', 'gpu0003', '10.101.0.12', 'leaf002', 'leaf004', 10101)]
    assert flows[0]['captures'] == [{'device': 'spine001', 'interface': 'eth1'}, {'device': 'spine002', 'interface': 'eth1'}]
    assert catalog.probe_duties(ctx, ctx.model('gpu0001'))['send'][0]['markings'] == [{'dscp': 26, 'ecn': 2},
                                                                                      {'dscp': 48, 'ecn': 0}]
    assert catalog.probe_duties(ctx, ctx.model('spine002'))['capture']['interfaces'] == ['eth1', 'eth2']
    assert catalog.probe_duties(ctx, ctx.model('gpu0002')) is None
    assert catalog.probe_duties(ctx, ctx.model('leaf001')) is None


def test_passes_when_the_outer_header_carries_the_inner_marking(lab):
    results = run(lab, healthy())
    item = results['rail 0 eth1 10.100.0.10 -> gpu0003 10.100.0.12']
    assert item.status == checks.PASS and item.rule == 'C21'
    assert item.seen.startswith('spine001 eth1: RoCE inner DSCP 26 ECN 2 -> outer DSCP 26 ECN 2 (VNI 10100, 20 packets); '
                                'spine001 eth1: CNP inner DSCP 48 ECN 0 -> outer DSCP 48 ECN 0 (VNI 10100, 20 packets)')
    assert 'outer VXLAN header (VNI 10100) carries RoCE DSCP 26 ECN 2 and CNP DSCP 48 ECN 0' in item.expected
    assert results['rail 1 eth2 10.101.0.10 -> gpu0003 10.101.0.12'].status == checks.PASS


def test_fails_when_the_vtep_sends_outer_dscp_0(lab):
    """A Linux VXLAN device without `tos inherit`: every tunnelled packet leaves with DSCP 0."""
    item = run(lab, healthy(outer=lambda dscp: 0))['rail 0 eth1 10.100.0.10 -> gpu0003 10.100.0.12']
    assert item.status == checks.FAIL
    assert 'RoCE inner DSCP 26 ECN 2 -> outer DSCP 0 ECN 2' in item.seen


def test_fails_when_no_probe_packet_reached_the_spines(lab):
    states = healthy()
    states['spine001']['marking_capture']['packets'] = []
    item = run(lab, states)['rail 0 eth1 10.100.0.10 -> gpu0003 10.100.0.12']
    assert item.status == checks.FAIL and 'RoCE DSCP 26: no probe packet on the spine links' in item.seen


def test_a_failed_capture_is_an_error_and_a_probe_that_did_not_run_is_not_applicable(lab):
    states = healthy()
    for spine in ('spine001', 'spine002'):
        states[spine]['marking_capture'] = {'failed': True, 'msg': 'cannot capture on eth1: Operation not permitted'}
    item = run(lab, states)['rail 0 eth1 10.100.0.10 -> gpu0003 10.100.0.12']
    assert item.status == checks.ERROR and 'Operation not permitted' in item.seen
    states = copy.deepcopy(healthy())
    del states['gpu0001']['marking_probe']
    item = run(lab, states)['all probe flows']  # one result per device and reason
    assert item.status == checks.NOT_APPLICABLE and 'the probe did not run' in item.message


def test_vendor_spines_are_not_applicable_with_the_reason():
    fabric = design_from_file(os.path.join(FIXTURES, 'intents', 'sonic_lossless.yml'))
    ctx = checks.Context(fabric)
    assert all(not flow['captures'] for flow in catalog.marking_flows(ctx))
    assert all(catalog.probe_duties(ctx, ctx.model(name)) is None for name in fabric.device_names())
    results = checks.run(ctx, devices=fabric.device_names('host'), check_ids={'dataplane_marking'})
    assert results and {item.status for item in results} == {checks.NOT_APPLICABLE}
    assert all('forward in their ASIC' in item.message for item in results)


def test_a_lost_probe_depends_on_its_path_and_a_wrong_marking_stands_alone(lab):
    """Root cause first: a probe that never reached the spines is a consequence of a fault on its path (a leaf's
    bgpd, a server port down), folded under that cause like a failed ping; a probe that arrived with outer DSCP 0
    is a finding of its own."""
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import causes
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks.graph import Graph
    subject = 'rail 0 eth1 10.100.0.10 -> gpu0003 10.100.0.12'
    lost_states = healthy()
    lost_states['spine001']['marking_capture']['packets'] = []
    lost = run(lab, lost_states)[subject]
    wrong = run(lab, healthy(outer=lambda dscp: 0))[subject]
    graph = Graph(checks.Context(lab, lost_states))
    lost_node = checks.REGISTRY['dataplane_marking'].node(graph, lost)
    assert lost_node[0] == 'probe' and set(graph.owners(lost_node)) == {'gpu0001', 'leaf001', 'leaf003'}
    _mode, needs = graph.needs(lost_node)
    assert {('port', 'leaf001', 'eth1'), ('vni', 'leaf003', 10100), ('flood', 'leaf001', 10100, 'leaf003'),
            ('route', 'leaf001', 'leaf003'), ('device', 'spine001')} <= set(needs)
    # the host marked the packet right: the outer header is the sending leaf's, a cause of its own on that leaf
    assert checks.REGISTRY['dataplane_marking'].node(graph, wrong) == ('marking', 'leaf001', 10100)
    [cause] = causes.analyse(checks.Context(lab, healthy(outer=lambda dscp: 0)), [wrong])
    assert (cause.kind, cause.devices) == ('marking', ['leaf001'])
