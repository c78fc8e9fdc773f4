# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""nccl-tests all_reduce_perf and perftest ib_write_bw outputs (tests/unit/fixtures/perf, written in the formats of
nccl-tests 2.19.6 and 2.10 and of perftest with and without --report_gbits), and the gate against line rate."""

import os

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import perf

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'fixtures', 'perf')
RAILS_400 = [400] * 8


def read(name):
    with open(os.path.join(FIXTURES, name), encoding='utf-8') as handle:
        return handle.read()


def test_all_reduce_current_format():
    parsed = perf.parse_all_reduce(read('all_reduce_2.19_2x8_healthy.txt'))
    assert parsed['version'] == '2.19.6' and len(parsed['ranks']) == 16 and parsed['hosts'] == {'gpu0001': 8, 'gpu0002': 8}
    assert len(parsed['rows']) == 14 and parsed['rows'][-1]['size'] == 8589934592
    assert parsed['rows'][-1]['out_of_place']['busbw'] == 365.5 and parsed['rows'][-1]['in_place']['wrong'] == 0
    assert parsed['out_of_bounds'] == {'count': 0, 'ok': True} and parsed['avg_busbw'] == 265.492
    assert perf.largest_busbw(parsed) == pytest.approx((362.8 + 365.1 + 365.9) / 3)


def test_all_reduce_old_format_with_an_error_column_and_interleaved_nccl_lines():
    old = perf.parse_all_reduce(read('all_reduce_2.10_4x8_error_column.txt'))
    assert old['version'] is None and old['hosts'] == {'node01': 8, 'node02': 8, 'node03': 8, 'node04': 8}
    assert old['rows'][0]['error_column'] and old['rows'][0]['out_of_place']['wrong'] == 5e-07
    assert perf.wrong_results(old) == 0
    info = perf.parse_all_reduce(read('all_reduce_2.19_2x8_slow_info.txt'))
    assert len(info['rows']) == 14 and info['nccl_warnings'][0].startswith('NET/IB : Got completion from peer')


@pytest.mark.parametrize('text, message', [
    ('', 'empty output'),
    (None, 'empty output'),
    ('# nccl-tests version 2.19.6\n# Using devices\n', 'no result row'),
])
def test_all_reduce_bad_output(text, message):
    with pytest.raises(perf.PerfError, match=message):
        perf.parse_all_reduce(text)


def test_all_reduce_failed_run_says_why():
    with pytest.raises(perf.PerfError, match=r"no result row \(the test did not run: NCCL WARN Error : no transport for rank 8"):
        perf.parse_all_reduce(read('all_reduce_2.19_failed.txt'))


def test_ib_write_bw_formats():
    gbits = perf.parse_ib_write_bw(read('ib_write_bw_400g_gbits.txt'))
    assert (gbits['device'], gbits['link_type'], gbits['gid_index'], gbits['mtu_bytes']) == ('mlx5_1', 'Ethernet', '3', 4096)
    assert gbits['bw_avg_gbps'] == 388.77 and gbits['units'] == 'Gb/sec' and len(gbits['rows']) == 1
    mib = perf.parse_ib_write_bw(read('ib_write_bw_200g_all_sizes_mib.txt'))
    assert len(mib['rows']) == 23 and mib['units'] == 'MB/sec'
    assert mib['bw_avg_gbps'] == pytest.approx(23587.62 * 1048576 * 8 / 1e9)  # MiB/s of the largest size -> Gb/s


@pytest.mark.parametrize('name, message', [
    ('ib_write_bw_connect_failed.txt', "no result table .*Couldn't connect to 10.101.0.11:18515"),
])
def test_ib_write_bw_failures(name, message):
    with pytest.raises(perf.PerfError, match=message):
        perf.parse_ib_write_bw(read(name))


def test_ib_write_bw_empty_and_header_without_rows():
    with pytest.raises(perf.PerfError, match='empty output'):
        perf.parse_ib_write_bw(' \n')
    with pytest.raises(perf.PerfError, match='has no row'):
        perf.parse_ib_write_bw(' #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n----\n')


def test_gate_ib_write_bw_passes_at_line_rate_and_fails_at_half():
    ok = perf.gate_ib_write_bw('gpu0001', 1, read('ib_write_bw_400g_gbits.txt'), 400, 0.9)
    assert ok['status'] == 'pass' and ok['verdict'] == '388.8 Gb/s is 97% of the 400 Gb/s line rate'
    assert ok['required'] == '360.0 Gb/s (90% of 400 Gb/s)'
    bad = perf.gate_ib_write_bw('gpu0001', 0, read('ib_write_bw_400g_half_rate.txt'), 400, 0.9)
    assert bad['status'] == 'fail'
    assert bad['verdict'].startswith('193.2 Gb/s is 48% of the 400 Gb/s line rate, below the 90% required')
    assert 'MTU 1024[B]' in bad['verdict']
    broken = perf.gate_ib_write_bw('gpu0001', 0, read('ib_write_bw_connect_failed.txt'), 400, 0.9)
    assert broken['status'] == 'fail' and "Couldn't connect" in broken['verdict']
    mib = perf.gate_ib_write_bw('gpu0003', 0, read('ib_write_bw_200g_all_sizes_mib.txt'), 200, 0.9)
    assert mib['status'] == 'pass' and mib['measured'] == '197.9 Gb/s'


def test_gate_all_reduce():
    ok = perf.gate_all_reduce(read('all_reduce_2.19_2x8_healthy.txt'), RAILS_400, 0.8)
    assert ok['status'] == 'pass' and ok['required'] == '320.0 GB/s (80% of 8 x 400 Gb/s)'
    assert ok['verdict'] == 'busbw 364.6 GB/s is 91% of the 400.0 GB/s 8 rails allow'
    slow = perf.gate_all_reduce(read('all_reduce_2.19_2x8_slow_info.txt'), RAILS_400, 0.8)
    assert slow['status'] == 'fail' and 'is 43% of the 400.0 GB/s the rails allow, below the 80% required' in slow['verdict']
    wrong = perf.gate_all_reduce(read('all_reduce_2.19_2x8_wrong.txt'), RAILS_400, 0.8)
    assert wrong['status'] == 'fail' and wrong['verdict'] == ('4 results wrong (#wrong > 0): data corruption on the path; '
                                                              '24 values out of bounds')
    old = perf.gate_all_reduce(read('all_reduce_2.10_4x8_error_column.txt'), [200] * 8, 0.8)
    assert old['status'] == 'pass' and old['nodes'] == 4
    single = perf.gate_all_reduce(read('all_reduce_2.19_1x8_single_node.txt'), RAILS_400, 0.8)
    assert single['status'] == 'not_applicable' and 'NVLink, not the network, was measured' in single['verdict']
    failed = perf.gate_all_reduce(read('all_reduce_2.19_failed.txt'), RAILS_400, 0.8)
    assert failed['status'] == 'fail' and 'no result row' in failed['verdict']
    assert perf.verdict_of(['pass', 'not_applicable']) == 'PASSED' and perf.verdict_of(['not_applicable']) == 'NOT APPLICABLE'
    assert perf.verdict_of(['pass', 'fail']) == 'FAILED'


# --------------------------------------------------------------------------- plan and gate over a fabric
import json  # noqa: E402

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file  # noqa: E402

STATE = os.path.join(FIXTURES, '..', 'state')


def rnic_for(host_index):
    """rnic_facts of ofed_lossless with the GIDs moved to this server's rail addresses (.10 -> .9+index)."""
    with open(os.path.join(STATE, 'rnic_facts', 'ofed_lossless.json'), encoding='utf-8') as handle:
        text = handle.read()
    return json.loads(text.replace('.0.10"', '.0.%d"' % (9 + host_index)))


