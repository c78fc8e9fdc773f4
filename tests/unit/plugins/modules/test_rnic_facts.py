# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""aifabric.fabric.rnic_facts and aifabric.fabric.nccl_check on fake hosts."""

import json
import os

import pytest

from tests.roles import fakehw
from tests.roles.fakehw.runner import run_module

from ansible_collections.aifabric.fabric.plugins.modules import nccl_check, rnic_facts

RAILS = [('ens1f0np0', 'mlx5_0', '0000:18:00.0', '10.100.0.10'), ('ens2f0np0', 'mlx5_1', '0000:2a:00.0', '10.101.0.10')]
NCCL = {'NCCL_IB_HCA': '=mlx5_0:1,mlx5_1:1', 'NCCL_IB_TC': 106, 'NCCL_SOCKET_IFNAME': '=eth0'}
MODEL_RAILS = [{'interface': 'ens1f0np0', 'rdma_device': 'mlx5_0', 'ip': '10.100.0.10'},
               {'interface': 'ens2f0np0', 'rdma_device': 'mlx5_1', 'ip': '10.101.0.10'}]


def facts(root, bindir, **changes):
    values = dict(root=root, bin_path=[bindir])
    values.update(changes)
    result = run_module(rnic_facts.main, values, check_mode=True)
    return result, result['ansible_facts']['aifabric_rnic']


def test_ofed_host_facts(tmp_path):
    root = str(tmp_path / 'h')
    bindir = fakehw.build_host(root, RAILS, nic='ofed', qos={'trust': 'dscp', 'pfc': [0, 0, 0, 1, 0, 0, 0, 0]})
    result, data = facts(root, bindir)
    assert result['changed'] is False and data['not_applicable'] is None and data['errors'] == []
    device = data['devices']['mlx5_0']
    assert device['netdevs'] == ['ens1f0np0'] and device['fw_ver'] == '28.39.1002'
    port = device['ports'][0]
    assert port['state'] == 'ACTIVE' and port['link_layer'] == 'Ethernet' and port['active_mtu'] == 4096
    assert port['roce_v2_ipv4_gids'] == [{'index': 3, 'ipv4': '10.100.0.10', 'ndev': 'ens1f0np0'}]
    assert port['hw_counters']['np_cnp_sent'] == 1203
    assert device['traffic_class'] == {'global': None, 'rules': []}
    assert device['rdma_cm'] == {'available': True, 'present': True, 'tos': 0, 'mode': 2}
    nic = data['interfaces']['ens1f0np0']
    assert nic['driver'] == 'mlx5_core' and nic['pci'] == '0000:18:00.0' and nic['roce_active_mtu'] == 4096
    assert nic['qos']['tool'] == 'mlnx_qos' and nic['qos']['trust'] == 'dscp' and nic['qos']['pfc'] == '00010000'
    assert nic['qos']['pfc_priorities'] == [3] and nic['qos']['dscp2prio'][26] == 3
    assert nic['ecn']['available'] and nic['ecn']['roce_np'][3] == 0 and nic['ecn']['cnp_dscp'] == 48
    assert nic['counters']['pfc_counter_priorities'] == [3]
    assert nic['pause'] == {'autoneg': False, 'rx': True, 'tx': True, 'rx_negotiated': None, 'tx_negotiated': None}


def test_inbox_host_facts_use_dcb_and_debugfs(tmp_path):
    root = str(tmp_path / 'h')
    bindir = fakehw.build_host(root, RAILS, nic='inbox')
    _unused, data = facts(root, bindir, interfaces=['ens2f0np0'])
    nic = data['interfaces']['ens2f0np0']
    assert list(data['interfaces']) == ['ens2f0np0']
    assert nic['qos'] == {'tool': 'dcb', 'trust': 'pcp', 'pfc': '00000000', 'pfc_priorities': [], 'dscp2prio': {},
                          'delay': 7, 'cable_length_m': 7}
    assert nic['ecn']['available'] is False and nic['ecn']['cc_debugfs']['np_cnp_dscp'] == 48
    assert data['devices']['mlx5_1']['traffic_class'] is None


def test_host_without_rdma_is_not_applicable(tmp_path):
    root = str(tmp_path / 'h')
    bindir = fakehw.build_host(root, RAILS, nic='none')
    _unused, data = facts(root, bindir)
    assert data['not_applicable'].startswith('not applicable: no RDMA device on this host')
    assert data['devices'] == {} and data['interfaces'] == {}
    _unused, data = facts(root, bindir, interfaces=['ens1f0np0'])
    assert data['interfaces']['ens1f0np0']['rdma_devices'] == [] and data['interfaces']['ens1f0np0']['qos'] is None


