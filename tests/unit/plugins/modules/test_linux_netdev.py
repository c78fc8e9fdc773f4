"""linux_netdev logic (validate, parse `ip -j`, plan, boot script) on real `ip -j` output captured from the lab.

fixtures/linux_netdev/fresh/<node>: a node right after `containerlab deploy` (before any configuration);
fixtures/linux_netdev/configured/<node>: the same node after playbooks/site.yml.
The module itself runs against the real iproute2 in a network namespace of its own (check mode changes nothing).
"""

import copy
import ipaddress
import json
import os
import shutil
import subprocess

import jinja2
import pytest
import yaml

from tests.roles.fakehw.runner import run_module

from ansible_collections.aifabric.fabric.plugins.module_utils import linux_netdev as netdev
from ansible_collections.aifabric.fabric.plugins.modules import linux_netdev
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_model
from tests.unit.utils.paths import ROOT

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, 'fixtures', 'linux_netdev')
DESIGN = design_from_file(os.path.join(ROOT, 'fabrics', 'lab.yml'))


def captured(kind, node):
    def load(name):
        with open(os.path.join(FIXTURES, kind, node, name + '.json'), encoding='utf-8') as handle:
            return json.load(handle)
    return netdev.parse_state(load('addr'), load('route4') + load('route6'), load('rule4') + load('rule6'))


def switch_state(node):
    state = json.loads(render_model(DESIGN.device(node))['interfaces.json'])
    state.pop('sysctl')
    return netdev.validate(state)


def host_state(node, policy_routing=True):
    """The state the host_network role builds: its template rendered with the host model."""
    path = os.path.join(ROOT, 'roles', 'host_network', 'templates')
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(path), trim_blocks=True, lstrip_blocks=True)
    template = env.get_template('rails.yml.j2')
    text = template.render(host_network_model=DESIGN.device(node), host_network_policy_routing=policy_routing)
    return netdev.validate(yaml.safe_load(text))


# ------------------------------------------------------------------------------------------------ idempotence
@pytest.mark.parametrize('node', ['leaf001', 'spine001'])
def test_configured_switch_needs_no_command(node):
    assert netdev.plan(switch_state(node), captured('configured', node)) == []


def test_configured_host_needs_no_command():
    assert netdev.plan(host_state('gpu0001'), captured('configured', 'gpu0001')) == []


def test_summary_equals_desired_view_when_nothing_differs():
    desired = switch_state('leaf001')
    assert netdev.summarize(desired, captured('configured', 'leaf001')) == netdev.desired_view(desired)
    desired = host_state('gpu0001')
    assert netdev.summarize(desired, captured('configured', 'gpu0001')) == netdev.desired_view(desired)


# ------------------------------------------------------------------------------------------------ fresh nodes
def test_fresh_leaf_plan():
    commands = [' '.join(command) for command in netdev.plan(switch_state('leaf001'), captured('fresh', 'leaf001'))]
    assert commands == [
        'link add br100 type bridge stp_state 0',
        'link add vxlan10100 type vxlan id 10100 local 10.254.16.1 dstport 4789 nolearning tos inherit',
        'address add 10.254.0.1/32 dev lo',
        'address add 10.254.16.1/32 dev lo',
        'link set dev br100 mtu 9050',
        'link set dev br100 up',
        'link set dev vxlan10100 mtu 9050',
        'link set dev vxlan10100 master br100',
        'link set dev vxlan10100 type bridge_slave learning off',
        'link set dev vxlan10100 up',
        'link set dev eth1 master br100',
        'link set dev eth2 master br100',
        'address add 10.0.0.1/31 dev eth3',
        'address add 10.0.0.3/31 dev eth4',
    ]


def test_fresh_host_plan():
    commands = [' '.join(command) for command in netdev.plan(host_state('gpu0001'), captured('fresh', 'gpu0001'))]
    assert commands == [
        'link set dev eth1 mtu 9000',
        'address add 10.100.0.10/24 dev eth1',
        'link set dev eth2 mtu 9000',
        'address add 10.101.0.10/24 dev eth2',
        'route replace 10.100.0.0/24 dev eth1 src 10.100.0.10 scope link table 100',
        'route replace 10.101.0.0/24 dev eth2 src 10.101.0.10 scope link table 101',
        'rule add from 10.100.0.10/32 table 100 priority 1000',
        'rule add from 10.101.0.10/32 table 101 priority 1001',
    ]


