# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The inventory plugin against hostile or broken configurations and paths.

The corpus (tests/unit/fixtures/invalid_inventories/*.config, each copied as <case>/fabric.yml next to a valid intent)
lists configurations that must be refused, each with `# expect: <words>` lines the error must contain (`{file}`
stands for the configuration's path). They are refused through the plugin API and through `ansible-inventory`, with
and without any_unparsed_is_failed, by an error (not a warning) that names the file. A path that holds a template
is never templated.
"""

import json
import os
import re
import shutil
import subprocess

import pytest

from tests.unit.utils.ansible_cli import ansible_cli, ansible_env
from tests.unit.utils.paths import ROOT

pytestmark = pytest.mark.integration  # it starts Ansible's command line tools (make integration runs it)

CORPUS = os.path.join(ROOT, 'tests', 'unit', 'fixtures', 'invalid_inventories')
LAB_INTENT = os.path.join(ROOT, 'fabrics', 'lab.yml')
EXCEPTION_NAME = re.compile(r'\bTraceback\b|\b[A-Z][A-Za-z]*(?:Error|Exception)\b(?!:)')


def _cases():
    cases = []
    for name in sorted(os.listdir(CORPUS)):
        with open(os.path.join(CORPUS, name), encoding='utf-8') as handle:
            expects = [line[len('# expect: '):].rstrip('\n') for line in handle if line.startswith('# expect: ')]
        assert expects, '%s has no "# expect:" line' % name
        cases.append((name, expects))
    return cases


CASES = _cases()


def _case(tmp_path, name):
    directory = tmp_path / name.split('.')[0]
    directory.mkdir()
    shutil.copy(LAB_INTENT, directory / 'intent.yml')
    shutil.copy(os.path.join(CORPUS, name), directory / 'fabric.yml')
    return str(directory / 'fabric.yml')


def _ansible_inventory(source, any_unparsed_is_failed):
    env = ansible_env(ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED='1' if any_unparsed_is_failed else '0')
    return subprocess.run(ansible_cli('inventory') + ['-i', source, '--list'], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def test_the_corpus_covers_every_kind_of_configuration_problem():
    assert len(CASES) >= 12


@pytest.mark.parametrize('name, expects', CASES, ids=[name for name, _unused in CASES])
def test_plugin_api_refuses_naming_the_file(tmp_path, name, expects):
    from ansible.errors import AnsibleParserError
    from ansible.inventory.data import InventoryData
    from ansible.parsing.dataloader import DataLoader
    from ansible.plugins.loader import inventory_loader
    path = _case(tmp_path, name)
    plugin = inventory_loader.get('aifabric.fabric.fabric')
    assert plugin.verify_file(path), 'the plugin must claim %s to report it' % name
    with pytest.raises(AnsibleParserError) as caught:
        plugin.parse(InventoryData(), DataLoader(), path, cache=False)
    message = str(caught.value)
    assert path in message, message
    for words in expects:
        assert words.replace('{file}', path) in message, message


@pytest.mark.parametrize('any_unparsed_is_failed', [True, False], ids=['any_unparsed_is_failed', 'ansible_defaults'])
def test_ansible_inventory_refuses_every_case_with_one_error(tmp_path, any_unparsed_is_failed):
    failures = []
    for name, expects in CASES:
        path = _case(tmp_path, name)
        result = _ansible_inventory(path, any_unparsed_is_failed)
        # ansible-core < 2.19 wraps messages at 80 columns, at spaces and after hyphens: compare without whitespace.
        text = ''.join(result.stderr.split())
        problems = []
        if any_unparsed_is_failed and (result.returncode == 0 or result.stderr.count('[ERROR]') != 1):
            problems.append('exit code %d, %d errors' % (result.returncode, result.stderr.count('[ERROR]')))
        if not any_unparsed_is_failed and not (result.returncode != 0 or '[WARNING]' in result.stderr):
            problems.append('silent (exit code 0, no warning)')
        if path not in text:
            problems.append('the file is not named')
        problems.extend('no "%s"' % words for words in expects
                        if ''.join(words.replace('{file}', path).split()) not in text)
        if EXCEPTION_NAME.search(result.stderr):
            problems.append('exception name %r' % EXCEPTION_NAME.search(result.stderr).group(0))
        if problems:
            failures.append('%s: %s\n%s' % (name, '; '.join(problems), result.stderr[-1500:]))
    assert not failures, '\n\n'.join(failures)


@pytest.mark.parametrize('name', ['01-empty.config', '02-no-plugin-key.config'])
def test_a_configuration_another_plugin_would_misread_stops_even_with_ansibles_defaults(tmp_path, name):
    """The yaml plugin reads an empty file, or `intent: x` as a group, without complaint: that must not become an
    empty inventory behind the user's back."""
    result = _ansible_inventory(_case(tmp_path, name), any_unparsed_is_failed=False)
    assert result.returncode != 0 and '[ERROR]' in result.stderr, result.stderr


def test_a_plain_yaml_inventory_named_fabric_yml_is_left_to_the_yaml_plugin(tmp_path):
    source = tmp_path / 'fabric.yml'
    source.write_text('all:\n  hosts:\n    router1: {ansible_host: 192.0.2.1}\n')
    result = _ansible_inventory(str(source), any_unparsed_is_failed=True)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)['_meta']['hostvars']['router1'] == {'ansible_host': '192.0.2.1'}


PLAYBOOK = """
- hosts: leaf001
  gather_facts: false
  tasks:
    - ansible.builtin.debug:
        msg: "{{ aifabric_intent }}|{{ aifabric_output_dir }}|{{ aifabric_fabric }}"
"""


def test_a_directory_named_like_a_template_is_never_run(tmp_path):
    """A directory `p{{ lookup('pipe', ...) }}q` (a free-text AWX field, a hostile checkout) holds the inventory: the
    host variables built from its path are printed as they are, never templated (ansible-core 2.17 and 2.18 ran the
    lookup as the user running Ansible)."""
    sentinel = tmp_path / 'templated'  # the lookup runs in the playbook's directory
    hostile = tmp_path / "p{{ lookup('pipe', 'touch templated') }}q"
    hostile.mkdir()
    shutil.copy(LAB_INTENT, hostile / 'intent.yml')
    (hostile / 'fabric.yml').write_text('plugin: aifabric.fabric.fabric\nintent: intent.yml\noutput_dir: out\n')
    playbook = tmp_path / 'show.yml'
    playbook.write_text(PLAYBOOK)
    env = ansible_env()
    result = subprocess.run(ansible_cli('playbook') + ['-i', str(hostile / 'fabric.yml'), str(playbook)], cwd=str(tmp_path),
                            env=env, capture_output=True, text=True, timeout=120, check=False)
    assert not sentinel.exists(), 'the lookup in the path ran'
    assert result.returncode == 0, result.stdout + result.stderr
    shown = json.loads(re.search(r'"msg": (".*")', result.stdout).group(1))
    assert shown == '%s|%s|lab' % (hostile / 'intent.yml', hostile / 'out' / 'lab')


def test_values_that_could_hold_a_template_are_unsafe_on_this_core(tmp_path):
    from ansible.inventory.data import InventoryData
    from ansible.parsing.dataloader import DataLoader
    from ansible.plugins.loader import inventory_loader
    hostile = tmp_path / 'p{{ 7 * 7 }}q'
    hostile.mkdir()
    shutil.copy(LAB_INTENT, hostile / 'intent.yml')
    (hostile / 'fabric.yml').write_text('plugin: aifabric.fabric.fabric\nintent: intent.yml\n')
    inventory = InventoryData()
    inventory_loader.get('aifabric.fabric.fabric').parse(inventory, DataLoader(), str(hostile / 'fabric.yml'),
                                                         cache=False)
    value = inventory.hosts['leaf001'].get_vars()['aifabric_intent']
    try:
        from ansible.template import is_trusted_as_template
    except ImportError:  # ansible-core < 2.19
        from ansible.utils.unsafe_proxy import AnsibleUnsafe
        assert isinstance(value, AnsibleUnsafe)
    else:
        assert not is_trusted_as_template(value)
