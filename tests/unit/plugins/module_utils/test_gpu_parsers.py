# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""GPU / GPUDirect parsers and decisions on fixtures of several driver and tool versions."""

import os

import pytest
from hypothesis import given, settings, strategies as st

from ansible_collections.aifabric.fabric.plugins.module_utils.host_parse import ParseError
from ansible_collections.aifabric.fabric.plugins.module_utils import gpu_parsers as g

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                        'fixtures', 'host')


def fx(name):
    with open(os.path.join(FIXTURES, name), encoding='utf-8') as handle:
        return handle.read()


# ------------------------------------------------------------------------------------------- nvidia-smi topo -m

def test_topo_h100_r550_tabs_ansi_numa_and_gpu_numa_id():
    topo = g.parse_nvidia_smi_topo(fx('nvidia_smi/topo_h100_hgx_r550.txt'))
    assert len(topo['gpus']) == 8 and len(topo['nics']) == 10
    gpu0 = topo['gpus']['GPU0']
    assert gpu0['links']['GPU7'] == 'NV18' and gpu0['links']['NIC0'] == 'PIX' and gpu0['links']['NIC4'] == 'SYS'
    assert gpu0['cpu_affinity'] == '0-55,112-167' and gpu0['numa_affinity'] == 0 and gpu0['gpu_numa_id'] is None
    assert topo['gpus']['GPU5']['numa_affinity'] == 1
    assert topo['nic_names']['NIC9'] == 'mlx5_9'
    affinity = g.gpu_nic_affinity(topo)
    assert {gpu: item['nics'] for gpu, item in affinity.items()} == {'GPU%d' % i: ['mlx5_%d' % i] for i in range(8)}
    assert all(item['path'] == 'PIX' and item['gdr_capable'] for item in affinity.values())
    rails = ['mlx5_%d' % i for i in range(8)]
    assert g.rail_affinity_problems(affinity, rails) == []


def test_topo_copied_with_spaces_parses_like_tabs():
    tabs = g.parse_nvidia_smi_topo(fx('nvidia_smi/topo_h100_hgx_r550.txt'))
    spaces = g.parse_nvidia_smi_topo(fx('nvidia_smi/topo_h100_spaces.txt'))
    assert spaces == tabs


def test_topo_a100_r470_without_gpu_numa_id_two_nics_per_switch():
    topo = g.parse_nvidia_smi_topo(fx('nvidia_smi/topo_a100_r470.txt'))
    assert topo['gpus']['GPU2']['numa_affinity'] == 1 and topo['gpus']['GPU2']['gpu_numa_id'] is None
    affinity = g.gpu_nic_affinity(topo)
    assert affinity['GPU0'] == {'nics': ['mlx5_0', 'mlx5_1'], 'path': 'PXB', 'nccl_path': 'PXB', 'numa': 3,
                                'gdr_capable': True}
    problems = g.rail_affinity_problems(affinity, ['mlx5_0', 'mlx5_2'])
    assert problems == []


def test_topo_v100_r418_device_named_columns_no_numa():
    topo = g.parse_nvidia_smi_topo(fx('nvidia_smi/topo_v100_r418.txt'))
    assert topo['columns'] == ['GPU0', 'GPU1', 'mlx5_0', 'mlx5_1']
    assert topo['gpus']['GPU0']['numa_affinity'] is None and topo['gpus']['GPU0']['cpu_affinity'] == '0-19,40-59'
    assert g.gpu_nic_affinity(topo)['GPU1']['nics'] == ['mlx5_1']


def test_topo_pcie_server_nics_behind_host_bridge_break_gdr():
    affinity = g.gpu_nic_affinity(g.parse_nvidia_smi_topo(fx('nvidia_smi/topo_l40s_pcie.txt')))
    assert affinity['GPU0']['path'] == 'NODE' and affinity['GPU0']['nccl_path'] == 'PHB'
    problems = g.rail_affinity_problems(affinity, ['mlx5_0', 'mlx5_1'])
    assert len(problems) == 2 and 'NCCL_NET_GDR_LEVEL' in problems[0]


def test_topo_rail_mismatch_named():
    affinity = g.gpu_nic_affinity(g.parse_nvidia_smi_topo(fx('nvidia_smi/topo_h100_hgx_r550.txt')))
    problems = g.rail_affinity_problems(affinity, ['mlx5_0', 'mlx5_1'])
    assert problems[0] == 'GPU2 is closest to mlx5_2, which is not a rail NIC (rails: mlx5_0, mlx5_1)'
    assert len(problems) == 6


