# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The aifabric.fabric.output_dir filter: absolute paths, and no output inside a directory Ansible reads as inventory."""

import os

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.aifabric.fabric.plugins.filter.output_dir import FilterModule

output_dir = FilterModule().filters()['output_dir']


@pytest.fixture
def project(tmp_path):
    (tmp_path / 'inventories' / 'lab').mkdir(parents=True)
    (tmp_path / 'inventories' / 'lab' / 'fabric.yml').write_text('plugin: aifabric.fabric.fabric\n')
    (tmp_path / 'inventories' / 'lab2').mkdir()
    return tmp_path


def test_returns_the_absolute_path_and_leaves_links_alone(project, monkeypatch):
    """A relative path is taken from the current directory; a link stays a link (render's output directory may be
    one, pointing at its latest generation)."""
    monkeypatch.chdir(project)
    assert output_dir('out/lab') == str(project / 'out' / 'lab')
    assert output_dir('./out/../out/lab/') == str(project / 'out' / 'lab')
    os.symlink(project / 'inventories' / 'lab2', project / 'current')
    assert output_dir(str(project / 'current')) == str(project / 'current')


@pytest.mark.parametrize('inside', ['inventories/lab', 'inventories/lab/out', 'inventories/lab/out/lab/validation'])
def test_refuses_a_directory_inside_a_directory_inventory_source(project, inside):
    sources = [str(project / 'inventories' / 'lab')]
    with pytest.raises(AnsibleFilterError) as caught:
        output_dir(str(project / inside), sources, what='render directory of fabric lab')
    message = str(caught.value)
    assert message.startswith('The render directory of fabric lab %s is inside the inventory directory %s.'
                              % (project / inside, project / 'inventories' / 'lab'))
    assert 'output_dir in the aifabric.fabric.fabric inventory configuration' in message


def test_refuses_through_a_symlinked_source(project):
    os.symlink(project / 'inventories' / 'lab', project / 'current')
    with pytest.raises(AnsibleFilterError, match='is inside the inventory directory'):
        output_dir(str(project / 'inventories' / 'lab' / 'out'), [str(project / 'current')])
    os.symlink(project / 'inventories' / 'lab' / 'out', project / 'out-link')
    with pytest.raises(AnsibleFilterError, match='The output directory %s is inside' % (project / 'out-link')):
        output_dir(str(project / 'out-link'), [str(project / 'inventories' / 'lab')])


def test_accepts_siblings_files_and_host_lists(project):
    sources = [str(project / 'inventories' / 'lab'), str(project / 'inventories' / 'lab' / 'fabric.yml'),
               'localhost,', str(project / 'missing')]
    assert output_dir(str(project / 'inventories' / 'lab2' / 'out'), sources) == str(project / 'inventories' / 'lab2' / 'out')
    assert output_dir(str(project / 'out' / 'lab'), sources) == str(project / 'out' / 'lab')
    # A file source makes Ansible read that file only: a directory next to it is fine.
    assert output_dir(str(project / 'inventories' / 'lab' / 'out'), sources[1:]) == str(project / 'inventories' / 'lab' / 'out')


@pytest.mark.parametrize('empty', ['', '   ', None])
def test_refuses_an_unset_directory(empty):
    with pytest.raises(AnsibleFilterError, match='The validation report directory is not set'):
        output_dir(empty, [], what='validation report directory')


@pytest.mark.parametrize('target', ['inventories/lab', 'inventories', '.', 'inventories/lab/group_vars/all',
                                    'inventories/lab/host_vars'])
def test_refuses_the_directory_of_a_file_source_its_vars_and_anything_holding_it(project, target):
    """-i names a file (AWX allows a file as inventory source): its directory, the group_vars/host_vars Ansible reads
    next to it, and any directory that holds it are refused. An AWX survey answer aifabric_render_out=inventories made
    the render take over inventories/lab and the next inventory import failed."""
    sources = [str(project / 'inventories' / 'lab' / 'fabric.yml')]
    with pytest.raises(AnsibleFilterError) as caught:
        output_dir(str(project / target), sources, what='render directory of fabric lab')
    assert str(caught.value).startswith('The render directory of fabric lab %s ' % (project / target).resolve())
    assert str(project / 'inventories' / 'lab' / 'fabric.yml') in str(caught.value) or \
        str(project / 'inventories' / 'lab') in str(caught.value)


@pytest.mark.parametrize('target', ['inventories', '.'])
def test_refuses_a_directory_that_holds_a_directory_source(project, target):
    with pytest.raises(AnsibleFilterError, match='holds the inventory source'):
        output_dir(str(project / target), [str(project / 'inventories' / 'lab')])
