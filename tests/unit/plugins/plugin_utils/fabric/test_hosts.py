# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""hosts.py: the GPU server files rendered from the host model (golden files for the lab intent), NCCL values
derived from the same lossless profile as the switches, the re-apply script and unit, Kubernetes manifests."""

import copy
import json
import os
import shutil
import subprocess

import pytest
import yaml

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import (
    design_from_file, design_from_intent, traffic_class_byte)
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_fabric, render_model
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import hosts
from tests.unit.utils.golden import assert_golden
from tests.unit.utils.paths import ROOT

LAB = os.path.join(ROOT, 'fabrics', 'lab.yml')

BASE = {
    'name': 'hosttest',
    'topology': {'rail_optimized': {'servers': 4, 'rails': 4, 'nic_speed_gbps': 400, 'leaf_radix': 8},
                 'platform': {'leaf': 'frr', 'spine': 'frr', 'super_spine': 'frr'}},
    'overlay': {'networks': [{'name': 'rail%d' % rail, 'vlan': 100 + rail, 'subnet': '10.%d.0.0/24' % (100 + rail),
                              'rails': [rail]} for rail in range(4)]},
    'hosts': {'rail_interfaces': ['ens1f0np0', 'ens2f0np0', 'ens3f0np0', 'ens4f0np0'],
              'rdma_devices': ['mlx5_0', 'mlx5_3', 'mlx5_4', 'mlx5_7'], 'bootstrap_interface': 'bond0'},
}


def design(**changes):
    intent = copy.deepcopy(BASE)
    for key, value in changes.items():
        section, _unused, name = key.partition('__')
        intent.setdefault(section, {})[name] = value
    return design_from_intent(intent)


@pytest.fixture(scope='module')
def lab():
    return design_from_file(LAB)


def test_lab_host_files_golden(lab):
    files = render_model(lab.device('gpu0001'))
    assert sorted(files) == [
        'gpudirect/aifabric-nvidia-peermem.conf', 'host.json',
        'nccl.conf', 'rnic/aifabric-rnic-qos', 'rnic/aifabric-rnic-qos@.service']
    for name, content in files.items():
        assert_golden('hosts/lab/gpu0001/%s' % name, content)


def test_lab_fabric_kubernetes_files_golden(lab):
    files = render_fabric(lab)
    assert sorted(files) == [
        'k8s/lab-rail0.network-attachment-definition.yaml', 'k8s/lab-rail0.sriov-network-node-policy.yaml',
        'k8s/lab-rail1.network-attachment-definition.yaml', 'k8s/lab-rail1.sriov-network-node-policy.yaml']
    for name, content in files.items():
        assert_golden('hosts/lab/%s' % name, content)


def test_nccl_conf_lines_are_exactly_what_nccl_reads(lab):
    model = lab.device('gpu0002')
    lines = [line for line in render_model(model)['nccl.conf'].splitlines() if line and not line.startswith('#')]
    assert lines == ['NCCL_IB_HCA==mlx5_0:1,mlx5_1:1', 'NCCL_IB_TC=106', 'NCCL_SOCKET_IFNAME==eth0',
                     'NCCL_IB_QPS_PER_CONNECTION=4']
    for line in lines:  # NCCL splits at the first '=' and keeps the rest verbatim
        key, value = line.split('=', 1)
        assert str(model['nccl'][key]) == value and value == value.strip() and '"' not in value


def test_nccl_hca_exact_list_in_rail_order_and_tc_from_the_switch_profile():
    fabric = design()
    model = fabric.device('gpu0003')
    assert model['nccl']['NCCL_IB_HCA'] == '=mlx5_0:1,mlx5_3:1,mlx5_4:1,mlx5_7:1'
    assert [rail['rdma_device'] for rail in model['rails']] == ['mlx5_0', 'mlx5_3', 'mlx5_4', 'mlx5_7']
    assert model['nccl']['NCCL_SOCKET_IFNAME'] == '=bond0'
    assert 'NCCL_IB_GID_INDEX' not in model['nccl']
    tc = model['nccl']['NCCL_IB_TC']
    assert tc == traffic_class_byte(model['rnic']['roce_dscp']) == 106
    # The switches (every lossless switch model carries this profile as 'qos') put the DSCP NCCL sends
    # (TC >> 2) into the lossless class the NIC has PFC on.
    profile = fabric.lossless
    assert profile['dscp_to_tc'][tc >> 2] == model['rnic']['roce_priority'] == 3
    assert model['rnic']['pfc_mask'][profile['dscp_to_tc'][tc >> 2]] == 1
    assert profile['pfc_mask'] == model['rnic']['pfc_mask']
    assert hosts.dscp_map(model['rnic'])[tc >> 2] == model['rnic']['roce_priority']


def test_nccl_pinned_gid_and_extras():
    model = design(hosts__nccl={'gid_index': 3, 'qps_per_connection': 4, 'extra': {'NCCL_IB_TIMEOUT': 22}}).device('gpu0001')
    conf = render_model(model)['nccl.conf']
    assert 'NCCL_IB_GID_INDEX=3\n' in conf and 'NCCL_IB_QPS_PER_CONNECTION=4\n' in conf
    assert 'NCCL_IB_TIMEOUT=22\n' in conf
    assert 'pinned by the intent' in conf


@pytest.mark.parametrize('extra, message', [
    ({'nccl_debug': 'INFO'}, 'NCCL reads only NCCL_'),
    ({'NCCL_DEBUG': 'INFO\nNCCL_IB_TC=0'}, 'no newlines'),
    ({'NCCL_DEBUG': '"INFO"'}, 'quotes'),
    ({'NCCL_DEBUG': ' INFO'}, 'surrounding spaces'),
])
def test_nccl_values_nccl_would_misread_are_refused(extra, message):
    with pytest.raises(ValueError, match=message):
        hosts.nccl_lines(extra)


def test_reapply_script_carries_the_same_values(lab):
    model = lab.device('gpu0003')
    script = render_model(model)['rnic/aifabric-rnic-qos']
    rnic = model['rnic']
    assert 'PFC_MASK=%s\n' % ','.join(map(str, rnic['pfc_mask'])) in script
    assert 'ROCE_TOS=%d\n' % rnic['traffic_class'] in script and 'CNP_DSCP=%d\n' % rnic['cnp_dscp'] in script
    assert 'MTU=%d\n' % rnic['mtu'] in script
    for rail in model['rails']:
        # the rail's cable to its leaf: the NIC sizes its receive headroom from it (mlnx_qos --cable_len)
        line = '    %s) apply %s %s %d ;;' % (rail['interface'], rail['interface'], rail['rdma_device'],
                                              rail['cable_length_m'])
        assert line in script
    override = design(lossless__cnp_priority=7).device('gpu0001')
    script = render_model(override)['rnic/aifabric-rnic-qos']
    mapping = override['rnic']['dscp_to_priority']
    assert 'DSCP_MAP="%s"\n' % ' '.join('%d:%d' % (dscp, mapping[dscp]) for dscp in range(64)) in script
    assert ' 48:7 ' in script and ' 24:0 ' in script


@pytest.mark.parametrize('nic', ['ofed', 'inbox'])
def test_reapply_script_pushes_the_whole_switch_map_and_then_nothing(tmp_path, nic):
    """On NICs that trust DSCP with their default map (DSCP >> 3), the script leaves every one of the 64 DSCPs on
    the switches' priority; a second run changes nothing."""
    from tests.roles import fakehw
    model = design().device('gpu0001')
    rails = [(rail['interface'], rail['rdma_device'], '0000:%02x:00.0' % (0x18 + index), rail['ip'])
             for index, rail in enumerate(model['rails'])]
    root = str(tmp_path / 'host')
    bindir = fakehw.build_host(root, rails, nic=nic, qos={'trust': 'dscp', 'pfc': [0, 0, 0, 1, 0, 0, 0, 0]})
    script = tmp_path / 'aifabric-rnic-qos'
    script.write_text(render_model(model)['rnic/aifabric-rnic-qos'])
    env = {'AIFABRIC_SYSFS': os.path.join(root, 'sys'), 'AIFABRIC_WAIT_SECONDS': '1',
           'AIFABRIC_PATH': bindir + ':/usr/bin:/bin', 'PATH': '/usr/bin:/bin'}
    run = subprocess.run(check=False, args=['bash', str(script)], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    wanted = {str(dscp): prio for dscp, prio in model['rnic']['dscp_to_priority'].items()}
    for netdev, _rdma, _pci, _ip in rails:
        assert fakehw.state(root)['netdevs'][netdev]['qos']['dscp2prio'] == wanted
    assert 'DSCP map written' in run.stdout
    writes = len(fakehw.calls(root))
    again = subprocess.run(check=False, args=['bash', str(script)], env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and again.stdout == '', again.stdout
    assert not [call for call in fakehw.calls(root)[writes:] if '--dscp2prio' in call or call[1:3] == ['app', 'replace']]


def test_reapply_script_waits_only_for_an_rdma_device_that_can_come(tmp_path):
    """At boot it waits for a rail's netdev and its mlx5 RDMA device; a netdev of another driver (a VM's or a lab's
    veth) never gets one and is "not applicable" at once, an mlx5 netdev without its RDMA device yet is waited for."""
    from tests.roles import fakehw
    model = design().device('gpu0001')
    rails = [(rail['interface'], rail['rdma_device'], '0000:%02x:00.0' % (0x18 + index), rail['ip'])
             for index, rail in enumerate(model['rails'])]
    script = tmp_path / 'aifabric-rnic-qos'
    script.write_text(render_model(model)['rnic/aifabric-rnic-qos'])
    stubs = tmp_path / 'stubs'
    stubs.mkdir()
    (stubs / 'sleep').write_text('#!/bin/sh\necho "$1" >> "%s"\n' % (tmp_path / 'slept'))
    (stubs / 'sleep').chmod(0o755)

    def run(root):
        (tmp_path / 'slept').write_text('')
        env = {'AIFABRIC_SYSFS': os.path.join(root, 'sys'), 'AIFABRIC_WAIT_SECONDS': '5',
               'AIFABRIC_PATH': '%s:%s:/usr/bin:/bin' % (stubs, os.path.join(root, 'fakebin')), 'PATH': '/usr/bin:/bin'}
        proc = subprocess.run(check=False, args=['bash', str(script)], env=env, capture_output=True, text=True, timeout=60)
        return proc, len((tmp_path / 'slept').read_text().split())

    veth = str(tmp_path / 'veth')
    fakehw.build_host(veth, rails, nic='none')
    proc, slept = run(veth)
    assert proc.returncode == 0 and proc.stdout.count('not applicable: driver none') == len(rails), proc.stdout
    assert slept == 0
    late = str(tmp_path / 'late')
    fakehw.build_host(late, rails, nic='inbox')
    shutil.rmtree(os.path.join(late, 'sys', 'class', 'infiniband', rails[0][1]))
    proc, slept = run(late)
    assert slept == 5, 'waited the whole AIFABRIC_WAIT_SECONDS for the first rail\'s RDMA device, then went on'


def test_reapply_script_is_valid_bash(tmp_path, lab):
    path = tmp_path / 'aifabric-rnic-qos'
    path.write_text(render_model(lab.device('gpu0001'))['rnic/aifabric-rnic-qos'])
    proc = subprocess.run(check=False, args=['bash', '-n', str(path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    if shutil.which('shellcheck'):
        proc = subprocess.run(check=False, args=['shellcheck', '-S', 'warning', str(path)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout
    proc = subprocess.run(check=False, args=['bash', str(path), 'eth9'], capture_output=True, text=True,
                          env={'AIFABRIC_SYSFS': str(tmp_path), 'PATH': '/usr/bin:/bin'})
    assert proc.returncode == 2 and 'eth9 is not a rail NIC of gpu0001 (eth1, eth2)' in proc.stdout


def test_reapply_unit(tmp_path, lab):
    unit = render_model(lab.device('gpu0001'))['rnic/aifabric-rnic-qos@.service']
    sections = {}
    current = None
    for line in unit.splitlines():
        if line.startswith('[') and line.endswith(']'):
            current = sections.setdefault(line[1:-1], {})
        elif '=' in line and current is not None and not line.startswith('#'):
            key, value = line.split('=', 1)
            current.setdefault(key, []).append(value)
    assert sections['Unit']['BindsTo'] == ['sys-subsystem-net-devices-%i.device']
    assert 'sys-subsystem-net-devices-%i.device' in sections['Unit']['After'][0].split()
    assert sections['Service'] == {'Type': ['oneshot'], 'RemainAfterExit': ['yes'],
                                   'ExecStart': ['/usr/local/sbin/aifabric-rnic-qos %I']}
    assert sections['Install'] == {'WantedBy': ['sys-subsystem-net-devices-%i.device']}
    if shutil.which('systemd-analyze'):
        path = tmp_path / 'aifabric-rnic-qos@.service'
        path.write_text(unit)
        proc = subprocess.run(check=False, args=['systemd-analyze', 'verify', '--man=no', str(path)], capture_output=True, text=True,
                              timeout=60)
        problems = [line for line in (proc.stdout + proc.stderr).splitlines()
                    if line.strip() and 'is not executable' not in line]
        assert problems == []


def test_peermem_file_only_for_peermem():
    assert 'gpudirect/aifabric-nvidia-peermem.conf' not in render_model(design(hosts__gpudirect='dmabuf').device('gpu0001'))
    conf = render_model(design().device('gpu0001'))['gpudirect/aifabric-nvidia-peermem.conf']
    assert [line for line in conf.splitlines() if not line.startswith('#')] == ['nvidia-peermem']


def test_host_json_is_the_model(lab):
    model = lab.device('gpu0004')
    assert json.loads(render_model(model)['host.json']) == json.loads(json.dumps(model))


def test_k8s_sriov_manifests_match_the_rails():
    fabric = design()
    files = render_fabric(fabric)
    nad = yaml.safe_load(files['k8s/hosttest-rail1.network-attachment-definition.yaml'])
    config = json.loads(nad['spec']['config'])
    assert nad['metadata']['annotations']['k8s.v1.cni.cncf.io/resourceName'] == 'nvidia.com/rail1'
    assert config['type'] == 'sriov' and config['ipam'] == {
        'type': 'whereabouts', 'range': '10.101.0.0/24', 'range_start': '10.101.0.128', 'range_end': '10.101.0.254'}
    policy = yaml.safe_load(files['k8s/hosttest-rail1.sriov-network-node-policy.yaml'])
    assert policy['spec']['nicSelector']['pfNames'] == ['ens2f0np0'] and policy['spec']['isRdma'] is True
    assert policy['spec']['mtu'] == 9000 and policy['spec']['numVfs'] == 8
    # Pod addresses never collide with host addresses of the rail.
    host_ips = {rail['ip'] for name in fabric.device_names('host') for rail in fabric.device(name)['rails']}
    assert not any(ip.startswith('10.101.0.') and int(ip.split('.')[-1]) >= 128 for ip in host_ips)
    # The manifests belong to the fabric: one set, shared by every server's model, none in per-server files.
    assert fabric.device('gpu0002')['kubernetes'] is fabric.device('gpu0004')['kubernetes']
    assert not any(name.startswith('k8s/') for name in render_model(fabric.device('gpu0002')))


def test_k8s_operator_and_macvlan_modes():
    operator = render_fabric(design(hosts__kubernetes={'mode': 'sriov_operator', 'namespace': 'training'}))
    kinds = sorted(name.split('.')[1] for name in operator if name.startswith('k8s/hosttest-rail0'))
    assert kinds == ['sriov-network', 'sriov-network-node-policy']
    network = yaml.safe_load(operator['k8s/hosttest-rail0.sriov-network.yaml'])
    assert network['spec']['networkNamespace'] == 'training'
    assert json.loads(network['spec']['ipam'])['range_start'] == '10.100.0.128'
    macvlan = render_fabric(design(hosts__kubernetes={'mode': 'macvlan'}))
    nad = yaml.safe_load(macvlan['k8s/hosttest-rail2.network-attachment-definition.yaml'])
    config = json.loads(nad['spec']['config'])
    assert config['type'] == 'macvlan' and config['master'] == 'ens3f0np0' and config['mtu'] == 9000
    plugin = yaml.safe_load(macvlan['k8s/hosttest-rdma-shared-device-plugin.configmap.yaml'])
    assert json.loads(plugin['data']['config.json'])['configList'][2]['selectors'] == {'ifNames': ['ens3f0np0']}
    assert not any('sriov' in name for name in macvlan)


def test_k8s_not_rendered_for_routed_rails():
    routed = design(hosts__attachment='routed')
    model = routed.device('gpu0001')
    assert model['kubernetes']['enabled'] is False and 'routed /31' in model['kubernetes']['reason']
    assert render_fabric(routed) == {}


def test_k8s_gateway_inside_pod_range_is_excluded():
    intent = copy.deepcopy(BASE)
    intent['overlay']['vrfs'] = [{'name': 'training', 'l3vni': 50000}]
    for network in intent['overlay']['networks']:
        network['vrf'] = 'training'
        network['gateway'] = network['subnet'].replace('0.0/24', '0.200')
    fabric = design_from_intent(intent)
    net = fabric.device('gpu0001')['kubernetes']['networks'][0]
    assert net['exclude'] == ['10.100.0.200/32'] and net['routes']
    config = json.loads(yaml.safe_load(render_fabric(fabric)['k8s/hosttest-rail0.network-attachment-definition.yaml'])
                        ['spec']['config'])
    assert config['ipam']['exclude'] == ['10.100.0.200/32']
    assert {'dst': '10.101.0.0/24', 'gw': '10.100.0.200'} in config['ipam']['routes']
