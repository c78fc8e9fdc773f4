# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""playbooks/validate.yml reading live switches: the mixed fabric (EOS and SONiC leaves, NVUE spines) on device
doubles, EOS over eAPI (napalm's eos driver), SONiC and NVUE over Ansible's SSH connection.

Each double first runs its rendered configuration, put there the way the NOS takes one (EOS: the saved
startup-config it boots from; SONiC: FRR in /etc/sonic/frr and `config reload` of the CONFIG_DB; NVUE:
`nv config replace` + `nv config apply`). Then the healthy fabric must pass with checks run on every switch, and
each fault must fail the report on the device it was put on."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from tests.doubles import faults, rendered
from tests.doubles.fleet import Fleet, kinds, load_design
from tests.unit.utils.ansible_cli import ansible_cli, ansible_env
from tests.unit.utils.paths import ROOT

pytestmark = pytest.mark.long_module  # validate.yml runs on one fleet of doubles: started first (tests/conftest.py)

MIXED = os.path.join(ROOT, 'tests', 'doubles', 'fixtures', 'mixed.yml')
CONVERGED = {'convergence_s': 0}  # sessions of a configuration up at once: the run reads once, no settling


def _served_roles():
    """{platform: {roles}} of the mixed fabric's switches the fleet has a double for (each platform's test folder
    says, tests/unit/utils/platforms.py fleet_doubles): what the tests below run on, never a list of names."""
    design, served, roles = load_design(MIXED), kinds(), {}
    for name in design.device_names():
        node = design.nodes[name]
        if node.role != 'host' and node.platform in served:
            roles.setdefault(node.platform, set()).add(node.role)
    return roles


SERVED_ROLES = _served_roles()
PLATFORMS = sorted(SERVED_ROLES)  # every platform of the fabric with a double: a stuck session on each
LEAF_PLATFORMS = sorted(platform for platform, roles in SERVED_ROLES.items() if 'leaf' in roles)  # counters, routes


@pytest.fixture(scope='module')
def live(tmp_path_factory):
    base = tmp_path_factory.mktemp('live')
    design = load_design(MIXED)
    fleet = Fleet(design, str(base / 'fleet'))
    platforms = {entry['name']: entry['platform'] for entry in fleet.entries if entry['kind']}
    rendered.stage(fleet, design)
    fleet.start()
    try:
        rendered.apply(fleet, design)
        for name in platforms:
            faults.write(fleet.state_dir_of(name), **CONVERGED)
        inventory = base / 'inventory'
        inventory.mkdir()
        (inventory / 'mixed.fabric.yml').write_text('plugin: aifabric.fabric.fabric\nintent: %s\n' % MIXED)
        yield {'fleet': fleet, 'base': base, 'inventory': inventory, 'platforms': platforms}
    finally:
        fleet.stop()


def _run(live, name, *extra, fail=False):
    """validate.yml on the switches; returns (play result, report JSON)."""
    out = live['base'] / name
    env = ansible_env(ANSIBLE_PYTHON_INTERPRETER=sys.executable)
    argv = ansible_cli('playbook') + [
        '-i', str(live['inventory']), '-i', os.path.join(live['fleet'].state_dir, 'inventory.yml'),
        os.path.join(ROOT, 'playbooks', 'validate.yml'), '--limit', 'switches', '-e',
        json.dumps({'validate_out': str(out), 'validate_settle_timeout': 0, 'validate_fail': fail,
                    'validate_health_interval': 0, **dict(extra)})]
    result = subprocess.run(argv, cwd=str(live['base']), env=env, capture_output=True, text=True, timeout=600, check=False)
    assert result.returncode == (2 if fail else 0), result.stdout[-4000:] + result.stderr[-2000:]
    with open(out / 'mixed' / 'validation' / 'report.json', encoding='utf-8') as handle:
        return result, json.load(handle)


def _with_faults(live, name, device_faults, *extra, fail=False):
    """One validate.yml run with each device's faults in place (faults on separate switches do not meet)."""
    for device, device_fault in device_faults.items():
        faults.write(live['fleet'].state_dir_of(device), **device_fault, **CONVERGED)
    try:
        return _run(live, name, *extra, fail=fail)
    finally:
        for device in device_faults:
            faults.write(live['fleet'].state_dir_of(device), **CONVERGED)


def _switches(live, platform):
    return sorted(device for device, name in live['platforms'].items() if name == platform)


def _first(live, platform):
    return _switches(live, platform)[0]


def _results(report, status=None, device=None, check=None):
    return [item for item in report['results']
            if (status is None or item['status'] == status) and (device is None or item['device'] == device)
            and (check is None or item['check'] == check)]


def test_healthy_fabric_passes_with_checks_run_on_every_switch(live):
    result, report = _run(live, 'healthy')
    failed = _results(report, 'fail') + _results(report, 'error')
    assert not failed, json.dumps(failed[:5], indent=1)
    for name in live['platforms']:
        ran = [item for item in _results(report, device=name) if item['status'] == 'pass']
        assert len(ran) >= 5, (name, len(ran))
    # ANTA ran on the EOS leaves through the same eAPI session
    anta = [item for item in _results(report, check='anta') if item['status'] == 'pass']
    assert {item['device'] for item in anta} == {name for name, platform in live['platforms'].items() if platform == 'eos'}
    assert 'ansible_password' not in result.stdout and live['fleet'].credentials()[0] not in result.stdout


@pytest.fixture(scope='module')
def broken(live):
    """In one run: every BGP session stuck on the first switch of each platform, and the other EOS switch answering
    nothing (the faults share no switch; a double's BGP state follows its own configuration, not its peers)."""
    stuck_on = {platform: _first(live, platform) for platform in PLATFORMS}
    unreachable = _switches(live, 'eos')[-1]
    assert unreachable not in stuck_on.values()
    device_faults = {name: {'bgp_stuck': ['*']} for name in stuck_on.values()}
    device_faults[unreachable] = {'unreachable': True}
    _result, report = _with_faults(live, 'broken', device_faults)
    return {'stuck_on': stuck_on, 'unreachable': unreachable, 'report': report}


@pytest.mark.parametrize('platform', PLATFORMS)
def test_a_stuck_bgp_session_fails_the_device_it_is_on(broken, platform):
    failed = {item['check'] for item in _results(broken['report'], 'fail', device=broken['stuck_on'][platform])}
    assert any('bgp' in check for check in failed), failed
    assert broken['report']['summary']['verdict'] != 'PASSED' and not broken['report']['summary']['ok']


def test_an_unreachable_switch_is_reported_unreadable_not_passed(broken):
    name, report = broken['unreachable'], broken['report']
    errors = _results(report, 'error', device=name)
    assert errors and all(item['seen'].startswith('%s: eAPI connection to https://' % name) for item in errors), errors[:3]
    # only the design-level checks (the rendered configuration, "[design]") can pass without reading the switch
    assert all('[design]' in item['subject'] for item in _results(report, 'pass', device=name))
    assert report['summary']['verdict'] != 'PASSED' and not report['summary']['ok']


def _uplink(live, name):
    """(port, peer, peer port) of the first fabric link of `name` (the cabling plan)."""
    from tests.doubles.fleet import plan
    entry = next(item for item in plan(load_design(MIXED)) if item['name'] == name)
    port, peer = next((port, peer) for port, peer in sorted(entry['world']['lldp'].items()) if 'spine' in peer['device'])
    return port, peer['device'], peer['port']


@pytest.fixture(scope='module')
def counters(live):
    """Pause frames sent by a leaf port and drops on its lossless queue, on the first EOS and the first SONiC leaf,
    read twice 2 s apart (rates), in one run."""
    uplinks = {platform: (_first(live, platform),) + _uplink(live, _first(live, platform)) for platform in LEAF_PLATFORMS}
    _result, report = _with_faults(live, 'counters', {
        name: {'pfc_pause': {port: {'priority': 3, 'rx_per_s': 0, 'tx_per_s': 5000}},
               'lossless_drops': {port: {'priority': 3, 'per_s': 50}}}
        for name, port, _peer, _peer_port in uplinks.values()}, ('validate_health_interval', 2))
    return {'uplinks': uplinks, 'report': report}


@pytest.mark.parametrize('platform', LEAF_PLATFORMS)
def test_counter_faults_are_found_on_the_end_where_they_start(counters, platform):
    name, port, peer, peer_port = counters['uplinks'][platform]
    report = counters['report']
    pause = _results(report, 'fail', check='health_pfc_pause')
    drops = _results(report, 'fail', check='health_lossless_drops')
    faulted = {device: device_port for device, device_port, _peer, _peer_port in counters['uplinks'].values()}
    assert all(item['device'] in faulted and faulted[item['device']] in item['subject'] for item in pause + drops), \
        'only the faulted ports: %s' % (pause + drops)
    mine = [item for item in pause + drops if item['device'] == name]
    assert {item['check'] for item in mine} == {'health_pfc_pause', 'health_lossless_drops'}, mine
    assert all(port in item['subject'] for item in mine), mine
    assert any(peer in item['subject'] and peer_port in item['subject'] for item in mine
               if item['check'] == 'health_pfc_pause')
    assert report['summary']['health_findings'] >= 4 and not report['summary']['ok']


def test_the_recap_fails_the_devices_the_causes_are_on_and_the_report_path_comes_last(live):
    """Issue 24 item 2: the play fails where the causes are, not on the host the checks ran on."""
    name = _first(live, 'eos')
    result, report = _with_faults(live, 'blame', {name: {'bgp_stuck': ['*']}}, fail=True)
    assert report['summary']['causes'] >= 1, result.stdout[-3000:]
    failed = set(re.findall(r'(?m)^(\S+)\s+: ok=\d+\s+changed=\d+\s+unreachable=\d+\s+failed=[1-9]', result.stdout))
    assert name in failed and failed == set(report['summary']['blamed']) & set(live['platforms'])
    play = result.stdout.split('PLAY RECAP', 1)[0].rstrip()
    # the fleet reader's plays (validate_reader: fleet) have no hosts on the per-host path: only their headers follow
    play = re.sub(r'(\n+PLAY \[[^\n]*\] \**\nskipping: no hosts matched)+$', '', play).rstrip()
    validation = live['base'] / 'blame' / 'mixed' / 'validation'
    assert play.endswith('"msg": [\n        "report: %s",\n        "report with the fabric picture (open in a browser): %s"'
                         '\n    ]\n}' % (validation / 'report.md', validation / 'report.html'))  # last
    assert 'Causes (' in play and play.index('Causes (') < play.index('Failed checks (')


def test_a_route_capturing_a_vtep_is_the_cause_on_the_leaf_holding_it(live):
    """Issue 36: a blackhole for a remote VTEP on an EOS leaf (`show ip route`) and on a SONiC leaf (the bgp
    container's `show ip route json`) is found by vtep_route and blamed on that leaf, nowhere else."""
    from tests.doubles.fleet import plan
    worlds = {item['name']: item['world'] for item in plan(load_design(MIXED))}
    leaves = {_first(live, platform): None for platform in LEAF_PLATFORMS}
    for name in leaves:
        leaves[name] = sorted({vtep for vteps in worlds[name]['remote_vteps_by_vni'].values() for vtep in vteps})[0]
    _result, report = _with_faults(live, 'routes', {
        name: {'routes': [{'dst': vtep + '/32', 'type': 'blackhole'}]} for name, vtep in leaves.items()})
    failed = _results(report, 'fail', check='vtep_route')
    assert sorted((item['device'], leaves[item['device']] in item['subject']) for item in failed) == \
        sorted((name, True) for name in leaves), failed
    assert all(item['seen'].startswith('blackhole %s/32' % leaves[item['device']]) for item in failed), failed
    assert set(report['summary']['blamed']) == set(leaves)