@pytest.mark.parametrize('text, message', [
    ('', 'empty output'),
    (fx('nvidia_smi/no_driver.txt'), "header must start with 'GPU0'"),
    ('\tGPU0\tNIC0\tCPU Affinity\n', 'no GPU rows'),
    ('\tGPU0\tNIC0\tCPU Affinity\nGPU0\t X \tPIX\t0-7\nGPU9\tPIX\t X \n', 'row GPU9 is not one of the header columns'),
    ('\tGPU0\tNIC0\tCPU Affinity\nGPU0\t X \n', 'has 1 matrix cells, the header has 2'),
    ('\tGPU0\tNIC0\tCPU Affinity\nGPU0\t X \tFOO\t0-7\n', 'unknown connection type'),
    ('\tGPU0\tNIC0\tCPU Affinity\nGPU0\tPIX\tPIX\t0-7\n', 'self cell of GPU0 must be X'),
    (fx('nvidia_smi/topo_a100_r470.txt').split('NIC Legend')[0], 'NIC legend lacks'),
])
def test_topo_malformed(text, message):
    with pytest.raises(ParseError, match=message):
        g.parse_nvidia_smi_topo(text)


# ------------------------------------------------------------------------------------------- query, driver

def test_query_gpu_csv():
    gpus = g.parse_nvidia_smi_query(fx('nvidia_smi/query_h100.csv'))
    assert len(gpus) == 8
    assert gpus[1] == {'index': 1, 'pci_bus_id': '00000000:2A:00.0', 'name': 'NVIDIA H100 80GB HBM3',
                       'uuid': 'GPU-5c2f4a01-1c2d-4e5f-8a9b-03d4e5f60719', 'driver_version': '550.54.15',
                       'memory_total': '81559'}


@pytest.mark.parametrize('name, message', [
    ('nvidia_smi/no_driver.txt', 'driver is not loaded'),
    ('nvidia_smi/version_mismatch.txt', 'driver/library version mismatch'),
    ('nvidia_smi/no_devices.txt', 'sees no GPU'),
])
def test_query_gpu_failures_are_explained(name, message):
    with pytest.raises(ParseError, match=message):
        g.parse_nvidia_smi_query(fx(name))
    assert message.split()[0] in g.classify_nvidia_smi_failure(fx(name))


def test_query_gpu_wrong_shape():
    with pytest.raises(ParseError, match='expected 6 comma-separated fields'):
        g.parse_nvidia_smi_query('0, NVIDIA H100\n')
    with pytest.raises(ParseError, match='GPU index is not a number'):
        g.parse_nvidia_smi_query('x, a, b, c, d, e\n')


def test_driver_version_file_and_license():
    assert g.parse_driver_version_file(fx('nvidia_version/open_550.txt')) == {'version': '550.54.15', 'flavor': 'open'}
    assert g.parse_driver_version_file(fx('nvidia_version/proprietary_535.txt')) == {
        'version': '535.104.05', 'flavor': 'proprietary'}
    with pytest.raises(ParseError, match='NVRM version'):
        g.parse_driver_version_file('garbage\n')
    assert g.module_flavor_from_license(fx('nvidia_version/license_open.txt')) == 'open'
    assert g.module_flavor_from_license(fx('nvidia_version/license_proprietary.txt')) == 'proprietary'
    assert g.module_flavor_from_license('GPL') is None


# ------------------------------------------------------------------------------------------- modules

def test_lsmod_peermem_legacy_inbox():
    loaded = g.parse_lsmod(fx('lsmod/peermem_loaded.txt'))
    assert 'nvidia_peermem' in loaded['ib_core']['used_by'] and loaded['nvidia_peermem']['used'] == 0
    assert 'nvidia_peermem' in loaded['nvidia']['used_by']
    legacy = g.parse_lsmod(fx('lsmod/legacy_nv_peer_mem.txt'))
    assert 'nv_peer_mem' in legacy and 'nvidia_peermem' not in legacy
    inbox = g.parse_lsmod(fx('lsmod/inbox_no_peermem.txt'))
    assert inbox['ib_core']['used_by'] == ['rdma_cm', 'ib_uverbs', 'mlx5_ib']
    with pytest.raises(ParseError, match='Module  Size  Used by'):
        g.parse_lsmod('nvidia 1 2\n')
    with pytest.raises(ParseError, match='NAME SIZE COUNT'):
        g.parse_lsmod('Module                  Size  Used by\nnvidia big 2\n')


