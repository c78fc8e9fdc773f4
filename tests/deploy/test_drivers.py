"""The deploy contract through each platform driver, against the device doubles of the mixed fabric: napalm's eos
driver over eAPI (EOS), netmiko over SSH (SONiC, NVUE). Every test starts from the double's factory state."""

import json
import os
import time

import pytest
import yaml

from tests.doubles import faults
from tests.doubles.fleet import TEST_PASSWORD_HASH, load_design
from tests.doubles.ssh import nvue as nvue_double
from tests.doubles.ssh import sonic as sonic_double

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.deploy import (
    CONFIRMED, FAILED, PENDING_CONFIRM, REVERTING, ROLLED_BACK, UNCHANGED, WOULD_CHANGE, DeployError)
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.deploy import contract
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_device

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MIXED = os.path.join(ROOT, 'tests', 'doubles', 'fixtures', 'mixed.yml')
DESIGN = load_design(MIXED)
USERS = {user['name']: TEST_PASSWORD_HASH for user in DESIGN.intent['management']['users']}
SWITCH = {'eos': 'leaf001', 'sonic': 'leaf002', 'nvue': 'spine001'}
# A line of each platform's rendered file that its double is told to refuse (faults: reject_lines).
REJECTED = {'eos': r'^router-id ', 'sonic': r'^LOOPBACK_INTERFACE\|', 'nvue': r'router-id:'}
REJECTED_TEXT = {'eos': "CLI command", 'sonic': 'Entry "LOOPBACK_INTERFACE|', 'nvue': 'Config invalid at router-id'}


@pytest.fixture(scope='module')
def fleet(tmp_path_factory):
    from tests.doubles.fleet import Fleet
    started = Fleet(DESIGN, str(tmp_path_factory.mktemp('deploy') / 'fleet'), facts={'leaf004': {'release': '202012'}})
    started.start()
    with open(os.path.join(started.state_dir, 'inventory.yml'), encoding='utf-8') as handle:
        started.host_vars = yaml.safe_load(handle)['all']['hosts']
    yield started
    started.stop()


@pytest.fixture(params=sorted(SWITCH))
def switch(request, fleet):
    """(platform, name, driver factory, rendered files); the double reset to factory state and no faults."""
    platform, name = request.param, SWITCH[request.param]
    _reset(fleet, name, platform)
    files = render_device(DESIGN, name, USERS)
    yield platform, name, lambda: contract.driver_for(platform, name, fleet.host_vars[name]), files
    faults.clear(fleet.state_dir_of(name))
    _reset(fleet, name, platform)


def _reset(fleet, name, platform):
    """Back to the factory configuration (what a fresh switch runs), timers and pending state gone."""
    directory = fleet.state_dir_of(name)
    faults.clear(directory)
    if platform == 'eos':
        from tests.doubles.eos.config import Config
        from tests.doubles.eos.device import default_config
        device = fleet.devices[name]
        with device.lock:
            for session in device.sessions.values():
                if session.timer:
                    session.timer.cancel()
            device.sessions.clear()
            device.dark = False
            device.running = Config.parse(default_config(name, device.management))
            device.startup = device.running.render()
            device._changed()  # pylint: disable=protected-access
        return
    from tests.doubles.ssh import state
    state.forget_jobs(directory)
    if platform == 'sonic':
        sonic_double.factory(directory, state.device(directory))
    else:
        nvue_double.factory(directory, state.device(directory))


def running(fleet, name, platform):
    """What the switch runs, read straight from the double (bytes, for byte-identical comparisons)."""
    directory = fleet.state_dir_of(name)
    if platform == 'eos':
        return fleet.devices[name].running.render()
    if platform == 'sonic':
        with open(os.path.join(directory, 'frr', 'running.conf'), encoding='utf-8') as handle:
            return json.dumps(sonic_double.running(directory), sort_keys=True) + handle.read()
    data = nvue_double.load(directory)
    return json.dumps(data['revs'][data['applied']]['config'], sort_keys=True)


def test_check_mode_shows_the_diff_and_changes_nothing(switch, fleet):
    platform, name, driver, files = switch
    before = running(fleet, name, platform)
    result = contract.push(driver(), files, check_mode=True)
    assert result['outcome'] == WOULD_CHANGE and result['changed'] and result['diff'].strip()
    assert running(fleet, name, platform) == before


def test_push_confirm_read_back_then_a_second_push_changes_nothing(switch, fleet):
    platform, name, driver, files = switch
    pushed = contract.push(driver(), files, confirm_seconds=60)
    assert pushed['outcome'] == PENDING_CONFIRM and pushed['changed']
    assert contract.confirm(driver(), files) == {'outcome': CONFIRMED, 'changed': True}
    after = running(fleet, name, platform)
    again = contract.push(driver(), files, confirm_seconds=60)
    assert again == {'outcome': UNCHANGED, 'diff': again['diff'], 'changed': False} and not again['diff'].strip()
    assert running(fleet, name, platform) == after
    if platform == 'eos':
        assert fleet.devices[name].startup == fleet.devices[name].running.render(), 'confirm saves to startup'


