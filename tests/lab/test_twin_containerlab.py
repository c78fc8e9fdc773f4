"""The lab twins this collection generates, checked by containerlab itself (`containerlab validate` parses the
topology with every kind's own checks, bind paths included, without touching Docker). Needs the containerlab
binary that `make setup-host` installs; no image is needed."""

import os
import shutil
import subprocess

import pytest
import yaml

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.lab import containerlab_twin
from tests.unit.utils.paths import ROOT

MIXED = os.path.join(ROOT, 'tests', 'doubles', 'fixtures', 'mixed.yml')
LAB = os.path.join(ROOT, 'fabrics', 'lab.yml')
IMAGES = {'eos': 'ceos:4.32.0F', 'sonic': 'vrnetlab/sonic_sonic-vs:202405', 'nvue': 'networkop/cx:5.4.0'}


def write_twin(directory, intent, kinds=None, with_files=True):
    design = design_from_file(intent)
    public_key = directory / 'id_ed25519.pub'
    public_key.write_text('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI test\n', encoding='utf-8')
    topology, files = containerlab_twin(design, 'aifabric/lab-node:0123456789ab', str(public_key),
                                        str(directory / 'nodes'), vendor_images=IMAGES, vendor_kinds=kinds)
    for path, content in files.items() if with_files else ():
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w', encoding='utf-8') as handle:
            handle.write(content)
    path = directory / ('%s.clab.yml' % design.name)
    path.write_text(yaml.safe_dump(topology, sort_keys=False), encoding='utf-8')
    return path, topology


def containerlab_validate(path):
    binary = shutil.which('containerlab')
    if binary is None:
        pytest.fail('containerlab is not installed: run `make setup-host` (or scripts/setup-host.sh) first')
    return subprocess.run([binary, 'validate', '--topo', str(path)], capture_output=True, text=True, check=False,
                          env=dict(os.environ, CLAB_VERSION_CHECK='disable'), timeout=120)


@pytest.mark.parametrize('kinds', [None, {'sonic': 'sonic-vs'}], ids=['ceos+sonic-vm+cvx', 'ceos+sonic-vs+cvx'])
def test_containerlab_accepts_the_vendor_twin(tmp_path, kinds):
    path, topology = write_twin(tmp_path, MIXED, kinds)
    result = containerlab_validate(path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert 'Topology is valid' in result.stderr + result.stdout
    assert 'nodes=%d links=%d' % (len(topology['topology']['nodes']), len(topology['topology']['links'])) \
        in result.stderr + result.stdout


def test_containerlab_accepts_the_frr_twin(tmp_path):
    result = containerlab_validate(write_twin(tmp_path, LAB)[0])
    assert result.returncode == 0, result.stdout + result.stderr


def test_containerlab_refuses_a_ceos_twin_without_its_interface_maps(tmp_path):
    result = containerlab_validate(write_twin(tmp_path, MIXED, with_files=False)[0])
    assert result.returncode != 0
    assert 'EosIntfMapping.json' in result.stdout + result.stderr
