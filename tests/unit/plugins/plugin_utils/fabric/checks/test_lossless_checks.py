# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Lossless consistency checks (rules C01-C25): the rendered SONiC configuration and the host model agree
(design phase); running CONFIG_DB + rnic_facts agree (deployed phase); every rule fails on the setting it
guards; the FRR lab and hosts without RDMA are not applicable, never passed."""

import copy
import json
import os

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import lossless
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms import get_platform
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_model
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms.sonic import state as sonic

from tests.unit.plugins.plugin_utils.fabric.state.captures import FIXTURES, REPO, read, read_recorded

LOSSLESS = ('lossless',)
SWITCH_CHECKS = set(lossless.SWITCH_RULES) | {'lossless_config'}
HOST_CHECKS = set(lossless.HOST_RULES) | {'host_switch_marking'}


@pytest.fixture(scope='module')
def design():
    return design_from_file(os.path.join(FIXTURES, 'intents', 'sonic_lossless.yml'))


@pytest.fixture(scope='module')
def rendered(design):
    return {name: json.loads(render_model(design.device(name))['config_db.json'])
            for name in ('leaf001', 'leaf002')}


def rnic(name):
    return json.loads(read('rnic_facts', name + '.json'))


def installed_nccl_conf(design, name='gpu0001'):
    """`cat /etc/nccl.conf` on a host where host_nccl installed the rendered file."""
    return {'rc': 0, 'stdout': render_model(design.device(name))['nccl.conf'], 'stderr': ''}


def deployed(design, config_dbs, facts, devices=('leaf001', 'gpu0001'), nccl_conf=None):
    states = {name: {'lossless': {'rc': 0, 'stdout': json.dumps(db), 'stderr': ''}} for name, db in config_dbs.items()}
    states['gpu0001'] = {'rnic': facts, 'nccl_conf': nccl_conf or installed_nccl_conf(design)}
    ctx = checks.Context(design, states, {'lossless_phases': ('deployed',)})
    # only the port and host-link rules: the other ends of the leaf uplinks (spines) are not in these fixtures
    return checks.run(ctx, devices=list(devices), categories=LOSSLESS, check_ids=SWITCH_CHECKS | HOST_CHECKS)


def bad(results):
    return {(item.device, item.check, item.subject): item for item in results if item.status != checks.PASS}


def test_design_phase_passes_on_rendered_sonic_with_counts_from_the_design(design):
    ctx = checks.Context(design, {}, {'lossless_phases': ('design',)})
    results = checks.run(ctx, categories=LOSSLESS)
    assert bad(results) == {}
    assert {item.source for item in results if item.device == 'leaf001' and item.check != 'link_lossless'} == {
        'design: rendered config_db.json'}
    uplinks = sum(1 for link in design.links if link.role != 'host_leaf')
    assert len([item for item in results if item.check == 'link_lossless']) == uplinks
    switch_ports = sum(len(ctx.model(name)['interfaces']) for name in design.device_names() if name.startswith(('leaf', 'spine')))
    per_check = {}
    for item in results:
        per_check[item.check] = per_check.get(item.check, 0) + 1
    assert all(per_check[check_id] == switch_ports for check_id in lossless.SWITCH_RULES)
    rails = sum(len(ctx.model(name)['rails']) for name in design.device_names('host'))
    assert all(per_check[check_id] == rails for check_id in HOST_CHECKS)


@pytest.mark.parametrize('intent, source', [
    ('eos_lossless.yml', 'design: rendered startup-config'),
    ('nvue_small.yml', 'design: rendered startup.yaml'),
])
def test_design_phase_reads_the_rendered_eos_and_nvue_configuration(intent, source):
    path = os.path.join(FIXTURES, 'intents', intent)
    if not os.path.exists(path):
        path = os.path.join(FIXTURES, '..', 'intents', intent)
    fabric = design_from_file(path)
    ctx = checks.Context(fabric, {}, {'lossless_phases': ('design',)})
    results = checks.run(ctx, categories=LOSSLESS)
    assert bad(results) == {} and results
    assert {item.source for item in results if item.device == 'leaf001' and item.check.startswith('lossless_')} == {source}


def test_deployed_phase_passes_when_switch_and_nic_agree(design, rendered):
    results = deployed(design, rendered, rnic('ofed_lossless'))
    assert bad(results) == {}
    assert {item.check for item in results} == SWITCH_CHECKS | HOST_CHECKS


def test_inbox_driver_hides_dcqcn_state_and_says_so(design, rendered):
    results = deployed(design, rendered, rnic('inbox_lossless'))
    assert bad(results) == {}
    ecn = [item for item in results if item.check == 'host_switch_ecn'][0]
    assert 'not exposed by the driver' in ecn.seen


def test_wrong_nic_settings_fail_on_both_ends_named(design, rendered):
    found = bad(deployed(design, rendered, rnic('ofed_pfc4_cnp_wrong')))
    link = 'eth1 <-> leaf001 Ethernet0 [deployed]'
    pfc = found[('gpu0001', 'host_switch_pfc', link)]
    assert pfc.seen == 'NIC PFC {4}, leaf PFC {3}, NIC global pause on' and pfc.rule == 'C03,C19'
    cnp = found[('gpu0001', 'host_switch_cnp', link)]
    assert cnp.seen == 'NIC CNP DSCP 46 priority 5; leaf DSCP 48 -> TC 6'
    mtu = found[('gpu0001', 'host_switch_mtu', link)]
    assert mtu.seen == 'NIC MTU 1500, leaf port MTU 9100'
    assert ('gpu0001', 'host_switch_dscp', link) not in found


def test_untouched_nic_trusts_pcp(design, rendered):
    found = bad(deployed(design, rendered, rnic('ofed_fresh')))
    dscp = found[('gpu0001', 'host_switch_dscp', 'eth1 <-> leaf001 Ethernet0 [deployed]')]
    assert dscp.seen.startswith('NIC trust pcp, DSCP 26 -> priority None')
    assert 'NIC DCQCN on {}' in found[('gpu0001', 'host_switch_ecn', 'eth1 <-> leaf001 Ethernet0 [deployed]')].seen


def test_nic_on_its_default_dscp_map_fails_naming_the_dscps(design, rendered):
    """A NIC left on DSCP >> 3 with only the RoCE and CNP entries set puts DSCP 24, 25, 27..31 on the lossless
    priority 3 where the switches queue them as lossy: 54 of 64 DSCPs differ."""
    facts = rnic('ofed_lossless')
    for data in facts['interfaces'].values():
        data['qos']['dscp2prio'] = {str(dscp): dscp >> 3 for dscp in range(64)}
        data['qos']['dscp2prio']['48'] = 6
    found = bad(deployed(design, rendered, facts))
    dscp = found[('gpu0001', 'host_switch_dscp', 'eth1 <-> leaf001 Ethernet0 [deployed]')]
    assert '54 DSCPs differ (DSCP 8: NIC 1, leaf 0' in dscp.seen and dscp.rule == 'C01,C04'
    design_side = bad(checks.run(checks.Context(design, {}, {'lossless_phases': ('design',)}), devices=['gpu0001'],
                                 categories=LOSSLESS))
    assert design_side == {}


def test_nic_headroom_shorter_than_the_cable_fails_naming_both_ends(design, rendered):
    """The NIC sizes its receive headroom for its cable length (mlx5 assumes 7 m): a 5 m design cable is covered by
    7 m, a NIC left at 3 m is not (C16); the leaf's own cable length is judged on the same line."""
    facts = rnic('ofed_lossless')
    facts['interfaces']['eth1']['qos']['cable_len'] = 3
    found = bad(deployed(design, rendered, facts))
    cable = found[('gpu0001', 'host_switch_cable', 'eth1 <-> leaf001 Ethernet0 [deployed]')]
    assert cable.seen == 'NIC headroom for 3 m < cabled 5 m: NIC 3 m, leaf port 5 m, cabled 5 m'
    assert cable.rule == 'C15,C16'
    assert [key for key in found if key[1] == 'host_switch_cable'] == [
        ('gpu0001', 'host_switch_cable', 'eth1 <-> leaf001 Ethernet0 [deployed]')]


