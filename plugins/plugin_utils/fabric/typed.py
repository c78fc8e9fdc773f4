# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Plain data held against a type: the TypedDicts (and List, Dict, Optional, Union of them) that say the shape of the
device model (model.py) and of the neutral state (state/schema.py).

problems(value, kind, path) says, in at most `limit` sentences, which field is missing or of another type. Every
field a TypedDict declares must be there (Optional: may be None; NotRequired: may be absent, and is checked where it
is there); fields beyond them are allowed; Literal values must be one of theirs; mapping keys are
not checked (JSON turns integer keys into strings). bool is not an int here, and an int is not a float's only form.
"""

from __future__ import annotations

import functools
import typing
from types import NoneType
from typing import Any, Dict, List, Literal, Union

Number = Union[int, float]
_NONE = type(None)  # Optional[X] is Union[X, NoneType]


def problems(value, kind, path='value', limit=5, first=False) -> list:
    """What is wrong with `value` as a `kind` (empty list: nothing). `first`: of each list and mapping only its first
    item is looked at (what a parser leaves out, it leaves out of every item), at a fraction of the cost."""
    if not first and conforms(value, kind):
        return []
    found = []
    _check(value, kind, path, found, limit, first)
    return found[:limit]


@functools.lru_cache(maxsize=None)
def _hints(kind):
    return typing.get_type_hints(kind)


@functools.lru_cache(maxsize=None)
def _required(kind) -> frozenset:
    """The fields a TypedDict requires: all but its NotRequired ones (read from the hints, as __required_keys__ cannot
    see a NotRequired written in a string annotation)."""
    hints = typing.get_type_hints(kind, include_extras=True)
    return frozenset(name for name, hint in hints.items() if typing.get_origin(hint) is not typing.NotRequired)


def _is_typed_dict(kind):
    return isinstance(kind, type) and issubclass(kind, dict) and hasattr(kind, '__required_keys__')


def _name(kind):
    if typing.get_origin(kind) is Union:  # Optional[str] -> 'str or null'
        return ' or '.join('null' if option is NoneType else _name(option) for option in typing.get_args(kind))
    return getattr(kind, '__name__', None) or str(kind).replace('typing.', '')


# Within one conforms() call, the containers found conforming, by identity (each held, so that its id stays its
# own): parsed state shares equal parts (a route table's ECMP next hops, a switch's port views), checked once each.
_CONFORMING: dict = {}


def conforms(value, kind) -> bool:
    """Whether `value` is a `kind`, every item of it: problems() without building its sentences (a
    checker compiled once per type), so that every value a device gave can be held against its type."""
    _CONFORMING.clear()
    try:
        return _conformer(kind)(value)
    finally:
        _CONFORMING.clear()


def _once_per_object(check, kind):
    """`check` of a container, remembered for the object within one conforms() call."""
    def remembered(value):
        key = (id(value), kind)
        if key in _CONFORMING:
            return True
        if check(value):
            _CONFORMING[key] = value
            return True
        return False
    return remembered


def _any(_value):
    return True


@functools.lru_cache(maxsize=None)
def _conformer(kind):  # pylint: disable=too-many-return-statements
    """A function value -> bool for `kind`, built once (the same rules as _check)."""
    if kind is Any:
        return _any
    origin = typing.get_origin(kind)
    if origin is Union:
        options = typing.get_args(kind)
        nullable = _NONE in options
        others = tuple(_conformer(option) for option in options if option is not _NONE)
        return lambda value: (nullable and value is None) or any(check(value) for check in others)
    if origin is Literal:
        allowed = typing.get_args(kind)
        return lambda value: value in allowed
    if _is_typed_dict(kind):
        required = _required(kind)
        fields = tuple((field, field in required, _conformer(field_kind)) for field, field_kind in _hints(kind).items())

        def typed_dict(value):
            if not isinstance(value, dict):
                return False
            for field, needed, check in fields:
                if field in value:
                    if not check(value[field]):
                        return False
                elif needed:
                    return False
            return True
        return _once_per_object(typed_dict, kind)
    if origin in (list, List):
        (item,) = typing.get_args(kind) or (Any,)
        check = _conformer(item)
        return _once_per_object(lambda value: isinstance(value, list) and (check is _any or all(map(check, value))), kind)
    if origin in (dict, Dict):
        _key, item = typing.get_args(kind) or (Any, Any)
        check = _conformer(item)
        return _once_per_object(
            lambda value: isinstance(value, dict) and (check is _any or all(map(check, value.values()))), kind)
    if kind is bool:
        return lambda value: value is True or value is False
    if kind is int:
        return lambda value: isinstance(value, int) and not isinstance(value, bool)
    if kind is float:
        return lambda value: isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(kind, type):
        return lambda value: isinstance(value, kind)
    return _any


def _check(value, kind, path, found, limit, first):
    if len(found) >= limit or kind is Any:
        return
    origin = typing.get_origin(kind)
    if origin is Union:
        options = typing.get_args(kind)
        if value is None and type(None) in options:
            return
        for option in options:
            attempt = []
            _check(value, option, path, attempt, limit, first)
            if not attempt:
                return
        found.append('%s is %r, expected %s' % (path, _short(value), _name(kind)))
    elif origin is Literal:
        if value not in typing.get_args(kind):
            found.append('%s is %r, expected one of %s' % (path, _short(value), ', '.join(map(repr, typing.get_args(kind)))))
    elif _is_typed_dict(kind):
        if not isinstance(value, dict):
            found.append('%s is a %s, expected %s' % (path, type(value).__name__, kind.__name__))
            return
        hints = _hints(kind)
        missing = [field for field in hints if field in _required(kind) and field not in value]
        if missing:
            found.append('%s has no %s (%s)' % (path, ', '.join(missing), kind.__name__))
        for field, field_kind in hints.items():
            if field in value:
                _check(value[field], field_kind, '%s.%s' % (path, field), found, limit, first)
    elif origin in (list, List):
        if not isinstance(value, list):
            found.append('%s is a %s, expected a list' % (path, type(value).__name__))
            return
        (item,) = typing.get_args(kind) or (Any,)
        for index, element in enumerate(value[:1] if first else value):
            _check(element, item, '%s[%d]' % (path, index), found, limit, first)
    elif origin in (dict, Dict):
        if not isinstance(value, dict):
            found.append('%s is a %s, expected a mapping' % (path, type(value).__name__))
            return
        _key, item = typing.get_args(kind) or (Any, Any)
        for name, element in (list(value.items())[:1] if first else value.items()):
            _check(element, item, '%s[%r]' % (path, name), found, limit, first)
    elif kind is bool:
        if not isinstance(value, bool):
            found.append('%s is %r, expected true or false' % (path, _short(value)))
    elif kind in (int, float):
        if isinstance(value, bool) or not isinstance(value, (int, float) if kind is float else int):
            found.append('%s is %r, expected %s' % (path, _short(value), kind.__name__))
    elif isinstance(kind, type) and not isinstance(value, kind):
        found.append('%s is %r, expected %s' % (path, _short(value), kind.__name__))


def _short(value):
    text = repr(value)
    return value if len(text) <= 40 else text[:37] + '...'


__all__ = ['problems', 'conforms', 'Number']
