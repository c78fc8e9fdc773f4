"""The rejected-configuration corpora (tests/unit/platforms/<name>/double/corpus.yml): every case, taken from a vendor rule with its
source, is refused by the double with the vendor's error; the untouched rendered configuration is accepted; and every
rendered configuration (all golden fabric shapes, every switch model of each NOS) passes the double's rules.

`make test` checks a seeded sample of the rendered switches: a quarter of those of each fabric shape, switch model
and role, at least one of each (tests/unit/utils/sampling.py; the seed is printed, AIFABRIC_SAMPLE_SEED replays it;
switches of one role in one fabric differ in their numbers and names); `make test-exhaustive` checks every switch."""

import copy
import os

import pytest
import yaml

from tests.doubles import corpus
from tests.unit.platforms.eos.double.device import EapiError, EosDevice
from tests.unit.platforms.sonic.double import factory as sonic_factory, gcu as sonic_gcu
from tests.unit.platforms.nvue.double import shell as nvue
from tests.unit.utils import sampling
from tests.unit.utils.paths import ROOT

INTENTS = os.path.join(ROOT, 'tests', 'unit', 'fixtures', 'intents')
MINIMUM = 25


@pytest.mark.parametrize('nos', corpus.names())
def test_each_corpus_has_enough_cited_cases(nos):
    cases = corpus.cases(nos)
    assert len(cases) >= MINIMUM, '%s: %d cases' % (nos, len(cases))
    assert len({case['name'] for case in cases}) == len(cases)
    assert all(case.get('source') and case.get('error') for case in cases)


def test_the_untouched_configurations_pass():
    running, target, facts = corpus.sonic_case()
    sonic_gcu.check_target(running, target, facts)
    device = EosDevice('leaf001', 'admin', 'unused')
    device.run_cmds(['enable', 'configure session corpus', 'rollback clean-config'] + corpus.eos_lines() + ['end'])
    for base in ({}, {'base': 'leaf'}, {'base': 'leaf-5.15', 'release': '5.15'}):
        tree, facts = corpus.nvue_case(base)
        assert nvue.validation_errors(tree, facts) == []


@pytest.mark.parametrize('case', corpus.cases('sonic'), ids=lambda case: case['name'])
def test_sonic_refuses_every_corpus_case(case):
    running, target, facts = corpus.sonic_case(case)
    with pytest.raises(sonic_gcu.Refused) as caught:
        sonic_gcu.check_target(running, target, facts)
    assert case['error'] in str(caught.value)


@pytest.mark.parametrize('case', corpus.cases('eos'), ids=lambda case: case['name'])
def test_eos_refuses_every_corpus_case(case):
    device = EosDevice('leaf001', 'admin', 'unused')
    with pytest.raises(EapiError) as caught:
        device.run_cmds(['enable', 'configure session corpus', 'rollback clean-config'] + corpus.eos_lines(case))
    assert case['error'] in caught.value.data[-1]['errors'][0], caught.value.data[-1]


@pytest.mark.parametrize('case', corpus.cases('nvue'), ids=lambda case: case['name'])
def test_nvue_refuses_every_corpus_case(case):
    tree, facts = corpus.nvue_case(case)
    errors = nvue.validation_errors(tree, facts)
    assert any(case['error'] in error for error in errors), errors


# -- every rendered configuration passes ----------------------------------------------------------------------------
MODELS = {'sonic': ('dell-z9664f', 'dell-z9864f', 'nvidia-sn4700', 'nvidia-sn5600'),
          'eos': ('arista-7060dx5-64s', 'arista-7060x6-64pe'), 'nvue': ('nvidia-sn4700', 'nvidia-sn5600')}
# GCU's field-operation validators do not list these HwSKUs (gcu_field_operation_validators.conf.json helper_data):
# a real SONiC refuses any PFC_WD change a deploy makes on them.
GCU_UNKNOWN_ASIC = ('dell-z9664f', 'dell-z9864f')


def _intents():
    paths = sorted(os.path.join(INTENTS, name) for name in os.listdir(INTENTS) if name.endswith('.yml'))
    return paths + [corpus.MIXED]


