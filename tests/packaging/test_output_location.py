# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where render and validate write when the collection is installed from its tarball and run by FQCN: under the
directory the inventory names, whatever the current directory is and with PWD unset; never into an inventory.
(tests/unit/playbooks runs the same for this checkout's playbooks, on every ansible-core release tested.)"""

import json
import os

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from tests.packaging.conftest import EXAMPLE_PROJECT, ansible_env, install, run
from tests.unit.utils.ansible_cli import ansible_cli


@pytest.fixture
def elsewhere(tmp_path):
    """The current directory of the runs: must stay empty."""
    path = tmp_path / 'elsewhere'
    path.mkdir()
    return path


# What the example's switch users credential (examples/awx/credential_types) gives a job: a hash per user.
SWITCH_USERS = json.dumps({'aifabric_switch_users': {
    'admin': '$6$aifabrictest$UjtAzwcExjwnlOwAXJZ/KS1e7NZpbtTn/hrhgnubkYMbMSl5RF6Eogbjz1WHLSkkpBIpvOJZ2cToji9jlCFYi0'}})


def _playbook(playbook, inventory, cwd, env, *extra):
    command = ansible_cli('playbook') + ['-i', str(inventory), playbook, '-e', SWITCH_USERS] + list(extra)
    return run(command, env=env, cwd=str(cwd))


def test_installed_collection_writes_under_the_inventory_output_dir(installed, empty_config, project, elsewhere):
    """aifabric.fabric.render and .validate by FQCN from another directory, PWD unset (ansible_env drops it)."""
    env = ansible_env(collections_path=installed, config=empty_config)
    assert 'PWD' not in env
    inventory = project / 'inventory' / 'pod1'
    render = _playbook('aifabric.fabric.render', inventory, elsewhere, env, '-e', 'aifabric_render_docs=false')
    assert render.returncode == 0, render.stdout + render.stderr
    out = project / 'out' / 'pod1'
    devices = list(design_from_file(os.path.join(EXAMPLE_PROJECT, 'fabrics', 'pod1.yml')).nodes)
    assert sorted(os.listdir(out / 'configs')) == sorted(devices)
    assert (out / 'configs' / 'leaf001' / 'config_db.json').is_file()
    validate = _playbook('aifabric.fabric.validate', inventory, elsewhere, env, '-e', 'validate_gather=false')
    assert validate.returncode == 0, validate.stdout + validate.stderr
    report = json.loads((out / 'validation' / 'report.json').read_text())
    assert report['fabric'] == 'pod1' and report['summary']['ok'] and report['summary']['passed'] > 0
    assert os.listdir(elsewhere) == []


def test_refuses_to_write_into_an_inventory_directory(installed, empty_config, project, elsewhere):
    """output_dir inside the inventory directory: Ansible would read the rendered files as inventory next time.
    The run stops before anything is written; the same directory given as a file source is accepted."""
    inventory = project / 'inventory' / 'pod1'
    config = inventory / 'pod1.fabric.yml'
    config.write_text(config.read_text().replace('output_dir: ../../out', 'output_dir: out'))
    env = ansible_env(collections_path=installed, config=empty_config)
    render = _playbook('aifabric.fabric.render', inventory, elsewhere, env)
    assert render.returncode != 0
    assert 'The render directory of fabric pod1 %s is inside the inventory directory %s.' % (
        inventory / 'out' / 'pod1', inventory) in ' '.join(render.stdout.split())
    assert not (inventory / 'out').exists()
    validate = _playbook('aifabric.fabric.validate', inventory, elsewhere, env, '-e', 'validate_gather=false',
                         '--limit', 'leaf001')
    assert validate.returncode != 0 and 'validation report directory' in validate.stdout
    assert not (inventory / 'out').exists()
    by_file = _playbook('aifabric.fabric.render', config, elsewhere, env, '-e', 'aifabric_render_docs=false')
    assert by_file.returncode == 0, by_file.stdout + by_file.stderr
    assert (inventory / 'out' / 'pod1' / 'configs' / 'leaf001' / 'config_db.json').is_file()


def test_an_example_inventory_of_the_installed_collection_renders_outside_the_collection(
        tarball, empty_config, elsewhere, tmp_path):
    """The shipped lab inventory, used where it is installed: the files go to $XDG_DATA_HOME/aifabric.fabric/out, the
    collection stays as installed (ansible-galaxy collection verify), and an output directory inside it is refused.
    An installation of its own: other tests' Python processes may leave byte-code caches in the shared one."""
    (tmp_path / 'collections').mkdir()
    installed = install(tarball, tmp_path / 'collections')
    env = ansible_env(collections_path=installed, config=empty_config, XDG_DATA_HOME=str(tmp_path / 'data'))
    source = os.path.join(installed, 'ansible_collections', 'aifabric', 'fabric', 'inventories', 'lab', 'fabric.yml')
    render = _playbook('aifabric.fabric.render', source, elsewhere, env, '-e', 'aifabric_render_docs=false')
    assert render.returncode == 0, render.stdout + render.stderr
    assert (tmp_path / 'data' / 'aifabric.fabric' / 'out' / 'lab' / 'configs' / 'leaf001' / 'frr.conf').is_file()
    verify = run(ansible_cli('galaxy') + ['collection', 'verify', '--offline', '-p', installed, 'aifabric.fabric'],
                 env=env, cwd=str(elsewhere))
    assert verify.returncode == 0, verify.stdout + verify.stderr
    inside = os.path.join(installed, 'ansible_collections', 'aifabric', 'fabric', 'out')
    refused = _playbook('aifabric.fabric.render', source, elsewhere, env, '-e', 'aifabric_render_out=' + inside)
    assert refused.returncode != 0
    assert 'is inside the installed collection aifabric.fabric' in ' '.join(refused.stdout.split()), refused.stdout
    assert not os.path.exists(inside) and os.listdir(elsewhere) == []
