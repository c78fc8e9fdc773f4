# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The intent reference (docs/intent.md), generated from schema/intent.schema.yml so it is never written twice.

Every key path gets its type, whether it is required, its default, what is allowed (enum, range, pattern
described by `x-allowed`, format, list bounds) and its description (plus `x-doc` prose). Lists of mappings
appear as `key[].child`, free-form mappings as `key.<name>.child`.
"""

from __future__ import annotations

import json

from .intent import SCHEMA_PATH, load_schema, resolve

SCHEMA_FILE = 'plugins/plugin_utils/fabric/schema/intent.schema.yml'
FORMATS = {'ipv4': 'IPv4 address', 'ipv4_network': 'IPv4 network in CIDR form, no host bits set'}
TYPE_NAMES = {'integer': 'integer', 'number': 'number', 'string': 'string', 'boolean': 'boolean',
              'object': 'mapping', 'array': 'list', 'null': 'null'}
COLUMNS = ('Key', 'Type', 'Default', 'Allowed', 'Description')


def _types(node) -> list:
    node = resolve(node)
    declared = node.get('type')
    if declared is None and 'enum' in node:
        kinds = []
        for value in node['enum']:
            kind = ('null' if value is None else 'boolean' if isinstance(value, bool) else
                    'integer' if isinstance(value, int) else 'number' if isinstance(value, float) else 'string')
            if kind not in kinds:
                kinds.append(kind)
        return kinds
    if declared is None:
        return []
    return [declared] if isinstance(declared, str) else list(declared)


def type_text(node) -> str:
    node = resolve(node)
    kinds = _types(node)
    text = ' or '.join(TYPE_NAMES.get(kind, kind) for kind in kinds if kind != 'null') or 'any'
    if 'array' in kinds and isinstance(node.get('items'), dict):
        item_kinds = [kind for kind in _types(node['items']) if kind != 'null']
        if item_kinds:
            text = text.replace('list', 'list of %s' % ' or '.join(TYPE_NAMES.get(kind, kind) + 's' for kind in item_kinds), 1)
    if 'null' in kinds:
        text += ' or null'
    return text


def _literal(value) -> str:
    if isinstance(value, str):
        return '`%s`' % value if value else "`''`"
    return '`%s`' % json.dumps(value)


def _number(value) -> str:
    return str(value)


def allowed_text(node) -> str:
    node = resolve(node)
    parts = []
    if 'enum' in node:
        parts.append('one of %s' % ', '.join(_literal(value) for value in node['enum']))
    low, high = node.get('minimum'), node.get('maximum')
    if 'x-allowed' in node:
        low = high = None  # the prose says it all (a text-or-number value)
    if low is not None and high is not None:
        parts.append('%s to %s' % (_number(low), _number(high)))
    elif low is not None:
        parts.append('at least %s' % _number(low))
    elif high is not None:
        parts.append('at most %s' % _number(high))
    if 'pattern' in node:
        parts.append(' '.join((node.get('x-allowed') or 'text matching `%s`' % node['pattern']).split()))
    if 'maxProperties' in node:
        parts.append('at most %d entries' % node['maxProperties'])
    if isinstance(node.get('propertyNames'), dict):
        parts.append('keys: %s' % allowed_text(node['propertyNames']))
    if 'format' in node:
        parts.append(FORMATS.get(node['format'], node['format']))
    low_items, high_items = node.get('minItems'), node.get('maxItems')
    if low_items is not None and high_items is not None:
        parts.append('%d to %d items' % (low_items, high_items))
    elif low_items is not None:
        parts.append('at least %d item%s' % (low_items, '' if low_items == 1 else 's'))
    elif high_items is not None:
        parts.append('at most %d items' % high_items)
    if node.get('uniqueItems'):
        parts.append('no repeats')
    items = resolve(node['items']) if isinstance(node.get('items'), dict) else None
    if isinstance(items, dict) and items.get('type') != 'object':
        item_text = allowed_text(items)
        if item_text:
            parts.append('items: %s' % item_text)
    extra = resolve(node['additionalProperties']) if isinstance(node.get('additionalProperties'), dict) else None
    if isinstance(extra, dict) and extra.get('type') != 'object':
        value_text = allowed_text(extra)
        parts.append('values: %s%s' % (type_text(extra), ', %s' % value_text if value_text else ''))
    return '; '.join(parts)


def default_text(node) -> str:
    if 'default' not in node:
        return ''
    value = node['default']
    if 'object' in _types(node) and value == {}:
        return ''  # an optional section: its keys carry the defaults
    return _literal(value)


def _description(node) -> str:
    text = node.get('description', '')
    if node.get('x-doc'):
        text = ('%s %s' % (text, node['x-doc'])).strip()
    return ' '.join(text.split())


def entries(schema=None):
    """Yield (path, node, required) for every key, depth first in schema order."""
    schema = load_schema() if schema is None else schema
    yield from _walk(schema, '')


def _walk(node, path):
    required = set(node.get('required', ()))
    for key, child in node.get('properties', {}).items():
        child = resolve(child)
        child_path = '%s.%s' % (path, key) if path else key
        yield child_path, child, key in required
        yield from _descend(child, child_path)


def _descend(node, path):
    if node.get('properties'):
        yield from _walk(node, path)
    extra = node.get('additionalProperties')
    if isinstance(extra, dict) and extra.get('type') == 'object':
        yield from _walk(extra, '%s.<%s>' % (path, node.get('x-key', 'name')))
    items = node.get('items')
    if isinstance(items, dict) and items.get('type') == 'object':
        yield from _walk(items, '%s[]' % path)


def _cell(text) -> str:
    return (text or '-').replace('|', '\\|').replace('\n', ' ')


def _row(path, node, required) -> str:
    key = '`%s`' % path + (' (required)' if required else '')
    cells = (key, type_text(node), default_text(node), allowed_text(node), _description(node))
    return '| %s |' % ' | '.join(_cell(cell) for cell in cells)


def generate(schema=None) -> str:
    """The complete text of docs/intent.md."""
    schema = load_schema() if schema is None else schema
    lines = [
        '# Fabric intent reference',
        '',
        '<!-- Generated from %s by scripts/gen-intent-doc.py. Do not edit; change the schema and run '
        '`python scripts/gen-intent-doc.py`. -->' % SCHEMA_FILE,
        '',
        _description(schema),
        '',
        'Every key below is validated before anything is designed; a bad intent is reported with every problem at '
        'once, each naming its key path as written here. `key[].child` is a key of each item of a list, '
        '`key.<name>.child` a key of each entry of a mapping keyed by name. A key with a default may be left out.',
        '',
        '## Top-level keys',
        '',
        '| %s |' % ' | '.join(COLUMNS),
        '|%s' % ('---|' * len(COLUMNS)),
    ]
    top = {key: resolve(node, schema) for key, node in schema.get('properties', {}).items()}
    required = set(schema.get('required', ()))
    for key, node in top.items():
        lines.append(_row(key, node, key in required))
    for key, node in top.items():
        rows = list(_descend(node, key))
        if not rows:
            continue
        lines.extend(['', '## %s' % key, ''])
        if _description(node):
            lines.extend([_description(node), ''])
        lines.extend(['| %s |' % ' | '.join(COLUMNS), '|%s' % ('---|' * len(COLUMNS))])
        lines.extend(_row(path, child, is_required) for path, child, is_required in rows)
    definitions = schema.get('$defs', {})
    if definitions:
        lines.extend(['', '## Names and text', '',
                      'Everything that reaches a file name or a configuration line follows one of these rules (`$defs` in '
                      'the schema). Patterns match the whole value: a trailing newline never passes. Integers are '
                      'integers: `4.0` and `true` are refused where a number of things is expected.', '',
                      '| Rule | Type | Allowed | Pattern |', '|---|---|---|---|'])
        for name, node in definitions.items():
            pattern = node.get('pattern', '')
            lines.append('| %s |' % ' | '.join(_cell(cell) for cell in (
                '`%s`' % name, type_text(node), allowed_text(node), '`%s`' % pattern if pattern else '')))
    return '\n'.join(lines) + '\n'


__all__ = ['generate', 'entries', 'type_text', 'allowed_text', 'default_text', 'SCHEMA_PATH', 'SCHEMA_FILE']
