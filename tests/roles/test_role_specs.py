# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Role metadata of the GPU host roles: argument specs match the defaults, names are prefixed, README present."""

import os
import re

import pytest
import yaml

from tests.unit.utils.paths import ROOT

ROLES = ['host_rnic', 'host_gpudirect', 'host_nccl', 'host_k8s_network']


def load(role, *parts):
    with open(os.path.join(ROOT, 'roles', role, *parts), encoding='utf-8') as handle:
        return yaml.safe_load(handle)


@pytest.mark.parametrize('role', ROLES)
def test_argument_spec_defaults_match_defaults_file(role):
    defaults = load(role, 'defaults', 'main.yml')
    options = load(role, 'meta', 'argument_specs.yml')['argument_specs']['main']['options']
    assert set(options) == set(defaults)
    for name, spec in options.items():
        assert spec.get('default') == defaults[name], name
        assert name.startswith(role + '_')
        assert spec.get('description')


@pytest.mark.parametrize('role', ROLES)
def test_every_variable_is_prefixed_and_modules_are_fqcn(role):
    tasks_dir = os.path.join(ROOT, 'roles', role, 'tasks')
    for name in os.listdir(tasks_dir):
        with open(os.path.join(tasks_dir, name), encoding='utf-8') as handle:
            text = handle.read()
        for registered in re.findall(r'^\s+register:\s+(\S+)', text, re.M):
            assert registered.startswith(role + '_'), registered
        for tasks in yaml.safe_load(text):
            body = tasks.get('block', [tasks])
            for task in body:
                modules = [key for key in task if '.' in key and key.split('.')[0] in ('ansible', 'aifabric')]
                assert len(modules) == 1, task.get('name')


@pytest.mark.parametrize('role', ROLES)
def test_readme_documents_every_variable(role):
    with open(os.path.join(ROOT, 'roles', role, 'README.md'), encoding='utf-8') as handle:
        readme = handle.read()
    for name in load(role, 'defaults', 'main.yml'):
        assert name in readme, name
    assert 'not applicable' in readme and 'pytest tests/roles' in readme
