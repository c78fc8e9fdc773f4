"""The deploy contract through each platform driver, against the device doubles of the mixed fabric: napalm's eos
driver over eAPI (EOS), netmiko over SSH (SONiC, NVUE). Every test starts from the double's factory state."""

import json
import os
import time

import pytest
import yaml

from tests.doubles import faults
from tests.doubles.fleet import TEST_PASSWORD_HASH, load_design
from tests.unit.platforms.nvue.double import shell as nvue_double
from tests.unit.platforms.sonic.double import shell as sonic_double
from tests.unit.platforms.sonic.double import bgp as sonic_bgp

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.deploy import (
    CONFIRMED, FAILED, PENDING_CONFIRM, REVERTING, ROLLED_BACK, UNCHANGED, WOULD_CHANGE, DeployError)
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.deploy import contract
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_device
from tests.unit.utils.paths import ROOT

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


def _set_facts(fleet, name, **facts):
    """Change device facts of a running double (read at each command)."""
    from tests.doubles.ssh import state
    directory = fleet.state_dir_of(name)
    state.write_json(state.path(directory, 'device.json'), dict(state.device(directory), **facts))


def _short_nvue_minutes(fleet, platform, name, minute_s=2):
    """NVUE's confirm time is whole minutes (the driver rounds up): the double's minute lasts 2 s for timer tests."""
    if platform == 'nvue':
        _set_facts(fleet, name, minute_s=minute_s)


def _reset(fleet, name, platform):
    """Back to the factory configuration (what a fresh switch runs), timers and pending state gone."""
    directory = fleet.state_dir_of(name)
    faults.clear(directory)
    if platform == 'nvue':
        _set_facts(fleet, name, minute_s=60)
    if platform == 'eos':
        from tests.unit.platforms.eos.double.config import Config
        from tests.unit.platforms.eos.double.device import default_config
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
    if platform == 'sonic':
        # SONiC commits as a transient service of the switch and waits for it across cut sessions (a load restarts
        # eth0, a management VRF change moves it): the cut is survived, the confirm timer still guards the push
        faults.write(fleet.state_dir_of(name), drop_after_commit=True)
        assert contract.push(driver(), files, confirm_seconds=60)['outcome'] == PENDING_CONFIRM
        assert contract.confirm(driver(), files)['outcome'] == CONFIRMED
        return
    # A timer long enough for the rollback's new session to find the revision pending on a loaded machine (one
    # that ran out first would leave nothing to roll back, and the push would read as refused before its commit)
    _short_nvue_minutes(fleet, platform, name, minute_s=10)
    faults.write(fleet.state_dir_of(name), drop_after_commit=True)
    started = time.monotonic()
    with pytest.raises(DeployError) as caught:
        # EOS answers the commit before it goes dark: then the confirm is what cannot reach it
        contract.push(driver(), files, confirm_seconds=10)
        contract.confirm(driver(), files)
    assert time.monotonic() - started < 60, 'a cut session fails at once, not at a read timeout'
    assert caught.value.outcome in (REVERTING, ROLLED_BACK)
    deadline = time.monotonic() + 30
    while running(fleet, name, platform) != before and time.monotonic() < deadline:
        time.sleep(0.5)
    assert running(fleet, name, platform) == before


def test_a_confirm_after_the_timer_ran_out_fails_and_the_switch_runs_the_old_config(switch, fleet):
    platform, name, driver, files = switch
    before = running(fleet, name, platform)
    _short_nvue_minutes(fleet, platform, name)
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


# -- SONiC: a deploy a real SONiC accepts ----------------------------------------------------------------------------
def _sonic(fleet):
    name = SWITCH['sonic']
    _reset(fleet, name, 'sonic')
    return name, fleet.state_dir_of(name), (lambda: contract.driver_for('sonic', name, fleet.host_vars[name])), \
        render_device(DESIGN, name, USERS)


def _deploy_state(directory):
    path = os.path.join(directory, 'etc', 'sonic', 'aifabric-deploy', 'state')
    with open(path, encoding='utf-8') as handle:
        return handle.read().strip()


