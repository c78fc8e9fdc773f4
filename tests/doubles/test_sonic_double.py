"""The SONiC SSH double driven by netmiko (real OpenSSH server, real netmiko 4.8, real FRR vtysh checks)."""

import glob
import json
import os
import re
import time

import pytest
from netmiko import file_transfer

from tests.doubles import faults
from tests.doubles.pytest_doubles import GOLDEN
from tests.unit.utils.waiting import wait_for

CONFIG_DB = os.path.join(GOLDEN, 'sonic', 'sonicsmall', 'leaf001', 'config_db.json')
FRR_CONF = os.path.join(GOLDEN, 'sonic', 'sonicsmall', 'leaf001', 'frr.conf')


def upload(conn, source, name):
    """SCP, as netmiko's file_transfer does it (device type linux)."""
    result = file_transfer(conn, source_file=source, dest_file=name, file_system='/tmp', direction='put', overwrite_file=True)
    assert result['file_verified']
    return '/tmp/' + name


def alive(pid):
    """A process that runs (a killed orphan may stay a zombie until init reaps it)."""
    try:
        with open('/proc/%d/stat' % pid, encoding='utf-8') as handle:
            return handle.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except FileNotFoundError:
        return False


def cmd(conn, command, **kwargs):
    return conn.send_command(command, **kwargs).strip()


def running(conn):
    return json.loads(cmd(conn, 'show runningconfiguration all'))


def exit_code(conn, command, **kwargs):
    output = conn.send_command(command + '; echo "rc=$?"', **kwargs)
    body, _sep, code = output.rpartition('rc=')
    return int(code.strip()), body


def test_shell_prompt_version_and_sudo(ssh_double):
    _double, connect = ssh_double('leaf001', 'sonic')
    conn = connect('edgecore_sonic')
    assert conn.find_prompt() == 'admin@leaf001:~$'
    assert 'SONiC Software Version: SONiC.202311.1-double\n' in cmd(conn, 'show version')
    code, output = exit_code(conn, 'config checkpoint first')
    assert (code, output.strip()) == (1, 'Root privileges are required for this operation')
    conn.enable()
    assert conn.find_prompt() == 'root@leaf001:/home/admin#'
    conn.exit_enable_mode()
    assert conn.find_prompt() == 'admin@leaf001:~$'
    conn.disconnect()


def test_checkpoint_replace_rollback_and_save(ssh_double):
    double, connect = ssh_double('leaf001', 'sonic')
    conn = connect()
    factory = running(conn)
    assert cmd(conn, 'sudo config checkpoint before').endswith('Checkpoint created successfully.')
    assert json.loads(cmd(conn, 'config list-checkpoints')) == ['before']
    path = upload(conn, CONFIG_DB, 'config_db.json')
    code, output = exit_code(conn, 'sudo config replace ' + path)
    assert code == 0 and output.strip().endswith('Config replaced successfully.')
    with open(CONFIG_DB, encoding='utf-8') as handle:
        assert running(conn) == json.load(handle)
    assert json.loads(cmd(conn, 'sonic-cfggen -d --print-data')) == running(conn)
    # Saved config is untouched until `config save -y`.
    with open(os.path.join(double.state_dir, 'etc', 'sonic', 'config_db.json'), encoding='utf-8') as handle:
        assert json.load(handle) == factory
    assert cmd(conn, 'sudo config save -y').startswith('Running command: /usr/local/bin/sonic-cfggen -d --print-data')
    with open(os.path.join(double.state_dir, 'etc', 'sonic', 'config_db.json'), encoding='utf-8') as handle:
        assert json.load(handle) == running(conn)
    assert cmd(conn, 'sudo config rollback before').endswith('Config rolled back successfully.')
    assert running(conn) == factory
    assert cmd(conn, 'sudo config delete-checkpoint before').endswith('Checkpoint deleted successfully.')
    assert json.loads(cmd(conn, 'config list-checkpoints')) == []
    code, output = exit_code(conn, 'sudo config rollback before')
    assert code == 2 and output.strip().endswith("Error: Checkpoint 'before' does not exist")
    conn.disconnect()