def test_rollback_restores_the_running_config_byte_for_byte(switch, fleet):
    platform, name, driver, files = switch
    before = running(fleet, name, platform)
    contract.push(driver(), files, confirm_seconds=60)
    assert running(fleet, name, platform) != before
    assert contract.rollback(driver()) == {'outcome': ROLLED_BACK, 'changed': True}
    assert running(fleet, name, platform) == before
    assert contract.rollback(driver()) == {'outcome': UNCHANGED, 'changed': False}, 'nothing left to roll back'


def test_a_rejected_line_leaves_the_switch_as_it_was_and_quotes_the_switch(switch, fleet):
    platform, name, driver, files = switch
    before = running(fleet, name, platform)
    faults.write(fleet.state_dir_of(name), reject_lines=[REJECTED[platform]])
    with pytest.raises(DeployError) as caught:
        contract.push(driver(), files, confirm_seconds=60)
    assert caught.value.outcome in (FAILED, ROLLED_BACK)
    assert str(caught.value).startswith('%s: ' % name) and REJECTED_TEXT[platform] in str(caught.value)
    assert running(fleet, name, platform) == before


def test_the_switch_reverts_by_itself_when_the_session_drops_after_commit(switch, fleet):
    platform, name, driver, files = switch
    before = running(fleet, name, platform)
    faults.write(fleet.state_dir_of(name), drop_after_commit=True)
    started = time.monotonic()
    with pytest.raises(DeployError) as caught:
        # EOS answers the commit before it goes dark: then the confirm is what cannot reach it
        contract.push(driver(), files, confirm_seconds=3)
        contract.confirm(driver(), files)
    assert time.monotonic() - started < 60, 'a cut session fails at once, not at a read timeout'
    assert caught.value.outcome in (REVERTING, ROLLED_BACK)
    deadline = time.monotonic() + 20
    while running(fleet, name, platform) != before and time.monotonic() < deadline:
        time.sleep(0.5)
    assert running(fleet, name, platform) == before


def test_a_confirm_after_the_timer_ran_out_fails_and_the_switch_runs_the_old_config(switch, fleet):
    platform, name, driver, files = switch
    before = running(fleet, name, platform)
    contract.push(driver(), files, confirm_seconds=2)
    deadline = time.monotonic() + 20
    while running(fleet, name, platform) != before and time.monotonic() < deadline:
        time.sleep(0.5)
    with pytest.raises(DeployError) as caught:
        contract.confirm(driver(), files)
    assert caught.value.step == 'confirm' and running(fleet, name, platform) == before


def test_the_lockout_guard_refuses_a_config_without_the_management_plane(switch, fleet):
    platform, name, driver, files = switch
    before = running(fleet, name, platform)
    broken = dict(files)
    if platform == 'eos':
        broken['startup-config.cfg'] = files['startup-config.cfg'].replace('username admin ', 'username someone ')
        words = 'the deploy logs in as admin'
    elif platform == 'sonic':
        tables = json.loads(files['config_db.json'])
        del tables['MGMT_INTERFACE']
        broken['config_db.json'] = json.dumps(tables)
        words = 'no MGMT_INTERFACE'
    else:
        tree = yaml.safe_load(files['startup.yaml'])
        del tree[0]['set']['interface']['eth0']['ip']['address']
        broken['startup.yaml'] = yaml.safe_dump(tree)
        words = 'eth0 would have no address'
    with pytest.raises(DeployError) as caught:
        contract.push(driver(), broken, confirm_seconds=60)
    assert caught.value.step == 'lock-out guard' and words in str(caught.value)
    assert running(fleet, name, platform) == before


@pytest.mark.parametrize('platform', ['eos', 'sonic'])
def test_the_lockout_guard_refuses_moving_the_address_the_deploy_uses(platform, fleet):
    """Reached at an address of the management network that the file gives to no port: refused (no connection
    needed to judge it on EOS and SONiC)."""
    name = SWITCH[platform]
    address = DESIGN.device(name)['management']['address'].split('/')[0]
    moved = '.'.join(address.split('.')[:3] + ['250'])
    driver = contract.driver_for(platform, name, dict(fleet.host_vars[name], ansible_host=moved))
    problems = driver.lockout_problems(render_device(DESIGN, name, USERS))
    assert any(problem.startswith('the deploy reaches the switch at %s, but the file gives' % moved)
               for problem in problems), problems
    same = contract.driver_for(platform, name, dict(fleet.host_vars[name], ansible_host=address))
    assert not any('reaches the switch' in problem for problem in same.lockout_problems(render_device(DESIGN, name, USERS)))


def test_sonic_before_202205_is_refused_before_anything_is_touched(fleet):
    before = running(fleet, 'leaf004', 'sonic')
    with pytest.raises(DeployError, match=r'leaf004: preflight failed: SONiC 202012 has no generic config updater'):
        contract.push(contract.driver_for('sonic', 'leaf004', fleet.host_vars['leaf004']),
                      render_device(DESIGN, 'leaf004', USERS))
    assert running(fleet, 'leaf004', 'sonic') == before


def test_a_platform_without_a_driver_is_named():
    with pytest.raises(DeployError, match='leaf009: driver failed: aifabric.fabric has no deploy driver for platform '
                                          'junos'):
        contract.driver_for('junos', 'leaf009', {})
