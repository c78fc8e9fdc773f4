"""The SONiC SSH double driven by netmiko (real OpenSSH server, real netmiko 4.8, real FRR vtysh checks)."""

import contextlib
import json
import os
import time

import pytest
from netmiko import file_transfer

from tests.doubles import faults
from tests.unit.utils.platforms import golden
from tests.unit.utils.waiting import patient, stretch, wait_for

CONFIG_DB = golden('sonic', 'sonicsmall', 'leaf001', 'config_db.json')
FRR_CONF = golden('sonic', 'sonicsmall', 'leaf001', 'frr.conf')


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


def sn5600(ssh_double, name='leaf001', **facts):
    """A factory SONiC switch of the SN5600 switch model (the HwSKU the golden CONFIG_DB is for); its sessions know
    the switch's state directory (load() reads the detached reload's result there)."""
    from tests.doubles.fleet import switch_model_facts
    double, connect = ssh_double(name, 'sonic', **dict(switch_model_facts('nvidia-sn5600'), **facts))

    def connect_here(*args, **kwargs):
        conn = connect(*args, **kwargs)
        conn.aifabric_state_dir = double.state_dir
        return conn
    return double, connect_here


def deployable(conn, tmp_path, source=CONFIG_DB, change=None):
    """The golden CONFIG_DB as a deploy makes it the switch's target (platforms/sonic/render.py deploy_target), uploaded."""
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms.sonic.render import deploy_target
    with open(source, encoding='utf-8') as handle:
        target = deploy_target(running(conn), json.load(handle))
    if change:
        change(target)
    path = tmp_path / 'target.json'
    path.write_text(json.dumps(target))
    return upload(conn, str(path), 'target.json'), target


def reconnect(connect, deadline_s=30):
    """A new session once the switch takes one again (a reload restarts its management interface)."""
    until, last = time.time() + deadline_s, None
    while time.time() < until:
        try:
            return connect()
        except Exception as error:  # pylint: disable=broad-except  # refused while eth0 restarts
            last = error
            time.sleep(0.5)
    raise AssertionError('the switch took no session within %d s: %s' % (deadline_s, last))


def _whole_line(path):
    """The file's text once it ends with a newline, else '' (missing, or still being written)."""
    try:
        with open(path, encoding='utf-8') as handle:
            text = handle.read()
    except FileNotFoundError:
        return ''
    return text if text.endswith('\n') else ''


def load(conn, connect, tmp_path, source=CONFIG_DB, options='-y'):
    """The first deploy of a factory switch: the whole configuration loaded with `config reload -y FILE` (as ZTP
    does), detached from the session, which eth0's restart may end. Returns a session on the loaded switch."""
    path, target = deployable(conn, tmp_path, source)
    state_tmp = os.path.join(conn.aifabric_state_dir, 'tmp')
    with contextlib.suppress(FileNotFoundError):
        os.remove(os.path.join(state_tmp, 'reload.rc'))
    conn.write_channel("sudo setsid sh -c 'config reload %s %s >/tmp/reload.out 2>&1; echo $? >/tmp/reload.rc' "
                       "</dev/null >/dev/null 2>&1 &\n" % (options, path))
    # the shell creates reload.rc before it writes the code: wait for the whole line, not for the file
    assert wait_for(lambda: _whole_line(os.path.join(state_tmp, 'reload.rc')), time.time() + 120), 'the reload ended'
    code = _whole_line(os.path.join(state_tmp, 'reload.rc')).strip()
    with open(os.path.join(state_tmp, 'reload.out'), encoding='utf-8') as handle:
        assert code == '0', handle.read()
    with contextlib.suppress(Exception):
        conn.disconnect()
    conn = reconnect(connect)
    assert running(conn)['PFC_WD'] == target['PFC_WD']
    return conn


