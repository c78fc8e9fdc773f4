"""A switch's forwarding routes, and how each NOS prints them (the doubles answer with these; the simulated world of
tests/faults prints a device's routes with them and reads them back through the platform's own parser).

Routes are the neutral `routes` items ({dst, type, protocol, metric, nexthops [{gateway, dev}]}). What each printer
writes, and where its shape comes from:

- `ip -j -4 route show table main` (iproute2 JSON; FRR on Linux, and Cumulus Linux, whose switchd programs table 254
  into the ASIC): a list of {dst, type (absent for unicast), gateway, dev, protocol, metric, flags, nexthops
  [{gateway, dev, weight, flags}]} (iproute2 ip/iproute.c print_route; the lab's captures in
  tests/unit/fixtures/state/captured). A route added with `ip route add` has protocol boot.
- EOS `show ip route` (eAPI JSON): {vrfs: {default: {routes: {prefix: {routeType, routeAction, hardwareProgrammed,
  kernelProgrammed, directlyConnected, preference, metric, vias [{nexthopAddr, interface}]}}}}} (ANTA's routing tests'
  data); a static route to Null0 is routeAction `drop` with no vias.
- FRR `show ip route json` (SONiC's bgp container): {prefix: [{prefix, protocol, selected, installed, distance,
  metric, nexthops [{fib, ip, afi, interfaceName, active, directlyConnected | unreachable + blackhole}]}]} (FRR
  zebra/zebra_vty.c). A blackhole is FRR's static `ip route <prefix> blackhole`.
"""

from __future__ import annotations

import ipaddress
import json

# the neutral route type -> EOS routeAction (a Null0 route drops; EOS has no reject route)
_EOS_ACTION = {'unicast': 'forward', 'blackhole': 'drop'}
# zebra's blackhole kinds (zebra_vty.c) for the kernel route types
_FRR_BLACKHOLE = {'blackhole': 'blackhole', 'unreachable': 'reject', 'prohibit': 'adminProhibited'}


def _prefix(dst) -> str:
    return '0.0.0.0/0' if dst == 'default' else str(ipaddress.ip_network(dst, strict=False))


def held(knob):
    """The fault knob `routes` ([{dst, type (default unicast), dev, gateway, protocol}]): routes the device holds
    besides the design's (a static blackhole, a static route over another port), as neutral routes."""
    found = []
    for item in knob or ():
        hop = [{'gateway': item.get('gateway'), 'dev': item.get('dev')}] if item.get('dev') or item.get('gateway') else []
        found.append({'dst': item['dst'], 'type': item.get('type', 'unicast'), 'protocol': item.get('protocol'),
                      'metric': item.get('metric'), 'nexthops': hop})
    return found


def frr_hops(vrfs, first_seen, faults, link_up, owner):
    """[(gateway, port)] of the established IPv4 sessions of FRR's default VRF (tests/doubles/ssh/frr.py)."""
    from tests.doubles.ssh import frr  # pylint: disable=import-outside-toplevel
    hops = []
    for name, peer in sorted(((vrfs.get('default') or {}).get('peers') or {}).items()):
        if 'ipv4Unicast' not in peer.get('families', ['ipv4Unicast']):
            continue
        if frr.peer_state(name, peer, 'default', first_seen, faults, link_up)[0] == 'Established':
            port = peer['interface'] or owner(name)
            if port:
                hops.append((name if frr.is_address(name) else None, port))
    return hops


def switch_routes(connected, hops, remote_vteps, own=()):
    """The routes of a leaf: its connected subnets [(prefix, port)], a BGP route to every remote VTEP over the
    established sessions `hops` [(gateway, port)] (ECMP, as the fabric's maximum-paths allows), and the routes the
    device holds itself (`own`: held(), a fault's), which win over BGP's for their prefix as zebra leaves them."""
    held = [dict(route) for route in own or ()]
    own = {_prefix(route['dst']) for route in held}
    routes = [{'dst': str(ipaddress.ip_interface(prefix).network), 'type': 'unicast', 'protocol': 'kernel',
               'metric': None, 'nexthops': [{'gateway': None, 'dev': port}]} for prefix, port in connected]
    if hops:
        for vtep in sorted(set(remote_vteps)):
            if _prefix(vtep) not in own:
                routes.append({'dst': vtep, 'type': 'unicast', 'protocol': 'bgp', 'metric': 20,
                               'nexthops': [{'gateway': gateway, 'dev': port} for gateway, port in hops]})
    return routes + held