def test_leaf_cable_shorter_than_the_cable_fails(design, rendered):
    dbs = copy.deepcopy(rendered)
    for key in dbs['leaf001']['CABLE_LENGTH']['AZURE']:
        dbs['leaf001']['CABLE_LENGTH']['AZURE'][key] = '1m'
    found = bad(deployed(design, dbs, rnic('ofed_lossless')))
    cable = found[('gpu0001', 'host_switch_cable', 'eth1 <-> leaf001 Ethernet0 [deployed]')]
    assert cable.seen.startswith('leaf port headroom for 1 m < cabled 5 m')


def test_nic_without_a_cable_length_is_named_not_failed(design, rendered):
    """mlx5 reports a PFC delay of 0 when its firmware owns the port buffer: nothing to set, said so."""
    facts = rnic('inbox_lossless')
    for data in facts['interfaces'].values():
        data['qos']['delay'] = 0
    results = deployed(design, rendered, facts)
    cable = [item for item in results if item.check == 'host_switch_cable'][0]
    assert cable.status == checks.PASS and 'none reported (firmware-managed NIC buffer)' in cable.seen


def test_nic_qos_not_read_fails_the_cable_check(design, rendered):
    facts = rnic('ofed_lossless')
    facts['interfaces']['eth1']['qos'] = None
    found = bad(deployed(design, rendered, facts))
    assert 'NIC QoS not read' in found[('gpu0001', 'host_switch_cable', 'eth1 <-> leaf001 Ethernet0 [deployed]')].seen