def test_a_factory_switch_runs_no_qos_no_buffers_no_watchdog(ssh_double):
    """config-setup factory: the t1 preset over init_cfg.json (the SONiC double's factory.py): no QoS maps, no buffer pools, no
    PFC_WD, default_pfcwd_status disable, the vendor's buffer model, bgp neighbours of the preset."""
    _double, connect = sn5600(ssh_double)
    conn = connect()
    factory = running(conn)
    for table in ('BUFFER_POOL', 'BUFFER_PROFILE', 'PFC_WD', 'PORT_QOS_MAP', 'DSCP_TO_TC_MAP', 'DEVICE_NEIGHBOR'):
        assert table not in factory, table
    metadata = factory['DEVICE_METADATA']['localhost']
    assert (metadata['buffer_model'], metadata['default_pfcwd_status'], metadata['type']) == (
        'dynamic', 'disable', 'LeafRouter')
    assert factory['BGP_NEIGHBOR']['10.0.0.1']['name'] == 'ARISTA01T2'
    assert factory['BGP_NEIGHBOR']['10.0.0.65']['asn'] == '64001', 'the second half are T0 peers'
    conn.disconnect()


def test_a_reload_while_swss_is_up_two_minutes_or_less_is_refused_unless_forced(ssh_double, tmp_path):
    """sonic-utilities config/main.py reload: without -f it refuses, before it stops anything, while swss has been
    active for 120 s or less (_swss_ready); the factory switch has been up longer, the load just restarted swss."""
    _double, connect = sn5600(ssh_double)
    conn = load(connect(), connect, tmp_path)
    loaded = running(conn)
    path, _target = deployable(conn, tmp_path)
    code, output = exit_code(conn, 'sudo config reload -y %s' % path)
    assert (code, output.strip()) == (1, 'SwSS container is not ready. Retry later or use -f to avoid system checks')
    assert running(conn) == loaded
    # -f skips the system checks (-f is --force here, not GCU's --format: the file stays the argument)
    conn = load(conn, connect, tmp_path, options='-y -f')
    assert running(conn) == loaded
    conn.disconnect()


def test_checkpoint_replace_rollback_and_save(ssh_double, tmp_path):
    double, connect = sn5600(ssh_double)
    conn = load(connect(), connect, tmp_path)
    factory = running(conn)
    assert cmd(conn, 'sudo config checkpoint before').endswith('Checkpoint created successfully.')
    assert json.loads(cmd(conn, 'config list-checkpoints')) == ['before']
    path, target = deployable(conn, tmp_path, change=_set('PORT', 'Ethernet0', {'description': 'day N'}))
    code, output = exit_code(conn, 'sudo config replace --dry-run ' + path)
    assert code == 0 and output.strip().startswith('** DRY RUN EXECUTION **') and running(conn) == factory
    code, output = exit_code(conn, 'sudo config replace ' + path)
    assert code == 0 and output.strip().endswith('Config replaced successfully.')
    assert running(conn) == target
    assert json.loads(cmd(conn, 'sonic-cfggen -d --print-data')) == running(conn)
    # Saved config is untouched until `config save -y`.
    with open(os.path.join(double.state_dir, 'etc', 'sonic', 'config_db.json'), encoding='utf-8') as handle:
        assert json.load(handle) != running(conn)
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


def _set(table, key, fields):
    return lambda target: target.setdefault(table, {}).setdefault(key, {}).update(fields)


LOADING = 'Data Loading Failed\nfailed to parse data tree: '  # sonic_yang_ext.py, libyang-python (libyang 3.12.2)


@pytest.mark.parametrize('change, error', [
    (_set('PORT', 'Ethernet0', {'mtu': '9999'}), LOADING + 'Unsatisfied range - value "9999" is out of the allowed range.'),
    (_set('PORT', 'Ethernet0', {'mtu': '99999'}), LOADING + 'Value "99999" is out of type uint16 min/max bounds.'),
    (_set('PORT', 'Ethernet0', {'admin_status': 'maybe'}), LOADING + 'Invalid enumeration value "maybe".'),
    (_set('VLAN_MEMBER', 'Vlan100|Ethernet999', {'tagging_mode': 'untagged'}),
     LOADING + 'Invalid leafref value "Ethernet999" - no target instance "/sonic-port:sonic-port/sonic-port:PORT/'
     'sonic-port:PORT_LIST/sonic-port:name" with the same value.'),
    (_set('PORT', 'Ethernet999', {'mtu': '9100'}), LOADING + 'Mandatory node "lanes" instance does not exist.'),
    (_set('PORT', 'Ethernet999', {'lanes': '3', 'speed': '100000'}), "'3' lane is used multiple times in PORT: "),
])
def test_invalid_config_db_is_refused_with_gcu_text_and_nothing_changes(ssh_double, tmp_path, change, error):
    _double, connect = sn5600(ssh_double)
    conn = load(connect(), connect, tmp_path)
    before = running(conn)
    path, _target = deployable(conn, tmp_path, change=change)
    code, output = exit_code(conn, 'sudo config replace ' + path)
    assert code == 2
    assert ('Failed to replace config\nUsage: config replace [OPTIONS] TARGET_FILE_PATH\nTry "config replace -h" for help.'
            '\n\nError: Given patch will produce invalid config. Error: ' + error) in output.strip()
    assert running(conn) == before
    conn.disconnect()


