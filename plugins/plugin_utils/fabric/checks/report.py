# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Validation reports: JSON for machines, Markdown and self-contained HTML for people.

The verdict is PASSED only when checks ran and none failed or errored; a run where nothing could be checked says
NOTHING CHECKED and is not green. Every report leads with the counts, then the lossless health findings (counter
rates: where a problem starts and which end to look at), then the other failures (device, check, expected, seen),
the errors, the per-check table, the not-applicable reasons and finally the passed results. The HTML has no
external reference (styles and the fabric picture are inline), so it opens from the output directory offline.
"""

from __future__ import annotations

import html
import json
import math
import os

from . import ERROR, FAIL, NOT_APPLICABLE, PASS, REGISTRY, STATUSES, summary

STATUS_LABEL = {PASS: 'pass', FAIL: 'FAIL', ERROR: 'ERROR', NOT_APPLICABLE: 'n/a'}
ROLE_ORDER = ('super_spine', 'spine', 'leaf', 'host')
ROLE_TITLE = {'super_spine': 'super-spines', 'spine': 'spines', 'leaf': 'leaves', 'host': 'GPU servers'}
# People-facing reports list every failure and error but only this many passed results (report.json has all).
PASSED_ROWS = 500
HEALTH = 'health'


def sort_results(results) -> list:
    order = {status: index for index, status in enumerate(STATUSES)}
    return sorted(results, key=lambda item: (order[item.status], item.category != HEALTH, item.category, item.check,
                                             item.device, item.subject))


def verdict(summary_) -> str:
    if summary_['checks_run'] == 0:
        return 'NOTHING CHECKED'
    return 'PASSED' if summary_['ok'] else 'FAILED'


def build(design, results, meta=None, extra=None) -> dict:
    """The machine-readable report (`extra`: further top-level sections, e.g. the performance gate)."""
    meta = dict(meta or {})
    counted = summary(results)
    devices = {}
    for result in results:
        entry = devices.setdefault(result.device, {status: 0 for status in STATUSES})
        entry[result.status] += 1
    built = {
        'fabric': design.name,
        'meta': meta,
        'summary': {
            'verdict': verdict({'checks_run': counted['checks_run'], 'ok': counted['ok']}),
            'checks_run': counted['checks_run'],
            'passed': counted['counts'][PASS],
            'failed': counted['counts'][FAIL],
            'errors': counted['counts'][ERROR],
            'not_applicable': counted['counts'][NOT_APPLICABLE],
            'health_findings': sum(1 for item in results if item.category == HEALTH and item.status in (FAIL, ERROR)),
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
    built.update(extra or {})
    return built


def failure_lines(results, limit=40) -> list:
    """'device check [subject]: expected ...; seen ...' for every failure and error: health findings first."""
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


def _sections(report):
    """[(title, rows)] of the problem sections, health findings first."""
    health = [item for item in report['results'] if item['category'] == HEALTH and item['status'] in (FAIL, ERROR)]
    failures = [item for item in report['results'] if item['category'] != HEALTH and item['status'] == FAIL]
    errors = [item for item in report['results'] if item['category'] != HEALTH and item['status'] == ERROR]
    return [('Lossless health findings', health), ('Failures', failures), ('Errors (state could not be read)', errors)]


def _gate_rows(report):
    gate = report.get('performance') or {}
    return [[item.get('host'), item.get('test'), item.get('status'), item.get('measured'), item.get('required'),
             item.get('verdict')] for item in gate.get('results', [])]


def markdown(report) -> str:
    summary_ = report['summary']
    meta = report['meta']
    lines = ['# Validation of fabric %s: %s' % (report['fabric'], summary_['verdict']), '']
    if summary_['verdict'] == 'NOTHING CHECKED':
        lines += ['No check could run: every result is not applicable (reasons below). This is not a pass.', '']
    details = ['%s: %s' % (key.replace('_', ' '), value) for key, value in sorted(meta.items()) if value not in (None, '')]
    if details:
        lines += ['- ' + item for item in details] + ['']
    lines += ['## Summary', '']
    lines += _table(['checks run', 'passed', 'failed', 'errors', 'not applicable', 'health findings', 'devices'],
                    [[summary_['checks_run'], summary_['passed'], summary_['failed'], summary_['errors'],
                      summary_['not_applicable'], summary_['health_findings'], summary_['devices']]])
    lines.append('')
    for title, rows in _sections(report):
        if rows:
            lines += ['## %s (%d)' % (title, len(rows)), '']
            lines += _table(['device', 'check', 'subject', 'expected', 'seen', 'note'],
                            [[item['device'], item['check'], item['subject'], item['expected'], item['seen'],
                              item['message']] for item in rows]) + ['']
    gate = _gate_rows(report)
    if gate:
        lines += ['## Performance gate (%s)' % report['performance']['verdict'], '']
        lines += _table(['host', 'test', 'status', 'measured', 'required', 'verdict'], gate) + ['']
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


# --------------------------------------------------------------------------- picture
_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:.9em}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f0f0f0}.fail{background:#fdd}.error{background:#fed}.na{color:#777}.pass{color:#063}
.verdict-ok{color:#063}.verdict-bad{color:#b00}.verdict-none{color:#a60}svg text{font-size:10px}
"""
_COLOR = {FAIL: '#e55', ERROR: '#f93', NOT_APPLICABLE: '#bbb', PASS: '#6b6'}
BOX_W, BOX_H, GAP, ROW_H, LEFT = 76, 26, 8, 90, 110