def test_fresh_nodes_parse_as_containerlab_made_them():
    leaf = captured('fresh', 'leaf001')['links']
    # containerlab creates the veths with the topology's link MTU; eth0 is the management interface.
    assert {name: link['mtu'] for name, link in leaf.items()} == {
        'lo': 65536, 'eth0': 1500, 'eth1': 9100, 'eth2': 9100, 'eth3': 9100, 'eth4': 9100}
    assert leaf['eth0']['addresses'] == ['172.31.100.10/24']
    assert leaf['lo']['addresses'] == []  # 127.0.0.1 is host scope: never managed


# ------------------------------------------------------------------------------------------------ drift
def test_drift_is_corrected_with_the_smallest_commands():
    current = copy.deepcopy(captured('configured', 'leaf001'))
    links = current['links']
    links['br100']['mtu'] = 1500
    links['eth4']['addresses'] = []
    links['eth3']['addresses'].append('192.0.2.1/24')
    links['vxlan10100']['bridge_slave']['learning'] = True
    links['eth2']['master'] = None
    links['lo']['addresses'].remove('10.254.16.1/32')
    commands = [' '.join(command) for command in netdev.plan(switch_state('leaf001'), current)]
    assert commands == [
        'address add 10.254.16.1/32 dev lo',
        'link set dev br100 mtu 9050',
        'link set dev vxlan10100 type bridge_slave learning off',
        'link set dev eth2 master br100',
        'address del 192.0.2.1/24 dev eth3',
        'address add 10.0.0.3/31 dev eth4',
    ]


def test_changed_vxlan_parameters_recreate_the_device():
    current = copy.deepcopy(captured('configured', 'leaf001'))
    current['links']['vxlan10100']['vxlan']['local'] = '10.254.16.99'
    commands = [' '.join(command) for command in netdev.plan(switch_state('leaf001'), current)]
    assert commands[:2] == ['link del vxlan10100',
                            'link add vxlan10100 type vxlan id 10100 local 10.254.16.1 dstport 4789 nolearning tos inherit']
    assert 'link set dev vxlan10100 master br100' in commands and 'link set dev vxlan10100 up' in commands


def test_purge_removes_unlisted_overlay_devices_only():
    current = copy.deepcopy(captured('configured', 'leaf001'))
    current['links']['br999'] = dict(current['links']['br100'], name='br999')
    current['links']['vxlan10999'] = dict(current['links']['vxlan10100'], name='vxlan10999', master='br999')
    desired = switch_state('leaf001')
    assert netdev.plan(desired, current) == []
    assert [' '.join(command) for command in netdev.plan(desired, current, purge=True)] == [
        'link del br999', 'link del vxlan10999']


def test_owned_routing_tables_and_rules_are_exclusive():
    current = copy.deepcopy(captured('configured', 'gpu0001'))
    current['routes'].append({'to': '10.200.0.0/16', 'via': '10.100.0.1', 'dev': 'eth1', 'table': 100})
    current['routes'].append({'to': '10.201.0.0/16', 'via': '172.31.100.1', 'dev': 'eth0', 'table': 254})
    current['rules'].append({'priority': 1005, 'from': '10.100.0.99/32', 'table': 100})
    current['rules'].append({'priority': 2000, 'from': '10.9.9.9/32', 'table': 300})
    commands = [' '.join(command) for command in netdev.plan(host_state('gpu0001'), current)]
    # Tables 100/101 belong to the rails; main and table 300 are left alone.
    assert commands == ['route del 10.200.0.0/16 via 10.100.0.1 dev eth1 table 100',
                        'rule del from 10.100.0.99/32 table 100 priority 1005']


def test_without_policy_routing_the_rail_tables_are_not_touched():
    desired = host_state('gpu0001', policy_routing=False)
    assert desired['routes'] == [] and desired['rules'] == []
    assert netdev.plan(desired, captured('configured', 'gpu0001')) == []


