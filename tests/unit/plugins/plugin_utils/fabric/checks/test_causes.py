# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Root cause first: every fault yields exactly one top-level cause, the right one, with every other failure folded
under it as a consequence. The faults are the captured ones (real FRR, lldpd, iproute2 and ping outputs of the capture
fabric) and, for the faults not captured, the captured healthy state edited the way the devices would show them
(each edit names what the device would print), and EOS state for a two-port swap and another rail's VNI."""

import copy
import json

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import causes
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file

from tests.unit.plugins.plugin_utils.fabric.state.captures import INTENT, scenario_states
from tests.unit.plugins.plugin_utils.fabric.checks.test_platform_checks import eos_states, intent


@pytest.fixture(scope='module')
def design():
    return design_from_file(INTENT)


def analyse(design, states, devices=None, check_ids=None, **options):
    ctx = checks.Context(design, states, options)
    results = checks.run(ctx, devices=devices, check_ids=check_ids)
    return results, causes.analyse(ctx, results)


def only_cause(design, states, **kwargs):
    """The one cause of a fault; every failed or errored result is its evidence or consequence."""
    results, found = analyse(design, states, **kwargs)
    assert len(found) == 1, [cause.headline() for cause in found]
    bad = [item for item in results if item.status in (checks.FAIL, checks.ERROR)]
    assert sorted(map(id, found[0].results)) == sorted(map(id, bad))
    return found[0]


def edit(states, device, key, change):
    """Change the JSON a command printed (returns a copy of the states)."""
    states = copy.deepcopy(states)
    data = json.loads(states[device][key]['stdout'])
    data = change(data) or data
    states[device][key] = dict(states[device][key], stdout=json.dumps(data))
    return states


def take(states, scenario, device, *keys):
    """Put the captured outputs of another scenario in place (the device as it is in that scenario)."""
    other = scenario_states(scenario)
    for key in keys or list(other[device]):
        states[device][key] = copy.deepcopy(other[device][key])
    return states


def set_sessions(state, value):
    for afi in state['default'].values():
        for peer in afi['peers'].values():
            peer['state'] = value


def interface(name, change):
    def apply(data):
        for item in data:
            if item['ifname'] == name:
                change(item)
    return apply


def test_healthy_fabric_has_no_cause(design):
    assert analyse(design, scenario_states('healthy'))[1] == []


# --------------------------------------------------------------------------- captured faults
def test_admin_down_uplink_folds_eleven_consequences(design):
    cause = only_cause(design, scenario_states('link_down'))
    assert (cause.kind, cause.devices, cause.title) == ('admin_down', ['leaf001'], 'leaf001 eth2 is admin down')
    assert cause.headline() == 'leaf001 eth2 is admin down -> 13 consequences (1 BGP session down)'
    folded = {(item.device, item.check) for item in cause.consequences}
    assert {('spine001', 'interface_state'), ('spine001', 'bgp_session'), ('leaf002', 'evpn_vtep'),
            ('gpu0002', 'reachability'), ('leaf001', 'vtep_route'), ('leaf002', 'vtep_route')} <= folded


def test_bgpd_stopped_on_a_leaf(design):
    cause = only_cause(design, scenario_states('bgpd_stopped'))
    assert (cause.kind, cause.devices, cause.title) == ('daemon_down', ['leaf001'], 'leaf001: bgpd is not running')
    assert ('spine001', 'bgp_session') in {(item.device, item.check) for item in cause.consequences}


def test_host_rail_mtu(design):
    cause = only_cause(design, scenario_states('host_mtu_1500'))
    assert (cause.kind, cause.devices, cause.title) == ('mtu', ['gpu0001'], 'gpu0001 eth1 has MTU 1500, the design 9000')
    assert {item.check for item in cause.consequences} == {'link_mtu', 'jumbo_frames'}


def test_wrong_route_target(design):
    cause = only_cause(design, scenario_states('wrong_route_target'))
    assert (cause.kind, cause.devices) == ('route_target', ['leaf001'])
    assert cause.title == 'leaf001 VNI 10100 imports and exports route-target 65000:10999 where the design has 65000:10100'


