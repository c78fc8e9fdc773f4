# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""aifabric.fabric.rnic_qos on fake hosts (fake sysfs + stub tools): the real module code, no hardware."""

import json
import os

import pytest

from tests.roles import fakehw
from tests.roles.fakehw.runner import run_module

from ansible_collections.aifabric.fabric.plugins.modules import rnic_qos

RAILS = [('ens1f0np0', 'mlx5_0', '0000:18:00.0', '10.100.0.10'), ('ens2f0np0', 'mlx5_1', '0000:2a:00.0', '10.101.0.10')]


def host(tmp_path, **options):
    root = str(tmp_path / 'host')
    bindir = fakehw.build_host(root, RAILS, **options)
    return root, bindir


def args(root, bindir, **changes):
    values = dict(interfaces=[{'name': 'ens1f0np0', 'rdma_device': 'mlx5_0'}, {'name': 'ens2f0np0', 'rdma_device': 'mlx5_1'}],
                  trust='dscp', pfc_priorities=[3], dscp_to_priority={'48': 7}, ecn_priorities=[3], cnp_dscp=48,
                  cnp_priority=7, roce_tos=106, roce_mode=2, global_pause='off', mtu=9000, root=root, bin_path=[bindir])
    values.update(changes)
    return values


def setters(root):
    return [' '.join(call) for call in fakehw.calls(root)
            if call[0] == 'mlnx_qos' and any(part.startswith('--') for part in call)
            or call[0] == 'dcb' and call[1] in ('pfc', 'app') and call[2] in ('set', 'replace', 'add', 'del')
            or call[:2] == ['ethtool', '-A']]


def test_mlnx_ofed_apply_then_nothing(tmp_path):
    root, bindir = host(tmp_path, nic='ofed')
    first = run_module(rnic_qos.main, args(root, bindir))
    assert first['changed'] is True and not first.get('failed')
    assert first['commands'] == [
        'mlnx_qos -i ens1f0np0 --trust dscp --pfc 0,0,0,1,0,0,0,0', 'mlnx_qos -i ens1f0np0 --dscp2prio set,48,7',
        'ethtool -A ens1f0np0 rx off tx off',
        'mlnx_qos -i ens2f0np0 --trust dscp --pfc 0,0,0,1,0,0,0,0', 'mlnx_qos -i ens2f0np0 --dscp2prio set,48,7',
        'ethtool -A ens2f0np0 rx off tx off']
    assert first['writes'][:4] == [
        '/sys/class/net/ens1f0np0/ecn/roce_rp/enable/3=1', '/sys/class/net/ens1f0np0/ecn/roce_np/enable/3=1',
        '/sys/class/net/ens1f0np0/ecn/roce_np/cnp_802p_prio=7',
        '/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos=106']
    assert fakehw.state(root)['link_toggles'] == 2
    assert fakehw.read(root, '/sys/class/net/ens2f0np0/ecn/roce_rp/enable/3') == '1'
    second = run_module(rnic_qos.main, args(root, bindir))
    assert second['changed'] is False and second['commands'] == [] and second['writes'] == []
    assert all(item['status'] == 'ok' for item in second['interfaces'].values())
    assert fakehw.state(root)['link_toggles'] == 2
    assert len(setters(root)) == 6  # nothing more was written the second time


def test_inbox_dcb_path_and_debugfs_cnp(tmp_path):
    root, bindir = host(tmp_path, nic='inbox')
    result = run_module(rnic_qos.main, args(root, bindir))
    assert result['interfaces']['ens1f0np0']['tool'] == 'dcb'
    assert result['commands'][0] == 'dcb pfc set dev ens1f0np0 prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off'
    assert result['commands'][1].startswith('dcb app replace dev ens1f0np0 dscp-prio 0:0 1:0')
    assert '/sys/kernel/debug/mlx5/0000:18:00.0/cc_params/np_cnp_prio=7' in result['writes']
    settings = result['interfaces']['ens1f0np0']['settings']
    assert settings['ecn_rp']['status'] == 'not_applicable' and 'ROCE_CC_PRIO_MASK_P1' in settings['ecn_rp']['reason']
    assert fakehw.state(root)['netdevs']['ens1f0np0']['qos']['dscp2prio']['48'] == 7
    again = run_module(rnic_qos.main, args(root, bindir))
    assert again['changed'] is False and again['commands'] == []


