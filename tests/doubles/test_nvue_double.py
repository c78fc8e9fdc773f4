"""The NVUE (Cumulus Linux 5.x) SSH double driven by netmiko's cumulus_linux driver."""

import copy
import functools
import glob
import json
import os
import time

import pytest

from tests.doubles import faults
from tests.unit.utils.platforms import golden
from tests.unit.utils.waiting import patient, wait_for

LEAF = golden('nvue', 'nvue_small', 'leaf001.yaml')
UNNUMBERED = golden('nvue', 'nvue_unnumbered', 'spine001.yaml')


def cmd(conn, command, **kwargs):
    return conn.send_command(command, **kwargs).strip()


def exit_code(conn, command, **kwargs):
    output = conn.send_command(command + '; echo "rc=$?"', **kwargs)
    body, _sep, code = output.rpartition('rc=')
    return int(code.strip()), body.strip()


def upload(conn, source, name):
    """SFTP over the netmiko session's transport (netmiko's SCP helper has no cumulus_linux class)."""
    import paramiko
    with paramiko.SFTPClient.from_transport(conn.remote_conn.get_transport()) as sftp:
        sftp.put(source, '/tmp/' + name)
    return '/tmp/' + name


def applied(conn):
    return json.loads(cmd(conn, 'nv config show -o json'))[1]['set']


def revisions(conn):
    return json.loads(cmd(conn, 'nv config revision -o json'))


def test_replace_diff_apply_confirm_and_idempotence(ssh_double):
    double, connect = ssh_double('leaf001', 'nvue')
    conn = connect()
    assert conn.find_prompt() == 'cumulus@leaf001:mgmt:~$'
    factory = applied(conn)
    path = upload(conn, LEAF, 'leaf001.yaml')
    assert exit_code(conn, 'nv config replace ' + path) == (0, '')
    diff = cmd(conn, 'nv config diff')
    # the golden keeps eth0 in the mgmt VRF but has no address (its fabric has no management pool)
    assert diff.startswith('- unset:\n    interface:\n      eth0:\n        ip:\n          address: {}\n')
    assert "\n- set:\n    bridge:\n      domain:\n        br_default:\n          vlan:\n            '101':" in diff
    assert applied(conn) == factory, 'replace only builds the pending revision'
    code, output = exit_code(conn, 'nv config apply --confirm 60x -y')
    assert (code, output) == (1, "Error: Invalid confirm time '60x'"), 'minutes, or a number with s, m, h or d'
    code, output = exit_code(conn, 'nv config apply --confirm-yes')
    assert (code, output) == (1, 'Error: unrecognized option --confirm-yes'), "not in NVIDIA's reference"
    assert cmd(conn, 'nv config apply -y') == 'applied [rev_id: 2]'
    assert revisions(conn)['2']['state'] == 'applied'
    assert applied(conn)['interface']['swp2s0']['link']['mtu'] == 9100
    assert applied(conn)['evpn']['enable'] == 'on'
    # 5.9+: apply saves the startup configuration.
    with open(os.path.join(double.state_dir, 'nvue', 'revisions.json'), encoding='utf-8') as handle:
        assert json.load(handle)['startup'] == applied(conn)
    # The same file again: nothing to change.
    cmd(conn, 'nv config replace ' + path)
    assert cmd(conn, 'nv config diff') == ''
    assert exit_code(conn, 'nv config detach') == (0, '')
    assert 'pending' not in {body['state'] for body in revisions(conn).values()}
    # The applied configuration saved with `nv config show -o yaml` restores as it is (header item included).
    assert exit_code(conn, 'nv config show -o yaml > /tmp/backup.yaml && nv config replace /tmp/backup.yaml') == (0, '')
    assert cmd(conn, 'nv config diff') == ''
    cmd(conn, 'nv config detach')
    history = cmd(conn, 'nv config history')
    assert history.startswith('- rev_id: 2\n') and '  state: applied\n' in history
    conn.disconnect()


@pytest.mark.parametrize('change, error', [
    (('interface', 'swp2s0', 'link', 'mtu', 99999), 'Config invalid at interface.swp2s0.link.mtu: 99999 is greater than the maximum of 9216'),
    (('interface', 'swp2s0', 'bogus', 'x', 1), "Config invalid at interface.swp2s0: Additional properties are not allowed ('bogus' was unexpected)"),
    (('interface', 'swp99', 'type', None, 'swp'), "Config invalid at interface.swp99: 'swp99' is not a port of this platform"),
    (('router', 'bgp', 'router-id', None, '10.0.0.300'), "Config invalid at router.bgp.router-id: '10.0.0.300' is not a 'ipv4'"),
])
def test_invalid_config_is_refused_with_nvue_text_and_nothing_changes(ssh_double, tmp_path, change, error):
    import yaml
    _double, connect = ssh_double('leaf001', 'nvue')
    conn = connect()
    before = applied(conn)
    with open(LEAF, encoding='utf-8') as handle:
        text = handle.read()
    top, name, key, sub, value = change
    operations = yaml.safe_load(text)
    node = operations[0]['set'].setdefault(top, {}).setdefault(name, {})
    if sub is None:
        node[key] = value
    else:
        node.setdefault(key, {})[sub] = value
    broken = tmp_path / 'broken.yaml'
    broken.write_text(yaml.safe_dump(operations).replace("enable: true", "enable: 'on'"))
    cmd(conn, 'nv config replace ' + upload(conn, str(broken), 'broken.yaml'))
    code, output = exit_code(conn, 'nv config apply -y')
    assert code == 1
    assert output.splitlines()[0] == 'Invalid config [rev_id: 2]'
    assert '  ' + error in output.splitlines()
    assert applied(conn) == before
    assert revisions(conn)['2']['state'] == 'invalid'
    conn.disconnect()


