"""The forwarding table each double prints (EOS `show ip route` over eAPI, Cumulus Linux `ip -j -4 route show table
main` over SSH; SONiC's `show ip route json` is in test_sonic_double.py, where its FRR runs), read by the platform's
own parser: a BGP route to each remote VTEP over the established uplink sessions, none when they are down, and the
fault knob `routes` (a blackhole the design does not have) winning over BGP's route for its prefix."""

import json
import time

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms.eos import state as eos
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state import iproute2
from tests.doubles import faults
from tests.doubles.test_eos_double import GOLDEN, rendered
from tests.doubles.test_nvue_double import LEAF, cmd, exit_code, upload

VTEP = '10.254.16.3'


def _by_dst(routes):
    return {route['dst'].split('/')[0] if route['dst'].endswith('/32') else route['dst']: route for route in routes}


def test_eos_show_ip_route_follows_sessions_and_the_routes_knob(eos_double):
    from napalm import get_network_driver
    device, server = eos_double('leaf001', world={'lldp': {'Ethernet2/1': {'device': 'spine001', 'port': 'Ethernet1/1'}},
                                                  'remote_vteps': [VTEP]})
    device.faults.set(convergence_s=0)
    driver = get_network_driver('eos')('127.0.0.1', device.username, device.password, timeout=10,
                                       optional_args={'port': server.port})
    driver.open()
    driver.load_replace_candidate(config=rendered(next(item for item in GOLDEN if item.endswith('eos_small/leaf001.cfg'))))
    driver.commit_config()
    driver.close()

    def table():
        return _by_dst(eos.parse_ip_route([device.run_cmds(['show ip route'])[0]]))

    route = table()[VTEP]
    assert (route['type'], route['protocol']) == ('unicast', 'bgp')
    assert route['nexthops'] == [{'gateway': '10.0.0.0', 'dev': 'Ethernet2/1'}, {'gateway': '10.0.0.2', 'dev': 'Ethernet2/5'}]
    assert table()['10.0.0.0/31']['nexthops'] == [{'gateway': None, 'dev': 'Ethernet2/1'}]
    device.faults.set(convergence_s=0, interfaces_down=['Ethernet2/1'])
    time.sleep(0.05)
    assert table()[VTEP]['nexthops'] == [{'gateway': '10.0.0.2', 'dev': 'Ethernet2/5'}]
    assert '10.0.0.0/31' not in table()
    device.faults.set(convergence_s=0, routes=[{'dst': VTEP + '/32', 'type': 'blackhole'}])
    time.sleep(0.05)
    assert table()[VTEP] == {'dst': VTEP + '/32', 'type': 'blackhole', 'protocol': 'static', 'metric': 0, 'nexthops': []}


def test_cumulus_kernel_table_follows_sessions_and_the_routes_knob(ssh_double):
    double, connect = ssh_double('leaf001', 'nvue', world={
        'lldp': {'swp2s0': {'device': 'spine001', 'port': 'swp1s0'}}, 'remote_vteps': [VTEP]})
    faults.write(double.state_dir, convergence_s=0)
    conn = connect()
    cmd(conn, 'nv config replace ' + upload(conn, LEAF, 'leaf001.yaml'))
    cmd(conn, 'nv config apply -y')

    def table():
        return _by_dst(iproute2.parse_ip_route(cmd(conn, 'ip -j -4 route show table main')))

    route = table()[VTEP]
    assert (route['type'], route['protocol']) == ('unicast', 'bgp')
    assert sorted(hop['dev'] for hop in route['nexthops']) == ['swp2s0', 'swp2s1']
    faults.write(double.state_dir, convergence_s=0, bgp_stuck=['*'])
    assert VTEP not in table(), 'no session, no BGP route'
    faults.write(double.state_dir, convergence_s=0, routes=[{'dst': VTEP, 'type': 'blackhole'}])
    assert table()[VTEP] == {'dst': VTEP, 'type': 'blackhole', 'protocol': 'boot', 'metric': None, 'nexthops': []}
    code, output = exit_code(conn, 'ip link show')
    assert (code, output.strip()) == (1, 'The NVUE double answers only ip -j -4 route show table main')
    assert json.loads(cmd(conn, 'ip -j -4 route show'))  # the main table is the default one
    conn.disconnect()