def test_proc_modules_matches_lsmod_view():
    proc = g.parse_proc_modules(fx('proc_modules/peermem_loaded.txt'))
    assert proc['ib_core']['used_by'] == g.parse_lsmod(fx('lsmod/peermem_loaded.txt'))['ib_core']['used_by']
    assert proc['nvidia_peermem']['state'] == 'Live'
    assert g.parse_proc_modules('') == {}
    with pytest.raises(ParseError, match='expected NAME SIZE'):
        g.parse_proc_modules('ib_core\n')


def test_kallsyms_peer_api():
    assert g.parse_kallsyms(fx('kallsyms/ofed_peer_api.txt')) == {
        'ib_register_peer_memory_client': 'ib_core', 'ib_unregister_peer_memory_client': 'ib_core'}
    assert g.parse_kallsyms(fx('kallsyms/inbox_nonroot.txt')) == {}
    assert g.parse_kallsyms('') == {}


def test_modules_load_file():
    assert g.parse_modules_load('# comment\n; other\n\nnvidia-peermem\n  nvidia_uvm  \n') == ['nvidia-peermem', 'nvidia_uvm']
    assert g.normalize_module('nvidia-peermem') == 'nvidia_peermem'


# ------------------------------------------------------------------------------------------- peermem failures

@pytest.mark.parametrize('stderr, dmesg, peer_api, cause', [
    ('modprobe/invalid_argument.txt', 'dmesg/unrelated.txt', True, 'built_without_ofed'),
    ('modprobe/invalid_argument.txt', 'dmesg/symbol_mismatch.txt', True, 'symbol_mismatch'),
    ('modprobe/invalid_argument.txt', 'dmesg/unrelated.txt', False, 'no_peer_api'),
    ('modprobe/invalid_argument.txt', 'dmesg/version_magic.txt', True, 'wrong_kernel'),
    ('modprobe/unknown_symbol.txt', 'dmesg/symbol_mismatch.txt', True, 'symbol_mismatch'),
    ('modprobe/unknown_symbol.txt', 'dmesg/unrelated.txt', False, 'no_peer_api'),
    ('modprobe/unknown_symbol.txt', 'dmesg/unrelated.txt', True, 'symbol_mismatch'),
    ('modprobe/not_found.txt', 'dmesg/symbol_mismatch.txt', True, 'not_installed'),
    ('modprobe/key_rejected.txt', 'dmesg/symbol_mismatch.txt', True, 'not_permitted'),
    ('modprobe/exec_format.txt', 'dmesg/unrelated.txt', True, 'wrong_kernel'),
])
def test_peermem_load_failure_classification(stderr, dmesg, peer_api, cause):
    failure = g.classify_peermem_load_failure(fx(stderr), fx(dmesg), peer_api, '6.8.0-45-generic')
    assert failure['cause'] == cause
    assert failure['message'] and failure['fix']


def test_built_before_ofed_says_how_to_fix():
    failure = g.classify_peermem_load_failure(fx('modprobe/invalid_argument.txt'), '', True)
    assert 'built before OFED' in failure['message'] or 'before OFED was installed' in failure['message']
    assert 'rebuild/reinstall the NVIDIA driver' in failure['fix'] and 'dkms autoinstall' in failure['fix']


def test_unknown_failure_keeps_the_text():
    failure = g.classify_peermem_load_failure('modprobe: ERROR: something new\n', '')
    assert failure['cause'] == 'unknown' and 'something new' in failure['message']


def _state(**changes):
    state = {'nvidia_loaded': True, 'nvidia_version': '550.54.15', 'gpus_present': True, 'legacy_loaded': False,
             'legacy_persisted': None, 'ib_core_loaded': True, 'peermem_loaded': False, 'peer_api': True}
    state.update(changes)
    return state


@pytest.mark.parametrize('changes, action, words', [
    ({}, 'load', 'not loaded'),
    ({'peermem_loaded': True}, 'verify', 'is loaded'),
    ({'nvidia_loaded': False, 'gpus_present': False}, 'not_applicable', 'no NVIDIA GPU driver'),
    ({'nvidia_loaded': False}, 'fail', 'module is not loaded'),
    ({'legacy_loaded': True, 'peermem_loaded': True}, 'refuse', 'systemctl disable nv_peer_mem'),
    ({'legacy_persisted': '/etc/modules-load.d/nv_peer_mem.conf'}, 'refuse', 'set to load at boot'),
    ({'ib_core_loaded': False}, 'not_applicable', 'no RDMA stack'),
    ({'peer_api': False}, 'fail', 'PeerDirect API'),
])
def test_peermem_decision(changes, action, words):
    decision = g.peermem_decision(_state(**changes))
    assert decision['action'] == action
    assert words in decision['reason']


