"""The rejected-configuration corpora of the doubles (one YAML file per NOS, its double's corpus.yml in its platform's
test folder: tests/unit/platforms/<name>/double/corpus.yml) and what they are applied to: the rendered configurations
of the mixed fabric (tests/doubles/fixtures/mixed.yml) on factory switches."""

from __future__ import annotations

import copy
import functools
import json
import os
import re

import jsonpatch
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
MIXED = os.path.join(os.path.dirname(HERE), 'fixtures', 'mixed.yml')


def _corpus(tests):
    return os.path.join(tests.folder, 'double', 'corpus.yml')


def names():
    """The NOSes with a corpus: every platform whose double has a corpus.yml (found by convention)."""
    from tests.unit.utils.platforms import platform_tests
    return sorted(tests.name for tests in platform_tests() if os.path.isfile(_corpus(tests)))


def cases(nos):
    from tests.unit.utils.platforms import platform_folder
    with open(_corpus(platform_folder(nos)), encoding='utf-8') as handle:
        return yaml.safe_load(handle)


@functools.lru_cache(maxsize=1)
def _mixed():
    from tests.doubles.fleet import TEST_PASSWORD_HASH, load_design
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_device
    design = load_design(MIXED)
    users = {user['name']: TEST_PASSWORD_HASH for user in design.intent['management']['users']}
    return {name: render_device(design, name, users) for name in ('leaf001', 'leaf002', 'spine001')}


def rendered(name, file_name):
    return _mixed()[name][file_name]


# -- SONiC: a day-N change of leaf002 (an SN5600) once its first deploy loaded it ----------------------------------
def sonic_facts(**overrides):
    from tests.doubles.fleet import switch_model_facts
    facts = dict(switch_model_facts('nvidia-sn5600'), name='leaf002', tacacs_passkey='out-of-band-key',
                 release='202405', kind='sonic')
    facts.update(overrides)
    return facts


def loaded(facts, config_db):
    """The CONFIG_DB of a factory switch (the SONiC double's factory.py) once a first deploy loaded `config_db` (config reload of
    the deploy target: /etc/sonic/init_cfg.json, then the file)."""
    from tests.unit.platforms.sonic.double import factory as sonic_factory
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms.sonic.render import deploy_target
    return sonic_factory.merged(sonic_factory.init_cfg(facts), deploy_target(sonic_factory.config_db(facts), config_db))


def sonic_case(case=None):
    """(running, target, facts) of a corpus case (or of the untouched deploy): the switch runs leaf002's configuration
    (its first deploy loaded it) and `config replace` gets the rendered one with the case's change."""
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms.sonic.render import deploy_target
    case = case or {}
    facts = sonic_facts(**case.get('facts', {}))
    config_db = json.loads(rendered('leaf002', 'config_db.json'))
    running = loaded(facts, config_db)
    if case.get('running'):
        running = jsonpatch.apply_patch(running, case['running'])
    target = deploy_target(copy.deepcopy(running), config_db)
    if case.get('patch'):
        target = jsonpatch.apply_patch(target, case['patch'])
    return running, target, facts


# -- EOS: lines into a config session on the EOS leaf -------------------------------------------------------------
def eos_lines(case=None):
    """The configuration lines of the EOS leaf with the case's change (before `end`)."""
    text = rendered('leaf001', 'startup-config.cfg')
    case = case or {}
    if case.get('replace'):
        old, new = case['replace']
        assert old in text, old
        text = text.replace(old, new, 1)
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith('!')]
    assert lines[-1] == 'end'
    return lines[:-1] + (case.get('append', '').split('\n') if case.get('append') else [])


# -- NVUE: the applied tree of spine001 (or of the NVUE leaf golden file) ------------------------------------------
def _path(text):
    """`a.b."c.d".'3'` -> ['a', 'b', 'c.d', '3']."""
    return [part.strip('\'"') for part in re.findall(r'"[^"]*"|\'[^\']*\'|[^.]+', text)]


# Rendered NVUE files a case may start from instead of spine001 of the mixed fabric: a 5.14 leaf and a 5.15 leaf.
BASES = {'leaf': ('nvue_small', 'leaf001.yaml'), 'leaf-5.15': ('shape2', 'leaf002', 'startup.yaml')}  # NVUE's golden files


def nvue_case(case=None):
    """(tree, facts) of a corpus case."""
    from tests.unit.platforms.nvue.double import shell as nvue
    from tests.doubles.ssh.state import nvue_ports
    from tests.unit.utils.platforms import golden
    case = case or {}
    if case.get('base') in BASES:
        with open(golden('nvue', *BASES[case['base']]), encoding='utf-8') as handle:
            text = handle.read()
    else:
        text = rendered('spine001', 'startup.yaml')
    tree = nvue.from_operations(nvue.from_yaml(text))
    for path, value in (case.get('set') or {}).items():
        keys = _path(path)
        node = tree
        for key in keys[:-1]:
            node = node.setdefault(key, {})
        node[keys[-1]] = value
    for path in case.get('unset') or []:
        keys = _path(path)
        node = tree
        for key in keys[:-1]:
            node = node[key]
        del node[keys[-1]]
    return tree, {'ports': nvue_ports(), 'release': str(case.get('release', '5.14'))}
