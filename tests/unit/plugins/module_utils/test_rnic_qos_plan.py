# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Decisions of the RNIC QoS applier: compare-before-write, the PFC mask in one call, DSCP arithmetic."""

import pytest
from hypothesis import given, strategies as st

from ansible_collections.aifabric.fabric.plugins.module_utils import rnic_qos_plan as plan
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import traffic_class_byte

DEFAULT = plan.default_dscp_map()
LOSSLESS = {'trust': 'dscp', 'pfc': [0, 0, 0, 1, 0, 0, 0, 0], 'dscp2prio': plan.desired_dscp_map({})}
FRESH = {'trust': 'pcp', 'pfc': [0] * 8, 'dscp2prio': {}}


# ------------------------------------------------------------------------------------------- arithmetic

def test_tos_for_roce_dscp_26_is_106():
    assert plan.tos_for_dscp(26) == 106
    assert plan.tos_for_dscp(26, ect=False) == 104
    assert plan.dscp_for_tos(106) == 26
    assert 26 >> 3 == 3  # the default map puts DSCP 26 on priority 3


@given(st.integers(min_value=0, max_value=63))
def test_tos_roundtrip_and_design_agree(dscp):
    tos = plan.tos_for_dscp(dscp)
    assert plan.dscp_for_tos(tos) == dscp
    assert tos & 0b11 == 0b10                     # ECT(0), so switches may mark CE instead of dropping
    assert tos == traffic_class_byte(dscp)        # the host applier and the design (NCCL_IB_TC) agree


@pytest.mark.parametrize('value', [-1, 64])
def test_tos_rejects_out_of_range(value):
    with pytest.raises(ValueError):
        plan.tos_for_dscp(value)
    with pytest.raises(ValueError):
        plan.dscp_for_tos(value * 5 if value > 0 else value)


def test_pfc_mask():
    assert plan.pfc_mask([3]) == [0, 0, 0, 1, 0, 0, 0, 0]
    assert plan.pfc_mask(['3', 4]) == [0, 0, 0, 1, 1, 0, 0, 0]
    assert plan.pfc_mask([]) == [0] * 8
    assert plan.mask_text(plan.pfc_mask([3])) == '00010000'
    with pytest.raises(ValueError, match='out of range'):
        plan.pfc_mask([8])


def test_desired_dscp_map_takes_string_keys_from_ansible():
    mapping = plan.desired_dscp_map({'48': '7'})
    assert mapping[48] == 7 and mapping[26] == 3 and len(mapping) == 64
    with pytest.raises(ValueError, match='out of range'):
        plan.desired_dscp_map({70: 1})


# ------------------------------------------------------------------------------------------- mlnx_qos

def test_mlnx_qos_fresh_nic_trust_and_pfc_in_one_call():
    result = plan.plan_qos('mlnx_qos', 'eth1', FRESH, LOSSLESS)
    assert result['commands'] == [['mlnx_qos', '-i', 'eth1', '--trust', 'dscp', '--pfc', '0,0,0,1,0,0,0,0']]
    assert result['changes']['pfc'] == {'before': '00000000', 'after': '00010000'}
    assert 'dscp2prio' not in result['changes']  # --trust dscp installs the default map itself


def test_mlnx_qos_override_goes_in_a_second_call():
    """mlnx_qos refuses --trust and --dscp2prio together; overrides are computed against the default map."""
    desired = dict(LOSSLESS, dscp2prio=plan.desired_dscp_map({48: 7}))
    result = plan.plan_qos('mlnx_qos', 'eth1', FRESH, desired)
    assert result['commands'] == [['mlnx_qos', '-i', 'eth1', '--trust', 'dscp', '--pfc', '0,0,0,1,0,0,0,0'],
                                  ['mlnx_qos', '-i', 'eth1', '--dscp2prio', 'set,48,7']]
    assert not any('--trust' in command and '--dscp2prio' in command for command in result['commands'])


def test_nothing_differs_nothing_runs():
    for tool in ('mlnx_qos', 'dcb'):
        assert plan.plan_qos(tool, 'eth1', LOSSLESS, LOSSLESS) == {'commands': [], 'changes': {}}


def test_only_the_pfc_mask_differs():
    current = dict(LOSSLESS, pfc=[0, 0, 0, 1, 1, 0, 0, 0])
    assert plan.plan_qos('mlnx_qos', 'eth1', current, LOSSLESS)['commands'] == [
        ['mlnx_qos', '-i', 'eth1', '--pfc', '0,0,0,1,0,0,0,0']]


def test_stale_dscp_entry_is_reset():
    current = dict(LOSSLESS, dscp2prio={**DEFAULT, 26: 5})
    result = plan.plan_qos('mlnx_qos', 'eth1', current, LOSSLESS)
    assert result['commands'] == [['mlnx_qos', '-i', 'eth1', '--dscp2prio', 'set,26,3']]
    assert result['changes']['dscp2prio'] == {'before': {26: 5}, 'after': {26: 3}}


# ------------------------------------------------------------------------------------------- dcb

def test_dcb_writes_the_final_mask_with_all_priorities_in_one_call():
    result = plan.plan_qos('dcb', 'eth1', FRESH, LOSSLESS)
    pfc = [command for command in result['commands'] if command[1] == 'pfc']
    assert pfc == [['dcb', 'pfc', 'set', 'dev', 'eth1', 'prio-pfc',
                    '0:off', '1:off', '2:off', '3:on', '4:off', '5:off', '6:off', '7:off']]
    assert 'all:off' not in pfc[0]


