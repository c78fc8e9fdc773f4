# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""aifabric.fabric.gpudirect on fake hosts: load, verify, the failure modes of nvidia-peermem, DMA-BUF, P2P."""

import os

import pytest

from tests.roles import fakehw
from tests.roles.fakehw.runner import run_module

from ansible_collections.aifabric.fabric.plugins.modules import gpudirect

RAILS = [('ens1f0np0', 'mlx5_0', '0000:18:00.0', '10.100.0.10')]


def host(tmp_path, nic='ofed', **gpu):
    root = str(tmp_path / 'host')
    options = {'peermem': 'absent', 'modprobe': 'ok'}
    options.update(gpu)
    bindir = fakehw.build_host(root, RAILS, nic=nic, gpu=options)
    return root, bindir


def run(root, bindir, **changes):
    values = dict(method='peermem', root=root, bin_path=[bindir])
    values.update(changes)
    return run_module(gpudirect.main, values, check_mode=values.pop('check_mode', False))


def test_load_then_verify(tmp_path):
    root, bindir = host(tmp_path)
    loaded = run(root, bindir)
    assert loaded['status'] == 'loaded' and loaded['changed'] is True and loaded['persist'] is True
    assert [check['ok'] for check in loaded['checks']] == [True, True, True, True]
    assert fakehw.calls(root, 'modprobe') == [['modprobe', 'nvidia-peermem']]
    again = run(root, bindir)
    assert again['status'] == 'verified' and again['changed'] is False
    assert len(fakehw.calls(root, 'modprobe')) == 1
    assert again['summary'][0].startswith('gpudirect verified: nvidia-peermem 550.54.15 loaded')
    assert 'IOMMU: passthrough (intel_iommu=on iommu=pt)' in again['summary']


def test_check_mode_does_not_load(tmp_path):
    root, bindir = host(tmp_path)
    result = run(root, bindir, check_mode=True)
    assert result['status'] == 'would_load' and result['changed'] is True
    assert fakehw.calls(root, 'modprobe') == []


@pytest.mark.parametrize('behaviour, dmesg, cause, words', [
    ('invalid_argument', 'dmesg/unrelated.txt', 'built_without_ofed', 'rebuild/reinstall the NVIDIA driver'),
    ('invalid_argument', 'dmesg/symbol_mismatch.txt', 'symbol_mismatch', 'rebuild the NVIDIA kernel modules'),
    ('not_found', 'dmesg/unrelated.txt', 'not_installed', 'R470'),
    ('key_rejected', 'dmesg/unrelated.txt', 'not_permitted', 'MOK'),
])
def test_load_failures_are_explained(tmp_path, behaviour, dmesg, cause, words):
    root, bindir = host(tmp_path, modprobe=behaviour, dmesg=dmesg)
    result = run(root, bindir)
    assert result['failed'] is True
    assert result['failure']['cause'] == cause
    assert words in result['msg'] and result['msg'].startswith('modprobe nvidia-peermem failed: ')


def test_inbox_ib_core_refused_before_loading(tmp_path):
    root, bindir = host(tmp_path, nic='inbox', peer_api=False)
    result = run(root, bindir)
    assert result['failed'] and 'PeerDirect API' in result['msg'] and 'gpudirect: dmabuf' in result['msg']
    assert 'This host supports DMA-BUF GPUDirect' in result['msg']  # open 550 driver, kernel 6.8, rdma-core 50
    assert fakehw.calls(root, 'modprobe') == []


def test_proprietary_driver_gets_no_dmabuf_hint(tmp_path):
    root, bindir = host(tmp_path, modprobe='invalid_argument', flavor='proprietary')
    result = run(root, bindir)
    assert result['failed'] and result['failure']['cause'] == 'built_without_ofed'
    assert 'DMA-BUF' not in result['msg']


def test_legacy_nv_peer_mem_loaded_is_refused(tmp_path):
    root, bindir = host(tmp_path, legacy=True)
    result = run(root, bindir)
    assert result['failed'] and 'legacy nv_peer_mem module is loaded' in result['msg']
    assert 'systemctl disable nv_peer_mem' in result['msg']
    assert fakehw.calls(root, 'modprobe') == []