def test_tool_choice_can_force_dcb_when_both_exist(tmp_path):
    root, bindir = host(tmp_path, nic='inbox', tools=['dcb', 'mlnx_qos', 'ethtool', 'rdma', 'ip'])
    assert run_module(rnic_qos.main, args(root, bindir, tool='dcb'))['interfaces']['ens1f0np0']['tool'] == 'dcb'


def test_check_mode_runs_nothing_and_diff_shows_before_after(tmp_path):
    root, bindir = host(tmp_path, nic='ofed')
    before = fakehw.snapshot(root)
    result = run_module(rnic_qos.main, args(root, bindir), check_mode=True, diff=True)
    assert result['changed'] is True and len(result['commands']) == 6
    assert fakehw.snapshot(root) == before
    assert setters(root) == []
    assert 'pfc: 00000000' in result['diff']['before'] and 'pfc: 00010000' in result['diff']['after']
    assert 'trust: pcp' in result['diff']['before'] and 'trust: dscp' in result['diff']['after']
    assert result['summary'][0].startswith('ens1f0np0 (mlx5_0 via mlnx_qos): would change: trust pcp -> dscp')


def test_no_rdma_device_is_not_applicable_not_failure(tmp_path):
    root, bindir = host(tmp_path, nic='none')
    result = run_module(rnic_qos.main, args(root, bindir))
    assert not result.get('failed') and result['changed'] is False
    assert result['not_applicable']['ens1f0np0'].startswith('not applicable: ens1f0np0 has no RDMA device')
    assert result['summary'][0] == 'ens1f0np0: ' + result['not_applicable']['ens1f0np0']


def test_already_lossless_nic_needs_only_the_rest(tmp_path):
    root, bindir = host(tmp_path, nic='ofed', qos={'trust': 'dscp', 'pfc': [0, 0, 0, 1, 0, 0, 0, 0]}, pause_on=False)
    result = run_module(rnic_qos.main, args(root, bindir, dscp_to_priority={}, cnp_priority=6))
    assert [command for command in result['commands'] if command.startswith('mlnx_qos')] == []
    assert result['interfaces']['ens1f0np0']['settings']['pfc']['status'] == 'ok'
    assert fakehw.state(root)['link_toggles'] == 0


def test_wrong_rdma_device_fails_with_the_fix(tmp_path):
    root, bindir = host(tmp_path, nic='ofed')
    result = run_module(rnic_qos.main, args(root, bindir, interfaces=[{'name': 'ens1f0np0', 'rdma_device': 'mlx5_3'}]))
    assert result['failed'] and 'carries RDMA device mlx5_0 but the design expects mlx5_3' in result['msg']
    assert 'hosts.rdma_devices' in result['msg']


def test_missing_interface_fails(tmp_path):
    root, bindir = host(tmp_path, nic='ofed')
    result = run_module(rnic_qos.main, args(root, bindir, interfaces=[{'name': 'ens9f0np0'}]))
    assert result['failed'] and 'interface ens9f0np0 does not exist' in result['msg']


def test_mlx5_without_any_qos_tool_fails(tmp_path):
    root, bindir = host(tmp_path, nic='ofed', tools=['ethtool'])
    result = run_module(rnic_qos.main, args(root, bindir))
    assert result['failed'] and 'install iproute2 (dcb) or mlnx-tools' in result['msg']


def test_nic_that_keeps_its_mask_is_a_failure(tmp_path):
    root, bindir = host(tmp_path, nic='ofed')
    state = fakehw.state(root)
    state['netdevs']['ens1f0np0']['refuse_pfc'] = True
    with open(os.path.join(root, 'fakehw', 'state.json'), 'w', encoding='utf-8') as handle:
        json.dump(state, handle)
    result = run_module(rnic_qos.main, args(root, bindir))
    assert result['failed'] and 'pfc still differ' in result['msg'] and 'refused' in result['msg']


def test_lldpad_running_is_warned(tmp_path):
    root, bindir = host(tmp_path, nic='ofed')
    state = fakehw.state(root)
    state['netdevs']['ens1f0np0']['lldpad'] = True
    with open(os.path.join(root, 'fakehw', 'state.json'), 'w', encoding='utf-8') as handle:
        json.dump(state, handle)
    result = run_module(rnic_qos.main, args(root, bindir), check_mode=True)
    assert any('lldpad is running' in text for text in result['warnings'])


