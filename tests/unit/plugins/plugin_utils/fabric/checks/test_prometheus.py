# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Prometheus textfile: valid text exposition (parsed by prometheus_client's reference parser), escaped
labels, counters and rates of both ends of every link, verdicts, and an atomic write."""

import os
import stat

import pytest
from prometheus_client.parser import text_string_to_metric_families

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import health, prometheus, report

from tests.unit.plugins.plugin_utils.fabric.checks.test_health import Fleet, design  # noqa: F401  pylint: disable=unused-import


def families(text):
    return {family.name: family for family in text_string_to_metric_families(text)}


def exposition(fleet):
    ctx = checks.Context(fleet.design, fleet.states(), {})
    results = checks.run(ctx, categories=('health',))
    summary = report.build(fleet.design, results)['summary']
    return prometheus.build(fleet.design.name, results, summary, 1732449771.5,
                            health.counter_links(ctx, fleet.design.device_names())), results


def test_counters_rates_and_verdicts_parse_with_the_reference_parser(design):  # noqa: F811
    fleet = Fleet(design)
    fleet.host('gpu0001', 'eth1', 3, tx_pause=120000)
    text, results = exposition(fleet)
    parsed = families(text)
    assert parsed['aifabric_validation_ok'].samples[0].value == 0
    assert parsed['aifabric_validation_timestamp_seconds'].samples[0].value == 1732449771.5
    pause = {(sample.labels['device'], sample.labels['port'], sample.labels['direction'], sample.labels['priority']): sample
             for sample in parsed['aifabric_pfc_pause_frames_per_second'].samples}
    assert pause[('gpu0001', 'eth1', 'tx', '3')].value == 12000.0
    assert pause[('gpu0001', 'eth1', 'tx', '3')].labels['peer'] == 'leaf001'
    totals = {(sample.labels['device'], sample.labels['port'], sample.labels['direction'], sample.labels['priority']): sample
              for sample in parsed['aifabric_pfc_pause_frames'].samples if sample.name == 'aifabric_pfc_pause_frames_total'}
    assert totals[('leaf001', 'Ethernet0', 'tx', '3')].value == 907
    assert parsed['aifabric_pfc_pause_frames'].type == 'counter'
    failures = {(sample.labels['device'], sample.labels['check']): sample.value
                for sample in parsed['aifabric_validation_failures'].samples}
    assert failures == {('gpu0001', 'health_pfc_pause'): 1}
    stormed = list(parsed['aifabric_pfc_watchdog_stormed'].samples)
    assert stormed and all(sample.value == 0 for sample in stormed)
    rdma = {sample.labels['counter'] for sample in parsed['aifabric_rdma_counter_per_second'].samples}
    assert {'np_cnp_sent', 'rp_cnp_handled', 'out_of_sequence'} <= rdma
    counted = {(sample.labels['check'], sample.labels['status']): sample.value
               for sample in parsed['aifabric_validation_results'].samples}
    assert counted[('health_pfc_pause', 'fail')] == 1 and sum(counted.values()) == len(results)


def test_every_sample_line_has_help_and_type_once(design):  # noqa: F811
    text = exposition(Fleet(design))[0]
    lines = text.splitlines()
    helps = [line.split()[2] for line in lines if line.startswith('# HELP ')]
    types = [line.split()[2] for line in lines if line.startswith('# TYPE ')]
    assert helps == types and len(set(helps)) == len(helps)
    assert text.endswith('\n') and all(line.startswith(('# HELP ', '# TYPE ', 'aifabric_')) for line in lines)


def test_label_values_are_escaped():
    out = prometheus.Exposition()
    out.add('aifabric_validation_failures', {'fabric': 'f', 'device': 'a"b\\c\nd', 'check': 'x'}, 2)
    text = out.text()
    assert 'device="a\\"b\\\\c\\nd"' in text
    sample = families(text)['aifabric_validation_failures'].samples[0]
    assert sample.labels['device'] == 'a"b\\c\nd' and sample.value == 2


@pytest.mark.parametrize('name, labels', [('undeclared_metric', {'a': 'b'}), ('aifabric_validation_ok', {'bad-label': 'x'})])
def test_undeclared_names_are_refused(name, labels):
    with pytest.raises(ValueError):
        prometheus.Exposition().add(name, labels, 1)


def test_nothing_checked_is_not_ok():
    text = prometheus.build('lab', [], {'ok': True, 'checks_run': 0}, 0)
    assert families(text)['aifabric_validation_ok'].samples[0].value == 0


def test_atomic_write_leaves_no_temporary_and_is_readable(tmp_path):
    path = str(tmp_path / 'textfile' / 'aifabric-lab.prom')
    prometheus.write(path, 'first\n')
    prometheus.write(path, 'second\n')
    assert open(path, encoding='utf-8').read() == 'second\n'
    assert os.listdir(os.path.dirname(path)) == ['aifabric-lab.prom']
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o644


def health_textfile(design):  # noqa: F811
    """(fleet, health results, summary, counter links, the textfile build() gives) of the health fleet."""
    fleet = Fleet(design)
    ctx = checks.Context(fleet.design, fleet.states(), {})
    results = checks.run(ctx, categories=('health',))
    summary = report.build(fleet.design, results)['summary']
    links = list(health.counter_links(ctx, fleet.design.device_names()))
    return fleet, results, summary, links, prometheus.build(fleet.design.name, results, summary, 1.0, links)


def test_the_textfile_is_written_one_metric_at_a_time_as_built(design, tmp_path):  # noqa: F811
    """A fleet's textfile is hundreds of MB: the report set writes it from the Exposition piece by piece (and the
    copy at prometheus_file too), byte for byte the text build() gives."""
    fleet, results, summary, links, whole = health_textfile(design)
    pieces = prometheus.exposition_of(fleet.design.name, results, summary, 1.0, links)
    written = report.write_files(str(tmp_path / 'set'), {'a.prom': pieces})['a.prom']
    copy = prometheus.write(str(tmp_path / 'copy' / 'b.prom'), pieces)
    assert len(list(pieces.chunks())) > 2
    assert open(written, encoding='utf-8').read() == open(copy, encoding='utf-8').read() == whole
    assert families(whole)['aifabric_validation_ok']


def test_a_large_textfile_is_kept_in_temporary_files_not_in_memory(design, monkeypatch):  # noqa: F811
    """Past `in_memory` bytes a metric's samples live in a temporary file: the text is the same, each piece the
    writer takes is bounded, and the lines the Exposition itself holds stay fewer than a batch."""
    fleet, results, summary, links, whole = health_textfile(design)
    monkeypatch.setattr(prometheus.Exposition, 'BATCH', 3)
    monkeypatch.setattr(prometheus.Exposition, 'READ', 100)
    spooled = prometheus.Exposition(in_memory=200)
    monkeypatch.setattr(prometheus, 'Exposition', lambda: spooled)
    prometheus.exposition_of(fleet.design.name, results, summary, 1.0, links)
    assert any(text._rolled for text in spooled._texts.values())  # pylint: disable=protected-access  # on disk
    assert max(len(lines) for lines in spooled.samples.values()) < 3
    pieces = list(spooled.chunks())
    assert ''.join(pieces) == spooled.text() == whole
    # read back from the files at most READ characters at a time; the lines not appended yet (fewer than a batch)
    assert all(len(piece) <= 100 or piece.count('\n') < 3 for piece in pieces if not piece.startswith('# HELP'))
    spooled.add('aifabric_validation_timestamp_seconds', {'fabric': 'late'}, 2.0)  # added after a read: kept in order
    assert spooled.text().endswith('aifabric_validation_timestamp_seconds{fabric="late"} 2.0\n')
