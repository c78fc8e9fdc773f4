"""The compiled (fastjsonschema) validator only speeds up valid intents: whatever it accepts, jsonschema with the
intent's own rules (strict integers, ECMA `$`, address formats) accepts too; everything else goes to jsonschema."""

import copy
import glob
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import intent as intent_module
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.errors import IntentError, IssueCollector
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.intent import (
    apply_defaults, load_intent, load_schema, read_intent_file,
)
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.intent_yaml import IntentYAMLError

from .test_intent_fuzz import MUTATION, PATHS, VALID, mutated

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'fixtures')
FAST = intent_module._fast_validator()  # pylint: disable=protected-access
SLOW = intent_module._validator()  # pylint: disable=protected-access


def verdicts(data):
    """(fast accepts, jsonschema accepts) of plain data, with the defaults applied as validate_intent does and, for
    data with an integral float, given to the fast validator with those floats marked as no integers."""
    instance = apply_defaults(copy.deepcopy(data), load_schema())
    marked = instance
    if intent_module._check_plain_data(data, IssueCollector())[1]:  # pylint: disable=protected-access
        marked = intent_module._integral_floats_marked(instance)  # pylint: disable=protected-access
    return FAST(marked), not list(SLOW.iter_errors(instance))


def _at(node, path):
    for key in path:
        node = node[key]
    return node


def test_the_fast_validator_is_in_use():
    assert FAST is not None, 'fastjsonschema is a requirement (requirements.txt)'
    assert verdicts(copy.deepcopy(VALID)) == (True, True)


def test_a_large_intent_is_confirmed_by_the_fast_validator_alone(monkeypatch):
    data = copy.deepcopy(VALID)
    data['topology']['devices'].update({'leaf%02d' % index: {'platform': 'frr'} for index in range(2, 99)})
    assert intent_module._check_plain_data(data, IssueCollector())[0] < intent_module.FAST_VALIDATION_VALUES  # noqa pylint: disable=protected-access
    monkeypatch.setattr(intent_module, 'FAST_VALIDATION_VALUES', 100)
    monkeypatch.setattr(intent_module, '_validator', lambda: pytest.fail('jsonschema ran on a valid large intent'))
    intent_module.validate_intent(data)  # the schema part; the cross-field checks may still find unknown devices


@pytest.mark.parametrize('value, field', [
    ('leaf1\n', 'name'),             # ECMA $: no final newline
    (4.5, 'vlan'),                   # not an integer
    (True, 'vlan'),                  # true is not 1
    ('300.1.1.1/24', 'subnet'),      # address formats
    ('10.100.0.1/24', 'subnet'),     # host bits set: not a network
])
def test_the_fast_validator_refuses_what_jsonschema_refuses(value, field):
    data = copy.deepcopy(VALID)
    data['overlay']['networks'][0][field] = value
    assert verdicts(data) == (False, False)


def test_an_integral_float_where_an_integer_goes_goes_to_jsonschema():
    data = copy.deepcopy(VALID)
    data['overlay']['networks'][0]['vlan'] = 100.0
    assert verdicts(data) == (False, False)
    with pytest.raises(IntentError, match=r'overlay.networks\[0\].vlan'):
        load_intent(data)


def test_an_integral_float_where_a_number_goes_is_confirmed_by_the_fast_validator_alone(monkeypatch):
    data = copy.deepcopy(VALID)
    data['topology']['rail_optimized']['oversubscription'] = 1.0
    assert verdicts(data) == (True, True)
    monkeypatch.setattr(intent_module, '_validator', lambda: pytest.fail('jsonschema ran on a valid intent'))
    intent_module.validate_intent(data)


def test_a_marked_float_keeps_its_value():
    mark = intent_module._integral_floats_marked  # pylint: disable=protected-access
    marked = mark({'a': [4.0, 4.5, 4, True], 'b': -0.0})
    assert marked == {'a': [4.0, 4.5, 4, True], 'b': -0.0}
    assert [value.is_integer() for value in marked['a'][:2]] == [False, False]
    assert type(marked['a'][1]) is float and type(marked['a'][2]) is int  # pylint: disable=unidiomatic-typecheck


# The intent's integers, and its one number field (oversubscription), which VALID leaves to its default.
NUMBER_PATHS = [path for path in PATHS if type(_at(VALID, path)) is int] + [  # pylint: disable=unidiomatic-typecheck
    ('topology', 'rail_optimized', 'oversubscription')]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(NUMBER_PATHS),
                          st.one_of(st.integers(min_value=-2, max_value=10 ** 6).map(float),
                                    st.sampled_from([0.0, -0.0, 1.0, 3.0, 26.0, 100.0, 9000.0, 65100.0, 1e300]))),
                min_size=1, max_size=4),
       st.lists(MUTATION, max_size=2))
def test_with_integral_floats_fast_accepts_only_what_jsonschema_accepts(floats, mutations):
    """Integral floats at the numbers of a valid (or mutated) intent: the integer fields refuse them, the number
    fields take them; the fast validator, given them marked, accepts nothing jsonschema refuses."""
    data = mutated(mutations)
    for path, value in floats:
        try:
            parent = _at(data, path[:-1])
            parent[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue
    if plain(data) is not None:
        fast, slow = verdicts(data)
        assert fast <= slow


def test_schema_defaults_of_integer_fields_are_integers():
    # validate_intent looks for integral floats in the user's data only; the defaults must not bring one in.
    bad = []

    def walk(node, path):
        if isinstance(node, dict):
            if node.get('type') == 'integer' and 'default' in node and not isinstance(node['default'], int):
                bad.append(path)
            for key, value in node.items():
                walk(value, path + '/' + str(key))
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, '%s/%d' % (path, index))
    walk(load_schema(), '')
    assert bad == []


def test_no_reference_is_left_for_the_fast_validator():
    assert '$ref' not in repr(intent_module.inline_local_refs(load_schema()))


def plain(data):
    """The data when validate_intent would put it before the schema validators (plain data)."""
    issues = IssueCollector()
    if not isinstance(data, dict) or intent_module._check_plain_data(data, issues)[2] or issues.issues:  # noqa pylint: disable=protected-access
        return None
    return data


def test_every_invalid_corpus_intent_that_fast_accepts_jsonschema_accepts_too():
    checked = 0
    for path in sorted(glob.glob(os.path.join(FIXTURES, 'invalid_intents', '*.intent'))):
        try:
            data = plain(read_intent_file(path))
        except (IntentError, IntentYAMLError):
            continue  # refused while reading (YAML problems, size, depth)
        if data is not None:
            fast, slow = verdicts(data)
            assert fast <= slow, path
            checked += 1
    assert checked > 50


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(MUTATION, min_size=1, max_size=3))
def test_on_mutated_intents_fast_accepts_only_what_jsonschema_accepts(mutations):
    data = mutated(mutations)
    if plain(data) is not None:
        fast, slow = verdicts(data)
        assert fast <= slow


def test_an_enum_without_a_type_takes_only_its_values_types():
    fast = intent_module._fast_schema({'enum': [1, 2], 'default': 1})  # pylint: disable=protected-access
    assert fast == {'enum': [1, 2], 'type': ['integer']}
