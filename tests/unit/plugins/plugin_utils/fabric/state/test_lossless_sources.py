# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""rnic_facts and SONiC CONFIG_DB parsers, and which read-only commands each platform gathers."""

import copy
import json
import os
import re

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state import StateError, rnic, sources
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms.sonic import state as sonic

from tests.unit.plugins.plugin_utils.fabric.state.captures import FIXTURES, INTENT, read, read_recorded


def facts(name):
    return json.loads(read('rnic_facts', name + '.json'))


def test_rnic_ofed_view_turns_string_keys_back_into_numbers():
    view = rnic.parse_rnic_facts(facts('ofed_lossless'))['interfaces']['eth1']
    assert view['trust'] == 'dscp' and view['pfc_priorities'] == [3] and view['qos_tool'] == 'mlnx_qos'
    assert view['dscp_to_priority'][26] == 3 and view['dscp_to_priority'][48] == 6
    assert view['ecn_rp_priorities'] == [3] == view['ecn_np_priorities']
    assert (view['cnp_dscp'], view['cnp_priority'], view['cnp_source']) == (48, 6, 'sysfs ecn/roce_np')
    assert view['mtu'] == 9000 and view['rdma_devices'] == ['mlx5_0'] and view['pause']['rx'] is False


def test_rnic_inbox_view_reads_cnp_from_debugfs_and_has_no_ecn_switches():
    view = rnic.parse_rnic_facts(facts('inbox_lossless'))['interfaces']['eth2']
    assert view['qos_tool'] == 'dcb' and view['ecn_rp_priorities'] is None
    assert (view['cnp_dscp'], view['cnp_priority'], view['cnp_source']) == (48, 6, 'debugfs mlx5 cc_params')


def test_rnic_wrong_and_fresh_nics():
    wrong = rnic.parse_rnic_facts(facts('ofed_pfc4_cnp_wrong'))['interfaces']['eth1']
    assert wrong['pfc_priorities'] == [4] and wrong['cnp_dscp'] == 46 and wrong['mtu'] == 1500 and wrong['pause']['tx']
    fresh = rnic.parse_rnic_facts(facts('ofed_fresh'))['interfaces']['eth1']
    assert fresh['trust'] == 'pcp' and fresh['pfc_priorities'] == [] and fresh['ecn_rp_priorities'] == []


def test_rnic_no_rdma_and_registered_result_shapes():
    assert rnic.parse_rnic_facts(facts('no_rdma'))['not_applicable'].startswith('not applicable: no RDMA device')
    registered = {'changed': False, 'ansible_facts': {'aifabric_rnic': facts('ofed_lossless')}}
    assert rnic.parse_rnic_facts(registered)['interfaces']['eth2']['rdma_devices'] == ['mlx5_1']


@pytest.mark.parametrize('value, fragment', [
    (None, 'module not run'),
    ({'failed': True, 'msg': 'mlnx_qos crashed'}, 'mlnx_qos crashed'),
    ({'skipped': True}, 'task skipped'),
    ({'devices': {}}, 'neither interfaces nor not_applicable'),
    ({'interfaces': {'eth1': {'qos': {'dscp2prio': {'x': 3}}}}}, 'non-numeric'),
    ({'interfaces': ['eth1']}, 'expected a JSON object'),
])
def test_rnic_malformed(value, fragment):
    with pytest.raises(StateError) as caught:
        rnic.parse_rnic_facts(value)
    assert fragment in str(caught.value)


def test_config_db_community_defaults():
    parsed = sonic.parse_config_db({'rc': 0, 'stdout': read_recorded('sonic', 'leaf001_community_defaults.json'), 'stderr': ''})
    port = parsed['ports']['Ethernet0']
    assert port['dscp_to_tc'][26] == 1 and port['dscp_to_tc'][48] == 6 and port['pfc_enable'] == [3, 4]
    assert port['watchdog'] is None and parsed['watchdog_poll_ms'] is None
    assert port['buffer_pgs'][3]['xoff'] == 231424 and port['buffer_pgs'][4]['name'] == 'pg_lossless_400000_5m_profile'
    assert port['queues'][3]['wred']['min_bytes'] == 1048576 and port['queues'][6]['scheduler']['type'] == 'DWRR'
    assert port['cable_length_m'] == 5 and parsed['lossless_traffic_pattern'] == {'mtu': 1024, 'small_packet_percentage': 100}
    assert parsed['issues'] == [] and parsed['device_neighbors'] == ['Ethernet0', 'Ethernet12', 'Ethernet4', 'Ethernet8']