@pytest.mark.parametrize('table, key, fields, error', [
    ('PORT', 'Ethernet0', {'mtu': '99999'}, 'Value "99999" does not satisfy the constraint "68..9216" (range, length, or pattern).'),
    ('PORT', 'Ethernet0', {'admin_status': 'maybe'}, 'Invalid enumeration value "maybe".'),
    ('VLAN_MEMBER', 'Vlan100|Ethernet999', {'tagging_mode': 'untagged'},
     'Leafref "/sonic-port:sonic-port/sonic-port:PORT/sonic-port:PORT_LIST/sonic-port:name" of value "Ethernet999" '
     'points to a non-existing leaf.'),
    ('PORT', 'Ethernet999', {'mtu': '9100'},
     'Port Ethernet999 is not in the port map of HwSKU Arista-7060X6-64PE-C256S2 (platform.json / port_config.ini).'),
])
def test_invalid_config_db_is_refused_with_gcu_text_and_nothing_changes(ssh_double, tmp_path, table, key, fields, error):
    _double, connect = ssh_double('leaf001', 'sonic')
    conn = connect()
    before = running(conn)
    with open(CONFIG_DB, encoding='utf-8') as handle:
        config = json.load(handle)
    config.setdefault(table, {}).setdefault(key, {}).update(fields)
    broken = tmp_path / 'broken.json'
    broken.write_text(json.dumps(config))
    code, output = exit_code(conn, 'sudo config replace ' + upload(conn, str(broken), 'broken.json'))
    assert code == 2
    assert output.strip().endswith(
        'Failed to replace config\nUsage: config replace [OPTIONS] TARGET_FILE_PATH\nTry "config replace -h" for help.\n\n'
        'Error: Given patch will produce invalid config. Error: Data Loading Failed\n' + error)
    assert running(conn) == before
    conn.disconnect()


def test_every_golden_config_db_passes_the_doubles_validation():
    """In-process (no SSH): every rendered CONFIG_DB, with its BREAKOUT_CFG, SWITCH_HASH and FLEX_COUNTER_TABLE."""
    from tests.doubles.ssh import sonic
    from tests.doubles.ssh.state import sonic_ports
    paths = sorted(glob.glob(os.path.join(GOLDEN, 'sonic', '*', '*', 'config_db.json')) +
                   glob.glob(os.path.join(GOLDEN, 'shape2', '*', 'config_db.json')))
    assert len(paths) > 10
    for path in paths:
        with open(path, encoding='utf-8') as handle:
            config = json.load(handle)
        facts = {'hwsku': config['DEVICE_METADATA']['localhost']['hwsku'], 'ports': sonic_ports()}
        sonic._gcu_checks(config, {})  # pylint: disable=protected-access
        sonic.validate(config, facts)
        assert {'BREAKOUT_CFG', 'SWITCH_HASH', 'FLEX_COUNTER_TABLE'} <= set(config), path


@pytest.mark.parametrize('table, key, fields, error', [
    ('SWITCH_HASH', 'GLOBAL', {'ecmp_hash': ['SRC_IP', 'SRC_PORT']}, 'Invalid enumeration value "SRC_PORT".'),
    ('SWITCH_HASH', 'ecmp', {'ecmp_hash': ['SRC_IP']}, 'Node "ecmp" not found as a child of "SWITCH_HASH" node.'),
    ('FLEX_COUNTER_TABLE', 'QUEUE', {'FLEX_COUNTER_STATUS': 'on'}, 'Invalid enumeration value "on".'),
    ('MGMT_INTERFACE', 'eth1|192.168.100.11/24', {'gwaddr': '192.168.100.1'},
     'Leafref "/sonic-mgmt_port:sonic-mgmt_port/sonic-mgmt_port:MGMT_PORT/sonic-mgmt_port:MGMT_PORT_LIST/'
     'sonic-mgmt_port:name" of value "eth1" points to a non-existing leaf.'),
    ('MGMT_VRF_CONFIG', 'vrf_global', {'mgmtVrfEnabled': 'yes'}, 'Invalid enumeration value "yes".'),
    ('NTP_SERVER', 'ntp.example.net', {}, 'Invalid value "ntp.example.net" in "server address" element.'),
    ('SYSLOG_SERVER', '192.168.100.3', {'vrf': 'Vrf9'}, 'Invalid value "Vrf9" in "vrf" element.'),
])
def test_new_tables_are_validated(table, key, fields, error):
    from tests.doubles.ssh import sonic
    from tests.doubles.ssh.state import sonic_ports
    with open(CONFIG_DB, encoding='utf-8') as handle:
        config = json.load(handle)
    config.setdefault(table, {})[key] = fields
    with pytest.raises(sonic.Invalid, match='^%s$' % re.escape(error)):
        sonic.validate(config, {'hwsku': 'ACS-SN5600', 'ports': sonic_ports()})


