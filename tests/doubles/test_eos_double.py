"""The EOS eAPI double against the real clients: napalm's eos driver (pyeapi) and ANTA (asynceapi/httpx)."""

import asyncio
import base64
import glob
import json
import ssl
import time
import urllib.error
import urllib.request

import pytest

from tests.unit.platforms.eos.double.config import Config
from tests.unit.platforms.eos.double.device import EapiError
from tests.unit.utils.platforms import golden

# Every golden EOS configuration: the EOS fabrics and the EOS switches of the mixed-vendor shape2 fabric.
GOLDEN = sorted(glob.glob(golden('eos', '**', '*.cfg'), recursive=True))


def rendered(path):
    """A golden configuration with the management address the double is reached at on Management1: a replace that
    removed it would cut the deploy off (eAPI stays enabled in the MGMT VRF the golden file gives Management1)."""
    with open(path, encoding='utf-8') as handle:
        text = handle.read()
    assert 'interface Management1\n   description management\n   vrf MGMT\n' in text
    return text.replace('interface Management1\n   description management\n   vrf MGMT\n',
                        'interface Management1\n   description management\n   vrf MGMT\n   ip address 192.0.2.10/24\n')


@pytest.fixture
def eos(eos_double):
    return eos_double('leaf001', world={'lldp': {'Ethernet2/1': {'device': 'spine001', 'port': 'Ethernet1/1'}},
                                        'remote_vteps': ['10.254.16.2']})


@pytest.fixture
def napalm_eos(eos):
    from napalm import get_network_driver
    device, server = eos
    driver = get_network_driver('eos')('127.0.0.1', device.username, device.password, timeout=10,
                                       optional_args={'port': server.port})
    driver.open()
    yield driver, device
    driver.config_session = None  # close() would abort a session the test already handled
    driver.close()


def running(device):
    return device.run_cmds(['enable', 'show running-config'], 'text')[1]['output']


def test_every_golden_line_is_accepted():
    assert GOLDEN, 'no golden EOS configuration found'
    for path in GOLDEN:
        config = Config.parse(rendered(path))
        lines = [line.strip() for line in rendered(path).splitlines() if line.strip() and not line.strip().startswith('!')]
        reparsed = Config.parse(config.render())
        assert reparsed.render() == config.render(), path
        assert len(lines) > 50, path


@pytest.mark.parametrize('line, error', [
    ('interface Ethernet1/1\nmtu 99999', "Invalid input (at token 1: '99999')"),
    ('interface Ethernet1/1\nmtu', 'Incomplete command'),
    ('interface Ethernet1/1\nswitchport access vlan 5000', "Invalid input (at token 3: '5000')"),
    ('router bgp 65001\nneighbor 10.0.0.300 remote-as 65100', "Invalid input (at token 1: '10.0.0.300')"),
    ('interfaces Ethernet1/1', "Invalid input (at token 0: 'interfaces')"),
    ('qos map dscp 64 to traffic-class 3', "Invalid input (at token 3: '64')"),
    ('interface Ethernet99/1', "Invalid input (at token 1: 'Ethernet99/1')"),
    ('hostname leaf001; reload', "Invalid input (at token 1: 'leaf001;')"),
])
def test_malformed_lines_are_rejected_with_eos_error_text(eos, line, error):
    device, _server = eos
    before = running(device)
    cmds = ['enable', 'configure session bad'] + line.split('\n')
    with pytest.raises(EapiError) as caught:
        device.run_cmds(cmds)
    assert caught.value.code == 1002
    assert caught.value.message == "CLI command %d of %d '%s' failed: invalid command" % (len(cmds), len(cmds), cmds[-1])
    assert caught.value.data == [{}] * (len(cmds) - 1) + [{'errors': [error]}]
    assert running(device) == before