# --------------------------------------------------------------------------- constructed from captured state
def test_wrong_vni_on_the_vxlan_device(design):
    """clab_faults wrong_vni: the leaf's VXLAN device of VLAN 100 recreated with VNI 10999."""
    states = scenario_states('wrong_route_target')  # what the other leaf and the servers see: leaf001 VNI 10100 gone
    states = take(states, 'healthy', 'leaf001')

    def rename(data, key='10100'):
        entry = data.pop(key)
        entry['vni'] = 10999
        entry.pop('remoteVteps', None)
        entry.update({key: value for key, value in (('importRTs', ['4200000000:10999']), ('exportRTs', ['4200000000:10999']))
                      if key in entry})
        data['10999'] = entry
    states = edit(states, 'leaf001', 'evpn_vni', rename)
    states = edit(states, 'leaf001', 'bgp_evpn_vni', rename)
    states = edit(states, 'leaf001', 'interfaces', interface('vxlan10100', lambda item: item['linkinfo']['info_data'].update(id=10999)))
    cause = only_cause(design, states)
    assert (cause.kind, cause.devices) == ('vni', ['leaf001'])
    assert cause.title == 'leaf001 carries VNI 10999 on vxlan10100 where VNI 10100 (VLAN 100, rail0) belongs'
    assert {item.check for item in cause.results} >= {'evpn_vni', 'vxlan_device', 'evpn_route_target', 'evpn_vtep',
                                                      'reachability'}


def test_bgpd_not_running_on_the_spine(design):
    states = scenario_states('healthy')
    states = take(states, 'bgpd_stopped', 'leaf001', 'bgp_summary')  # vtysh: "bgpd is not running"
    states['spine001']['bgp_summary'] = states['leaf001'].pop('bgp_summary')
    states = take(states, 'link_down', 'leaf001', 'bgp_summary', 'evpn_vni', 'evpn_type3')  # sessions Active, no route
    states = take(states, 'link_down', 'leaf002', 'evpn_vni', 'evpn_type3')
    states = edit(states, 'leaf002', 'bgp_summary', lambda data: set_sessions(data, 'Active'))
    for host in ('gpu0001', 'gpu0002'):
        states = take(states, 'link_down', host)
    cause = only_cause(design, states)
    assert (cause.kind, cause.devices, cause.title) == ('daemon_down', ['spine001'], 'spine001: bgpd is not running')
    assert cause.headline().endswith('(2 BGP sessions down)')  # each session once, not once per end


def test_wrong_local_as(design):
    states = scenario_states('bgpd_stopped')  # the spine and the other leaf: the session to leaf001 does not come up
    states = take(states, 'healthy', 'leaf001')

    def local_as(data):
        set_sessions(data, 'Active')
        for afi in data['default'].values():
            afi['as'] = 65099
            for peer in afi['peers'].values():
                peer['localAs'] = 65099
    states = edit(states, 'leaf001', 'bgp_summary', local_as)
    states = take(states, 'link_down', 'leaf001', 'evpn_vni', 'evpn_type3')
    cause = only_cause(design, states)
    assert (cause.kind, cause.devices) == ('local_as', ['leaf001'])
    assert cause.title == 'leaf001 runs local AS 65099 where the design has AS 4200000000'


def test_a_vni_nobody_designed_is_the_cause(design):
    def add(data):
        data['99999'] = {'vni': 99999, 'type': 'L2', 'vxlanIf': 'vxlan99999', 'remoteVteps': [], 'inKernel': 'True',
                         'importRTs': ['65000:99999'], 'exportRTs': ['65000:99999']}
    states = edit(scenario_states('healthy'), 'leaf001', 'evpn_vni', add)
    states = edit(states, 'leaf001', 'bgp_evpn_vni', add)
    cause = only_cause(design, states)
    assert (cause.kind, cause.devices) == ('unexpected_vni', ['leaf001'])
    assert cause.title.startswith('leaf001 carries VNI 99999, which the design does not have (VNI 99999 L2 on vxlan99999')
    assert cause.evidence[0].expected == 'no VNI 99999 (not in the design)'


