# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Validation reports: JSON for machines, Markdown and self-contained HTML for people.

Every report leads with the counts, then the failures (device, check, what was expected, what was seen),
then errors, the per-check table, the not-applicable reasons and finally every passed result.
"""

from __future__ import annotations

import html
import json
import os

from . import ERROR, FAIL, NOT_APPLICABLE, PASS, REGISTRY, STATUSES, summary

STATUS_LABEL = {PASS: 'pass', FAIL: 'FAIL', ERROR: 'ERROR', NOT_APPLICABLE: 'n/a'}
ROLE_ORDER = ('super_spine', 'spine', 'leaf', 'host')
# People-facing reports list every failure and error but only this many passed results (report.json has all).
PASSED_ROWS = 500


def sort_results(results) -> list:
    order = {status: index for index, status in enumerate(STATUSES)}
    return sorted(results, key=lambda item: (order[item.status], item.category, item.check, item.device, item.subject))


def build(design, results, meta=None) -> dict:
    """The machine-readable report."""
    meta = dict(meta or {})
    counted = summary(results)
    devices = {}
    for result in results:
        entry = devices.setdefault(result.device, {status: 0 for status in STATUSES})
        entry[result.status] += 1
    return {
        'fabric': design.name,
        'meta': meta,
        'summary': {
            'checks_run': counted['total'] - counted['counts'][NOT_APPLICABLE],
            'passed': counted['counts'][PASS],
            'failed': counted['counts'][FAIL],
            'errors': counted['counts'][ERROR],
            'not_applicable': counted['counts'][NOT_APPLICABLE],
            'results': counted['total'],
            'ok': counted['ok'],
            'devices': len(devices),
        },
        'checks': {check_id: dict(counts, title=REGISTRY[check_id].title if check_id in REGISTRY else check_id,
                                  category=REGISTRY[check_id].category if check_id in REGISTRY else '',
                                  rules=list(REGISTRY[check_id].rules) if check_id in REGISTRY else [])
                   for check_id, counts in sorted(counted['by_check'].items())},
        'devices': devices,
        'results': [result.to_dict() for result in sort_results(results)],
    }


def failure_lines(results, limit=40) -> list:
    """'device check [subject]: expected ...; seen ...' for every failure and error, failures first."""
    bad = [result for result in sort_results(results) if result.status in (FAIL, ERROR)]
    lines = ['%s%s' % ('' if result.status == FAIL else 'ERROR ', result.line()) for result in bad[:limit]]
    if len(bad) > limit:
        lines.append('... and %d more (see the report)' % (len(bad) - limit))
    return lines


# --------------------------------------------------------------------------- Markdown
def _cell(value) -> str:
    return str(value if value not in (None, '') else '-').replace('|', '\\|').replace('\n', ' ')


def _table(headers, rows) -> list:
    lines = ['| %s |' % ' | '.join(headers), '|%s|' % '|'.join(['---'] * len(headers))]
    lines.extend('| %s |' % ' | '.join(_cell(value) for value in row) for row in rows)
    return lines


def _na_groups(report):
    """[(reason, checks, devices)]: every not-applicable result grouped by its reason."""
    groups = {}
    for item in report['results']:
        if item['status'] == NOT_APPLICABLE:
            checks_, devices = groups.setdefault(item['message'], ([], []))
            if item['check'] not in checks_:
                checks_.append(item['check'])
            if item['device'] not in devices:
                devices.append(item['device'])
    return [(reason, ', '.join(sorted(checks_)), ', '.join(sorted(devices)))
            for reason, (checks_, devices) in sorted(groups.items())]


def markdown(report) -> str:
    summary_ = report['summary']
    meta = report['meta']
    verdict = 'PASSED' if summary_['ok'] else 'FAILED'
    lines = ['# Validation of fabric %s: %s' % (report['fabric'], verdict), '']
    details = ['%s: %s' % (key.replace('_', ' '), value) for key, value in sorted(meta.items()) if value not in (None, '')]
    if details:
        lines += ['- ' + item for item in details] + ['']
    lines += ['## Summary', '']
    lines += _table(['checks run', 'passed', 'failed', 'errors', 'not applicable', 'devices'],
                    [[summary_['checks_run'], summary_['passed'], summary_['failed'], summary_['errors'],
                      summary_['not_applicable'], summary_['devices']]])
    lines.append('')
    for status, title in ((FAIL, 'Failures'), (ERROR, 'Errors (state could not be read)')):
        rows = [[item['device'], item['check'], item['subject'], item['expected'], item['seen'], item['message']]
                for item in report['results'] if item['status'] == status]
        if rows:
            lines += ['## %s (%d)' % (title, len(rows)), '']
            lines += _table(['device', 'check', 'subject', 'expected', 'seen', 'note'], rows) + ['']
    lines += ['## Checks', '']
    lines += _table(['check', 'what', 'rules', 'pass', 'fail', 'error', 'n/a'],
                    [[check_id, entry['title'], ','.join(entry['rules']), entry[PASS], entry[FAIL], entry[ERROR],
                      entry[NOT_APPLICABLE]] for check_id, entry in report['checks'].items()])
    lines.append('')
    groups = _na_groups(report)
    if groups:
        lines += ['## Not applicable (%d)' % summary_['not_applicable'], '',
                  'Checked state that this fabric or lab cannot have; none of these count as passed.', '']
        lines += _table(['reason', 'checks', 'devices'], groups)
        lines.append('')
    passed = [[item['device'], item['check'], item['subject'], item['seen']]
              for item in report['results'] if item['status'] == PASS]
    if passed:
        shown = 'every passed result' if len(passed) <= PASSED_ROWS else 'the first %d passed results (report.json has all)' % PASSED_ROWS
        lines += ['## Passed (%d)' % len(passed), '', '<details><summary>%s</summary>' % shown, '']
        lines += _table(['device', 'check', 'subject', 'seen'], passed[:PASSED_ROWS])
        lines += ['', '</details>', '']
    return '\n'.join(lines)


# --------------------------------------------------------------------------- HTML
_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:.9em}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f0f0f0}.fail{background:#fdd}.error{background:#fed}.na{color:#777}.pass{color:#063}
.verdict-ok{color:#063}.verdict-bad{color:#b00}svg text{font-size:10px}
"""
_COLOR = {FAIL: '#e55', ERROR: '#f93', NOT_APPLICABLE: '#bbb', PASS: '#6b6'}