def _worst(counts):
    for status in STATUSES:
        if counts.get(status):
            return status
    return NOT_APPLICABLE


def _groups(names, max_per_row):
    """Consecutive groups of devices, at most `max_per_row` of them (each device alone when they fit)."""
    if len(names) <= max_per_row:
        return [[name] for name in names]
    size = math.ceil(len(names) / max_per_row)
    return [names[index:index + size] for index in range(0, len(names), size)]


def picture(design, report, max_per_row=32) -> str:
    """An SVG of the fabric: one row per tier, devices (or groups of consecutive devices at scale) coloured by their
    worst result, a red outline where a lossless health finding starts, parallel links bundled into one line per
    pair of boxes with the number of links and, in red, of failing links."""
    tiers = [(role, list(design.device_names(role))) for role in ROLE_ORDER]
    tiers = [(role, names) for role, names in tiers if names]
    if not tiers:
        return ''
    health = {item['device'] for item in report['results'] if item['category'] == HEALTH and item['status'] in (FAIL, ERROR)}
    bad_links = {item['link'] for item in report['results'] if item.get('link') and item['status'] in (FAIL, ERROR)}
    group_of, boxes, texts = {}, [], []
    widest = max(len(_groups(names, max_per_row)) for _role, names in tiers)
    width = LEFT + widest * (BOX_W + GAP) + 20
    height = len(tiers) * ROW_H + 20
    position = {}
    for level, (role, names) in enumerate(tiers):
        groups = _groups(names, max_per_row)
        y = 20 + level * ROW_H
        offset = LEFT + (widest - len(groups)) * (BOX_W + GAP) / 2
        texts.append('<text x="8" y="%d">%s (%d)</text>' % (y + 16, ROLE_TITLE[role], len(names)))
        for index, members in enumerate(groups):
            x = offset + index * (BOX_W + GAP)
            key = (role, index)
            position[key] = (x + BOX_W / 2, y)
            for name in members:
                group_of[name] = key
            counts = {}
            for name in members:
                for status, count in report['devices'].get(name, {}).items():
                    counts[status] = counts.get(status, 0) + count
            status = _worst(counts)
            bad = sum(1 for name in members if _worst(report['devices'].get(name, {})) in (FAIL, ERROR))
            label = members[0] if len(members) == 1 else '%s..%s' % (members[0][-3:], members[-1][-3:])
            title = ', '.join(members) if len(members) <= 8 else '%s .. %s (%d devices)' % (members[0], members[-1], len(members))
            title += ': %s' % status + ('; %d with problems' % bad if len(members) > 1 and bad else '')
            outline = ' stroke="#b00" stroke-width="3"' if health & set(members) else ''
            boxes.append('<g><title>%s</title><rect x="%.0f" y="%d" width="%d" height="%d" rx="4" fill="%s"%s/>'
                         '<text x="%.0f" y="%d" text-anchor="middle">%s</text></g>'
                         % (html.escape(title), x, y, BOX_W, BOX_H, _COLOR[status], outline, x + BOX_W / 2, y + 16,
                            html.escape(label if len(members) == 1 else '%s x%d' % (label, len(members)))))
    bundles = {}
    for link in design.links:
        lower, upper = group_of.get(link.lower.name), group_of.get(link.upper.name)
        if lower is None or upper is None:
            continue
        entry = bundles.setdefault((lower, upper), [0, 0])
        entry[0] += 1
        if '%s %s' % (link.lower.name, design.interface_name(link.lower, link)) in bad_links:
            entry[1] += 1
    lines = []
    for (lower, upper), (count, failing) in sorted(bundles.items()):
        (x1, y1), (x2, y2) = position[lower], position[upper]
        stroke = '#d22' if failing else '#bbb'
        widthpx = 1 + min(4, math.log2(count)) if count > 1 else 1
        tip = '%d link%s%s' % (count, 's' if count > 1 else '', ', %d failing' % failing if failing else '')
        lines.append('<line x1="%.0f" y1="%d" x2="%.0f" y2="%d" stroke="%s" stroke-width="%.1f"><title>%s</title></line>'
                     % (x1, y1, x2, y2 + BOX_H, stroke, widthpx, tip))
        if count > 1 or failing:
            label = 'x%d' % count + (' (%d bad)' % failing if failing else '')
            colour = '#b00' if failing else '#888'
            where = ((x1 + x2) / 2 + 2, (y1 + y2 + BOX_H) / 2)
            lines.append('<text x="%.0f" y="%.0f" fill="%s">%s</text>' % (where + (colour, label)))
    legend = ('<text x="8" y="%d">colour: worst result (green pass, red fail, orange error, grey not applicable); red '
              'outline: a lossless health finding starts there; lines: links between two boxes (count, red: failing)'
              '</text>' % (height - 4))
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d">%s%s%s%s</svg>'
            % (max(width, 720), height + 10, ''.join(lines), ''.join(boxes), ''.join(texts), legend))