def test_a_sku_profile_of_another_release_stays_as_the_switch_has_it(ssh_double, tmp_path):
    """A switch whose SKU profiles are an earlier release's (egress_lossy_profile 4096 B / dynamic_th 3, sonic-utilities
    scripts/mellanox_buffer_migrator.py) takes a day-N deploy: the target keeps its profile, because GCU changes only
    dynamic_th and xoff of an existing profile and refuses a target that rewrites its size; the PGs and queues use our
    own profiles, which GCU adds whole."""
    _double, connect = sn5600(ssh_double)
    conn = load(connect(), connect, tmp_path)
    older = {'pool': 'egress_lossy_pool', 'size': '4096', 'dynamic_th': '3'}
    earlier = tmp_path / 'earlier.json'
    earlier.write_text(json.dumps({'BUFFER_PROFILE': {'egress_lossy_profile': older}}))
    cmd(conn, 'sudo config load -y ' + upload(conn, str(earlier), 'earlier.json'))  # no validation, a merge
    assert running(conn)['BUFFER_PROFILE']['egress_lossy_profile'] == older
    path, target = deployable(conn, tmp_path, change=_set('PORT', 'Ethernet0', {'description': 'day N'}))
    assert target['BUFFER_PROFILE']['egress_lossy_profile'] == older
    code, output = exit_code(conn, 'sudo config replace ' + path)
    assert code == 0, output
    after = running(conn)
    assert after['BUFFER_PROFILE']['egress_lossy_profile'] == older
    assert {row['profile'] for key, row in after['BUFFER_QUEUE'].items() if key.startswith('Ethernet0|')} == {
        'AIFABRIC_EGRESS_LOSSLESS', 'AIFABRIC_EGRESS_LOSSY'}
    # The rendered profile written over the switch's: refused, nothing changes.
    with open(CONFIG_DB, encoding='utf-8') as handle:
        rendered = json.load(handle)['BUFFER_PROFILE']['egress_lossy_profile']
    path, _target = deployable(conn, tmp_path, change=_set('BUFFER_PROFILE', 'egress_lossy_profile', rendered))
    code, output = exit_code(conn, 'sudo config replace ' + path)
    assert code == 2 and 'Error: Modification of BUFFER_PROFILE table is illegal' in output, output
    assert running(conn) == after
    conn.disconnect()


def test_field_operations_gcu_refuses(ssh_double, tmp_path):
    """BUFFER_POOL takes no change at all, PFC_WD changes only on the ASICs gcu_field_operation_validators.conf.json
    lists, Loopback0 cannot be removed."""
    _double, connect = sn5600(ssh_double)
    conn = load(connect(), connect, tmp_path)
    before = running(conn)
    path, _target = deployable(conn, tmp_path, change=_set('BUFFER_POOL', 'egress_lossless_pool', {'size': '1000'}))
    code, output = exit_code(conn, 'sudo config replace ' + path)
    assert code == 2 and 'Error: Modification of BUFFER_POOL table is illegal- validating function ' \
                         'generic_config_updater.field_operation_validators.rdma_config_update_validator returned False' in output
    for removed in ('/LOOPBACK_INTERFACE/Loopback0', '/PFC_WD/GLOBAL'):
        patch = tmp_path / 'remove.json'
        patch.write_text(json.dumps([{'op': 'remove', 'path': removed}]))
        code, output = exit_code(conn, 'sudo config apply-patch ' + upload(conn, str(patch), 'remove.json'))
        assert code == 2 and 'Error: Given patch operation is invalid. Operation: remove is illegal on field: %s' % removed \
            in output, output
    assert running(conn) == before
    conn.disconnect()
    # An ASIC GCU does not know: the watchdog cannot be changed through it.
    _other, connect = sn5600(ssh_double, 'leaf002', hwsku='ACS-SN9999')
    conn = load(connect(), connect, tmp_path, source=_with_hwsku(tmp_path, 'ACS-SN9999'))
    before = running(conn)
    path, _target = deployable(conn, tmp_path, source=str(tmp_path / 'hwsku.json'),
                               change=_set('PFC_WD', 'Ethernet0', {'detection_time': '300'}))
    code, output = exit_code(conn, 'sudo config replace ' + path)
    assert code == 2 and 'Error: Modification of PFC_WD table is illegal- validating function ' \
                         'generic_config_updater.field_operation_validators.rdma_config_update_validator returned False' in output
    assert running(conn) == before
    conn.disconnect()


