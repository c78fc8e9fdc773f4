# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""playbooks/render.yml in slices, the way AWX job slicing runs it: AWX imports the inventory (here: the output of
`ansible-inventory --list` of the 1,024-GPU pod), splits its hosts into 4 contiguous slices and runs the job once
per slice with an inventory of that slice only (plus the implicit localhost). The four runs, all at once into one
output directory, must write the same bytes for every device as one whole-fabric run, and each shows its progress.
`--limit` narrows a run the same way (the play runs on localhost, so the limit names it too)."""

import hashlib
import json
import os
import subprocess

import pytest

from tests.unit.utils.ansible_cli import ansible_cli, ansible_env
from tests.unit.utils.files import read_tree
from tests.unit.utils.paths import ROOT

pytestmark = pytest.mark.integration  # it starts Ansible's command line tools (make integration runs it)

POD1K = os.path.join(ROOT, 'inventories', 'pod1k')
SLICES = 4


def _command(*extra):
    return ansible_cli('playbook') + ['-i', POD1K, os.path.join(ROOT, 'playbooks', 'render.yml')] + list(extra)


def _env():
    return ansible_env()


def _imported_inventory():
    """(fabric hosts in inventory order, hostvars): what an AWX inventory import of the intent inventory holds."""
    listed = subprocess.run(ansible_cli('inventory') + ['-i', POD1K, '--list'], env=_env(), capture_output=True, text=True,
                            timeout=300, check=True)
    data = json.loads(listed.stdout)
    return data['fabric_pod1k']['hosts'], data['_meta']['hostvars']


def _slice_inventory(path, hosts, hostvars):
    """A static inventory of the slice, as AWX gives each slice job: the hosts with their variables, one group."""
    path.write_text(json.dumps({'all': {'hosts': {name: hostvars[name] for name in hosts},
                                        'children': {'fabric_pod1k': {'hosts': {name: {} for name in hosts}}}}}))
    return path


def _files(root):
    """Relative path -> sha256 of every file under root."""
    return {relative: hashlib.sha256(data).hexdigest() for relative, data in read_tree(root).items()}


def test_four_slices_write_the_bytes_of_one_whole_render(tmp_path):
    env = _env()
    whole = subprocess.run(_command('-e', json.dumps({'aifabric_render_out': str(tmp_path / 'whole')})), env=env,
                           capture_output=True, text=True, timeout=600, check=False)
    assert whole.returncode == 0, whole.stdout[-3000:] + whole.stderr[-2000:]

    hosts, hostvars = _imported_inventory()
    size = -(-len(hosts) // SLICES)
    runs = []
    for index in range(SLICES):
        inventory = _slice_inventory(tmp_path / ('slice%d.yml' % index), hosts[index * size:(index + 1) * size], hostvars)
        extra = {'aifabric_render_out': str(tmp_path / 'sliced'), 'aifabric_render_progress_interval': 0}
        command = _command('-e', json.dumps(extra))
        command[command.index(POD1K)] = str(inventory)
        runs.append(subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    outputs = [run.communicate(timeout=600)[0] for run in runs]
    assert all(run.returncode == 0 for run in runs), [output[-2000:] for output in outputs]

    whole_files = _files(tmp_path / 'whole' / 'pod1k')
    sliced_files = _files(tmp_path / 'sliced' / 'pod1k')
    whole_configs = {path: digest for path, digest in whole_files.items() if path.startswith('configs/')}
    sliced_configs = {path: digest for path, digest in sliced_files.items() if path.startswith('configs/')}
    assert len({path.split('/')[1] for path in sliced_configs}) == len(hosts)
    assert sliced_configs == whole_configs
    # device pages and fabric documents: the same bytes too
    docs = {path for path in whole_files if path.startswith('docs/')}
    assert docs and {path: sliced_files.get(path) for path in docs} == {path: whole_files[path] for path in docs}
    # each slice rendered its own devices only, and said how far it was
    for index, output in enumerate(outputs):
        count = len(hosts[index * size:(index + 1) * size])
        assert 'Fabric pod1k: %d/%d devices rendered (100 %%)' % (count, count) in output, output[-3000:]
    # the manifest after the last slice lists every device's files with the digests of the whole render's manifest
    manifests = []
    for name in ('whole', 'sliced'):
        with open(tmp_path / name / 'pod1k' / 'manifest.json', encoding='utf-8') as handle:
            manifests.append({path: digest for path, digest in json.load(handle)['files'].items() if path.startswith('configs/')})
    assert manifests[1] == manifests[0] and len(manifests[0]) == len(whole_configs)


def test_a_limit_renders_the_devices_it_names(tmp_path):
    result = subprocess.run(_command('--limit', 'localhost,leaf001,spine00*', '-e',
                                     json.dumps({'aifabric_render_out': str(tmp_path), 'aifabric_render_docs': False})),
                            env=_env(), capture_output=True, text=True, timeout=600, check=False)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    rendered = sorted(os.listdir(tmp_path / 'pod1k' / 'configs'))
    assert rendered[0] == 'leaf001' and len(rendered) > 2 and all(name.startswith('spine00') for name in rendered[1:])


LAB = os.path.join(ROOT, 'inventories', 'lab')


def _lab_render(tmp_path, *extra):
    extra_vars = json.dumps({'aifabric_render_out': str(tmp_path), 'aifabric_render_docs': False})
    command = ansible_cli('playbook') + ['-i', LAB, os.path.join(ROOT, 'playbooks', 'render.yml'), '-e', extra_vars]
    return subprocess.run(command + list(extra), env=_env(), capture_output=True, text=True, timeout=600, check=False)


def test_a_limit_that_names_devices_only_renders_them(tmp_path):
    """`--limit leaf001` (localhost not named): the play still runs, once, and renders that device."""
    result = _lab_render(tmp_path, '--limit', 'leaf001')
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert sorted(os.listdir(tmp_path / 'lab' / 'configs')) == ['leaf001']
    assert 'rendered 1 device(s)' in result.stdout
    group = _lab_render(tmp_path / 'group', '--limit', 'rail_1')
    assert group.returncode == 0, group.stdout[-3000:]
    assert sorted(os.listdir(tmp_path / 'group' / 'lab' / 'configs')) == ['leaf002', 'leaf004']


def test_a_limit_that_names_no_device_of_the_fabric_fails_saying_how_to_ask(tmp_path):
    extra_inventory = tmp_path / 'others.yml'
    extra_inventory.write_text('all:\n  hosts:\n    router1: {}\n')
    result = _lab_render(tmp_path, '-i', str(extra_inventory), '--limit', 'router1')
    assert result.returncode != 0
    text = ' '.join(result.stdout.split())
    assert "The limit 'router1' names no device of fabric lab" in text, result.stdout[-3000:]
    assert '--limit leaf001,spine001' in text and 'aifabric_render_devices' in text
    assert not (tmp_path / 'lab').exists()