def _worst(counts):
    for status in STATUSES:
        if counts.get(status):
            return status
    return NOT_APPLICABLE


def picture(design, report, max_per_row=48) -> str:
    """An SVG of the fabric tiers, each device coloured by its worst result."""
    rows = [list(design.device_names(role)) for role in ROLE_ORDER]
    rows = [row for row in rows if row]
    if not rows:
        return ''
    width = max(min(len(row), max_per_row) for row in rows) * 70 + 40
    height = len(rows) * 70 + 20
    position = {}
    parts = []
    for level, row in enumerate(rows):
        shown = row if len(row) <= max_per_row else row[:max_per_row - 1]
        step = (width - 40) / max(len(shown) + (0 if shown is row else 1), 1)
        for index, name in enumerate(shown):
            x, y = 20 + step * index + step / 2, 20 + level * 70
            position[name] = (x, y)
        if shown is not row:
            parts.append('<text x="%d" y="%d">+%d more</text>' % (20 + step * len(shown), 40 + level * 70,
                                                                  len(row) - len(shown)))
    lines = []
    for link in design.links:
        if link.lower.name in position and link.upper.name in position:
            (x1, y1), (x2, y2) = position[link.lower.name], position[link.upper.name]
            lines.append('<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#ccc"/>' % (x1, y1, x2, y2 + 24))
    boxes = []
    for name, (x, y) in position.items():
        status = _worst(report['devices'].get(name, {}))
        boxes.append('<g><title>%s: %s</title><rect x="%.0f" y="%.0f" width="60" height="24" rx="4" fill="%s"/>'
                     '<text x="%.0f" y="%.0f" text-anchor="middle">%s</text></g>'
                     % (html.escape(name), status, x - 30, y, _COLOR[status], x, y + 15, html.escape(name)))
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d">%s%s%s</svg>'
            % (width, height, ''.join(lines), ''.join(boxes), ''.join(parts)))