def test_legacy_nv_peer_mem_enabled_at_boot_is_refused(tmp_path):
    root, bindir = host(tmp_path)
    with open(os.path.join(root, 'etc/modules-load.d/nv_peer_mem.conf'), 'w', encoding='utf-8') as handle:
        handle.write('# legacy\nnv_peer_mem\n')
    result = run(root, bindir)
    assert result['failed'] and '/etc/modules-load.d/nv_peer_mem.conf' in result['msg']


def test_stale_peermem_version_fails_verification(tmp_path):
    root, bindir = host(tmp_path, peermem='loaded', peermem_version='535.104.05')
    result = run(root, bindir)
    assert result['failed'] and 'sysfs version match' in result['msg'] and 'stale module' in result['msg']


def test_host_without_gpu_is_not_applicable(tmp_path):
    root = str(tmp_path / 'host')
    bindir = fakehw.build_host(root, RAILS, nic='none')
    result = run(root, bindir)
    assert not result.get('failed') and result['status'] == 'not_applicable'
    assert result['reason'] == 'not applicable: no NVIDIA GPU driver on this host (/sys/module/nvidia is absent)'
    assert 'p2p' not in result
    assert run(root, bindir, method='dmabuf')['status'] == 'not_applicable'


def test_dmabuf_capable_needs_no_module(tmp_path):
    root, bindir = host(tmp_path, nic='inbox', peer_api=False)
    result = run(root, bindir, method='dmabuf')
    assert result['status'] == 'dmabuf' and result['persist'] is False
    assert result['dmabuf'] == {'capable': True, 'missing': [], 'unknown': [], 'rdma_core': 50}
    assert fakehw.calls(root, 'modprobe') == []


def test_dmabuf_impossible_says_why(tmp_path):
    root, bindir = host(tmp_path, flavor='proprietary', rdma_core=33)
    result = run(root, bindir, method='dmabuf')
    assert result['failed'] and 'proprietary NVIDIA kernel modules' in result['msg'] and 'rdma-core 33 < 34' in result['msg']


def test_method_none(tmp_path):
    root, bindir = host(tmp_path)
    result = run(root, bindir, method='none')
    assert result['status'] == 'disabled' and result['changed'] is False


def test_acs_and_iommu_reported_not_changed(tmp_path):
    root, bindir = host(tmp_path, lspci='lspci/acs_pcie_switch.txt', iommu_groups=['DMA-FQ'])
    before = fakehw.snapshot(root)
    result = run(root, bindir, check_mode=True)
    assert result['p2p']['acs_problems'][0]['bdf'] == '15:01.0'
    assert any('setpci -s 15:01.0 ECAP_ACS+0x6.w=0000' in text for text in result['warnings'])
    assert any('iommu=pt' in text for text in result['warnings'])
    assert fakehw.snapshot(root) == before
    assert [call[0] for call in fakehw.calls(root) if call[0] in ('setpci',)] == []


def test_acs_without_lspci_is_noted(tmp_path):
    root = str(tmp_path / 'host')
    bindir = fakehw.build_host(root, RAILS, nic='ofed', gpu={'peermem': 'loaded'},
                               tools=['nvidia-smi', 'modprobe', 'dmesg', 'modinfo'])
    result = run(root, bindir)
    assert result['status'] == 'verified'
    assert result['p2p']['notes'] == ['ACS not checked: lspci is not installed (pciutils)']


# ------------------------------------------------------------------------------------------- auto (the default)

def test_auto_is_the_default_and_picks_dmabuf_where_supported(tmp_path):
    """NVIDIA recommends DMA-BUF over nvidia-peermem (GPU Operator "GPUDirect RDMA and GPUDirect Storage"): an open
    550 driver on kernel 6.8 with rdma-core 50 needs no module."""
    root, bindir = host(tmp_path)
    values = dict(root=root, bin_path=[bindir])
    result = run_module(gpudirect.main, values)
    assert (result['status'], result['method'], result['persist'], result['changed']) == ('dmabuf', 'dmabuf', False, False)
    assert result['reason'].startswith('auto: the driver, kernel and rdma-core support DMA-BUF, which NVIDIA recommends')
    assert fakehw.calls(root, 'modprobe') == []


