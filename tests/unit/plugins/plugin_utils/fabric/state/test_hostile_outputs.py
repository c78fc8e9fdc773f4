# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whatever a device prints, its gatherer gives either the neutral state, of its type in every item, or a StateError.

Property tests feed every parser of every platform (the registry's, and the GPU servers') its recorded real outputs
(recorded.py), mutated: a value anywhere in the JSON replaced by a hostile one (a lone surrogate, escape sequences, a
text where a number belongs, infinity, a huge integer, a list, nothing), a key renamed, an item dropped, text
inserted into or cut from a text output. Then the cases the issue names, each a StateError from the parser itself,
naming the value: EOS queue `TxQ<b>3</b>` and VNI keys that are no number, NVUE `"mtu": "jumbo"`.
"""

import copy
import json
import typing

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import typed
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms import platform_names
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state import StateError, schema
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.sources import gatherer_for
from tests.unit.plugins.plugin_utils.fabric.state.recorded import recorded

PLATFORMS = platform_names() + ['host']
HOSTILE_TEXT = st.one_of(
    st.sampled_from(['spine\udcff001', '\udcff', '\x1b]0;owned\x07\x1b[2J', 'a\r\nforged line', 'TxQ<b>3</b>',
                     '<script>alert(1)</script>', 'jumbo', '', ' ', '-1', '9' * 40, '1e309', 'null', 'l\u0430b',
                     '\u202eevil', '10.0.0.0/33', 'Ethernet1/1', 'up', 'Established', '{}', '[]']),
    st.text(max_size=20))
HOSTILE = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(min_value=-2 ** 70, max_value=2 ** 70),
              st.floats(allow_nan=True, allow_infinity=True), HOSTILE_TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(HOSTILE_TEXT, inner, max_size=3)),
    max_leaves=5)


def _cases(platform):
    """[(id, gatherer, key, output)] of the recorded outputs of `platform`."""
    return [('%s:%s' % (model['name'], key), gatherer_for(model), key, output)
            for model, raw in recorded(platform) for key, output in raw.items()]


CASES = {platform: _cases(platform) for platform in PLATFORMS}


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, prefix + (index,))


def _mutate_tree(data, tree):
    """`tree` with one node replaced, renamed or dropped."""
    tree = copy.deepcopy(tree)
    paths = list(_paths(tree))
    path = paths[data.draw(st.integers(0, len(paths) - 1), label='node')]
    if not path:
        return data.draw(HOSTILE, label='whole')
    parent = tree
    for part in path[:-1]:
        parent = parent[part]
    action = data.draw(st.sampled_from(['replace', 'rename', 'drop']), label='action')
    if action == 'replace':
        parent[path[-1]] = data.draw(HOSTILE, label='value')
    elif isinstance(parent, dict):
        value = parent.pop(path[-1])
        if action == 'rename':
            parent[data.draw(HOSTILE_TEXT, label='key')] = value
    else:
        del parent[path[-1]]
    return tree


def _mutate_text(data, text):
    at = data.draw(st.integers(0, len(text)), label='at')
    cut = data.draw(st.integers(0, 40), label='cut')
    return text[:at] + data.draw(HOSTILE_TEXT, label='inserted') + text[at + cut:]


def _mutate(data, output):
    """One mutation of a command result ({rc, stdout, stderr}: its JSON, else its text), an eAPI object or a list of
    either (a key read with several commands)."""
    if isinstance(output, list) and output and data.draw(st.booleans(), label='one of the outputs'):
        index = data.draw(st.integers(0, len(output) - 1), label='output')
        return output[:index] + [_mutate(data, output[index])] + output[index + 1:]
    if isinstance(output, dict) and isinstance(output.get('stdout'), str):
        try:
            tree = json.loads(output['stdout'])
        except ValueError:
            return dict(output, stdout=_mutate_text(data, output['stdout']))
        return dict(output, stdout=json.dumps(_mutate_tree(data, tree)))
    return _mutate_tree(data, output)


def _judge(gatherer, key, output):
    """What the gatherer gives: the state, which must be of the key's type in every item, or None for a StateError."""
    try:
        value = gatherer.parse(key, output)
    except StateError as exc:
        assert exc.message and isinstance(exc.message, str)
        return None
    base = key[:-2] if key.endswith('.2') else key
    assert schema.problems(base, value, limit=3) == [], (key, schema.problems(base, value, limit=3))
    return value


def test_every_platform_has_recorded_outputs_to_mutate():
    assert all(CASES[platform] for platform in PLATFORMS), [platform for platform in PLATFORMS if not CASES[platform]]