def test_sonic_check_mode_on_a_factory_switch_names_the_load_and_changes_nothing(fleet):
    """A factory switch (no BGP session, never deployed) is not in service: check mode says its push would load the
    whole configuration (config reload, which the switch checks against YANG before anything stops)."""
    name, directory, driver, files = _sonic(fleet)
    before = running(fleet, name, 'sonic')
    result = contract.push(driver(), files, check_mode=True)
    assert result['outcome'] == WOULD_CHANGE and result['diff'].startswith(
        '# commit path: config reload of the whole configuration (the switch is not in service')
    assert '+PFC_WD|GLOBAL ' in result['diff'] and '+BUFFER_POOL|ingress_lossless_pool ' in result['diff']
    assert running(fleet, name, 'sonic') == before


def test_sonic_day_n_check_mode_asks_the_switch_config_replace_dry_run(fleet):
    """A switch in service (deployed before): check mode runs GCU's own checks on the switch (`config replace
    --dry-run`), and what it refuses fails there, before anything changes."""
    name, directory, driver, files = _sonic(fleet)
    contract.push(driver(), files, confirm_seconds=60)
    contract.confirm(driver(), files)
    changed = _day_n(files)
    before = running(fleet, name, 'sonic')
    faults.write(directory, reject_lines=[r'^PORT\|Ethernet8 .*day N'])
    with pytest.raises(DeployError) as caught:
        contract.push(driver(), changed, check_mode=True)
    assert caught.value.step == 'config replace --dry-run' and 'Entry "PORT|Ethernet8' in str(caught.value)
    assert running(fleet, name, 'sonic') == before


def _day_n(files, description='day N'):
    """The rendered files with a port description changed and a network more advertised (CONFIG_DB and FRR)."""
    tables = json.loads(files['config_db.json'])
    tables['PORT']['Ethernet8']['description'] = description
    frr = files['frr.conf'].replace(' address-family ipv4 unicast\n', ' address-family ipv4 unicast\n  network 10.250.0.0/24\n', 1)
    return dict(files, **{'config_db.json': json.dumps(tables, indent=2, sort_keys=True), 'frr.conf': frr})


def test_sonic_greenfield_load_then_rollback_brings_the_factory_back(fleet):
    """The factory bgp container runs `separated` (bgpd.conf, zebra.conf): the load restarts it in split-unified with
    frr.conf in place; the rollback loads the CONFIG_DB and FRR files of before and the container's mode comes back."""
    name, directory, driver, files = _sonic(fleet)
    assert sonic_bgp.container_mode(directory) == 'separated'
    before_files = sorted(os.listdir(os.path.join(directory, 'etc', 'sonic', 'frr')))
    before = running(fleet, name, 'sonic')
    pushed = contract.push(driver(), files, confirm_seconds=60)
    assert '# the whole frr.conf boots with the bgp container the load restarts' in pushed['diff']
    assert sonic_bgp.container_mode(directory) == 'split-unified' and sonic_bgp.integrated(directory)
    assert _deploy_state(directory) == 'pending'
    assert contract.rollback(driver()) == {'outcome': ROLLED_BACK, 'changed': True}
    assert sonic_bgp.container_mode(directory) == 'separated' and not sonic_bgp.integrated(directory)
    assert sorted(name for name in os.listdir(os.path.join(directory, 'etc', 'sonic', 'frr'))
                  if not name.startswith('aifabric-')) == before_files
    assert running(fleet, name, 'sonic') == before and _deploy_state(directory) == 'rolled-back'


def test_sonic_confirm_timer_is_rearmed_after_the_push_and_a_late_revert_does_nothing(fleet):
    """One timer covers the replace, a second one (the confirm time) replaces it once the push is done, each under
    its own unit name; after the confirm, a revert that comes late (the timer's) finds nothing pending."""
    from tests.doubles.ssh import state
    name, directory, driver, files = _sonic(fleet)
    contract.push(driver(), files, confirm_seconds=60)
    with open(os.path.join(directory, 'etc', 'sonic', 'aifabric-deploy', 'units'), encoding='utf-8') as handle:
        units = handle.read().split()
    jobs = {record['unit']: record for record in state.jobs(directory)}  # a stopped transient timer is unloaded
    assert len(units) == 2 and list(jobs) == units[1:] and jobs[units[1]]['timer'] == 'waiting'
    assert 50 <= jobs[units[1]]['due'] - time.time() <= 60 and jobs[units[1]]['collect']
    contract.confirm(driver(), files)
    after = running(fleet, name, 'sonic')
    assert _deploy_state(directory) == 'confirmed'
    assert not [record for record in state.jobs(directory) if record.get('timer') == 'waiting']
    with driver().session() as session:
        output = session.run('sudo /bin/sh /etc/sonic/aifabric-deploy/revert.sh', 'late revert')
    assert 'nothing to revert (state: confirmed)' in output and running(fleet, name, 'sonic') == after


