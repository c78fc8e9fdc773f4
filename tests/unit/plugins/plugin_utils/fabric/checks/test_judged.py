# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The results of a run counted as they come (checks.judge): every reader gets what the whole list would give it."""

import dataclasses
import os
import pickle

import pytest
from hypothesis import given, settings, strategies as st

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import causes, prometheus, report
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks.judged import FULL_RESULTS, Judged
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks.gathered import (
    GatheredError, iter_gathered, write_gathered)
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.forked import shares_of

from tests.unit.plugins.plugin_utils.fabric.state.captures import INTENT, scenario_states
from tests.unit.plugins.plugin_utils.fabric.checks.test_causes import edit, set_sessions

DEVICES = ['leaf001', 'leaf002', 'spine001', 'gpu0001']


def _unreadable(result, whose):
    """The result as the error of a check whose device (`whose` None) or far end (`whose`) could not be read at all,
    or of one state of it (`whose` ''): as checks.state_problem writes them."""
    if whose == '':
        return dataclasses.replace(result, status=checks.ERROR, facts={'unreadable': result.device, 'state': 'bgp'})
    return dataclasses.replace(result, status=checks.ERROR, facts={
        'unreadable': whose or result.device, 'state': 'bgp', 'whole_device': True})


RESULTS = st.lists(st.one_of(
    st.builds(checks.Result, device=st.sampled_from(DEVICES),
              check=st.sampled_from(['bgp_session', 'link_mtu', 'lossless_pfc']), subject=st.sampled_from(['a', 'b', 'c']),
              status=st.sampled_from(checks.STATUSES), seen=st.sampled_from(['x', 'y']),
              link=st.sampled_from([None, 'leaf001 eth3', 'leaf002 eth3'])),
    st.builds(_unreadable, st.builds(checks.Result, device=st.sampled_from(DEVICES),
                                     check=st.sampled_from(['bgp_session', 'link_mtu']), subject=st.sampled_from(['a', 'b']),
                                     status=st.just(checks.ERROR), seen=st.sampled_from(['down', 'refused'])),
              st.sampled_from([None, None, '', 'spine001']))), max_size=40)


def _unread_device(result):
    facts = result.facts or {}
    return result.device if result.status == checks.ERROR and facts.get('whole_device') and \
        facts.get('unreadable') == result.device else None


def _kept_aggregated(results) -> list:
    """What an aggregated run keeps whole: no pass, and of the errors of a device that could not be read at all only
    its first."""
    kept, seen = [], set()
    for item in results:
        device = _unread_device(item)
        if item.status == checks.PASS or (device is not None and device in seen):
            continue
        seen.add(device)
        kept.append(item)
    return kept


GROUPS = {'leaf001': 'leaf frr', 'leaf002': 'leaf frr', 'spine001': 'spine frr', 'gpu0001': 'host'}


@settings(max_examples=300, deadline=None)
@given(RESULTS, st.integers(min_value=0, max_value=30))
def test_counts_links_and_kept_results_are_those_of_the_whole_list(results, keep):
    judged = Judged(GROUPS.get, keep_passes=keep, remember={'bgp_session'})
    judged.extend(results)
    assert judged.total == len(results) and judged.aggregated == (len(results) > keep)
    # the passes go once the run is larger than `keep`, and the errors of an unread device but its first; every
    # other result stays, in the order added
    aggregated = len(results) > keep
    assert judged.results == (_kept_aggregated(results) if aggregated else results)
    assert judged.problems() == [item for item in judged.results if item.status in (checks.FAIL, checks.ERROR)]
    problems = {}
    for item in results:
        if item.status in (checks.FAIL, checks.ERROR):
            problems[(item.device, item.check)] = problems.get((item.device, item.check), 0) + 1
    assert judged.problem_counts() == problems
    unread = {}
    for item in results if aggregated else ():
        if _unread_device(item):
            entry = unread.setdefault(item.device, {'device': item.device, 'errors': 0, 'checks': set(),
                                                    'seen': item.seen})
            entry['errors'] += 1
            entry['checks'].add(item.check)
    assert judged.unread_devices() == [dict(entry, checks=len(entry['checks'])) for _device, entry in sorted(unread.items())]
    for status in checks.STATUSES:
        assert judged.counts[status] == sum(item.status == status for item in results)
        for check in {item.check for item in results}:
            assert judged.by_check[check][status] == sum(item.status == status and item.check == check for item in results)
        for device in {item.device for item in results}:
            assert judged.by_device[device][status] == sum(item.status == status and item.device == device
                                                           for item in results)
    assert list(judged.by_device) == list(dict.fromkeys(item.device for item in results))
    rank = {checks.FAIL: 0, checks.ERROR: 1, checks.PASS: 2}
    for link in {item.link for item in results if item.link}:
        statuses = [item.status for item in results if item.link == link and item.status != checks.NOT_APPLICABLE]
        assert judged.links.get(link) == (min(statuses, key=rank.get) if statuses else None)
    passes = [item for item in results if item.status == checks.PASS]
    assert judged.passed_keys == {(item.device, item.check, item.subject) for item in passes if item.check == 'bgp_session'}
    expected = {}
    for item in passes:
        entry = expected.setdefault((item.check, GROUPS[item.device]), {
            'check': item.check, 'group': GROUPS[item.device], 'results': 0, 'devices': set(),
            'example': {'device': item.device, 'subject': item.subject, 'expected': item.expected, 'seen': item.seen}})
        entry['results'] += 1
        entry['devices'].add(item.device)
    assert judged.passed_aggregates() == [dict(entry, devices=len(entry['devices']))
                                          for _key, entry in sorted(expected.items())]


