# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Counters into the neutral shape: SONiC COUNTERS_DB dumps (sonic-db-cli), LLDP from APPL_DB, GPU server NICs
(rnic_facts); and the rates between two readings."""

import copy
import json
import os
import subprocess
import sys
from fnmatch import fnmatchcase as fnmatch

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state import StateError, host
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms.sonic import state as sonic
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.counters import metric, rates

from tests.unit.plugins.plugin_utils.fabric.state.captures import (FIXTURES, read, read_recorded, sonic_counters_edit,
                                                                   sonic_dump_join, sonic_dump_split)


def result(text, rc=0, stderr=''):
    return {'rc': rc, 'stdout': text, 'stderr': stderr}


def sonic_counters(device='leaf001'):
    return result(read_recorded('sonic', device, 'counters_db.txt'))


def test_sonic_counters_from_counters_db():
    ports = sonic.parse_counters(sonic_counters())['ports']
    port = ports['Ethernet0']
    assert port['pfc_rx'][3] == 1822 and port['pfc_tx'][3] == 907 and port['pfc_tx'][0] == 0
    # the queues and priority groups the reading names, not every one the switch polls (queue 0 is in the dump)
    assert port['queue_ecn_marked'] == {3: 1388, 6: 0} and port['queue_dropped'] == {3: 0, 6: 0}
    assert port['wd_stormed'] == {3: False} and port['wd_storms'] == {3: 0} and port['pg_dropped'] == {3: 0}
    assert set(ports) == {'Ethernet0', 'Ethernet4', 'Ethernet8', 'Ethernet12'}


def test_sonic_counters_storm_and_missing_queue_polling():
    text = sonic_counters()['stdout']
    stormed = sonic_counters_edit(text, 'queues', 'Ethernet0:3', lambda fields: fields.update(
        PFC_WD_STATUS='stormed', PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED='3'))
    port = sonic.parse_counters(result(stormed))['ports']['Ethernet0']
    assert port['wd_stormed'][3] is True and port['wd_storms'][3] == 3
    header, dumps = sonic_dump_split(text)
    for dump in dumps:
        if 'COUNTERS_QUEUE_NAME_MAP' in dump:
            del dump['COUNTERS_QUEUE_NAME_MAP']['value']['Ethernet0:3']  # `counterpoll queue disable`
    with pytest.raises(StateError, match='queue Ethernet0:3 has no counters .*counterpoll queue enable'):
        sonic.parse_counters(result(sonic_dump_join(header, dumps)))


def test_sonic_counters_of_a_port_not_polled():
    header, dumps = sonic_dump_split(sonic_counters()['stdout'])
    del dumps[0]['COUNTERS_PORT_NAME_MAP']['value']['Ethernet4']
    with pytest.raises(StateError, match='Ethernet4 is not in COUNTERS_PORT_NAME_MAP'):
        sonic.parse_counters(result(sonic_dump_join(header, dumps)))


HEADER = '== ports Ethernet0\n== queues Ethernet0:3\n== pgs Ethernet0:3\n'


@pytest.mark.parametrize('output, message', [
    (result(''), "no '==' line naming what was read"),
    (result('{}'), "no '==' line naming what was read"),
    (result(HEADER), 'empty output'),
    (result(HEADER + 'not JSON'), 'not a sonic-db-dump JSON object'),
    (result(HEADER + '[]'), 'not a sonic-db-dump JSON object'),
    (result(HEADER + '{"COUNTERS:oid:0x1":{"type":"string","value":"0"}}'), 'COUNTERS:oid:0x1: not a hash'),
    (result('', 127, 'sonic-db-dump: command not found'), 'command failed \\(rc 127\\)'),
    (result('== ports Ethernet0\n{}'), 'no == line naming the pgs, queues read'),
])
def test_sonic_counters_bad_output(output, message):
    with pytest.raises(StateError, match=message):
        sonic.parse_counters(output)


def test_sonic_lldp_from_appl_db():
    neighbors = {item['interface']: item for item in sonic.parse_lldp(result(read_recorded('sonic', 'leaf001', 'lldp_appl_db.txt')))}
    assert (neighbors['Ethernet8']['system_name'], neighbors['Ethernet8']['peer_port']) == ('spine001', 'Ethernet0')
    assert (neighbors['Ethernet0']['port_id_type'], neighbors['Ethernet0']['peer_port']) == ('mac', 'eth1')
    assert 'eth0' not in neighbors  # the management port's neighbour is in the table; the reading wants the model's
    empty = sonic.parse_lldp(result('== ports Ethernet0\n{"LLDP_ENTRY_TABLE:eth0":{"type":"hash","value":{"a":"b"}}}'))
    assert empty == []


def test_sonic_interfaces_from_appl_db_and_config_db():
    design = design_from_file(os.path.join(FIXTURES, '..', 'intents', 'sonic_small.yml'))
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_model
    config = {'rc': 0, 'stdout': render_model(design.device('leaf001'))['config_db.json'], 'stderr': ''}
    interfaces = sonic.parse_interfaces([result(read_recorded('sonic', 'leaf001', 'ports_appl_db.txt')), config])
    uplink = interfaces['Ethernet8']
    assert (uplink['mtu'], uplink['operstate'], uplink['admin_up']) == (9100, 'UP', True)
    assert uplink['addresses'] == [{'family': 'inet', 'address': '10.0.0.1', 'prefixlen': 31}]
    missing = sonic.parse_interfaces([result('== ports Ethernet0 Ethernet4\n{"PORT_TABLE:Ethernet4":{"type":"hash",'
                                             '"value":{"mtu":"9100"},"ttl":-0.001,"expireat":1764524951.6}}'), config])
    assert list(missing) == ['Ethernet4']
    missing = sonic.parse_interfaces([result('== ports Ethernet0\n{}'), config])
    assert missing == {}
    with pytest.raises(StateError, match='expected the PORT_TABLE dump and CONFIG_DB'):
        sonic.parse_interfaces([config])


def test_sonic_counter_command_names_the_cabled_ports_and_lossless_queues_and_dumps_the_table_twice():
    """One sonic-db-dump of the name maps and one of the counters, whatever the number of ports (no process per port),
    both cut by one jq on the switch."""
    design = design_from_file(os.path.join(FIXTURES, '..', 'intents', 'sonic_small.yml'))
    argv = dict(sonic.GATHERER.commands(design.device('leaf001')))['counters']
    assert argv[:2] == ['sh', '-c']
    assert "echo '== ports Ethernet0 Ethernet4 Ethernet8 Ethernet12'" in argv[2]
    assert "echo '== queues Ethernet0:3 Ethernet0:6 " in argv[2] and "Ethernet12:3'" in argv[2]
    assert ("{ sonic-db-dump -n COUNTERS_DB -k 'COUNTERS_*_NAME_MAP' && "
            "sonic-db-dump -n COUNTERS_DB -k 'COUNTERS:*'; } | jq -c -s --argjson want '") in argv[2]
    assert argv[2].count('sonic-db-dump -n') == 2 and argv[2].count('| jq ') == 1 and 'for ' not in argv[2]


# --------------------------------------------------------------------------- the jq cut on the switch, run for real
_NAMES = st.sampled_from(['Ethernet%d' % (4 * index) for index in range(12)])


@st.composite
def counter_tables(draw):
    """(device model, the switch's COUNTERS_DB as {redis key: hash}): the model's ports and lossless queues and
    priority groups, a switch that polls some of them or more (every queue and group of more ports), with counters
    the reading does not want, objects of other kinds and field values of any text."""
    ports = sorted(draw(st.sets(_NAMES, min_size=1, max_size=5)), key=lambda name: int(name[8:]))
    lossless = sorted(draw(st.sets(st.integers(0, 6), min_size=1, max_size=2)))
    model = {'name': 'leaf001', 'interfaces': [{'name': port} for port in ports],
             'qos': {'lossless_priorities': lossless, 'cnp_priority': 7, 'tc_to_queue': {}, 'tc_to_pg': {}}}
    switch_ports = sorted(set(ports) | draw(st.sets(_NAMES, max_size=3)), key=lambda name: int(name[8:]))
    unpolled = draw(st.sets(st.sampled_from(switch_ports), max_size=1))
    value = st.one_of(st.integers(0, 2 ** 64 - 1).map(str), st.text(max_size=8), st.sampled_from(
        ['operational', 'stormed']))
    extra = st.dictionaries(st.sampled_from(['SAI_PORT_STAT_IF_IN_OCTETS', 'SAI_QUEUE_STAT_BYTES', 'x"y\\z',
                                             'SAI_PORT_STAT_PFC_3_RX_PAUSE_DURATION']), value, max_size=3)
    maps = {'COUNTERS_PORT_NAME_MAP': {}, 'COUNTERS_QUEUE_NAME_MAP': {}, 'COUNTERS_PG_NAME_MAP': {}}
    counters = {'COUNTERS:oid:0x18000000000001': {'SAI_BUFFER_POOL_STAT_WATERMARK_BYTES': '0'}}
    for index, port in enumerate(switch_ports):
        if port in unpolled:
            continue
        oid = 'oid:0x10000000000%02x' % index
        maps['COUNTERS_PORT_NAME_MAP'][port] = oid
        counters['COUNTERS:' + oid] = dict(draw(extra), **{field: draw(value) for field in draw(st.sets(
            st.sampled_from(sonic.COUNTER_FIELDS['ports'])))})
        for kind, group, fields in ((0x15, 'COUNTERS_QUEUE_NAME_MAP', 'queues'), (0x1a, 'COUNTERS_PG_NAME_MAP', 'pgs')):
            for number in range(8):
                oid = 'oid:0x%x0000000%03x%02x' % (kind, index, number)
                maps[group]['%s:%d' % (port, number)] = oid
                counters['COUNTERS:' + oid] = dict(draw(extra), **{field: draw(value) for field in draw(st.sets(
                    st.sampled_from(sonic.COUNTER_FIELDS[fields])))})
    return model, {key: fields for key, fields in list(maps.items()) + list(counters.items()) if fields}


def _switch_with(table, directory):
    """A PATH directory whose sonic-db-dump prints `table`'s keys matching -k in redisdl's shape (glob as redis)."""
    script = os.path.join(directory, 'sonic-db-dump')
    data = os.path.join(directory, 'counters_db.json')
    with open(data, 'w', encoding='utf-8') as handle:
        json.dump({key: {'type': 'hash', 'value': fields, 'ttl': -0.001, 'expireat': 1.0}
                   for key, fields in table.items()}, handle)
    with open(script, 'w', encoding='utf-8') as handle:
        handle.write('#!%s\nimport fnmatch, json, sys\npattern = sys.argv[sys.argv.index("-k") + 1]\n'
                     'table = json.load(open(%r))\n'
                     'sys.stdout.write(json.dumps({key: item for key, item in table.items() '
                     'if fnmatch.fnmatchcase(key, pattern)}, separators=(",", ":")))\n' % (sys.executable, data))
    os.chmod(script, 0o755)


def _parsed(text):
    try:
        return sonic.parse_counters(result(text))
    except StateError as error:
        return 'StateError: %s' % error


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(drawn=counter_tables())
def test_the_jq_cut_on_the_switch_keeps_what_the_parser_reads_and_nothing_else(drawn, tmp_path):
    """The counters command as the switch runs it (sh, real jq; sonic-db-dump printing a generated COUNTERS_DB): what
    it prints parses exactly as the uncut dumps would (the same counters, the same error for a port or queue not
    polled), and holds only the wanted names' map entries and objects, with only the fields the parser reads."""
    model, table = drawn
    directory = tmp_path / ('switch%d' % len(os.listdir(tmp_path)))
    directory.mkdir()
    _switch_with(table, str(directory))
    argv = sonic.counters_command(model, {})
    ran = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=60,
                         env=dict(os.environ, PATH='%s:%s' % (directory, os.environ['PATH'])))
    assert ran.returncode == 0, ran.stderr
    header, dumps = sonic_dump_split(ran.stdout)
    uncut = [{key: {'type': 'hash', 'value': fields} for key, fields in table.items() if fnmatch(key, pattern)}
             for pattern in ('COUNTERS_*_NAME_MAP', 'COUNTERS:*')]
    whole = '\n'.join(header) + '\n' + ''.join(json.dumps(dump) for dump in uncut)
    assert _parsed(ran.stdout) == _parsed(whole)
    wanted = {group: line.split()[2:] for line in header for group in [line.split()[1]]}
    maps, counters = dumps
    for group, name_map in sonic.COUNTER_MAPS.items():
        assert set(maps.get(name_map, {}).get('value', {})) <= set(wanted[group])
        for oid in maps.get(name_map, {}).get('value', {}).values():
            assert set(counters.get('COUNTERS:' + oid, {}).get('value', {})) <= set(sonic.COUNTER_FIELDS[group])
    assert len(counters) <= sum(len(item['value']) for item in maps.values())