def test_a_stale_second_lldp_neighbour_fails_the_port(design):
    def stale(data):
        data['lldp']['interface'].append({'eth1': {'via': 'LLDP', 'chassis': {'oldhost': {'id': {'type': 'mac', 'value':
                                                   '02:00:00:00:00:09'}}}, 'port': {'id': {'type': 'ifname', 'value': 'eth9'}}}})
    cause = only_cause(design, edit(scenario_states('healthy'), 'leaf001', 'lldp', stale))
    assert (cause.kind, cause.devices) == ('lldp_neighbors', ['leaf001'])
    assert cause.title == 'leaf001 eth1 has 2 LLDP neighbours: gpu0001 eth1, oldhost eth9'


def test_a_server_port_admin_down(design):
    """The issue's 'leaf001 eth2 is admin down -> 11 consequences' on a server port: leaf001 eth1 to gpu0001."""
    states = edit(scenario_states('healthy'), 'leaf001', 'interfaces',
                  interface('eth1', lambda item: item.update(flags=['BROADCAST', 'MULTICAST'], operstate='DOWN')))
    states = edit(states, 'gpu0001', 'interfaces', interface('eth1', lambda item: item.update(
        flags=['NO-CARRIER', 'BROADCAST', 'MULTICAST', 'UP'], operstate='DOWN')))
    states = edit(states, 'leaf001', 'lldp', lambda data: data['lldp'].update(interface=[
        item for item in data['lldp']['interface'] if 'eth1' not in item]))
    states = edit(states, 'gpu0001', 'lldp', lambda data: {'lldp': {}})
    for host in ('gpu0001', 'gpu0002'):
        states = take(states, 'link_down', host, *[key for key in states[host] if key.startswith(('ping:', 'jumbo:'))])
    cause = only_cause(design, states)
    assert (cause.kind, cause.devices, cause.title) == ('admin_down', ['leaf001'], 'leaf001 eth1 is admin down')
    assert {(item.device, item.check) for item in cause.consequences} == {
        ('gpu0001', 'interface_state'), ('gpu0001', 'lldp_neighbor'), ('leaf001', 'lldp_neighbor'),
        ('gpu0001', 'reachability'), ('gpu0001', 'jumbo_frames'), ('gpu0002', 'reachability'),
        ('gpu0002', 'jumbo_frames')}


def test_fabric_link_mtu_on_one_end(design):
    states = edit(scenario_states('healthy'), 'leaf001', 'interfaces', interface('eth2', lambda item: item.update(mtu=1500)))
    for host in ('gpu0001', 'gpu0002'):
        states = take(states, 'link_down', host, *[key for key in states[host] if key.startswith('jumbo:')])
    cause = only_cause(design, states)
    assert (cause.kind, cause.devices, cause.title) == ('mtu', ['leaf001'], 'leaf001 eth2 has MTU 1500, the design 9100')
    assert {item.check for item in cause.consequences} == {'link_mtu', 'jumbo_frames'}


def test_a_device_that_cannot_be_read(design):
    states = scenario_states('healthy')
    states['spine001'] = {'_error': 'device unreachable: ssh: connect to host 172.31.100.15 port 22: timed out'}
    cause = only_cause(design, states)
    assert (cause.kind, cause.devices) == ('unreadable', ['spine001'])
    assert cause.title.startswith('spine001 could not be read: device unreachable')
    assert {item.device for item in cause.consequences} == {'leaf001', 'leaf002'}  # their link_mtu reads spine001


def test_two_ends_of_a_session_read_at_different_moments(design):
    states = edit(scenario_states('healthy'), 'leaf001', 'bgp_summary', lambda data: set_sessions(data, 'Connect'))
    cause = only_cause(design, states, read_at={'leaf001': 1000.0, 'spine001': 1014.0})
    # a flap is no device's fault: nothing fails in the recap, both ends are named
    assert (cause.kind, cause.devices, cause.suspects) == ('session_changed', [], ['leaf001', 'spine001'])
    assert cause.title == ('BGP session leaf001 - spine001 changed between the two readings, read 14 s apart: leaf001 saw '
                           'it ipv4Unicast Connect, spine001 saw it Established')


def test_a_device_still_converging_is_not_called_wrong(design):
    states = edit(scenario_states('healthy'), 'leaf001', 'bgp_summary', lambda data: set_sessions(data, 'OpenSent'))
    cause = only_cause(design, states, converging={'leaf001': 'still changing after 60 s: bgp_session'})
    assert (cause.kind, cause.devices) == ('not_converged', ['leaf001'])
    assert 'had not converged' in cause.title


