# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""iproute2 JSON: `ip -j [-d] link show`, `ip -j [-d] addr show` and `ip -j route show`."""

from __future__ import annotations

from . import StateError, command_output, excerpt, load_json
from .gatherer import Source
from .schema import Interface
from .views import route_table


def _list(source, result):
    data = load_json(source, command_output(source, result))
    if not isinstance(data, list):
        raise StateError(source, 'top level is %s, expected a list of interfaces' % type(data).__name__)
    return data


def parse_ip_link(result) -> dict[str, Interface]:
    """Interfaces of `ip -j [-d] link|addr show`: {ifname: {...}}.

    Each: ifname, mtu, operstate, admin_up, lower_up, master, kind (veth, bridge, vxlan ...), vxlan
    ({id, local, port, tos} for VXLAN devices with -d; tos 1 is `tos inherit`), addresses ([{family, address,
    prefixlen}] with `addr`).
    """
    source = 'ip -j link/addr show'
    interfaces: dict[str, Interface] = {}
    for item in _list(source, result):
        if not isinstance(item, dict) or not isinstance(item.get('ifname'), str):
            raise StateError(source, 'an entry has no ifname')
        flags = item.get('flags') or []
        info = item.get('linkinfo') or {}
        data = info.get('info_data') or {}
        vxlan = None
        if info.get('info_kind') == 'vxlan':
            # iproute2 prints tos only when it is not 0 (iproute2 6.1, seen in the lab); 1 is `tos inherit`
            vxlan = {'id': data.get('id'), 'local': data.get('local'), 'port': data.get('port'),
                     'tos': _number(data.get('tos', 0))}
        addresses = []
        for addr in item.get('addr_info') or []:
            if isinstance(addr, dict) and addr.get('local'):
                addresses.append({'family': addr.get('family'), 'address': addr['local'],
                                  'prefixlen': addr.get('prefixlen')})
        interfaces[item['ifname']] = {
            'ifname': item['ifname'],
            'mtu': item.get('mtu'),
            'operstate': item.get('operstate'),
            'admin_up': 'UP' in flags,
            'lower_up': 'LOWER_UP' in flags,
            'master': item.get('master'),
            'kind': info.get('info_kind'),
            'vxlan': vxlan,
            'addresses': addresses,
        }
    return interfaces


def _number(value):
    """iproute2 prints some fields as hex text in JSON ("tos": "0x1"): an int, or None when absent."""
    if value is None or isinstance(value, int):
        return value
    try:
        return int(str(value), 0)
    except ValueError:
        return None


def parse_ip_route(result) -> list:
    """Routes of `ip -j route show`: [{dst, type, protocol, metric, nexthops [{gateway, dev}]}] (dst 'default'
    kept; `type` is unicast unless iproute2 names another: blackhole, unreachable, prohibit, local...)."""
    source = 'ip -j route show'
    routes = []
    for item in _list(source, result):
        if not isinstance(item, dict) or 'dst' not in item:
            raise StateError(source, 'a route has no dst')
        listed = item.get('nexthops') or []
        if not isinstance(listed, list) or not all(isinstance(hop, dict) for hop in listed):
            raise StateError(source, 'the next hops of route %s are not a list of objects' % excerpt(item['dst'], 60))
        hops = [{'gateway': hop.get('gateway'), 'dev': hop.get('dev')} for hop in listed]
        if not hops and (item.get('gateway') or item.get('dev')):
            hops = [{'gateway': item.get('gateway'), 'dev': item.get('dev')}]
        routes.append({'dst': item['dst'], 'type': item.get('type') or 'unicast', 'protocol': item.get('protocol'),
                       'metric': item.get('metric'), 'nexthops': hops})
    return route_table(routes)


def is_up(interface) -> bool:
    """Administratively up with carrier: what a working link looks like on Linux (veth, physical)."""
    return bool(interface and interface['admin_up'] and interface['lower_up']
                and interface['operstate'] in ('UP', 'UNKNOWN'))


SOURCE = Source('interfaces', ('ip', '-j', '-d', 'addr', 'show'), parse_ip_link)
# The kernel's routes: where a leaf sends the VXLAN packets to each remote VTEP (a blackhole or static route the
# design does not have shows here, whatever zebra believes). On Cumulus Linux switchd programs this table (254) into
# the ASIC.
ROUTES_SOURCE = Source('routes', ('ip', '-j', '-4', 'route', 'show', 'table', 'main'), parse_ip_route, roles=('leaf',))

__all__ = ['parse_ip_link', 'parse_ip_route', 'is_up', 'SOURCE', 'ROUTES_SOURCE']
