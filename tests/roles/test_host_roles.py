# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Role tests: host_rnic, host_gpudirect, host_nccl and host_k8s_network run for real (ansible-playbook, local
connection) against four fake GPU servers - fake sysfs/proc trees plus stub tools that print captured outputs:

  gpu0001  ConnectX with MLNX_OFED (mlnx_qos, ecn sysfs), H100 driver 550 open, nvidia-peermem not loaded
  gpu0002  ConnectX with the inbox driver (iproute2 dcb, debugfs cc_params), no GPU, systemd running
  gpu0003  no RDMA NIC, no GPU (like the lab's containers): everything hardware is "not applicable"
  gpu0004  ConnectX with MLNX_OFED, nvidia-peermem already loaded, systemd running

Sequence: --check --diff on the fresh hosts (nothing may be written), converge, converge again (changed=0),
then the rendered re-apply script after a simulated reboot. Run: pytest tests/roles
"""

import json
import os
import re
import subprocess
import sys

import pytest

from tests.roles import fakehw
from tests.unit.utils.ansible_cli import ansible_cli, ansible_env
from tests.unit.utils.paths import ROOT

pytestmark = pytest.mark.long_module  # converges of the roles on one fake server: started first (tests/conftest.py)

HERE = os.path.dirname(os.path.abspath(__file__))
INTENT = os.path.join(HERE, 'files', 'intent.yml')
PLAYBOOK = os.path.join(HERE, 'files', 'site.yml')
HOSTS = {
    'gpu0001': dict(nic='ofed', gpu={'peermem': 'absent', 'modprobe': 'ok'}),
    'gpu0002': dict(nic='inbox', systemd=True),
    'gpu0003': dict(nic='none'),
    'gpu0004': dict(nic='ofed', gpu={'peermem': 'loaded'}, systemd=True),
}
RECAP = re.compile(r'^(\S+)\s*:\s*ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)', re.M)


def _design():
    sys.path.insert(0, os.path.join(ROOT, '.ansible', 'collections'))
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
    return design_from_file(INTENT)


def _rails(model):
    return [(rail['interface'], rail['rdma_device'], '0000:%02x:00.0' % (0x18 + 0x10 * rail['rail']), rail['ip'])
            for rail in model['rails']]


def run_playbook(inventory, *extra):
    env = ansible_env(ANSIBLE_SHOW_CUSTOM_STATS='1')
    command = ansible_cli('playbook') + ['-i', inventory, PLAYBOOK] + list(extra)
    proc = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False)
    recap = {match.group(1): {'ok': int(match.group(2)), 'changed': int(match.group(3)),
                              'unreachable': int(match.group(4)), 'failed': int(match.group(5))}
             for match in RECAP.finditer(proc.stdout)}
    return proc, recap


@pytest.fixture(scope='module')
def fleet(tmp_path_factory):
    base = tmp_path_factory.mktemp('fleet')
    design = _design()
    inventory = {'all': {'children': {'gpu_servers': {'hosts': {}}}}}
    roots = {}
    for name, options in HOSTS.items():
        root = str(base / name)
        fakehw.build_host(root, _rails(design.device(name)), **options)
        roots[name] = root
        inventory['all']['children']['gpu_servers']['hosts'][name] = {
            'ansible_connection': 'local', 'ansible_python_interpreter': sys.executable,
            'aifabric_intent': INTENT, 'fakehw_root': root, 'fakehw_k8s_dir': str(base / 'k8s')}
    path = str(base / 'inventory.json')
    with open(path, 'w', encoding='utf-8') as handle:
        json.dump(inventory, handle)
    before = {name: fakehw.snapshot(root) for name, root in roots.items()}
    check = run_playbook(path, '--check', '--diff')
    after_check = {name: fakehw.snapshot(root) for name, root in roots.items()}
    calls_after_check = {name: len(fakehw.calls(root)) for name, root in roots.items()}
    k8s_after_check = os.path.exists(str(base / 'k8s'))
    first = run_playbook(path, '--diff')
    results_first = {name: json.loads(fakehw.read(root, '/fakehw/result.json')) for name, root in roots.items()}
    calls_after_first = {name: len(fakehw.calls(root)) for name, root in roots.items()}
    toggles_first = {name: fakehw.state(root)['link_toggles'] for name, root in roots.items()}
    second = run_playbook(path)
    results_second = {name: json.loads(fakehw.read(root, '/fakehw/result.json')) for name, root in roots.items()}
    return {'base': base, 'design': design, 'roots': roots, 'inventory': path, 'before': before,
            'after_check': after_check, 'check': check, 'first': first, 'second': second,
            'results_first': results_first, 'results_second': results_second,
            'calls_after_check': calls_after_check, 'calls_after_first': calls_after_first,
            'toggles_first': toggles_first, 'k8s_after_check': k8s_after_check}


def window(fleet, name):
    """Tool calls of the first converge on one host."""
    calls = [' '.join(call) for call in fakehw.calls(fleet['roots'][name])]
    return calls[fleet['calls_after_check'][name]:fleet['calls_after_first'][name]]


def _ok(run):
    proc, recap = run
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
    assert set(recap) == set(HOSTS), proc.stdout[-3000:]
    return recap


# ------------------------------------------------------------------------------------------- check mode

def test_check_mode_writes_nothing_and_reports_changes(fleet):
    recap = _ok(fleet['check'])
    for name in HOSTS:
        assert fleet['after_check'][name] == fleet['before'][name], 'check mode changed files on %s' % name
        assert recap[name]['changed'] > 0
    assert not fleet['k8s_after_check'], 'check mode wrote the k8s manifests'
    stdout = fleet['check'][0].stdout
    assert '+NCCL_IB_HCA==mlx5_0:1,mlx5_1:1' in stdout          # --diff of nccl.conf
    assert 'trust: dscp' in stdout and 'pfc: 00010000' in stdout  # --diff of rnic_qos
    assert 'would change: trust pcp -> dscp' in stdout
    assert 'gpudirect would_load' in stdout


def test_check_mode_runs_only_read_commands(fleet):
    for name, root in fleet['roots'].items():
        commands = [' '.join(call) for call in fakehw.calls(root)][:fleet['calls_after_check'][name]]
        writes = [command for command in commands
                  if re.match(r'^(mlnx_qos .*--(trust|pfc|dscp2prio|cable_len)|dcb (pfc|app) (set|replace|add)|ethtool -A|'
                              r'modprobe|systemctl enable|ip link set)', command)]
        assert writes == [], '%s: check mode ran %s' % (name, writes)


# ------------------------------------------------------------------------------------------- converge

def test_converge_mlnx_ofed_host(fleet):
    _ok(fleet['first'])
    root = fleet['roots']['gpu0001']
    commands = window(fleet, 'gpu0001')
    setters = [command for command in commands if command.startswith(('mlnx_qos -i ens1f0np0 --', 'ethtool -A', 'modprobe'))]
    # The switches' whole map (26 -> 3, 48 -> 7, every other DSCP -> 0) over the default --trust dscp installs:
    # every DSCP whose default priority (DSCP >> 3) differs, in one call.
    switch_map = {dscp: 3 if dscp == 26 else 7 if dscp == 48 else 0 for dscp in range(64)}
    dscp_call = 'mlnx_qos -i ens1f0np0 ' + ' '.join(
        '--dscp2prio set,%d,%d' % (dscp, prio) for dscp, prio in switch_map.items() if dscp >> 3 != prio)
    assert setters == [
        # trust, the final PFC mask and the NIC's headroom cable length (mlx5: 7 m -> the 10 m cable) in one call
        'mlnx_qos -i ens1f0np0 --trust dscp --pfc 0,0,0,1,0,0,0,0 --cable_len 10',
        dscp_call,                                                    # the DSCP map, separately
        'ethtool -A ens1f0np0 rx off tx off',
        'ethtool -A ens2f0np0 rx off tx off',
        'modprobe nvidia-peermem',
    ]
    assert fleet['toggles_first']['gpu0001'] == 2  # one link toggle per NIC, not two
    for netdev in ('ens1f0np0', 'ens2f0np0'):
        qos = fakehw.state(root)['netdevs'][netdev]['qos']
        assert qos['pfc'] == [0, 0, 0, 1, 0, 0, 0, 0] and qos['cable_len'] == 10
        assert qos['dscp2prio'] == {str(dscp): prio for dscp, prio in switch_map.items()}
        for side in ('roce_rp', 'roce_np'):
            assert fakehw.read(root, '/sys/class/net/%s/ecn/%s/enable/3' % (netdev, side)) == '1'
            assert fakehw.read(root, '/sys/class/net/%s/ecn/%s/enable/4' % (netdev, side)) == '0\n'
        assert fakehw.read(root, '/sys/class/net/%s/ecn/roce_np/cnp_802p_prio' % netdev) == '7'
    assert fakehw.read(root, '/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos') == '106'
    assert fakehw.read(root, '/etc/nccl.conf').splitlines()[-4:] == [
        'NCCL_IB_HCA==mlx5_0:1,mlx5_1:1', 'NCCL_IB_TC=106', 'NCCL_SOCKET_IFNAME==eth0', 'NCCL_IB_QPS_PER_CONNECTION=4']
    assert fakehw.read(root, '/etc/modules-load.d/aifabric-nvidia-peermem.conf').splitlines()[-1] == 'nvidia-peermem'
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_model
    rendered = render_model(fleet['design'].device('gpu0001'))
    script = fakehw.read(root, '/usr/local/sbin/aifabric-rnic-qos')
    assert script == rendered['rnic/aifabric-rnic-qos']  # the role installs the rendered file, not its own copy
    assert 'PFC_MASK=0,0,0,1,0,0,0,0' in script and ' 24:0 ' in script and ' 48:7 ' in script
    assert os.access(os.path.join(root, 'usr/local/sbin/aifabric-rnic-qos'), os.X_OK)
    result = fleet['results_first']['gpu0001']
    assert result['gpudirect']['status'] == 'loaded'
    assert all(check['ok'] for check in result['gpudirect']['checks'])
    assert any('enabling the re-apply unit: not applicable: systemd is not running' in line
               for line in result['rnic_summary'])


def test_converge_inbox_host_uses_dcb_and_enables_units(fleet):
    root = fleet['roots']['gpu0002']
    commands = window(fleet, 'gpu0002')
    # the PFC mask and the cable length (the IEEE PFC delay mlx5 reads as metres) in one set: one link toggle
    assert [command for command in commands if command.startswith('dcb pfc set dev ens1f0np0')] == [
        'dcb pfc set dev ens1f0np0 prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off delay 10']
    assert fakehw.state(root)['netdevs']['ens1f0np0']['qos']['cable_len'] == 10
    replace = [command for command in commands if command.startswith('dcb app replace dev ens1f0np0')]
    assert len(replace) == 1 and ' 26:3 ' in replace[0] and ' 48:7 ' in replace[0] and ' 24:0 ' in replace[0]
    assert 'systemctl enable aifabric-rnic-qos@ens1f0np0.service' in [c.replace("'", '') for c in commands]
    state = fakehw.state(root)
    assert state['systemd'] == {'aifabric-rnic-qos@ens1f0np0.service': 'enabled',
                                'aifabric-rnic-qos@ens2f0np0.service': 'enabled'}
    assert fakehw.read(root, '/sys/kernel/debug/mlx5/0000:18:00.0/cc_params/np_cnp_prio') == '7'
    result = fleet['results_first']['gpu0002']
    summary = ' '.join(result['rnic_summary'])
    assert 'ecn_rp, ecn_np not applicable: the inbox mlx5 driver has no per-priority DCQCN switch' in summary
    assert result['gpudirect']['status'] == 'not_applicable'
    assert 'no NVIDIA GPU driver' in result['gpudirect']['reason']
    assert not os.path.exists(os.path.join(root, 'etc/modules-load.d/aifabric-nvidia-peermem.conf'))


def test_host_without_hardware_reports_not_applicable_and_writes_files(fleet):
    root = fleet['roots']['gpu0003']
    result = fleet['results_first']['gpu0003']
    assert result['rnic']['not_applicable'] == {
        'ens1f0np0': 'not applicable: ens1f0np0 has no RDMA device (driver virtual/none); RoCE QoS needs an NVIDIA '
                     'ConnectX (mlx5) RDMA NIC',
        'ens2f0np0': 'not applicable: ens2f0np0 has no RDMA device (driver virtual/none); RoCE QoS needs an NVIDIA '
                     'ConnectX (mlx5) RDMA NIC'}
    assert result['gpudirect']['status'] == 'not_applicable'
    assert any(line.startswith('not_applicable: not applicable: no RDMA device mlx5_0') for line in result['nccl']['summary'])
    # What can run, ran: the files are there.
    assert 'NCCL_IB_TC=106' in fakehw.read(root, '/etc/nccl.conf')
    assert 'apply ens1f0np0 mlx5_0 10' in fakehw.read(root, '/usr/local/sbin/aifabric-rnic-qos')
    assert 'BindsTo=sys-subsystem-net-devices-%i.device' in fakehw.read(root, '/etc/systemd/system/aifabric-rnic-qos@.service')
    assert [call for call in fakehw.calls(root) if call[0] in ('mlnx_qos', 'dcb', 'modprobe')] == []
    stdout = fleet['first'][0].stdout
    assert 'ens1f0np0: not applicable: ens1f0np0 has no RDMA device' in stdout


def test_converge_verifies_loaded_peermem_and_warns_on_nothing(fleet):
    result = fleet['results_first']['gpu0004']
    assert result['gpudirect']['status'] == 'verified'
    assert [check['check'] for check in result['gpudirect']['checks']] == [
        'sysfs version match', 'registered with ib_core', 'ib_core used by nvidia_peermem', 'PeerDirect API in ib_core']
    assert 'modprobe' not in [call[0] for call in fakehw.calls(fleet['roots']['gpu0004'])]


def test_k8s_manifests_written_once_per_fabric(fleet):
    directory = os.path.join(str(fleet['base']), 'k8s')
    assert sorted(os.listdir(directory)) == [
        'roletest-rail0.network-attachment-definition.yaml', 'roletest-rail0.sriov-network-node-policy.yaml',
        'roletest-rail1.network-attachment-definition.yaml', 'roletest-rail1.sriov-network-node-policy.yaml']
    summary = fleet['results_first']['gpu0003']['k8s']
    assert 'ens1f0np0: not applicable: no sriov_totalvfs (not an SR-IOV capable PCI function)' in summary


# ------------------------------------------------------------------------------------------- idempotence

def test_second_converge_changes_nothing(fleet):
    recap = _ok(fleet['second'])
    assert {name: counts['changed'] for name, counts in recap.items()} == {name: 0 for name in HOSTS}, \
        fleet['second'][0].stdout[-5000:]
    for name, root in fleet['roots'].items():
        commands = [' '.join(call) for call in fakehw.calls(root)][fleet['calls_after_first'][name]:]
        setters = [command for command in commands
                   if re.match(r'^(mlnx_qos .*--|dcb (pfc|app) (set|replace)|ethtool -A|modprobe|systemctl enable)',
                               command)]
        assert setters == [], '%s: second run issued %s' % (name, setters)
        assert fakehw.state(root)['link_toggles'] == fleet['toggles_first'][name]
    for name in ('gpu0001', 'gpu0002', 'gpu0004'):
        result = fleet['results_second'][name]
        assert all(item['status'] == 'ok' for item in result['rnic']['interfaces'].values())
    assert fleet['results_second']['gpu0001']['gpudirect']['status'] == 'verified'


# ------------------------------------------------------------------------------------------- re-apply unit content

def _reboot(root):
    """What a reboot or driver reload does to the runtime state: QoS, ECN, pause, RDMA-CM ToS back to defaults."""
    state = fakehw.state(root)
    for nic in state['netdevs'].values():
        if nic.get('qos'):
            nic['qos'] = {'pfc': [0] * 8, 'dscp2prio': {}}
            nic['pause'] = {'rx': True, 'tx': True}
    with open(os.path.join(root, 'fakehw', 'state.json'), 'w', encoding='utf-8') as handle:
        json.dump(state, handle)
    for netdev in state['netdevs']:
        for side in ('roce_rp', 'roce_np'):
            path = os.path.join(root, 'sys/class/net/%s/ecn/%s/enable/3' % (netdev, side))
            if os.path.exists(path):
                with open(path, 'w', encoding='utf-8') as handle:
                    handle.write('0\n')
    for dev in ('mlx5_0', 'mlx5_1'):
        with open(os.path.join(root, 'sys/kernel/config/rdma_cm/%s/ports/1/default_roce_tos' % dev), 'w',
                  encoding='utf-8') as handle:
            handle.write('0\n')


def _run_script(root):
    env = {'AIFABRIC_SYSFS': os.path.join(root, 'sys'), 'AIFABRIC_WAIT_SECONDS': '1',
           'AIFABRIC_PATH': os.path.join(root, 'fakebin') + ':/usr/bin:/bin', 'PATH': '/usr/bin:/bin'}
    return subprocess.run(check=False, args=['/bin/bash', os.path.join(root, 'usr/local/sbin/aifabric-rnic-qos')], env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize('name', ['gpu0001', 'gpu0002'])
def test_reapply_script_restores_settings_after_reboot(fleet, name):
    root = fleet['roots'][name]
    _reboot(root)
    toggles = fakehw.state(root)['link_toggles']
    proc = _run_script(root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    state = fakehw.state(root)
    for netdev in ('ens1f0np0', 'ens2f0np0'):
        assert state['netdevs'][netdev]['qos']['pfc'] == [0, 0, 0, 1, 0, 0, 0, 0]
        assert state['netdevs'][netdev]['qos']['dscp2prio']['48'] == 7
        assert state['netdevs'][netdev]['qos']['dscp2prio']['24'] == 0
        assert state['netdevs'][netdev]['pause'] == {'rx': False, 'tx': False}
        assert state['netdevs'][netdev]['qos']['cable_len'] == 10  # back from mlx5's 7 m to the 10 m cable
    assert state['link_toggles'] == toggles + 2
    assert fakehw.read(root, '/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos') == '106\n'
    if name == 'gpu0001':
        assert fakehw.read(root, '/sys/class/net/ens1f0np0/ecn/roce_np/enable/3') == '1\n'
    # The same values the role applies: a role run now finds nothing to change.
    again = _run_script(root)
    assert again.returncode == 0 and again.stdout == '', again.stdout
    assert fakehw.state(root)['link_toggles'] == toggles + 2


def test_reapply_script_on_host_without_rdma_is_not_applicable(fleet):
    proc = _run_script(fleet['roots']['gpu0003'])
    assert proc.returncode == 0
    assert proc.stdout.splitlines() == [
        'aifabric-rnic-qos: ens1f0np0: not applicable: driver none, no mlx5 RDMA device',
        'aifabric-rnic-qos: ens2f0np0: not applicable: driver none, no mlx5 RDMA device']


def test_reapply_script_says_a_nic_without_a_cable_length_keeps_its_own(fleet):
    """mlx5 reports a cable length of 0 when its firmware owns the port buffer: the script sets nothing there and
    says so, and still sets the other NIC (runs last: it changes gpu0004's fake NICs)."""
    root = fleet['roots']['gpu0004']
    fakehw.update_nic(root, 'ens1f0np0', port_buffer=False)
    fakehw.update_nic(root, 'ens2f0np0', cable_len=7)
    proc = _run_script(root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert 'aifabric-rnic-qos: ens1f0np0: cable length: not applicable: the NIC reports none (firmware-managed receive ' \
           'buffer)' in proc.stderr
    assert [call for call in fakehw.calls(root) if call[0] == 'mlnx_qos' and '--cable_len' in call][-1] == [
        'mlnx_qos', '-i', 'ens2f0np0', '--cable_len', '10']
    assert fakehw.state(root)['netdevs']['ens2f0np0']['qos']['cable_len'] == 10