def test_a_steady_failure_on_a_converging_device_is_its_own_cause(design):
    """Only what changed between a converging device's readings waits for it; a failure its readings saw the same
    is judged like any other."""
    states = edit(scenario_states('healthy'), 'leaf001', 'bgp_summary', lambda data: set_sessions(data, 'OpenSent'))
    results, found = analyse(design, states, converging={'leaf001': 'still changing after 60 s'})
    sessions = sorted('%s %s' % (item.check, item.subject) for item in results
                      if item.device == 'leaf001' and item.check == 'bgp_session' and item.status in ('fail', 'error'))
    assert [cause.kind for cause in found] == ['not_converged']
    _results, steady_found = analyse(design, states, converging={'leaf001': 'still changing after 60 s'},
                                     steady={'leaf001': frozenset(sessions)})
    assert 'not_converged' not in [cause.kind for cause in steady_found] and steady_found, [
        cause.headline() for cause in steady_found]
    # what the deploy would change is configuration, not state on its way: a cause of its own, not "not converged"
    drifted = dict(states, leaf001=dict(states['leaf001'], config_drift={'outcome': 'would_change', 'changed': True, 'would_push': (
        '--- interfaces (running)\n+++ interfaces (rendered)\n+ip link set dev vxlan10100 mtu 9000\n')}))
    _results, drift_found = analyse(design, drifted, converging={'leaf001': 'still changing after 60 s'},
                                    check_ids=['config_drift', 'bgp_session'])
    assert sorted(cause.kind for cause in drift_found) == ['drift', 'not_converged'], [
        cause.headline() for cause in drift_found]


def test_bfd_flaps_that_explain_an_idle_session_are_named(design):
    states = take(scenario_states('link_down'), 'healthy', 'leaf001', 'interfaces', 'lldp')
    states = take(states, 'healthy', 'spine001', 'interfaces', 'lldp')
    states = edit(states, 'leaf001', 'bgp_summary', lambda data: set_sessions(data, 'Idle'))
    # vtysh -c 'show bfd peers json' -c 'show bfd peers counters json': two JSON arrays, one after the other
    states['leaf001']['bfd'] = {'rc': 0, 'stderr': '', 'stdout': json.dumps(
        [{'multihop': False, 'peer': '10.0.0.0', 'local': '10.0.0.1', 'status': 'down', 'downtime': 4,
          'diagnostic': 'control detection time expired', 'remote-diagnostic': 'ok'}], indent=2) + '\n' + json.dumps(
        [{'multihop': False, 'peer': '10.0.0.0', 'session-up': 7, 'session-down': 7}], indent=2) + '\n'}
    results, found = analyse(design, states)
    session = next(item for item in results if item.device == 'leaf001' and item.check == 'bgp_session')
    assert session.message.startswith('BFD with 10.0.0.0 is down (control detection time expired), 7 down events')
    assert any('BFD with 10.0.0.0' in note for cause in found for note in cause.notes)


# --------------------------------------------------------------------------- EOS state
EOS_SWITCHES = ['leaf001', 'spine001']  # spine002 answers with spine001's outputs: not judged


@pytest.fixture(scope='module')
def eos_design():
    return intent('eos_small.yml')


def eos_only_cause(design, states):
    ids = {check for check in checks.REGISTRY if check not in ('reachability', 'jumbo_frames', 'vxlan_device', 'anta')
           and not check.startswith(('host_switch', 'health'))}
    return only_cause(design, states, devices=EOS_SWITCHES, check_ids=ids, lossless_phases=('deployed',))


def test_eos_healthy_switches_have_no_cause(eos_design):
    ids = {check for check in checks.REGISTRY if not check.startswith(('host_switch', 'health'))} - {
        'reachability', 'jumbo_frames', 'vxlan_device', 'anta'}
    assert analyse(eos_design, eos_states(eos_design), devices=EOS_SWITCHES, check_ids=ids,
                   lossless_phases=('deployed',))[1] == []


