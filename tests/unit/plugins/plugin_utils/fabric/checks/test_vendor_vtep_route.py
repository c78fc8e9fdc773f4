# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""vtep_route on EOS, SONiC and NVUE: each platform's recorded forwarding table (EOS `show ip route`, SONiC's bgp
container `show ip route json`, Cumulus Linux `ip -j -4 route show table main`) parsed into routes, the healthy leaf
passing, and a blackhole or a route over a port that is no uplink named on the leaf as a route the design does not
have (issue 36)."""

import copy
import json

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import causes
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.frrouting import vtysh
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms.eos import state as eos
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state import StateError, iproute2
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.sources import gatherer_for

from tests.unit.utils.platforms import platform_data, platform_tests


def _route_platforms():
    """Every platform whose test folder has vtep_route's test data (ROUTES, routes_output, with_route in its
    testdata.py, tests/unit/utils/platforms.py): what the tests over the vendor route tables run on."""
    return [tests.name for tests in platform_tests() if tests.shipped and hasattr(tests.data(), 'ROUTES')]


ROUTE_PLATFORMS = _route_platforms()


def _design(platform):
    return design_from_file(platform_data(platform).ROUTES)


def _recorded(platform):
    """The routes output of the platform's leaf as its reader returns it."""
    return platform_data(platform).routes_output()


def _remote_and_uplinks(design):
    model = design.device('leaf001')
    ctx = checks.Context(design, {}, {})
    remote = {}
    for item in checks.catalog.expected_vnis(ctx, model):
        remote.update(item['remote_vteps'])
    uplinks = [item['name'] for item in model['interfaces'] if item.get('direction') == 'up']
    other = next(item['name'] for item in model['interfaces'] if item.get('direction') != 'up')
    return sorted(remote), uplinks, other


def _run(design, output):
    ctx = checks.Context(design, {'leaf001': {'routes': output}}, {})
    return checks.run(ctx, devices=['leaf001'], check_ids={'vtep_route'}, categories=('fabric',))


# --------------------------------------------------------------------------- the parsers
def test_eos_show_ip_route_parsed():
    routes = eos.parse_ip_route(_recorded('eos'))
    bgp = [route for route in routes if route['protocol'] == 'bgp']
    assert bgp and all(route['type'] == 'unicast' for route in bgp)
    vteps = [route for route in bgp if route['dst'].startswith('10.254.16.')]
    assert vteps and all(len(route['nexthops']) == 2 for route in vteps)  # ECMP over both spines
    assert {hop['dev'] for route in bgp for hop in route['nexthops']} == {'Ethernet2/1', 'Ethernet2/5'}
    connected = [route for route in routes if route['protocol'] == 'connected']
    assert any(route['dst'] == '10.0.0.0/31' for route in connected)


def test_eos_drop_route_is_a_blackhole_and_an_unprogrammed_route_forwards_nothing():
    data = _recorded('eos')
    table = data[0]['vrfs']['default']['routes']
    table['10.254.16.3/32'] = {'hardwareProgrammed': True, 'routeType': 'static', 'routeAction': 'drop', 'vias': [],
                               'metric': 0, 'preference': 1, 'directlyConnected': True, 'kernelProgrammed': True}
    table['10.9.9.0/24'] = dict(table['10.0.0.0/31'], hardwareProgrammed=False)
    routes = {route['dst']: route for route in eos.parse_ip_route(data)}
    assert routes['10.254.16.3/32'] == {'dst': '10.254.16.3/32', 'type': 'blackhole', 'protocol': 'static',
                                        'metric': 0, 'nexthops': []}
    assert '10.9.9.0/24' not in routes


def test_eos_malformed_route_is_a_state_error():
    data = _recorded('eos')
    table = data[0]['vrfs']['default']['routes']
    table[next(iter(table))]['routeType'] = 7
    with pytest.raises(StateError, match='has no routeType or routeAction text'):
        eos.parse_ip_route(data)
    with pytest.raises(StateError, match='vias of route'):
        eos.parse_ip_route([{'vrfs': {'default': {'routes': {'10.0.0.0/31': {'routeType': 'connected', 'vias': 'x'}}}}}])
    with pytest.raises(StateError, match='vrfs is NoneType'):
        eos.parse_ip_route([{}])