def test_rejected_command_error_object_is_eos_shaped(eos):
    """The exact JSON-RPC error object eAPI returns (code 1002, message, per-command data)."""
    device, server = eos
    body = json.dumps({'jsonrpc': '2.0', 'method': 'runCmds', 'id': 'x1',
                       'params': {'version': 1, 'format': 'json', 'cmds': ['show hostname', 'show bogus']}}).encode()
    request = urllib.request.Request('https://127.0.0.1:%d/command-api' % server.port, data=body, headers={
        'Content-Type': 'application/json-rpc',
        'Authorization': 'Basic ' + base64.b64encode(('admin:' + device.password).encode()).decode()})
    context = ssl._create_unverified_context()  # pylint: disable=protected-access
    with urllib.request.urlopen(request, context=context, timeout=5) as response:
        answer = json.load(response)
    assert answer == {'jsonrpc': '2.0', 'id': 'x1', 'error': {
        'code': 1002, 'message': "CLI command 2 of 2 'show bogus' failed: invalid command",
        'data': [{'hostname': 'leaf001', 'fqdn': 'leaf001'}, {'errors': ["Invalid input (at token 1: 'bogus')"]}]}}
    bad = urllib.request.Request(request.full_url, data=body, headers={
        'Authorization': 'Basic ' + base64.b64encode(b'admin:wrong').decode()})
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(bad, context=context, timeout=5)
    assert caught.value.code == 401
    assert device.run_cmds(['show hostname'])[0]['hostname'] == 'leaf001'


def test_napalm_replace_diff_commit_confirm_and_idempotence(napalm_eos):
    driver, device = napalm_eos
    before = running(device)
    driver.load_replace_candidate(config=rendered(GOLDEN[0]))
    diff = driver.compare_config()
    assert diff.startswith('@@ ')
    assert '+interface Ethernet1/1' in diff and '+   vrf MGMT' in diff
    assert running(device) == before, 'a loaded session must not touch the running config'
    driver.commit_config(revert_in=30)
    assert driver.has_pending_commit()
    assert device.run_cmds(['show configuration sessions'])[0]['sessions'][driver.config_session]['state'] == 'pendingCommitTimer'
    driver.confirm_commit()
    assert not driver.has_pending_commit()
    after = running(device)
    assert 'interface Ethernet1/1\n   description gpu0001 eth1\n   mtu 9100\n' in after
    assert device.startup == device.running.render(), 'confirm_commit writes memory'
    # Same config again: empty diff, nothing to commit.
    driver.load_replace_candidate(config=rendered(GOLDEN[0]))
    assert driver.compare_config() == ''
    driver.discard_config()
    assert running(device) == after
    assert device.run_cmds(['show configuration sessions'])[0]['sessions'] == {
        name: entry for name, entry in device.run_cmds(['show configuration sessions'])[0]['sessions'].items()
        if entry['state'] != 'pending'}


def test_rejected_line_in_a_session_leaves_running_byte_identical(napalm_eos):
    from napalm.base.exceptions import ReplaceConfigException
    driver, device = napalm_eos
    before = running(device)
    broken = rendered(GOLDEN[0]).replace('   mtu 9100\n', '   mtu 9100\n   mtu jumbo\n', 1)
    with pytest.raises(ReplaceConfigException) as caught:
        driver.load_replace_candidate(config=broken)
    message = str(caught.value)
    assert message.startswith("Error [1002]: CLI command ")
    assert "'mtu jumbo' failed: invalid command" in message
    assert "Invalid input (at token 1: 'jumbo')" in message
    assert running(device) == before
    assert not [name for name, entry in device.run_cmds(['show configuration sessions'])[0]['sessions'].items()
                if entry['state'] == 'pending'], 'napalm aborted the session'


def test_commit_timer_reverts_when_not_confirmed(napalm_eos):
    driver, device = napalm_eos
    before = running(device)
    driver.load_replace_candidate(config=rendered(GOLDEN[0]))
    driver.commit_config(revert_in=1)
    assert 'hostname leaf001\n' in running(device) and 'interface Ethernet1/1' in running(device)
    time.sleep(1.6)
    assert running(device) == before
    assert not driver.has_pending_commit()


def test_rollback_aborts_a_pending_commit_at_once(napalm_eos):
    driver, device = napalm_eos
    before = running(device)
    driver.load_replace_candidate(config=rendered(GOLDEN[0]))
    driver.commit_config(revert_in=60)
    driver.rollback()
    assert running(device) == before
    assert not driver.has_pending_commit()