def test_dcb_trust_dscp_by_writing_the_full_map():
    result = plan.plan_qos('dcb', 'eth1', FRESH, LOSSLESS)
    app = result['commands'][1]
    assert app[:6] == ['dcb', 'app', 'replace', 'dev', 'eth1', 'dscp-prio']
    assert len(app) == 6 + 64 and '26:3' in app and '48:6' in app
    assert result['changes']['trust'] == {'before': 'pcp', 'after': 'dscp'}


def test_dcb_partial_map_writes_only_the_difference():
    current = {'trust': 'dscp', 'pfc': [0, 0, 0, 1, 0, 0, 0, 0], 'dscp2prio': dict(DEFAULT)}
    desired = dict(LOSSLESS, dscp2prio=plan.desired_dscp_map({48: 7}))
    assert plan.plan_qos('dcb', 'eth1', current, desired)['commands'] == [
        ['dcb', 'app', 'replace', 'dev', 'eth1', 'dscp-prio', '48:7']]


def test_dcb_back_to_pcp_deletes_the_dscp_entries():
    current = {'trust': 'dscp', 'pfc': [0] * 8, 'dscp2prio': {26: 3, 48: 6}}
    result = plan.plan_qos('dcb', 'eth1', current, {'trust': 'pcp', 'pfc': [0] * 8, 'dscp2prio': {}})
    assert result['commands'] == [['dcb', 'app', 'del', 'dev', 'eth1', 'dscp-prio', '26:3', '48:6']]


def test_unknown_tool():
    with pytest.raises(ValueError):
        plan.plan_qos('lldptool', 'eth1', FRESH, LOSSLESS)


@given(current=st.lists(st.integers(0, 1), min_size=8, max_size=8), wanted=st.sets(st.integers(0, 7)))
def test_pfc_mask_is_written_at_most_once_and_only_when_it_differs(current, wanted):
    desired = dict(LOSSLESS, pfc=plan.pfc_mask(wanted))
    for tool in ('mlnx_qos', 'dcb'):
        commands = plan.plan_qos(tool, 'eth1', dict(LOSSLESS, pfc=current), desired)['commands']
        pfc_calls = [command for command in commands if '--pfc' in command or command[1:3] == ['pfc', 'set']]
        assert len(pfc_calls) == (0 if current == desired['pfc'] else 1)


# ------------------------------------------------------------------------------------------- read-back, files

def test_read_back_check():
    assert plan.qos_matches(LOSSLESS, LOSSLESS) == []
    assert plan.qos_matches(dict(LOSSLESS, pfc=[0] * 8), LOSSLESS) == ['pfc']
    assert plan.qos_matches(FRESH, LOSSLESS) == ['trust', 'pfc', 'dscp2prio']


def test_sysfs_values_compare_before_write():
    current = {'/a': 1, '/b': 0, '/c': None}
    assert plan.plan_sysfs_values(current, {'/a': 1, '/b': 1, '/c': 106}) == [('/b', 0, 1), ('/c', None, 106)]
    assert plan.plan_sysfs_values(current, {'/a': 1}) == []


def test_global_pause():
    assert plan.plan_global_pause({'rx': True, 'tx': False}) == ['rx', 'off', 'tx', 'off']
    assert plan.plan_global_pause({'rx': False, 'tx': False}) == []
    assert plan.plan_global_pause(None) == []


# ------------------------------------------------------------------------------------------- cable length

def test_cable_length_joins_the_pfc_call_on_mlnx_qos():
    """mlnx_qos sets the IEEE PFC delay (the cable length to mlx5) before the mask and keeps it: one call."""
    result = plan.plan_qos('mlnx_qos', 'eth1', dict(FRESH, cable_len=7), dict(LOSSLESS, cable_len=10))
    assert result['commands'] == [['mlnx_qos', '-i', 'eth1', '--trust', 'dscp', '--pfc', '0,0,0,1,0,0,0,0',
                                   '--cable_len', '10']]
    assert result['changes']['cable_len'] == {'before': 7, 'after': 10}


def test_cable_length_joins_the_pfc_set_on_dcb():
    result = plan.plan_qos('dcb', 'eth1', dict(LOSSLESS, cable_len=7), dict(LOSSLESS, cable_len=40))
    assert result['commands'] == [['dcb', 'pfc', 'set', 'dev', 'eth1', 'delay', '40']]


@pytest.mark.parametrize('current', [0, None])
def test_unreported_cable_length_is_never_written(current):
    """0: mlx5 has no driver-managed port buffer (it fills the delay only then) and ignores what is written."""
    for tool in ('mlnx_qos', 'dcb'):
        result = plan.plan_qos(tool, 'eth1', dict(LOSSLESS, cable_len=current), dict(LOSSLESS, cable_len=10))
        assert result == {'commands': [], 'changes': {}}


def test_no_wanted_cable_length_leaves_it():
    assert plan.plan_qos('mlnx_qos', 'eth1', dict(LOSSLESS, cable_len=7), dict(LOSSLESS, cable_len=None)) == {
        'commands': [], 'changes': {}}


def test_cable_length_read_back():
    wanted = dict(LOSSLESS, cable_len=10)
    assert plan.qos_matches(dict(LOSSLESS, cable_len=7), wanted) == ['cable_len']
    assert plan.qos_matches(dict(LOSSLESS, cable_len=10), wanted) == []
    assert plan.qos_matches(dict(LOSSLESS, cable_len=0), wanted) == []
    assert plan.CABLE_LENGTHS == (1, 999)
