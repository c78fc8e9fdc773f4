# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A user's first day (issue 38's "done when"): the newest ansible-core line the collection supports installs the
Galaxy tarball into a collections path of its own, and every example the tarball ships runs from there, with Ansible's
default settings, the way README.md and docs/usage.md say: each example inventory renders (docs included), a second
render in check mode with --diff finds nothing to change, the design-only validation passes, and the collection is
still as installed. The example AWX project's job templates run through ansible-runner in test_awx.py, render and deploy
with their surveys' default answers (test_render_and_deploy_job_templates_run_as_shipped_with_their_survey_defaults)."""

import json
import os
import re

import pytest
import yaml

from ansible.release import __version__ as ansible_core_version
from tests.packaging.conftest import ansible_env, install, run
from tests.unit.utils.ansible_cli import ansible_cli

COLLECTION = ('ansible_collections', 'aifabric', 'fabric')


def _examples(tarball_files):
    """What the tarball ships as examples: each inventory directory and each example project."""
    found = set()
    for name in tarball_files:
        parts = name.split('/')
        if parts[0] in ('inventories', 'examples') and len(parts) > 2:
            found.add('/'.join(parts[:2]))
    return found


def test_the_running_ansible_core_is_the_newest_line_the_collection_supports(tarball):
    """These tests run on the venv's ansible-core; it must be the top of requires_ansible (2.21 today), so the
    tarball is installed and run by what users install now, not only by what the lower lines accept."""
    import tarfile  # pylint: disable=import-outside-toplevel
    with tarfile.open(tarball) as archive:
        runtime = yaml.safe_load(archive.extractfile('meta/runtime.yml').read())
    upper = re.search(r'<(\d+)\.(\d+)\.0', runtime['requires_ansible'])
    newest = (int(upper.group(1)), int(upper.group(2)) - 1)
    assert tuple(int(part) for part in ansible_core_version.split('.')[:2]) == newest, (
        'ansible-core %s runs these tests; requires_ansible is %s' % (ansible_core_version, runtime['requires_ansible']))


def test_every_shipped_example_is_one_this_module_runs(tarball_files):
    assert _examples(tarball_files) == {'inventories/' + name for name in INVENTORIES} | {'examples/awx'}


# The design-only verdict of each example as docs/validation.md tells it: the lab's FRR switches have no lossless
# data plane, so before a deploy every check of the lab is not applicable (NOTHING CHECKED, which fails the run).
INVENTORIES = {'lab': 'NOTHING CHECKED', 'pod1k': 'PASSED'}


@pytest.mark.parametrize('name', sorted(INVENTORIES))
def test_an_example_inventory_renders_checks_and_validates_where_it_is_installed(tarball, empty_config, tmp_path, name):
    (tmp_path / 'collections').mkdir()
    (tmp_path / 'elsewhere').mkdir()
    installed = install(tarball, tmp_path / 'collections')
    env = ansible_env(collections_path=installed, config=empty_config, XDG_DATA_HOME=str(tmp_path / 'data'))
    inventory = os.path.join(installed, *COLLECTION + ('inventories', name))

    def playbook(name, *extra, returncode=0):
        result = run(ansible_cli('playbook') + ['-i', inventory, 'aifabric.fabric.' + name] + list(extra),
                     env=env, cwd=str(tmp_path / 'elsewhere'), timeout=900)
        output = result.stdout + result.stderr
        assert result.returncode == returncode, output[-6000:]
        assert '[WARNING]' not in output and 'DEPRECATION' not in output, output[-6000:]
        return result.stdout

    out = tmp_path / 'data' / 'aifabric.fabric' / 'out' / name
    playbook('render')
    assert (out / 'docs' / 'index.md').is_file() and os.listdir(out / 'configs')
    written = sorted(os.listdir(out / 'configs'))
    again = playbook('render', '--check', '--diff')
    assert re.findall(r'changed=(\d+)', again) == ['0'], again[-3000:]
    verdict = INVENTORIES[name]
    validated = playbook('validate', '-e', 'validate_gather=false', returncode=0 if verdict == 'PASSED' else 2)
    with open(out / 'validation' / 'report.json', encoding='utf-8') as handle:
        summary = json.load(handle)['summary']
    assert (summary['verdict'], summary['failed'], summary['errors']) == (verdict, 0, 0)
    assert summary['passed'] == summary['checks_run'] and (summary['passed'] > 0) == (verdict == 'PASSED')
    assert str(out / 'validation' / 'report.md') in validated and str(out / 'validation' / 'report.html') in validated
    assert sorted(os.listdir(out / 'configs')) == written
    verify = run(ansible_cli('galaxy') + ['collection', 'verify', '--offline', '-p', installed, 'aifabric.fabric'],
                 env=env, cwd=str(tmp_path / 'elsewhere'))
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert os.listdir(tmp_path / 'elsewhere') == []