def test_tables_without_yang_and_old_releases_are_refused(ssh_double, tmp_path):
    _double, connect = ssh_double('leaf001', 'sonic')
    conn = connect()
    unknown = tmp_path / 'unknown.json'
    unknown.write_text(json.dumps({'NOT_A_TABLE': {'x': {'y': '1'}}}))
    code, output = exit_code(conn, 'sudo config replace ' + upload(conn, str(unknown), 'unknown.json'))
    assert code == 2 and output.strip().endswith(
        'Error: Given patch is not valid because it has changes to tables without YANG models')
    conn.disconnect()
    _old, connect_old = ssh_double('leaf002', 'sonic', release='202012')
    conn = connect_old()
    code, output = exit_code(conn, 'sudo config replace /tmp/anything.json')
    assert code == 2
    assert output.strip() == 'Usage: config [OPTIONS] COMMAND [ARGS]...\nTry "config -h" for help.\n\nError: No such command "replace".'
    code, output = exit_code(conn, 'sudo config checkpoint x')
    assert code == 2 and 'No such command "checkpoint"' in output
    conn.disconnect()


def test_apply_patch_and_redis_views(ssh_double, tmp_path):
    _double, connect = ssh_double('leaf001', 'sonic')
    conn = connect()
    patch = tmp_path / 'patch.json'
    patch.write_text(json.dumps([{'op': 'add', 'path': '/VLAN', 'value': {'Vlan200': {'vlanid': '200'}}},
                                 {'op': 'replace', 'path': '/PORT/Ethernet0/admin_status', 'value': 'up'}]))
    output = cmd(conn, 'sudo config apply-patch ' + upload(conn, str(patch), 'patch.json'))
    assert output.endswith('Patch applied successfully.')
    assert cmd(conn, 'sonic-db-cli CONFIG_DB HGETALL "VLAN|Vlan200"') == "{'vlanid': '200'}"
    assert cmd(conn, 'sonic-db-cli CONFIG_DB HGET "PORT|Ethernet0" admin_status') == 'up'
    assert cmd(conn, 'sonic-db-cli CONFIG_DB KEYS "VLAN|*"') == 'VLAN|Vlan200'
    assert cmd(conn, 'sonic-db-cli APPL_DB HGET "PORT_TABLE:Ethernet0" oper_status') == 'up'
    assert cmd(conn, 'sonic-db-cli APPL_DB HGET "PORT_TABLE:Ethernet4" oper_status') == 'down'
    conn.disconnect()


def test_frr_reload_through_the_bgp_container_and_bgp_state(ssh_double, tmp_path):
    double, connect = ssh_double('leaf001', 'sonic', world={'remote_vteps': ['10.254.16.2'],
                                                            'lldp': {'Ethernet8': {'device': 'spine001', 'port': 'Ethernet0'}}})
    faults.write(double.state_dir, convergence_s=0.5)
    conn = connect()
    cmd(conn, 'sudo config replace ' + upload(conn, CONFIG_DB, 'config_db.json'))
    frr_path = upload(conn, FRR_CONF, 'frr.conf')
    test = cmd(conn, 'sudo docker exec bgp /usr/lib/frr/frr-reload.py --test ' + frr_path)
    assert test.startswith('Lines To Delete\n===============\nhostname sonic\n') and 'router bgp 4200000000\n' in test
    code, output = exit_code(conn, 'sudo docker exec -i bgp /usr/lib/frr/frr-reload.py --reload ' + frr_path)
    assert (code, output.strip()) == (0, '')
    summary = json.loads(cmd(conn, "vtysh -c 'show bgp summary json'"))
    assert sorted(summary['ipv4Unicast']['peers']) == ['10.0.0.0', '10.0.0.2']
    assert summary['ipv4Unicast']['peers']['10.0.0.0']['state'] == 'Connect'
    time.sleep(0.6)
    summary = json.loads(cmd(conn, "docker exec bgp vtysh -c 'show bgp vrf all summary json'"))
    peer = summary['default']['l2VpnEvpn']['peers']['10.0.0.2']
    assert (peer['state'], peer['remoteAs'], peer['desc'], peer['idType']) == ('Established', 65100, 'spine002:Ethernet0', 'ipv4')
    vnis = json.loads(cmd(conn, "vtysh -c 'show evpn vni json'"))
    assert vnis['10100']['remoteVteps'] == ['10.254.16.2'] and vnis['10100']['type'] == 'L2'
    assert ['Ethernet8', 'spine001', 'Ethernet0', 'BR'] in [line.split() for line in cmd(conn, 'show lldp table').splitlines()]
    # A link down takes its session down; a stuck session never comes up.
    faults.write(double.state_dir, convergence_s=0, interfaces_down=['Ethernet8'], bgp_stuck=['10.0.0.2'])
    peers = json.loads(cmd(conn, "vtysh -c 'show bgp summary json'"))['ipv4Unicast']['peers']
    assert (peers['10.0.0.0']['state'], peers['10.0.0.2']['state']) == ('Active', 'Active')
    assert 'Ethernet8' not in cmd(conn, 'show lldp table')
    # An invalid frr.conf is refused by FRR's own parser and changes nothing.
    broken = tmp_path / 'bad.conf'
    broken.write_text('router bgp 65001\n neighbor 10.0.0.1 remote-as\n')
    code, output = exit_code(conn, 'sudo docker exec bgp /usr/lib/frr/frr-reload.py --reload ' + upload(conn, str(broken), 'bad.conf'))
    assert code == 1 and output.strip().startswith('vtysh failed to process new configuration: line 2: % Command incomplete')
    assert 'router bgp 4200000000' in cmd(conn, 'show runningconfiguration bgp')
    conn.disconnect()


