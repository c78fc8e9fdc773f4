# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Errors raised for bad fabric intent: every problem at once, each naming path, value and what is allowed."""

from __future__ import annotations

import re
from dataclasses import dataclass


_PLAIN_KEY = re.compile(r'[A-Za-z0-9_-]{1,64}')


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

    def __str__(self) -> str:
        if self.value is NO_VALUE:
            return '%s: %s' % (self.path, self.message)
        return '%s: %s (got %s)' % (self.path, self.message, _short(self.value))


def _short(value) -> str:
    """repr() of the value, bounded: control characters and newlines are escaped, never printed raw."""
    try:
        text = repr(value)
    except Exception:  # a hostile object's __repr__
        text = '<%s>' % type(value).__name__
    return text if len(text) <= 80 else text[:77] + '...'


class IntentError(ValueError):
    """The intent is invalid; `issues` lists every problem found."""

    def __init__(self, issues):
        unique = {(issue.path, issue.message, _short(issue.value)): issue for issue in issues}
        self.issues = [unique[key] for key in sorted(unique)]
        super().__init__(self.report())

    def report(self) -> str:
        count = len(self.issues)
        lines = ['Fabric intent has %d problem%s:' % (count, '' if count == 1 else 's')]
        lines.extend('  - %s' % issue for issue in self.issues)
        return '\n'.join(lines)


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