def test_the_jq_cut_fails_when_a_dump_is_missing(tmp_path):
    """sonic-db-dump that fails before the counters: jq names what is missing and the reading is an error, never an
    empty set of counters."""
    (tmp_path / 'sonic-db-dump').write_text(
        '#!/bin/sh\n[ "$4" = "COUNTERS:*" ] && { echo "redis: connection refused" >&2; exit 1; }\necho "{}"\n')
    (tmp_path / 'sonic-db-dump').chmod(0o755)
    model = {'name': 'leaf001', 'interfaces': [{'name': 'Ethernet0'}],
             'qos': {'lossless_priorities': [3], 'tc_to_queue': {}, 'tc_to_pg': {}}}
    ran = subprocess.run(sonic.counters_command(model, {}), capture_output=True, text=True, check=False,
                         env=dict(os.environ, PATH='%s:%s' % (tmp_path, os.environ['PATH'])), timeout=60)
    assert ran.returncode != 0 and 'expected the 2 sonic-db-dump outputs, got 1' in ran.stderr
    with pytest.raises(StateError, match='command failed'):
        sonic.parse_counters(result(ran.stdout, ran.returncode, ran.stderr))


def rnic(name):
    return json.loads(read('rnic_facts', name + '.json'))


def test_host_counters_from_rnic_facts():
    ports = host.parse_rnic_counters(rnic('ofed_lossless'))['ports']
    eth1 = ports['eth1']
    assert eth1['pfc_rx'] == {3: 18422} and eth1['pfc_tx'] == {3: 9071} and eth1['prio_discards'][3] == 0
    assert eth1['np_cnp_sent'] == 1203 and eth1['rp_cnp_handled'] == 1175 and eth1['rx_discards_phy'] == 0
    facts = host.parse_rnic_counters(rnic('no_rdma'))
    assert facts['ports'] == {} and facts['not_applicable'].startswith('not applicable')