def test_missing_physical_device_fails_before_any_command():
    desired = netdev.validate({'links': [{'name': 'eth9', 'mtu': 9000}, {'name': 'br1', 'kind': 'bridge'}]})
    with pytest.raises(netdev.StateError) as error:
        netdev.plan(desired, captured('fresh', 'gpu0001'))
    assert error.value.problems == ['links (eth9): the device does not exist (only bridge, vxlan and vrf links are created)']


def test_mac_address_is_managed_when_given():
    current = captured('configured', 'leaf001')
    state = json.loads(render_model(DESIGN.device('leaf001'))['interfaces.json'])
    state.pop('sysctl')
    state['links'][1]['mac'] = '02:00:00:00:01:01'
    commands = [' '.join(command) for command in netdev.plan(netdev.validate(state), current)]
    assert commands == ['link set dev br100 address 02:00:00:00:01:01']


# ------------------------------------------------------------------------------------------------ validate
def test_every_problem_is_reported_at_once():
    with pytest.raises(netdev.StateError) as error:
        netdev.validate({
            'links': [
                {'name': 'eth1', 'mtu': 20, 'addresses': ['10.0.0.1'], 'colour': 'red'},
                {'name': 'vx1', 'kind': 'vxlan', 'master': 'br9'},
                {'name': 'br1', 'kind': 'switch'},
                {'name': 'eth1'},
                {'name': 'averyveryverylongname'},
                {'name': 'eth2', 'master': 'eth1', 'mac': 'zz'},
            ],
            'routes': [{'to': 'nowhere', 'dev': 'eth1'}, {'to': '10.0.0.0/8'}],
            'rules': [{'from': '10.0.0.1', 'table': 100}],
            'extra': 1,
        })
    problems = error.value.problems
    expected = [
        'extra: unknown key',
        'links[0] (eth1): unknown key colour',
        'links[0] (eth1).mtu: 20 must be between 68 and 65535',
        "links[0] (eth1).addresses[0]: '10.0.0.1' needs a prefix length",
        'links[1] (vx1).vxlan: a vxlan link needs vxlan.id and vxlan.local',
        'links[2] (br1): kind must be one of vrf, bridge, vxlan',
        'links[3] (eth1): listed twice',
        'links[4] (averyveryverylongname): name must be 1-15 characters',
        "links[5] (eth2).mac: 'zz' is not a MAC address",
        'links (vx1).master: br9 is not a listed link',
        'links (eth2).master: eth1 must be a bridge or vrf link',
        "routes[0].to: 'nowhere' is not a network",
        'routes[1]: needs via or dev',
        'rules[0].priority: is required',
    ]
    for text in expected:
        assert any(problem.startswith(text) for problem in problems), (text, problems)
    assert len(problems) == len(expected)


def test_validate_normalizes_addresses_and_tables():
    desired = netdev.validate({
        'links': [{'name': 'eth1', 'addresses': ['10.0.0.3/31', '10.0.0.3/31', '2001:DB8::1/64']}],
        'routes': [{'to': '10.0.0.3/31', 'dev': 'eth1', 'table': 'main'}],
        'rules': [{'from': '10.0.0.3', 'table': '100', 'priority': 10}],
    })
    assert desired['links'][0]['addresses'] == ['10.0.0.3/31', '2001:db8::1/64']
    assert desired['routes'] == [{'to': '10.0.0.2/31', 'dev': 'eth1', 'table': 254}]
    assert desired['rules'] == [{'from': '10.0.0.3/32', 'table': 100, 'priority': 10}]


# ------------------------------------------------------------------------------------------------ boot file
def test_boot_script_rebuilds_the_leaf_from_scratch():
    lines = netdev.boot_script(switch_state('leaf001'))
    assert lines[:2] == ['link add br100 type bridge stp_state 0',
                         'link add vxlan10100 type vxlan id 10100 local 10.254.16.1 dstport 4789 nolearning tos inherit']
    assert 'address replace 10.254.16.1/32 dev lo' in lines
    assert 'link set dev eth3 mtu 9100' in lines and 'link set dev eth3 up' in lines
    assert not [line for line in lines if line.startswith('address add')]


def test_boot_script_of_a_host_has_its_policy_routing():
    lines = netdev.boot_script(host_state('gpu0001'))
    assert 'rule add from 10.100.0.10/32 table 100 priority 1000' in lines
    assert 'route replace 10.101.0.0/24 dev eth2 src 10.101.0.10 scope link table 101' in lines


