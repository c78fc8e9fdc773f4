# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every measured figure in README.md and docs/*.md says when it was measured (issue 38, item 8): a reader must be able
to tell a figure of today from one of weeks ago, taken before the code it describes changed. What counts as measured:
a paragraph or list item that says "measured" and gives a time or a size, and each row giving a time or a size of a
table introduced as measured. Either the row (paragraph) or the table's introduction carries its date (YYYY-MM-DD)."""

import glob
import os
import re

import pytest

from tests.unit.utils.paths import ROOT

# A time or a size: 9.6 s, 2 min, 0.27 ms, 110 MiB, 132 KB (a range such as "30-86400 s" is a setting, not a figure)
FIGURE = re.compile(r'(?<![\w.-])\d[\d,]*(?:\.\d+)?\s?(?:ms|s|min|h|KB|MB|GB|KiB|MiB|GiB)\b(?!-)')
DATE = re.compile(r'\b20\d\d-\d\d-\d\d\b')
MEASURED = re.compile(r'\bmeasured\b', re.I)
DOCUMENTS = ['README.md'] + sorted(os.path.relpath(path, ROOT) for path in glob.glob(os.path.join(ROOT, 'docs', '*.md')))


def blocks(text):
    """(kind, line, text, introduction) of each paragraph, list item and table row outside code blocks; a table row's
    introduction is the paragraph just before its table (with the table's header row)."""
    found = []
    current, start, code, intro, header = [], 0, False, '', ''
    lines = text.split('\n')

    def close():
        if current:
            found.append(('text', start, ' '.join(current), ''))
            current.clear()
    for number, line in enumerate(lines, 1):
        if line.startswith('```'):
            code = not code
            close()
            continue
        if code:
            continue
        if line.startswith('|'):
            if not header:
                intro = found[-1][2] if found and found[-1][0] == 'text' and current == [] else ' '.join(current)
                close()
                header = line
            elif not re.match(r'^\|\s*:?-', line):
                found.append(('row', number, line, intro + ' ' + header))
            continue
        header = ''
        if not line.strip() or line.startswith('#') or (re.match(r'^\s*(?:[-*]|\d+\.)\s', line) and current):
            close()
        if line.strip() and not line.startswith('#'):
            if not current:
                start = number
            current.append(line.strip())
    close()
    return found


def undated(text):
    """Lines of the measured figures that carry no date, neither they nor their table's introduction."""
    missing = []
    for kind, number, block, intro in blocks(text):
        if not FIGURE.search(block) or DATE.search(block):
            continue
        if kind == 'text' and MEASURED.search(block):
            missing.append(number)
        elif kind == 'row' and MEASURED.search(intro) and not DATE.search(intro):
            missing.append(number)
    return missing


@pytest.mark.parametrize('document', DOCUMENTS)
def test_every_measured_figure_is_dated(document):
    with open(os.path.join(ROOT, document), encoding='utf-8') as handle:
        assert undated(handle.read()) == [], '%s: measured figures without the date they were measured' % document


def test_the_rule_finds_undated_figures_in_paragraphs_and_tables_and_passes_dated_ones():
    text = '\n'.join([
        'Measured on a 2-core machine:',             # 1: the introduction: no figure itself
        '',
        '| what | figure |',
        '| --- | --- |',
        '| render | 9.6 s |',                         # 5: undated
        '| render again | 8.3 s (2026-11-26) |',       # 6: dated
        '| devices | 168 |',                           # 7: no time or size
        '',
        'The render was measured at 2.3 s.',           # 9: undated
        '',
        '- measured 2026-12-02: 5 min 37 s',           # 11: dated
        '- a timeout of 30 s',                         # 12: a setting, not said to be measured
        '',
        'Measured 2026-11-28 on CI:',                 # 14
        '',
        '| stage | wall |',
        '| --- | --- |',
        '| units | 4 min |',                           # 18: the introduction dates it
        '',
        '```',
        'measured 1 s',                               # code: not prose
        '```',
    ])
    assert undated(text) == [5, 9]