def test_eos_two_server_cables_swapped_on_a_leaf(eos_design):
    states = eos_states(eos_design)
    neighbors = states['leaf001']['lldp'][0]['lldpNeighbors']
    first, second = [port for port in neighbors if neighbors[port]['lldpNeighborInfo']
                     and neighbors[port]['lldpNeighborInfo'][0]['systemName'].startswith('gpu')][:2]
    neighbors[first], neighbors[second] = neighbors[second], neighbors[first]
    cause = eos_only_cause(eos_design, states)
    assert (cause.kind, cause.devices) == ('cabling', ['leaf001'])
    assert cause.title == 'cables swapped: leaf001 %s <-> %s (gpu0001/gpu0002)' % tuple(sorted([first, second]))


def test_eos_leaf_carries_another_rails_vni(eos_design):
    """The issue's 'leaf002 carries VNI 10100 (rail 0's) on vxlan10101 where 10101 belongs', on EOS."""
    states = eos_states(eos_design)
    for key in ('evpn_vni', 'bgp_evpn_vni'):
        for output in states['leaf001'][key]:
            bindings = (output.get('vxlanIntfs') or {}).get('Vxlan1', {}).get('vniBindings')
            if bindings:
                bindings['10102'] = bindings.pop('10101')
    cause = eos_only_cause(eos_design, states)
    assert (cause.kind, cause.devices) == ('vni', ['leaf001'])
    assert cause.title == "leaf001 carries VNI 10102 (rail1's) on Vxlan1 where VNI 10101 (VLAN 101, rail0) belongs"


def test_eos_swap_seen_from_the_far_ends_only(eos_design):
    """Right after the swap the switch may have lost its LLDP neighbours (they come back at the next LLDPDU) while
    both servers already see the other port: the swap is still one cause, on the switch."""
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks.catalog import expected_neighbors
    ctx = checks.Context(eos_design, {}, {})
    ports = [item for item in expected_neighbors(ctx.model('leaf001')) if item['peer'].startswith('gpu')][:2]
    results = [checks.Result('leaf001', 'lldp_neighbor', item['interface'], checks.FAIL,
                             '%s %s' % (item['peer'], item['peer_interface']), 'no LLDP neighbour', link='%s %s' % (
                                 item['peer'], item['peer_interface']),
                             facts={'port': item['interface'], 'designed': [item['peer'], item['peer_interface']],
                                    'seen': []}) for item in ports]
    lldp = {}
    for item, other in ((ports[0], ports[1]), (ports[1], ports[0])):  # each server sees the other port of leaf001
        lldp[item['peer']] = [{'interface': item['peer_interface'], 'system_name': 'leaf001',
                               'chassis_id': '02:00:00:00:00:01', 'peer_port': other['interface']}]
        results.append(checks.Result(item['peer'], 'lldp_neighbor', item['peer_interface'], checks.FAIL,
                                     'leaf001 %s' % item['interface'], 'leaf001 %s' % other['interface'],
                                     link='%s %s' % (item['peer'], item['peer_interface']),
                                     facts={'port': item['peer_interface'], 'designed': ['leaf001', item['interface']],
                                            'seen': [['leaf001', other['interface']]]}))
    for name, neighbors in lldp.items():
        ctx.state(name)._parsed['lldp'] = (True, neighbors)  # pylint: disable=protected-access
    found = causes.analyse(ctx, results)
    assert [cause.title for cause in found] == ['cables swapped: leaf001 %s <-> %s (gpu0001/gpu0002)' % tuple(
        sorted(item['interface'] for item in ports))]
    assert len(found[0].results) == 4


# --------------------------------------------------------------------------- what the state cannot place
def test_a_session_down_on_both_ends_with_everything_it_needs_blames_nobody(design):
    """Both ends Active, the link up, bgpd running and both configured as designed (a filter dropping TCP 179, a
    password on one end that the summary does not show): the state read cannot tell which end is wrong. The cause
    names both as suspects and the recap fails neither."""
    states = edit(scenario_states('healthy'), 'leaf001', 'bgp_summary', lambda data: set_sessions(data, 'Active'))
    states = edit(states, 'spine001', 'bgp_summary', lambda data: set_sessions(data, 'Active'))
    results, found = analyse(design, states)
    session = next(cause for cause in found if cause.kind == 'session_down')
    assert session.devices == [] and session.suspects == ['leaf001', 'spine001']
    assert causes.blamed(found) == []