def test_counters_follow_the_fault_knobs(ssh_double):
    double, connect = ssh_double('leaf001', 'sonic')
    conn = connect()
    cmd(conn, 'sudo config replace ' + upload(conn, CONFIG_DB, 'config_db.json'))
    quiet = cmd(conn, 'show pfcwd stats')
    assert ['Ethernet0:3', 'operational', '0/0', '0/0', '0/0', '0/0', '0/0'] in [line.split() for line in quiet.splitlines()]
    faults.write(double.state_dir, pfc_pause={'Ethernet0': {'priority': 3, 'rx_per_s': 1000}},
                 watchdog_tripped={'Ethernet0': {'priority': 3, 'count': 2}},
                 lossless_drops={'Ethernet0': {'priority': 3, 'per_s': 100}}, ecn_marks={'Ethernet4': {'queue': 3, 'per_s': 50}})
    time.sleep(0.3)
    port_oid = cmd(conn, 'sonic-db-cli COUNTERS_DB HGET COUNTERS_PORT_NAME_MAP Ethernet0')
    first = int(cmd(conn, 'sonic-db-cli COUNTERS_DB HGET "COUNTERS:%s" SAI_PORT_STAT_PFC_3_RX_PKTS' % port_oid))
    time.sleep(0.2)
    second = int(cmd(conn, 'sonic-db-cli COUNTERS_DB HGET "COUNTERS:%s" SAI_PORT_STAT_PFC_3_RX_PKTS' % port_oid))
    assert 0 < first < second
    assert cmd(conn, 'sonic-db-cli COUNTERS_DB HGET "COUNTERS:%s" SAI_PORT_STAT_PFC_0_RX_PKTS' % port_oid) == '0'
    stormed = [line.split() for line in cmd(conn, 'show pfcwd stats').splitlines() if line.startswith('Ethernet0:3 ')]
    assert stormed[0][:3] == ['Ethernet0:3', 'stormed', '2/1']
    queues = cmd(conn, 'show queue counters Ethernet0').splitlines()
    uc3 = [line.split() for line in queues if ' UC3 ' in line][0]
    assert int(uc3[4]) > 0
    queue_oid = cmd(conn, 'sonic-db-cli COUNTERS_DB HGET COUNTERS_QUEUE_NAME_MAP Ethernet4:3')
    assert int(cmd(conn, 'sonic-db-cli COUNTERS_DB HGET "COUNTERS:%s" SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS' % queue_oid)) > 0
    rx = cmd(conn, 'show pfc counters').split('\n\n')[0]
    assert rx.splitlines()[0].split() == ['Port', 'Rx', 'PFC0', 'PFC1', 'PFC2', 'PFC3', 'PFC4', 'PFC5', 'PFC6', 'PFC7']
    conn.disconnect()