def _rendered_switches():
    """(intent, model, device, platform, files) for every switch of every golden intent, once with the intent's own
    models and once with each model of the switch's NOS (a model too small for the fabric is skipped)."""
    from tests.doubles.fleet import TEST_PASSWORD_HASH
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_intent
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.errors import IntentError
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_device
    for path in _intents():
        with open(path, encoding='utf-8') as handle:
            intent = yaml.safe_load(handle)
        base = design_from_intent(intent)
        platforms = {base.device(name).get('platform') for name in base.device_names()}
        variants = [(None, intent)]
        for platform in platforms & set(MODELS):
            for model in MODELS[platform]:
                changed = copy.deepcopy(intent)
                changed['topology'].pop('asic', None)
                changed['topology']['model'] = {'leaf': model, 'spine': model, 'super_spine': model}
                for device in (changed['topology'].get('devices') or {}).values():
                    device.pop('model', None)
                    device.pop('asic', None)
                variants.append((model, changed))
        for model, data in variants:
            try:
                design = design_from_intent(data)
            except IntentError:
                continue  # a model this fabric does not fit, or one the other NOS of a mixed fabric cannot run
            users = {user['name']: TEST_PASSWORD_HASH for user in design.intent['management']['users']}
            for name in design.device_names():
                node_model = design.device(name)
                platforms_of_model = [nos for nos, names in MODELS.items() if model in names]
                if node_model.get('platform') in MODELS and (model is None or node_model['platform'] in platforms_of_model):
                    yield os.path.basename(path), model, name, node_model, render_device(design, name, users)


def _shape_model_and_role(switch):
    intent, model, _name, node_model, _files = switch
    return intent, model, node_model['platform'], node_model['hardware']['model'], node_model['role']


def test_every_rendered_configuration_passes_the_vendor_rules():
    seen = {'sonic': set(), 'eos': set(), 'nvue': set()}
    switches = sampling.stratified(_rendered_switches(), _shape_model_and_role, 0.25, 'rendered switches')
    for intent, model, name, node_model, files in switches:
        platform = node_model['platform']
        hardware = node_model['hardware']['model']
        seen[platform].add(hardware)
        where = '%s %s %s (%s)' % (intent, hardware, name, sampling.describe())
        if platform == 'sonic':
            # The first deploy loads the whole configuration on the factory switch (`config reload FILE`: the YANG
            # models and no table without one); a later one replaces it with GCU (here: the same file again, and a
            # PFC watchdog change, which GCU refuses on the ASICs it does not know).
            from tests.doubles.fleet import switch_model_facts
            from tests.unit.platforms.sonic.double import shell as sonic
            from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms.sonic.render import deploy_target
            facts = dict(switch_model_facts(hardware), name=name, tacacs_passkey='out-of-band-key')
            config_db = yaml.safe_load(files['config_db.json'])
            target = deploy_target(sonic_factory.config_db(facts), config_db)
            assert sonic.reload_problem(target) is None, (where, sonic.reload_problem(target))
            running = corpus.loaded(facts, config_db)
            sonic_gcu.check_target(running, deploy_target(copy.deepcopy(running), config_db), facts)
            changed = deploy_target(copy.deepcopy(running), config_db)
            port = next(key for key in changed['PFC_WD'] if key != 'GLOBAL')
            changed['PFC_WD'][port]['detection_time'] = '300'
            if hardware in GCU_UNKNOWN_ASIC:
                with pytest.raises(sonic_gcu.Refused, match='Modification of PFC_WD table is illegal'):
                    sonic_gcu.check_target(running, changed, facts)
            else:
                sonic_gcu.check_target(running, changed, facts)
        elif platform == 'eos':
            lines = [line.strip() for line in files['startup-config.cfg'].splitlines()
                     if line.strip() and not line.strip().startswith('!')]
            device = EosDevice(name, 'admin', 'unused', ports=_eos_ports(node_model))
            try:
                device.run_cmds(['enable', 'configure session all', 'rollback clean-config'] + lines)
            except EapiError as error:
                raise AssertionError('%s: %s %s' % (where, error.message, error.data[-1])) from None
        else:
            from tests.doubles.ssh.state import nvue_ports
            tree = nvue.from_operations(nvue.from_yaml(files['startup.yaml']))
            release = node_model['nos_release']
            assert nvue.validation_errors(tree, {'ports': nvue_ports(), 'release': release}) == [], where
    assert seen == {platform: set(models) for platform, models in MODELS.items()}, seen


def _eos_ports(model):
    from tests.unit.platforms.eos.double.device import DEFAULT_PORTS
    return set(DEFAULT_PORTS) | {item['name'] for item in model['interfaces']}