def marking(results):
    return {item.subject: item for item in results if item.check == 'host_switch_marking'}


def test_application_marking_passes_when_both_ends_treat_it_as_lossless(design, rendered):
    found = marking(deployed(design, rendered, rnic('ofed_lossless')))
    item = found['eth1 <-> leaf001 Ethernet0 [deployed]']
    assert item.status == checks.PASS
    assert item.seen == ('NCCL_IB_TC (/etc/nccl.conf) 106 = DSCP 26 (NIC priority 3, leaf TC 3); '
                         'RDMA-CM default ToS 106 = DSCP 26 (NIC priority 3, leaf TC 3)')


@pytest.mark.parametrize('change, expected', [
    # NCCL marks DSCP 24 (ToS 98) on a fabric designed for DSCP 26: both ends queue it as lossy.
    (lambda facts, conf: conf.update(stdout=conf['stdout'].replace('NCCL_IB_TC=106', 'NCCL_IB_TC=98')),
     'NCCL_IB_TC (/etc/nccl.conf) 98 = DSCP 24 (NIC priority 0, leaf TC 0)'),
    (lambda facts, conf: conf.update(rc=1, stdout='', stderr='cat: /etc/nccl.conf: No such file or directory'),
     'NCCL_IB_TC (no /etc/nccl.conf: NCCL default) 0 = DSCP 0 (NIC priority 0, leaf TC 0)'),
    (lambda facts, conf: facts['devices']['mlx5_0']['rdma_cm'].update(tos=0),
     'RDMA-CM default ToS 0 = DSCP 0 (NIC priority 0, leaf TC 0)'),
    (lambda facts, conf: facts['devices']['mlx5_0']['traffic_class'].update({'global': 96}),
     'verbs traffic class (overrides NCCL_IB_TC) 96 = DSCP 24 (NIC priority 0, leaf TC 0)'),
])
def test_application_marking_on_a_lossy_dscp_fails_live(design, rendered, change, expected):
    facts, conf = rnic('ofed_lossless'), installed_nccl_conf(design)
    change(facts, conf)
    item = marking(deployed(design, rendered, facts, nccl_conf=conf))['eth1 <-> leaf001 Ethernet0 [deployed]']
    assert item.status == checks.FAIL and item.seen.startswith('not lossless: ')
    assert expected in item.seen and item.rule == 'C01,C04'