@functools.lru_cache(maxsize=1)
def _golden_trees():
    from tests.unit.platforms.nvue.double import shell as nvue
    paths = sorted(glob.glob(golden('nvue', '**', '*.yaml'), recursive=True))
    assert len(paths) > 10
    trees = {}
    for path in paths:
        with open(path, encoding='utf-8') as handle:
            trees[path] = nvue.from_operations(nvue.from_yaml(handle))
    return trees


def golden_trees():
    """Every golden NVUE file as an applied tree (a fresh copy each time: tests change them)."""
    return copy.deepcopy(_golden_trees())


def test_every_golden_nvue_file_passes_the_schema_in_both_release_vocabularies():
    """In-process: 5.14 (`enable: on`) and 5.15 (`state: enabled`, VRR under ipv4) files, breakouts, ECN profiles,
    scheduler, watchdog, ECMP hash, LLDP application TLV, VXLAN DSCP actions."""
    from tests.unit.platforms.nvue.double import shell as nvue
    from tests.doubles.ssh.state import nvue_ports
    vocabularies = set()
    for path, tree in golden_trees().items():
        release = '5.15' if tree['router']['bgp'].get('state') == 'enabled' else '5.14'
        assert nvue.validation_errors(tree, {'ports': nvue_ports(), 'release': release}) == [], path
        vocabularies.add('state' if release == '5.15' else 'enable')
        other = '5.14' if release == '5.15' else '5.15'
        assert nvue.validation_errors(tree, {'ports': nvue_ports(), 'release': other}), 'each release takes its own words'
    assert vocabularies == {'state', 'enable'}


@pytest.mark.parametrize('path, value, error', [
    (('qos', 'egress-scheduler', 'default-global', 'traffic-class', '6', 'mode'), 'wrr',
     "Config invalid at qos.egress-scheduler.default-global.traffic-class.6.mode: 'wrr' is not one of ['dwrr', 'strict']"),
    (('qos', 'pfc-watchdog', 'polling-interval'), 50,
     'Config invalid at qos.pfc-watchdog.polling-interval: 50 is less than the minimum of 100'),
    (('nve', 'vxlan', 'encapsulation', 'dscp', 'action'), 'preserve',
     "Config invalid at nve.vxlan.encapsulation.dscp.action: 'preserve' is not one of ['copy', 'set', 'derive']"),
    (('system', 'forwarding', 'ecmp-hash', 'source-ip'), 'yes',
     "Config invalid at system.forwarding.ecmp-hash.source-ip: 'yes' is not one of ['on', 'off']"),
    (('interface', 'swp1', 'link', 'breakout', '3'), {},
     "Config invalid at interface.swp1.link.breakout: '3' does not match '^([1-8]x|disabled|loopback)$'"),
    (('system', 'aaa', 'user', 'ops', 'role'), 'root',
     "Config invalid at system.aaa.user.ops.role: 'root' is not one of ['system-admin', 'nvue-admin', 'nvue-monitor']"),
    (('system', 'aaa', 'user', 'ops', 'hashed-password'), 'hunter2',
     "Config invalid at system.aaa.user.ops.hashed-password: 'hunter2' does not match"),
    (('service', 'ntp', 'mgmt', 'server'), {'ntp.example.net': {}},
     "Config invalid at service.ntp.mgmt.server: 'ntp.example.net' is not a 'ipv4'"),
])
def test_new_nvue_keys_are_checked(path, value, error):
    from tests.unit.platforms.nvue.double import shell as nvue
    from tests.doubles.ssh.state import nvue_ports
    tree = golden_trees()[LEAF]
    node = tree
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value
    assert any(line.startswith(error) for line in nvue.validation_errors(tree, {'ports': nvue_ports()}))


