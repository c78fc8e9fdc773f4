# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Errors raised for bad fabric intent: every problem at once, each naming path, value and what is allowed."""

from __future__ import annotations

from dataclasses import dataclass


def format_path(parts) -> str:
    """Render ('lossless', 'pfc', 'priorities', 1) as lossless.pfc.priorities[1]."""
    text = ''
    for part in parts:
        if isinstance(part, int):
            text += '[%d]' % part
        else:
            text += ('.' if text else '') + str(part)
    return text or '(root)'


@dataclass(frozen=True, eq=False)
class Issue:
    """One problem in the intent."""

    path: str
    value: object
    message: str

    def __str__(self) -> str:
        return '%s: %s (got %s)' % (self.path, self.message, _short(self.value))


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + '...'


class IntentError(ValueError):
    """The intent is invalid; `issues` lists every problem found."""

    def __init__(self, issues):
        unique = {(issue.path, issue.message, repr(issue.value)): issue for issue in issues}
        self.issues = [unique[key] for key in sorted(unique)]
        super().__init__(self.report())

    def report(self) -> str:
        count = len(self.issues)
        lines = ['Fabric intent has %d problem%s:' % (count, '' if count == 1 else 's')]
        lines.extend('  - %s' % issue for issue in self.issues)
        return '\n'.join(lines)


class IssueCollector:
    """Accumulates issues so that validation reports all of them at once."""

    def __init__(self):
        self.issues = []

    def add(self, path, value, message):
        if not isinstance(path, str):
            path = format_path(path)
        self.issues.append(Issue(path, value, message))

    def raise_if_any(self):
        if self.issues:
            raise IntentError(self.issues)