def test_sonic_a_push_waits_for_the_one_before_it(fleet):
    name, directory, driver, files = _sonic(fleet)
    contract.push(driver(), files, confirm_seconds=60)
    with pytest.raises(DeployError, match='an earlier deploy waits for its confirm'):
        contract.push(driver(), files, confirm_seconds=60)
    contract.rollback(driver())


def test_sonic_a_failed_rollback_is_reported_as_failed(fleet):
    """`config rollback` and `config reload` both refused: the switch could not be reverted, and no timer will."""
    name, directory, driver, files = _sonic(fleet)
    contract.push(driver(), files, confirm_seconds=60)
    faults.write(directory, refuse_config=['rollback', 'reload'])
    with pytest.raises(DeployError) as caught:
        contract.rollback(driver())
    assert caught.value.outcome == FAILED and 'the revert failed' in str(caught.value)
    assert _deploy_state(directory).startswith('revert-failed')
    faults.clear(directory)
    with pytest.raises(DeployError, match='the revert of an earlier deploy failed'):
        contract.push(driver(), files, confirm_seconds=60)


def test_sonic_local_users_get_their_hashes_at_the_confirm(fleet):
    """SONiC keeps local users as Linux accounts: the confirm creates the missing ones and sets every hash
    (the factory admin keeps no default password); the read-back then shows no difference."""
    from tests.unit.platforms.sonic.double import accounts
    name, directory, driver, files = _sonic(fleet)
    assert accounts.load(directory)['admin']['hash'] == accounts.FACTORY_PASSWORD
    pushed = contract.push(driver(), files, confirm_seconds=60)
    assert '~user admin: password changes' in pushed['diff'] and '+user ops (operator): new account' in pushed['diff']
    assert accounts.load(directory)['admin']['hash'] == accounts.FACTORY_PASSWORD, 'not before the confirm'
    contract.confirm(driver(), files)
    users = accounts.load(directory)
    assert {user: users[user]['hash'] for user in users} == {user: TEST_PASSWORD_HASH for user in USERS}
    assert users['ops']['groups'] == [] and users['admin']['groups'] == ['sudo', 'docker']


def test_sonic_refuses_a_configuration_for_another_switch_model(fleet):
    name, directory, driver, files = _sonic(fleet)
    tables = json.loads(files['config_db.json'])
    tables['DEVICE_METADATA']['localhost']['hwsku'] = 'Mellanox-SN4700-O32'
    with pytest.raises(DeployError, match='switch model failed: the switch is hwsku ACS-SN5600'):
        contract.push(driver(), dict(files, **{'config_db.json': json.dumps(tables)}), check_mode=True)


def test_sonic_in_service_refuses_what_gcu_cannot_do_and_loads_it_in_a_maintenance_window(fleet):
    """Deployed before: another design's buffer pools are beyond GCU (no BUFFER_POOL change), so the push is refused
    before anything changes, naming what and how to do it; `aifabric_sonic_commit_path: load` loads it."""
    name, directory, driver, files = _sonic(fleet)
    contract.push(driver(), files, confirm_seconds=60)
    contract.confirm(driver(), files)
    tables = json.loads(files['config_db.json'])
    tables['BUFFER_POOL']['egress_lossless_pool']['size'] = str(int(tables['BUFFER_POOL']['egress_lossless_pool']['size']) - 1)
    resized = dict(files, **{'config_db.json': json.dumps(tables)})
    before = running(fleet, name, 'sonic')
    with pytest.raises(DeployError) as caught:
        contract.push(driver(), resized, check_mode=True)
    assert caught.value.step == 'commit path' and 'deployed before by this collection' in str(caught.value)
    assert 'BUFFER_POOL changes (egress_lossless_pool): GCU changes no buffer pool' in str(caught.value)
    assert 'aifabric_sonic_commit_path: load' in str(caught.value) and running(fleet, name, 'sonic') == before
    window = contract.driver_for('sonic', name, dict(fleet.host_vars[name], aifabric_sonic_commit_path='load'))
    assert contract.push(window, resized, confirm_seconds=60)['outcome'] == PENDING_CONFIRM
    assert contract.confirm(window, resized)['outcome'] == CONFIRMED


