# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Errors raised for bad fabric intent: every problem at once, each naming path, value and what is allowed."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .printable import visible


_PLAIN_KEY = re.compile(r'[A-Za-z0-9_-]{1,64}')
REPORT_LINE = 2000  # characters of one problem in the report


def format_path(parts) -> str:
    """Render ('lossless', 'pfc', 'priorities', 1) as lossless.pfc.priorities[1].

    A key that is not plain (spaces, dots, newlines, not text at all) is shown quoted, as [' a\\nb'], so a hostile
    key cannot forge lines or paths in the report.
    """
    text = ''
    for part in parts:
        if isinstance(part, int) and not isinstance(part, bool):
            text += '[%d]' % part
        elif isinstance(part, str) and _PLAIN_KEY.fullmatch(part):
            text += ('.' if text else '') + part
        else:
            text += '[%s]' % _short(part)
    return text or '(root)'


class _NoValue:
    def __repr__(self):
        return '(no value)'


NO_VALUE = _NoValue()  # an Issue about the file itself (YAML syntax, size): there is no value to show


@dataclass(frozen=True, eq=False)
class Issue:
    """One problem in the intent."""

    path: str
    value: object
    message: str
    where: str = ''  # file:line of the key or item the path names (or of its nearest ancestor in the file)

    def __str__(self) -> str:
        text = '%s: %s' % (self.path, self.message)
        if self.value is not NO_VALUE:
            text += ' (got %s)' % _short(self.value)
        return text + (' [%s]' % self.where if self.where else '')


def _short(value) -> str:
    """ascii() of the value, bounded: control characters, newlines and every letter beyond ASCII are escaped, never
    printed raw (a Cyrillic 'а' in 'lаb' shows as 'l\\u0430b', not as a look-alike of 'lab')."""
    try:
        text = ascii(value)
    except Exception:  # a hostile object's __repr__
        text = '<%s>' % type(value).__name__
    return text if len(text) <= 80 else text[:77] + '...'


class IntentError(ValueError):
    """The intent is invalid; `issues` lists every problem found."""

    def __init__(self, issues):
        unique = {(issue.path, issue.message, _short(issue.value)): issue for issue in issues}
        self.issues = [unique[key] for key in sorted(unique)]
        super().__init__(self.report())

    def located(self, file: str, lines: dict) -> 'IntentError':
        """The same problems, each with the file and line of its path, or of the nearest enclosing key the file has
        (`lines`: {path: line} from intent_yaml.node_lines)."""
        located = []
        for issue in self.issues:
            line = _line_of(issue.path, lines)
            located.append(Issue(issue.path, issue.value, issue.message, '%s:%d' % (file, line)) if line else issue)
        return IntentError(located)

    def report(self) -> str:
        count = len(self.issues)
        lines = ['Fabric intent has %d problem%s:' % (count, '' if count == 1 else 's')]
        # A message may quote what the intent holds (a validator's own words): each line is shown visible, like
        # the values (printable.visible: no control character, no look-alike letter).
        lines.extend('  - %s' % visible(str(issue), REPORT_LINE) for issue in self.issues)
        return '\n'.join(lines)


def _line_of(path: str, lines: dict):
    """The line of `path` in `lines`, else of its nearest ancestor there (a missing key: the mapping that lacks it);
    None when neither is in the file (a problem about the file itself names the file already)."""
    while path not in lines:
        cut = max(path.rfind('.'), path.rfind('['))
        if cut <= 0:
            return None
        path = path[:cut]
    return lines[path]


class IssueCollector:
    """Accumulates issues so that validation reports all of them at once."""

    def __init__(self, issues=()):
        self.issues = list(issues)

    def add(self, path, value, message):
        if not isinstance(path, str):
            path = format_path(path)
        self.issues.append(Issue(path, value, message))

    def raise_if_any(self):
        if self.issues:
            raise IntentError(self.issues)
