# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""An intent (or an inventory configuration) that is a FIFO, a directory or a device is refused at once, naming the
file, through the Python API, the inventory plugin and the render playbook: opening a FIFO to read it waits for a
writer for ever, so its type is checked before it is read. Each run has a deadline, so a regression fails instead of
hanging the test run."""

import json
import os
import subprocess
import sys

import pytest

from tests.unit.utils.ansible_cli import ansible_cli, ansible_env
from tests.unit.utils.paths import ROOT

pytestmark = pytest.mark.integration  # it starts Ansible's command line tools (make integration runs it)

DEADLINE = 60  # seconds; each refusal takes about one second


def _run(argv, cwd=ROOT):
    env = ansible_env()
    try:
        return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=DEADLINE, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail('%s still waiting after %d s' % (' '.join(argv[-4:]), DEADLINE))


@pytest.fixture(name='fifo')
def fixture_fifo(tmp_path):
    path = tmp_path / 'intent.yml'
    os.mkfifo(path)
    return path


API = ('import sys; sys.path.insert(0, sys.argv[1]); import tests.conftest\n'
       'from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file\n'
       'from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.errors import IntentError\n'
       'try:\n    design_from_file(sys.argv[2])\nexcept IntentError as error:\n    print(error.report())\n')


@pytest.mark.parametrize('kind', ['fifo', 'directory', 'device'])
def test_python_api_refuses_a_file_that_is_not_regular(tmp_path, kind):
    path = {'fifo': tmp_path / 'intent.yml', 'directory': tmp_path, 'device': '/dev/zero'}[kind]
    if kind == 'fifo':
        os.mkfifo(path)
    result = _run([sys.executable, '-c', API, ROOT, str(path)])
    assert result.returncode == 0, result.stderr
    assert '%s: is not a regular file (it is a' % path in result.stdout, result.stdout


def test_inventory_plugin_refuses_a_fifo_intent(fifo, tmp_path):
    (tmp_path / 'fabric.yml').write_text('plugin: aifabric.fabric.fabric\nintent: intent.yml\n')
    result = _run(ansible_cli('inventory') + ['-i', str(tmp_path / 'fabric.yml'), '--list'])
    assert result.returncode != 0
    assert '%s: is not a regular file (it is a FIFO)' % fifo in ' '.join(result.stderr.split()), result.stderr


def test_inventory_plugin_refuses_a_fifo_configuration(tmp_path):
    """A FIFO named like a configuration: in the directory given with -i (the plugin looks at its neighbours to claim
    the intent), and given with -i itself."""
    (tmp_path / 'inventory').mkdir()
    os.mkfifo(tmp_path / 'inventory' / 'other.fabric.yml')
    (tmp_path / 'inventory' / 'hosts.yml').write_text('all:\n  hosts:\n    a: {}\n')
    result = _run(ansible_cli('inventory') + ['-i', str(tmp_path / 'inventory'), '--list'])
    assert 'other.fabric.yml is not a regular file' in ' '.join(result.stderr.split()), result.stderr
    result = _run(ansible_cli('inventory') + ['-i', str(tmp_path / 'inventory' / 'other.fabric.yml'), '--list'])
    assert result.returncode != 0
    assert 'other.fabric.yml is not a regular file' in ' '.join(result.stderr.split()), result.stderr


def test_render_playbook_refuses_a_fifo_intent(fifo, tmp_path):
    result = _run(ansible_cli('playbook') + ['-i', 'localhost,', os.path.join(ROOT, 'playbooks', 'render.yml'), '-e',
                                             json.dumps({'aifabric_render_intent': str(fifo),
                                                         'aifabric_render_out': str(tmp_path / 'out')})])
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert '%s: is not a regular file (it is a FIFO)' % fifo in output, output[-3000:]
    assert not (tmp_path / 'out').exists()