@pytest.mark.parametrize('name, value', [('aifabric_sonic_commit_path', 'reload'), ('aifabric_sonic_commit_timeout', 5),
                                         ('aifabric_sonic_commit_timeout', 'soon'), ('aifabric_sonic_commit_timeout', True)])
def test_sonic_settings_are_checked_before_anything(fleet, name, value):
    with pytest.raises(DeployError) as caught:
        contract.driver_for('sonic', SWITCH['sonic'], dict(fleet.host_vars[SWITCH['sonic']], **{name: value}))
    assert caught.value.step == 'settings' and name in str(caught.value) and repr(value) in str(caught.value)


# -- EOS: the lock-out guard and the commit timer's bound --------------------------------------------------------
@pytest.mark.parametrize('change, words', [
    (('interface Management1\n   description management\n   vrf MGMT\n   ip address ', 'interface Management1\n'
      '   description management\n   vrf MGMT\n   no-address '), 'Management1 would have no address'),
    (('   vrf MGMT\n      no shutdown', '   vrf MGMT\n      shutdown'), 'eAPI would be shut down in VRF MGMT'),
    (('interface Management1\n   description management\n   vrf MGMT', 'interface Management1\n'
      '   description management\n   vrf OTHER'), 'eAPI would be shut down in VRF OTHER'),
])
def test_eos_lockout_guard_management_address_and_its_vrf(change, words, fleet):
    name = SWITCH['eos']
    files = render_device(DESIGN, name, USERS)
    old, new = change
    assert old in files['startup-config.cfg'], old
    text = files['startup-config.cfg'].replace(old, new, 1)
    text = '\n'.join(line for line in text.splitlines() if not line.startswith('   no-address ')) + '\n'
    driver = contract.driver_for('eos', name, fleet.host_vars[name])
    assert any(problem.startswith(words) for problem in driver.lockout_problems({'startup-config.cfg': text})), \
        driver.lockout_problems({'startup-config.cfg': text})


def _with_acl(text, *rules, bind=True):
    """The rendered file with a management ACL as management.allowed_sources renders it (the mixed fabric cannot have
    one: its SONiC and NVUE switches have no management ACL)."""
    acl = 'ip access-list standard AIFABRIC-MGMT\n%s!\n' % ''.join('   %s\n' % rule for rule in rules)
    text = text.replace('management api http-commands\n', acl + 'management api http-commands\n', 1)
    if bind:
        text = text.replace('   vrf MGMT\n      no shutdown\n', '   vrf MGMT\n      no shutdown\n      ip access-group '
                            'AIFABRIC-MGMT\n', 1)
    return text


@pytest.mark.parametrize('rules, host_vars, words', [
    (['10 permit 192.168.0.0/16'], {}, 'eAPI in VRF MGMT would take connections only from access list AIFABRIC-MGMT, '
     'which does not permit 127.0.0.1, the address the deploy comes from'),
    (['10 deny host 127.0.0.1', '20 permit 127.0.0.0/8'], {}, 'which does not permit 127.0.0.1'),
    (['10 permit 192.168.0.0/16'], {'aifabric_deploy_source_address': '10.9.9.9'}, 'which does not permit 10.9.9.9'),
    (['10 permit 127.0.0.0/8'], {}, None),
    (['20 deny 127.0.0.0/8', '10 permit host 127.0.0.1'], {}, None),  # sequence order, not line order
    (['10 permit 192.168.0.0/16'], {'aifabric_deploy_source_address': '192.168.7.1'}, None),  # behind a NAT
])
def test_eos_lockout_guard_the_management_acl_must_let_the_deploy_in(rules, host_vars, words, fleet):
    """management.allowed_sources binds an ACL to eAPI in the management VRF: the address the deploy comes from (the
    double is reached over 127.0.0.1) must pass it, or the commit would cut the deploy off before its confirm."""
    name = SWITCH['eos']
    text = _with_acl(render_device(DESIGN, name, USERS)['startup-config.cfg'], *rules)
    driver = contract.driver_for('eos', name, dict(fleet.host_vars[name], **host_vars))
    problems = driver.lockout_problems({'startup-config.cfg': text})
    if words is None:
        assert problems == []
    else:
        assert any(words in problem for problem in problems), problems


