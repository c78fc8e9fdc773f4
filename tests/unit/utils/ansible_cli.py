# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run Ansible's command line tools from the interpreter running the tests.

Under `ansible-test units` Ansible comes from PYTHONPATH and there are no console scripts next to the
interpreter, so the tools run as modules (`python -m ansible.cli.playbook`), which works in every environment.
A test module that starts one declares itself `integration` (pytestmark); tests/unit/test_harness.py holds that.
"""

import os
import sys

from tests.unit.utils.paths import ROOT

ANSIBLE_CFG = os.path.join(ROOT, 'ansible.cfg')


def ansible_cli(tool):
    """Command prefix for `ansible-<tool>`, e.g. ansible_cli('playbook') + ['site.yml']."""
    return [sys.executable, '-m', 'ansible.cli.%s' % tool]


def ansible_env(**variables) -> dict:
    """The environment of an Ansible command a test starts: this process's, with the repository's ansible.cfg, no
    colour, the default stdout callback and this interpreter's directory first on PATH (its Python and console
    scripts); `variables` on top, where None removes one (ANSIBLE_CONFIG=None: no ansible.cfg, PWD=None: no PWD)."""
    env = dict(os.environ, ANSIBLE_CONFIG=ANSIBLE_CFG, ANSIBLE_NOCOLOR='1', ANSIBLE_FORCE_COLOR='0',
               ANSIBLE_STDOUT_CALLBACK='ansible.builtin.default')
    env['PATH'] = os.path.dirname(sys.executable) + os.pathsep + env.get('PATH', '')
    for name, value in variables.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = str(value)
    return env
