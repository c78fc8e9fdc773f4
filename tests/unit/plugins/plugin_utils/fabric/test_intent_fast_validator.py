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

from .test_intent_fuzz import MUTATION, VALID, mutated

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'fixtures')
FAST = intent_module._fast_validator()  # pylint: disable=protected-access
SLOW = intent_module._validator()  # pylint: disable=protected-access


def verdicts(data):
    """(fast accepts, jsonschema accepts) of plain data, with the defaults applied as validate_intent does; None for
    data with an integral float, which validate_intent gives to jsonschema only."""
    if intent_module._check_plain_data(data, IssueCollector())[1]:  # pylint: disable=protected-access
        return None
    instance = apply_defaults(copy.deepcopy(data), load_schema())
    return FAST(instance), not list(SLOW.iter_errors(instance))


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


def test_an_integral_float_goes_to_jsonschema():
    data = copy.deepcopy(VALID)
    data['overlay']['networks'][0]['vlan'] = 100.0
    assert verdicts(data) is None
    with pytest.raises(IntentError, match=r'overlay.networks\[0\].vlan'):
        load_intent(data)


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
    """The data when validate_intent would put it before the schema validators (plain data, no integral float)."""
    issues = IssueCollector()
    if not isinstance(data, dict) or intent_module._check_plain_data(data, issues)[1] or issues.issues:  # noqa pylint: disable=protected-access
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
