# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""node_lines: every key and list item of an intent file is found at its own line, whatever the shape of the file."""

import os
import re

import yaml
from hypothesis import given, settings, strategies as st

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.intent_yaml import (
    load_yaml_file_located, load_yaml_text_located)
from tests.unit.utils.paths import ROOT

KEY = st.from_regex(r'[a-z][a-z0-9_]{0,8}', fullmatch=True)
SCALAR = st.one_of(st.integers(-5, 5000), st.booleans(), st.from_regex(r'[a-z][a-z0-9]{0,5}', fullmatch=True))
DOCUMENT = st.recursive(SCALAR, lambda children: st.one_of(st.lists(children, max_size=4),
                                                           st.dictionaries(KEY, children, max_size=4)), max_leaves=30)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(KEY, DOCUMENT, min_size=1, max_size=5), st.booleans())
def test_every_key_is_found_at_its_line(document, flow):
    text = yaml.safe_dump(document, default_flow_style=None if flow else False, sort_keys=False)
    data, lines = load_yaml_text_located(text)
    assert data == document
    text_lines = text.splitlines()
    for path, line in lines.items():
        last = re.split(r'[.\[]', path)[-1]
        if path == '(root)' or last.endswith(']'):
            continue
        # (the dumper quotes a key YAML 1.1 would read as something else: 'no', 'on', 'null')
        assert re.search(r"(^|[ {,-])'?%s'?:" % re.escape(last), text_lines[line - 1]), (path, line, text)


def test_the_shipped_intents_are_located_key_by_key():
    for name in ('lab', 'pod1k'):
        path = os.path.join(ROOT, 'fabrics', name + '.yml')
        _data, lines = load_yaml_file_located(path)
        with open(path, encoding='utf-8') as handle:
            text_lines = handle.read().splitlines()
        assert lines['topology.rail_optimized.servers'] > lines['topology.rail_optimized'] > lines['topology']
        for path_, line in lines.items():
            last = re.split(r'[.\[]', path_)[-1]
            if path_ != '(root)' and not last.endswith(']'):
                assert re.search(r'(^|[ {,-])%s:' % re.escape(last), text_lines[line - 1]), (name, path_, line)


def test_an_alias_is_walked_once():
    text = 'a: &x {b: [1, 2, {c: 3}]}\nd: *x\ne: *x\n'
    data, lines = load_yaml_text_located(text)
    assert data['d'] == data['a'] and lines['a.b[2].c'] == 1 and 'd.b' not in lines and lines['e'] == 3
