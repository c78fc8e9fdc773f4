# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Faults drawn from the design, made on the lab, replayed from what the lab's devices printed: real FRR 8.4, lldpd,
iproute2 and ping outputs (tests/unit/fixtures/state/lab_faults, recorded with `benchmarks/lab_faults.py --seed 36
--rounds 8 --per-round 3 --capture DIR` and kept by tests/faults/captures.py; see the fixtures' README), through the gatherers' parsers, the
checks and the engine. For every fault the first cause blaming its device is of the fault's kind; a device without a
fault is never blamed. (Drift needs the deploy in check mode, which the capture does not read: its own tests are
checks/test_drift.py and the lab's clab_faults.)"""

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import causes
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file

from tests.faults import captures
from tests.faults.generator import Fault
from tests.faults.judge import judge
from tests.unit.utils.paths import ROOT as REPO


@pytest.fixture(scope='module')
def lab():
    return design_from_file('%s/fabrics/lab.yml' % REPO)


def replay(design, states):
    ctx = checks.Context(design, states, {'lossless_phases': ('deployed',)})
    results = checks.run(ctx, categories=('fabric',))
    return results, causes.analyse(ctx, results)


def test_the_healthy_lab_has_no_cause(lab):
    results, found = replay(lab, captures.load_healthy())
    assert found == [] and not [item.line() for item in results if item.status in ('fail', 'error')]


@pytest.mark.parametrize('name', captures.rounds())
def test_each_captured_round_names_every_fault_first_and_nothing_healthy(lab, name):
    """Faults that only the configuration shows (drift: maximum-paths, a rail rule, a sysctl, nccl.conf) need the
    deploy in check mode, which the capture does not read: they are judged in clab_faults, not here."""
    states, faults = captures.load(name)
    faults = [Fault(fault) for fault in faults]
    _results, found = replay(lab, states)
    verdict = judge(faults, found)
    wrong = [(item['fault']['title'], item['named'], item['title']) for item in verdict['faults']
             if not item['right'] and item['fault']['cause'] != 'drift']
    assert not wrong and not verdict['healthy_blamed'] and not verdict['unplaced'], (
        wrong, verdict, [cause.headline() for cause in found])
    assert any(item['right'] for item in verdict['faults'])


def test_the_captures_hold_every_kind_they_claim():
    kinds = {fault['kind'] for name in captures.rounds() for fault in captures.load(name)[1]}
    assert len(captures.rounds()) >= 4 and len(kinds) >= 8, kinds


@pytest.mark.parametrize('in_use', [checks.InUse.LIMIT, 0], ids=['in-use-default', 'unpacked-on-every-read'])
@pytest.mark.parametrize('name', captures.rounds()[:2])
def test_states_parsed_up_front_judge_as_read_and_let_the_raw_text_go(lab, name, in_use, monkeypatch):
    """The judging step parses each device's state as it takes it, drops the raw outputs and keeps the parsed state
    packed (DeviceState.parse_all, so a fleet's readings are never all in memory): the same results and causes as
    parsing on demand, faults and unreadable outputs included, also when every read unpacks anew."""
    monkeypatch.setattr(checks.IN_USE, 'LIMIT', in_use)
    states, _faults = captures.load(name)
    on_demand, causes_on_demand = replay(lab, states)
    ctx = checks.Context(lab, states, {'lossless_phases': ('deployed',)})
    for device in ctx.states:
        ctx.state(device).parse_all()
    kept = {(device, key) for device, state in ctx.states.items() for key, value in state.raw.items()
            if value is not None and state.gatherer.parser(key) is not None}
    assert not kept
    assert all(not state.unpacked for state in ctx.states.values())
    assert any(isinstance(value, checks.Packed) for state in ctx.states.values() for _ok, value in state._parsed.values())  # pylint: disable=protected-access
    up_front = checks.run(ctx, categories=('fabric',))
    assert checks.IN_USE.size <= max(in_use, max(len(value.data) for state in ctx.states.values()
                                                 for _ok, value in state._parsed.values()  # pylint: disable=protected-access
                                                 if isinstance(value, checks.Packed)))
    assert [item.to_dict() for item in up_front] == [item.to_dict() for item in on_demand]
    assert [cause.headline() for cause in causes.analyse(ctx, up_front)] == [cause.headline() for cause in causes_on_demand]