def _with_hwsku(tmp_path, hwsku):
    with open(CONFIG_DB, encoding='utf-8') as handle:
        data = json.load(handle)
    data['DEVICE_METADATA']['localhost']['hwsku'] = hwsku
    path = tmp_path / 'hwsku.json'
    path.write_text(json.dumps(data))
    return str(path)


def test_tables_without_yang_and_old_releases_are_refused(ssh_double, tmp_path):
    _double, connect = ssh_double('leaf001', 'sonic')
    conn = connect()
    patch = tmp_path / 'unknown.json'
    patch.write_text(json.dumps([{'op': 'add', 'path': '/NOT_A_TABLE', 'value': {'x': {'y': '1'}}}]))
    code, output = exit_code(conn, 'sudo config apply-patch ' + upload(conn, str(patch), 'unknown.json'))
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
                                 {'op': 'replace', 'path': '/PORT/Ethernet4/admin_status', 'value': 'down'}]))
    output = cmd(conn, 'sudo config apply-patch ' + upload(conn, str(patch), 'patch.json'))
    assert output.endswith('Patch applied successfully.')
    assert cmd(conn, 'sonic-db-cli CONFIG_DB HGETALL "VLAN|Vlan200"') == "{'vlanid': '200'}"
    assert cmd(conn, 'sonic-db-cli CONFIG_DB HGET "PORT|Ethernet4" admin_status') == 'down'
    assert cmd(conn, 'sonic-db-cli CONFIG_DB KEYS "VLAN|*"') == 'VLAN|Vlan200'
    assert cmd(conn, 'sonic-db-cli APPL_DB HGET "PORT_TABLE:Ethernet0" oper_status') == 'up'
    assert cmd(conn, 'sonic-db-cli APPL_DB HGET "PORT_TABLE:Ethernet4" oper_status') == 'down'
    # sonic-db-dump: every key a glob matches in one call, each holding what sonic-db-cli HGETALL of it prints (redisdl
    # ends its JSON without a newline: echo one, or the prompt would follow on the same line)
    for db, pattern in (('CONFIG_DB', 'VLAN*'), ('APPL_DB', 'PORT_TABLE:Ethernet[0-9]'), ('COUNTERS_DB', 'COUNTERS_*')):
        dump = json.loads(cmd(conn, "sonic-db-dump -n %s -k '%s'; echo" % (db, pattern)))
        keys = cmd(conn, "sonic-db-cli %s KEYS '%s'" % (db, pattern)).split()
        assert sorted(dump) == sorted(keys) and keys
        for key in keys[:3]:
            assert (dump[key]['type'], dump[key]['ttl']) == ('hash', -0.001)
            assert repr(dump[key]['value']) == cmd(conn, "sonic-db-cli %s HGETALL '%s'" % (db, key))
    assert cmd(conn, "sonic-db-dump -n APPL_DB -k 'NO_SUCH_TABLE:*'; echo") == '{}'
    assert cmd(conn, 'sonic-db-dump -n APPL_DB -k "PORT_TABLE:Ethernet0" -y; echo').startswith('{\n  "PORT_TABLE:Ethernet0": {')
    assert exit_code(conn, 'sonic-db-dump -n NO_DB')[0] == 1 and exit_code(conn, 'sonic-db-dump -x')[0] == 2
    conn.disconnect()