def test_mtu_mismatch_reported_or_set(tmp_path):
    root, bindir = host(tmp_path, nic='ofed', mtu=1500)
    reported = run_module(rnic_qos.main, args(root, bindir), check_mode=True)
    assert reported['interfaces']['ens1f0np0']['settings']['mtu']['status'] == 'mismatch'
    assert any('MTU is 1500, the design wants 9000' in text for text in reported['warnings'])
    assert 'MISMATCH: mtu 1500 (wanted 9000' in reported['summary'][0]
    managed = run_module(rnic_qos.main, args(root, bindir, manage_mtu=True))
    assert 'ip link set dev ens1f0np0 mtu 9000' in managed['commands']
    assert fakehw.read(root, '/sys/class/net/ens1f0np0/mtu') == '9000\n'


def test_verbs_traffic_class_set_and_cleared(tmp_path):
    root, bindir = host(tmp_path, nic='ofed')
    result = run_module(rnic_qos.main, args(root, bindir, verbs_traffic_class=106))
    assert '/sys/class/infiniband/mlx5_0/tc/1/traffic_class=106' in result['writes']
    with open(os.path.join(root, 'sys/class/infiniband/mlx5_0/tc/1/traffic_class'), 'w', encoding='utf-8') as handle:
        handle.write('Global tclass=106\n')
    cleared = run_module(rnic_qos.main, args(root, bindir, verbs_traffic_class=-1,
                                             interfaces=[{'name': 'ens1f0np0', 'rdma_device': 'mlx5_0'}]))
    assert cleared['writes'] == ['/sys/class/infiniband/mlx5_0/tc/1/traffic_class=tclass=-1']


def test_rdma_cm_mode_written_as_text(tmp_path):
    root, bindir = host(tmp_path, nic='ofed')
    with open(os.path.join(root, 'sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_mode'), 'w',
              encoding='utf-8') as handle:
        handle.write('IB/RoCE v1\n')
    result = run_module(rnic_qos.main, args(root, bindir))
    assert '/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_mode=RoCE v2' in result['writes']
    assert fakehw.read(root, '/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_mode') == 'RoCE v2'


@pytest.mark.parametrize('changes, message', [
    ({'cnp_dscp': 64}, 'cnp_dscp=64 is out of range'),
    ({'pfc_priorities': [9]}, 'out of range 0..7'),
    ({'dscp_to_priority': {'70': 1}}, 'out of range'),
])
def test_bad_values_are_refused(tmp_path, changes, message):
    root, bindir = host(tmp_path, nic='ofed')
    result = run_module(rnic_qos.main, args(root, bindir, **changes))
    assert result['failed'] and message in result['msg']


@pytest.mark.parametrize('nic', ['ofed', 'inbox'])
def test_the_whole_switch_map_reaches_the_nic(tmp_path, nic):
    """The role passes all 64 DSCPs (the switches' map): every DSCP the NIC default puts elsewhere is written, and
    read back; the next run writes nothing."""
    switch_map = {str(dscp): 0 for dscp in range(64)}
    switch_map.update({'26': 3, '48': 6})
    root, bindir = host(tmp_path, nic=nic, qos={'trust': 'dscp', 'pfc': [0, 0, 0, 1, 0, 0, 0, 0]})
    first = run_module(rnic_qos.main, args(root, bindir, dscp_to_priority=switch_map, cnp_priority=6))
    assert not first.get('failed'), first
    qos_calls = [text for text in first['commands'] if '--dscp2prio' in text or 'app replace' in text]
    assert len(qos_calls) == 2
    # DSCP >> 3 already gives 0-7 priority 0, 26 priority 3 and 48 priority 6: the other 54 are written.
    assert all(call.count('set,') == 54 or call.count(':') == 54 for call in qos_calls), qos_calls
    for netdev in ('ens1f0np0', 'ens2f0np0'):
        assert fakehw.state(root)['netdevs'][netdev]['qos']['dscp2prio'] == dict(switch_map)
    second = run_module(rnic_qos.main, args(root, bindir, dscp_to_priority=switch_map, cnp_priority=6))
    assert second['changed'] is False and second['commands'] == []


def cabled(**changes):
    return [{'name': 'ens1f0np0', 'rdma_device': 'mlx5_0', 'cable_length_m': changes.get('first', 10)},
            {'name': 'ens2f0np0', 'rdma_device': 'mlx5_1', 'cable_length_m': changes.get('second', 10)}]