def test_state_from_a_release_515_file(tmp_path):
    """BGP families read from 5.15's `state: enabled` the same way as from 5.14's `enable: on`; the port watchdog
    keeps `state: enable` (no QoS row in 5.15's New and Changed NVUE Commands)."""
    from tests.unit.platforms.nvue.double import shell as nvue
    tree = golden_trees()[golden('nvue', 'shape2', 'leaf002', 'startup.yaml')]
    vrfs, _seen, _link_up = nvue._bgp(str(tmp_path), {}, tree)  # pylint: disable=protected-access
    assert {tuple(peer['families']) for peer in vrfs['default']['peers'].values()} == {('ipv4Unicast', 'l2VpnEvpn')}
    port = next(name for name, body in tree['interface'].items() if body.get('type') == 'swp')
    assert nvue._watchdog({}, port, tree)['state'] == 'enable'  # pylint: disable=protected-access


def test_confirm_timer_reverts_when_the_session_drops(ssh_double):
    double, connect = ssh_double('leaf001', 'nvue', minute_s=30)  # the double's minute lasts 30 s (room on a busy machine)
    conn = connect()
    before = applied(conn)
    cmd(conn, 'nv config replace ' + upload(conn, LEAF, 'leaf001.yaml'))
    faults.write(double.state_dir, drop_after_commit=True)
    started = time.time()
    with pytest.raises(Exception):
        cmd(conn, 'nv config apply --confirm 120s -y', read_timeout=5)  # a switch takes --confirm 300s
    # the switch cuts the session right after the apply (slow on a busy machine)
    assert wait_for(lambda: not conn.remote_conn.get_transport().is_active(), patient(30), interval=0.2)
    faults.clear(double.state_dir)
    conn = connect()
    assert applied(conn) != before and revisions(conn)['2']['state'] == 'confirm'
    assert cmd(conn, 'nv config apply --confirm-status').startswith('Confirm timeout remaining: ')
    # The timer fires at 2 double minutes (60 s); the revert is a process of its own, which a loaded machine runs late.
    assert wait_for(lambda: applied(conn) == before, started + 90)
    assert revisions(conn)['2']['state'] == 'confirm_timeout'
    conn.disconnect()


def test_show_commands_follow_config_and_faults(ssh_double):
    double, connect = ssh_double('spine001', 'nvue', world={
        'lldp': {'swp1s0': {'device': 'leaf001', 'port': 'swp2s0'}}, 'remote_vteps': []})
    faults.write(double.state_dir, convergence_s=0.3)
    conn = connect()
    cmd(conn, 'nv config replace ' + upload(conn, UNNUMBERED, 'spine001.yaml'))
    cmd(conn, 'nv config apply -y')
    interfaces = json.loads(cmd(conn, 'nv show interface -o json'))
    assert interfaces['swp1s0']['link']['oper-status'] == 'up' and interfaces['swp1s0']['link']['mtu'] == 9100
    neighbors = json.loads(cmd(conn, 'nv show vrf default router bgp neighbor -o json'))
    assert sorted(neighbors) == ['swp1s0', 'swp1s1', 'swp2s0', 'swp2s1']
    assert neighbors['swp1s0']['type'] == 'unnumbered'
    time.sleep(0.4)
    neighbors = json.loads(cmd(conn, 'nv show vrf default router bgp neighbor -o json'))
    assert {peer['state'] for peer in neighbors.values()} == {'established'}
    assert json.loads(cmd(conn, 'nv show interface swp1s0 lldp neighbor -o json')) == {
        'leaf001': {'port': {'name': 'swp2s0', 'description': ''}, 'chassis': {'system-name': 'leaf001'}, 'ttl': 120}}
    assert json.loads(cmd(conn, 'nv show qos pfc -o json'))['aifabric-40m']['switch-priority'] == {'3': {}}
    faults.write(double.state_dir, convergence_s=0, interfaces_down=['swp1s1'], bgp_stuck=['swp2s0'],
                 pfc_pause={'swp1s0': {'priority': 3, 'tx_per_s': 500}}, watchdog_tripped={'swp1s0': {'priority': 3, 'count': 1}})
    time.sleep(0.2)
    neighbors = json.loads(cmd(conn, 'nv show vrf default router bgp neighbor -o json'))
    assert (neighbors['swp1s1']['state'], neighbors['swp2s0']['state'], neighbors['swp2s1']['state']) == ('active', 'active', 'established')
    assert json.loads(cmd(conn, 'nv show interface swp1s1 -o json'))['link']['oper-status'] == 'down'
    counters = json.loads(cmd(conn, 'nv show interface swp1s0 qos counters -o json'))
    assert counters['pfc-stats']['3']['tx-pause-frames'] > 0 and counters['pfc-stats']['0']['tx-pause-frames'] == 0
    watchdog = json.loads(cmd(conn, 'nv show interface swp1s0 qos pfc-watchdog -o json'))
    assert watchdog == {'state': 'enable', 'status': {'3': {'status': 'stormed', 'deadlock-count': 1}}}
    code, output = exit_code(conn, 'nv show nothing -o json')
    assert (code, output) == (1, 'Error: The requested item does not exist: nothing')
    conn.disconnect()
