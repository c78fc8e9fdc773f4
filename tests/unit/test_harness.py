# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The test harness itself: one helper for the repository's root (tests/unit/utils/paths.py) and one for an Ansible
command's environment (tests/unit/utils/ansible_cli.py), and every test module that starts Ansible's command line
tools declares itself integration (`make unit` leaves it to `make integration`)."""

import ast
import os
import subprocess
import sys

from tests.unit.utils.ansible_cli import ansible_env
from tests.unit.utils.paths import ROOT

TESTS = os.path.join(ROOT, 'tests')
# Directories whose every test is integration (tests/conftest.py INTEGRATION_DIRECTORIES).
DECLARED_BY_DIRECTORY = ('doubles', 'deploy', 'lab', 'roles', 'packaging')
# Modules that also run outside pytest (as scripts or in a device double's own processes), where tests.unit.utils
# is not importable: they find the root themselves.
STANDALONE = ('tests/conftest.py', 'tests/unit/utils/paths.py', 'tests/doubles/fleet.py', 'tests/doubles/ssh/',
              'tests/roles/fakehw/')


def _test_sources():
    for parent, dirs, files in os.walk(TESTS):
        dirs[:] = sorted(name for name in dirs if name not in ('__pycache__', 'output'))
        for name in sorted(files):
            if name.endswith('.py'):
                path = os.path.join(parent, name)
                with open(path, encoding='utf-8') as handle:
                    yield os.path.relpath(path, ROOT), ast.parse(handle.read(), path)


def _declares_integration(tree) -> bool:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(target, ast.Name) and target.id == 'pytestmark'
                                                for target in node.targets):
            return 'integration' in ast.unparse(node.value)
    return False


def _starts_ansible(tree) -> bool:
    """Calls ansible_cli(): the prefix of a command line of Ansible's."""
    return any(isinstance(node, ast.Call) and (getattr(node.func, 'id', None) == 'ansible_cli'
                                               or getattr(node.func, 'attr', None) == 'ansible_cli')
               for node in ast.walk(tree))


def test_every_module_that_starts_ansible_declares_itself_integration():
    undeclared = [path for path, tree in _test_sources()
                  if os.path.basename(path).startswith('test_') and _starts_ansible(tree)
                  and path.split(os.sep)[1] not in DECLARED_BY_DIRECTORY and not _declares_integration(tree)]
    assert not undeclared, 'add `pytestmark = pytest.mark.integration` to: ' + ', '.join(undeclared)


def test_the_declaration_reaches_pytest():
    """A declared module's tests are collected as integration, the others are not."""
    run = subprocess.run([sys.executable, '-m', 'pytest', '-q', '--collect-only', '-m', 'integration', '-p',
                          'no:cacheprovider', 'tests/unit/playbooks/test_slicing.py', 'tests/unit/test_harness.py'],
                         cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert 'test_slicing.py::' in run.stdout and 'test_harness.py::' not in run.stdout


def test_no_test_module_finds_the_root_itself():
    """`ROOT = os.path.dirname(os.path.dirname(...__file__))` drifts when a file moves: tests.unit.utils.paths has it."""
    found = []
    for path, tree in _test_sources():
        if path.startswith(STANDALONE):
            continue
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(isinstance(target, ast.Name) and target.id in ('ROOT', 'REPO')
                                                    for target in node.targets):
                if 'os.path' in ast.unparse(node.value):  # worked out from __file__ or a folder beside it
                    found.append('%s:%d' % (path, node.lineno))
    assert not found, 'use tests.unit.utils.paths.ROOT: ' + ', '.join(found)


def test_the_helpers_point_at_this_repository():
    assert os.path.isfile(os.path.join(ROOT, 'galaxy.yml')) and os.path.isdir(os.path.join(ROOT, 'plugins'))
    env = ansible_env(ANSIBLE_EXTRA='1', PWD=None)
    assert env['ANSIBLE_CONFIG'] == os.path.join(ROOT, 'ansible.cfg') and env['ANSIBLE_EXTRA'] == '1'
    assert 'PWD' not in env and env['PATH'].split(os.pathsep)[0] == os.path.dirname(sys.executable)
    assert 'ANSIBLE_CONFIG' not in ansible_env(ANSIBLE_CONFIG=None)
