# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Validation reports: counts, failures first with expected vs seen, not-applicable reasons, size limits."""

import json
import os
import re

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import report
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file

from tests.unit.plugins.plugin_utils.fabric.state.captures import INTENT, REPO, scenario_states


@pytest.fixture(scope='module')
def design():
    return design_from_file(INTENT)


def results_of(design, scenario):
    return checks.run(checks.Context(design, scenario_states(scenario), {'lossless_phases': ('design', 'deployed')}))


def test_summary_counts_and_failures_first(design, tmp_path):
    results = results_of(design, 'wrong_route_target')
    built = report.build(design, results, {'mode': 'test'})
    summary = built['summary']
    assert summary['checks_run'] == summary['passed'] + summary['failed'] + summary['errors']
    assert summary['results'] == len(results) and summary['failed'] == 7 and not summary['ok']
    statuses = [item['status'] for item in built['results']]
    assert statuses == sorted(statuses, key=checks.STATUSES.index)
    assert built['checks']['evpn_route_target']['fail'] == 1 and built['checks']['lossless_pfc']['rules'] == ['C03', 'C18']
    paths = report.write(design, built, str(tmp_path))
    text = open(paths['markdown'], encoding='utf-8').read()
    assert text.startswith('# Validation of fabric capture: FAILED')
    assert text.index('## Failures (7)') < text.index('## Checks') < text.index('## Not applicable') < text.index('## Passed')
    assert '| leaf001 | evpn_route_target | VNI 10100 | import 65000:10100, export 65000:10100 | ' \
           'import 65000:10999, export 65000:10999 |' in text
    assert json.loads(open(paths['json'], encoding='utf-8').read())['summary'] == summary


def test_not_applicable_grouped_by_reason(design):
    text = report.markdown(report.build(design, results_of(design, 'healthy')))
    section = text.split('## Not applicable', 1)[1].split('## Passed', 1)[0]
    rows = [line for line in section.splitlines() if line.startswith('| not applicable')]
    lossless = [line for line in rows if '| lossless_' in line or '| host_switch' in line or '| link_lossless' in line]
    assert lossless and all('cannot exist in a software lab' in line for line in lossless)
    # one reason for the lab switches, one for the hosts facing them, two for counters (FRR reads none, and the
    # captured hosts' counters were not read), one for ANTA (eAPI only); every result is grouped under its reason
    assert len(rows) == 5


def test_failure_lines_name_device_check_expected_seen(design):
    lines = report.failure_lines(results_of(design, 'host_mtu_1500'))
    assert lines[0] == 'gpu0001 interface_mtu [eth1]: expected MTU 9000; seen MTU 1500'
    assert len(report.failure_lines(results_of(design, 'bgpd_stopped'), limit=2)) == 3


def test_html_is_escaped_and_has_the_fabric_picture(design):
    results = results_of(design, 'healthy')
    results.append(checks.Result('leaf001', 'bgp_session', '<script>', checks.FAIL, 'a & b', '"c"'))
    html = report.to_html(design, report.build(design, results))
    assert '<script>' not in html.split('<body>', 1)[1] and '&lt;script&gt;' in html
    assert html.count('<rect') == len(design.device_names()) and 'fill="#e55"' in html


def test_large_reports_stay_readable(design, tmp_path):
    results = [checks.Result('leaf001', 'bgp_session', 'peer %d' % index, checks.PASS, 'x', 'y') for index in range(2500)]
    paths = report.write(design, report.build(design, results), str(tmp_path))
    text = open(paths['markdown'], encoding='utf-8').read()
    assert 'the first 500 passed results (report.json has all)' in text
    assert text.count('| leaf001 | bgp_session | peer ') == report.PASSED_ROWS
    assert len(json.loads(open(paths['json'], encoding='utf-8').read())['results']) == 2500


def test_every_check_is_documented():
    with open(os.path.join(REPO, 'docs', 'validation.md'), encoding='utf-8') as handle:
        text = handle.read()
    section = text.split('## The checks', 1)[1].split('## Variables', 1)[0]
    documented = set(re.findall(r'^\| `([a-z0-9_]+)` \|', section, re.M))
    assert documented == set(checks.REGISTRY)
