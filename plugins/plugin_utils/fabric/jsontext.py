# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Indented JSON text, byte for byte what json.dumps(value, indent=N, sort_keys=...) writes, several times faster.

The standard library encodes indented JSON with its pure-Python generator encoder (a yield per token); this
writes the same text with one recursive walk and the C string quoting of the json module. Host models, Kubernetes
configurations and output manifests of a large fabric are written through it.
"""

from __future__ import annotations

from json.encoder import encode_basestring_ascii as _quote

_INFINITY = float('inf')


def dumps(value, indent=2, sort_keys=False, frozen=()) -> str:
    """json.dumps(value, indent=indent, sort_keys=sort_keys): the same text (ensure_ascii, NaN allowed).

    frozen: containers inside `value` that nobody mutates (design data shared by every device's model): their
    text is kept between calls and reused wherever the same object appears again at the same depth."""
    parts = []
    _encode(value, parts, '\n', ' ' * indent, sort_keys, {id(item): item for item in frozen} or None)
    return ''.join(parts)


_FROZEN_TEXT = {}  # (id, newline, step, sort_keys) -> (the object, kept alive so that its id stays its own; text)
_FROZEN_MAX = 256


def _float(value) -> str:
    if value != value:  # pylint: disable=comparison-with-itself
        return 'NaN'
    if value == _INFINITY:
        return 'Infinity'
    if value == -_INFINITY:
        return '-Infinity'
    return float.__repr__(value)


def _scalar(value):
    """The JSON text of a scalar, None for a container."""
    if isinstance(value, str):
        return _quote(value)
    if value is None:
        return 'null'
    if value is True:
        return 'true'
    if value is False:
        return 'false'
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, (dict, list, tuple)):
        return None
    raise TypeError('Object of type %s is not JSON serializable' % value.__class__.__name__)


def _key(key) -> str:
    if isinstance(key, str):
        return _quote(key)
    if isinstance(key, float):
        return _quote(_float(key))
    if key is True or key is False or key is None:
        return _quote(_scalar(key))
    if isinstance(key, int):
        return _quote(int.__repr__(key))
    raise TypeError('keys must be str, int, float, bool or None, not %s' % key.__class__.__name__)


# Exact types whose JSON text needs no recursion, the common case (subclasses take the general path).
_PLAIN = {str: _quote, int: int.__repr__, bool: lambda value: 'true' if value else 'false', type(None): lambda _: 'null'}


def _encode_frozen(value, parts, newline, step, sort_keys):
    key = (id(value), newline, step, sort_keys)
    known = _FROZEN_TEXT.get(key)
    if known is None or known[0] is not value:
        if len(_FROZEN_TEXT) >= _FROZEN_MAX:
            _FROZEN_TEXT.clear()
        text = []
        _encode(value, text, newline, step, sort_keys, None)
        known = _FROZEN_TEXT[key] = (value, ''.join(text))
    parts.append(known[1])


def _encode(value, parts, newline, step, sort_keys, frozen):
    plain = _PLAIN.get(value.__class__)
    if plain is not None:
        parts.append(plain(value))
        return
    if not isinstance(value, (dict, list, tuple)):
        parts.append(_scalar(value))
        return
    if frozen is not None and id(value) in frozen:
        _encode_frozen(value, parts, newline, step, sort_keys)
        return
    inner = newline + step
    if isinstance(value, dict):
        if not value:
            parts.append('{}')
            return
        separator = '{' + inner
        for key, item in (sorted(value.items()) if sort_keys else value.items()):
            plain = _PLAIN.get(item.__class__)
            if plain is not None and key.__class__ is str:
                parts.append('%s%s: %s' % (separator, _quote(key), plain(item)))
            else:
                parts.append(separator)
                parts.append(_key(key))
                parts.append(': ')
                _encode(item, parts, inner, step, sort_keys, frozen)
            separator = ',' + inner
        parts.append(newline + '}')
        return
    if not value:
        parts.append('[]')
        return
    separator = '[' + inner
    for item in value:
        plain = _PLAIN.get(item.__class__)
        if plain is not None:
            parts.append(separator + plain(item))
        else:
            parts.append(separator)
            _encode(item, parts, inner, step, sort_keys, frozen)
        separator = ',' + inner
    parts.append(newline + ']')
