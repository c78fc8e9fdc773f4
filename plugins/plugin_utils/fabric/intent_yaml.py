# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read an intent file as YAML that cannot hurt: bounded in size, depth and expanded node count, no duplicate keys.

PyYAML's safe loader already refuses arbitrary Python objects. It still accepts duplicate keys (the first value is
silently lost), nests until Python's recursion limit, and builds alias "bombs" whose expansion (a few hundred bytes
standing for billions of nodes) takes the validator minutes. Each of those is refused here with the file and line.
The limits are far above any real intent: a 16,384-GPU rail-optimized intent is about 2 KB; an explicit topology
of 2,048 servers with all 16,384 rail links written out is about 1 MB and 100,000 values.

Plain scalars mean what the YAML 1.2 core schema says (https://yaml.org/spec/1.2.2/#1032-tag-resolution), not
PyYAML's YAML 1.1: only true/false are booleans, `on`, `off`, `yes`, `no` are text, `1:0` is text (YAML 1.1 reads the
sexagesimal 60), `0100` is 100, `1_000` and dates are text. A value of the wrong kind then fails validation by name
instead of quietly becoming another number. Explicit tags (`!!int`, `!!timestamp`, ...) keep their meaning.

The file is opened without blocking and read only when it is a regular file (a FIFO or a device would block or
never end).
"""

from __future__ import annotations

import os
import re
import stat
from typing import Any

import yaml

from . import compile_cache
from .errors import format_path

MAX_BYTES = 4 * 1024 * 1024
MAX_DEPTH = 32
MAX_NODES = 1000000  # scalars, lists and mappings, counting every alias as the copy it stands for
MAX_ALIASES = 10000
NESTING_MESSAGE = 'nesting deeper than %d levels; an intent needs fewer than 10' % MAX_DEPTH


class IntentYAMLError(ValueError):
    """A YAML-level problem: `problems` is a list of (line or None, message)."""

    def __init__(self, path, problems, data=None):
        self.path = path
        self.problems = problems
        self.data = data  # the document, when it could be read and only its keys repeat
        super().__init__('; '.join(_where(path, line) + message for line, message in problems))


def _short(value):
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + '...'


def _where(path, line):
    return '%s:%d: ' % (path, line) if line else '%s: ' % path


class _Stop(Exception):
    """Raised inside the loader to abandon the document at the first structural problem."""

    def __init__(self, mark, message):
        super().__init__(message)
        self.line = mark.line + 1 if mark is not None else None
        self.message = message


class CoreSchemaResolver(yaml.resolver.BaseResolver):
    """Tags of plain scalars as the YAML 1.2 core schema gives them; everything else is text."""


for _tag, _pattern, _first in (
        ('bool', r'true|True|TRUE|false|False|FALSE', 'tTfF'),
        ('int', r'[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+', '-+0123456789'),
        ('float', r'[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)',
         '-+0123456789.'),
        ('null', r'~|null|Null|NULL|', ['~', 'n', 'N', '']),
        ('merge', r'<<', '<')):
    CoreSchemaResolver.add_implicit_resolver('tag:yaml.org,2002:' + _tag, re.compile(r'^(?:%s)$' % _pattern), list(_first))


try:  # libyaml scans and parses about 4 times faster; composing stays in Python, where the counting happens
    from yaml.cyaml import CParser as _Parser  # type: ignore[attr-defined]  # ImportError without libyaml

    class _EventSource(yaml.composer.Composer, yaml.constructor.SafeConstructor, CoreSchemaResolver, _Parser):
        def __init__(self, stream):
            _Parser.__init__(self, stream)
            yaml.composer.Composer.__init__(self)
            yaml.constructor.SafeConstructor.__init__(self)
            CoreSchemaResolver.__init__(self)
except ImportError:  # PyYAML without libyaml
    class _EventSource(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser,  # type: ignore[no-redef]
                       yaml.composer.Composer, yaml.constructor.SafeConstructor, CoreSchemaResolver):
        def __init__(self, stream):
            yaml.reader.Reader.__init__(self, stream)
            yaml.scanner.Scanner.__init__(self)
            yaml.parser.Parser.__init__(self)
            yaml.composer.Composer.__init__(self)
            yaml.constructor.SafeConstructor.__init__(self)
            CoreSchemaResolver.__init__(self)


class IntentLoader(_EventSource):
    """A safe loader that counts while it composes and refuses duplicate keys while it constructs."""

    def __init__(self, stream):
        super().__init__(stream)
        self.depth = 0
        self.expanded = 0
        self.aliases = 0
        self.duplicates = []  # (line, message)

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            node = self.anchors.get(event.anchor)
            if node is not None:
                size = getattr(node, 'aifabric_size', None)
                if size is None:
                    raise _Stop(event.start_mark, 'alias *%s is used inside its own anchor &%s (a recursive structure)'
                                % (event.anchor, event.anchor))
                self.aliases += 1
                if self.aliases > MAX_ALIASES:
                    raise _Stop(event.start_mark, 'more than %d aliases (*name); write the values out' % MAX_ALIASES)
                self._count(size, event.start_mark)
            return super().compose_node(parent, index)
        event = self.peek_event()
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _Stop(event.start_mark, NESTING_MESSAGE)
        before = self.expanded
        self._count(1, event.start_mark)
        node = super().compose_node(parent, index)
        node.aifabric_size = self.expanded - before
        self.depth -= 1
        return node

    def _count(self, size, mark):
        self.expanded += size
        if self.expanded > MAX_NODES:
            raise _Stop(mark, 'the document expands to more than %d values (aliases count as the copies they stand '
                              'for: an alias bomb?)' % MAX_NODES)

    def construct_object(self, node, deep=False):
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, TypeError, OverflowError, IndexError, KeyError, AttributeError) as exc:
            if isinstance(exc, yaml.YAMLError) or not isinstance(node, yaml.ScalarNode):
                raise
            # A scalar whose explicit tag it does not fit (!!float name, !!int x, !!timestamp 2024-13-45); PyYAML's
            # constructors fail on an empty one with IndexError (!!int, !!float), KeyError (!!bool) or
            # AttributeError (!!timestamp).
            tag = node.tag.replace('tag:yaml.org,2002:', '!!')
            raise _Stop(node.start_mark, 'the value %r cannot be read as %s' % (_short(node.value), tag)) from None

    def construct_core_int(self, node):
        """YAML 1.2 integers: decimal (a leading 0 does not make it octal), 0o octal, 0x hexadecimal."""
        text = self.construct_scalar(node).replace('_', '')  # underscores only reach here through an !!int tag
        sign = -1 if text[:1] == '-' else 1
        digits = text.lstrip('+-')
        if digits[:2] in ('0o', '0x'):
            return sign * int(digits[2:], 8 if digits[1] == 'o' else 16)
        return sign * int(digits, 10)

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen = {}
            for key_node, _value in node.value:
                if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == 'tag:yaml.org,2002:merge':
                    continue
                key = key_node.value
                line = key_node.start_mark.line + 1
                if key in seen:
                    self.duplicates.append((line, 'duplicate key %r (first at line %d); YAML would keep only the last '
                                                  'value: remove one' % (key, seen[key])))
                else:
                    seen[key] = line
        return super().construct_mapping(node, deep=deep)


# (types-PyYAML types add_constructor for its own loaders only; a loader that composes them is one too)
IntentLoader.add_constructor('tag:yaml.org,2002:int', IntentLoader.construct_core_int)  # type: ignore[type-var]


def _problem(exc):
    mark = getattr(exc, 'problem_mark', None) or getattr(exc, 'context_mark', None)
    text = getattr(exc, 'problem', None) or str(exc)
    if 'maximum nesting depth' in text:  # newer libyaml stops deep flow collections while scanning ahead
        return (mark.line + 1 if mark is not None else None), NESTING_MESSAGE
    if getattr(exc, 'context', None) and getattr(exc, 'problem', None):
        text = '%s %s' % (exc.context, exc.problem)
    return (mark.line + 1 if mark is not None else None), 'is not valid YAML: %s' % text


def load_package_yaml(path):
    """A YAML file shipped with the collection (schemas, switch models): trusted, so parsed at libyaml's speed, and
    once per user and content (compile_cache.parsed): every process reads the schema and the switch models."""
    with open(path, 'rb') as handle:
        text = handle.read()
    return compile_cache.parsed('yaml', text, _parse_package_yaml)


def _parse_package_yaml(text):
    return yaml.load(text.decode('utf-8'), Loader=getattr(yaml, 'CSafeLoader', yaml.SafeLoader))  # nosec B506: safe


_FILE_KINDS = ((stat.S_ISDIR, 'a directory'), (stat.S_ISFIFO, 'a FIFO'), (stat.S_ISCHR, 'a character device'),
               (stat.S_ISBLK, 'a block device'), (stat.S_ISSOCK, 'a socket'))


class NotRegularFile(OSError):
    """The path names a FIFO, a directory, a device or a socket, not a file to read."""


def open_regular(path):
    """`path` opened for reading in binary mode, or NotRegularFile naming what it is. Opened with O_NONBLOCK, so a
    FIFO does not wait for a writer, and checked before anything is read (a device may never end)."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            kind = next((kind for test, kind in _FILE_KINDS if test(mode)), 'not a file')
            raise NotRegularFile('is not a regular file (it is %s)' % kind)
        return open(descriptor, 'rb')  # pylint: disable=consider-using-with
    except BaseException:
        os.close(descriptor)
        raise