def test_the_bgp_container_has_no_frr_reload_and_follows_docker_init(ssh_double, tmp_path):
    """The image's bgp container: FRR without frr-pythontools (rules/docker-fpm-frr.mk), so no frr-reload.py; its
    files follow docker_init.sh's mode at each start; FRR itself (real daemons) prints the running configuration,
    bgpcfgd's set-src included (managers_setsrc.py)."""
    _double, connect = sn5600(ssh_double)
    conn = connect()
    assert cmd(conn, 'cat /etc/sonic/frr/vtysh.conf') == 'no service integrated-vtysh-config'
    factory = cmd(conn, "vtysh -c 'show running-config'")
    assert 'router bgp 65100' in factory and 'frr version 8.4.4' in factory, 'separated mode: FRR made from CONFIG_DB'
    assert 'route-map RM_SET_SRC permit 10\n set src 10.1.0.1' in factory, "bgpcfgd's set-src of Loopback0"
    frr_path = upload(conn, FRR_CONF, 'frr.conf')
    for command in ('/usr/lib/frr/frr-reload.py --test ', 'python3 /usr/lib/frr/frr-reload.py --test '):
        code, output = exit_code(conn, 'sudo docker exec bgp ' + command + frr_path)
        assert code in (126, 2) and 'frr-reload.py' in output and 'No such file' in output.replace('no such', 'No such')
    conn = load(conn, connect, tmp_path)  # split-unified from CONFIG_DB, frr.conf in place before the restart
    assert cmd(conn, 'cat /etc/sonic/frr/vtysh.conf') == 'service integrated-vtysh-config'
    with open(FRR_CONF, encoding='utf-8') as handle:
        rendered = handle.read()
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms.sonic import frr_delta
    assert frr_delta.equal(cmd(conn, "vtysh -c 'show running-config'"), rendered) is False, 'no frr.conf was placed'
    conn.disconnect()


def test_frr_changes_through_vtysh_in_the_container_and_bgp_state(ssh_double, tmp_path):
    """`vtysh -f` and configuration commands run in real FRR: what it refuses changes nothing, what it takes is what
    `show running-config` prints; the BGP and EVPN show commands follow the running configuration and the knobs."""
    double, connect = sn5600(ssh_double, world={'remote_vteps': ['10.254.16.2'],
                                                'lldp': {'Ethernet8': {'device': 'spine001', 'port': 'Ethernet0'}}})
    faults.write(double.state_dir, convergence_s=12)  # sessions come up 12 s after they are configured
    conn = connect()
    frr_path = upload(conn, FRR_CONF, 'frr.conf')
    cmd(conn, 'sudo cp %s /etc/sonic/frr/frr.conf' % frr_path)
    conn = load(conn, connect, tmp_path)
    with open(FRR_CONF, encoding='utf-8') as handle:
        rendered = handle.read()
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms.sonic import frr_delta
    before = cmd(conn, "vtysh -c 'show running-config'")
    assert frr_delta.equal(before, rendered), frr_delta.diff(before, rendered)
    change = tmp_path / 'change.conf'
    change.write_text('router bgp 4200000000\n address-family ipv4 unicast\n  maximum-paths 8\n exit-address-family\nexit\n')
    code, output = exit_code(conn, 'sudo docker exec -i bgp vtysh -f ' + upload(conn, str(change), 'change.conf'))
    assert (code, output.strip()) == (0, '')
    assert '  maximum-paths 8\n' in cmd(conn, "vtysh -c 'show running-config'")
    code, output = exit_code(conn, "vtysh -c 'configure terminal' -c 'router bgp 4200000000' -c 'neighbor 10.0.0.0 bogus'")
    assert code != 0 and '% Unknown command' in output
    cmd(conn, 'sudo systemctl restart bgp')  # every session starts over; `vtysh -f` above left them up
    restarted = time.time()
    summary = json.loads(cmd(conn, "vtysh -c 'show bgp summary json'"))
    assert sorted(summary['ipv4Unicast']['peers']) == ['10.0.0.0', '10.0.0.2']
    assert summary['ipv4Unicast']['peers']['10.0.0.0']['state'] == 'Connect', time.time() - restarted

    def evpn():
        return json.loads(cmd(conn, "docker exec bgp vtysh -c 'show bgp vrf all summary json'"))

    assert wait_for(lambda: evpn()['default']['l2VpnEvpn']['peers']['10.0.0.2']['state'] == 'Established',
                    restarted + 60)
    summary = evpn()
    peer = summary['default']['l2VpnEvpn']['peers']['10.0.0.2']
    assert (peer['state'], peer['remoteAs'], peer['desc'], peer['idType']) == ('Established', 65100, 'spine002:Ethernet0', 'ipv4')
    vnis = json.loads(cmd(conn, "vtysh -c 'show evpn vni json'"))
    assert vnis['10100']['remoteVteps'] == ['10.254.16.2'] and vnis['10100']['type'] == 'L2'

    def routes():
        from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.frrouting import vtysh
        return {item['dst']: item for item in vtysh.parse_ip_route(cmd(conn, "docker exec bgp vtysh -c 'show ip route json'"))}
    assert ['Ethernet8', 'spine001', 'Ethernet0', 'BR'] in [line.split() for line in cmd(conn, 'show lldp table').splitlines()]
    route = routes()['10.254.16.2/32']  # zebra's installed route to the remote VTEP: what fpmsyncd programs
    assert (route['type'], route['protocol']) == ('unicast', 'bgp')
    assert sorted(hop['gateway'] for hop in route['nexthops']) == ['10.0.0.0', '10.0.0.2']
    # A link down takes its session down; a stuck session never comes up.
    faults.write(double.state_dir, convergence_s=0, interfaces_down=['Ethernet8'], bgp_stuck=['10.0.0.2'])
    peers = json.loads(cmd(conn, "vtysh -c 'show bgp summary json'"))['ipv4Unicast']['peers']
    assert (peers['10.0.0.0']['state'], peers['10.0.0.2']['state']) == ('Active', 'Active')
    assert 'Ethernet8' not in cmd(conn, 'show lldp table')
    assert '10.254.16.2/32' not in routes(), 'no session, no BGP route'
    faults.write(double.state_dir, convergence_s=0, routes=[{'dst': '10.254.16.2/32', 'type': 'blackhole'}])
    assert routes()['10.254.16.2/32'] == {'dst': '10.254.16.2/32', 'type': 'blackhole', 'protocol': 'static',
                                          'metric': 0, 'nexthops': []}
    conn.disconnect()