def test_host_counters_need_the_counters_part():
    facts = rnic('ofed_lossless')
    for data in facts['interfaces'].values():
        data.pop('counters')
    for device in facts['devices'].values():
        for port in device['ports']:
            port.pop('hw_counters')
    assert host.parse_rnic_counters(facts)['ports']['eth1'] == {'pfc_rx': {}, 'pfc_tx': {}, 'prio_discards': {}}
    broken = rnic('ofed_lossless')
    broken['interfaces']['eth1']['counters']['per_priority']['3']['tx_pause'] = 'n/a'
    with pytest.raises(StateError, match='eth1 prio 3 tx_pause is not a number'):
        host.parse_rnic_counters(broken)


def test_rates_between_two_readings():
    first = {'ports': {'Ethernet0': {'pfc_tx': {3: 100}, 'wd_stormed': {3: False}, 'queue_dropped': {3: 50}}}}
    second = copy.deepcopy(first)
    second['ports']['Ethernet0'].update(pfc_tx={3: 12100}, wd_stormed={3: True}, queue_dropped={3: 10})
    second['ports']['Ethernet4'] = {'pfc_tx': {3: 5}}
    value = rates(first, second, 10)
    port = value['ports']['Ethernet0']
    assert port['pfc_tx'][3] == 1200 and port['wd_stormed'][3] is True
    assert port['queue_dropped'][3] == 1  # cleared between the readings: counts from zero
    assert value['ports']['Ethernet4']['pfc_tx'][3] is None  # not in the first reading
    assert metric(port, 'pfc_tx', 3) == 1200 and metric(port, 'pfc_rx', 3) is None
    with pytest.raises(StateError, match='not apart in time'):
        rates(first, second, 0)
