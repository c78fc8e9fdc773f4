# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""NCCL settings checked against a host: verbs traffic class override, GID index, environment, bootstrap."""

from ansible_collections.aifabric.fabric.plugins.module_utils import nccl_checks as c
from ansible_collections.aifabric.fabric.plugins.module_utils.rnic_parsers import gid_entry, parse_traffic_class

NCCL = {'NCCL_IB_HCA': '=mlx5_0:1,mlx5_1:1', 'NCCL_IB_TC': 106, 'NCCL_SOCKET_IFNAME': '=eth0'}
RAILS = [{'interface': 'ens1f0np0', 'rdma_device': 'mlx5_0', 'ip': '10.100.0.10'},
         {'interface': 'ens2f0np0', 'rdma_device': 'mlx5_1', 'ip': '10.101.0.10'}]


def levels(results):
    return [item['level'] for item in results]


def test_traffic_class_override_warns():
    results = c.traffic_class_checks(NCCL, RAILS, {'mlx5_0': parse_traffic_class('Global tclass=96\n'),
                                                   'mlx5_1': parse_traffic_class('Global tclass=106\n')})
    assert levels(results) == ['warning', 'ok']
    assert 'silently overrides NCCL_IB_TC=106' in results[0]['message']


def test_traffic_class_unset_absent_and_rules():
    results = c.traffic_class_checks(NCCL, RAILS, {'mlx5_0': {'global': None, 'rules': []}, 'mlx5_1': None})
    assert levels(results) == ['ok', 'not_applicable']
    assert 'inbox mlx5 driver' in results[1]['message']
    rules = c.traffic_class_checks(NCCL, RAILS[:1], {'mlx5_0': parse_traffic_class(
        'Global tclass=106\ndst_ip=192.168.0.0/16,tclass=0\n')})
    assert levels(rules) == ['ok', 'warning']
    assert levels(c.traffic_class_checks(NCCL, RAILS, {})) == ['not_applicable', 'not_applicable']


def _table(ip, index=3):
    hexip = '%02x%02x:%02x%02x' % tuple(int(part) for part in ip.split('.'))
    return [gid_entry(index - 1, '0000:0000:0000:0000:0000:ffff:' + hexip, 'IB/RoCE v1', 'eth1'),
            gid_entry(index, '0000:0000:0000:0000:0000:ffff:' + hexip, 'RoCE v2', 'eth1')]


def test_gid_auto_pinned_and_wrong_pin():
    tables = {'mlx5_0': _table('10.100.0.10'), 'mlx5_1': _table('10.101.0.10', index=5)}
    auto = c.gid_checks(NCCL, RAILS, tables)
    assert levels(auto) == ['ok', 'ok'] and 'index 5' in auto[1]['message']
    pinned = c.gid_checks(dict(NCCL, NCCL_IB_GID_INDEX=3), RAILS, tables)
    assert levels(pinned) == ['ok', 'warning']
    assert 'that is index 5' in pinned[1]['message']


def test_gid_missing_address_and_no_device():
    results = c.gid_checks(NCCL, RAILS, {'mlx5_0': _table('10.100.0.99')})
    assert levels(results) == ['warning', 'not_applicable']
    assert 'no RoCE v2 GID for 10.100.0.10' in results[0]['message']


def test_environment_overrides():
    files = {'/etc/profile.d/nccl.sh': 'export NCCL_IB_TC=96\nexport NCCL_DEBUG=INFO\n',
             '/etc/environment': 'NCCL_IB_HCA="=mlx5_0:1,mlx5_1:1"\nPATH=/usr/bin\n'}
    results = c.environment_overrides(files, NCCL)
    assert len(results) == 1 and '/etc/profile.d/nccl.sh sets NCCL_IB_TC=96' in results[0]['message']


def test_socket_ifname():
    assert levels(c.socket_ifname_check(NCCL, ['eth0', 'ens1f0np0'])) == ['ok']
    assert levels(c.socket_ifname_check(NCCL, ['eth1'])) == ['warning']
    assert levels(c.socket_ifname_check({'NCCL_SOCKET_IFNAME': 'eth'}, ['eth0'])) == ['ok']
    assert c.socket_ifname_check({}, ['eth0']) == []