def test_routed_host_rails_route_via_their_leaf():
    """hosts.attachment routed: a /31 per rail; the rail table holds the /31 and the fabric's host pool via the leaf."""
    design = design_from_file(os.path.join(ROOT, 'tests', 'unit', 'fixtures', 'intents', 'frr_routed.yml'))
    model = design.device('gpu0001')
    path = os.path.join(ROOT, 'roles', 'host_network', 'templates')
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(path), trim_blocks=True, lstrip_blocks=True)
    text = env.get_template('rails.yml.j2').render(host_network_model=model, host_network_policy_routing=True)
    desired = netdev.validate(yaml.safe_load(text))
    rail = model['rails'][0]
    assert desired['links'][0] == {'name': 'eth1', 'kind': None, 'master': None, 'mtu': 9000, 'state': 'up',
                                   'addresses': [rail['address']]}
    assert {'to': str(ipaddress.ip_interface(rail['address']).network), 'dev': 'eth1', 'src': rail['ip'],
            'table': rail['table'], 'scope': 'link'} in desired['routes']
    assert {'to': '10.128.0.0/13', 'via': rail['gateway'], 'dev': 'eth1', 'src': rail['ip'],
            'table': rail['table']} in desired['routes']


# ------------------------------------------------------------------ the module itself, in a real network namespace
MODULE_STATE = {
    'links': [{'name': 'br-ut', 'kind': 'bridge', 'mtu': 9000, 'state': 'up', 'addresses': ['10.250.0.1/24']}],
    'routes': [{'to': '10.251.0.0/24', 'via': '10.250.0.2', 'table': 100}],
    'rules': [{'from': '10.250.0.0/24', 'table': 100, 'priority': 1000}],
}


@pytest.fixture
def namespace(tmp_path):
    """A fresh network namespace and a bin directory whose `ip` runs the real iproute2 inside it."""
    name = 'aifabric-ut-%d' % os.getpid()
    subprocess.run(['ip', 'netns', 'add', name], check=True)
    bindir = tmp_path / 'bin'
    bindir.mkdir()
    wrapper = bindir / 'ip'
    wrapper.write_text('#!/bin/sh\nexec %s -n %s "$@"\n' % (shutil.which('ip'), name))
    wrapper.chmod(0o755)

    def ip(*args):
        return json.loads(subprocess.run(['ip', '-n', name, '-j'] + list(args), check=True, capture_output=True,
                                         text=True).stdout or '[]')
    try:
        yield str(bindir), ip
    finally:
        subprocess.run(['ip', 'netns', 'delete', name], check=False)


def _run_netdev(bindir, root, config, **options):
    check = options.pop('check_mode', False)
    values = dict(config=config, bin_path=[bindir], root=root, persist_path='/etc/aifabric/netdev.d/ut.ip')
    values.update(options)
    return run_module(linux_netdev.main, values, check_mode=check, diff=True)


def _snapshot(ip):
    """What the module manages, without what the kernel changes by itself (timers, link-local addresses)."""
    links = sorted((link['ifname'], link['mtu'], link.get('master'), 'UP' in link['flags'],
                    sorted((entry['local'], entry['prefixlen']) for entry in link.get('addr_info', [])
                           if entry.get('scope') == 'global'))
                   for link in ip('-d', 'address', 'show'))
    routes = sorted((route.get('dst'), route.get('gateway'), route.get('table', 'main'), route.get('dev'))
                    for route in ip('-4', 'route', 'show', 'table', 'all'))
    rules = sorted((rule.get('priority'), rule.get('src'), rule.get('table')) for rule in ip('rule', 'show'))
    return links, routes, rules