def test_frr_show_ip_route_json_keeps_installed_routes_and_fib_next_hops():
    routes = vtysh.parse_ip_route(_recorded('sonic'))
    bgp = [route for route in routes if route['protocol'] == 'bgp']
    assert bgp and all(route['type'] == 'unicast' and route['nexthops'] for route in bgp)
    text = json.dumps({
        '10.254.16.3/32': [
            {'prefix': '10.254.16.3/32', 'protocol': 'bgp', 'selected': False, 'installed': False, 'metric': 0,
             'nexthops': [{'fib': False, 'ip': '10.0.0.0', 'interfaceName': 'Ethernet0', 'active': True}]},
            {'prefix': '10.254.16.3/32', 'protocol': 'static', 'selected': True, 'installed': True, 'metric': 0,
             'nexthops': [{'fib': True, 'unreachable': True, 'blackhole': True, 'active': True}]}],
        '10.254.16.4/32': [
            {'prefix': '10.254.16.4/32', 'protocol': 'bgp', 'selected': True, 'installed': True, 'metric': 0,
             'nexthops': [{'fib': True, 'ip': '10.0.0.0', 'interfaceName': 'Ethernet0', 'active': True},
                          {'ip': '10.0.0.2', 'interfaceName': 'Ethernet4', 'active': False}]}],
        '10.254.16.5/32': [{'prefix': '10.254.16.5/32', 'protocol': 'static', 'selected': True, 'installed': True,
                            'nexthops': [{'fib': True, 'unreachable': True, 'reject': True}]}],
        '10.9.0.0/24': [{'prefix': '10.9.0.0/24', 'protocol': 'bgp', 'selected': True, 'nexthops': []}]})
    routes = {route['dst']: route for route in vtysh.parse_ip_route({'rc': 0, 'stdout': text, 'stderr': ''})}
    assert routes['10.254.16.3/32'] == {'dst': '10.254.16.3/32', 'type': 'blackhole', 'protocol': 'static',
                                        'metric': 0, 'nexthops': []}
    assert routes['10.254.16.4/32']['nexthops'] == [{'gateway': '10.0.0.0', 'dev': 'Ethernet0'}]
    assert routes['10.254.16.5/32']['type'] == 'unreachable'
    assert '10.9.0.0/24' not in routes  # selected but not installed: not in the data plane


def test_frr_show_ip_route_json_malformed_is_a_state_error():
    for text, message in (('{"10.0.0.0/31": {"protocol": "connected"}}', 'is not a list of routes'),
                          ('{"10.0.0.0/31": [{"selected": true, "installed": true, "nexthops": []}]}', 'has no protocol'),
                          ('[]', 'expected a JSON object'), ('bgpd is not running', 'bgpd')):
        with pytest.raises(StateError, match=message):
            vtysh.parse_ip_route({'rc': 0, 'stdout': text, 'stderr': ''})


def test_cumulus_ip_route_parsed_and_malformed_next_hops_refused():
    routes = iproute2.parse_ip_route(_recorded('nvue'))
    bgp = [route for route in routes if route['protocol'] == 'bgp']
    assert bgp and {hop['dev'] for route in bgp for hop in route['nexthops']} == {'swp2s0', 'swp2s1'}
    with pytest.raises(StateError, match='are not a list of objects'):
        iproute2.parse_ip_route({'rc': 0, 'stdout': '[{"dst": "10.0.0.0/31", "nexthops": ["swp1"]}]', 'stderr': ''})


@pytest.mark.parametrize('platform', ROUTE_PLATFORMS)
def test_each_vendor_gatherer_reads_routes_on_leaves_only(platform):
    design = _design(platform)
    leaf, spine = design.device('leaf001'), design.device('spine001')
    gatherer = gatherer_for(leaf)
    assert gatherer.provides('routes')
    assert 'routes' in [key for key, _command in gatherer.commands(leaf)]
    assert 'routes' not in [key for key, _command in gatherer.commands(spine)]
    assert gatherer.describe('routes', leaf) == platform_data(platform).ROUTES_COMMAND


# --------------------------------------------------------------------------- the check, healthy and failing
@pytest.mark.parametrize('platform', ROUTE_PLATFORMS)
def test_healthy_leaf_reaches_every_remote_vtep_through_its_uplinks(platform):
    design = _design(platform)
    remote, _uplinks, _other = _remote_and_uplinks(design)
    results = _run(design, _recorded(platform))
    assert remote and len(results) == len(remote)
    assert all(item.status == checks.PASS for item in results), [(item.subject, item.seen) for item in results]


def _with_route(platform, vtep, port):
    """The leaf's recorded table with the route to `vtep` made a blackhole (port None) or sent over `port`, in the
    platform's own format (its testdata.with_route)."""
    return platform_data(platform).with_route(copy.deepcopy(_recorded(platform)), vtep, port)


@pytest.mark.parametrize('platform', ROUTE_PLATFORMS)
@pytest.mark.parametrize('wrong', ['blackhole', 'other port'])
def test_a_route_the_design_does_not_have_is_the_leafs_cause(platform, wrong):
    design = _design(platform)
    remote, uplinks, other = _remote_and_uplinks(design)
    vtep = remote[0]
    results = _run(design, _with_route(platform, vtep, None if wrong == 'blackhole' else other))
    failed = [item for item in results if item.status == checks.FAIL]
    assert [item.subject for item in failed] == [next(item.subject for item in results if vtep in item.subject)]
    seen = failed[0].seen
    assert seen.startswith('blackhole %s' % vtep) if wrong == 'blackhole' else ('via %s' % other) in seen
    assert set(uplinks) and not set(uplinks) & set(failed[0].facts['route']['devs'])
    found = causes.analyse(checks.Context(design, {}, {}), results)
    assert [(cause.kind, cause.devices) for cause in found] == [('route', ['leaf001'])]
    assert vtep in found[0].title and found[0].title.endswith('a route the design does not have')