@pytest.mark.parametrize('platform', PLATFORMS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_a_mutated_output_gives_typed_state_or_a_state_error(platform, data):
    _case_id, gatherer, key, output = data.draw(st.sampled_from(CASES[platform]), label='recorded output')
    _judge(gatherer, key, _mutate(data, output))


@pytest.mark.parametrize('platform', PLATFORMS)
def test_each_recorded_output_with_a_lone_surrogate_in_every_string_is_read_or_refused(platform):
    """What a JSON writer prints for a byte that is not UTF-8, everywhere at once, in every recorded output."""
    def poison(node):
        if isinstance(node, str):
            return node + '\udcff'
        if isinstance(node, dict):
            return {poison(key) if isinstance(key, str) else key: poison(value) for key, value in node.items()}
        if isinstance(node, list):
            return [poison(value) for value in node]
        return node
    for _case_id, gatherer, key, output in CASES[platform]:
        _judge(gatherer, key, poison(output))


# --------------------------------------------------------------------------- the seam's own type check
def _slow(value, kind):
    found = []
    typed._check(value, kind, 'value', found, 5, False)  # pylint: disable=protected-access
    return found


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_the_fast_type_check_agrees_with_the_worded_one(data):
    """typed.conforms (every item, at a fraction of the cost) says yes exactly when typed.problems finds nothing."""
    key = data.draw(st.sampled_from(sorted(schema.STATE)), label='key')
    kind = schema.STATE[key]
    values = [value for platform in PLATFORMS for _id, gatherer, name, output in CASES[platform] if name == key
              for value in [_parsed(gatherer, name, output)] if value is not None]
    if not values:
        return
    value = data.draw(st.sampled_from(values), label='state')
    mutated = _mutate_tree(data, value)
    assert typed.conforms(mutated, kind) == (not _slow(mutated, kind))


def _parsed(gatherer, key, output):
    try:
        return gatherer.parse(key, output)
    except StateError:
        return None


def test_fast_type_check_sees_a_wrong_item_beyond_the_first():
    kind = schema.STATE['bgp_summary']
    good = [value for _id, gatherer, key, output in CASES['frr'] if key == 'bgp_summary'
            for value in [_parsed(gatherer, key, output)] if value][0]
    assert len(good) > 1 and typed.conforms(good, kind)
    bad = copy.deepcopy(good)
    bad[-1]['prefixes_received'] = 'jumbo'
    assert not typed.conforms(bad, kind)
    assert schema.problems('bgp_summary', bad) == [
        "bgp_summary[%d].prefixes_received is 'jumbo', expected %s" % (len(bad) - 1, typed._name(  # pylint: disable=protected-access
            typing.get_type_hints(typing.get_args(kind)[0])['prefixes_received']))]


# --------------------------------------------------------------------------- the cases of the issue
def _recorded(platform, key):
    return next((gatherer, output) for _id, gatherer, name, output in CASES[platform] if name == key)


def test_eos_watchdog_queue_that_is_no_queue_is_named():
    gatherer, output = _recorded('eos', 'counters')
    output = copy.deepcopy(output)
    table = output[1].get('interfaceCounters') or output[1].get('interfaces')
    port = next(iter(table))
    queues = table[port]['txQueues']
    queues['TxQ<b>3</b>'] = queues.pop(next(iter(queues)))
    with pytest.raises(StateError, match=r"%s watchdog queue 'TxQ<b>3</b>' is not a queue EOS names" % port):
        gatherer.parser('counters')(output)


def test_eos_vni_key_that_is_no_number_is_named():
    gatherer, output = _recorded('eos', 'evpn_vni')
    output = copy.deepcopy(output)
    vxlan = next(item for item in output if isinstance(item, dict) and 'vxlanIntfs' in item)
    bindings = next(iter(vxlan['vxlanIntfs'].values()))['vniBindings']
    bindings['10100x'] = bindings.pop(next(iter(bindings)))
    with pytest.raises(StateError, match=r"Vxlan1 VNI is '10100x', expected a number"):
        gatherer.parser('evpn_vni')(output)


def test_nvue_mtu_that_is_no_number_is_named():
    gatherer, output = _recorded('nvue', 'interfaces')
    output = copy.deepcopy(output)
    first = output[0] if isinstance(output, list) else output
    data = json.loads(first['stdout'])
    port = next(name for name in data if name.startswith('swp'))
    data[port]['link']['mtu'] = 'jumbo'
    mutated = dict(first, stdout=json.dumps(data))
    with pytest.raises(StateError, match=r"interface %s mtu is 'jumbo', expected a number" % port):
        gatherer.parser('interfaces')([mutated] if isinstance(output, list) else mutated)


def test_nvue_route_target_vni_key_that_is_no_number_is_named():
    gatherer, output = _recorded('nvue', 'bgp_evpn_vni')
    output = copy.deepcopy(output)
    tree = json.loads(output[0]['stdout'])  # nv config show -o json: a header document, then `set` documents
    vnis = next(document['set']['evpn']['vni'] for document in tree if 'evpn' in document.get('set', {}))
    vnis['vni10'] = vnis.pop(next(iter(vnis)))
    output[0] = dict(output[0], stdout=json.dumps(tree))
    with pytest.raises(StateError, match=r"evpn vni key is 'vni10', expected a number"):
        gatherer.parser('bgp_evpn_vni')(output)


def test_any_exception_a_parser_meets_is_a_state_error_naming_the_gatherer():
    """The seam: a parser that trips over a value nobody foresaw (here: a list where a mapping belongs) raises no
    Python exception past Gatherer.parse."""
    gatherer, output = _recorded('eos', 'interfaces')
    broken = copy.deepcopy(output)
    first = broken[0] if isinstance(broken, list) else broken
    interfaces = first['interfaces']
    interfaces[next(iter(interfaces))]['interfaceAddress'] = [['not', 'an', 'address']]
    with pytest.raises(StateError, match='EOS|eos'):
        gatherer.parse('interfaces', broken)
