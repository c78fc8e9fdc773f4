"""playbooks/lab_up.yml on the vendor twin's inventory (extensions/molecule/clab_vendor) stops before it creates
anything when the vendor images are not loaded: nothing is pulled, the error names what is missing. Runs the real
playbook against the real Docker engine (root, `make setup-host`)."""

import os
import subprocess

from tests.unit.utils.ansible_cli import ansible_cli, ansible_env
from tests.unit.utils.paths import ROOT

INVENTORY = os.path.join(ROOT, 'extensions', 'molecule', 'clab_vendor', 'inventory')
IMAGE_VARIABLES = ('AIFABRIC_CEOS_IMAGE', 'AIFABRIC_SONIC_IMAGE', 'AIFABRIC_CUMULUS_IMAGE')


def lab_up(tmp_path, **images):
    env = ansible_env(CLAB_VERSION_CHECK='disable', **dict(dict.fromkeys(IMAGE_VARIABLES), **images))
    workdir = tmp_path / 'lab'
    argv = ansible_cli('playbook') + ['-i', INVENTORY, os.path.join(ROOT, 'playbooks', 'lab_up.yml'),
                                      '-e', 'lab_workdir=%s' % workdir]
    result = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    return result, workdir


def docker_names(*what):
    return subprocess.run(['docker'] + list(what), capture_output=True, text=True, check=True).stdout.split()


def test_missing_vendor_images_stop_the_lab_before_anything_exists(tmp_path):
    result, workdir = lab_up(tmp_path, AIFABRIC_CEOS_IMAGE='aifabric-test/ceos:absent',
                             AIFABRIC_SONIC_IMAGE='aifabric-test/sonic:absent',
                             AIFABRIC_CUMULUS_IMAGE='aifabric-test/cx:absent')
    assert result.returncode != 0
    assert ("lab_vendor_images names images this machine's Docker does not have: aifabric-test/ceos:absent, "
            "aifabric-test/cx:absent, aifabric-test/sonic:absent") in result.stdout
    assert not workdir.exists()
    assert not [name for name in docker_names('ps', '-a', '--format', '{{.Names}}') if name.startswith('aifabric-vendor-')]
    assert 'aifabric-vendor' not in docker_names('network', 'ls', '--format', '{{.Name}}')
    assert not [image for image in docker_names('image', 'ls', '--format', '{{.Repository}}')
                if image.startswith('aifabric-test/')]


def test_a_vendor_platform_without_an_image_is_named(tmp_path):
    result, workdir = lab_up(tmp_path)
    assert result.returncode != 0
    for platform, kind in (('eos', 'ceos'), ('nvue', 'cvx'), ('sonic', 'sonic-vm')):
        assert 'lab_vendor_images.%s: is required: the image of containerlab kind %s' % (platform, kind) in result.stdout
    assert 'Traceback' not in result.stdout + result.stderr
    assert not workdir.exists()
