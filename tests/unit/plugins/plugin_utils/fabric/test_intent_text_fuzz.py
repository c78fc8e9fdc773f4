# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Property: any mutation of the YAML TEXT of a valid intent (not only of the parsed data) gives either a valid design
whose every device renders, or a clean IntentError, quickly; never another exception.

Text mutations reach what dict mutations cannot: YAML syntax, anchors and aliases, tags, duplicate keys, indentation,
flow collections, escapes, control and invisible characters, numbers that turn into floats or booleans.
"""

import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_intent
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.errors import IntentError
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.intent import read_intent_text
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_fabric, render_model

VALID_TEXT = """\
name: fuzz
description: text fuzzing base
topology:
  rail_optimized: {servers: 4, rails: 2, nic_speed_gbps: 100, leaf_radix: 4, spines: 2}
  platform: {leaf: sonic, spine: eos, super_spine: nvue}
  naming:
    leaf: leaf{n:02d}
  devices:
    leaf01: {platform: frr}
management:
  pool: 192.168.50.0/24
overlay:
  vrfs:
    - {name: T1, l3vni: 50001}
  networks:
    - name: rail0
      vlan: 100
      subnet: 10.100.0.0/24
      rails: [0]
      vrf: T1
    - {name: rail1, vlan: 101, subnet: 10.101.0.0/24, rails: [1]}
hosts:
  rail_interfaces: [ens1, ens2]
  nccl:
    extra: {NCCL_DEBUG: WARN}
lossless:
  roce_dscp: 26
  pfc: {priorities: [3]}
"""

# Fragments a hostile or clumsy editor types: YAML syntax, anchors, tags, numbers that change type, names that escape.
FRAGMENTS = [
    '\n', ' ', '  ', '\t', ':', ': ', '- ', '-', '[', ']', '{', '}', ',', '"', "'", '#', '&a ', '*a', '&b [*a, *a]',
    '!!binary ', '!!python/object:os.system ', '!!set ', '!!float ', '? ', '|', '>', '%YAML 1.1\n', '---\n', '...\n',
    '<<: ', '.0', '.5', 'e3', '0x1f', '0o17', 'yes', 'no', 'on', 'null', '~', '.inf', '-.inf', '.nan', '1e400',
    '99999999999999999999', '-1', '2024-01-01', '../', '/', '..', '\\n', '\\x00', '\\u202e', '\x00', '\x1b', '\u202e',
    '\u200b', '\ufeff', '\U0001f680', 'é', '{n}', '{n:0999}', '{x}', '{n!r}', 'NCCL_X', '=', ';', '$(reboot)', '`id`',
]


def _mutate(text, operations):
    for kind, position, length, fragment in operations:
        position %= max(len(text), 1)
        if kind == 'insert':
            text = text[:position] + fragment + text[position:]
        elif kind == 'delete':
            text = text[:position] + text[position + length:]
        elif kind == 'replace':
            text = text[:position] + fragment + text[position + length:]
        elif kind == 'duplicate_line':
            lines = text.splitlines(True)
            if lines:
                index = position % len(lines)
                lines.insert(index, lines[index])
                text = ''.join(lines)
        elif kind == 'drop_line':
            lines = text.splitlines(True)
            if lines:
                del lines[position % len(lines)]
                text = ''.join(lines)
    return text


OPERATION = st.tuples(st.sampled_from(['insert', 'delete', 'replace', 'duplicate_line', 'drop_line']),
                      st.integers(min_value=0, max_value=5000), st.integers(min_value=1, max_value=12),
                      st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=4)))


def _outcome(text):
    """'valid' or 'invalid'; anything else (another exception) fails the test with that exception."""
    try:
        design = design_from_intent(read_intent_text(text, 'fuzz.yml'))
    except IntentError as exc:
        assert exc.issues
        for issue in exc.issues:
            assert isinstance(issue.path, str) and issue.path and issue.message
            assert '\n' not in issue.path and '\n' not in str(issue).split(' (got ', maxsplit=1)[0]
        return 'invalid'
    for name in design.device_names():
        files = render_model(design.device(name))
        assert files and all(isinstance(text, str) for text in files.values())
    render_fabric(design)
    return 'valid'


# A guard against blow-ups (an intent that explodes in size or time), not a speed target: speed is measured by
# benchmarks/, on a quiet machine.
HANG_GUARD_S = 60


def test_the_base_text_is_valid():
    assert _outcome(VALID_TEXT) == 'valid'


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(OPERATION, min_size=1, max_size=4))
def test_mutated_text_designs_or_fails_cleanly(operations):
    text = _mutate(VALID_TEXT, operations)
    started = time.perf_counter()
    _outcome(text)
    assert time.perf_counter() - started < HANG_GUARD_S


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(min_size=0, max_size=200))
def test_arbitrary_text_fails_cleanly(text):
    assert _outcome(text) == 'invalid'
