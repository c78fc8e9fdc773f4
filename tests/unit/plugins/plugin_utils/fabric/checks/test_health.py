# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Counter health on both ends of every link: each rule fails on bad rates, naming where the problem starts and
which end to look at, and passes on healthy rates. Readings: SONiC COUNTERS_DB dumps and rnic_facts, ten seconds
apart (the second one edited the way the counters would move)."""

import copy
import json
import os

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file

from tests.unit.plugins.plugin_utils.fabric.state.captures import FIXTURES, read, read_recorded, sonic_counters_edit

HEALTH = ('health',)
INTERVAL = 10.0


@pytest.fixture(scope='module')
def design():
    return design_from_file(os.path.join(FIXTURES, '..', 'intents', 'sonic_small.yml'))


def dumps(device):
    return read_recorded('sonic', device, 'counters_db.txt')


def as_results(text):
    return {'rc': 0, 'stdout': text, 'stderr': ''}


class Fleet:
    """Two counter readings of every device of sonic_small; `second` is edited by the tests."""

    def __init__(self, design):
        self.design = design
        self.first, self.second = {}, {}
        for name in design.device_names():
            role = design.device(name)['role']
            if role == 'host':
                value = json.loads(read('rnic_facts', 'ofed_lossless.json'))
            else:
                value = dumps('leaf001' if role == 'leaf' else 'spine001')
            self.first[name], self.second[name] = value, copy.deepcopy(value)

    def switch(self, device, group, name, **fields):
        """Add to counters of `name` (a port, 'Ethernet0:3' ...) of `group` (ports, queues, pgs)."""
        def edit(data):
            for field, value in fields.items():
                data[field] = str(int(data.get(field, '0')) + value) if isinstance(value, int) else value
        self.second[device] = sonic_counters_edit(self.second[device], group, name, edit)

    def host(self, device, netdev, prio=None, **deltas):
        facts = self.second[device]
        counters = facts['interfaces'][netdev]['counters']
        hw = next(port['hw_counters'] for dev in facts['devices'].values() for port in dev['ports']
                  if port['netdev'] == netdev)
        for name, delta in deltas.items():
            if name in ('tx_pause', 'rx_pause', 'rx_discards'):
                counters['per_priority'][str(prio)][name] += delta
            elif name in counters['port']:
                counters['port'][name] += delta
            else:
                hw[name] = hw.get(name, 0) + delta

    def states(self, interval=INTERVAL):
        states = {}
        for name in self.design.device_names():
            host = self.design.device(name)['role'] == 'host'
            first = self.first[name] if host else as_results(self.first[name])
            second = self.second[name] if host else as_results(self.second[name])
            states[name] = {'counters': first, '_times': {'counters': 1000.0}}
            if interval:
                states[name]['counters.2'] = second
                states[name]['_times']['counters.2'] = 1000.0 + interval
        return states


@pytest.fixture
def fleet(design):
    return Fleet(design)


def run(fleet, interval=INTERVAL, **options):
    ctx = checks.Context(fleet.design, fleet.states(interval), dict(options))
    return checks.run(ctx, categories=HEALTH)


def failed(results):
    return {(item.device, item.check, item.subject): item for item in results if item.status not in (checks.PASS,)}


def busy_but_healthy(fleet):
    """Congestion the fabric handles: some pause frames, ECN marks answered by CNPs that reach the senders."""
    fleet.host('gpu0001', 'eth1', 3, tx_pause=2000, np_ecn_marked_roce_packets=5000, np_cnp_sent=4800,
               rp_cnp_handled=4700)
    fleet.switch('leaf001', 'queues', 'Ethernet0:3', SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS=5000)
    fleet.switch('leaf001', 'ports', 'Ethernet0', SAI_PORT_STAT_PFC_3_RX_PKTS=2000)


def test_busy_but_healthy_fabric_passes_every_rule(fleet):
    busy_but_healthy(fleet)
    results = run(fleet)
    assert failed(results) == {}
    links = sum(1 for link in fleet.design.links)
    per_check = {}
    for item in results:
        per_check[item.check] = per_check.get(item.check, 0) + 1
    assert per_check['health_pfc_pause'] == per_check['health_lossless_drops'] == per_check['health_pfc_watchdog'] == links
    rails = sum(1 for link in fleet.design.links if link.role == 'host_leaf')
    assert per_check['health_ecn_cnp'] == per_check['health_cnp_ecn'] == per_check['health_rdma_errors'] == rails
    pause = [item for item in results if item.check == 'health_pfc_pause' and item.subject == 'eth1 <-> leaf001 Ethernet0'][0]
    assert 'gpu0001 eth1 (rail 0) -> leaf001 200/s on priority 3' in pause.seen


def test_pause_storm_from_a_host_names_the_host_and_the_tripped_watchdog(fleet):
    fleet.host('gpu0001', 'eth1', 3, tx_pause=120000)
    fleet.switch('leaf001', 'ports', 'Ethernet0', SAI_PORT_STAT_PFC_3_RX_PKTS=120000)
    fleet.switch('leaf001', 'queues', 'Ethernet0:3', PFC_WD_STATUS='stormed', PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED=3)
    found = failed(run(fleet))
    pause = found[('gpu0001', 'health_pfc_pause', 'eth1 <-> leaf001 Ethernet0')]
    assert pause.seen == ('gpu0001 eth1 (rail 0) sends pause frames at 12000/s on priority 3 into leaf001 Ethernet0; '
                          'the PFC watchdog tripped there')
    assert pause.message == 'look at gpu0001: its receive path cannot keep up'
    watchdog = found[('leaf001', 'health_pfc_watchdog', 'eth1 <-> leaf001 Ethernet0')]
    assert watchdog.seen == ('leaf001 Ethernet0 PFC watchdog tripped on queue 3 (3 storms in 10 s, in storm now); the pause '
                             'frames come from gpu0001 eth1 (rail 0) at 12000/s')
    assert set(found) == {('gpu0001', 'health_pfc_pause', 'eth1 <-> leaf001 Ethernet0'),
                          ('leaf001', 'health_pfc_watchdog', 'eth1 <-> leaf001 Ethernet0')}


def test_pause_threshold_comes_from_the_options(fleet):
    fleet.host('gpu0001', 'eth1', 3, tx_pause=30000)
    assert ('gpu0001', 'health_pfc_pause', 'eth1 <-> leaf001 Ethernet0') in failed(run(fleet))
    assert failed(run(fleet, health={'pause_rate_max': 5000})) == {}


def test_pause_on_a_lossy_priority_fails_at_any_rate_and_notes_the_receiver(fleet):
    fleet.switch('leaf001', 'ports', 'Ethernet8', SAI_PORT_STAT_PFC_0_TX_PKTS=10)
    found = failed(run(fleet))
    item = found[('leaf001', 'health_pfc_pause', 'Ethernet8 <-> spine001 Ethernet0')]
    assert 'sends pause frames at 1/s on priority 0 into spine001 Ethernet0 (priority 0 is not lossless' in item.seen
    assert 'spine001 counts only 0/s received' in item.seen


def test_drops_on_the_lossless_queue_name_the_switch(fleet):
    fleet.switch('spine001', 'queues', 'Ethernet0:3', SAI_QUEUE_STAT_DROPPED_PACKETS=350)
    found = failed(run(fleet))
    item = found[('spine001', 'health_lossless_drops', 'Ethernet8 <-> spine001 Ethernet0')]
    assert item.seen == ('spine001 Ethernet0: packets dropped from lossless queue 3 35/s (towards/from leaf001 Ethernet8): '
                         'PFC is not holding the lossless class')
    assert list(found) == [('spine001', 'health_lossless_drops', 'Ethernet8 <-> spine001 Ethernet0')]


def test_nic_discards_on_the_lossless_priority(fleet):
    fleet.host('gpu0001', 'eth2', 3, rx_discards=40)
    found = failed(run(fleet))
    assert 'gpu0001 eth2 (rail 1): priority 3 discards 4/s' in found[
        ('gpu0001', 'health_lossless_drops', 'eth2 <-> leaf002 Ethernet0')].seen


def test_ecn_marks_without_cnps_point_at_the_receiving_nic(fleet):
    fleet.switch('leaf001', 'queues', 'Ethernet0:3', SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS=5000)
    fleet.host('gpu0001', 'eth1', np_ecn_marked_roce_packets=5000)
    found = failed(run(fleet))
    item = found[('gpu0001', 'health_ecn_cnp', 'eth1 <-> leaf001 Ethernet0')]
    assert item.seen.startswith('gpu0001 eth1 (rail 0) receives ECN-marked packets at 500/s (leaf001 Ethernet0 marks them) '
                                'but sends no CNP')
    assert item.message == 'look at gpu0001 eth1'


def test_cnps_that_no_sender_handles_are_lost_on_the_way_back(fleet):
    fleet.switch('leaf001', 'queues', 'Ethernet0:3', SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS=5000)
    fleet.host('gpu0001', 'eth1', np_ecn_marked_roce_packets=5000, np_cnp_sent=4000)
    found = failed(run(fleet))
    item = found[('gpu0001', 'health_ecn_cnp', 'eth1 <-> leaf001 Ethernet0')]
    assert 'sends CNPs at 400/s but no GPU server handles any' in item.seen
    assert item.message == 'look at the CNP class on the switches (DSCP 48 -> TC 6, strict priority, no WRED)'


def test_cnps_without_ecn_marks(fleet):
    fleet.host('gpu0002', 'eth1', np_cnp_sent=3000, rp_cnp_handled=10)
    found = failed(run(fleet))
    item = found[('gpu0002', 'health_cnp_ecn', 'eth1 <-> leaf001 Ethernet4')]
    assert item.seen == ('gpu0002 eth1 (rail 0) sends CNPs at 300/s but neither its NIC nor leaf001 Ethernet4 counted an '
                         'ECN-marked packet')


def test_senders_slowing_down_while_no_switch_marks(fleet):
    fleet.host('gpu0003', 'eth2', rp_cnp_handled=900)
    found = failed(run(fleet))
    item = found[('gpu0003', 'health_cnp_ecn', 'eth2 <-> leaf004 Ethernet0')]
    assert item.seen == 'gpu0003 eth2 (rail 1) slows down for CNPs at 90/s while no switch port marked ECN (0/s over the fabric)'


def test_rdma_transport_errors_name_the_rail_and_its_leaf_port(fleet):
    fleet.host('gpu0004', 'eth1', out_of_sequence=20, local_ack_timeout_err=1)
    found = failed(run(fleet))
    item = found[('gpu0004', 'health_rdma_errors', 'eth1 <-> leaf003 Ethernet4')]
    assert item.seen == 'gpu0004 eth1 (rail 0): local_ack_timeout_err 0.10/s (max 0/s), out_of_sequence 2/s (max 0/s)'
    assert item.message == 'packets are lost between gpu0004 and leaf003 Ethernet4: look at that leaf port\'s drops and PFC state'
    assert failed(run(fleet, health={'rdma_errors_max': {'out_of_sequence': 5, 'local_ack_timeout_err': 1}})) == {}


def test_one_reading_only_is_not_applicable_never_passed(fleet):
    results = run(fleet, interval=0)
    assert results and {item.status for item in results} == {checks.NOT_APPLICABLE}
    assert {item.message for item in results} == {
        'not applicable: counter rates not measured: one reading only (validate_health_interval is 0)'}


def test_host_without_rdma_is_not_applicable(fleet):
    fleet.first['gpu0001'] = fleet.second['gpu0001'] = json.loads(read('rnic_facts', 'no_rdma.json'))
    results = [item for item in run(fleet) if item.device == 'gpu0001']
    assert results and all(item.status == checks.NOT_APPLICABLE and 'no RDMA device' in item.message for item in results)


def test_unreadable_counters_are_errors(fleet):
    fleet.second['leaf001'] = fleet.second['leaf001'].replace('"COUNTERS:', 'garbage"COUNTERS:', 1)
    results = [item for item in run(fleet) if item.status == checks.ERROR]
    assert results and all('SONiC COUNTERS_DB' in item.message or 'not a sonic-db-dump JSON object' in item.seen
                           for item in results)


def test_watchdog_state_check_on_the_first_reading(design, fleet):
    ctx = checks.Context(design, fleet.states(), {})
    assert failed(checks.run(ctx, check_ids={'lossless_watchdog_state'})) == {}
    fleet.first['leaf001'] = sonic_counters_edit(fleet.first['leaf001'], 'queues', 'Ethernet0:3',
                                                 lambda fields: fields.update(PFC_WD_STATUS='stormed'))
    ctx = checks.Context(design, fleet.states(), {})
    found = failed(checks.run(ctx, check_ids={'lossless_watchdog_state'}))
    assert found[('leaf001', 'lossless_watchdog_state', 'Ethernet0')].seen == (
        'queue 3 in storm state (0 storms counted); pause frames come from gpu0001 eth1')
    for queue in ('Ethernet%d:3' % (4 * port) for port in range(4)):  # the spine's watchdog is not running
        fleet.first['spine001'] = sonic_counters_edit(fleet.first['spine001'], 'queues', queue, lambda fields: [
            fields.pop(name, None) for name in ('PFC_WD_STATUS', 'PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED')])
    ctx = checks.Context(design, fleet.states(), {})
    found = failed(checks.run(ctx, devices=['spine001'], check_ids={'lossless_watchdog_state'}))
    assert found[('spine001', 'lossless_watchdog_state', 'Ethernet0')].seen == (
        'no watchdog state for queue 3: the PFC watchdog is not running')


def test_an_unreadable_far_end_is_the_cause_of_the_link_counters_no_end_can_rate(fleet):
    """A link's counter rates need both ends: when one end could not be read at all, the link checks of its
    neighbours blame that device, never the neighbours (the 16k fleet's unreadable spine made 96 causes blaming its
    leaves; with the device's own checks in the run they fold under its one cause)."""
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import causes
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.gatherer import UNREADABLE
    states = fleet.states()
    states['spine001'] = {UNREADABLE: 'spine001: SSH connection to 127.0.0.1:2222 failed: no answer within 20 s'}
    ctx = checks.Context(fleet.design, states, {})
    results = checks.run(ctx, categories=HEALTH)
    neighbours = [item for item in results if item.status == checks.ERROR and item.device != 'spine001']
    assert neighbours and all('spine001' in item.subject for item in neighbours)
    found = causes.analyse(ctx, results)
    assert found and {tuple(cause.devices) for cause in found} == {('spine001',)}, [cause.headline() for cause in found]
