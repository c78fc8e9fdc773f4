"""SONiC as it ships, from its factory state to day N, against doubles whose world comes from the image's build
(tests/doubles/README.md): a Broadcom community switch (Dell Z9864F, traditional buffers) and an NVIDIA switch
(SN5600, the dynamic buffer model of its image). The factory runs no QoS, no buffer pool and no PFC_WD table
(config-setup factory, init_cfg.json.j2) and its bgp container has no frr-reload.py (rules/docker-fpm-frr.mk). The
driver before issue 35 fails these tests: on the factory switch at its own pool check ("buffer pool ... is missing";
without that check, at GCU refusing the BUFFER_POOL rows its replace adds), and on a switch that already carries the
design's tables at `frr-reload.py --test` (docker's "OCI runtime exec failed ... no such file or directory")."""

import glob
import json
import os
import time

import pytest
import yaml

from tests.doubles import faults
from tests.doubles.fleet import TEST_PASSWORD_HASH, Fleet, load_design
from tests.doubles.ssh import state
from tests.unit.platforms.sonic.double import shell as sonic, bgp as sonic_bgp, buffers as sonic_buffers
from tests.unit.utils.waiting import wait_for

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.deploy import (
    CONFIRMED, PENDING_CONFIRM, ROLLED_BACK, UNCHANGED, WOULD_CHANGE, DeployError)
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.deploy import contract
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms.sonic import frr_delta
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_device

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'doubles', 'fixtures')
SWITCH = 'leaf001'
# (fixture, buffer model the factory runs, buffer model the design renders)
VENDORS = {'broadcom': ('traditional', 'traditional'), 'nvidia': ('dynamic', 'dynamic')}


@pytest.fixture(scope='module', params=sorted(VENDORS))
def fleet(request, tmp_path_factory):
    design = load_design(os.path.join(FIXTURES, request.param + '.yml'))
    started = Fleet(design, str(tmp_path_factory.mktemp('sonic') / request.param))
    started.start()
    with open(os.path.join(started.state_dir, 'inventory.yml'), encoding='utf-8') as handle:
        started.host_vars = yaml.safe_load(handle)['all']['hosts']
    started.vendor, started.design = request.param, design
    started.users = {user['name']: TEST_PASSWORD_HASH for user in design.intent['management']['users']}
    yield started
    started.stop()


@pytest.fixture
def switch(fleet):
    """(state directory, driver factory, rendered files) of the fleet's leaf, back at its factory state."""
    directory = fleet.state_dir_of(SWITCH)
    faults.clear(directory)
    state.forget_jobs(directory)
    sonic.factory(directory, state.device(directory))
    yield directory, (lambda **extra: contract.driver_for('sonic', SWITCH, dict(fleet.host_vars[SWITCH], **extra))), \
        render_device(fleet.design, SWITCH, fleet.users)
    faults.clear(directory)


def running(directory):
    """CONFIG_DB and FRR's running configuration, as the switch runs them (bytes)."""
    return json.dumps(sonic.running(directory), sort_keys=True) + sonic_bgp.running_text(directory)


def deploy_state(directory):
    with open(os.path.join(directory, 'etc', 'sonic', 'aifabric-deploy', 'state'), encoding='utf-8') as handle:
        return handle.read().strip()


def day_n(files):
    """A day-N change of the design: a port's description (CONFIG_DB) and a network more in BGP (FRR)."""
    tables = json.loads(files['config_db.json'])
    port = sorted(tables['PORT'])[0]
    tables['PORT'][port]['description'] = 'day N'
    frr = files['frr.conf'].replace(' address-family ipv4 unicast\n', ' address-family ipv4 unicast\n  network 10.250.0.0/24\n', 1)
    assert 'network 10.250.0.0/24' in frr
    return dict(files, **{'config_db.json': json.dumps(tables, indent=2, sort_keys=True) + '\n', 'frr.conf': frr})


def test_the_factory_switch_is_what_the_image_boots(fleet, switch):
    directory, _driver, _files = switch
    factory = sonic.running(directory)
    assert not {'PFC_WD', 'BUFFER_POOL', 'PORT_QOS_MAP'} & set(factory)
    assert factory['DEVICE_METADATA']['localhost']['buffer_model'] == VENDORS[fleet.vendor][0]
    assert sonic_bgp.container_mode(directory) == 'separated' and not sonic_bgp.integrated(directory)


