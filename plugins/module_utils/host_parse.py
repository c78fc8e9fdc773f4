# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Shared helpers of the host parsers (stdlib only: they run on the managed host inside modules).

Every parser raises ParseError, never anything else, on output it cannot understand: the message names the
tool, says what was expected and quotes the offending line, so a module can report it without a traceback.
"""

from __future__ import annotations

import re

ANSI_ESCAPE = re.compile(r'\x1b\[[0-9;]*[A-Za-z]')


class ParseError(ValueError):
    """Output of a host tool that does not have the expected shape."""

    def __init__(self, tool, message, line=None):
        self.tool = tool
        self.reason = message
        self.line = line
        text = '%s: %s' % (tool, message)
        if line is not None:
            shown = line if len(line) <= 120 else line[:117] + '...'
            text += " (got: '%s')" % shown.replace('\t', '\\t')
        super().__init__(text)


def require_text(tool, text):
    """The text as str with ANSI escapes removed; ParseError when it is empty or not text."""
    if text is None:
        raise ParseError(tool, 'no output')
    if isinstance(text, bytes):
        text = text.decode('utf-8', 'replace')
    if not isinstance(text, str):
        raise ParseError(tool, 'output is not text (%s)' % type(text).__name__)
    text = ANSI_ESCAPE.sub('', text).replace('\r\n', '\n')
    if not text.strip():
        raise ParseError(tool, 'empty output')
    return text


def to_int(tool, value, what, line=None, base=10):
    try:
        return int(value, base)
    except (TypeError, ValueError):
        raise ParseError(tool, '%s is not a number: %r' % (what, value), line) from None


def first_line(text):
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ''


def version_tuple(text):
    """'550.54.15' -> (550, 54, 15); non-numeric parts end the tuple. None when nothing numeric leads."""
    parts = []
    for part in re.split(r'[.\-]', str(text).strip()):
        match = re.match(r'\d+', part)
        if not match:
            break
        parts.append(int(match.group(0)))
        if match.group(0) != part:
            break
    return tuple(parts) or None
