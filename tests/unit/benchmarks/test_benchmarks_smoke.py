# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Smoke test of benchmarks/: the scripts import and run end to end on toy sizes. Nothing here is timed."""

from __future__ import annotations

import os
import sys

import pytest


BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))), 'benchmarks')
sys.path.insert(0, BENCH)

import _common  # noqa: E402  pylint: disable=wrong-import-position
import bench_pyavd  # noqa: E402  pylint: disable=wrong-import-position
import bench_python_api  # noqa: E402  pylint: disable=wrong-import-position


@pytest.fixture(autouse=True)
def quick_settle(monkeypatch, tmp_path):
    """No waiting for the recently-deleted window between tests, and its time stamp outside the checkout."""
    monkeypatch.setattr(_common, 'RECENTLY_DELETED_SECONDS', 0)
    monkeypatch.setattr(_common, '_REMOVED_STAMP', str(tmp_path / 'scratch-removed'))


def test_scratch_stays_until_removed_and_the_next_settle_waits(monkeypatch, tmp_path):
    """Scratch directories outlive the pass that filled them; their removal makes the next settle() wait out the
    window in which journal-less ext4 scans the freed inodes."""
    clock = FakeClock()
    monkeypatch.setattr(_common, 'time', clock)  # the test's time: a loaded machine's delays do not count
    first, second = _common.scratch('one-', str(tmp_path)), _common.scratch('two-', str(tmp_path))
    assert _common.settle() == 0.0  # nothing removed yet: no wait
    _common.remove_scratch()
    assert not os.path.exists(first) and not os.path.exists(second)
    monkeypatch.setattr(_common, 'RECENTLY_DELETED_SECONDS', 30)
    clock.now += 10
    waited = _common.settle()
    assert 19 < waited <= 20 and clock.slept == [waited]
    assert _common.settle() == 0.0  # the window has passed


class FakeClock:
    """time.time() and time.sleep() of a clock that moves only when slept on or told to."""

    def __init__(self):
        self.now, self.slept = 1_000_000.0, []

    def time(self):
        return self.now

    def sleep(self, seconds):
        self.slept.append(seconds)
        self.now += seconds


def test_python_api_toy_fabric():
    data = bench_python_api.run(platforms=('eos',), repeat=1, write_modes=('none', 'disk'), servers=8, quiet=True)
    entry = data['summary']['eos/none']
    assert entry['devices']['hosts'] == 8 and entry['devices']['gpus'] == 64
    assert entry['counts']['hosts'] == 8 and entry['counts']['switches'] == entry['devices']['leaves'] + \
        entry['devices']['spines'] + entry['devices']['super_spines']
    assert data['summary']['eos/disk']['counts'] == entry['counts']
    assert 'eos/none' in bench_python_api.report(data)


def test_python_api_tmpfs_passes_leave_nothing_behind(monkeypatch, tmp_path):
    """A tmpfs pass writes a whole output (a symlink to its generation, the generations, the lock) and removes all
    of it: before, only the symlink went and every pass left its files in RAM."""
    shm = tmp_path / 'shm'
    shm.mkdir()
    monkeypatch.setenv('AIFABRIC_BENCH_TMPFS', str(shm))
    monkeypatch.setattr(bench_python_api, 'TMPFS', str(shm))
    data = bench_python_api.run(platforms=('eos',), repeat=1, write_modes=('tmpfs',), servers=8, quiet=True)
    assert data['summary']['eos/tmpfs']['counts']['files'] > 0
    assert os.listdir(shm) == []


def test_gpu16k_intent_has_the_issue_shape():
    _common.import_path()
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_intent
    summary = design_from_intent(_common.gpu16k_intent('sonic', servers=64)).summary()
    assert summary['rails'] == 8 and summary['leaf_downlinks'] == 32 and summary['leaf_uplinks'] == 32


def test_leafspine_pipeline_ours():
    pipeline, make_inputs = bench_pyavd._ours_import()  # pylint: disable=protected-access
    configs, marks = pipeline(make_inputs(2, 4), lambda: 0.0)
    assert sorted(configs) == ['leaf1', 'leaf2', 'leaf3', 'leaf4', 'spine1', 'spine2'] and len(marks) == 5
    assert all(text.count('service-profile') == 2 for name, text in configs.items() if name.startswith('leaf'))


def test_one_device_change_toy_fabric():
    """bench_one_change on a toy fabric: every round really changes the leaf's configuration."""
    import bench_one_change  # pylint: disable=import-outside-toplevel
    data = bench_one_change.run('sonic', repeat=2, servers=8, quiet=True)
    assert [run['written'] for run in data['runs']] == [1, 1] and data['whole']['devices'] > 8


def test_design_only_validation_toy_fabric():
    """bench_validate's design-only part on a toy fabric: every check runs, the report files are written."""
    import bench_validate  # pylint: disable=import-outside-toplevel
    data = bench_validate.run(parts=('design',), repeat=1, servers=8, quiet=True)
    run = data['design']['runs'][0]
    assert run['summary']['verdict'] == 'PASSED' and run['results'] == run['summary']['passed'] > 0
    assert set(run['sizes']) == {'json', 'markdown', 'html', 'prometheus'} and 'checks' in run['phases']


def test_template_sections_toy_fabric():
    """bench_template_sections on a toy fabric: both ways render the same files, and both are timed."""
    import bench_template_sections  # pylint: disable=import-outside-toplevel
    results = [bench_template_sections.run(name, switches=4, repeat=1, servers=8)
               for name in bench_template_sections.sectioned()]
    assert results and all(result['switches'] > 0 for result in results)
    assert all(set(result['ms_per_switch']) == {'sections', 'one template'} for result in results)
    assert 'ratio' in bench_template_sections.report(results)


def test_netbox_bundle_toy_fabric():
    """bench_netbox on a toy fabric: every file of the bundle is made and counted."""
    import bench_netbox  # pylint: disable=import-outside-toplevel
    data = bench_netbox.run('sonic', repeat=1, servers=8)
    files = data['runs'][0]['files']
    assert len(files) == 16 and all(entry['rows'] > 0 for entry in files if entry['file'] == '14-interfaces.csv')
    assert '16-ip-addresses.csv' in bench_netbox.report(data)
