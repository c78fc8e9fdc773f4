# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A fleet reading in several processes (checks/live.py read_fleet_split): the gathered file it writes is the one a
single process writes, device for device; a process that fails fails the reading and leaves no file behind."""

from __future__ import annotations

import asyncio
import glob
import os
import time

import pytest
from hypothesis import given, settings as hypothesis_settings, strategies as st

from tests.unit.plugins.plugin_utils.fabric.state.captures import INTENT, scenario_states
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import live
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks.gathered import (
    GatheredWriter, read_gathered)
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.reader import ReadFailed

# What differs between two readings of the same state: when, and how long, they took.
TIMING = ('seconds', 'started_at', 'read_at')


class Session:
    async def __aenter__(self):
        return self

    async def __aexit__(self, *_exc):
        return None


def _fleet(monkeypatch, left_to_ansible=()):
    """The lab fabric's devices, each read as its healthy capture (a device of `left_to_ansible` refuses the reader:
    it is left to the per-host path)."""
    design = design_from_file(INTENT)
    states = scenario_states('healthy')
    names = sorted(design.nodes)
    gatherers = [live.DeviceReading(design, name, live.Settings()).gatherer for name in names]

    async def read_async(self, target, commands):  # pylint: disable=unused-argument
        if target.device in left_to_ansible:
            raise ReadFailed(target.device, 'reading its state', 'connection docker is not SSH')
        return {key: value for key, value in states[target.device].items() if key in dict(commands)}

    for reader in {type(gatherer.reader) for gatherer in gatherers}:
        monkeypatch.setattr(reader, 'session', lambda self, target: Session())
    for gatherer in {type(gatherer) for gatherer in gatherers}:
        monkeypatch.setattr(gatherer, 'read_async', read_async)
    return design, names


def _read(design, names, path, processes, read_settings):
    with GatheredWriter(path, design.name) as spool:
        found = live.read_fleet_split(design, names, lambda name, reader: {}, read_settings, lambda raw: raw, 8, spool,
                                      processes)
        count = spool.count
    return found, count, {name: {key: value for key, value in result.items() if key not in TIMING}
                          for name, result in read_gathered([path], design.name).items()}


@hypothesis_settings(max_examples=6, deadline=None)
@given(processes=st.integers(min_value=2, max_value=5),
       left=st.sets(st.integers(min_value=0, max_value=40), max_size=3))
def test_a_reading_split_between_processes_gathers_what_one_process_gathers(
        monkeypatch_module, processes, left, tmp_path_factory):
    """Every device once, with the same reading, whatever the number of processes; the devices left to the per-host
    path and the probe duties come back from every process; the parts are joined and gone."""
    design, names = monkeypatch_module
    left_to_ansible = {names[index % len(names)] for index in left}
    _READ_FAILS.clear()
    _READ_FAILS.update(left_to_ansible)
    read_settings = live.Settings(counters=False, rnic=False)
    work = tmp_path_factory.mktemp('split')
    one = _read(design, names, str(work / 'one.json'), 1, read_settings)
    split = _read(design, names, str(work / 'split.json'), processes, read_settings)
    assert split[2] == one[2]
    assert set(split[2]) == set(names) - left_to_ansible and split[1] == one[1] == len(names) - len(left_to_ansible)
    assert split[0] == one[0] and set(split[0]['per_host']) == left_to_ansible
    assert sorted(os.listdir(work)) == ['one.json', 'split.json']


_READ_FAILS: set = set()


@pytest.fixture(scope='module')
def monkeypatch_module():
    """_fleet() patched once for the module (hypothesis runs its examples in one test call)."""
    with pytest.MonkeyPatch.context() as patch:
        design, names = _fleet(patch, _READ_FAILS)
        yield design, names


def test_a_reader_process_that_fails_fails_the_reading_and_leaves_no_file(monkeypatch, tmp_path):
    """A process that cannot write its part (here its sink raises) ends the reading at once with its error named:
    the other processes, still reading devices that take a minute, are stopped, and the gathered file and every part
    are removed."""
    design, names = _fleet(monkeypatch)
    quick = set(names[1::3])  # the failing process's share: the others' devices answer only after a minute
    gatherer_types = {type(live.DeviceReading(design, name, live.Settings()).gatherer) for name in names}
    for gatherer in gatherer_types:
        answer = gatherer.read_async

        async def slow(self, target, commands, answer=answer):
            if target.device not in quick:
                await asyncio.sleep(60)
            return await answer(self, target, commands)
        monkeypatch.setattr(gatherer, 'read_async', slow)
    real_add = GatheredWriter.add

    def add(self, name, result):
        if self.part and name == names[1]:
            raise OSError(28, 'No space left on device')
        return real_add(self, name, result)

    monkeypatch.setattr(GatheredWriter, 'add', add)
    path = str(tmp_path / 'gathered.json')
    started = time.monotonic()
    with pytest.raises(live.FleetReadError, match='No space left on device'):
        _read(design, names, path, 3, live.Settings(counters=False, rnic=False, timeout=120))
    assert time.monotonic() - started < 30  # not the minute the other processes' devices take
    assert not glob.glob(str(tmp_path / '*'))


@pytest.mark.parametrize('requested, devices, cores, expected', [
    (0, 3328, 2, 2), (0, 3328, 64, 13), (0, 300, 8, 1), (0, 10, 8, 1), (0, 0, 8, 1),
    (4, 3328, 2, 4), (4, 3, 2, 3), (1, 3328, 8, 1)])
def test_the_processes_are_the_cores_at_most_one_per_share_of_devices(
        monkeypatch, requested, devices, cores, expected):
    monkeypatch.setattr(os, 'cpu_count', lambda: cores)
    assert live.reader_processes(requested, devices) == expected