def test_a_judged_run_reports_and_explains_as_its_whole_list():
    """report.json, the Prometheus textfile and the causes from checks.judge() are those of checks.run()'s list, for
    a run that keeps every pass and for one larger than the report lists whole (the session seen Established on one
    end only needs the remembered passes)."""
    design = design_from_file(INTENT)
    states = edit(scenario_states('healthy'), 'leaf001', 'bgp_summary', lambda data: set_sessions(data, 'Connect'))
    options = {'lossless_phases': ('design', 'deployed'), 'read_at': {'leaf001': 1000.0, 'spine001': 1014.0}}
    listed = checks.run(checks.Context(design, states, options))
    for keep in (FULL_RESULTS, 10):
        ctx = checks.Context(design, states, options)
        judged = Judged(report.device_group_of(design), keep_passes=keep, remember={'bgp_session'})
        judged.extend(checks.run(ctx))
        assert judged.aggregated == (keep == 10)
        found_list, found_judged = causes.analyse(ctx, listed), causes.analyse(ctx, judged)
        assert [cause.to_dict(1) for cause in found_judged] == [cause.to_dict(1) for cause in found_list]
        assert found_judged[0].kind == 'session_changed'
        built = report.build(design, judged, {'mode': 'test'}, causes=found_judged)
        whole = report.build(design, listed, {'mode': 'test'}, causes=found_list)
        if keep == 10:  # the whole list, larger than FULL_RESULTS would be: its passes aggregated the same way
            assert built['passed'] == Judged.of(listed, report.device_group_of(design)).passed_aggregates()
            assert built['results'] == [row for row in whole['results'] if row['status'] != checks.PASS]
            assert {key: value for key, value in built['summary'].items() if key != 'passes_aggregated'} == \
                {key: value for key, value in whole['summary'].items() if key != 'passes_aggregated'}
        else:
            assert built == whole
        exposition = prometheus.exposition_of(design.name, judged, built['summary'], 0.0).text()
        assert exposition == prometheus.exposition_of(design.name, listed, whole['summary'], 0.0).text()


