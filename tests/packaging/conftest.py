# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The collection as its users get it: the Galaxy tarball built from this checkout, installed on its own.

`make packaging` runs these tests (after `make build`); they build their own tarball, so `pytest tests/packaging`
works alone too.
"""

import os
import shutil
import subprocess
import tarfile

import pytest

from tests.unit.utils.ansible_cli import ansible_cli, ansible_env as shared_ansible_env
from tests.unit.utils.paths import ROOT

EXAMPLE_PROJECT = os.path.join(ROOT, 'examples', 'awx')


def run(command, **kwargs):
    kwargs.setdefault('capture_output', True)
    kwargs.setdefault('text', True)
    kwargs.setdefault('timeout', 600)
    kwargs.setdefault('check', False)
    return subprocess.run(command, **kwargs)  # pylint: disable=subprocess-run-check


def ansible_env(collections_path=None, config=None, **extra):
    """Environment of an Ansible run that sees only what it is given: no ansible.cfg of this checkout (an empty one
    unless `config` names another), no PWD, only `collections_path` as collections. Python writes no byte-code
    cache into the installed collection: `ansible-galaxy collection verify` would count __pycache__ as modified
    content (a real installation gets the same from any run; our tests check that the collection writes nothing)."""
    extra.setdefault('PYTHONDONTWRITEBYTECODE', '1')
    return shared_ansible_env(PWD=None, ANSIBLE_CONFIG=config, ANSIBLE_COLLECTIONS_PATH=collections_path, **extra)


@pytest.fixture(scope='session')
def empty_config(tmp_path_factory):
    """An ansible.cfg with nothing in it: Ansible's defaults (enable_plugins included), as a fresh AWX EE has."""
    path = tmp_path_factory.mktemp('config') / 'ansible.cfg'
    path.write_text('')
    return str(path)


@pytest.fixture(scope='session')
def tarball(tmp_path_factory):
    out = tmp_path_factory.mktemp('dist')
    result = run(ansible_cli('galaxy') + ['collection', 'build', '--output-path', str(out), ROOT],
                 env=ansible_env(), cwd=str(out))
    assert result.returncode == 0, result.stdout + result.stderr
    (path,) = [str(out / name) for name in os.listdir(out) if name.endswith('.tar.gz')]
    return path


@pytest.fixture(scope='session')
def tarball_files(tarball):
    with tarfile.open(tarball) as archive:
        return {member.name for member in archive.getmembers() if member.isfile()}


def install(tarball, path):
    """Install the tarball into the collections path `path` (a directory of its own); returns it as a string."""
    result = run(ansible_cli('galaxy') + ['collection', 'install', '-p', str(path), tarball],
                 env=ansible_env(collections_path=str(path)), cwd=str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    return str(path)


@pytest.fixture(scope='session')
def installed(tarball, tmp_path_factory):
    """A collections path holding this collection only (from the tarball), nothing else but ansible.builtin."""
    return install(tarball, tmp_path_factory.mktemp('collections'))


@pytest.fixture
def project(tmp_path):
    """A copy of the example AWX project (examples/awx), as AWX checks it out: a directory of its own."""
    path = tmp_path / 'project'
    shutil.copytree(EXAMPLE_PROJECT, path)
    return path