def test_counters_follow_the_fault_knobs(ssh_double, tmp_path):
    double, connect = sn5600(ssh_double)
    conn = load(connect(), connect, tmp_path)
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


def test_confirm_timer_reverts_after_the_session_drops(ssh_double, tmp_path):
    """A confirm timer on SONiC (systemd-run) rolls back when the manager never comes back."""
    double, connect = sn5600(ssh_double)
    conn = load(connect(), connect, tmp_path)
    before = running(conn)
    cmd(conn, 'sudo config checkpoint pre-deploy')
    armed_at = time.time()
    # 15 s: the commit, the cut and a new session all happen before it fires, also on a loaded machine
    armed = cmd(conn, 'sudo systemd-run --on-active=15 --unit=aifabric-confirm --collect config rollback pre-deploy')
    assert armed == 'Running timer as unit: aifabric-confirm.timer\nWill run service as unit: aifabric-confirm.service'
    path, target = deployable(conn, tmp_path, change=_set('PORT', 'Ethernet0', {'description': 'day N'}))
    faults.write(double.state_dir, drop_after_commit=True)
    with pytest.raises(Exception):  # the session dies right after the commit; netmiko waits for output in vain
        cmd(conn, 'sudo config replace ' + path, read_timeout=5)
    assert not conn.remote_conn.get_transport().is_active(), 'the SSH connection is gone'
    faults.clear(double.state_dir)
    conn = connect()
    assert running(conn) != before and time.time() - armed_at < 15
    # The rollback the timer starts is a process of its own, which a loaded machine runs late.
    assert wait_for(lambda: running(conn) == before, armed_at + 15 + 30 * stretch()), \
        'the timer rolled the switch back to its checkpoint'
    # systemd keeps an elapsed timer loaded and active: "is the timer active?" does not say whether it fired.
    assert cmd(conn, 'systemctl is-active aifabric-confirm.timer') == 'active'
    assert cmd(conn, 'systemctl show aifabric-confirm.timer -p SubState') == 'SubState=elapsed'
    code, output = exit_code(conn, 'sudo systemd-run --on-active=3 --unit=aifabric-confirm config rollback pre-deploy')
    assert code == 1 and 'Unit aifabric-confirm.timer was already loaded' in output
    cmd(conn, 'sudo systemctl stop aifabric-confirm.timer')
    # Confirmed in time: stopping the timer keeps the new configuration.
    armed_at = time.time()
    cmd(conn, 'sudo systemd-run --on-active=10 --unit=aifabric-confirm config rollback pre-deploy')
    cmd(conn, 'sudo config replace ' + path)
    cmd(conn, 'sudo systemctl stop aifabric-confirm.timer')
    assert time.time() - armed_at < 10 and cmd(conn, 'systemctl list-timers') == ''
    time.sleep(max(0, armed_at + 10.3 - time.time()))
    assert running(conn) == target
    conn.disconnect()


