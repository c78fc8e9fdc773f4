# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read an intent file as YAML that cannot hurt: bounded in size, depth and expanded node count, no duplicate keys.

PyYAML's safe loader already refuses arbitrary Python objects. It still accepts duplicate keys (the first value is
silently lost), nests until Python's recursion limit, and builds alias "bombs" whose expansion (a few hundred bytes
standing for billions of nodes) takes the validator minutes. Each of those is refused here with the file and line.
The limits are far above any real intent: a 16,384-GPU rail-optimized intent is about 2 KB; an explicit topology
of 2,048 servers with all 16,384 rail links written out is about 1 MB and 100,000 values.
"""

from __future__ import annotations

import os
import stat

import yaml

MAX_BYTES = 4 * 1024 * 1024
MAX_DEPTH = 32
MAX_NODES = 1000000  # scalars, lists and mappings, counting every alias as the copy it stands for
MAX_ALIASES = 10000
NESTING_MESSAGE = 'nesting deeper than %d levels; an intent needs fewer than 10' % MAX_DEPTH


class IntentYAMLError(ValueError):
    """A YAML-level problem: `problems` is a list of (line or None, message)."""

    def __init__(self, path, problems):
        self.path = path
        self.problems = problems
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


try:  # libyaml scans and parses about 4 times faster; composing stays in Python, where the counting happens
    from yaml._yaml import CParser as _Parser

    class _EventSource(yaml.composer.Composer, yaml.constructor.SafeConstructor, yaml.resolver.Resolver, _Parser):
        def __init__(self, stream):
            _Parser.__init__(self, stream)
            yaml.composer.Composer.__init__(self)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)
except ImportError:  # PyYAML without libyaml
    _EventSource = yaml.SafeLoader


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


def _problem(exc):
    mark = getattr(exc, 'problem_mark', None) or getattr(exc, 'context_mark', None)
    text = getattr(exc, 'problem', None) or str(exc)
    if 'maximum nesting depth' in text:  # newer libyaml stops deep flow collections while scanning ahead
        return (mark.line + 1 if mark is not None else None), NESTING_MESSAGE
    if getattr(exc, 'context', None) and getattr(exc, 'problem', None):
        text = '%s %s' % (exc.context, exc.problem)
    return (mark.line + 1 if mark is not None else None), 'is not valid YAML: %s' % text


def load_package_yaml(path):
    """A YAML file shipped with the collection (schemas, switch models): trusted, so parsed at libyaml's speed."""
    with open(path, encoding='utf-8') as handle:
        return yaml.load(handle, Loader=getattr(yaml, 'CSafeLoader', yaml.SafeLoader))  # nosec B506: a safe loader


def load_yaml_file(path):
    """The data of one YAML document at `path`; IntentYAMLError (file and line) for every problem found."""
    try:
        with open(path, 'rb') as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise IntentYAMLError(path, [(None, 'is not a regular file')])
            if info.st_size > MAX_BYTES:
                raise IntentYAMLError(path, [(None, 'is %d bytes; an intent may be at most %d bytes (%d MiB)'
                                              % (info.st_size, MAX_BYTES, MAX_BYTES // (1024 * 1024)))])
            raw = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise IntentYAMLError(path, [(None, 'cannot be read: %s' % (exc.strerror or exc))]) from None
    if len(raw) > MAX_BYTES:
        raise IntentYAMLError(path, [(None, 'is larger than %d bytes, the limit for an intent' % MAX_BYTES)])
    try:
        text = raw.decode('utf-8-sig')
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b'\n') + 1
        raise IntentYAMLError(path, [(line, 'is not UTF-8 text (byte %d)' % exc.start)]) from None
    return load_yaml_text(text, path)


def load_yaml_text(text, path='<intent>'):
    """Like load_yaml_file for text already in memory (`path` only names it in messages)."""
    if len(text) > MAX_BYTES:
        raise IntentYAMLError(path, [(None, 'is larger than %d characters, the limit for an intent' % MAX_BYTES)])
    loader = None
    try:
        loader = IntentLoader(text)
        data = loader.get_single_data()
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
        raise IntentYAMLError(path, loader.duplicates)
    return data


__all__ = ['load_yaml_file', 'load_yaml_text', 'IntentYAMLError', 'IntentLoader', 'MAX_BYTES', 'MAX_DEPTH',
           'MAX_NODES', 'MAX_ALIASES']
