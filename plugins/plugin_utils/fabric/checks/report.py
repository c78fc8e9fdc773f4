# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Validation reports: JSON for machines, Markdown and self-contained HTML for people.

The verdict is PASSED only when checks ran and none failed or errored; a run where nothing could be checked says
NOTHING CHECKED, and one whose failures all sit on devices still converging at their deadline NOT CONVERGED:
neither is green. Every report leads with the causes (checks/causes.py: each with its consequences folded under it)
and the counts, then the lossless health findings, the flat list of failures (device, check, expected, seen), the
errors, the per-check table, the not-applicable reasons and finally the passed results. Every failure is kept in
full; at fabric scale (more than judged.FULL_RESULTS results) the passes are aggregated per check and device group, and
the errors of a device that could not be read at all are counted per device (`unread`: its first error stays, and the
cause that names the device), so report.json stays small. The HTML has no external reference (styles and the fabric
picture are inline), so it opens from the output directory offline.
"""

from __future__ import annotations

import errno
import html
import json
import math
import os
import re
import tempfile

from . import ERROR, FAIL, NOT_APPLICABLE, PASS, REGISTRY, STATUSES
from .judged import Judged, device_group_of
from ..printable import LIMIT, visible
from ..terms import TOP_DOWN

STATUS_LABEL = {PASS: 'pass', FAIL: 'FAIL', ERROR: 'ERROR', NOT_APPLICABLE: 'n/a'}
ROLE_ORDER = TOP_DOWN
ROLE_TITLE = {'super_spine': 'super-spines', 'spine': 'spines', 'leaf': 'leaves', 'host': 'GPU servers'}
# People-facing reports list this many passed results, and this many failures (report.json has every failure).
PASSED_ROWS = 500
FAILURE_ROWS = 2000
HEALTH = 'health'
REPORT_FILES = {'json': 'report.json', 'markdown': 'report.md', 'html': 'report.html'}
FILE_MODE = 0o644
DETAIL_CHARS = 4000  # a line of the run's details (the devices without state, how settling ended)
NOT_CONVERGED = 'NOT CONVERGED'


def sort_results(results) -> list:
    order = {status: index for index, status in enumerate(STATUSES)}
    return sorted(results, key=lambda item: (order[item.status], item.category != HEALTH, item.category, item.check,
                                             item.device, item.subject))


def verdict(summary_, causes=None) -> str:
    if summary_['checks_run'] == 0:
        return 'NOTHING CHECKED'
    if summary_['ok']:
        return 'PASSED'
    if causes and all(cause.kind == 'not_converged' for cause in causes):
        return NOT_CONVERGED
    return 'FAILED'


def build(design, results, meta=None, extra=None, causes=None) -> dict:
    """The machine-readable report (`results`: a list, or the Judged of checks.judge(); `extra`: further top-level
    sections, e.g. the performance gate; `causes`: checks.causes.analyse() of the results)."""
    meta = dict(meta or {})
    causes = list(causes or [])
    judged = results if isinstance(results, Judged) else Judged.of(results, device_group_of(design))
    counts = judged.counts
    health = sum(1 for result in judged.problems() if result.category == HEALTH)
    cause_of = {id(result): index for index, cause in enumerate(causes, 1) for result in cause.results}
    checks_run = judged.checks_run
    ok = counts[FAIL] == 0 and counts[ERROR] == 0 and checks_run > 0
    aggregated = judged.aggregated
    rows = []
    for result in sort_results(judged.results):
        row = result.to_dict()
        if id(result) in cause_of:
            row['cause'] = cause_of[id(result)]
        rows.append(row)
    built = {
        'fabric': design.name,
        'meta': meta,
        'summary': {
            'verdict': verdict({'checks_run': checks_run, 'ok': ok}, causes),
            'causes': len(causes),
            'checks_run': checks_run,
            'passed': counts[PASS],
            'failed': counts[FAIL],
            'errors': counts[ERROR],
            'not_applicable': counts[NOT_APPLICABLE],
            'health_findings': health,
            'results': judged.total,
            'ok': ok,
            'devices': len(judged.by_device),
            'blamed': list(dict.fromkeys(device for cause in causes for device in cause.devices)),
            'passes_aggregated': aggregated,
            'unread_aggregated': len(judged.unread),
        },
        'causes': [cause.to_dict(index) for index, cause in enumerate(causes, 1)],
        'checks': {check_id: dict(entry, title=REGISTRY[check_id].title if check_id in REGISTRY else check_id,
                                  category=REGISTRY[check_id].category if check_id in REGISTRY else '',
                                  rules=list(REGISTRY[check_id].rules) if check_id in REGISTRY else [])
                   for check_id, entry in sorted(judged.by_check.items())},
        'devices': judged.by_device,
        'links': judged.links,
        'results': rows,
    }
    if aggregated:
        built['passed'] = judged.passed_aggregates()
        built['unread'] = judged.unread_devices()
    built.update(extra or {})
    return built


def failure_lines(results, limit=40) -> list:
    """'device check [subject]: expected ...; seen ...' for every failure and error: health findings first."""
    bad = [result for result in sort_results(results) if result.status in (FAIL, ERROR)]
    lines = ['%s%s' % ('' if result.status == FAIL else 'ERROR ', result.line()) for result in bad[:limit]]
    if len(bad) > limit:
        lines.append('... and %d more (see the report)' % (len(bad) - limit))
    return lines


def cause_lines(causes, limit=20) -> list:
    """'1. leaf001 eth3 is admin down -> 11 consequences (1 BGP session down)' and, under it, what shows it, what
    follows from it in brief, and what to do."""
    lines = []
    for index, cause in enumerate(causes[:limit], 1):
        lines.append('%d. %s' % (index, cause.headline()))
        lines.extend('   shown by: %s' % result.line() for result in cause.evidence[:2])
        if cause.more_evidence(2):
            lines.append('   ... and %d more like it' % cause.more_evidence(2))
        if cause.consequences:
            lines.append('   consequences: %s' % cause.summary_of_consequences())
        lines.extend('   note: %s' % note for note in cause.visible_notes(3))
        if cause.hint:
            lines.append('   what to do: %s' % cause.hint)
    if len(causes) > limit:
        lines.append('... and %d more causes (see the report)' % (len(causes) - limit))
    return lines


# --------------------------------------------------------------------------- Markdown
def _cell(value, limit=LIMIT) -> str:
    """A value in report.md: visible and bounded (printable.visible), and inert where Markdown is rendered: no HTML
    (a device's `<script>`), no table break, no code span."""
    text = visible(value if value not in (None, '') else '-', limit)
    return html.escape(text, quote=False).replace('|', '\\|').replace('`', '&#96;')


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


def _unread_rows(unread):
    return [[item['device'], item['errors'], item['checks'], item['seen']] for item in unread[:FAILURE_ROWS]]


def _gate_rows(report):
    gate = report.get('performance') or {}
    return [[item.get('host'), item.get('test'), item.get('status'), item.get('measured'), item.get('required'),
             item.get('verdict')] for item in gate.get('results', [])]


def headline(report) -> str:
    """'FAILED (1 cause)', 'PASSED', 'NOTHING CHECKED'."""
    summary_ = report['summary']
    causes = summary_.get('causes') or 0
    if not causes:
        return summary_['verdict']
    return '%s (%d cause%s)' % (summary_['verdict'], causes, '' if causes == 1 else 's')


VERDICT_NOTES = {
    'NOTHING CHECKED': 'No check could run: every result is not applicable (reasons below). This is not a pass.',
    NOT_CONVERGED: ('Every failure is on a device that was still changing when its deadline ran out: the fabric had '
                    'not converged yet. This is not a verdict on the design, and not a pass: validate again, or give it '
                    'longer (validate_settle_timeout).'),
}


def _details(meta) -> list:
    return ['%s: %s' % (key.replace('_', ' '), value) for key, value in sorted(meta.items()) if value not in (None, '')]


def _summary_row(summary_):
    return [[summary_.get('causes', 0), summary_['checks_run'], summary_['passed'], summary_['failed'], summary_['errors'],
             summary_['not_applicable'], summary_['health_findings'], summary_['devices']]]


SUMMARY_HEADERS = ['causes', 'checks run', 'passed', 'failed', 'errors', 'not applicable', 'health findings', 'devices']


def _passed_rows(report):
    """[(device or group, check, subject or count, seen)] of the passes: the results, or the aggregates at scale."""
    if report['summary'].get('passes_aggregated'):
        return [['%s (%d devices)' % (item['group'], item['devices']), item['check'], '%d results' % item['results'],
                 'e.g. %s %s: %s' % (item['example']['device'], item['example']['subject'], item['example']['seen'])]
                for item in report.get('passed', [])]
    return [[item['device'], item['check'], item['subject'], item['seen']]
            for item in report['results'] if item['status'] == PASS]


def markdown(report) -> str:
    summary_ = report['summary']
    lines = ['# Validation of fabric %s: %s' % (report['fabric'], headline(report)), '']
    if summary_['verdict'] in VERDICT_NOTES:
        lines += [VERDICT_NOTES[summary_['verdict']], '']
    details = _details(report['meta'])
    if details:
        lines += ['- ' + _cell(item, DETAIL_CHARS) for item in details] + ['']
    if report.get('causes'):
        lines += ['## Causes (%d)' % len(report['causes']), '',
                  'Each cause with the failures it explains folded under it (the design says which session rides which '
                  'link, which VNI lives on which leaf, which server reaches which leaf); the flat list follows.', '']
        for cause in report['causes']:
            lines.append('%d. **%s**%s' % (cause['id'], _cell(cause['title']), cause['headline'][len(cause['title']):]))
            lines.extend('   - shown by: <code>%s</code>' % _cell(line) for line in cause['evidence'][:5])
            more = max(0, len(cause['evidence']) - 5) + cause.get('evidence_counted', 0)
            if more:
                lines.append('   - ... and %d more like it' % more)
            if cause['consequences']:
                lines.append('   - <details><summary>%d consequences</summary>' % len(cause['consequences']))
                lines.append('')
                lines.extend('     - <code>%s</code>' % _cell(line) for line in cause['consequences'][:FAILURE_ROWS])
                lines += ['', '     </details>']
            lines.extend('   - note: %s' % _cell(note) for note in cause['notes'])
            if cause['hint']:
                lines.append('   - what to do: %s' % _cell(cause['hint']))
        lines.append('')
    lines += ['## Summary', '']
    lines += _table(SUMMARY_HEADERS, _summary_row(summary_))
    lines.append('')
    for title, rows in _sections(report):
        if rows:
            lines += ['## %s (%d)' % (title, len(rows)), '']
            lines += _table(['device', 'check', 'subject', 'expected', 'seen', 'note', 'cause'],
                            [[item['device'], item['check'], item['subject'], item['expected'], item['seen'],
                              item['message'], item.get('cause')] for item in rows[:FAILURE_ROWS]]) + ['']
            if len(rows) > FAILURE_ROWS:
                lines += ['... and %d more (report.json has every one)' % (len(rows) - FAILURE_ROWS), '']
    unread = report.get('unread') or []
    if unread:
        lines += ['## Devices that could not be read (%d)' % len(unread), '',
                  'Each check of these devices is an error; the first is listed above, the others counted here.', '']
        lines += _table(['device', 'errors', 'checks', 'why'], _unread_rows(unread)) + ['']
        if len(unread) > FAILURE_ROWS:
            lines += ['... and %d more (report.json has every one)' % (len(unread) - FAILURE_ROWS), '']
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
    passed = _passed_rows(report)
    if passed:
        if summary_.get('passes_aggregated'):
            shown = 'per check and device group (%d results; report.json has every failure in full)' % summary_['passed']
        elif len(passed) <= PASSED_ROWS:
            shown = 'every passed result'
        else:
            shown = 'the first %d passed results (report.json has all)' % PASSED_ROWS
        lines += ['## Passed (%d)' % summary_['passed'], '', '<details><summary>%s</summary>' % shown, '']
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
ol.causes li{margin-bottom:.6em}ol.causes code{font-size:.85em}
"""
_COLOR = {FAIL: '#e55', ERROR: '#f93', NOT_APPLICABLE: '#bbb', PASS: '#6b6'}
_LINK = {FAIL: '#d22', ERROR: '#e80', PASS: '#5a5', None: '#bbb'}
BOX_W, BOX_H, GAP, ROW_H, LEFT = 84, 26, 8, 90, 140
# Between two tiers with more bundles than this, counts go to the tooltips only (labels would cover each other).
LABELLED_BUNDLES = 48
LEGEND = ('box colour: its worst result (red fail, orange error, green pass; grey when nothing could be checked: not '
          'applicable never hides a pass); red outline: a lossless health finding starts there. Lines: the links between '
          'two boxes, coloured by the checks about them (interface state, LLDP, BGP, MTU, lossless agreement, health): '
          'red failing, orange unreadable, green checked and passing, grey not checked; a label gives the number of '
          'links and of failing ones.')


def _worst(counts):
    """Failure beats error beats pass; not applicable only when nothing else was judged."""
    for status in (FAIL, ERROR, PASS, NOT_APPLICABLE):
        if counts.get(status):
            return status
    return NOT_APPLICABLE


def _groups(names, max_per_row):
    """Consecutive groups of devices, at most `max_per_row` of them (each device alone when they fit)."""
    if len(names) <= max_per_row:
        return [[name] for name in names]
    size = math.ceil(len(names) / max_per_row)
    return [names[index:index + size] for index in range(0, len(names), size)]


def _wrap(text, width):
    lines, line = [], ''
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = '%s %s' % (line, word) if line else word
    return lines + ([line] if line else [])


def picture(design, report, max_per_row=16) -> str:
    """An SVG of the fabric that scales to its container (viewBox): one row per tier, devices (or groups of
    consecutive devices at scale) coloured by their worst result, a red outline where a lossless health finding
    starts, parallel links bundled into one line per pair of boxes, coloured by the checks about those links."""
    tiers = [(role, list(design.device_names(role))) for role in ROLE_ORDER]
    tiers = [(role, names) for role, names in tiers if names]
    if not tiers:
        return ''
    health = {item['device'] for item in report['results'] if item['category'] == HEALTH and item['status'] in (FAIL, ERROR)}
    link_status = report.get('links') or {}
    group_of, boxes, texts = {}, [], []
    widest = max(len(_groups(names, max_per_row)) for _role, names in tiers)
    width = max(LEFT + widest * (BOX_W + GAP) + 20, 720)
    legend = _wrap(LEGEND, int((width - 16) / 6.4))
    height = len(tiers) * ROW_H + 14 * len(legend) + 10
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
            if len(members) == 1:
                label = members[0]
            else:  # the numbers of the first and last device, and how many when it fits the box
                label = '%s..%s' % (re.sub(r'^\D+', '', members[0]), re.sub(r'^\D+', '', members[-1]))
                label += ' x%d' % len(members) if len(label) <= 9 else ''
            title = ', '.join(members) if len(members) <= 8 else '%s .. %s (%d devices)' % (members[0], members[-1], len(members))
            title += ': %s' % status + ('; %d with problems' % bad if len(members) > 1 and bad else '')
            outline = ' stroke="#b00" stroke-width="3"' if health & set(members) else ''
            boxes.append('<g><title>%s</title><rect x="%.0f" y="%d" width="%d" height="%d" rx="4" fill="%s"%s/>'
                         '<text x="%.0f" y="%d" text-anchor="middle">%s</text></g>'
                         % (html.escape(title), x, y, BOX_W, BOX_H, _COLOR[status], outline, x + BOX_W / 2, y + 16,
                            html.escape(label)))
    bundles = {}
    for link in design.links:
        lower, upper = group_of.get(link.lower.name), group_of.get(link.upper.name)
        if lower is None or upper is None:
            continue
        entry = bundles.setdefault((lower, upper), {FAIL: 0, ERROR: 0, PASS: 0, 'count': 0})
        entry['count'] += 1
        status = link_status.get('%s %s' % (link.lower.name, design.interface_name(link.lower, link)))
        if status:
            entry[status] += 1
    per_tiers = {}
    for lower, upper in bundles:
        per_tiers[(lower[0], upper[0])] = per_tiers.get((lower[0], upper[0]), 0) + 1
    lines = []
    for (lower, upper), entry in sorted(bundles.items()):
        (x1, y1), (x2, y2) = position[lower], position[upper]
        count, failing = entry['count'], entry[FAIL]
        state = FAIL if failing else ERROR if entry[ERROR] else PASS if entry[PASS] else None
        crowded = per_tiers[(lower[0], upper[0])] > LABELLED_BUNDLES
        widthpx = 0.6 if crowded else 1 + min(4, math.log2(count)) if count > 1 else 1
        tip = '%d link%s' % (count, 's' if count > 1 else '')
        if failing:
            tip += ', %d failing' % failing
        elif state == ERROR:
            tip += ', %d not readable' % entry[ERROR]
        elif state == PASS:
            tip += ', checks pass on %d' % entry[PASS]
        else:
            tip += ', not checked'
        lines.append('<line x1="%.0f" y1="%d" x2="%.0f" y2="%d" stroke="%s" stroke-width="%.1f"><title>%s</title></line>'
                     % (x1, y1, x2, y2 + BOX_H, _LINK[state], widthpx, tip))
        if (count > 1 and not crowded) or failing:
            label = ('x%d' % count if count > 1 else '') + (' (%d bad)' % failing if failing else '')
            colour = '#b00' if failing else '#888'
            where = ((x1 + x2) / 2 + 2, (y1 + y2 + BOX_H) / 2)
            lines.append('<text x="%.0f" y="%.0f" fill="%s">%s</text>' % (where + (colour, label.strip())))
    legend_text = ''.join('<text x="8" y="%d">%s</text>' % (len(tiers) * ROW_H + 14 + 14 * index, html.escape(line))
                          for index, line in enumerate(legend))
    return ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="100%%" style="max-width:%dpx" '
            'preserveAspectRatio="xMidYMin meet" role="img"><title>fabric %s</title>%s%s%s%s</svg>'
            % (width, height, width, html.escape(report['fabric']), ''.join(lines), ''.join(boxes), ''.join(texts),
               legend_text))


# --------------------------------------------------------------------------- HTML
def _html(value, limit=LIMIT) -> str:
    """A value in report.html: visible and bounded (printable.visible), then escaped."""
    return html.escape(visible(value if value not in (None, '') else '-', limit))


def _html_table(headers, rows, classes=None) -> str:
    out = ['<table><tr>%s</tr>' % ''.join('<th>%s</th>' % html.escape(str(item)) for item in headers)]
    for index, row in enumerate(rows):
        css = ' class="%s"' % classes[index] if classes else ''
        cells = ''.join('<td>%s</td>' % _html(value) for value in row)
        out.append('<tr%s>%s</tr>' % (css, cells))
    out.append('</table>')
    return ''.join(out)


def _html_causes(report) -> str:
    out = ['<h2>Causes (%d)</h2><ol class="causes">' % len(report['causes'])]
    for cause in report['causes']:
        parts = ['<b>%s</b>%s' % (_html(cause['title']), html.escape(cause['headline'][len(cause['title']):]))]
        parts.extend('<br>shown by: <code>%s</code>' % _html(line) for line in cause['evidence'][:5])
        if cause['consequences']:
            parts.append('<details><summary>%d consequences</summary><ul>%s</ul></details>' % (
                len(cause['consequences']), ''.join('<li><code>%s</code></li>' % _html(line)
                                                    for line in cause['consequences'][:FAILURE_ROWS])))
        parts.extend('<br>note: %s' % _html(note) for note in cause['notes'])
        if cause['hint']:
            parts.append('<br>what to do: %s' % _html(cause['hint']))
        out.append('<li>%s</li>' % ''.join(parts))
    out.append('</ol>')
    return ''.join(out)


def to_html(design, report) -> str:
    summary_ = report['summary']
    css_class = {FAIL: 'fail', ERROR: 'error', NOT_APPLICABLE: 'na', PASS: 'pass'}
    verdict_class = {'PASSED': 'verdict-ok', 'FAILED': 'verdict-bad'}.get(summary_['verdict'], 'verdict-none')
    body = ['<h1>Validation of fabric %s: <span class="%s">%s</span></h1>'
            % (html.escape(report['fabric']), verdict_class, html.escape(headline(report)))]
    if summary_['verdict'] in VERDICT_NOTES:
        body.append('<p class="verdict-none">%s</p>' % html.escape(VERDICT_NOTES[summary_['verdict']]))
    body.append('<p>%s</p>' % '; '.join(_html(item, DETAIL_CHARS) for item in _details(report['meta'])))
    if report.get('causes'):
        body.append(_html_causes(report))
    body.append(_html_table(SUMMARY_HEADERS, _summary_row(summary_)))
    body.append(picture(design, report))
    for title, rows in _sections(report):
        if rows:
            body.append('<h2>%s (%d)</h2>' % (html.escape(title), len(rows)))
            shown = rows[:FAILURE_ROWS]
            body.append(_html_table(['status', 'device', 'check', 'subject', 'expected', 'seen', 'note', 'cause'],
                                    [[STATUS_LABEL[item['status']], item['device'], item['check'], item['subject'],
                                      item['expected'], item['seen'], item['message'], item.get('cause')] for item in shown],
                                    [css_class[item['status']] for item in shown]))
            if len(rows) > FAILURE_ROWS:
                body.append('<p>... and %d more (report.json has every one)</p>' % (len(rows) - FAILURE_ROWS))
    unread = report.get('unread') or []
    if unread:
        body.append('<h2>Devices that could not be read (%d)</h2><p>Each check of these devices is an error; the first '
                    'is listed above, the others counted here.</p>' % len(unread))
        body.append(_html_table(['device', 'errors', 'checks', 'why'], _unread_rows(unread),
                                ['error'] * min(len(unread), FAILURE_ROWS)))
    gate = _gate_rows(report)
    if gate:
        body.append('<h2>Performance gate (%s)</h2>' % html.escape(report['performance']['verdict']))
        body.append(_html_table(['host', 'test', 'status', 'measured', 'required', 'verdict'], gate))
    body.append('<h2>Checks</h2>')
    body.append(_html_table(['check', 'what', 'rules', 'pass', 'fail', 'error', 'n/a'],
                            [[check_id, entry['title'], ','.join(entry['rules']), entry[PASS], entry[FAIL],
                              entry[ERROR], entry[NOT_APPLICABLE]] for check_id, entry in report['checks'].items()]))
    groups = _na_groups(report)
    if groups:
        body.append('<h2>Not applicable</h2><p>State this fabric or lab cannot have; none of it counts as passed.</p>')
        body.append(_html_table(['reason', 'checks', 'devices'], groups))
    passed = _passed_rows(report)
    if summary_.get('passes_aggregated'):
        shown = '%d, per check and device group' % summary_['passed']
    elif len(passed) <= PASSED_ROWS:
        shown = '%d' % len(passed)
    else:
        shown = '%d of %d shown, report.json has all' % (PASSED_ROWS, len(passed))
    body.append('<h2>Passed (%s)</h2>' % shown)
    body.append(_html_table(['device', 'check', 'subject', 'seen'], passed[:PASSED_ROWS],
                            ['pass'] * min(len(passed), PASSED_ROWS)))
    return ('<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">'
            '<title>Validation %s</title><style>%s</style></head><body>%s</body></html>\n'
            % (html.escape(report['fabric']), _CSS, '\n'.join(body)))


class ReportError(Exception):
    """The reports could not be written (a full or read-only file system, a permission); the message names the
    directory and the system's reason. The previous set of reports is left as it was."""


def write_files(directory, contents) -> dict:
    """Write {file name: text, or what gives its text in pieces by chunks()} into `directory` as one set, whole or not
    at all: every file goes to a temporary file first, and only when all of them are written are they renamed over
    the previous ones (one run's files never mix with another's; a failure leaves no temporary file). Text that
    cannot be UTF-8 (a lone surrogate a device printed and nothing made visible) is written escaped, never a
    failure. Returns {file name: path}."""
    staged = []
    try:
        os.makedirs(directory, exist_ok=True)
        for name in contents:  # what a rename cannot replace is found before any file is replaced
            path = os.path.join(directory, name)
            if os.path.isdir(path) and not os.path.islink(path):
                raise IsADirectoryError(errno.EISDIR, 'a directory is in the way', path)
        for name, text in contents.items():
            handle, temporary = tempfile.mkstemp(prefix='.%s.' % name, suffix='.tmp', dir=directory)
            staged.append((temporary, os.path.join(directory, name)))
            with os.fdopen(handle, 'wb') as stream:
                for chunk in [text] if isinstance(text, str) else text.chunks():  # a fleet's textfile: piece by piece
                    stream.write(chunk.encode('utf-8', 'backslashreplace'))
            os.chmod(temporary, FILE_MODE)
        for temporary, path in staged:
            os.replace(temporary, path)
    except OSError as exc:
        for temporary, _path in staged:
            try:
                os.unlink(temporary)
            except OSError:
                pass
        raise ReportError('cannot write the reports in %s: %s%s' % (
            directory, exc.strerror or exc, ' (%s)' % exc.filename if exc.filename and exc.filename != directory else '')
        ) from None
    return {name: path for name, (_temporary, path) in zip(contents, staged)}


def contents(design, report) -> dict:
    """{file name: text} of report.json, report.md and report.html."""
    compact = len(report['results']) > 2000
    text = json.dumps(report, indent=None if compact else 1, separators=(',', ':') if compact else None)
    return {REPORT_FILES['json']: text + '\n', REPORT_FILES['markdown']: markdown(report),
            REPORT_FILES['html']: to_html(design, report)}


def write(design, report, directory, extra=None) -> dict:
    """Write report.json, report.md, report.html and the `extra` files ({file name: text}: the Prometheus textfile,
    the ANTA catalog) into `directory` as one set (write_files); return the reports' paths by kind
    ({'json', 'markdown', 'html'}) and the extra files' paths by name. Raises ReportError."""
    written = write_files(directory, dict(contents(design, report), **(extra or {})))
    paths = {kind: written[name] for kind, name in REPORT_FILES.items()}
    paths.update((name, written[name]) for name in extra or {})
    return paths


__all__ = ['build', 'markdown', 'to_html', 'write', 'write_files', 'contents', 'ReportError', 'failure_lines',
           'cause_lines', 'sort_results', 'picture', 'verdict', 'headline']
