# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every role of the collection skipped by a `when` (a play that leaves a role out for some hosts, a converge that has
nothing left to do): the run passes quietly. Ansible still templates each skipped task's name; a name that reads a
registered result of the role printed "Encountered 1 template error" with a stack of context on every such run."""

import os
import subprocess

import yaml

from tests.unit.utils.ansible_cli import ansible_cli, ansible_env
from tests.unit.utils.paths import ROOT

ROLES = sorted(name for name in os.listdir(os.path.join(ROOT, 'roles'))
               if os.path.isfile(os.path.join(ROOT, 'roles', name, 'tasks', 'main.yml')))


def test_every_role_skipped_by_when_runs_without_warnings(tmp_path):
    assert len(ROLES) >= 9, ROLES  # the listing found the roles (nine since switch_frr went: issue 39)
    playbook = tmp_path / 'skipped.yml'
    playbook.write_text(yaml.safe_dump([{
        'name': 'Every role, skipped', 'hosts': 'all', 'gather_facts': False,
        'roles': [{'role': 'aifabric.fabric.' + name, 'when': False} for name in ROLES]}]))
    env = ansible_env()
    proc = subprocess.run(ansible_cli('playbook') + ['-i', 'localhost,', '-c', 'local', str(playbook)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-4000:]
    assert 'skipping: [localhost]' in output, output[-4000:]
    assert 'template error' not in output and '[WARNING]' not in output and 'ERROR' not in output, output[-6000:]