def test_check_mode_names_the_load_and_changes_nothing(switch):
    directory, driver, files = switch
    before = running(directory)
    result = contract.push(driver(), files, check_mode=True)
    assert result['outcome'] == WOULD_CHANGE
    assert result['diff'].startswith('# commit path: config reload of the whole configuration (the switch is not in '
                                     'service (no BGP session established, never deployed)')
    assert '+PFC_WD|GLOBAL ' in result['diff'] and '+router bgp ' in result['diff']
    assert running(directory) == before


def test_greenfield_day_n_and_rollback(fleet, switch):
    directory, driver, files = switch
    # greenfield: the whole configuration loaded, confirmed, read back (the contract's confirm requires no diff)
    assert contract.push(driver(), files, confirm_seconds=120)['outcome'] == PENDING_CONFIRM
    assert contract.confirm(driver(), files) == {'outcome': CONFIRMED, 'changed': True}
    loaded = sonic.running(directory)
    assert loaded['DEVICE_METADATA']['localhost']['buffer_model'] == VENDORS[fleet.vendor][1]
    assert loaded['PFC_WD'] == json.loads(files['config_db.json'])['PFC_WD']
    assert sonic_bgp.container_mode(directory) == 'split-unified'
    assert frr_delta.equal(sonic_bgp.running_text(directory), files['frr.conf'])
    assert 'route-map RM_SET_SRC permit 10' in sonic_bgp.running_text(directory), "bgpcfgd's, in the file too"
    assert contract.push(driver(), files, confirm_seconds=60)['outcome'] == UNCHANGED
    after_greenfield = running(directory)
    # day N: GCU replaces what differs, FRR takes the vtysh script the driver computed (no frr-reload.py)
    changed = day_n(files)
    pushed = contract.push(driver(), changed, confirm_seconds=120)
    assert pushed['outcome'] == PENDING_CONFIRM
    assert pushed['diff'].startswith('# commit path: config replace (generic config updater) (the switch is in '
                                     'service (')
    assert '+router bgp ' in pushed['diff'] and 'network 10.250.0.0/24' in pushed['diff']
    assert '  network 10.250.0.0/24\n' in sonic_bgp.running_text(directory)
    with open(os.path.join(directory, 'etc', 'sonic', 'frr', 'aifabric-revert.conf'), encoding='utf-8') as handle:
        assert 'no network 10.250.0.0/24' in handle.read(), 'the way back is on the switch'
    # rollback: CONFIG_DB and FRR byte for byte as before the push
    assert contract.rollback(driver()) == {'outcome': ROLLED_BACK, 'changed': True}
    assert running(directory) == after_greenfield and deploy_state(directory) == 'rolled-back'
    # and the same change confirmed: nothing left to do afterwards
    contract.push(driver(), changed, confirm_seconds=120)
    assert contract.confirm(driver(), changed)['outcome'] == CONFIRMED
    assert contract.push(driver(), changed, confirm_seconds=60)['outcome'] == UNCHANGED


def test_a_greenfield_push_never_confirmed_reverts_to_the_factory_by_itself(switch):
    """The controller is gone after the push: the switch's confirm timer loads the CONFIG_DB and FRR files of before."""
    directory, driver, files = switch
    before = running(directory)
    assert contract.push(driver(), files, confirm_seconds=5)['outcome'] == PENDING_CONFIRM
    assert wait_for(lambda: os.path.exists(os.path.join(directory, 'etc', 'sonic', 'aifabric-deploy', 'state'))
                    and deploy_state(directory) == 'rolled-back', time.time() + 120), 'the timer reverted the push'
    assert running(directory) == before