def test_config_db_watchdog_restoration_defaults_to_twice_detection():
    data = json.loads(read_recorded('sonic', 'leaf001_community_defaults.json'))
    data['PFC_WD'] = {'Ethernet0': {'action': 'alert', 'detection_time': '400'}, 'GLOBAL': {'POLL_INTERVAL': '200'}}
    parsed = sonic.parse_config_db(data)
    assert parsed['ports']['Ethernet0']['watchdog'] == {'action': 'alert', 'detection_ms': 400, 'restoration_ms': 800}
    assert parsed['watchdog_poll_ms'] == 200


def test_config_db_reference_problems_are_issues_not_crashes():
    data = json.loads(read_recorded('sonic', 'leaf001_community_defaults.json'))
    broken = copy.deepcopy(data)
    broken['PORT_QOS_MAP']['Ethernet0']['dscp_to_tc_map'] = 'MISSING'
    broken['PORT_QOS_MAP']['Ethernet99'] = {'pfc_enable': '3'}
    broken['BUFFER_PG']['Ethernet0|3-4'] = {'profile': 'nope'}
    broken['WRED_PROFILE']['a name with spaces'] = {'ecn': 'ecn_all'}
    broken['VXLAN_TUNNEL_MAP'] = {'vtep|map_100': {'vlan': '100', 'vni': '10100'}}
    issues = sonic.parse_config_db(broken)['issues']
    for fragment in ('DSCP_TO_TC_MAP MISSING is referenced but not defined', 'PORT_QOS_MAP names Ethernet99',
                     'uses profile nope, which is not in BUFFER_PROFILE', "WRED_PROFILE name 'a name with spaces'",
                     "vlan '100' must be Vlan<id>"):
        assert any(fragment in issue for issue in issues), (fragment, issues)


def test_sonic_commands_only_read():
    design = design_from_file(os.path.join(FIXTURES, 'intents', 'sonic_lossless.yml'))
    leaf_model, spine_model = design.device('leaf001'), design.device('spine001')
    gatherer = sources.gatherer_for(leaf_model)
    leaf, spine = gatherer.commands(leaf_model), gatherer.commands(spine_model)
    assert [item[0] for item in leaf] == ['bgp_summary', 'evpn_vni', 'bgp_evpn_vni', 'evpn_type3', 'routes',
                                          'interfaces', 'lldp', 'lossless', 'counters']
    assert [item[0] for item in spine] == ['bgp_summary', 'interfaces', 'lldp', 'lossless', 'counters']
    every = [argv for key, command in leaf + spine for argv in gatherer.reader.split(command)]
    assert all(argv[0] in ('vtysh', 'ip', 'sh', 'sonic-cfggen') for argv in every)
    assert all(argv[-1].startswith('show ') for argv in every if argv[0] == 'vtysh')
    scripts = [argv[2] for argv in every if argv[0] == 'sh']
    # sonic-db-cli only reads: HGET / HGETALL, never HSET / DEL / FLUSHDB
    assert scripts and all(set(re.findall(r'sonic-db-cli \w+ (\w+)', script)) <= {'HGET', 'HGETALL'} for script in scripts)
    assert ['sonic-cfggen', '-d', '--print-data'] in every
    host = design_from_file(INTENT).device('gpu0001')
    host_commands = sources.gatherer_for(host).commands(host)
    assert [item[0] for item in host_commands] == ['interfaces', 'nccl_conf', 'lldp', 'rnic', 'counters']
    assert dict(host_commands)['nccl_conf'] == ['cat', '/etc/nccl.conf']


def test_nccl_conf_is_read_as_nccl_reads_it():
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.host import parse_nccl_conf
    text = '# comment\nNCCL_IB_TC=106\nNCCL_IB_HCA==mlx5_0:1\nNCCL_IB_TC=98\nnot a setting\n'
    assert parse_nccl_conf({'rc': 0, 'stdout': text, 'stderr': ''}) == {
        'path': '/etc/nccl.conf', 'present': True, 'settings': {'NCCL_IB_TC': '106', 'NCCL_IB_HCA': '=mlx5_0:1'}}
    missing = {'rc': 1, 'stdout': '', 'stderr': 'cat: /etc/nccl.conf: No such file or directory'}
    assert parse_nccl_conf(missing)['present'] is False
    with pytest.raises(StateError, match='Permission denied'):
        parse_nccl_conf({'rc': 1, 'stdout': '', 'stderr': 'cat: /etc/nccl.conf: Permission denied'})


def test_unknown_key_has_no_parser_and_says_so():
    design = design_from_file(INTENT)
    host = sources.gatherer_for(design.device('gpu0001'))
    assert host.parser('jumbo:eth1:10.0.0.1') is not None and host.provides('ping:eth1:10.0.0.1')
    assert not host.provides('lossless') and host.parser('nonsense') is None
    with pytest.raises(StateError, match='does not read this state'):
        host.parse('nonsense', '')