def test_module_check_mode_changes_nothing_then_applies_once(namespace, tmp_path):
    bindir, ip = namespace
    root = str(tmp_path / 'root')
    persisted = os.path.join(root, 'etc', 'aifabric', 'netdev.d', 'ut.ip')
    before = _snapshot(ip)
    check = _run_netdev(bindir, root, MODULE_STATE, check_mode=True)
    assert check.get('failed') is not True, check
    assert check['changed'] is True and check['persisted'] is True
    assert any(command.startswith('link add br-ut type bridge') for command in check['commands'])
    assert check['diff'][0]['after'] and 'br-ut' in check['diff'][0]['after']
    assert _snapshot(ip) == before  # nothing created, addressed, routed
    assert not os.path.exists(root)  # nothing persisted

    applied = _run_netdev(bindir, root, MODULE_STATE)
    assert applied.get('failed') is not True, applied
    assert applied['changed'] is True and os.path.isfile(persisted)
    links = {link['ifname']: link for link in ip('-d', 'address', 'show')}
    assert links['br-ut']['mtu'] == 9000
    assert [entry['local'] for entry in links['br-ut']['addr_info'] if entry['family'] == 'inet'] == ['10.250.0.1']
    assert [route['dst'] for route in ip('route', 'show', 'table', '100')] == ['10.251.0.0/24']

    again = _run_netdev(bindir, root, MODULE_STATE)
    assert (again['changed'], again['commands'], again['persisted']) == (False, [], False)
    after = _snapshot(ip)
    smaller = dict(MODULE_STATE, routes=[])
    drift = _run_netdev(bindir, root, smaller, check_mode=True)
    assert drift['changed'] is True and any(command.startswith('route del') for command in drift['commands'])
    assert _snapshot(ip) == after  # the owned route that would go is still there
    with open(persisted, encoding='utf-8') as handle:
        assert '10.251.0.0/24' in handle.read()
    assert check['boot_unit'] == again['boot_unit'] == netdev.BOOT_UNIT, 'the one unit text, for the roles'
    assert 'ip -force -batch "$file"' in again['boot_unit'] and 'netdev.d/*.ip' in again['boot_unit']


def test_module_refuses_a_newline_in_a_link_name_before_touching_anything(namespace, tmp_path):
    bindir, ip = namespace
    before = _snapshot(ip)
    bad = {'links': [{'name': 'br-ut\n', 'kind': 'bridge'}]}
    result = _run_netdev(bindir, str(tmp_path / 'root'), bad)
    assert result['failed'] is True and 'name must be 1-15 characters' in result['msg']
    assert _snapshot(ip) == before and not os.path.exists(tmp_path / 'root')


def test_vxlan_outer_tos_is_read_and_managed():
    """`tos inherit` (the outer header copies the inner DSCP and ECN): iproute2 prints it as "0x1" in JSON and
    leaves the attribute out when it is 0; a VXLAN device with another ToS is recreated."""
    assert [netdev.vxlan_tos(value) for value in (None, '0x1', 1, 'inherit', '0x68', 0)] == [
        'inherit' if value in ('0x1', 1, 'inherit') else value for value in (0, '0x1', 1, 'inherit', 104, 0)]
    current = captured('configured', 'leaf001')
    assert current['links']['vxlan10100']['vxlan']['tos'] == 'inherit'
    current['links']['vxlan10100']['vxlan']['tos'] = 0
    commands = [' '.join(command) for command in netdev.plan(switch_state('leaf001'), current)]
    assert commands[:2] == ['link del vxlan10100',
                            'link add vxlan10100 type vxlan id 10100 local 10.254.16.1 dstport 4789 nolearning tos inherit']
    with pytest.raises(netdev.StateError, match=r'vxlan.tos: 300 must be between 0 and 255'):
        netdev.validate({'links': [{'name': 'vx1', 'kind': 'vxlan', 'vxlan': {'id': 1, 'local': '10.0.0.1', 'tos': 300}}]})


def test_module_creates_a_vxlan_device_that_inherits_the_inner_tos(namespace, tmp_path):
    bindir, ip = namespace
    state = {'links': [{'name': 'vx-ut', 'kind': 'vxlan', 'mtu': 9000, 'state': 'up',
                        'vxlan': {'id': 4242, 'local': '10.250.9.1', 'dstport': 4789, 'learning': False,
                                  'tos': 'inherit'}}]}
    applied = _run_netdev(bindir, str(tmp_path / 'root'), state, persist=False)
    assert applied.get('failed') is not True and applied['changed'] is True, applied
    link = ip('-d', 'link', 'show', 'vx-ut')[0]
    assert link['linkinfo']['info_data']['tos'] == '0x1'
    again = _run_netdev(bindir, str(tmp_path / 'root'), state, persist=False)
    assert again['changed'] is False and again['commands'] == []
