# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The example inventories the collection ships, used the way its README and docs/usage.md say, with the installed
collection alone and Ansible's default settings (no ansible.cfg of this repository)."""

import json
import os
import re
import shutil

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from tests.packaging.conftest import ansible_env, run
from tests.unit.utils.ansible_cli import ansible_cli

# The groups the inventory plugin makes (docs/usage.md): anything else came from another plugin reading the intent.
PLUGIN_GROUP = re.compile(r'^(all|ungrouped|fabric_[a-z0-9_]+|switches|leaf|spine|super_spine|gpu_servers|pod_\d+|'
                          r'plane_\d+|rail_\d+|platform_[a-z]+)$')
INVENTORIES = ('lab', 'pod1k')


def shipped(installed, *parts):
    return os.path.join(installed, 'ansible_collections', 'aifabric', 'fabric', *parts)


@pytest.mark.parametrize('form', ['file', 'directory'])
@pytest.mark.parametrize('name', INVENTORIES)
def test_an_example_inventory_loads_with_ansible_defaults_without_a_warning(installed, empty_config, tmp_path, name,
                                                                            form):
    """The intents live in fabrics/, outside the inventory directories: Ansible's yaml plugin reads no intent."""
    source = shipped(installed, 'inventories', name, *(['fabric.yml'] if form == 'file' else []))
    result = run(ansible_cli('inventory') + ['--list', '-i', source],
                 env=ansible_env(collections_path=installed, config=empty_config), cwd=str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert 'WARNING' not in result.stderr, result.stderr
    data = json.loads(result.stdout)
    assert sorted(group for group in set(data) - {'_meta'} if not PLUGIN_GROUP.match(group)) == []
    design = design_from_file(shipped(installed, 'fabrics', name + '.yml'))
    assert sorted(data['_meta']['hostvars']) == sorted(design.nodes)


@pytest.mark.parametrize('form', ['file', 'directory'])
def test_a_misspelt_intent_field_stops_the_play_with_its_problem_printed_once(installed, empty_config, tmp_path, form):
    """With Ansible's defaults (unparsed sources are only warnings) a bad intent still stops the command at once,
    naming the field, instead of a play on an empty inventory that ends in "No fabric to render"."""
    inventory = tmp_path / 'inventories' / 'lab'
    shutil.copytree(shipped(installed, 'inventories', 'lab'), str(inventory))
    (tmp_path / 'fabrics').mkdir()
    intent = tmp_path / 'fabrics' / 'lab.yml'
    shutil.copy(shipped(installed, 'fabrics', 'lab.yml'), str(intent))
    intent.write_text(intent.read_text().replace('\nunderlay:', '\nunderlay_typo:'))
    source = inventory / 'fabric.yml' if form == 'file' else inventory
    result = run(ansible_cli('playbook') + ['-i', str(source), 'aifabric.fabric.render'],
                 env=ansible_env(collections_path=installed, config=empty_config), cwd=str(tmp_path))
    output = result.stdout + result.stderr
    assert result.returncode == 4, output
    assert output.count('underlay_typo: unknown key') == 1, output
    assert 'No fabric to render' not in output and 'PLAY [' not in output, output
    assert 'Traceback' not in output, output


def test_an_empty_configuration_with_ansible_defaults_says_what_a_configuration_starts_with(
        installed, empty_config, tmp_path):
    """docs/usage.md, "Bad configuration": with Ansible's defaults an empty fabric.yml never reaches the plugin (Ansible
    picks it by its plugin line); the render stops saying what the file must start with."""
    (tmp_path / 'inventory').mkdir()
    (tmp_path / 'inventory' / 'fabric.yml').write_text('')
    result = run(ansible_cli('playbook') + ['-i', str(tmp_path / 'inventory' / 'fabric.yml'), 'aifabric.fabric.render'],
                 env=ansible_env(collections_path=installed, config=empty_config), cwd=str(tmp_path))
    output = ' '.join((result.stdout + result.stderr).split())
    assert result.returncode == 2, output
    assert 'No fabric to render: the inventory has no fabric (no fabric_<name> group).' in output
    assert 'whose first line is "plugin: aifabric.fabric.fabric"' in output
