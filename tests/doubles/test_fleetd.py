# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet of doubles (tests/doubles/fleetd) at a size CI affords, and the fleet reading against it.

The mixed fabric (2 EOS and 2 SONiC leaves, 2 NVUE spines, 4 GPU servers) runs as a fleet: one asyncio server
process per kind, every device on its own loopback address, each booted from its rendered configuration. The
fleet reading (checks/live.py read_fleet, the platforms' readers from the controller: asyncssh, ANTA's asynceapi)
must read every healthy device and pass its own checks; a fault put on some devices must show on those devices
only: a BGP session that never comes up, a switch that answers nothing, a switch that accepts the login and never
answers (the reading's deadline ends it, naming the device), a server port down. Then playbooks/validate.yml with
the fleet reader must blame exactly the faulted devices. The fleet stops by itself (ttl) and at the end."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import time

import pytest
import yaml

from tests.doubles import faults
from tests.doubles.fleet import load_design
from tests.doubles.fleetd.launch import FleetD, plan
from tests.unit.utils.ansible_cli import ansible_cli, ansible_env
from tests.unit.utils.paths import ROOT

MIXED = os.path.join(ROOT, 'tests', 'doubles', 'fixtures', 'mixed.yml')
DEADLINE = 15  # seconds one reading of a device may take in these tests (a loaded CI machine)


@pytest.fixture(scope='module')
def fleet(tmp_path_factory):
    base = tmp_path_factory.mktemp('fleetd')
    design = load_design(MIXED)
    started = time.monotonic()
    with FleetD(MIXED, str(base / 'fleet'), ttl=900, design=design) as running:
        up = time.monotonic() - started
        inventory = base / 'inventory'
        inventory.mkdir()
        (inventory / 'mixed.fabric.yml').write_text('plugin: aifabric.fabric.fabric\nintent: %s\n' % MIXED)
        hosts = yaml.safe_load((base / 'fleet' / 'inventory.yml').read_text())['all']['hosts']
        yield {'fleet': running, 'design': design, 'base': base, 'inventory': inventory, 'hosts': hosts, 'up': up}
    assert not running.running()


def set_faults(fleet, **by_device):
    """Put these knobs on these devices (every other device healthy, its sessions up at once)."""
    for name in fleet['hosts']:
        faults.write(fleet['fleet'].device_dir(name), convergence_s=0, **by_device.get(name, {}))


def read_fleet(fleet, devices=None):
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import live
    settings = live.Settings(timeout=DEADLINE, rnic=False, counters=True, health_interval=0)
    hosts = fleet['hosts']

    def variables(name, reader):
        return {key: value for key, value in hosts[name].items() if key in reader.variables}
    started = time.monotonic()
    found = asyncio.run(live.read_fleet(fleet['design'], devices or sorted(hosts), variables, settings, lambda raw: raw))
    return found, time.monotonic() - started


def failing(result):
    return sorted({(item['check'], item['status']) for item in result['check_results'] if item['status'] in ('fail', 'error')})


def test_fleet_is_every_device_on_its_own_loopback_address(fleet):
    kinds = {name: endpoint['kind'] for name, endpoint in fleet['fleet'].endpoints.items()}
    assert kinds == {'leaf001': 'eos', 'leaf003': 'eos', 'leaf002': 'sonic', 'leaf004': 'sonic', 'spine001': 'nvue',
                     'spine002': 'nvue', 'gpu0001': 'linux', 'gpu0002': 'linux', 'gpu0003': 'linux', 'gpu0004': 'linux'}
    addresses = [endpoint['host'] for endpoint in fleet['fleet'].endpoints.values()]
    assert len(set(addresses)) == len(addresses) and all(address.startswith('127.41.') for address in addresses)
    assert len(fleet['fleet'].processes) == 4  # one server per kind, not one per device
    assert fleet['up'] < 120
    for name, host in fleet['hosts'].items():  # the inventory reaches the fleet, never the intent's management range
        assert host['ansible_host'] == fleet['fleet'].endpoints[name]['host']
    assert oct(os.stat(os.path.join(fleet['fleet'].state_dir, 'inventory.yml')).st_mode & 0o777) == '0o600'


def test_healthy_fleet_read_at_once_every_device_passes_its_own_checks(fleet):
    set_faults(fleet)
    found, _seconds = read_fleet(fleet)
    assert found['per_host'] == {}
    assert sorted(found['devices']) == sorted(fleet['hosts'])
    for name, result in found['devices'].items():
        assert result['convergence']['outcome'] == 'settled', (name, failing(result), result['open_checks'])
        assert result['summary']['pass'] > 0, name
        assert '_error' not in result['state'], name
    # the platforms' own shapes came back: EOS eAPI JSON (ANTA's commands too), SONiC COUNTERS_DB, NVUE JSON, iproute2
    assert 'anta' in found['devices']['leaf001']['state']
    assert found['devices']['leaf002']['state']['counters']['rc'] == 0  # one command: the COUNTERS_DB dumps
    assert found['devices']['gpu0001']['state']['interfaces']['rc'] == 0


def test_faults_show_on_their_devices_only_and_a_frozen_switch_ends_at_its_deadline(fleet):
    set_faults(fleet, leaf002={'bgp_stuck': ['*']}, spine002={'unreachable': True}, leaf003={'frozen': True},
               gpu0003={'interfaces_down': ['eth1']})
    try:
        found, seconds = read_fleet(fleet)
    finally:
        set_faults(fleet)
    devices = found['devices']
    # the frozen switch: logins work, nothing answers; the reading's deadline ends it, naming the device and the step
    assert devices['leaf003']['convergence']['outcome'] == 'unreadable'
    assert devices['leaf003']['state']['_error'] == 'leaf003: read state failed: no answer within %d s' % DEADLINE
    # it held nobody else: every device was in flight at once
    assert seconds < DEADLINE + 30
    # the switch that answers nothing: unreadable, with the reason, its name first
    assert devices['spine002']['convergence']['outcome'] == 'unreadable'
    assert devices['spine002']['state']['_error'].startswith('spine002: ')
    # BGP never up on leaf002: its sessions fail, read fine otherwise
    assert ('bgp_session', 'fail') in failing(devices['leaf002'])
    assert '_error' not in devices['leaf002']['state']
    # gpu0003's first rail down: its interface and pings fail
    assert {('interface_state', 'fail'), ('reachability', 'fail'), ('jumbo_frames', 'fail')} <= set(failing(devices['gpu0003']))
    for name in set(devices) - {'leaf002', 'leaf003', 'spine002', 'gpu0003'}:
        # what the faults do to their neighbours (a session to spine002 is fine on leaf001: the double's BGP is
        # configuration) is judged by the validate action; each healthy device read fine
        assert '_error' not in devices[name]['state'], name


def test_a_device_the_reader_cannot_reach_as_ansible_would_is_left_to_the_per_host_path(fleet):
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import live
    hosts = dict(fleet['hosts'])
    hosts['gpu0001'] = dict(hosts['gpu0001'], ansible_ssh_common_args='-o ProxyJump=bastion.example.net')
    hosts['gpu0002'] = dict(hosts['gpu0002'], ansible_connection='community.docker.docker')

    def variables(name, reader):
        return {key: value for key, value in hosts[name].items() if key in reader.variables}
    found = asyncio.run(live.read_fleet(fleet['design'], ['gpu0001', 'gpu0002', 'gpu0003'], variables,
                                        live.Settings(timeout=DEADLINE, rnic=False), lambda raw: raw))
    assert sorted(found['devices']) == ['gpu0003']
    assert 'proxyjump' in found['per_host']['gpu0001']
    assert 'community.docker.docker' in found['per_host']['gpu0002']
    # and a reading that needs an Ansible module (the RDMA NIC facts) too
    found = asyncio.run(live.read_fleet(fleet['design'], ['gpu0004'], variables,
                                        live.Settings(timeout=DEADLINE, rnic=True), lambda raw: raw))
    assert 'aifabric.fabric.rnic_facts' in found['per_host']['gpu0004']


def test_a_changed_host_key_is_refused(fleet, tmp_path):
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import live
    host = fleet['hosts']['spine001']
    wrong = tmp_path / 'known_hosts'
    text = (fleet['base'] / 'fleet' / 'known_hosts').read_text().splitlines()
    mine = next(line for line in text if line.startswith('[%s]:%d ' % (host['ansible_host'], host['ansible_port'])))
    other = next(line for line in text if not line.startswith('[%s]:' % host['ansible_host']))
    wrong.write_text(mine.split(' ')[0] + ' ' + ' '.join(other.split(' ')[1:]) + '\n')

    def variables(name, reader):
        return dict({key: value for key, value in host.items() if key in reader.variables},
                    aifabric_ssh_known_hosts=str(wrong))
    set_faults(fleet)
    found = asyncio.run(live.read_fleet(fleet['design'], ['spine001'], variables, live.Settings(timeout=DEADLINE),
                                        lambda raw: raw))
    error = found['devices']['spine001']['state']['_error']
    assert error.startswith('spine001: SSH connection to %s:%d failed' % (host['ansible_host'], host['ansible_port']))
    assert 'host key' in error.lower()


def test_validate_playbook_with_the_fleet_reader_blames_the_faulted_devices(fleet):
    """validate.yml with the fleet reader and the drift on: the switches' drift comes from one check of the deploy from
    the controller (no per-host drift task on a switch): a healthy switch passes config_drift, the one changed by hand
    fails it with its diff, the frozen one is an error naming it; the GPU servers' drift stays per host."""
    set_faults(fleet, leaf004={'bgp_stuck': ['*']}, leaf003={'frozen': True})
    inventories = render(fleet)
    _on_switch(fleet, 'leaf002', 'sudo config interface shutdown Ethernet8')
    out = fleet['base'] / 'report'
    env = ansible_env(ANSIBLE_PYTHON_INTERPRETER=sys.executable)
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
    rnic_checks = sorted(name for name, check in checks.REGISTRY.items() if 'rnic' in (check.state or ()))
    argv = ansible_cli('playbook') + inventories + [
        os.path.join(ROOT, 'playbooks', 'validate.yml'), '-e', json.dumps({
            'validate_report_dir': str(out), 'validate_settle_timeout': 0, 'validate_health_interval': 0,
            'validate_rnic': False, 'validate_skip_checks': rnic_checks, 'validate_marking_probe': False,
            'validate_reader': 'fleet', 'validate_drift_fleet_timeout': 10,
            'validate_fleet_processes': 3})]  # forked from Ansible's worker, each process its share of the devices
    try:
        result = subprocess.run(argv, cwd=str(fleet['base']), env=env, capture_output=True, text=True, timeout=600,
                                check=False)
    finally:
        _on_switch(fleet, 'leaf002', 'sudo config interface startup Ethernet8')
        set_faults(fleet)
    assert result.returncode != 0, result.stdout[-3000:]
    assert re.search(r'Read 10 of 10 devices from this controller in [\d.]+ s \([\d.]+ CPU-s, 3\s+processes\)',
                     result.stdout), result.stdout[-3000:]
    report = json.loads((out / 'report.json').read_text())
    drift = {item['device']: item for item in report['results'] if item['check'] == 'config_drift'}
    switches = ('leaf001', 'leaf002', 'leaf003', 'leaf004', 'spine001', 'spine002')
    assert {name: drift[name]['status'] for name in switches} == {
        'leaf001': 'pass', 'leaf002': 'fail', 'leaf003': 'error', 'leaf004': 'pass', 'spine001': 'pass',
        'spine002': 'pass'}, {name: (item['status'], item.get('seen')) for name, item in drift.items()}
    assert any(re.match(r'.*: -PORT\|Ethernet8 \{"admin_status": "down"', line)
               for line in drift['leaf002']['facts']['lines']), drift['leaf002']
    # the frozen switch: the fleet check's per-switch deadline, naming it and the step, as the per-host task says it
    assert drift['leaf003']['seen'].startswith('leaf003: connect failed: no answer within 10 s'), drift['leaf003']
    # the GPU servers' drift ran per host (the host roles in check mode), not left out: the fleet's Linux servers
    # answer the reader's commands but run no Python module, so each host module's failure is that server's drift
    # error, never a pass (a real server's drift is judged on the lab's containers)
    assert {name: drift[name]['status'] for name in ('gpu0001', 'gpu0002')} == {
        'gpu0001': 'error', 'gpu0002': 'error'}, drift['gpu0001']
    assert 'module interpreter' in drift['gpu0001']['seen'], drift['gpu0001']
    # the switches' drift ran once from the controller; the per-host drift task ran on no switch
    assert re.search(r'TASK \[aifabric.fabric.validate : Read what the deploy would change on every switch the fleet '
                     r'read', result.stdout), result.stdout[-3000:]
    sections = [part.split('TASK [', 1)[0] for part in result.stdout.split(
        'TASK [aifabric.fabric.validate : Read what the deploy would change on each switch')[1:]]
    assert sections and not any(re.search(r'^(ok|changed|failed|fatal): \[(leaf|spine)', section, re.M)
                                for section in sections), sections
    blamed = set(report['summary'].get('blamed') or [])
    assert {'leaf002', 'leaf003'} <= blamed, report['summary']
    assert any('leaf004' in cause['suspects'] + cause['devices'] for cause in report['causes']), report['causes']
    text = json.dumps(report) + result.stdout
    assert '$6$' not in text and fleet['fleet'].credentials()[0] not in text
    recap = result.stdout[result.stdout.index('PLAY RECAP'):]
    assert any(line.startswith('leaf003') and 'failed=1' in line for line in recap.splitlines()), recap
    assert any(line.startswith('gpu0001') and 'failed=1' in line for line in recap.splitlines()), recap


def test_plan_covers_every_device_of_the_design(fleet):
    entries = plan(fleet['design'])
    assert sorted(entry['name'] for entry in entries) == sorted(fleet['design'].nodes)


def test_sliced_run_two_slices_at_once_then_one_judging_job(fleet):
    """AWX job slicing with ansible-runner: two slices read their devices at once (validate_stage gather), one job
    judges the whole fabric from what they kept (validate_stage judge): the verdict and the devices blamed are those
    of an unsliced run, and each slice read its own devices only."""
    from tests.doubles.fleetd import slicing
    set_faults(fleet, leaf004={'bgp_stuck': ['*']})
    env = ansible_env(ANSIBLE_PYTHON_INTERPRETER=sys.executable)
    sources = [str(fleet['inventory']), os.path.join(fleet['fleet'].state_dir, 'inventory.yml')]
    inventory = slicing.imported_inventory(ansible_cli('inventory'), sources, env, str(fleet['base']))
    gathered = fleet['base'] / 'sliced' / 'gathered'
    common = {'validate_settle_timeout': 0, 'validate_health_interval': 0, 'validate_rnic': False,
              'validate_marking_probe': False, 'validate_gathered_dir': str(gathered),
              'validate_reader': 'fleet', 'validate_drift': False,
              'validate_report_dir': str(fleet['base'] / 'sliced' / 'report')}
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
    common['validate_skip_checks'] = sorted(name for name, check in checks.REGISTRY.items() if 'rnic' in (check.state or ()))
    envvars = {name: env[name] for name in ('ANSIBLE_CONFIG', 'PATH', 'ANSIBLE_PYTHON_INTERPRETER', 'ANSIBLE_NOCOLOR')}
    envvars['ANSIBLE_INVENTORY_ENABLED'] = 'ansible.builtin.script'  # the job's inventory is AWX's script
    playbook = os.path.join(ROOT, 'playbooks', 'validate.yml')
    try:
        slices = slicing.run_jobs(playbook, [slicing.slice_inventory(inventory, number, 2) for number in (1, 2)],
                                  dict(common, validate_stage='gather'), str(fleet['base'] / 'sliced' / 'slices'), envvars)
        for runner, _seconds in slices:
            assert runner.rc == 0, slicing.stdout_of(runner)[-3000:]
        files = sorted(os.listdir(gathered))
        assert len(files) == 2, files  # one per slice, named after the device that read it
        from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks.gathered import read_gathered
        read = [set(read_gathered([str(gathered / name)], fleet['design'].name)) for name in files]
        assert not read[0] & read[1] and read[0] | read[1] == set(fleet['hosts'])
        (judged, _seconds), = slicing.run_jobs(playbook, [inventory], dict(common, validate_stage='judge'),
                                               str(fleet['base'] / 'sliced' / 'judge'), envvars)
    finally:
        set_faults(fleet)
    text = slicing.stdout_of(judged)
    assert judged.rc != 0, text[-3000:]  # leaf004's sessions fail
    report = json.loads((fleet['base'] / 'sliced' / 'report' / 'report.json').read_text())
    assert report['summary']['devices'] == len(fleet['hosts'])
    assert report['summary']['verdict'] == 'FAILED', report['summary']
    # the two ends of leaf004's sessions disagree (see the unsliced test): both are suspects, neither is blamed
    assert any('leaf004' in cause['suspects'] + cause['devices'] for cause in report['causes']), report['causes']
    assert 'FAILED' in text[:text.index('PLAY RECAP')], text[-3000:]


def test_a_slice_without_the_fleet_reader_is_refused_before_any_device_is_read(fleet, tmp_path):
    """A slice (validate_stage gather) keeps the fleet reader's file for the judging step; with the per-host reader (the
    default) it would keep nothing, so the run stops at once and says which variable to set."""
    env = ansible_env(ANSIBLE_PYTHON_INTERPRETER=sys.executable)
    argv = ansible_cli('playbook') + [
        '-i', str(fleet['inventory']), '-i', os.path.join(fleet['fleet'].state_dir, 'inventory.yml'),
        os.path.join(ROOT, 'playbooks', 'validate.yml'), '-e', json.dumps({
            'validate_stage': 'gather', 'validate_gathered_dir': str(tmp_path / 'gathered'),
            'validate_report_dir': str(tmp_path / 'report')})]
    result = subprocess.run(argv, cwd=str(fleet['base']), env=env, capture_output=True, text=True, timeout=300,
                            check=False)
    assert result.returncode != 0, result.stdout[-3000:]
    assert 'set validate_reader=fleet (got validate_reader=per_host)' in result.stdout, result.stdout[-3000:]
    assert 'Read ' not in result.stdout and not (tmp_path / 'gathered').exists()


def _on_switch(fleet, name, command):
    """`command` on a fleet switch over SSH (an exec request, as the fleet serves them)."""
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import transport
    settings = transport.ShellSettings.from_host_vars(name, fleet['hosts'][name])
    with transport.exec_session(settings) as shell:
        return shell.run(command, 'test')[1]


def render(fleet):
    """playbooks/render.yml once for the fleet (the reviewed generation the deploy's check compares with); the
    inventory arguments."""
    inventories = ['-i', str(fleet['inventory']), '-i', os.path.join(fleet['fleet'].state_dir, 'inventory.yml')]
    if not fleet.get('rendered'):
        rendered = subprocess.run(ansible_cli('playbook') + inventories + [os.path.join(ROOT, 'playbooks', 'render.yml')],
                                  cwd=str(fleet['base']), env=ansible_env(ANSIBLE_PYTHON_INTERPRETER=sys.executable),
                                  capture_output=True, text=True, timeout=600, check=False)
        assert rendered.returncode == 0, (rendered.stdout + rendered.stderr)[-3000:]
        fleet['rendered'] = True
    return inventories


def switches_check(fleet, *extra):
    """playbooks/switches.yml --check --diff with the fleet runner (render.yml first, once); (rc, output)."""
    env = ansible_env(ANSIBLE_PYTHON_INTERPRETER=sys.executable)
    inventories = render(fleet)
    argv = ansible_cli('playbook') + inventories + [os.path.join(ROOT, 'playbooks', 'switches.yml'), '-e',
                                                    'switch_deploy_runner=fleet'] + list(extra)
    result = subprocess.run(argv, cwd=str(fleet['base']), env=env, capture_output=True, text=True, timeout=600,
                            check=False)
    return result.returncode, result.stdout + result.stderr


def test_check_diff_of_every_switch_at_once_names_the_switches_it_could_not_check(fleet):
    """switch_deploy_runner=fleet: every switch checked from the controller at once through its own driver (SONiC over
    SSH exec requests and SFTP, EOS over eAPI's configuration sessions). The healthy switches run their rendered
    files (nothing to change), the one an operator changed by hand shows that change, and a switch that answers
    nothing, one that accepts the login and never answers (SSH and eAPI) are errors naming them at their deadline;
    the others are checked all the same."""
    set_faults(fleet, leaf003={'frozen': True}, leaf004={'frozen': True}, spine002={'unreachable': True})
    _on_switch(fleet, 'leaf002', 'sudo config interface shutdown Ethernet8')
    try:
        rc, output = switches_check(fleet, '--check', '--diff', '-e', 'switch_deploy_fleet_timeout=10')
    finally:
        _on_switch(fleet, 'leaf002', 'sudo config interface startup Ethernet8')
        set_faults(fleet)
    assert rc == 2, output[-4000:]
    assert re.search(r'"msg": "failed: leaf003, leaf004, spine002; unchanged: leaf001, spine001; would_change: '
                     r'leaf002"', output), output[-4000:]
    diff = output[output.index('# leaf002\n'):]
    assert re.search(r'^-PORT\|Ethernet8 \{"admin_status": "down"', diff, re.M), diff[:3000]
    assert re.search(r'^\+PORT\|Ethernet8 \{"admin_status": "up"', diff, re.M), diff[:3000]
    assert len(re.findall(r'^[-+](?![-+])', diff[:diff.index('changed: [')], re.M)) == 2, 'only what was changed'
    for name in ('leaf003', 'leaf004'):
        assert '%s: connect failed: no answer within 10 s (the per-switch deadline, option timeout)' % name in output
    assert re.search(r'spine002: SSH connection to [\d.]+:\d+ failed', output), output[-3000:]
    assert '$6$' not in output and fleet['fleet'].credentials()[0] not in output
    recap = output[output.index('PLAY RECAP'):]
    assert re.findall(r'^(\S+)\s+: ok=\d+\s+changed=\d+\s+unreachable=0\s+failed=1', recap, re.M) == ['leaf001']


def test_the_fleet_runner_refuses_to_push(fleet):
    rc, output = switches_check(fleet)
    assert rc == 2 and 'switch_deploy_runner is fleet, which only checks (--check)' in output, output[-3000:]
    assert 'Nothing was pushed' in output and 'Push the rendered configuration' not in output


def test_the_fleet_check_refuses_an_unknown_or_changed_host_key(fleet, tmp_path):
    """ExecShell checks the switch's host key against the known_hosts file (read once per run): another key listed for
    the switch, or none, is refused before any command runs; the right one is accepted."""
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import transport
    host = fleet['hosts']['spine001']
    text = (fleet['base'] / 'fleet' / 'known_hosts').read_text().splitlines()
    mine = next(line for line in text if line.startswith('[%s]:%d ' % (host['ansible_host'], host['ansible_port'])))
    other = next(line for line in text if not line.startswith('[%s]:' % host['ansible_host']))
    files = {'changed': mine.split(' ')[0] + ' ' + ' '.join(other.split(' ')[1:]), 'unknown': other, 'right': mine}
    set_faults(fleet)
    for case, line in files.items():
        path = tmp_path / case
        path.write_text(line + '\n')
        settings = transport.ShellSettings.from_host_vars('spine001', dict(host, aifabric_ssh_known_hosts=str(path)))
        if case == 'right':
            with transport.exec_session(settings) as shell:
                assert shell.run('echo ok', 'test') == (0, 'ok\n')
            continue
        with pytest.raises(transport.TransportError) as refused:
            with transport.exec_session(settings):
                pass
        assert str(refused.value).startswith('spine001: SSH connection to %s:%d failed: ' % (
            host['ansible_host'], host['ansible_port'])), (case, str(refused.value))
        assert ('does not match' if case == 'changed' else 'not found in known_hosts') in str(refused.value), case