def _html_table(headers, rows, classes=None) -> str:
    out = ['<table><tr>%s</tr>' % ''.join('<th>%s</th>' % html.escape(str(item)) for item in headers)]
    for index, row in enumerate(rows):
        css = ' class="%s"' % classes[index] if classes else ''
        cells = ''.join('<td>%s</td>' % html.escape(str(value if value not in (None, '') else '-')) for value in row)
        out.append('<tr%s>%s</tr>' % (css, cells))
    out.append('</table>')
    return ''.join(out)


def to_html(design, report) -> str:
    summary_ = report['summary']
    verdict = 'PASSED' if summary_['ok'] else 'FAILED'
    css_class = {FAIL: 'fail', ERROR: 'error', NOT_APPLICABLE: 'na', PASS: 'pass'}
    body = ['<h1>Validation of fabric %s: <span class="%s">%s</span></h1>'
            % (html.escape(report['fabric']), 'verdict-ok' if summary_['ok'] else 'verdict-bad', verdict)]
    body.append('<p>%s</p>' % html.escape('; '.join('%s: %s' % (key.replace('_', ' '), value)
                                                    for key, value in sorted(report['meta'].items()) if value not in (None, ''))))
    body.append(_html_table(['checks run', 'passed', 'failed', 'errors', 'not applicable', 'devices'],
                            [[summary_['checks_run'], summary_['passed'], summary_['failed'], summary_['errors'],
                              summary_['not_applicable'], summary_['devices']]]))
    body.append(picture(design, report))
    rows = [item for item in report['results'] if item['status'] in (FAIL, ERROR)]
    passed = [item for item in report['results'] if item['status'] == PASS]
    rows += passed[:PASSED_ROWS]
    body.append('<h2>Results (failures first%s)</h2>' % (
        '' if len(passed) <= PASSED_ROWS else '; %d of %d passed results shown, report.json has all' % (PASSED_ROWS, len(passed))))
    body.append(_html_table(['status', 'device', 'check', 'subject', 'expected', 'seen', 'note'],
                            [[STATUS_LABEL[item['status']], item['device'], item['check'], item['subject'],
                              item['expected'], item['seen'], item['message']] for item in rows],
                            [css_class[item['status']] for item in rows]))
    body.append('<h2>Checks</h2>')
    body.append(_html_table(['check', 'what', 'rules', 'pass', 'fail', 'error', 'n/a'],
                            [[check_id, entry['title'], ','.join(entry['rules']), entry[PASS], entry[FAIL],
                              entry[ERROR], entry[NOT_APPLICABLE]] for check_id, entry in report['checks'].items()]))
    groups = _na_groups(report)
    if groups:
        body.append('<h2>Not applicable</h2><p>State this fabric or lab cannot have; none of it counts as passed.</p>')
        body.append(_html_table(['reason', 'checks', 'devices'], groups))
    return ('<!DOCTYPE html><html><head><meta charset="utf-8"><title>Validation %s</title><style>%s</style></head>'
            '<body>%s</body></html>\n' % (html.escape(report['fabric']), _CSS, '\n'.join(body)))


def write(design, report, directory) -> dict:
    """Write report.json, report.md and report.html into `directory`; return their paths."""
    os.makedirs(directory, exist_ok=True)
    paths = {'json': os.path.join(directory, 'report.json'), 'markdown': os.path.join(directory, 'report.md'),
             'html': os.path.join(directory, 'report.html')}
    compact = len(report['results']) > 2000
    text = json.dumps(report, indent=None if compact else 1, separators=(',', ':') if compact else None)
    contents = {'json': text + '\n', 'markdown': markdown(report),
                'html': to_html(design, report)}
    for kind, path in paths.items():
        temporary = path + '.tmp'
        with open(temporary, 'w', encoding='utf-8') as handle:
            handle.write(contents[kind])
        os.replace(temporary, path)
    return paths


__all__ = ['build', 'markdown', 'to_html', 'write', 'failure_lines', 'sort_results', 'picture']