def load_yaml_file(path):
    """The data of one YAML document at `path`; IntentYAMLError (file and line) for every problem found."""
    return load_yaml_file_located(path)[0]


def load_yaml_file_located(path):
    """(data, {path: line}) of the YAML document at `path` (see load_yaml_text_located)."""
    try:
        with open_regular(path) as handle:
            info = os.fstat(handle.fileno())
            if info.st_size > MAX_BYTES:
                raise IntentYAMLError(path, [(None, 'is %d bytes; an intent may be at most %d bytes (%d MiB)'
                                              % (info.st_size, MAX_BYTES, MAX_BYTES // (1024 * 1024)))])
            raw = handle.read(MAX_BYTES + 1)
    except NotRegularFile as exc:
        raise IntentYAMLError(path, [(None, '%s; give the intent YAML file' % exc)]) from None
    except OSError as exc:
        raise IntentYAMLError(path, [(None, 'cannot be read: %s' % (exc.strerror or exc))]) from None
    if len(raw) > MAX_BYTES:
        raise IntentYAMLError(path, [(None, 'is larger than %d bytes, the limit for an intent' % MAX_BYTES)])
    try:
        text = raw.decode('utf-8-sig')
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b'\n') + 1
        raise IntentYAMLError(path, [(line, 'is not UTF-8 text (byte %d)' % exc.start)]) from None
    return load_yaml_text_located(text, path)


def load_yaml_text(text, path='<intent>'):
    """Like load_yaml_file for text already in memory (`path` only names it in messages)."""
    return load_yaml_text_located(text, path)[0]


def node_lines(root) -> dict:
    """{path: line}: the 1-based line of every key and list item of a composed document, keyed by its path as
    errors.format_path() writes it ('(root)', 'overlay.networks[2].vlan'). A node is walked once, at its anchor (the
    paths under an alias are found through the alias, their nearest ancestor): an alias bomb costs no more here than
    its text."""
    lines = {format_path(()): root.start_mark.line + 1}
    seen = set()
    pending: list[tuple[tuple, Any]] = [((), root)]
    while pending:
        parts, node = pending.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            children = [(key.value, key, value) for key, value in node.value if isinstance(key, yaml.ScalarNode)]
        elif isinstance(node, yaml.SequenceNode):
            children = [(index, item, item) for index, item in enumerate(node.value)]
        else:
            continue
        for part, where, child in children:
            lines.setdefault(format_path(parts + (part,)), where.start_mark.line + 1)
        # in document order (first child on top): an anchor comes before its aliases, so it is walked at its own path
        pending.extend((parts + (part,), child) for part, _where, child in reversed(children))
    return lines


def load_yaml_text_located(text, path='<intent>'):
    """(data, {path: line}) of YAML text: load_yaml_text's data and node_lines() of its document."""
    if len(text) > MAX_BYTES:
        raise IntentYAMLError(path, [(None, 'is larger than %d characters, the limit for an intent' % MAX_BYTES)])
    loader = None
    try:
        loader = IntentLoader(text)
        node = loader.get_single_node()
        lines = node_lines(node) if node is not None else {}
        data = loader.construct_document(node) if node is not None else None
    except _Stop as exc:
        raise IntentYAMLError(path, [(exc.line, exc.message)]) from None
    except yaml.reader.ReaderError as exc:
        line = text[:exc.position].count('\n') + 1
        raise IntentYAMLError(path, [(line, 'is not valid YAML: character %r is not allowed (use an escape in a '
                                            'double-quoted string if it is really meant)' % chr(exc.character))]) from None
    except yaml.YAMLError as exc:
        raise IntentYAMLError(path, [_problem(exc)]) from None
    except RecursionError:  # a structure the counters did not foresee: still a clean error
        raise IntentYAMLError(path, [(None, 'nesting too deep to read')]) from None
    finally:
        if loader is not None:
            loader.dispose()
    if loader.duplicates:
        raise IntentYAMLError(path, loader.duplicates, data)
    return data, lines


__all__ = ['load_yaml_file', 'load_yaml_text', 'load_yaml_file_located', 'load_yaml_text_located', 'node_lines',
           'open_regular', 'NotRegularFile', 'IntentYAMLError', 'IntentLoader', 'MAX_BYTES', 'MAX_DEPTH',
           'MAX_NODES', 'MAX_ALIASES']