GPUS = {'not_applicable': None, 'gpus': [{'index': index} for index in range(8)]}
TOOLS = {'ib_write_bw': True, 'all_reduce_perf': True}


@pytest.fixture(scope='module')
def fabric():
    return design_from_file(os.path.join(STATE, 'intents', 'sonic_lossless.yml'))


def readiness(fabric, hosts=('gpu0001', 'gpu0002', 'gpu0003', 'gpu0004'), **changes):
    result = {}
    for index, host in enumerate(hosts, start=1):
        gpu, rnic, tools = changes.get(host, (GPUS, rnic_for(index), TOOLS))
        result[host] = perf.host_readiness(fabric.device(host), gpu, rnic, tools)
    return result


def test_plan_pairs_servers_on_each_rail_and_launches_nccl_once(fabric):
    planned = perf.plan(fabric, readiness(fabric), {})
    assert [(item['rail'], item['peer'], item['port']) for item in planned['gpu0001']['clients']] == [
        (0, 'gpu0002', 18515), (1, 'gpu0002', 18579)]
    client = planned['gpu0001']['clients'][0]
    assert client['argv'] == ['/usr/bin/ib_write_bw', '-d', 'mlx5_0', '-x', '3', '-p', '18515', '-F', '--report_gbits',
                              '-D', '10', '-q', '4', '10.100.0.11']
    assert planned['gpu0002']['servers'][0]['argv'][-1] == '4' and planned['gpu0002']['servers'][0]['peer'] == 'gpu0001'
    assert [item['peer'] for item in planned['gpu0003']['clients']] == ['gpu0004', 'gpu0004']
    assert planned['gpu0001']['nccl'] == ['mpirun', '--allow-run-as-root', '-np', '32', '-H',
                                          'gpu0001:8,gpu0002:8,gpu0003:8,gpu0004:8', '-x', 'NCCL_DEBUG=WARN',
                                          '/usr/local/bin/all_reduce_perf', '-b', '1G', '-e', '16G', '-f', '2', '-g', '1']
    assert all(planned[host]['nccl'] is None for host in ('gpu0002', 'gpu0003', 'gpu0004'))