def test_application_marking_is_checked_before_deploy():
    fabric = design_from_file(os.path.join(FIXTURES, 'intents', 'sonic_lossless.yml'))
    fabric.intent['hosts']['nccl']['extra']['NCCL_IB_TC'] = 98
    ctx = checks.Context(fabric, {}, {'lossless_phases': ('design',)})
    found = marking(checks.run(ctx, devices=['gpu0001'], categories=LOSSLESS))
    item = found['eth1 <-> leaf001 Ethernet0 [design]']
    assert item.status == checks.FAIL
    assert item.seen == 'not lossless: NCCL_IB_TC (nccl.conf) 98 = DSCP 24 (NIC priority 0, leaf TC 0)'


def test_unreadable_nccl_conf_is_an_error_of_the_marking_check_only(design, rendered):
    conf = {'rc': 1, 'stdout': '', 'stderr': 'cat: /etc/nccl.conf: Permission denied'}
    results = deployed(design, rendered, rnic('ofed_lossless'), nccl_conf=conf)
    problems = bad(results)
    assert {check for (_device, check, _subject) in problems} == {'host_switch_marking'}
    assert all(item.status == checks.ERROR and 'Permission denied' in item.seen for item in problems.values())


def test_host_without_rdma_is_not_applicable_with_the_reason(design, rendered):
    results = deployed(design, rendered, rnic('no_rdma'), devices=('gpu0001',))
    assert {item.status for item in results} == {checks.NOT_APPLICABLE}
    assert all('no RDMA device on this host' in item.message for item in results)


def test_community_default_qos_breaks_roce(design, rendered):
    dbs = dict(rendered, leaf001=json.loads(read_recorded('sonic', 'leaf001_community_defaults.json')))
    found = bad(deployed(design, dbs, rnic('ofed_lossless')))
    port = 'Ethernet0 [deployed]'
    assert found[('leaf001', 'lossless_dscp_map', port)].seen == 'DSCP 26 -> TC 1 (map AZURE)'
    assert found[('leaf001', 'lossless_pfc', port)].seen == 'PFC on {3,4}'
    assert 'no PFC watchdog on the port' in found[('leaf001', 'lossless_watchdog', port)].seen
    assert 'queue 6 scheduler is DWRR, not strict' in found[('leaf001', 'lossless_cnp', port)].seen
    assert 'thresholds 1048576-2097152 B differ' in found[('leaf001', 'lossless_ecn', port)].seen
    host = found[('gpu0001', 'host_switch_dscp', 'eth1 <-> leaf001 Ethernet0 [deployed]')]
    assert host.seen.startswith('NIC trust dscp, DSCP 26 -> priority 3, leaf TC 1; ')
    assert '62 DSCPs differ (DSCP 0: NIC 0, leaf 1, DSCP 1: NIC 0, leaf 1' in host.seen
    assert ('gpu0001', 'host_switch_dscp', 'eth2 <-> leaf002 Ethernet0 [deployed]') not in found


def _broken(rendered, change):
    dbs = copy.deepcopy(rendered)
    change(dbs['leaf001'])
    return dbs


