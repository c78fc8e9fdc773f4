# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The execution environment: ansible-builder's build context of execution-environment.yml, and the Python and
system requirements the image would get, computed by the build context's own introspection script.

Building the image needs the base image's registry, which these machines cannot reach; everything before the
first `FROM` pull is checked here.
"""

import importlib.util
import os
import shutil
import sys

import pytest
import yaml
from packaging.requirements import Requirement

from tests.packaging.conftest import ROOT, ansible_env, run
from tests.unit.utils.ansible_cli import ansible_cli

COLLECTION = 'aifabric.fabric'


def _lines(path):
    with open(path, encoding='utf-8') as handle:
        return [line.split(' #')[0].strip() for line in handle if line.strip() and not line.lstrip().startswith('#')]


@pytest.fixture(scope='module')
def context(tarball, tmp_path_factory):
    """`ansible-builder create` on a copy of the definition, with the tarball where `make ee-context` puts it."""
    work = tmp_path_factory.mktemp('ee')
    shutil.copy(os.path.join(ROOT, 'execution-environment.yml'), work)
    with open(work / 'execution-environment.yml', encoding='utf-8') as handle:
        (entry,) = yaml.safe_load(handle)['additional_build_files']
    os.makedirs(work / os.path.dirname(entry['src']))
    shutil.copy(tarball, work / entry['src'])
    result = run([sys.executable, '-m', 'ansible_builder', 'create', '--file', str(work / 'execution-environment.yml'),
                  '--context', str(work / 'context'), '--output-filename', 'Containerfile', '-v', '3'],
                 env=ansible_env(), cwd=str(work))
    assert result.returncode == 0, result.stdout + result.stderr
    return work / 'context'


def test_build_context_installs_the_collection_tarball_and_the_tested_ansible_core(context, tarball):
    with open(os.path.join(ROOT, 'meta', 'runtime.yml'), encoding='utf-8') as handle:
        supported = yaml.safe_load(handle)['requires_ansible']
    containerfile = (context / 'Containerfile').read_text()
    assert 'ARG EE_BASE_IMAGE="quay.io/centos/centos:stream9"' in containerfile
    assert 'ARG ANSIBLE_INSTALL_REFS="ansible-core%s ansible-runner' % supported in containerfile
    assert 'ansible-galaxy collection install $ANSIBLE_GALAXY_CLI_COLLECTION_OPTS -r requirements.yml' in containerfile
    assert 'introspect.py introspect --write-bindep=/tmp/src/bindep.txt --write-pip=/tmp/src/requirements.txt' in containerfile
    # byte-code of the collection is part of the image (a job's container may not write it): after the collection's
    # install, in the final image
    final = containerfile[containerfile.rindex('FROM '):]
    assert 'RUN /usr/bin/python3.12 -m compileall -q -j 0 /usr/share/ansible/collections/ansible_collections/aifabric' in final
    requirements = yaml.safe_load((context / '_build' / 'requirements.yml').read_text())
    (collection,) = requirements['collections']
    assert collection['type'] == 'file'
    with open(tarball, 'rb') as built, open(context / '_build' / collection['name'], 'rb') as copied:
        assert copied.read() == built.read()


def _introspect(context, collections):
    """The build context's introspect.py, as its builder stage runs it, on the collections the galaxy stage installed."""
    spec = importlib.util.spec_from_file_location('ee_introspect', context / '_build' / 'scripts' / 'introspect.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    pip, bindep = context.parent / 'pip.txt', context.parent / 'bindep.txt'
    result = run([sys.executable, str(context / '_build' / 'scripts' / 'introspect.py'), 'introspect', str(collections),
                  '--write-pip', str(pip), '--write-bindep', str(bindep)], cwd=str(context))
    assert result.returncode == 0, result.stdout + result.stderr
    return module, _written(pip), _written(bindep)


def _written(path):
    return [line for line in path.read_text().splitlines() if line] if path.exists() else []


def expected_python(module, requirements):
    """requirements.txt without what ansible-builder always leaves out (ansible-core, PyYAML, test tools)."""
    return ['%s  # from collection %s' % (line, COLLECTION) for line in requirements
            if Requirement(line).name.lower() not in module.EXCLUDE_REQUIREMENTS]


def requirement_problems(module, python_lines):
    """Lines ansible-builder would hand to pip that are not one PEP 508 requirement of this collection."""
    problems = []
    for line in python_lines:
        requirement, _sep, source = line.partition('  # from collection ')
        try:
            Requirement(requirement)
        except Exception:  # packaging's InvalidRequirement: the build's pip install -r would misread it
            problems.append(line)
            continue
        if source != COLLECTION:
            problems.append(line)
    return problems


@pytest.fixture(scope='module')
def installed_in_image(context, tmp_path_factory):
    """What the galaxy stage does: install _build/requirements.yml, from the _build directory."""
    target = tmp_path_factory.mktemp('usr_share_ansible') / 'collections'
    result = run(ansible_cli('galaxy') + ['collection', 'install', '-r', 'requirements.yml', '--collections-path', str(target)],
                 env=ansible_env(collections_path=str(target)), cwd=str(context / '_build'))
    assert result.returncode == 0, result.stdout + result.stderr
    assert (target / 'ansible_collections' / 'aifabric' / 'fabric' / 'meta' / 'execution-environment.yml').is_file()
    return target


def test_image_gets_the_collections_python_and_system_requirements(context, installed_in_image):
    module, python, system = _introspect(context, installed_in_image)
    requirements = _lines(os.path.join(ROOT, 'requirements.txt'))
    assert python == expected_python(module, requirements)
    assert python, 'requirements.txt holds more than what ansible-builder leaves out'
    assert requirement_problems(module, python) == []
    assert system == ['%s  # from collection %s' % (line, COLLECTION) for line in _lines(os.path.join(ROOT, 'bindep.txt'))]


def test_system_requirements_resolve_on_this_platform(context, installed_in_image):
    """bindep, which the image build runs, reads the list and selects this platform's packages (dpkg here)."""
    _module, _python, system = _introspect(context, installed_in_image)
    listed = context.parent / 'bindep-listed.txt'
    listed.write_text('\n'.join(line.split('  #')[0] for line in system) + '\n')
    bindep = os.path.join(os.path.dirname(sys.executable), 'bindep')
    result = run([bindep, '-l', 'newline', '-f', str(listed)])
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.split() == ['openssh-client', 'sshpass']


def test_a_constraints_line_in_requirements_would_break_the_image(context, installed_in_image, tmp_path):
    """The former requirements.txt had `-c constraints.txt`: ansible-builder passes it through to the image's
    pip install -r, where constraints.txt does not exist. The check above catches such a line."""
    broken = tmp_path / 'collections'
    shutil.copytree(installed_in_image, broken)
    requirements = broken / 'ansible_collections' / 'aifabric' / 'fabric' / 'requirements.txt'
    requirements.write_text('-c constraints.txt\n' + requirements.read_text())
    module, python, _system = _introspect(context, broken)
    assert requirement_problems(module, python) == ['-c constraints.txt']
