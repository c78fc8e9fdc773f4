# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Validation reports: counts, failures first with expected vs seen, not-applicable reasons, size limits."""

import json
import os
import re

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import judged, report
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
    # captured hosts' counters were not read), one for ANTA (eAPI only), one for the marking probe and one for the
    # configuration drift (neither run in the captures); every result is grouped under its reason
    assert len(rows) == 7


def test_failure_lines_name_device_check_expected_seen(design):
    lines = report.failure_lines(results_of(design, 'host_mtu_1500'))
    assert lines[0] == 'gpu0001 interface_mtu [eth1]: expected MTU 9000; seen MTU 1500'
    assert len(report.failure_lines(results_of(design, 'bgpd_stopped'), limit=2)) == 3


def test_html_is_escaped_has_the_fabric_picture_and_opens_offline(design):
    results = results_of(design, 'healthy')
    results.append(checks.Result('leaf001', 'bgp_session', '<script>', checks.FAIL, 'a & b', '"c"'))
    html = report.to_html(design, report.build(design, results))
    assert '<script>' not in html.split('<body>', 1)[1] and '&lt;script&gt;' in html
    assert html.count('<rect') == len(design.device_names()) and 'fill="#e55"' in html
    # nothing is fetched: no script, stylesheet, image or font from anywhere (the SVG namespace is a name, not a URL)
    assert not re.search(r'<(script|link|img|iframe)\b|\b(src|href)=|@import|url\(', html)
    assert set(re.findall(r'https?://[^\s"\'<>]+', html)) <= {'http://www.w3.org/2000/svg'}


def test_nothing_checked_is_said_and_never_green(design, tmp_path):
    lab = design_from_file(os.path.join(REPO, 'fabrics', 'lab.yml'))
    results = checks.run(checks.Context(lab, {}, {'lossless_phases': ('design',)}), categories=('lossless',))
    built = report.build(lab, results)
    assert results and built['summary']['checks_run'] == 0 and built['summary']['verdict'] == 'NOTHING CHECKED'
    assert not built['summary']['ok']
    paths = report.write(lab, built, str(tmp_path))
    text = open(paths['markdown'], encoding='utf-8').read()
    assert text.startswith('# Validation of fabric lab: NOTHING CHECKED') and 'This is not a pass.' in text
    html = open(paths['html'], encoding='utf-8').read()
    assert 'verdict-none' in html and 'verdict-ok' not in html.split('<body>', 1)[1]


def test_health_findings_come_first(design):
    results = results_of(design, 'wrong_route_target')
    results.append(checks.Result('gpu0001', 'health_pfc_pause', 'eth1 <-> leaf001 eth1', checks.FAIL, 'x', 'storm',
                                 category='health', link='gpu0001 eth1'))
    built = report.build(design, results)
    assert built['results'][0]['check'] == 'health_pfc_pause' and built['summary']['health_findings'] == 1
    text = report.markdown(built)
    assert text.index('## Lossless health findings (1)') < text.index('## Failures (7)')
    assert report.failure_lines(results)[0].startswith('gpu0001 health_pfc_pause')


def test_picture_stays_readable_at_pod_scale_and_bundles_links():
    big = design_from_file(os.path.join(REPO, 'fabrics', 'pod1k.yml'))
    leaf = big.device_names('leaf')[3]
    port = big.device(leaf)['interfaces'][-1]['name']
    results = [checks.Result(leaf, 'link_mtu', 'x', checks.FAIL, 'a', 'b', link='%s %s' % (leaf, port)),
               checks.Result(leaf, 'health_pfc_pause', 'x', checks.FAIL, 'a', 'b', category='health')]
    svg = report.picture(big, report.build(big, results), max_per_row=32)
    rows = re.findall(r'<rect x="[\d.]+" y="(\d+)"', svg)
    per_row = {y: rows.count(y) for y in set(rows)}
    roles = [role for role in report.ROLE_ORDER if big.device_names(role)]
    assert len(per_row) == len(roles) and max(per_row.values()) <= 32  # one row per tier, at most 32 boxes each
    assert 'GPU servers (%d)' % len(big.device_names('host')) in svg
    counts = [int(value) for value in re.findall(r'<title>(\d+) links?', svg)]
    assert sum(counts) == len(big.links) and max(counts) > 1  # every link drawn once, parallel ones bundled
    assert svg.count('failing</title>') == 1 and 'stroke="#b00" stroke-width="3"' in svg
    assert len(svg) < 200000


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