def test_peermem_checks_version_mismatch_and_registration():
    good = g.peermem_checks({'nvidia_version': '550.54.15', 'peermem_version': '550.54.15', 'memory_peers': ['nv_mem'],
                             'ib_core_users': ['nvidia_peermem'], 'peer_api': True})
    assert all(check['ok'] for check in good) and len(good) == 4
    stale = g.peermem_checks({'nvidia_version': '550.54.15', 'peermem_version': '535.104.05', 'memory_peers': [],
                              'ib_core_users': [], 'peer_api': None})
    assert [check['ok'] for check in stale] == [False, False, False]
    assert g.peermem_checks({'nvidia_version': '1', 'peermem_version': '1', 'memory_peers': ['nv_mem_nc']})[1]['ok']


# ------------------------------------------------------------------------------------------- DMA-BUF

@pytest.mark.parametrize('kernel, flavor, driver, rdma_core, capable, missing', [
    ('6.8.0-45-generic', 'open', '550.54.15', 50, True, []),
    ('5.12.0', 'open', '515.43.04', 34, True, []),
    ('5.11.22', 'open', '550.54.15', 50, False, ['kernel 5.11.22 < 5.12']),
    ('6.8.0', 'proprietary', '550.54.15', 50, False, ['proprietary NVIDIA kernel modules']),
    ('6.8.0', 'open', '510.108.03', 50, False, ['NVIDIA driver 510.108.03 < R515']),
    ('6.8.0', 'open', '550.54.15', 33, False, ['rdma-core 33 < 34']),
    ('6.8.0', None, '550.54.15', None, None, []),
])
def test_dmabuf_capability(kernel, flavor, driver, rdma_core, capable, missing):
    result = g.dmabuf_capability(kernel, flavor, driver, rdma_core)
    assert result['capable'] is capable
    for text, expected in zip(result['missing'], missing):
        assert text.startswith(expected)
    assert len(result['missing']) == len(missing)


def test_rdma_core_version_from_library_names():
    assert g.rdma_core_version_from_libs(['libibverbs.so.1.14.44.0', 'libibverbs.so.1', 'libibverbs.so.1.14.50.0']) == 50
    assert g.rdma_core_version_from_libs(['libmlx5.so.1']) is None


# ------------------------------------------------------------------------------------------- ACS / IOMMU

def test_lspci_acs_redirect_on_pcie_switch():
    devices = g.parse_lspci_acs(fx('lspci/acs_pcie_switch.txt'))
    assert [device['bdf'] for device in devices] == ['15:01.0', '16:02.0']
    assert g.acs_problems(devices) == [{'bdf': '15:01.0', 'enabled': ['SrcValid', 'ReqRedir', 'CmpltRedir'],
                                        'description': devices[0]['description']}]
    assert g.acs_problems(g.parse_lspci_acs(fx('lspci/acs_disabled.txt'))) == []
    assert g.parse_lspci_acs(fx('lspci/no_acs_vm.txt')) == []
    with pytest.raises(ParseError, match='no PCI device header'):
        g.parse_lspci_acs('pcilib: Cannot open /proc/bus/pci\n')


@pytest.mark.parametrize('cmdline, types, mode, problems', [
    ('ro iommu=pt intel_iommu=on', ['identity', 'identity'], 'passthrough', 0),
    ('ro intel_iommu=on', ['DMA-FQ', 'DMA-FQ'], 'translated', 1),
    ('ro', [], 'off', 0),
    ('ro amd_iommu=on', ['identity'], 'passthrough', 1),
])
def test_iommu_report(cmdline, types, mode, problems):
    report = g.iommu_report(cmdline, types)
    assert report['mode'] == mode
    assert len(report['problems']) == problems


@settings(max_examples=60, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list('GPUNIC0189 XPIXNV\t\n:,-.abc')), max_size=300))
def test_any_text_gives_data_or_parse_error(text):
    for parser in (g.parse_nvidia_smi_topo, g.parse_nvidia_smi_query, g.parse_driver_version_file, g.parse_lsmod,
                   g.parse_proc_modules, g.parse_lspci_acs):
        try:
            parser(text)
        except ParseError:
            pass
    g.parse_kallsyms(text)
    g.parse_modules_load(text)
    g.classify_peermem_load_failure(text, text)