def iproute2_json(routes) -> str:
    """`ip -j -4 route show table main`."""
    out = []
    for route in routes:
        item = {} if route['type'] == 'unicast' else {'type': route['type']}
        item['dst'] = route['dst'] if route['dst'] == 'default' or not route['dst'].endswith('/32') else route['dst'][:-3]
        hops = route['nexthops']
        if len(hops) == 1:
            item.update((key, value) for key, value in (('gateway', hops[0]['gateway']), ('dev', hops[0]['dev'])) if value)
        item['protocol'] = route['protocol'] or 'boot'
        if route['metric'] is not None:
            item['metric'] = route['metric']
        item['flags'] = []
        if len(hops) > 1:
            item['nexthops'] = [dict({key: value for key, value in hop.items() if value}, weight=1, flags=[]) for hop in hops]
        out.append(item)
    return json.dumps(out)


def eos_show_ip_route(routes) -> dict:
    """EOS `show ip route` (the default VRF)."""
    table = {}
    for route in routes:
        kind = {'bgp': 'eBGP', 'kernel': 'connected', None: 'static'}.get(route['protocol'], route['protocol'])
        connected = kind == 'connected' or route['type'] != 'unicast'
        entry = {'hardwareProgrammed': True, 'routeType': kind, 'routeLeaked': False, 'kernelProgrammed': True,
                 'routeAction': _EOS_ACTION.get(route['type'], route['type']), 'directlyConnected': connected,
                 'preference': {'eBGP': 20, 'connected': 0, 'static': 1}.get(kind, 200), 'metric': 0,
                 'vias': [] if route['type'] != 'unicast' else
                 [dict({'interface': hop['dev']}, **({'nexthopAddr': hop['gateway']} if hop['gateway'] else {}))
                  for hop in route['nexthops']]}
        table[_prefix(route['dst'])] = entry
    return {'vrfs': {'default': {'routingDisabled': False, 'allRoutesProgrammedHardware': True,
                                 'allRoutesProgrammedKernel': True, 'defaultRouteState': 'notSet', 'routes': table}}}


def frr_show_ip_route(routes) -> str:
    """FRR `show ip route json`: every route selected and installed (zebra's FIB)."""
    out = {}
    for route in routes:
        prefix = _prefix(route['dst'])
        protocol = {'kernel': 'connected', None: 'static'}.get(route['protocol'], route['protocol'])
        if route['type'] != 'unicast':
            hops = [{'fib': True, 'unreachable': True, _FRR_BLACKHOLE.get(route['type'], 'blackhole'): True,
                     'active': True}]
        elif protocol == 'connected':
            hops = [{'fib': True, 'directlyConnected': True, 'interfaceName': hop['dev'], 'active': True}
                    for hop in route['nexthops']]
        else:
            hops = [dict({'fib': True, 'afi': 'ipv4', 'interfaceName': hop['dev'], 'active': True},
                         **({'ip': hop['gateway']} if hop['gateway'] else {})) for hop in route['nexthops']]
        out.setdefault(prefix, []).append({
            'prefix': prefix, 'prefixLen': int(prefix.split('/')[1]), 'protocol': protocol, 'vrfId': 0,
            'vrfName': 'default', 'selected': True, 'destSelected': True,
            'distance': {'bgp': 20, 'connected': 0, 'static': 1}.get(protocol, 0), 'metric': route['metric'] or 0,
            'installed': True, 'table': 254, 'internalStatus': 16, 'internalFlags': 8, 'nexthops': hops})
    return json.dumps(out)


def printed(platform, routes):
    """What the routes source of `platform` reads, as its reader returns it (eAPI: one JSON object per command;
    SSH: the command's result)."""
    if platform == 'eos':
        return [eos_show_ip_route(routes)]
    text = frr_show_ip_route(routes) if platform == 'sonic' else iproute2_json(routes)
    return {'rc': 0, 'stdout': text, 'stderr': ''}