# --------------------------------------------------------------------------- issue 24: causes first, the picture, scale
def report_of(design, scenario):
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import causes
    ctx = checks.Context(design, scenario_states(scenario), {'lossless_phases': ('design', 'deployed')})
    results = checks.run(ctx)
    return report.build(design, results, {'mode': 'test'}, causes=causes.analyse(ctx, results))


def test_the_report_leads_with_the_cause_and_numbers_every_failure(design):
    built = report_of(design, 'link_down')
    assert built['summary']['causes'] == 1 and built['summary']['blamed'] == ['leaf001']
    assert built['causes'][0]['headline'] == 'leaf001 eth2 is admin down -> 13 consequences (1 BGP session down)'
    assert {item.get('cause') for item in built['results'] if item['status'] in ('fail', 'error')} == {1}
    text = report.markdown(built)
    assert text.startswith('# Validation of fabric capture: FAILED (1 cause)')
    assert text.index('## Causes (1)') < text.index('## Summary') < text.index('## Failures (14)')
    assert '1. **leaf001 eth2 is admin down** -> 13 consequences (1 BGP session down)' in text
    page = report.to_html(design, built)
    assert page.index('<h2>Causes (1)</h2>') < page.index('<h2>Failures (14)</h2>')
    assert page.index('<h2>Checks</h2>') < page.index('<h2>Passed')  # the per-check table before the passed rows


def test_healthy_lab_is_green_and_links_are_coloured_by_their_checks(design):
    svg = report.picture(design, report_of(design, 'healthy'))
    # every device has passes beside not-applicable lossless results: green, not grey
    assert set(re.findall(r'<rect [^>]*fill="(#\w+)"', svg)) == {'#6b6'}
    lines = re.findall(r'<line [^>]*stroke="(#\w+)"[^>]*><title>([^<]*)</title>', svg)
    assert lines and all(colour == '#5a5' and 'checks pass on' in tip for colour, tip in lines)
    broken = report.picture(design, report_of(design, 'link_down'))
    red = [tip for colour, tip in re.findall(r'<line [^>]*stroke="(#\w+)"[^>]*><title>([^<]*)</title>', broken)
           if colour == '#d22']
    assert red == ['1 link, 1 failing']  # leaf001 - spine001: interface state, LLDP and BGP fail on it
    assert 'checks pass on' in broken  # the other links stay green


def test_the_picture_scales_to_its_container_and_its_legend_fits():
    big = design_from_file(os.path.join(REPO, 'fabrics', 'pod1k.yml'))
    svg = report.picture(big, report.build(big, []))
    width, height = [int(value) for value in re.search(r'viewBox="0 0 (\d+) (\d+)"', svg).groups()]
    assert 'width="100%"' in svg and not re.search(r'<svg[^>]* height="', svg)
    legend = [(int(y), text) for y, text in re.findall(r'<text x="8" y="(\d+)">([^<]*)</text>', svg) if '(' not in text[:20]]
    assert legend and all(y < height for y, _text in legend)
    assert all(len(text) * 6.4 < width for _y, text in legend)  # every legend line fits the drawing's width


def test_at_scale_passes_are_aggregated_and_every_failure_stays(design, tmp_path):
    results = [checks.Result('leaf%03d' % (index % 2 + 1), 'lossless_pfc', 'Ethernet%d [design]' % index, checks.PASS,
                             'PFC on {3}', 'PFC on {3}') for index in range(judged.FULL_RESULTS + 5)]
    results += [checks.Result('leaf001', 'lossless_pfc', 'Ethernet9 [design]', checks.FAIL, 'PFC on {3}', 'PFC on {3,4}'),
                checks.Result('gpu0001', 'host_switch_pfc', 'all rails', checks.NOT_APPLICABLE, 'x', '-', 'not applicable: y')]
    built = report.build(design, results)
    assert built['summary']['passes_aggregated'] and built['summary']['passed'] == judged.FULL_RESULTS + 5
    assert [item['status'] for item in built['results']] == ['fail', 'not_applicable']
    assert built['passed'] == [{'check': 'lossless_pfc', 'group': 'leaf frr', 'results': judged.FULL_RESULTS + 5,
                                'devices': 2, 'example': {'device': 'leaf001', 'subject': 'Ethernet0 [design]',
                                                          'expected': 'PFC on {3}', 'seen': 'PFC on {3}'}}]
    paths = report.write(design, built, str(tmp_path))
    assert os.path.getsize(paths['json']) < 10000
    assert 'per check and device group' in open(paths['markdown'], encoding='utf-8').read()