def test_a_failed_transient_service_stays_loaded_unless_collected(ssh_double):
    _double, connect = ssh_double('leaf001', 'sonic')
    conn = connect()
    cmd(conn, 'sudo systemd-run --on-active=1 --unit=kept false')
    cmd(conn, 'sudo systemd-run --on-active=1 --unit=collected --collect false')
    time.sleep(1.6)
    assert cmd(conn, 'systemctl is-active kept.service') == 'failed'
    assert cmd(conn, 'systemctl is-active collected.service') == 'inactive'
    cmd(conn, 'sudo systemctl stop kept.timer collected.timer')
    code, output = exit_code(conn, 'sudo systemd-run --on-active=1 --unit=kept true')
    assert code == 1 and 'already loaded' in output, 'the failed service still holds the name'
    assert exit_code(conn, 'sudo systemd-run --on-active=1 --unit=collected true')[0] == 0
    cmd(conn, 'sudo systemctl reset-failed kept.service')
    assert exit_code(conn, 'sudo systemd-run --on-active=1 --unit=kept true')[0] == 0
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
    assert cmd(conn, "sudo docker exec bgp vtysh -c 'show version'").startswith('FRRouting 8.4.4 (sonic)')
    assert exit_code(conn, 'echo changed | sudo tee /etc/motd >/dev/null')[0] == 0
    assert cmd(conn, 'cat /etc/motd') == 'changed'
    with open(os.path.join(double.state_dir, 'etc-upper', 'motd'), encoding='utf-8') as handle:
        assert handle.read() == 'changed\n'
    # In split-unified mode the bgp container restarts from /etc/sonic/frr/frr.conf.
    patch = '[{"op": "add", "path": "/DEVICE_METADATA/localhost/docker_routing_config_mode", "value": "split-unified"}]'
    cmd(conn, "echo '%s' > /tmp/mode.json && sudo config apply-patch /tmp/mode.json" % patch)
    cmd(conn, 'sudo cp /etc/sonic/frr/aifabric/run1/frr.conf /etc/sonic/frr/frr.conf && sudo systemctl restart bgp')
    assert 'router bgp 4200000000' in cmd(conn, "vtysh -c 'show running-config'")
    # The event, not a guess at how long it takes: the session starts the detached job and waits until the job has
    # written its pid (a loaded machine runs it late; 15 s were not enough at load 15-20), then ends.
    started = cmd(conn, "(setsid nohup sh -c 'echo $$ > /tmp/job.pid; exec sleep 300' >/dev/null 2>&1 < /dev/null &); "
                        "while [ ! -s /tmp/job.pid ]; do sleep 0.05; done; cat /tmp/job.pid",
                  read_timeout=patient(30) - time.time())
    conn.disconnect()
    pid = int(started)
    assert alive(pid)
    double.stop()
    assert not alive(pid), 'a detached job of the switch ends with it'


