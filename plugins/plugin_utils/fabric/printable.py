# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Text shown to a person, made visible: printable ASCII, bounded (no knowledge of fabrics or platforms).

visible(text, limit) escapes what a terminal, a log viewer or a report would interpret or what looks like something
else (ESC and OSC sequences, CR, a newline that forges a line, bidi overrides, look-alike letters, lone surrogates)
the way Python writes it (\\x1b, \\n, \\u0430, \\udcff), and cuts to `limit` characters saying how many more there
were. device_text.shown() masks a device's secrets first.
"""

from __future__ import annotations

LIMIT = 300  # characters of one device value in a message or a report line
_CUT_ROOM = 40  # room kept for the note that says how much was cut, so that visible() of visible() changes nothing
_SPECIAL = {'\n': '\\n', '\r': '\\r', '\t': '\\t'}


def _escape(char) -> str:
    code = ord(char)
    if char in _SPECIAL:
        return _SPECIAL[char]
    if code < 0x100:
        return '\\x%02x' % code
    return '\\u%04x' % code if code < 0x10000 else '\\U%08x' % code


def visible(value, limit=LIMIT, lines=False) -> str:
    """`value` as printable ASCII of at most `limit` characters: control, format and non-ASCII characters escaped
    (a look-alike 'а' is \\u0430), newlines too unless `lines` (a diff keeps its lines, each made visible). Text
    longer than `limit` is cut, saying how many characters were left out."""
    text = value if isinstance(value, str) else str(value)
    if text.isascii() and (text.isprintable() or lines and text.replace('\n', '').isprintable()):
        return text if len(text) <= limit else _cut(text[:max(limit - _CUT_ROOM, 1)], len(text) - max(limit - _CUT_ROOM, 1))
    out, size, room = [], 0, max(limit - _CUT_ROOM, 1)
    for index, char in enumerate(text):
        piece = char if ' ' <= char <= '~' or lines and char == '\n' else _escape(char)
        if size + len(piece) > room and (len(text) - index > 1 or size + len(piece) > limit):
            return _cut(''.join(out), len(text) - index)
        out.append(piece)
        size += len(piece)
    return ''.join(out)


def _cut(text, left_out) -> str:
    return '%s ...[%d more characters]' % (text, left_out)


__all__ = ['visible', 'LIMIT']