def test_rdma_tool_without_the_kernels_rdma_core_is_no_device_not_an_error(tmp_path):
    """Debian's iproute2 installs `rdma` on every server; without the RDMA core it fails to open its netlink socket."""
    root = str(tmp_path / 'h')
    bindir = fakehw.build_host(root, RAILS, nic='none', tools=['ethtool', 'ip', 'rdma'])
    os.rmdir(os.path.join(root, 'sys', 'class', 'infiniband'))  # the RDMA core registers the class
    result, data = facts(root, bindir)
    assert data['not_applicable'] == ('not applicable: no RDMA device on this host '
                                      "(no /sys/class/infiniband: the kernel's RDMA core is not loaded)")
    assert data['errors'] == [] and not result.get('warnings'), data['errors']


def test_unparseable_output_is_an_error_line_or_a_failure(tmp_path):
    root = str(tmp_path / 'h')
    bindir = fakehw.build_host(root, RAILS, nic='ofed')
    state = fakehw.state(root)
    state['outputs']['ibv_devinfo'] = 'mlnx_qos/traceback.txt'  # a tool that crashed instead of printing devices
    with open(os.path.join(root, 'fakehw', 'state.json'), 'w', encoding='utf-8') as handle:
        json.dump(state, handle)
    result, data = facts(root, bindir, gather=['devices'])
    assert data['errors'] == ["ibv_devinfo: output does not start with 'hca_id:' "
                              "(got: 'Traceback (most recent call last):')"]
    assert result['warnings'] == data['errors']
    strict = run_module(rnic_facts.main, dict(root=root, bin_path=[bindir], gather=['devices'], strict=True))
    assert strict['failed'] and strict['msg'].startswith('ibv_devinfo: output does not start')


def test_nccl_check_traffic_class_override_and_environment(tmp_path):
    root = str(tmp_path / 'h')
    fakehw.build_host(root, RAILS, nic='ofed')
    with open(os.path.join(root, 'sys/class/infiniband/mlx5_1/tc/1/traffic_class'), 'w', encoding='utf-8') as handle:
        handle.write('Global tclass=96\n')
    os.makedirs(os.path.join(root, 'etc/profile.d'))
    with open(os.path.join(root, 'etc/profile.d/nccl.sh'), 'w', encoding='utf-8') as handle:
        handle.write('export NCCL_IB_HCA=mlx5\n')
    result = run_module(nccl_check.main, dict(nccl=NCCL, rails=MODEL_RAILS, root=root), check_mode=True)
    levels = {item['check']: item['level'] for item in result['checks']}
    assert levels['traffic_class mlx5_0'] == 'ok' and levels['traffic_class mlx5_1'] == 'warning'
    assert levels['gid mlx5_0'] == 'ok' and levels['environment NCCL_IB_HCA'] == 'warning'
    assert levels['NCCL_SOCKET_IFNAME'] == 'ok'
    assert any('silently overrides NCCL_IB_TC=106' in text for text in result['warnings'])
    assert result['changed'] is False


def test_nccl_check_without_rdma(tmp_path):
    root = str(tmp_path / 'h')
    fakehw.build_host(root, RAILS, nic='none')
    result = run_module(nccl_check.main, dict(nccl=dict(NCCL, NCCL_IB_GID_INDEX=3), rails=MODEL_RAILS, root=root))
    assert [item['level'] for item in result['checks']] == ['not_applicable'] * 4 + ['ok']
    assert result['summary'][0] == 'not_applicable: not applicable: no RDMA device mlx5_0 on this host'


@pytest.mark.parametrize('nic_kind', ['ofed', 'inbox'])
def test_the_nic_cable_length_is_read_back_from_either_tool(tmp_path, nic_kind):
    """mlnx_qos prints `Cable len: N`, `dcb -j pfc show` the IEEE PFC `delay`: both are the cable length mlx5 sizes
    its receive headroom for; 0 (no driver-managed port buffer) reads as none."""
    root = str(tmp_path / 'h')
    bindir = fakehw.build_host(root, RAILS, nic=nic_kind)
    fakehw.update_nic(root, 'ens1f0np0', cable_len=40)
    fakehw.update_nic(root, 'ens2f0np0', port_buffer=False)
    _unused, data = facts(root, bindir)
    assert data['interfaces']['ens1f0np0']['qos']['cable_length_m'] == 40
    assert data['interfaces']['ens2f0np0']['qos']['cable_length_m'] is None
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.rnic import parse_rnic_facts
    views = parse_rnic_facts(data)['interfaces']
    assert (views['ens1f0np0']['cable_length_m'], views['ens2f0np0']['cable_length_m']) == (40, None)
