# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The lab role leaves the lab of another checkout alone: two clones of one fabric share its container names and
management addresses, so the second one's lab_up or lab_down stops, naming both topologies, before it touches a
container. Docker is a stand-in on PATH that answers `docker ps` with the containers' clab-topo-file labels."""

import os
import subprocess
import sys

import pytest
from tests.unit.utils.ansible_cli import ansible_cli, ansible_env
from tests.unit.utils.paths import ROOT

pytestmark = pytest.mark.integration  # it starts Ansible's command line tools (make integration runs it)

PLAY = """- name: The lab owner check of the lab role
  hosts: localhost
  connection: local
  gather_facts: false
  tasks:
    - name: Check that no other checkout's lab of this name runs
      ansible.builtin.include_role:
        name: aifabric.fabric.lab
        tasks_from: owner.yml
      vars:
        lab_twin: {name: lab, topology_file: "%s"}
"""


@pytest.mark.parametrize('running, fails', [([], False), (['mine', 'mine'], False), (['mine', 'other'], True)])
def test_the_lab_of_another_checkout_is_never_taken_over(tmp_path, running, fails):
    mine, other = tmp_path / 'clone1' / 'lab.clab.yml', tmp_path / 'clone2' / 'lab.clab.yml'
    labels = '\\n'.join(str(mine if item == 'mine' else other) for item in running)
    tools = tmp_path / 'bin'
    tools.mkdir()
    (tools / 'docker').write_text('#!/bin/sh\n[ "$1" = ps ] && printf "%s%s"\n' % (labels, '\\n' if running else ''))
    (tools / 'docker').chmod(0o755)
    (tmp_path / 'play.yml').write_text(PLAY % mine)
    env = ansible_env(PATH=os.pathsep.join([str(tools), os.path.dirname(sys.executable), os.environ.get('PATH', '')]))
    result = subprocess.run(ansible_cli('playbook') + ['-i', 'localhost,', '-e', 'ansible_python_interpreter=' + sys.executable,
                                                       str(tmp_path / 'play.yml')], cwd=ROOT,
                            env=env, capture_output=True, text=True, timeout=300, check=False)
    if fails:
        assert result.returncode == 2, result.stdout + result.stderr
        assert 'Lab lab of another checkout runs on this machine (its topology: %s; this one\'s: %s)' % (other, mine) \
            in ' '.join(result.stdout.split())
    else:
        assert result.returncode == 0, result.stdout + result.stderr
