"""jsontext.dumps writes exactly what json.dumps writes with an indent."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.jsontext import dumps

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text())
KEYS = st.one_of(st.text(), st.integers(), st.floats(allow_nan=False), st.booleans(), st.none())
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4), st.tuples(inner, inner),
                                                       st.dictionaries(KEYS, inner, max_size=4)), max_leaves=25)


@settings(max_examples=500, deadline=None)
@given(VALUES, st.sampled_from([0, 1, 2, 4]))
def test_same_text_as_json_dumps(value, indent):
    assert dumps(value, indent=indent) == json.dumps(value, indent=indent)


@settings(max_examples=200, deadline=None)
@given(st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                     st.dictionaries(st.text(), inner, max_size=4)), max_leaves=25))
def test_same_text_as_json_dumps_with_sorted_keys(value):
    assert dumps(value, indent=1, sort_keys=True) == json.dumps(value, indent=1, sort_keys=True)


def test_what_json_refuses_is_refused():
    with pytest.raises(TypeError, match='not JSON serializable'):
        dumps({'a': {1, 2}})
    with pytest.raises(TypeError, match='keys must be'):
        dumps({(1, 2): 'x'})


@settings(max_examples=200, deadline=None)
@given(VALUES, st.sampled_from([1, 2]))
def test_frozen_parts_give_the_same_text_at_every_depth(shared, indent):
    value = {'top': shared, 'nested': [{'again': shared}], 'other': [shared, 1]}
    expected = json.dumps(value, indent=indent)
    assert dumps(value, indent=indent, frozen=(shared,)) == expected
    assert dumps(value, indent=indent, frozen=(shared,)) == expected  # from the kept text this time


def test_a_frozen_text_belongs_to_its_object_only():
    first = {'a': [1, 2]}
    assert dumps({'k': first}, frozen=(first,)) == json.dumps({'k': first}, indent=2)
    del first
    second = {'b': 'other'}  # may reuse the id of the first object: its text is not the first one's
    assert dumps({'k': second}, frozen=(second,)) == json.dumps({'k': second}, indent=2)