MUTATIONS = [
    ('lossless_dscp_map', lambda db: [db['PORT_QOS_MAP'][key].pop('dscp_to_tc_map', None) for key in ('Ethernet0', 'global')],
     'no DSCP map bound'),
    ('lossless_dscp_map', lambda db: db['DSCP_TO_TC_MAP']['AIFABRIC'].update({'26': '0'}), 'DSCP 26 -> TC 0'),
    ('lossless_pfc', lambda db: db['PORT_QOS_MAP']['Ethernet0'].update(pfc_enable=''), 'PFC on {}'),
    ('lossless_chain', lambda db: db['TC_TO_PRIORITY_GROUP_MAP']['AIFABRIC'].update({'3': '0'}), 'PG 0 of TC 3 is not a PFC priority'),
    ('lossless_chain', lambda db: db['MAP_PFC_PRIORITY_TO_QUEUE']['AIFABRIC'].update({'3': '4'}), 'differs from the queue 4'),
    ('lossless_buffers', lambda db: db['BUFFER_PG'].pop('Ethernet0|3'), 'no lossless ingress buffer for PG 3'),
    # a static profile on the (dynamic) NVIDIA leaf whose headroom is short of the design's
    ('lossless_buffers', lambda db: (db['BUFFER_PROFILE'].update(pg_lossless_400000_5m_profile={
        'pool': 'ingress_lossless_pool', 'size': '20000', 'xon': '19456', 'xoff': '1000', 'dynamic_th': '0'}),
        db['BUFFER_PG'].update({'Ethernet0|3': {'profile': 'pg_lossless_400000_5m_profile'}})),
     'xoff 1000 < designed headroom'),
    ('lossless_buffers', lambda db: db['CABLE_LENGTH']['AZURE'].update(Ethernet0='1m'), 'cable length 1 m < cabled 5 m'),
    ('lossless_buffers', lambda db: db['BUFFER_QUEUE'].update({'Ethernet0|3': {'profile': 'AIFABRIC_EGRESS_LOSSY'}}),
     'egress queue 3 uses'),
    # Broadcom SKUs keep egress_lossy_profile in egress_lossless_pool (Dell-Z9864f-O64): the profile decides.
    ('lossless_buffers', lambda db: (db['BUFFER_PROFILE']['egress_lossy_profile'].update(pool='egress_lossless_pool'),
                                     db['BUFFER_QUEUE'].update({'Ethernet0|3': {'profile': 'egress_lossy_profile'}})),
     'egress queue 3 uses egress_lossy_profile'),
    ('lossless_ecn', lambda db: next(iter(db['WRED_PROFILE'].values())).update(ecn='ecn_none'), 'marks no ECN'),
    ('lossless_ecn', lambda db: next(iter(db['WRED_PROFILE'].values())).update(green_min_threshold='90000000'),
     'is not below max'),
    ('lossless_ecn', lambda db: db['QUEUE']['Ethernet0|3'].pop('wred_profile'), 'queue 3 has no WRED/ECN profile'),
    ('lossless_cnp', lambda db: db['SCHEDULER']['AIFABRIC_CNP'].update(type='DWRR', weight='10'), 'not strict'),
    ('lossless_cnp', lambda db: db['DSCP_TO_TC_MAP']['AIFABRIC'].update({'48': '0'}), 'DSCP 48 -> TC 0'),
    ('lossless_cnp', lambda db: db['QUEUE']['Ethernet0|6'].update(wred_profile=next(iter(db['WRED_PROFILE']))), 'must not be marked'),
    ('lossless_watchdog', lambda db: db['PFC_WD'].pop('Ethernet0'), 'no PFC watchdog on the port'),
    ('lossless_watchdog', lambda db: db['PFC_WD']['Ethernet0'].update(detection_time='50'), 'must be between 100 and 5000 ms'),
    ('lossless_watchdog', lambda db: db['PFC_WD']['GLOBAL'].update(POLL_INTERVAL='2000'), 'below the poll interval 2000'),
    ('lossless_watchdog', lambda db: db['PORT_QOS_MAP']['Ethernet0'].update(pfcwd_sw_enable=''), 'watchdog covers {}'),
    ('lossless_port_mtu', lambda db: db['PORT']['Ethernet0'].update(mtu='9000'), 'MTU 9000 < host MTU + 50 overhead = 9050'),
    ('lossless_config', lambda db: db['CABLE_LENGTH']['AZURE'].update(Ethernet4='5'), 'must be a number of metres'),
    ('lossless_config', lambda db: db['DEVICE_NEIGHBOR'].pop('Ethernet4'), 'missing from DEVICE_NEIGHBOR: Ethernet4'),
    ('lossless_config', lambda db: db['PORT_QOS_MAP']['Ethernet4'].update(pfc_enable='3;4'), 'does not match'),
]


@pytest.mark.parametrize('check_id, change, fragment', MUTATIONS)
def test_each_switch_rule_fails_on_the_setting_it_guards(design, rendered, check_id, change, fragment):
    results = deployed(design, _broken(rendered, change), rnic('ofed_lossless'))
    failing = [item for item in results if item.status == checks.FAIL and item.check == check_id]
    assert failing, 'expected %s to fail' % check_id
    assert any(fragment in item.seen for item in failing), [item.seen for item in failing]
    assert all(item.device == 'leaf001' or item.check.startswith('host_') for item in failing)