def _traditional(tmp_path, cable='10m'):
    """The golden SN5600 configuration in the traditional model as the driver before issue 35 rendered it: static
    pools, a lossless profile named as buffermgrd names its own (pg_lossless_<speed>_<cable>_profile), `cable` on
    Ethernet0 (pod1k's host cables are 10 m; ACS-SN5600's pg_profile_lookup.ini has rows for 5, 40 and 300 m only)."""
    with open(CONFIG_DB, encoding='utf-8') as handle:
        data = json.load(handle)
    data['DEVICE_METADATA']['localhost']['buffer_model'] = 'traditional'
    for name, fields in data['BUFFER_POOL'].items():
        fields.setdefault('size', '52161690')
    for table in ('LOSSLESS_TRAFFIC_PATTERN', 'DEFAULT_LOSSLESS_BUFFER_PARAMETER'):
        data.pop(table)
    name = 'pg_lossless_400000_%s_profile' % cable
    data['BUFFER_PROFILE'][name] = {'pool': 'ingress_lossless_pool', 'size': '261120', 'xon': '19456',
                                    'xoff': '241664', 'dynamic_th': '0'}
    data['CABLE_LENGTH']['AZURE']['Ethernet0'] = cable
    for key in data['BUFFER_PG']:
        if data['BUFFER_PG'][key]['profile'] == 'NULL':
            data['BUFFER_PG'][key] = {'profile': name}
    path = tmp_path / 'traditional.json'
    path.write_text(json.dumps(data))
    return str(path)


def _flap(conn, port):
    cmd(conn, 'sudo config interface shutdown %s' % port)
    down = running(conn)
    cmd(conn, 'sudo config interface startup %s' % port)
    return down, running(conn)


def test_traditional_buffermgrd_on_nvidia_loses_a_pg_whose_cable_has_no_lookup_row(ssh_double, tmp_path):
    """sonic-swss cfgmgr/buffermgr.cpp, traditional model on Mellanox: admin down deletes a lossless PG whose profile
    is named pg_lossless_<speed>_<cable>_profile; admin up re-adds it only from a pg_profile_lookup.ini row. A 10 m
    cable has none on ACS-SN5600: the port keeps PFC without headroom (issue 35 item 6)."""
    _double, connect = sn5600(ssh_double)
    conn = load(connect(), connect, tmp_path, source=_traditional(tmp_path))
    assert running(conn)['BUFFER_PG']['Ethernet0|3'] == {'profile': 'pg_lossless_400000_10m_profile'}
    down, up = _flap(conn, 'Ethernet0')
    assert 'Ethernet0|3' not in down['BUFFER_PG'] and 'Ethernet0|3' not in up['BUFFER_PG']
    assert up['PORT_QOS_MAP']['Ethernet0']['pfc_enable'] == '3', 'PFC still on, no headroom'
    # a 40 m cable has a row: the PG comes back, on the profile of that name (ours, reused)
    conn.disconnect()
    _other, connect = sn5600(ssh_double, 'leaf002')
    conn = load(connect(), connect, tmp_path, source=_traditional(tmp_path, '40m'))
    down, up = _flap(conn, 'Ethernet0')
    assert 'Ethernet0|3' not in down['BUFFER_PG']
    assert up['BUFFER_PG']['Ethernet0|3'] == {'profile': 'pg_lossless_400000_40m_profile'}
    conn.disconnect()


def test_the_dynamic_model_keeps_the_pg_and_recomputes_it_after_a_flap(ssh_double, tmp_path):
    """NVIDIA's dynamic model (what the collection renders for Spectrum): CONFIG_DB keeps the NULL PG; buffermgrd
    computes its headroom in APPL_DB for an up port, removes it while the port is down, computes it again at up."""
    _double, connect = sn5600(ssh_double)
    conn = load(connect(), connect, tmp_path)
    key = 'BUFFER_PG_TABLE:Ethernet0:3'
    profile = cmd(conn, 'sonic-db-cli APPL_DB HGET %s profile' % key)
    assert profile == 'pg_lossless_400000_5m_profile'
    xoff = int(cmd(conn, 'sonic-db-cli APPL_DB HGET BUFFER_PROFILE_TABLE:%s xoff' % profile))
    assert xoff > 0
    cmd(conn, 'sudo config interface shutdown Ethernet0')
    assert running(conn)['BUFFER_PG']['Ethernet0|3'] == {'profile': 'NULL'}
    assert cmd(conn, 'sonic-db-cli APPL_DB EXISTS %s' % key) == '0'
    cmd(conn, 'sudo config interface startup Ethernet0')
    assert cmd(conn, 'sonic-db-cli APPL_DB HGET %s profile' % key) == profile
    assert int(cmd(conn, 'sonic-db-cli APPL_DB HGET BUFFER_PROFILE_TABLE:%s xoff' % profile)) == xoff
    conn.disconnect()