@pytest.mark.parametrize('down', [['spine001'], ['leaf001', 'gpu0001'], 'all'])
def test_devices_that_could_not_be_read_are_counted_at_scale_and_explained_as_when_listed(down):
    """A fabric of unreachable devices: once aggregated, each such device keeps its first error whole (its cause names
    it from that) and counts the others per check; the causes, counts, Prometheus failures and every other result
    are those of the whole list (an all-unreachable 16k fabric wrote a 1.16 GB report.json of 935,944 errors)."""
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.gatherer import UNREADABLE
    design = design_from_file(INTENT)
    states = scenario_states('healthy')
    down = sorted(states) if down == 'all' else down
    for name in down:
        states[name] = {UNREADABLE: '%s is unreachable: connection refused' % name}
    options = {'lossless_phases': ('design', 'deployed')}
    listed = checks.run(checks.Context(design, states, options))
    ctx = checks.Context(design, states, options)
    judged = Judged(report.device_group_of(design), keep_passes=10, remember={'bgp_session'})
    judged.extend(checks.run(ctx))
    found_list, found_judged = causes.analyse(ctx, listed), causes.analyse(ctx, judged)
    assert [(cause.kind, cause.title, cause.devices, len(cause.consequences)) for cause in found_judged] == \
        [(cause.kind, cause.title, cause.devices, len(cause.consequences)) for cause in found_list]
    assert {device for cause in found_judged if cause.kind == 'unreadable' for device in cause.devices} == set(down)
    assert [len(cause.evidence) + cause.counted for cause in found_judged] == [len(cause.evidence) for cause in found_list]
    errors = {name: [item for item in listed if _unread_device(item) == name] for name in down}
    assert all(len(errors[name]) > 1 for name in down)  # each check of the device says so
    built = report.build(design, judged, {'mode': 'test'}, causes=found_judged)
    whole = report.build(design, listed, {'mode': 'test'}, causes=found_list)
    assert built['summary']['errors'] == whole['summary']['errors'] and built['summary']['unread_aggregated'] == len(down)
    assert built['unread'] == [{'device': name, 'errors': len(errors[name]), 'checks': len({item.check for item in errors[name]}),
                                'seen': errors[name][0].seen} for name in sorted(down)]
    kept = [row for row in built['results'] if row['status'] == checks.ERROR and row['device'] in down
            and (row.get('facts') or {}).get('whole_device') and row['facts']['unreadable'] == row['device']]
    assert sorted(row['device'] for row in kept) == sorted(down)
    others = [row for row in whole['results'] if row['status'] != checks.PASS and not (
        row['device'] in down and (row.get('facts') or {}).get('whole_device') and row['facts']['unreadable'] == row['device'])]
    assert [row for row in built['results'] if row not in kept] == others
    assert prometheus.exposition_of(design.name, judged, built['summary'], 0.0).text() == \
        prometheus.exposition_of(design.name, listed, whole['summary'], 0.0).text()
    text = report.markdown(built)
    assert '## Devices that could not be read (%d)' % len(down) in text
    assert all('| %s | %d |' % (name, len(errors[name])) in text for name in down)
    assert 'Devices that could not be read (%d)' % len(down) in report.to_html(design, built)


def test_judge_remembers_the_passes_the_causes_ask_about():
    design = design_from_file(INTENT)
    ctx = checks.Context(design, scenario_states('healthy'), {'lossless_phases': ('design', 'deployed')})
    judged = checks.judge(ctx)
    assert judged.remember == {item.id for item in checks.REGISTRY.values() if item.remember_passes} == {'bgp_session'}
    assert judged.passed_keys and {check for _device, check, _subject in judged.passed_keys} == {'bgp_session'}
    options = {'lossless_phases': ('design', 'deployed')}
    assert judged.total == len(checks.run(checks.Context(design, scenario_states('healthy'), options)))


def _fields(judged):
    """Everything a Judged gives its readers."""
    return (judged.total, judged.counts, judged.by_check, list(judged.by_check), judged.by_device, list(judged.by_device),
            judged.links, judged.passed_aggregates(), judged.passed_keys, judged.results, judged.aggregated,
            judged.unread_devices(), judged.problem_counts())


@settings(max_examples=300, deadline=None)
@given(RESULTS, st.integers(min_value=0, max_value=30), st.lists(st.integers(min_value=0, max_value=40), max_size=4))
def test_shares_judged_apart_and_joined_are_the_whole_list_judged_at_once(results, keep, cuts):
    """What checks.judge joins from its processes (each Judged sent back pickled, without its grouping function):
    the counts, links, aggregates, remembered passes and kept results of the whole list added one by one."""
    bounds = [0] + sorted(min(cut, len(results)) for cut in cuts) + [len(results)]
    parts = []
    for start, end in zip(bounds, bounds[1:]):
        part = Judged(GROUPS.get, keep_passes=keep, remember={'bgp_session'})
        part.extend(results[start:end])
        parts.append(pickle.loads(pickle.dumps(part)))
    joined = parts[0]
    joined.group_of = GROUPS.get
    for later in parts[1:]:
        joined.join(later)
    whole = Judged(GROUPS.get, keep_passes=keep, remember={'bgp_session'})
    whole.extend(results)
    assert _fields(joined) == _fields(whole)


def test_judging_in_processes_gives_the_results_of_one_process():
    """checks.judge with 2 and 3 processes forked from this one: the same results in the same order, the same report
    and causes, on a fabric with a fault whose cause needs both ends of a session."""
    design = design_from_file(INTENT)
    states = edit(scenario_states('healthy'), 'leaf001', 'bgp_summary', lambda data: set_sessions(data, 'Connect'))
    options = {'lossless_phases': ('design', 'deployed'), 'read_at': {'leaf001': 1000.0, 'spine001': 1014.0}}
    made = {}
    for processes in (1, 2, 3):
        ctx = checks.Context(design, states, options)
        judged = checks.judge(ctx, processes=processes)
        found = causes.analyse(ctx, judged)
        made[processes] = (_fields(judged), report.build(design, judged, {'mode': 'test'}, causes=found),
                           [cause.to_dict(1) for cause in found])
    assert made[1][2] and made[1][2][0]['kind'] == 'session_changed'
    assert made[2] == made[1] and made[3] == made[1]


