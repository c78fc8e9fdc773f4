# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The lossless design phase made by a child process while the judging step takes the readings
(sides.DesignSidesAhead): the same sides as made in process, on every platform; nothing when the child fails."""

from __future__ import annotations

import os
import stat
import time

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import sides
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file

from tests.unit.utils.paths import ROOT

MIXED = os.path.join(ROOT, 'tests', 'doubles', 'fixtures', 'mixed.yml')  # EOS and SONiC leaves, NVUE spines
INTENTS = [MIXED, os.path.join(ROOT, 'fabrics', 'pod1k.yml'), os.path.join(ROOT, 'fabrics', 'lab.yml')]


def _comparable(side):
    error = side['error']
    return (side['views'], side['issues'], side['source'], side['na'],
            None if error is None else (error.source, error.message))


@pytest.mark.parametrize('intent', INTENTS, ids=os.path.basename)
def test_the_child_gives_the_sides_made_in_process(intent, monkeypatch):
    monkeypatch.setattr(sides, 'AHEAD_MIN_SWITCHES', 1)
    design = design_from_file(intent)
    names = sides.design_side_names(design, sorted(design.nodes))
    assert names == sorted(name for name, node in design.nodes.items() if node.role != 'host')
    ahead = sides.DesignSidesAhead(intent, names)
    ahead_ctx = checks.Context(design, {})
    assert ahead.install(ahead_ctx) == len(names)
    here = checks.Context(design, {})
    lossless = [name for name in names if ahead_ctx.cache[('switch_side', name, 'design')]['views']]
    # the lab's FRR switches have no lossless data plane (a reason, no views); the others are read back from their files
    assert lossless == ([] if intent.endswith('lab.yml') else names)
    for name in names:
        made_here = sides.switch_side(here, here.model(name), 'design')
        given = ahead_ctx.cache[('switch_side', name, 'design')]
        assert _comparable(given) == _comparable(made_here), name
        assert sides.switch_side(ahead_ctx, ahead_ctx.model(name), 'design') is given  # used, not made again


def test_a_limited_run_asks_for_its_switches_and_their_links_far_ends():
    design = design_from_file(MIXED)
    leaf = design.device_names('leaf')[0]
    spines = {link.end(design.nodes[leaf])[1].name for link in design.nodes[leaf].links} - set(design.device_names('host'))
    assert spines and sides.design_side_names(design, [leaf]) == sorted({leaf} | spines)
    server = design.device_names('host')[0]
    assert sides.design_side_names(design, [server]) == sorted(
        link.end(design.nodes[server])[1].name for link in design.nodes[server].links)


@pytest.mark.parametrize('child', ['import sys; sys.exit(3)', 'import sys; sys.stdout.write("not a pickle")',
                                   'import pickle, sys; sys.stdout.buffer.write(pickle.dumps((None, {"x": 1})))'],
                         ids=['fails', 'garbles', 'answers-for-other-switches'])
def test_a_child_that_fails_gives_nothing_and_the_sides_are_made_in_process(child, monkeypatch):
    monkeypatch.setattr(sides, 'AHEAD_MIN_SWITCHES', 1)
    monkeypatch.setattr(sides, '_CHILD', child)
    design = design_from_file(MIXED)
    names = sides.design_side_names(design, sorted(design.nodes))
    ctx = checks.Context(design, {})
    assert sides.DesignSidesAhead(MIXED, names).install(ctx) == 0
    assert not [key for key in ctx.cache if key[0] == 'switch_side']
    assert sides.switch_side(ctx, ctx.model(names[0]), 'design')['views']  # made here, when a check asks


def test_a_child_past_its_time_is_stopped(monkeypatch):
    monkeypatch.setattr(sides, 'AHEAD_MIN_SWITCHES', 1)
    monkeypatch.setattr(sides, 'AHEAD_TIMEOUT', 1)
    monkeypatch.setattr(sides, '_CHILD', 'import time; time.sleep(60)')
    design = design_from_file(MIXED)
    ahead = sides.DesignSidesAhead(MIXED, sides.design_side_names(design, sorted(design.nodes)))
    process = ahead.process
    started = time.monotonic()
    assert ahead.install(checks.Context(design, {})) == 0
    assert time.monotonic() - started < 30 and process.poll() is not None  # killed, not waited for


def test_a_small_fabric_starts_no_child():
    design = design_from_file(MIXED)
    names = sides.design_side_names(design, sorted(design.nodes))
    assert len(names) < sides.AHEAD_MIN_SWITCHES
    ahead = sides.DesignSidesAhead(MIXED, names)
    assert ahead.process is None and ahead.install(checks.Context(design, {})) == 0


def test_sides_of_an_intent_changed_since_are_not_used(monkeypatch):
    """The child designs from the file: if it is not the version the judging step designed from, its sides are not
    those of this design."""
    monkeypatch.setattr(sides, 'AHEAD_MIN_SWITCHES', 1)
    design = design_from_file(MIXED)
    names = sides.design_side_names(design, sorted(design.nodes))
    version = sides._file_version  # pylint: disable=protected-access
    monkeypatch.setattr(sides, '_file_version', lambda path: (0, 0))
    ahead = sides.DesignSidesAhead(MIXED, names)  # the parent saw another version than the child will
    monkeypatch.setattr(sides, '_file_version', version)
    ctx = checks.Context(design, {})
    assert ahead.process is not None and ahead.install(ctx) == 0
    assert not [key for key in ctx.cache if key[0] == 'switch_side']


def test_sides_a_fleet_reading_saved_are_the_judging_steps(tmp_path, monkeypatch):
    """A fleet reading starts the child (lowered priority) and saves its sides beside its spool; the judging step of
    the run takes them from the file (a subset of the switches is enough), as made in process."""
    monkeypatch.setattr(sides, 'AHEAD_MIN_SWITCHES', 1)
    design = design_from_file(MIXED)
    names = sides.design_side_names(design, sorted(design.nodes))
    path = sides.DesignSidesAhead(MIXED, names, nice=True).save(str(tmp_path / 'leaf001.json.sides'))
    assert path and stat.S_IMODE(os.stat(path).st_mode) == 0o600
    wanted = names[:3]
    ctx = checks.Context(design, {})
    assert sides.DesignSidesAhead.saved(path, MIXED, wanted).install(ctx) == len(wanted)
    assert sorted(key[1] for key in ctx.cache if key[0] == 'switch_side') == wanted
    here = checks.Context(design, {})
    for name in wanted:
        assert _comparable(ctx.cache[('switch_side', name, 'design')]) == _comparable(
            sides.switch_side(here, here.model(name), 'design'))


@pytest.mark.parametrize('case', ['missing', 'garbled', 'other-intent', 'other-switches'])
def test_saved_sides_that_cannot_be_used_give_nothing(case, tmp_path, monkeypatch):
    monkeypatch.setattr(sides, 'AHEAD_MIN_SWITCHES', 1)
    design = design_from_file(MIXED)
    names = sides.design_side_names(design, sorted(design.nodes))
    path = str(tmp_path / 'leaf001.json.sides')
    if case != 'missing':
        assert sides.DesignSidesAhead(MIXED, names[:2] if case == 'other-switches' else names).save(path) == path
    if case == 'garbled':
        with open(path, 'wb') as handle:
            handle.write(b'not a pickle')
    if case == 'other-intent':
        monkeypatch.setattr(sides, '_file_version', lambda _path: (1, 1))  # the intent changed since they were made
    ctx = checks.Context(design, {})
    assert sides.DesignSidesAhead.saved(path, MIXED, names).install(ctx) == 0
    assert not [key for key in ctx.cache if key[0] == 'switch_side']


def test_a_child_that_gives_nothing_saves_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(sides, 'AHEAD_MIN_SWITCHES', 1)
    monkeypatch.setattr(sides, '_CHILD', 'import sys; sys.exit(3)')
    design = design_from_file(MIXED)
    path = tmp_path / 'leaf001.json.sides'
    assert sides.DesignSidesAhead(MIXED, sides.design_side_names(design, sorted(design.nodes))).save(str(path)) is None
    assert not path.exists()