def test_confirm_timer_reverts_after_the_session_drops(ssh_double):
    """The deploy's own confirm timer on SONiC (systemd-run) rolls back when the manager never comes back."""
    double, connect = ssh_double('leaf001', 'sonic')
    conn = connect()
    before = running(conn)
    cmd(conn, 'sudo config checkpoint pre-deploy')
    armed_at = time.time()
    armed = cmd(conn, 'sudo systemd-run --on-active=4 --unit=aifabric-confirm config rollback pre-deploy')
    assert armed == 'Running timer as unit: aifabric-confirm.timer\nWill run service as unit: aifabric-confirm.service'
    path = upload(conn, CONFIG_DB, 'config_db.json')
    faults.write(double.state_dir, drop_after_commit=True)
    with pytest.raises(Exception):  # the session dies right after the commit; netmiko waits for output in vain
        cmd(conn, 'sudo config replace ' + path, read_timeout=1)
    assert not conn.remote_conn.get_transport().is_active(), 'the SSH connection is gone'
    faults.clear(double.state_dir)
    conn = connect()
    assert running(conn) != before and time.time() - armed_at < 4
    # The timer fires at 4 s; the rollback it starts is a process of its own, which a loaded machine runs late.
    assert wait_for(lambda: running(conn) == before, armed_at + 30), 'the timer rolled the switch back to its checkpoint'
    # Confirmed in time: cancelling the timer keeps the new configuration.
    armed_at = time.time()
    cmd(conn, 'sudo systemd-run --on-active=3 --unit=aifabric-confirm config rollback pre-deploy')
    cmd(conn, 'sudo config replace ' + path)
    cmd(conn, 'sudo systemctl stop aifabric-confirm.timer')
    assert time.time() - armed_at < 3 and cmd(conn, 'systemctl list-timers') == ''
    time.sleep(max(0, armed_at + 3.3 - time.time()))
    with open(CONFIG_DB, encoding='utf-8') as handle:
        assert running(conn) == json.load(handle)
    conn.disconnect()


def test_switch_filesystem_bgp_container_paths_and_no_leftovers(ssh_double):
    """/etc is the switch's own (copy-on-write), /etc/sonic/frr is /etc/frr in the bgp container, `systemctl
    restart bgp` starts FRR from the saved file, and stopping the switch ends the jobs a deploy detached."""
    double, connect = ssh_double('leaf001', 'sonic')
    conn = connect()
    frr_path = upload(conn, FRR_CONF, 'frr.conf')
    code, _output = exit_code(conn, 'sudo mkdir -p -m 755 /etc/sonic/frr/aifabric/run1 && '
                                    'sudo install -m 644 %s /etc/sonic/frr/aifabric/run1/frr.conf' % frr_path)
    assert code == 0
    assert os.path.exists(os.path.join(double.state_dir, 'etc', 'sonic', 'frr', 'aifabric', 'run1', 'frr.conf'))
    assert not os.path.exists('/etc/sonic'), 'nothing reaches the machine running the double'
    assert exit_code(conn, 'sudo docker exec bgp vtysh -C -f /etc/frr/aifabric/run1/frr.conf')[0] == 0
    test = cmd(conn, 'sudo docker exec bgp /usr/lib/frr/frr-reload.py --test --confdir /etc/frr/aifabric/run1 '
                     '/etc/frr/aifabric/run1/frr.conf')
    assert 'Lines To Add' in test and 'router bgp 4200000000' in test
    assert cmd(conn, "sudo docker exec bgp vtysh -c 'show version'").startswith('FRRouting 8.5.4 (leaf001)')
    assert exit_code(conn, 'echo changed | sudo tee /etc/motd >/dev/null')[0] == 0
    assert cmd(conn, 'cat /etc/motd') == 'changed'
    with open(os.path.join(double.state_dir, 'etc-upper', 'motd'), encoding='utf-8') as handle:
        assert handle.read() == 'changed\n'
    # The bgp container restarts from /etc/sonic/frr/frr.conf.
    cmd(conn, 'sudo cp /etc/sonic/frr/aifabric/run1/frr.conf /etc/sonic/frr/frr.conf && sudo systemctl restart bgp')
    assert 'router bgp 4200000000' in cmd(conn, "vtysh -c 'show running-config'")
    cmd(conn, "setsid nohup sh -c 'echo $$ > /tmp/job.pid; exec sleep 300' >/dev/null 2>&1 < /dev/null &")
    conn.disconnect()
    time.sleep(0.3)
    with open(os.path.join(double.state_dir, 'tmp', 'job.pid'), encoding='utf-8') as handle:
        pid = int(handle.read())
    assert alive(pid)
    double.stop()
    assert not alive(pid), 'a detached job of the switch ends with it'