# --------------------------------------------------------------------------- HTML
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
    css_class = {FAIL: 'fail', ERROR: 'error', NOT_APPLICABLE: 'na', PASS: 'pass'}
    verdict_class = {'PASSED': 'verdict-ok', 'FAILED': 'verdict-bad'}.get(summary_['verdict'], 'verdict-none')
    body = ['<h1>Validation of fabric %s: <span class="%s">%s</span></h1>'
            % (html.escape(report['fabric']), verdict_class, html.escape(summary_['verdict']))]
    if summary_['verdict'] == 'NOTHING CHECKED':
        body.append('<p class="verdict-none">No check could run: every result is not applicable (reasons below). '
                    'This is not a pass.</p>')
    body.append('<p>%s</p>' % html.escape('; '.join('%s: %s' % (key.replace('_', ' '), value)
                                                    for key, value in sorted(report['meta'].items()) if value not in (None, ''))))
    body.append(_html_table(['checks run', 'passed', 'failed', 'errors', 'not applicable', 'health findings', 'devices'],
                            [[summary_['checks_run'], summary_['passed'], summary_['failed'], summary_['errors'],
                              summary_['not_applicable'], summary_['health_findings'], summary_['devices']]]))
    body.append(picture(design, report))
    for title, rows in _sections(report):
        if rows:
            body.append('<h2>%s (%d)</h2>' % (html.escape(title), len(rows)))
            body.append(_html_table(['status', 'device', 'check', 'subject', 'expected', 'seen', 'note'],
                                    [[STATUS_LABEL[item['status']], item['device'], item['check'], item['subject'],
                                      item['expected'], item['seen'], item['message']] for item in rows],
                                    [css_class[item['status']] for item in rows]))
    gate = _gate_rows(report)
    if gate:
        body.append('<h2>Performance gate (%s)</h2>' % html.escape(report['performance']['verdict']))
        body.append(_html_table(['host', 'test', 'status', 'measured', 'required', 'verdict'], gate))
    passed = [item for item in report['results'] if item['status'] == PASS]
    if len(passed) <= PASSED_ROWS:
        shown = '%d' % len(passed)
    else:
        shown = '%d of %d shown, report.json has all' % (PASSED_ROWS, len(passed))
    body.append('<h2>Passed (%s)</h2>' % shown)
    body.append(_html_table(['status', 'device', 'check', 'subject', 'expected', 'seen'],
                            [[STATUS_LABEL[item['status']], item['device'], item['check'], item['subject'],
                              item['expected'], item['seen']] for item in passed[:PASSED_ROWS]],
                            ['pass'] * min(len(passed), PASSED_ROWS)))
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


def _write(path, text):
    temporary = path + '.tmp'
    with open(temporary, 'w', encoding='utf-8') as handle:
        handle.write(text)
    os.replace(temporary, path)


def write(design, report, directory) -> dict:
    """Write report.json, report.md and report.html into `directory`; return their paths."""
    os.makedirs(directory, exist_ok=True)
    paths = {'json': os.path.join(directory, 'report.json'), 'markdown': os.path.join(directory, 'report.md'),
             'html': os.path.join(directory, 'report.html')}
    compact = len(report['results']) > 2000
    text = json.dumps(report, indent=None if compact else 1, separators=(',', ':') if compact else None)
    contents = {'json': text + '\n', 'markdown': markdown(report), 'html': to_html(design, report)}
    for kind, path in paths.items():
        _write(path, contents[kind])
    return paths


__all__ = ['build', 'markdown', 'to_html', 'write', 'failure_lines', 'sort_results', 'picture', 'verdict']