def test_global_dscp_map_applies_to_ports_without_their_own(rendered):
    db = copy.deepcopy(rendered['leaf001'])
    assert 'dscp_to_tc_map' in db['PORT_QOS_MAP'].get('global', {})
    db['PORT_QOS_MAP']['Ethernet0'].pop('dscp_to_tc_map')
    port = sonic.parse_config_db(db)['ports']['Ethernet0']
    assert port['maps']['dscp_to_tc_map'].endswith('(global)') and port['dscp_to_tc'][26] == 3


def test_legacy_references_and_multi_port_keys_are_understood(rendered):
    db = copy.deepcopy(rendered['leaf001'])
    entry = db['PORT_QOS_MAP'].pop('Ethernet4')
    entry['dscp_to_tc_map'] = '[DSCP_TO_TC_MAP|AIFABRIC]'
    db['PORT_QOS_MAP']['Ethernet0,Ethernet4'] = entry
    parsed = sonic.parse_config_db(db)
    assert parsed['ports']['Ethernet4']['dscp_to_tc'][26] == 3
    assert any('several ports' in issue for issue in parsed['issues'])


def test_config_db_parser_errors(rendered):
    for text in ('', '[]', '{"PORT": {}}', '{"PORT": []}'):
        with pytest.raises(sonic.StateError):
            sonic.parse_config_db({'rc': 0, 'stdout': text, 'stderr': ''})
    with pytest.raises(sonic.StateError):
        sonic.parse_config_db({'rc': 127, 'stdout': '', 'stderr': 'sonic-cfggen: not found'})
    db = copy.deepcopy(rendered['leaf001'])
    db['PORT']['Ethernet0']['mtu'] = 'big'
    db['BUFFER_PG']['Ethernet0|x'] = {'profile': 'nope'}
    issues = sonic.parse_config_db(db)['issues']
    assert any('PORT Ethernet0 mtu is not a number' in issue for issue in issues)
    assert any("'x' is not a number or a range" in issue for issue in issues)


def test_missing_config_db_is_an_error_not_a_pass(design, rendered):
    ctx = checks.Context(design, {'gpu0001': {'rnic': rnic('ofed_lossless')}}, {'lossless_phases': ('deployed',)})
    results = checks.run(ctx, devices=['leaf001', 'gpu0001'], categories=LOSSLESS)
    assert results and {item.status for item in results} == {checks.ERROR}
    assert all(item.seen == 'not gathered' for item in results)


def test_frr_lab_is_not_applicable_for_every_lossless_check():
    lab = design_from_file(os.path.join(REPO, 'fabrics', 'lab.yml'))
    ctx = checks.Context(lab, {}, {'lossless_phases': lossless.PHASES})
    results = checks.run(ctx, categories=LOSSLESS)
    assert results and {item.status for item in results} == {checks.NOT_APPLICABLE}
    assert {item.check for item in results} == SWITCH_CHECKS | HOST_CHECKS | {'link_lossless', 'lossless_watchdog_state'}
    assert all('cannot exist in a software lab' in item.message for item in results)
    assert {item.source for item in results if item.check != 'lossless_watchdog_state'} == {'design and deployed'}
    assert {item.source for item in results if item.check == 'lossless_watchdog_state'} == {'deployed'}


def test_eos_watchdog_timers_are_judged_in_the_platform_units(design):
    ctx = checks.Context(design)
    view = {'watchdog': {'action': 'drop', 'detection_ms': 205, 'restoration_ms': 200}, 'pfc': [3], 'pfcwd': [3],
            'poll_ms': 100}
    ok, _want, seen = lossless._rule_watchdog(ctx, view, {}, get_platform('eos'))  # pylint: disable=protected-access
    assert not ok and 'must be a multiple of 10 ms' in seen
    view['watchdog']['detection_ms'] = 200
    assert lossless._rule_watchdog(ctx, view, {}, get_platform('eos'))[0]  # pylint: disable=protected-access