def test_cable_length_goes_with_the_pfc_mask_then_nothing(tmp_path):
    """mlx5 sizes its receive headroom from the cable length (the IEEE PFC delay; 7 m after a driver load): it is
    written in the PFC call, so the link toggles once per NIC, and read back; the next run writes nothing."""
    root, bindir = host(tmp_path, nic='ofed')
    first = run_module(rnic_qos.main, args(root, bindir, interfaces=cabled()))
    assert not first.get('failed'), first
    assert first['commands'][0] == 'mlnx_qos -i ens1f0np0 --trust dscp --pfc 0,0,0,1,0,0,0,0 --cable_len 10'
    assert fakehw.state(root)['netdevs']['ens1f0np0']['qos']['cable_len'] == 10
    assert fakehw.state(root)['link_toggles'] == 2
    setting = first['interfaces']['ens1f0np0']['settings']['cable_len']
    assert (setting['status'], setting['before'], setting['after']) == ('changed', 7, 10)
    assert 'cable_len 7 -> 10' in first['summary'][0]
    second = run_module(rnic_qos.main, args(root, bindir, interfaces=cabled()))
    assert second['changed'] is False and second['commands'] == []
    assert second['interfaces']['ens1f0np0']['settings']['cable_len']['status'] == 'ok'


def test_cable_length_alone_does_not_touch_the_mask(tmp_path):
    root, bindir = host(tmp_path, nic='ofed', qos={'trust': 'dscp', 'pfc': [0, 0, 0, 1, 0, 0, 0, 0]})
    result = run_module(rnic_qos.main, args(root, bindir, interfaces=cabled(second=7), dscp_to_priority={}))
    assert [text for text in result['commands'] if text.startswith('mlnx_qos')] == [
        'mlnx_qos -i ens1f0np0 --cable_len 10']
    assert fakehw.state(root)['link_toggles'] == 0


def test_cable_length_on_the_dcb_path_rides_in_the_same_pfc_set(tmp_path):
    root, bindir = host(tmp_path, nic='inbox')
    first = run_module(rnic_qos.main, args(root, bindir, interfaces=cabled(first=30, second=3)))
    assert first['commands'][0] == ('dcb pfc set dev ens1f0np0 prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off '
                                    '7:off delay 30')
    assert fakehw.state(root)['netdevs']['ens2f0np0']['qos']['cable_len'] == 3
    again = run_module(rnic_qos.main, args(root, bindir, interfaces=cabled(first=30, second=3)))
    assert again['changed'] is False and again['commands'] == []


def test_check_mode_shows_the_cable_length_and_writes_nothing(tmp_path):
    root, bindir = host(tmp_path, nic='ofed')
    before = fakehw.snapshot(root)
    result = run_module(rnic_qos.main, args(root, bindir, interfaces=cabled()), check_mode=True, diff=True)
    assert 'cable_len: 7' in result['diff']['before'] and 'cable_len: 10' in result['diff']['after']
    assert fakehw.snapshot(root) == before and setters(root) == []


def test_nic_without_a_driver_managed_buffer_is_not_applicable(tmp_path):
    """mlx5 reports no cable length (0) when its firmware owns the port buffer: nothing to write, said so."""
    root, bindir = host(tmp_path, nic='ofed', qos={'trust': 'dscp', 'pfc': [0, 0, 0, 1, 0, 0, 0, 0]})
    fakehw.update_nic(root, 'ens1f0np0', port_buffer=False)
    result = run_module(rnic_qos.main, args(root, bindir, interfaces=cabled(), dscp_to_priority={}))
    setting = result['interfaces']['ens1f0np0']['settings']['cable_len']
    assert setting['status'] == 'not_applicable' and 'reports no cable length' in setting['reason']
    assert not any('--cable_len' in text for text in result['commands'] if 'ens1f0np0' in text)
    assert 'mlnx_qos -i ens2f0np0 --cable_len 10' in result['commands']


def test_nic_that_keeps_its_cable_length_is_a_failure(tmp_path):
    root, bindir = host(tmp_path, nic='ofed')
    fakehw.update_nic(root, 'ens1f0np0', refuse_cable=True)
    result = run_module(rnic_qos.main, args(root, bindir, interfaces=cabled()))
    assert result['failed'] and 'cable_len still differ' in result['msg'] and 'cable length 7 m' in result['msg']


@pytest.mark.parametrize('length', [0, 1000, 10000])
def test_cable_length_outside_what_mlx5_takes_is_refused(tmp_path, length):
    root, bindir = host(tmp_path, nic='ofed')
    result = run_module(rnic_qos.main, args(root, bindir, interfaces=cabled(first=length)))
    assert result['failed'] and 'interfaces[ens1f0np0].cable_length_m=%d is out of range 1..999' % length in result['msg']
    assert setters(root) == []