def test_a_replace_past_its_bound_ends_and_leaves_the_lock_to_the_revert(switch):
    """GCU's sorter (a knob: no source states its time; public reports from minutes to hours) outlasts the commit's
    bound: timeout(1) ends it, so the lock is free and the switch is rolled back at once."""
    directory, driver, files = switch
    contract.push(driver(), files, confirm_seconds=120)
    contract.confirm(driver(), files)
    after_greenfield = running(directory)
    faults.write(directory, gcu_sort_s_per_change=30)
    started = time.monotonic()
    with pytest.raises(DeployError) as caught:
        contract.push(driver(aifabric_sonic_commit_timeout=30), day_n(files), confirm_seconds=120)
    assert caught.value.outcome == ROLLED_BACK and 'ran out of its 30 s bound' in str(caught.value)
    assert time.monotonic() - started < 240
    assert running(directory) == after_greenfield and deploy_state(directory) == 'rolled-back'


def test_a_load_past_its_bound_ends_and_the_switch_is_reverted(switch):
    """`config reload` slower than the commit's bound (the knob `reload_s`: no source states how long a reload takes)
    is ended halfway, with the services stopped. The revert loads the CONFIG_DB and FRR files of before with `config
    reload -f`: without -f SONiC refuses while swss is not up or up for 2 minutes or less (config/main.py _swss_ready),
    which the revert of a load always meets."""
    directory, driver, files = switch
    before = running(directory)
    faults.write(directory, reload_s=40, management_restart_s=10)  # eth0: "lost network for 10 seconds"
    with pytest.raises(DeployError) as caught:
        contract.push(driver(aifabric_sonic_commit_timeout=30), files, confirm_seconds=120)
    assert caught.value.outcome == ROLLED_BACK and 'config reload' in str(caught.value) \
        and 'ran out of its 30 s bound' in str(caught.value)
    assert running(directory) == before and deploy_state(directory) == 'rolled-back'
    assert sonic_buffers.swss_active(directory), 'the revert started the services the ended load had stopped'


def test_a_load_waits_for_swss_within_its_bound(switch):
    """A load right after another reload (the revert of one, say): `config reload` refuses while swss has been up for
    2 minutes or less and says to retry (config/main.py _swss_ready); the driver tries again within its bound."""
    directory, driver, files = switch
    sonic_buffers.restart(directory, up_since=time.time() - sonic_buffers.SWSS_READY_S + 15)
    assert contract.push(driver(), files, confirm_seconds=120)['outcome'] == PENDING_CONFIRM
    assert contract.confirm(driver(), files)['outcome'] == CONFIRMED
    assert sonic.running(directory)['PFC_WD'] == json.loads(files['config_db.json'])['PFC_WD']
    (out,) = glob.glob(os.path.join(directory, 'etc', 'sonic', 'aifabric-deploy', 'aifabric-load-*.out'))
    with open(out, encoding='utf-8') as handle:
        tries = handle.read().split('SwSS container is not ready. Retry later or use -f to avoid system checks\n')
    assert len(tries) > 1 and 'Restarting SONiC target' in tries[-1], 'refused first, loaded at a later try'


def test_a_management_vrf_change_cuts_the_session_and_the_push_survives_it(switch):
    """`mgmtVrfEnabled true` moves eth0 into the mgmt VRF and ends every SSH session on it (SONiC Command Reference,
    management VRF): the replace runs as a service of the switch, the driver reconnects and the push goes on."""
    directory, driver, files = switch
    tables = json.loads(files['config_db.json'])
    assert tables['MGMT_VRF_CONFIG'] == {'vrf_global': {'mgmtVrfEnabled': 'true'}}
    tables['MGMT_VRF_CONFIG']['vrf_global']['mgmtVrfEnabled'] = 'false'
    without = dict(files, **{'config_db.json': json.dumps(tables, indent=2, sort_keys=True) + '\n'})
    contract.push(driver(), without, confirm_seconds=120)
    contract.confirm(driver(), without)
    outage = os.path.join(directory, 'outage_until')
    before = os.path.getmtime(outage)
    assert contract.push(driver(), files, confirm_seconds=120)['outcome'] == PENDING_CONFIRM
    assert os.path.getmtime(outage) > before, 'the management interface restarted during the push'
    assert contract.confirm(driver(), files)['outcome'] == CONFIRMED
    assert sonic.running(directory)['MGMT_VRF_CONFIG']['vrf_global']['mgmtVrfEnabled'] == 'true'