def test_eos_lockout_guard_refuses_an_acl_the_file_does_not_define_and_a_push_that_excludes_the_deploy(fleet):
    name = SWITCH['eos']
    _reset(fleet, name, 'eos')
    rendered = render_device(DESIGN, name, USERS)['startup-config.cfg']
    driver = contract.driver_for('eos', name, fleet.host_vars[name])
    missing = rendered.replace('   vrf MGMT\n      no shutdown\n', '   vrf MGMT\n      no shutdown\n'
                               '      ip access-group OTHER\n', 1)
    assert any('bound to access list OTHER, which the file does not define' in problem
               for problem in driver.lockout_problems({'startup-config.cfg': missing}))
    # unbound, the ACL restricts nothing the deploy uses
    assert driver.lockout_problems({'startup-config.cfg': _with_acl(rendered, '10 permit 10.0.0.0/8', bind=False)}) == []
    before = running(fleet, name, 'eos')
    with pytest.raises(DeployError) as caught:
        contract.push(driver, {'startup-config.cfg': _with_acl(rendered, '10 permit 10.0.0.0/8')}, confirm_seconds=60)
    assert caught.value.step == 'lock-out guard' and 'does not permit 127.0.0.1' in str(caught.value)
    assert running(fleet, name, 'eos') == before


def test_eos_commit_timer_of_a_day_is_refused_before_anything_changes(fleet):
    """napalm writes `commit timer` as time.strftime('%H:%M:%S', gmtime(seconds)): 86400 s would be 00:00:00."""
    name = SWITCH['eos']
    _reset(fleet, name, 'eos')
    before = running(fleet, name, 'eos')
    driver = contract.driver_for('eos', name, fleet.host_vars[name])
    with pytest.raises(DeployError, match='confirm timer failed: a eos switch holds a confirm timer of at most 86399 s'):
        contract.push(driver, render_device(DESIGN, name, USERS), confirm_seconds=86400)
    assert running(fleet, name, 'eos') == before


def test_every_platform_names_the_account_a_fresh_switch_has():
    host = {'ansible_host': 'h', 'ansible_user': 'u', 'ansible_password': 'p'}
    assert contract.driver_for('sonic', 'x', host).default_account[0] == 'admin'
    assert contract.driver_for('nvue', 'x', host).default_account[0] == 'cumulus'
    assert contract.driver_for('eos', 'x', host).default_account is None


def test_eos_full_replace_keeps_the_switchs_eapi_ssl_profile(fleet):
    """The rendered configuration names no certificate: a replace keeps the SSL profile the switch's eAPI uses
    (`protocol https ssl profile`, its `management security` block), so eAPI keeps its certificate."""
    from tests.unit.platforms.eos.double.config import Config
    from tests.unit.platforms.eos.double.device import default_config
    name = SWITCH['eos']
    _reset(fleet, name, 'eos')
    device = fleet.devices[name]
    profile = ('management security\n   ssl profile EAPI\n      tls versions 1.2 1.3\n'
               '      certificate eapi.crt key eapi.key\n!\n')
    with device.lock:
        text = default_config(name, device.management)
        text = text.replace('management api http-commands\n', profile + 'management api http-commands\n'
                            '   protocol https ssl profile EAPI\n', 1)
        device.running = Config.parse(text)
        device.startup = device.running.render()
    assert '   protocol https ssl profile EAPI' in device.running.render()
    files = render_device(DESIGN, name, USERS)
    pushed = contract.push(contract.driver_for('eos', name, fleet.host_vars[name]), files, confirm_seconds=60)
    assert pushed['outcome'] == PENDING_CONFIRM
    assert not [line for line in pushed['diff'].splitlines() if line.startswith('-') and 'EAPI' in line], pushed['diff']
    after = device.running.render()
    assert '   protocol https ssl profile EAPI\n' in after and '      certificate eapi.crt key eapi.key\n' in after
    contract.rollback(contract.driver_for('eos', name, fleet.host_vars[name]))
