# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parsed state kept packed between uses (checks.DeviceState.parse_all, checks.InUse): what a check reads is what was
parsed, whatever it holds; what is not in use is let go, its views with it."""

import math

from hypothesis import given, settings, strategies as st

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state import StateError

# What parsers make: JSON-like data with int keys (priorities, queues), tuples, sets, any text (a device's bytes
# decoded with surrogateescape included), any number.
SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text()
KEYS = st.text(max_size=8) | st.integers(min_value=-2, max_value=2 ** 70)
PARSED = st.recursive(SCALARS, lambda inner: (st.lists(inner, max_size=4) | st.tuples(inner, inner)
                                              | st.dictionaries(KEYS, inner, max_size=4)
                                              | st.frozensets(st.integers(), max_size=3)), max_leaves=30)


class Gatherer:
    """Parses each key of the state into the value the test gives for it."""

    title = 'test'

    def __init__(self, values=None):
        self.values = values or {}

    @staticmethod
    def parser(key):
        return None if key.startswith('_') else True  # '_times': when the counters were read, not a device output

    def parse(self, key, raw):
        return self.values.get(key, raw)


def _same(left, right):
    """Equal, types and order included (NaN equal to NaN)."""
    if isinstance(left, float) and math.isnan(left):
        return isinstance(right, float) and math.isnan(right)
    if type(left) is not type(right):  # pylint: disable=unidiomatic-typecheck
        return False
    if isinstance(left, dict):
        return list(left) == list(right) and all(_same(left[key], right[key]) for key in left)
    if isinstance(left, (list, tuple)):
        return len(left) == len(right) and all(_same(one, two) for one, two in zip(left, right))
    return left == right


def _state(values, name='leaf001'):
    """A device whose raw outputs parse into `values`."""
    return checks.DeviceState(name, {key: 'output of %s' % key for key in values}, gatherer=Gatherer(values))


@settings(max_examples=150, deadline=None)
@given(value=PARSED)
def test_a_packed_value_reads_back_exactly_what_was_parsed(value):
    state = _state({'interfaces': value}).parse_all()
    assert isinstance(state._parsed['interfaces'][1], checks.Packed)  # pylint: disable=protected-access
    assert not state.unpacked and state.raw['interfaces'] is None
    assert _same(state.get('interfaces'), value)
    checks.IN_USE.forget(state)
    assert _same(state.get('interfaces'), value)  # unpacked again


def test_what_marshal_cannot_hold_and_shared_parts_stay_objects():
    class Mine:  # a parser's own type (marshal refuses it)
        pass
    deep = []
    for _level in range(5000):  # deeper than marshal goes
        deep = [deep]
    mine, lossless = Mine(), {'ports': {}}
    state = _state({'interfaces': [mine], 'routes': deep, 'lossless': lossless}).parse_all()
    assert state.get('interfaces')[0] is mine and state.get('routes') is deep
    assert state.get('lossless') is lossless  # its views are shared with other devices: a packed copy would not be


def test_an_unreadable_value_stays_an_error_after_packing():
    class Failing(Gatherer):
        @staticmethod
        def parse(key, value):
            if value == 'bad':
                raise StateError(key, 'cannot parse %r' % value)
            return [1]
    state = checks.DeviceState('leaf001', {'lldp': 'bad', 'interfaces': 'good'}, gatherer=Failing()).parse_all()
    for _reading in range(2):
        try:
            state.get('lldp')
        except StateError as error:
            assert error.device == 'leaf001' and 'bad' in error.message
        else:
            raise AssertionError('lldp read although it could not be parsed')
    assert state.get('interfaces') == [1]


def test_in_use_keeps_what_was_read_last_and_lets_go_of_the_rest_with_its_views(monkeypatch):
    states = [_state({'lldp': [{'interface': 'Ethernet%d' % port, 'name': 'spine%03d' % device}
                               for port in range(32)]}, 'leaf%03d' % device).parse_all() for device in range(50)]
    one = len(states[0]._parsed['lldp'][1].data)  # pylint: disable=protected-access
    monkeypatch.setattr(checks.IN_USE, 'LIMIT', 3 * one)
    built = []
    for state in states:
        view = state.derived('lldp', 'by_port', lambda state=state: built.append(state.name) or
                             {entry['interface']: entry for entry in state.get('lldp')})
        assert view['Ethernet3']['name'] == state.get('lldp')[3]['name']
    assert len(built) == 50  # each made once
    in_use = [state.name for state in states if state.unpacked]
    assert in_use == ['leaf047', 'leaf048', 'leaf049'] and checks.IN_USE.size <= 3 * one
    assert not states[0].views  # let go with its value
    states[0].derived('lldp', 'by_port', lambda: built.append('again') or {})
    assert built[-1] == 'again'


def test_counter_rates_are_packed_as_they_are_made():
    readings = {'counters': {'ports': {'Ethernet0': {'pfc_rx': {3: 10}}}},
                'counters.2': {'ports': {'Ethernet0': {'pfc_rx': {3: 30}}}}}
    state = checks.DeviceState('leaf001', dict(readings, _times={'counters': 100.0, 'counters.2': 110.0}),
                               gatherer=Gatherer())
    state.parse_all()
    rates = state.rates('counters')
    assert rates['ports']['Ethernet0']['pfc_rx'] == {3: 2.0}
    assert isinstance(state._parsed['counters/rates'][1], checks.Packed)  # pylint: disable=protected-access
    checks.IN_USE.forget(state)
    assert state.rates('counters') == rates