def test_plan_odd_server_out_and_not_applicable_reasons(fabric):
    with open(os.path.join(STATE, 'rnic_facts', 'no_rdma.json'), encoding='utf-8') as handle:
        no_rdma = json.load(handle)
    no_gpu = {'not_applicable': 'not applicable: no NVIDIA GPU driver on this host', 'gpus': []}
    planned = perf.plan(fabric, readiness(fabric, gpu0004=(no_gpu, no_rdma, {'ib_write_bw': False})), {})
    assert [(item['rail'], item['peer']) for item in planned['gpu0003']['clients']] == [(0, 'gpu0001'), (1, 'gpu0001')]
    assert planned['gpu0004']['not_applicable'] == [
        'ib_write_bw: not applicable: no RDMA device on this host (/sys/class/infiniband is empty, rdma tool not installed)',
        'all_reduce_perf: not applicable: no RDMA device on this host (/sys/class/infiniband is empty, rdma tool not '
        'installed); not applicable: no NVIDIA GPU driver on this host; all_reduce_perf (nccl-tests) is not installed']
    assert '-np 24' in ' '.join(planned['gpu0001']['nccl'])


def test_plan_names_a_missing_gid():
    ready = perf.host_readiness(design_from_file(os.path.join(STATE, 'intents', 'sonic_lossless.yml')).device('gpu0002'),
                                GPUS, rnic_for(1), TOOLS)  # gpu0001's addresses on gpu0002
    assert ready['ib_write_bw'] == ('mlx5_0 has no RoCE v2 GID for 10.100.0.11 (rail 0 address not on eth1?); mlx5_1 has '
                                    'no RoCE v2 GID for 10.101.0.11 (rail 1 address not on eth2?)')


def test_gate_over_the_fabric(fabric):
    planned = perf.plan(fabric, readiness(fabric), {})
    outputs = {'gpu0001': {'clients': [{'rail': 0, 'rc': 0, 'stdout': read('ib_write_bw_400g_gbits.txt'), 'stderr': ''},
                                       {'rail': 1, 'rc': 0, 'stdout': read('ib_write_bw_400g_half_rate.txt'), 'stderr': ''}],
                           'nccl': {'rc': 0, 'stdout': read('all_reduce_2.19_2x8_healthy.txt'), 'stderr': ''}}}
    gated = perf.gate(fabric, planned, outputs, {})
    assert gated['verdict'] == 'FAILED'
    assert [(item['test'], item['status']) for item in gated['results']] == [
        ('ib_write_bw rail 0', 'pass'), ('ib_write_bw rail 1', 'fail'), ('all_reduce_perf', 'pass')]
    # sonic_lossless servers have 2 rails of 400G: 2 x 50 GB/s = 100 GB/s allowed, 80% = 80 GB/s; 8 GPUs per server
    # reach more than the rails carry, which the verdict explains
    assert gated['results'][2]['required'] == '80.0 GB/s (80% of 2 x 400 Gb/s)'
    assert 'more than the rails carry' in gated['results'][2]['verdict']
    nothing = perf.gate(fabric, perf.plan(fabric, readiness(fabric, hosts=('gpu0001',)), {}), {}, {})
    assert nothing['verdict'] == 'NOT APPLICABLE' and nothing['not_applicable'] == [
        'gpu0001: all_reduce_perf: only one server can run it; the network needs at least two']