def test_plain_commit_then_rollback_restores_the_previous_startup(napalm_eos):
    driver, device = napalm_eos
    before = running(device)
    driver.load_merge_candidate(config='interface Ethernet1/1\n   description merged\n   mtu 9000\n')
    # running-config order as AVD's eos-intended-config.j2 prints the sections: eAPI before the interfaces
    assert driver.compare_config().splitlines() == [
        '@@ -4,6 +4,10 @@', ' management api http-commands', '    no shutdown', ' !',
        '+interface Ethernet1/1', '+   description merged', '+   mtu 9000', '+!',
        ' interface Management1', '    ip address 192.0.2.10/24', ' !']
    driver.commit_config()
    assert 'interface Ethernet1/1\n   description merged\n   mtu 9000\n' in running(device)
    driver.rollback()  # configure replace flash:rollback-0 (the startup-config saved before the commit)
    assert running(device) == before


def test_replace_without_eapi_locks_the_manager_out_until_the_timer_reverts(napalm_eos):
    from napalm.base.exceptions import ConnectionException
    import pyeapi
    driver, device = napalm_eos
    before = running(device)
    candidate = rendered(GOLDEN[0])
    candidate = candidate[:candidate.index('management api http-commands')] + 'end\n'  # eAPI dropped
    driver.load_replace_candidate(config=candidate)
    driver.commit_config(revert_in=1)
    with pytest.raises((pyeapi.eapilib.ConnectionError, ConnectionException)):
        driver.has_pending_commit()
    time.sleep(1.6)
    assert not driver.has_pending_commit()
    assert running(device) == before


def test_connection_dropped_after_commit_timer_reverts(napalm_eos):
    import pyeapi
    driver, device = napalm_eos
    before = running(device)
    device.faults.set(drop_after_commit=True)
    driver.load_replace_candidate(config=rendered(GOLDEN[0]))
    driver.commit_config(revert_in=1)
    with pytest.raises(pyeapi.eapilib.ConnectionError):
        driver.confirm_commit()
    time.sleep(1.6)
    assert running(device) == before


def test_state_follows_the_running_config_and_the_fault_knobs(napalm_eos):
    driver, device = napalm_eos
    device.faults.set(convergence_s=3)  # long enough for the first show on a loaded machine (0.3 s was not)
    driver.load_replace_candidate(config=rendered(GOLDEN[0]))
    driver.commit_config()

    def run(command):
        return device.run_cmds([command])[0]
    peers = run('show ip bgp summary vrf all')['vrfs']['default']['peers']
    assert sorted(peers) == ['10.0.0.0', '10.0.0.2']
    assert {peer['peerState'] for peer in peers.values()} == {'Connect'}
    time.sleep(3.1)
    peers = run('show ip bgp summary vrf all')['vrfs']['default']['peers']
    assert peers['10.0.0.0']['peerState'] == 'Established' and peers['10.0.0.0']['asn'] == '65100'
    assert run('show bgp evpn summary')['vrfs']['default']['peers']['10.0.0.2']['peerState'] == 'Established'
    status = run('show interfaces status')['interfaceStatuses']
    assert status['Ethernet2/1']['linkStatus'] == 'connected'
    assert status['Ethernet1/1']['vlanInformation'] == {'interfaceMode': 'bridged', 'vlanId': 101,
                                                        'interfaceForwardingModel': 'bridged'}
    assert run('show interfaces')['interfaces']['Ethernet2/1']['mtu'] == 9100
    assert run('show vxlan vni')['vxlanIntfs']['Vxlan1']['vniBindings']['10101']['vlan'] == 101
    assert run('show vxlan vni')['vxlanIntfs']['Vxlan1']['vniBindingsToVrf']['50001']['vrfName'] == 'TENANT'
    assert run('show vxlan vtep')['interfaces']['Vxlan1']['vteps'] == ['10.254.16.2']
    assert run('show lldp neighbors')['lldpNeighbors'] == [
        {'port': 'Ethernet2/1', 'neighborDevice': 'spine001', 'neighborPort': 'Ethernet1/1', 'ttl': 120}]
    pfc = run('show priority-flow-control')['interfaceStatuses']['Ethernet2/1']
    assert pfc['priorities'] == [3] and pfc['enabled'] and pfc['watchdogEnabled'] and pfc['watchdogAction'] == 'drop'
    assert run('show qos maps')['dscpTcMaps']['default']['dscpToTcMap']['26'] == 3
    assert run('show qos interfaces ecn counters queue')['intfQueueCounters']['Ethernet2/1']['queueCounters']['3'] == '0'
    assert run('show priority-flow-control counters')['interfaceCounters']['Ethernet2/1'] == {'rxFrames': 0, 'txFrames': 0}
    # Faults: a stuck session, a link down, a pause storm, a tripped watchdog, lossless drops, ECN marks.
    device.faults.set(bgp_stuck=['10.0.0.2'], interfaces_down=['Ethernet2/1'],
                      pfc_pause={'Ethernet2/5': {'priority': 3, 'rx_per_s': 1000, 'tx_per_s': 0}},
                      watchdog_tripped={'Ethernet2/5': {'priority': 3, 'count': 2}},
                      lossless_drops={'Ethernet2/5': {'priority': 3, 'per_s': 100}},
                      ecn_marks={'Ethernet2/5': {'queue': 3, 'per_s': 500}})
    time.sleep(0.2)
    peers = run('show ip bgp summary vrf all')['vrfs']['default']['peers']
    assert peers['10.0.0.2']['peerState'] == 'Active', 'stuck session'
    assert peers['10.0.0.0']['peerState'] == 'Active', 'its link (Ethernet2/1, 10.0.0.1/31) is down'
    assert run('show interfaces status')['interfaceStatuses']['Ethernet2/1']['linkStatus'] == 'notconnect'
    assert run('show lldp neighbors')['lldpNeighbors'] == []
    first = run('show priority-flow-control counters')['interfaceCounters']['Ethernet2/5']['rxFrames']
    time.sleep(0.2)
    second = run('show priority-flow-control counters detail')['interfaceCounters']['Ethernet2/5']['priorities']['3']['rxFrames']
    assert 0 < first < second
    watchdog = run('show priority-flow-control counters watchdog')['interfaces']['Ethernet2/5']['txQueues']['3']
    assert watchdog['stuckCount'] == 2 and watchdog['dropCount'] > 0
    drops = run('show interfaces counters queue drops')['interfaces']['Ethernet2/5']['trafficClasses']
    assert drops['TC3']['dropPrecedences']['DP0']['droppedPackets'] > 0 and drops['TC0']['dropPrecedences']['DP0']['droppedPackets'] == 0
    assert int(run('show qos interfaces ecn counters queue')['intfQueueCounters']['Ethernet2/5']['queueCounters']['3']) > 0