def test_auto_falls_back_to_peermem_naming_what_dmabuf_lacks(tmp_path):
    root, bindir = host(tmp_path, flavor='proprietary')
    result = run(root, bindir, method='auto')
    assert (result['status'], result['method'], result['persist']) == ('loaded', 'peermem', True)
    assert result['reason'].startswith('auto: DMA-BUF is not possible here (proprietary NVIDIA kernel modules (DMA-BUF '
                                       'needs the open kernel modules)), so nvidia-peermem is the fallback; '
                                       'nvidia-peermem 550.54.15 loaded')
    assert fakehw.calls(root, 'modprobe') == [['modprobe', 'nvidia-peermem']]
    again = run(root, bindir, method='auto')
    assert again['status'] == 'verified' and again['changed'] is False


def test_auto_falls_back_when_dmabuf_cannot_be_confirmed(tmp_path):
    """No libibverbs to read the rdma-core version from: DMA-BUF unconfirmed, the verified peermem path is safer."""
    root, bindir = host(tmp_path)
    for name in os.listdir(os.path.join(root, 'usr/lib/x86_64-linux-gnu')):
        os.remove(os.path.join(root, 'usr/lib/x86_64-linux-gnu', name))
    result = run(root, bindir, method='auto')
    assert result['method'] == 'peermem' and result['status'] == 'loaded'
    assert 'DMA-BUF could not be confirmed (unknown: rdma-core version)' in result['reason']


def test_auto_fallback_that_cannot_work_says_both_reasons(tmp_path):
    root, bindir = host(tmp_path, nic='inbox', peer_api=False, flavor='proprietary')
    result = run(root, bindir, method='auto')
    assert result['failed'] and result['msg'].startswith('auto: DMA-BUF is not possible here (proprietary')
    assert 'PeerDirect API' in result['msg'] and fakehw.calls(root, 'modprobe') == []


def test_auto_check_mode_diff_shows_the_load(tmp_path):
    root, bindir = host(tmp_path, flavor='proprietary')
    before = fakehw.snapshot(root)
    result = run_module(gpudirect.main, dict(method='auto', root=root, bin_path=[bindir]), check_mode=True, diff=True)
    assert result['status'] == 'would_load' and result['changed'] is True
    assert result['diff']['before'] == 'method: auto\nnvidia_peermem: not loaded\n'
    assert result['diff']['after'] == 'method: peermem\nnvidia_peermem: loaded\n'
    assert fakehw.snapshot(root) == before and fakehw.calls(root, 'modprobe') == []


def test_auto_leaves_a_loaded_peermem_alone(tmp_path):
    root, bindir = host(tmp_path, peermem='loaded')
    result = run_module(gpudirect.main, dict(method='auto', root=root, bin_path=[bindir]), diff=True)
    assert result['method'] == 'dmabuf' and result['changed'] is False
    assert result['reason'].endswith('nvidia-peermem is loaded too and left as it is')
    assert result['diff']['before'] == 'method: auto\nnvidia_peermem: loaded\n'
    assert result['diff']['after'] == 'method: dmabuf\nnvidia_peermem: loaded\n'


def test_auto_without_driver(tmp_path):
    root = str(tmp_path / 'host')
    bindir = fakehw.build_host(root, RAILS, nic='none')
    result = run(root, bindir, method='auto')
    assert result['status'] == 'not_applicable' and result['method'] is None and not result.get('failed')
    gpu_root = str(tmp_path / 'gpu')
    bindir = fakehw.build_host(gpu_root, RAILS, nic='ofed', gpu={'peermem': 'absent'})
    os.remove(os.path.join(gpu_root, 'sys/module/nvidia/version'))
    os.rmdir(os.path.join(gpu_root, 'sys/module/nvidia'))
    failed = run(gpu_root, bindir, method='auto')
    assert failed['failed'] and 'NVIDIA GPUs are present but the nvidia kernel module is not loaded' in failed['msg']
