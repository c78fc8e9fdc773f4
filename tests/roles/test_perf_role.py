# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""playbooks/perf.yml runs for real (ansible-playbook, local connection) against four fake GPU servers (fake
sysfs with RDMA devices and GIDs, nvidia-smi stubs; tests/roles/fakehw), with ib_write_bw and the all_reduce_perf
launcher replaced by stubs printing the captured outputs of tests/unit/fixtures/perf:

  gpu0001  ConnectX (MLNX_OFED) + GPUs     runs ib_write_bw on both rails, launches all_reduce_perf
  gpu0002  ConnectX (inbox), no GPU        ib_write_bw only
  gpu0003  no RDMA NIC, no GPU             nothing: "not applicable" with the reason
  gpu0004  ConnectX (MLNX_OFED) + GPUs     its rail 1 runs at half rate: the gate fails naming it
"""

import json
import os
import stat
import sys

import pytest

from tests.roles import fakehw
from tests.roles.test_host_roles import HOSTS, INTENT, _design, _rails
from tests.unit.utils.paths import ROOT
from tests.unit.utils.ansible_cli import ansible_cli, ansible_env

PERF = os.path.join(ROOT, 'tests', 'unit', 'fixtures', 'perf')
IB_WRITE_BW = r'''#!/usr/bin/env python3
import os, sys, time
host = os.path.basename(os.path.dirname(os.path.dirname(os.path.abspath(sys.argv[0]))))
device = sys.argv[sys.argv.index('-d') + 1]
if len(sys.argv[-1].split('.')) != 4:
    time.sleep(0.2)
    print('************************************\n* Waiting for client to connect... *\n************************************')
    sys.exit(0)
name = 'ib_write_bw_400g_half_rate.txt' if (host, device) == ('gpu0004', 'mlx5_1') else 'ib_write_bw_400g_gbits.txt'
sys.stdout.write(open(os.path.join(%r, name)).read())
'''
LAUNCHER = r'''#!/usr/bin/env python3
import os, sys
sys.stdout.write(open(os.path.join(%r, 'all_reduce_2.19_2x8_healthy.txt')).read())
'''


def _script(path, text):
    with open(path, 'w', encoding='utf-8') as handle:
        handle.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def _perf(base, *extra, group_vars=None):
    """playbooks/perf.yml on the four fake servers built under `base`; the finished process."""
    import subprocess
    design = _design()
    inventory = {'all': {'children': {'gpu_servers': {'hosts': {}}}}}
    for name, options in HOSTS.items():
        root = str(base / name)
        fakehw.build_host(root, _rails(design.device(name)), **options)
        _script(os.path.join(root, 'fakebin', 'ib_write_bw'), IB_WRITE_BW % PERF)
        _script(os.path.join(root, 'fakebin', 'all_reduce_perf'), '#!/bin/sh\nexit 1\n')
        _script(os.path.join(root, 'fakebin', 'fake_mpirun'), LAUNCHER % PERF)
        inventory['all']['children']['gpu_servers']['hosts'][name] = {
            'ansible_connection': 'local', 'ansible_python_interpreter': sys.executable, 'aifabric_intent': INTENT,
            'perf_root': root, 'perf_bin_path': [os.path.join(root, 'fakebin')],
            'perf_ib_write_bw': os.path.join(root, 'fakebin', 'ib_write_bw'),
            'perf_all_reduce_perf': os.path.join(root, 'fakebin', 'all_reduce_perf'),
            'perf_nccl_command': [os.path.join(root, 'fakebin', 'fake_mpirun'), '-np', '{np}', '-H', '{hosts}'],
            'perf_duration_s': 1, 'ansible_async_dir': os.path.join(root, 'async')}
    inventory['all']['children']['gpu_servers']['vars'] = group_vars or {}
    path = str(base / 'inventory.json')
    with open(path, 'w', encoding='utf-8') as handle:
        json.dump(inventory, handle)
    env = ansible_env()
    command = ansible_cli('playbook') + ['-i', path, os.path.join(ROOT, 'playbooks', 'perf.yml')] + list(extra)
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)


@pytest.fixture(scope='module')
def perf_run(tmp_path_factory):
    base = tmp_path_factory.mktemp('perf')
    report = str(base / 'report')
    return _perf(base, '-e', 'perf_report_dir=%s' % report), report, base


def test_reports_go_to_the_inventory_output_directory_by_default(tmp_path):
    """Like render and validate: <aifabric_output_dir>/perf (the inventory plugin sets aifabric_output_dir), never the
    current directory or the checkout's out/."""
    output_dir = tmp_path / 'srv' / 'roletest'
    proc = _perf(tmp_path, group_vars={'aifabric_output_dir': str(output_dir)})
    assert proc.returncode != 0 and 'Performance gate of fabric roletest: FAILED' in proc.stdout, proc.stdout[-3000:]
    assert sorted(os.listdir(output_dir / 'perf')) == ['perf.json', 'perf.md']


def test_gate_fails_naming_the_slow_rail_and_reports_every_test(perf_run):
    proc, report, _base = perf_run
    assert proc.returncode != 0, proc.stdout[-3000:]
    assert 'Performance gate of fabric roletest: FAILED (5 tests, 1 below the gate)' in proc.stdout
    assert ('gpu0004 ib_write_bw rail 1: 193.2 Gb/s is 48% of the 400 Gb/s line rate, below the 90% required'
            in proc.stdout)
    data = json.load(open(os.path.join(report, 'perf.json'), encoding='utf-8'))
    tests = {(item['host'], item['test']): item['status'] for item in data['results']}
    assert tests == {('gpu0001', 'ib_write_bw rail 0'): 'pass', ('gpu0001', 'ib_write_bw rail 1'): 'pass',
                     ('gpu0004', 'ib_write_bw rail 0'): 'pass', ('gpu0004', 'ib_write_bw rail 1'): 'fail',
                     ('gpu0001', 'all_reduce_perf'): 'pass'}
    assert any(reason.startswith('gpu0003: ib_write_bw: not applicable: no RDMA device')
               for reason in data['not_applicable'])
    assert any(reason.startswith('gpu0002: all_reduce_perf: ') and 'no NVIDIA GPU driver' in reason
               for reason in data['not_applicable'])
    text = open(os.path.join(report, 'perf.md'), encoding='utf-8').read()
    assert text.startswith('# Performance gate of fabric roletest: FAILED')


def test_the_servers_job_files_are_removed(perf_run):
    """The ib_write_bw servers run as background jobs (async, poll 0): each leaves a result file in the host's async
    directory until it is cleaned up, one per rail and run on every server."""
    proc, _report, base = perf_run
    started = [name for name in HOSTS if os.path.isdir(base / name / 'async')]
    assert started, 'no server job ran:\n' + proc.stdout[-3000:]
    assert {name: os.listdir(base / name / 'async') for name in started} == {name: [] for name in started}
