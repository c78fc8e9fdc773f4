# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reviewable diffs (config_diff): only what changes, by CONFIG_DB entry or by section, for files of any size."""

import copy
import json
import os
import re

from hypothesis import given, settings, strategies as st

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.config_diff import (
    DiffCollector, file_diff, json_diff, text_diff)
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_intent
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.intent_yaml import load_yaml_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_device
from tests.unit.utils.paths import ROOT

POD1K = os.path.join(ROOT, 'fabrics', 'pod1k.yml')
HUNK = re.compile(r'^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@')


def apply(old_lines, diff_lines):
    """Apply a unified diff's hunks (text_diff's output) to old_lines, checking every context and removed line."""
    result, position = [], 0
    for line in diff_lines:
        match = HUNK.match(line)
        if match:
            start = int(match.group(1)) - (0 if match.group(2) == '0' else 1)
            result.extend(old_lines[position:start])
            position = start
        elif line.startswith((' ', '-')):
            assert old_lines[position] == line[1:], 'context or removed line does not match the old text'
            if line.startswith(' '):
                result.append(line[1:])
            position += 1
        else:
            assert line.startswith('+'), line
            result.append(line[1:])
    return result + old_lines[position:]


LINES = st.lists(st.sampled_from(['router bgp 65001', ' neighbor x', '  maximum-paths 64', ' exit', '!', '', 'a', 'b']),
                 max_size=40)


@settings(max_examples=300, deadline=None)
@given(LINES, LINES)
def test_a_text_diff_turns_the_old_text_into_the_new_one(old, new):
    lines = text_diff(''.join(line + '\n' for line in old), ''.join(line + '\n' for line in new))
    assert (lines == []) == (old == new)
    assert apply(old, lines) == new


def test_hunk_headers_name_the_enclosing_sections():
    old = ('hostname leaf001\nrouter bgp 65001\n bgp router-id 10.0.0.1\n neighbor 10.1.0.0 remote-as 65100\n'
           ' address-family ipv4 unicast\n  maximum-paths 64\n  network 10.0.0.1/32\n exit-address-family\n!\n'
           'line vty\n exec-timeout 0 0\n')
    lines = text_diff(old, old.replace('maximum-paths 64', 'maximum-paths 1'))
    assert lines[0] == '@@ -3,7 +3,7 @@ router bgp 65001 > address-family ipv4 unicast'
    assert [line for line in lines if line[:1] in '-+'] == ['-  maximum-paths 64', '+  maximum-paths 1']
    inserted = text_diff(old, old.replace(' exec-timeout 0 0\n', ' exec-timeout 0 0\n transport input ssh\n'))
    assert inserted[0].endswith('@@ line vty')
    top = text_diff(old, old.replace('hostname leaf001', 'hostname leaf009'))
    assert top[0] == '@@ -1,4 +1,4 @@'  # a top-level line has no enclosing section


def test_a_config_db_change_shows_only_the_entries_that_change():
    old = {'PORT': {'Ethernet%d' % (8 * index): {'mtu': '9100', 'speed': '400000'} for index in range(64)},
           'WRED_PROFILE': {'ROCE_400G': {'green_min_threshold': '150000', 'ecn': 'ecn_all'}},
           'DEVICE_METADATA': {'localhost': {'hostname': 'leaf001'}}, 'VERSIONS': {'DATABASE': {'VERSION': 'v1'}}}
    new = copy.deepcopy(old)
    new['WRED_PROFILE']['ROCE_400G']['green_min_threshold'] = '200000'
    del new['PORT']['Ethernet8']
    new['VLAN'] = {'Vlan100': {'vlanid': '100'}}
    assert json_diff(old, new) == [
        '@@ PORT|Ethernet8 (removed) @@', '-"mtu": "9100",', '-"speed": "400000"',
        '@@ VLAN|Vlan100 (added) @@', '+"vlanid": "100"',
        '@@ WRED_PROFILE|ROCE_400G @@', ' "ecn": "ecn_all",', '-"green_min_threshold": "150000"',
        '+"green_min_threshold": "200000"']
    assert file_diff(json.dumps(old).encode(), json.dumps(new).encode()) == json_diff(old, new)
    assert file_diff(b'{}', b'[1, 2]\n') == ['@@ -1 +1 @@', '-{}', '+[1, 2]']  # not an object: compared as text
    assert file_diff(None, b'{"a": 1}') == ['@@ a (added) @@', '+1']
    assert file_diff(b'a\nb', b'a\r\nb\n') == ['@@ only line endings or the final newline differ @@']


def _pod1k(**ecn):
    intent = load_yaml_file(POD1K)
    intent['lossless'].setdefault('ecn', {}).update(ecn)
    return design_from_intent(intent)


def test_an_ecn_change_of_the_1024_gpu_pod_is_a_short_diff_of_a_large_leaf_file():
    """The issue's case: a leaf config_db.json of about 127 KiB (132 KB, over the former 128 KiB limit, until Spectrum
    SONiC switches rendered the dynamic buffer model: issue 35), whose ECN change was not shown at all."""
    before = render_device(_pod1k(), 'leaf001')['config_db.json'].encode()
    after = render_device(_pod1k(min_threshold_bytes=300000), 'leaf001')['config_db.json'].encode()
    assert len(before) > 120 * 1024
    lines = file_diff(before, after)
    assert [line for line in lines if line.startswith('@@')] == ['@@ WRED_PROFILE|AIFABRIC_LOSSLESS_400G @@']
    assert [line for line in lines if line[:1] in '-+'] == [
        '%s"%s_min_threshold": "%s"%s' % (sign, colour, value, ',' if colour != 'yellow' else '')
        for colour in ('green', 'red', 'yellow') for sign, value in (('-', 150000), ('+', 300000))]
    assert len(lines) < 20


def test_the_collector_merges_identical_changes_masks_secrets_and_counts_what_it_leaves_out():
    masked = DiffCollector(max_files=2, max_lines=50, mask=lambda text: text.replace('s3cret', '********'))
    for name in ('leaf001', 'leaf002', 'leaf003'):
        masked.add('configs/%s/frr.conf' % name, b'router bgp 1\n neighbor x password s3cret\n maximum-paths 64\n',
                   b'router bgp 1\n neighbor x password s3cret\n maximum-paths 1\n')
    masked.add('configs/spine001/frr.conf', b'a\n', b'b\n')
    masked.add('configs/spine002/frr.conf', b'c\n', b'd\n')
    masked.add('configs/spine002/same.conf', b'c\n', b'c\n')  # no change: nothing
    entries = masked.entries(removed=['configs/old/x.conf'])
    assert entries[0]['prepared'] == (
        '--- configs/leaf001/frr.conf (and 2 more with the same change: configs/leaf002/frr.conf, '
        'configs/leaf003/frr.conf)\n+++ configs/leaf001/frr.conf (and 2 more with the same change: '
        'configs/leaf002/frr.conf, configs/leaf003/frr.conf)\n'
        '@@ -1,3 +1,3 @@ router bgp 1\n router bgp 1\n  neighbor x password ********\n- maximum-paths 64\n'
        '+ maximum-paths 1\n')
    assert 's3cret' not in json.dumps(entries)
    assert entries[1]['prepared'].startswith('--- configs/spine001/frr.conf\n')
    assert entries[2:] == [{'prepared': '... 1 more changed files (1 distinct changes) not shown (diff_max_files=2)\n'},
                           {'prepared': 'configs/old/x.conf: removed (no longer produced by the intent)\n'}]
