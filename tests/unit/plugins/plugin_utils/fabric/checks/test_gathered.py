# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Gathered state in files (checks/gathered.py): what a fleet reading, or each slice of a sliced run, hands to the
judging step, joined there; a file that cannot be used is refused, naming it and why."""

from __future__ import annotations

import json
import os
import stat

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks.gathered import (
    GatheredError, iter_gathered, read_gathered, write_gathered)


def test_slices_written_then_joined(tmp_path):
    run = tmp_path / 'run'
    first = write_gathered(str(run / 'leaf001.json'), 'pod1', {'leaf001': {'state': {'a': 1}}, 'gpu0001': {'state': {}}})
    write_gathered(str(run / 'leaf002.json'), 'pod1', {'leaf002': {'state': {'b': 2}}})
    assert stat.S_IMODE(os.stat(first).st_mode) == 0o600  # running configurations are inside
    assert stat.S_IMODE(os.stat(run).st_mode) == 0o700
    assert read_gathered([str(run)], 'pod1') == {'leaf001': {'state': {'a': 1}}, 'gpu0001': {'state': {}},
                                                 'leaf002': {'state': {'b': 2}}}
    assert read_gathered([first], 'pod1') == {'leaf001': {'state': {'a': 1}}, 'gpu0001': {'state': {}}}


def test_a_device_read_by_two_slices_is_refused(tmp_path):
    write_gathered(str(tmp_path / 'a.json'), 'pod1', {'leaf001': {}})
    write_gathered(str(tmp_path / 'b.json'), 'pod1', {'leaf001': {}})
    with pytest.raises(GatheredError, match='leaf001 was read twice: in .*a.json and .*b.json'):
        read_gathered([str(tmp_path)], 'pod1')


@pytest.mark.parametrize('content, message', [
    ('{not json', 'cannot be read'),
    (json.dumps({'format': 3, 'fabric': 'pod1', 'devices': {}}), 'not a gathered-state file of format 1 or 2'),
    (json.dumps({'format': 1, 'fabric': 'pod1'}), 'not a gathered-state file of format 1'),
    ('{"format":2,"fabric":"pod1"}\n["leaf001"]\n', 'line 2 is not a device'),
    ('{"format":2,"fabric":"pod1"}\n{"device":"leaf001","result":', 'cannot be read'),
    (json.dumps(['leaf001']), 'not a gathered-state file'),
    (json.dumps({'format': 1, 'fabric': 'lab', 'devices': {}}), 'holds fabric lab, not pod1'),
])
def test_a_file_that_cannot_be_used_is_named(tmp_path, content, message):
    path = tmp_path / 'slice.json'
    path.write_text(content)
    with pytest.raises(GatheredError, match=message) as raised:
        read_gathered([str(path)], 'pod1')
    assert str(path) in str(raised.value)


def test_nothing_gathered_is_an_error_not_an_empty_fabric(tmp_path):
    with pytest.raises(GatheredError, match='no gathered state'):
        read_gathered([str(tmp_path)], 'pod1')


def test_a_fleet_written_device_by_device_keeps_what_the_judging_step_takes(tmp_path):
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks.gathered import GatheredWriter
    path = tmp_path / 'gathered' / 'leaf001.json'
    with GatheredWriter(str(path), 'pod1') as out:
        assert not path.exists()  # the file appears whole, at the end
        out.add('leaf001', {'state': {'a': 1}, 'read_at': 1.5, 'check_results': [{'big': 1}], 'passed': ['x']})
        out.add('gpu0001', {'state': {}, 'convergence': {'outcome': 'settled'}})
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert read_gathered([str(path)], 'pod1') == {'leaf001': {'state': {'a': 1}, 'read_at': 1.5},
                                                  'gpu0001': {'state': {}, 'convergence': {'outcome': 'settled'}}}
    with pytest.raises(RuntimeError):
        with GatheredWriter(str(tmp_path / 'broken.json'), 'pod1') as out:
            raise RuntimeError('the reading failed')
    assert sorted(os.listdir(tmp_path)) == ['gathered']  # nothing half-written left


def test_a_file_is_read_one_device_at_a_time(tmp_path):
    """The judging step takes each device as it is read: the devices before a broken line come out first, and the
    per-host readings a slice keeps (format 1, one document written by the validate role) are read too."""
    path = tmp_path / 'fleet.json'
    path.write_text('{"format":2,"fabric":"pod1"}\n{"device":"leaf001","result":{"state":{"a":1}}}\n{broken\n')
    devices = iter_gathered([str(path)], 'pod1')
    assert next(devices) == ('leaf001', {'state': {'a': 1}})
    with pytest.raises(GatheredError, match='fleet.json cannot be read'):
        next(devices)
    per_host = tmp_path / 'per-host.json'
    per_host.write_text(json.dumps({'format': 1, 'fabric': 'pod1', 'devices': {'gpu0001': {'state': {'b': 2}}}}))
    assert read_gathered([str(per_host)], 'pod1') == {'gpu0001': {'state': {'b': 2}}}


def test_a_share_of_the_devices_is_read_alone_and_a_device_found_twice_is_still_refused(tmp_path):
    """iter_gathered(only=...): a process judging a share of a fleet reads its devices' lines, the others' no further
    than their names; which devices it gets does not change what is refused."""
    readings = {'leaf%03d' % number: {'state': {'n': number}} for number in range(1, 7)}
    first = write_gathered(str(tmp_path / 'a.json'), 'pod1', dict(list(readings.items())[:4]))
    write_gathered(str(tmp_path / 'b.json'), 'pod1', dict(list(readings.items())[4:]))
    per_host = tmp_path / 'c-per-host.json'
    per_host.write_text(json.dumps({'format': 1, 'fabric': 'pod1', 'devices': {'gpu0001': {'state': {'b': 2}}}}))
    share = {'leaf002', 'leaf005', 'gpu0001', 'leaf999'}
    assert dict(iter_gathered([str(tmp_path)], 'pod1', only=share)) == {
        'leaf002': readings['leaf002'], 'leaf005': readings['leaf005'], 'gpu0001': {'state': {'b': 2}}}
    write_gathered(str(tmp_path / 'd.json'), 'pod1', {'leaf001': {}})
    with pytest.raises(GatheredError, match='leaf001 was read twice: in .*a.json and .*d.json'):
        list(iter_gathered([str(tmp_path)], 'pod1', only={'leaf002'}))
    assert first.endswith('a.json')


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from('ab",:\\{}') | st.characters(), min_size=1, max_size=12),
                min_size=1, max_size=8, unique=True), st.data())
def test_a_share_is_found_by_name_whatever_the_names_hold(names, data):
    """A device's name is read from its line without the rest: quotes, backslashes, ',"result":' and any character
    in a name give the same devices as decoding every line."""
    import tempfile  # pylint: disable=import-outside-toplevel
    share = set(data.draw(st.lists(st.sampled_from(names), unique=True)))
    with tempfile.TemporaryDirectory() as directory:
        path = write_gathered(os.path.join(directory, 'fleet.json'), 'pod1',
                              {name: {'state': {'name': name}} for name in names})
        wanted = {name: {'state': {'name': name}} for name in names if name in share}
        assert dict(iter_gathered([path], 'pod1', only=share)) == wanted
