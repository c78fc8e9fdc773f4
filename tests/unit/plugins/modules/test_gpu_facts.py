# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""aifabric.fabric.gpu_facts on fake hosts."""

from tests.roles import fakehw
from tests.roles.fakehw.runner import run_module

from ansible_collections.aifabric.fabric.plugins.modules import gpu_facts

RAILS = [('ens1f0np0', 'mlx5_0', '0000:18:00.0', '10.100.0.10'), ('ens2f0np0', 'mlx5_1', '0000:2a:00.0', '10.101.0.10')]


def facts(root, bindir, **changes):
    values = dict(root=root, bin_path=[bindir])
    values.update(changes)
    result = run_module(gpu_facts.main, values, check_mode=True)
    return result, result['ansible_facts']['aifabric_gpu']


def test_h100_host(tmp_path):
    root = str(tmp_path / 'h')
    bindir = fakehw.build_host(root, RAILS, nic='ofed', gpu={'peermem': 'loaded'})
    result, data = facts(root, bindir, rdma_devices=['mlx5_%d' % i for i in range(8)])
    assert result['changed'] is False and data['errors'] == [] and data['not_applicable'] is None
    assert data['driver'] == {'loaded': True, 'version': '550.54.15', 'flavor': 'open'}
    assert len(data['gpus']) == 8 and data['gpus'][0]['name'] == 'NVIDIA H100 80GB HBM3'
    assert data['affinity']['GPU3'] == {'nics': ['mlx5_3'], 'path': 'PIX', 'nccl_path': 'PIX', 'numa': 0,
                                        'gdr_capable': True}
    assert data['affinity_problems'] == []
    peermem = data['gpudirect']['peermem']
    assert peermem['peermem_loaded'] and peermem['peermem_version'] == '550.54.15' and peermem['peer_api'] is True
    assert all(check['ok'] for check in data['gpudirect']['checks'])
    assert data['gpudirect']['dmabuf']['capable'] is True
    assert data['p2p']['iommu']['mode'] == 'passthrough' and data['p2p']['acs_problems'] == []


def test_affinity_against_two_rails_lists_problems(tmp_path):
    root = str(tmp_path / 'h')
    bindir = fakehw.build_host(root, RAILS, nic='ofed', gpu={'topo': 'nvidia_smi/topo_l40s_pcie.txt'})
    _unused, data = facts(root, bindir, rdma_devices=['mlx5_0', 'mlx5_1'], check_p2p=False)
    assert len(data['affinity_problems']) == 2 and data['p2p'] is None
    assert data['gpudirect']['peermem']['peermem_loaded'] is False and data['gpudirect']['checks'] == []


def test_no_driver_is_not_applicable(tmp_path):
    root = str(tmp_path / 'h')
    bindir = fakehw.build_host(root, RAILS, nic='none')
    _unused, data = facts(root, bindir)
    assert data['not_applicable'] == ('not applicable: no NVIDIA GPU driver on this host (/sys/module/nvidia is '
                                      'absent, nvidia-smi is not installed)')
    assert data['gpudirect'] is None and data['errors'] == []


def test_nvidia_smi_failure_is_explained_not_a_traceback(tmp_path):
    root = str(tmp_path / 'h')
    # nvidia-smi exits non-zero with the message on stdout (query) or prints a non-matrix text (topo).
    bindir = fakehw.build_host(root, RAILS, nic='ofed', gpu={
        'query': {'stdout': 'nvidia_smi/version_mismatch.txt', 'rc': 18}, 'topo': 'nvidia_smi/no_devices.txt'})
    result, data = facts(root, bindir)
    assert data['errors'][0].startswith('nvidia-smi --query-gpu failed (rc 18): driver/library version mismatch')
    assert data['errors'][1].startswith("nvidia-smi topo -m: header must start with 'GPU0'")
    strict = run_module(gpu_facts.main, dict(root=root, bin_path=[bindir], strict=True))
    assert strict['failed'] and 'version mismatch' in strict['msg']
