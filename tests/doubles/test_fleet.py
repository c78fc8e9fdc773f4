"""The fleet launcher: one double per switch of a mixed intent, from the command line and in-process."""

import json
import os
import socket
import stat
import subprocess
import sys

import pytest
import yaml

from tests.doubles.pytest_doubles import ROOT
from tests.doubles.fleet import load_design, parse_facts

MIXED = os.path.join(ROOT, 'tests', 'doubles', 'fixtures', 'mixed.yml')


def fleet_cli(*args):
    return subprocess.run([sys.executable, '-m', 'tests.doubles.fleet'] + list(args), cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=False)


def listening(host, port):
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def test_up_writes_an_inventory_down_leaves_nothing(tmp_path):
    state_dir = str(tmp_path / 'fleet')
    started = fleet_cli('up', '--intent', MIXED, '--state-dir', state_dir)
    assert started.returncode == 0, started.stderr
    try:
        lines = started.stdout.splitlines()
        assert [line.split()[:2] for line in lines[:6]] == [
            ['leaf001', 'eos'], ['leaf002', 'sonic'], ['leaf003', 'eos'], ['leaf004', 'sonic'], ['spine001', 'nvue'], ['spine002', 'nvue']]
        inventory_path = os.path.join(state_dir, 'inventory.yml')
        assert stat.S_IMODE(os.stat(inventory_path).st_mode) == 0o600
        with open(inventory_path, encoding='utf-8') as handle:
            hosts = yaml.safe_load(handle)['all']['hosts']
        password = hosts['leaf001']['ansible_password']
        assert len(password) >= 24 and password not in started.stdout + started.stderr
        assert hosts['leaf002']['ansible_ssh_private_key_file'].startswith(state_dir)
        assert all(listening(item['ansible_host'], item['ansible_port']) for item in hosts.values())
        again = fleet_cli('up', '--intent', MIXED, '--state-dir', state_dir)
        assert again.returncode == 0 and again.stdout.startswith('fleet already up in ')
        with open(inventory_path, encoding='utf-8') as handle:
            assert yaml.safe_load(handle)['all']['hosts'] == hosts, 'a second up changes nothing'
        # The inventory works for Ansible's own SSH connection (raw) and for napalm's eAPI.
        raw = subprocess.run([sys.executable, '-m', 'ansible', 'adhoc', 'leaf002', '-i', inventory_path, '-m', 'ansible.builtin.raw',
                              '-a', 'show version'], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
                             env=dict(os.environ, ANSIBLE_NOCOLOR='1'))  # host keys checked against DIR/known_hosts
        release = load_design(MIXED).device('leaf002')['nos_release']  # the fleet runs the release the design renders for
        assert 'SONiC Software Version: SONiC.%s.1-double' % release in raw.stdout, raw.stdout + raw.stderr
        assert password not in raw.stdout + raw.stderr
        from napalm import get_network_driver
        driver = get_network_driver('eos')(hosts['leaf001']['ansible_host'], hosts['leaf001']['ansible_user'], password,
                                           optional_args={'port': hosts['leaf001']['ansible_port']})
        driver.open()
        assert driver.get_facts()['hostname'] == 'leaf001'
        driver.close()
    finally:
        stopped = fleet_cli('down', '--state-dir', state_dir)
    assert stopped.returncode == 0 and stopped.stdout.startswith('fleet in ')
    assert not any(listening(item['ansible_host'], item['ansible_port']) for item in hosts.values())
    assert not os.path.exists(os.path.join(state_dir, 'fleet.pid'))
    assert not [name for name, item in hosts.items()
                if os.path.exists('/run/aifabric-doubles/%s-%d' % (name, item['ansible_port']))], 'mount aliases removed'
    assert fleet_cli('down', '--state-dir', state_dir).stdout.startswith('no fleet running in ')
    assert fleet_cli('down', '--state-dir', state_dir, '--purge').returncode == 0 and not os.path.exists(state_dir)


def test_in_process_fleet_and_world_from_the_cabling_plan(doubles_fleet):
    facts = parse_facts(['leaf002.release=202012', 'leaf001.version=4.30.1F'])
    assert facts == {'leaf002': {'release': '202012'}, 'leaf001': {'version': '4.30.1F'}}
    with pytest.raises(SystemExit, match="--fact takes SWITCH.FACT=VALUE, got 'leaf002release'"):
        parse_facts(['leaf002release'])
    fleet = doubles_fleet(MIXED, facts=facts)
    assert fleet.devices['leaf001'].run_cmds(['show version'])[0]['version'] == '4.30.1F'
    assert sorted(fleet.endpoints) == ['leaf001', 'leaf002', 'leaf003', 'leaf004', 'spine001', 'spine002']
    leaf = fleet.devices['leaf001']
    lldp = leaf.run_cmds(['show lldp neighbors'])[0]['lldpNeighbors']
    assert lldp == [], 'no interface is configured yet, so no link is up'
    assert leaf.world['lldp']['Ethernet2/1'] == {'device': 'spine001', 'port': 'swp1s0'}
    assert leaf.world['remote_vteps'] == ['10.254.16.2', '10.254.16.3', '10.254.16.4']
    with open(os.path.join(fleet.state_dir_of('leaf002'), 'device.json'), encoding='utf-8') as handle:
        sonic = json.load(handle)
    assert sonic['world']['lldp']['Ethernet8'] == {'device': 'spine001', 'port': 'swp1s1'}
    assert 'Ethernet12' in sonic['ports'] and sonic['release'] == '202012' and sonic['hwsku'] == 'ACS-SN5600'
    alias = fleet.devices['spine001'].inside
    assert os.path.isdir(alias)
    fleet.stop()
    assert not os.path.exists(alias) and not fleet.devices