def test_fault_file_written_by_another_process_is_read(eos):
    from tests.doubles import faults
    device, _server = eos
    faults.write(device.state_dir, unreachable=True)
    assert not device.reachable()
    faults.clear(device.state_dir)
    assert device.reachable()


def test_anta_talks_to_the_double(eos):
    from anta.device import AsyncEOSDevice
    from anta.models import AntaCommand
    from anta.tests.routing.bgp import VerifyBGPPeerCount
    device, server = eos
    device.faults.set(convergence_s=0)
    device.run_cmds(['enable', 'configure'] + [line.strip() for line in rendered(GOLDEN[0]).splitlines()
                                               if line.strip() and not line.strip().startswith('!')])

    async def scenario():
        anta = AsyncEOSDevice(host='127.0.0.1', port=server.port, username='admin', password=device.password,
                              name='leaf001', insecure=True, timeout=10)
        await anta.refresh()
        assert anta.established and anta.hw_model == 'DCS-7060X6-64PE'
        command = AntaCommand(command='show vxlan vni', revision=1)
        await anta.collect(command)
        assert command.json_output['vxlanIntfs']['Vxlan1']['vniBindings']['10101']['vlan'] == 101
        test = VerifyBGPPeerCount(anta, inputs={'address_families': [
            {'afi': 'evpn', 'num_peers': 2}, {'afi': 'ipv4', 'safi': 'unicast', 'vrf': 'default', 'num_peers': 2}]})
        result = await test.test()
        bad = VerifyBGPPeerCount(anta, inputs={'address_families': [{'afi': 'evpn', 'num_peers': 3}]})
        failed = await bad.test()
        await anta.disconnect() if hasattr(anta, 'disconnect') else None
        return result, failed

    result, failed = asyncio.run(scenario())
    assert result.result == 'success', result.messages
    assert failed.result == 'failure' and 'Expected: 3 Actual: 2' in failed.messages[0]
