# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""docs/intent.md is generated from the intent schema and must be up to date."""

import os
import subprocess
import sys

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import schema_doc
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.intent import load_schema
from tests.unit.utils.paths import ROOT

INTENT_DOC = os.path.join(ROOT, 'docs', 'intent.md')


def test_intent_doc_is_up_to_date():
    with open(INTENT_DOC, encoding='utf-8') as handle:
        current = handle.read()
    assert current == schema_doc.generate(), (
        'docs/intent.md is out of date with plugins/plugin_utils/fabric/schema/intent.schema.yml: '
        'run python scripts/gen-intent-doc.py')


def _leaf_paths(node, path=''):
    """Every key path of the schema, independently of schema_doc's walker."""
    for key, child in node.get('properties', {}).items():
        child_path = '%s.%s' % (path, key) if path else key
        yield child_path
        yield from _leaf_paths(child, child_path)
        if isinstance(child.get('items'), dict):
            yield from _leaf_paths(child['items'], child_path + '[]')
        if isinstance(child.get('additionalProperties'), dict):
            yield from _leaf_paths(child['additionalProperties'], child_path + '.<name>')


def test_every_key_is_documented_once():
    text = schema_doc.generate()
    paths = list(_leaf_paths(load_schema()))
    assert len(paths) > 100
    for path in paths:
        assert text.count('| `%s`' % path) == 1, path


def test_rows_carry_type_default_allowed_and_description():
    text = schema_doc.generate()
    assert ('| `topology.rail_optimized.servers` (required) | integer | - | 1 to 65536 | Number of GPU servers. |'
            in text)
    assert "| `name` (required) | string | - | 1-20 lowercase letters/digits, starting with a letter |" in text
    assert ('| `lossless.pfc.priorities` | list of integers | `[3]` | 1 to 8 items; no repeats; items: 0 to 7 |'
            in text)
    assert '| `underlay.routing` | string | `ebgp_numbered` | one of `ebgp_numbered`, `ebgp_unnumbered` |' in text
    assert '| `management.pool` | string or null | `null` | IPv4 network in CIDR form, no host bits set |' in text
    assert ('| `hosts.nccl.extra` | mapping | - | at most 64 entries; keys: NCCL_ followed by up to 60 capital letters, '
            'digits or _; values: string or integer, 1-1024 printable ASCII characters without spaces' in text)
    assert '| `topology.devices.<name>.management_ip` | string | - | IPv4 address | Management address (ansible_host). |' in text
    assert 'Units are fixed and appear in key names' in text


def test_pattern_without_x_allowed_shows_the_pattern():
    schema = {'type': 'object', 'properties': {'tag': {'type': 'string', 'pattern': '^[a-z]+$'}}}
    assert '| `tag` | string | - | text matching `^[a-z]+$` | - |' in schema_doc.generate(schema)


def test_script_check_mode(tmp_path):
    script = os.path.join(ROOT, 'scripts', 'gen-intent-doc.py')
    ok = subprocess.run([sys.executable, script, '--check'], capture_output=True, text=True, check=False, cwd=str(tmp_path))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    stale = tmp_path / 'intent.md'
    stale.write_text('# old\n')
    result = subprocess.run([sys.executable, script, '--check', '--output', str(stale)], capture_output=True, text=True,
                            check=False)
    assert result.returncode == 1 and 'out of date' in result.stdout
    written = subprocess.run([sys.executable, script, '--output', str(stale)], capture_output=True, text=True, check=False)
    assert written.returncode == 0
    assert stale.read_text() == schema_doc.generate()