def test_a_local_fact_on_one_end_is_the_cause_and_the_other_end_follows(design):
    """issue 36: a BGP neighbour shut on the spine (FRR: "Idle (Admin)", peerState Admin) is the spine's own fact; the
    leaf's end, Active, is a consequence."""
    states = edit(scenario_states('healthy'), 'leaf001', 'bgp_summary', lambda data: set_sessions(data, 'Active'))

    def shut(data):
        for afi in data['default'].values():
            afi['peers']['10.0.0.1'].update(state='Idle (Admin)', peerState='Admin')
    states = edit(states, 'spine001', 'bgp_summary', shut)
    cause = only_cause(design, states)
    assert (cause.kind, cause.devices) == ('session_shutdown', ['spine001'])
    assert cause.title == 'spine001 has BGP neighbour 10.0.0.1 (leaf001 eth1) shut down in its configuration (Idle (Admin))'
    assert [(item.device, item.check) for item in cause.consequences][:1] == [('leaf001', 'bgp_session')]


# --------------------------------------------------------------------------- what devices gave that nobody foresaw
def _each_failure_once(results, found):
    bad = [item for item in results if item.status in (checks.FAIL, checks.ERROR)]
    assert sorted(id(item) for cause in found for item in cause.results) == sorted(map(id, bad))


def test_facts_a_check_cannot_place_stay_on_that_device(design, monkeypatch):
    """A check whose node() trips over one device's facts: those results are that check's on that device, and the
    other causes are found as before (the uplink admin down on leaf001 explains spine001's failures)."""
    check = type(checks.REGISTRY['interface_state'])
    placed = check.node

    def node(self, graph, result):
        if result.device == 'spine001':
            raise TypeError("'<' not supported between instances of 'str' and 'int'")
        return placed(self, graph, result)
    monkeypatch.setattr(check, 'node', node)
    results, found = analyse(design, scenario_states('link_down'))
    _each_failure_once(results, found)
    assert found[0].title == 'leaf001 eth2 is admin down'
    assert any(cause.node == ('check', 'spine001', 'interface_state') and cause.devices == ['spine001']
               for cause in found), [cause.node for cause in found]


def test_a_finding_that_trips_over_its_facts_is_told_by_the_results_own_line(design, monkeypatch):
    check = type(checks.REGISTRY['interface_state'])
    monkeypatch.setattr(check, 'finding', lambda self, graph, node, evidence: {}['port'])
    results, found = analyse(design, scenario_states('link_down'))
    _each_failure_once(results, found)
    cause = next(cause for cause in found if cause.devices == ['leaf001'])
    assert cause.title == cause.evidence[0].line() and cause.title.startswith('leaf001 interface_state [eth2]')


def test_dependencies_that_cannot_be_followed_leave_each_failing_check_its_own_cause(design, monkeypatch):
    def broken(self, node):
        raise RecursionError('maximum recursion depth exceeded')
    monkeypatch.setattr(causes._Engine, 'failed_needs', broken)
    results, found = analyse(design, scenario_states('link_down'))
    _each_failure_once(results, found)
    bad = {(item.device, item.check) for item in results if item.status in (checks.FAIL, checks.ERROR)}
    assert {(cause.devices[0], cause.kind) for cause in found} == bad
    assert all('root cause not placed' in cause.notes[0] and 'maximum recursion depth' in cause.notes[0]
               for cause in found)


def test_cause_text_written_from_a_devices_facts_is_visible(design, monkeypatch):
    """A finding quotes what a device showed (an LLDP name, a drift line): escapes, a forged line and a look-alike
    letter are shown escaped, on one line, bounded."""
    check = type(checks.REGISTRY['interface_state'])
    hostile = 'spine\udcff001\x1b]0;owned\x07\r\nERROR forged l\u0430b' + 'x' * 50000
    monkeypatch.setattr(check, 'finding', lambda self, graph, node, evidence: ('odd', hostile, hostile))
    _results, found = analyse(design, scenario_states('link_down'))
    cause = next(cause for cause in found if cause.kind == 'odd')
    cause.notes.append(hostile)
    for text in [cause.headline(), cause.hint] + cause.visible_notes() + [cause.to_dict(1)['title']]:
        assert text.isascii() and text.isprintable() and len(text) < 20000, repr(text[:200])
    assert 'spine\\udcff001\\x1b]0;owned\\x07\\r\\nERROR forged l\\u0430b' in cause.title