def test_readings_parsed_in_processes_judge_as_parsed_in_one(tmp_path):
    """checks.take_in_processes: each process reads its share of a gathered file (the others' lines no further than
    their names) and parses it; the parsed states, errors kept for the checks included, judge as those of one process."""
    design = design_from_file(INTENT)
    states = edit(scenario_states('healthy'), 'leaf001', 'bgp_summary', lambda data: set_sessions(data, 'Connect'))
    states['spine001']['lldp'] = dict(states['spine001']['lldp'], stdout='{"lldp": garbled')  # a StateError kept
    path = write_gathered(str(tmp_path / 'fleet.json'), design.name,
                          {name: {'state': raw, 'read_at': 1000.0 + index} for index, (name, raw) in enumerate(states.items())})
    names = sorted(states)
    made = {}
    for processes in (1, 2, 3):
        ctx = checks.Context(design, {}, {'lossless_phases': ('design', 'deployed')})

        def take(share, ctx=ctx):
            taken = {}
            for name, item in iter_gathered([path], design.name, only=frozenset(share)):
                ctx.states[name] = checks.DeviceState(name, item['state'])
                ctx.state(name).parse_all()
                taken[name] = item['read_at']
            return taken
        taken = take(names) if processes == 1 else checks.take_in_processes(ctx, shares_of(names, processes), take)
        assert all(ctx.states[name].raw and ctx.states[name].packing for name in names)
        judged = checks.judge(ctx)
        made[processes] = (taken, _fields(judged), [cause.to_dict(1) for cause in causes.analyse(ctx, judged)])
    assert any(item.status == checks.ERROR and item.device == 'spine001' for item in made[1][1][9])
    assert made[1][2] and made[2] == made[1] and made[3] == made[1]


def test_a_share_that_cannot_be_taken_fails_the_taking_with_its_error(tmp_path):
    design = design_from_file(INTENT)
    path = tmp_path / 'fleet.json'
    path.write_text('{"format":2,"fabric":"%s"}\n{"device":"leaf001","result":{}}\n{"device":"spine001","result":[]}\n'
                    % design.name)
    ctx = checks.Context(design, {})

    def take(share):
        return dict(iter_gathered([str(path)], design.name, only=frozenset(share)))
    with pytest.raises(GatheredError, match='line 3 is not a device'):
        checks.take_in_processes(ctx, [['leaf001'], ['spine001']], take)
    assert checks.take_in_processes(ctx, [['leaf001'], ['gpu0001']], take) == {'leaf001': {}}


def test_a_judging_process_that_fails_fails_the_judging_naming_it(monkeypatch):
    design = design_from_file(INTENT)
    ctx = checks.Context(design, scenario_states('healthy'), {'lossless_phases': ('design', 'deployed')})
    names = list(design.device_names())
    run_into = checks._run_into  # pylint: disable=protected-access

    def failing(results, ctx_, devices, *args):
        if names[-1] in devices:
            raise RuntimeError('no memory left')
        return run_into(results, ctx_, devices, *args)

    monkeypatch.setattr(checks, '_run_into', failing)
    with pytest.raises(checks.JudgingError, match=r'judging process 1 \(devices \S+ to %s\): RuntimeError: no memory '
                                                  r'left' % names[-1]):
        checks.judge(ctx, processes=2)

    def killed(results, ctx_, devices, *args):
        if names[0] in devices:
            os._exit(1)  # pylint: disable=protected-access
        return run_into(results, ctx_, devices, *args)

    monkeypatch.setattr(checks, '_run_into', killed)
    with pytest.raises(checks.JudgingError, match='judging process 0 ended without an answer'):
        checks.judge(ctx, processes=2)


@pytest.mark.parametrize('requested, cores, devices, expected', [
    (0, 2, 3328, 2), (0, 8, 700, 2), (0, 4, 100, 1), (0, None, 5000, 1), (3, 2, 10, 3), (5, 2, 2, 2), (1, 8, 5000, 1)])
def test_the_judging_processes_are_the_cores_at_most_one_per_share_of_devices(monkeypatch, requested, cores, devices,
                                                                              expected):
    monkeypatch.setattr(os, 'cpu_count', lambda: cores)
    assert checks.judge_processes(requested, devices) == expected
