# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Diffs a person can review: only what changes, named by the section it is in, for files of any size.

A rendered file is compared with the one it replaces the way its format is built:
- a JSON object (SONiC's CONFIG_DB: tables of entries) entry by entry, each changed entry shown as its own hunk
  headed by its place (`@@ WRED_PROFILE|ROCE_400G @@`), so a fabric-wide ECN change of a 132 KB config_db.json is a
  few lines, whatever the file's size;
- any other text (FRR, EOS CLI, NVUE YAML, host files) as a unified diff whose hunk headers name the enclosing
  sections, found by indentation (`@@ -120,7 +120,7 @@ router bgp 65001 > address-family ipv4 unicast`), as
  `git diff` names the enclosing function.

DiffCollector turns the changed files of a render into Ansible `--diff` entries: files whose change is the same
(a fabric-wide change is the same on every leaf) are shown once with the list of files, distinct changes up to
`max_files`, each at most `max_lines` long; the rest is counted, never silently dropped.
"""

from __future__ import annotations

import difflib
import json

CONTEXT_LINES = 3
SECTION_LEVELS = 4  # enclosing sections named in a hunk header, innermost last
SECTION_WIDTH = 120  # a hunk header's section text is cut to this many characters
FILES_LISTED = 8  # files named beside a change they share, then a count


def _json_object(data: bytes | None):
    """The JSON object `data` holds, or None (not JSON, not an object, absent)."""
    if data is None or not data.lstrip().startswith(b'{'):
        return None
    try:
        value = json.loads(data)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _json_lines(value) -> list:
    """An entry's lines: an object's fields one per line (without its braces), anything else as JSON."""
    lines = json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False).splitlines()
    return [line[2:] for line in lines[1:-1]] if isinstance(value, dict) and value else lines


def _entries(document: dict) -> dict:
    """{place: value}: the entries of tables (an object of objects, CONFIG_DB's shape) and the other top-level keys."""
    flat = {}
    for key, value in document.items():
        if isinstance(value, dict) and value and all(isinstance(item, dict) for item in value.values()):
            for entry, fields in value.items():
                flat['%s|%s' % (key, entry)] = fields
        else:
            flat[key] = value
    return flat


def json_diff(old: dict, new: dict, context: int = CONTEXT_LINES) -> list:
    """Hunks of the entries that differ, in key order: changed entries as a diff of their fields, added and removed
    ones whole."""
    before, after = _entries(old), _entries(new)
    lines = []
    for place in sorted(set(before) | set(after)):
        if place in before and place in after and before[place] == after[place]:
            continue
        if place not in before:
            lines.append('@@ %s (added) @@' % place)
            lines.extend('+' + line for line in _json_lines(after[place]))
        elif place not in after:
            lines.append('@@ %s (removed) @@' % place)
            lines.extend('-' + line for line in _json_lines(before[place]))
        else:
            lines.append('@@ %s @@' % place)
            diff = difflib.unified_diff(_json_lines(before[place]), _json_lines(after[place]), n=context, lineterm='')
            lines.extend(line for line in diff if not line.startswith(('---', '+++', '@@')))
    return lines


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(' \t'))


def _sections(lines: list, index: int, line: str) -> str:
    """The sections enclosing `line`, placed before lines[index], outermost first: each earlier line indented less
    than the last one found (comments and blank lines are no section)."""
    found = []
    limit = _indent(line) if line.strip() else None
    for position in range(index - 1, -1, -1):
        candidate = lines[position]
        if not candidate.strip() or candidate.lstrip().startswith(('!', '#')):
            continue
        depth = _indent(candidate)
        if limit is None or depth < limit:
            found.append(candidate.strip())
            limit = depth
            if depth == 0 or len(found) == SECTION_LEVELS:
                break
    text = ' > '.join(reversed(found))
    return text if len(text) <= SECTION_WIDTH else text[:SECTION_WIDTH - 3] + '...'


def _range(start: int, end: int) -> str:
    """A unified diff's line range (difflib's and diff(1)'s format: 1-based start, the length when not 1)."""
    length = end - start
    if length == 1:
        return '%d' % (start + 1)
    return '%d,%d' % (start + 1 if length else start, length)


def text_diff(old: str, new: str, context: int = CONTEXT_LINES) -> list:
    """A unified diff's hunks (no file headers), each header naming the sections its first change is in."""
    before, after = old.splitlines(), new.splitlines()
    # autojunk off: configurations repeat lines (`no shutdown`, `exit`), which autojunk would ignore and misalign
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    lines = []
    for group in matcher.get_grouped_opcodes(context):
        header = '@@ -%s +%s @@' % (_range(group[0][1], group[-1][2]), _range(group[0][3], group[-1][4]))
        tag, old_at, old_end, new_at, _new_end = next(code for code in group if code[0] != 'equal')
        first = before[old_at] if tag != 'insert' else after[new_at]
        section = _sections(before, old_at, first)
        lines.append(header + (' ' + section if section else ''))
        for tag, old_at, old_end, new_at, new_end in group:
            if tag == 'equal':
                lines.extend(' ' + line for line in before[old_at:old_end])
                continue
            lines.extend('-' + line for line in before[old_at:old_end])
            lines.extend('+' + line for line in after[new_at:new_end])
    return lines


def file_diff(old: bytes | None, new: bytes, context: int = CONTEXT_LINES) -> list:
    """The lines of a reviewable diff of one file (empty when the content is the same)."""
    if old == new:
        return []
    old_object, new_object = _json_object(old), _json_object(new)
    if new_object is not None and (old is None or old_object is not None):
        lines = json_diff(old_object or {}, new_object, context)
    else:
        lines = text_diff('' if old is None else old.decode('utf-8', 'replace'), new.decode('utf-8', 'replace'), context)
    return lines or ['@@ only line endings or the final newline differ @@' if old_object is None
                     else '@@ only the JSON formatting differs @@']


def _same_name(paths: list) -> str:
    """`a/leaf001/x.json` for one path; for several, the first and how many more share the change."""
    if len(paths) == 1:
        return paths[0]
    listed = ', '.join(paths[1:1 + FILES_LISTED]) + (', ...' if len(paths) > 1 + FILES_LISTED else '')
    return '%s (and %d more with the same change: %s)' % (paths[0], len(paths) - 1, listed)


class DiffCollector:
    """Ansible --diff entries of a render's changed files: identical changes merged, bounded, secrets masked.

    add(relative, old, new) for every changed file (old None: a new file); entries(removed) gives the list for the
    task result's `diff`. `mask(text)` hides secrets before anything is compared or kept.
    """

    def __init__(self, max_files: int, max_lines: int, mask=None, context: int = CONTEXT_LINES):
        self.max_files = max_files
        self.max_lines = max_lines
        self.mask = mask or (lambda text: text)
        self.context = context
        self._changes = {}  # (file name, new?, diff text) -> [relative paths], in the order first seen

    def add(self, relative: str, old: bytes | None, new: bytes) -> None:
        masked_old = None if old is None else self.mask(old.decode('utf-8', 'replace')).encode('utf-8')
        lines = file_diff(masked_old, self.mask(new.decode('utf-8', 'replace')).encode('utf-8'), self.context)
        if not lines:
            return
        key = (relative.rpartition('/')[2], old is None, '\n'.join(lines))
        self._changes.setdefault(key, []).append(relative)

    def entries(self, removed=()) -> list:
        diffs = []
        changes = list(self._changes.items())
        for (_name, added, text), paths in changes[:self.max_files]:
            lines = text.split('\n')
            shown = lines[:self.max_lines]
            if len(lines) > len(shown):
                left_out = len(lines) - len(shown)
                shown.append('... %d more lines of this diff not shown (diff_max_lines=%d)' % (left_out, self.max_lines))
            name = _same_name(paths)
            diffs.append({'prepared': '--- %s\n+++ %s\n%s\n' % ('/dev/null' if added else name, name, '\n'.join(shown))})
        not_shown = changes[self.max_files:]
        if not_shown:
            diffs.append({'prepared': '... %d more changed files (%d distinct changes) not shown (diff_max_files=%d)\n'
                          % (sum(len(same) for _key, same in not_shown), len(not_shown), self.max_files)})
        removed = list(removed)
        for relative in removed[:self.max_files]:
            diffs.append({'prepared': '%s: removed (no longer produced by the intent)\n' % relative})
        if len(removed) > self.max_files:
            diffs.append({'prepared': '... %d more removed files not shown (diff_max_files=%d)\n'
                          % (len(removed) - self.max_files, self.max_files)})
        return diffs


__all__ = ['DiffCollector', 'file_diff', 'json_diff', 'text_diff']
