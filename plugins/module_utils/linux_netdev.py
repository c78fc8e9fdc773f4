# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Declarative Linux network state: validate, read (`ip -j`), compare, plan iproute2 commands.

Pure standard library, no Ansible imports: the module aifabric.fabric.linux_netdev is a thin shell around
`validate()`, `parse_state()`, `plan()` and `boot_script()`, and the unit tests drive them with real
`ip -j` output captured from the lab.

State document (the `interfaces.json` the FRR renderer writes; host roles build the same shape):

    links:   [{name, kind: bridge|vxlan|vrf (omit for an existing device), mtu, state: up|down, master, mac,
               addresses: [CIDR...], vxlan: {id, local, dstport, learning, tos}, bridge: {stp_state},
               bridge_slave: {learning}, vrf: {table}}]
    routes:  [{to, via, dev, src, table, scope, metric}]   (`to` host bits are cleared: 10.0.0.1/31 -> 10.0.0.0/31)
    rules:   [{from, to, table, priority}]
    sysctl:  {name: value}        (applied by aifabric.fabric.linux_sysctl, ignored here)

Semantics: a listed link gets exactly the listed master (absent = none) and, when the key is given, exactly
the listed global addresses (link-local and host-scope addresses such as 127.0.0.1 are never touched);
mtu and state are managed when given. Routes in tables other than main/local/default are owned: extra
routes there are removed, as are rules pointing to an owned table that are not listed. Routes in main
are only added or replaced.
"""

from __future__ import annotations

import ipaddress
import json
import re

VIRTUAL_KINDS = ('vrf', 'bridge', 'vxlan')  # creation order: a bridge may sit in a VRF, a VXLAN in a bridge
SHARED_TABLES = {'main': 254, 'local': 255, 'default': 253}
LINK_KEYS = {'name', 'kind', 'mtu', 'state', 'master', 'mac', 'addresses', 'vxlan', 'bridge', 'bridge_slave', 'vrf'}
MAC = re.compile(r'^[0-9a-f]{2}(:[0-9a-f]{2}){5}$')
SUB_KEYS = {
    'vxlan': {'id', 'local', 'dstport', 'learning', 'tos'},
    'bridge': {'stp_state'},
    'bridge_slave': {'learning'},
    'vrf': {'table'},
}
ROUTE_KEYS = {'to', 'via', 'dev', 'src', 'table', 'scope', 'metric'}
RULE_KEYS = {'from', 'to', 'table', 'priority'}
TOP_KEYS = {'links', 'routes', 'rules', 'sysctl'}
IFNAME = re.compile(r'^[A-Za-z0-9_.:@-]{1,15}$')
# The systemd unit that replays, at boot, every boot file of the interface state (linux_netdev's persist_path, the FRR
# deploy driver's saved state). The one text of it: the roles install the module's `boot_unit` result, the driver
# writes it as it confirms.
BOOT_UNIT_PATH = '/etc/systemd/system/aifabric-netdev.service'
BOOT_UNIT = '''# Written by aifabric.fabric: replays the interface state saved in /etc/aifabric/netdev.d at boot.
[Unit]
Description=aifabric persisted network state (links, bridges, VXLAN, addresses, routes, rules)
DefaultDependencies=no
Wants=network-pre.target systemd-udev-settle.service
After=systemd-udev-settle.service
Before=network-pre.target network.target frr.service

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/sh -c 'for file in /etc/aifabric/netdev.d/*.ip; do [ -e "$file" ] && /sbin/ip -force -batch "$file"; done; exit 0'

[Install]
WantedBy=multi-user.target
'''


class StateError(ValueError):
    """The desired state is invalid; `problems` lists every problem with its path."""

    def __init__(self, problems):
        super().__init__('; '.join(problems))
        self.problems = problems


# --------------------------------------------------------------------------------------------- validate
def _table_id(value):
    if isinstance(value, str) and value in SHARED_TABLES:
        return SHARED_TABLES[value]
    return int(value)


def _prefix(value, host_bits_ok=False):
    """'10.0.0.0/24' -> normalized network text; 'default' stays 'default'."""
    if value == 'default':
        return 'default'
    return str(ipaddress.ip_network(value, strict=not host_bits_ok))


def _int(value, low, high, path, problems):
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            value = int(value)
        except (TypeError, ValueError):
            problems.append('%s: %r must be an integer' % (path, value))
            return None
    if not low <= value <= high:
        problems.append('%s: %d must be between %d and %d' % (path, value, low, high))
        return None
    return value


def validate(state):
    """Return the normalized desired state or raise StateError listing every problem."""
    problems = []
    if not isinstance(state, dict):
        raise StateError(['state: must be a mapping with links, routes, rules'])
    for key in sorted(set(state) - TOP_KEYS):
        problems.append('%s: unknown key (allowed: %s)' % (key, ', '.join(sorted(TOP_KEYS))))
    links, names = [], set()
    for index, raw in enumerate(state.get('links') or []):
        path = 'links[%d]' % index
        if not isinstance(raw, dict) or not isinstance(raw.get('name'), str):
            problems.append('%s: must be a mapping with a name' % path)
            continue
        name = raw['name']
        path = 'links[%d] (%s)' % (index, name)
        if not IFNAME.fullmatch(name):  # fullmatch: '$' would let a trailing newline through
            problems.append('%s: name must be 1-15 characters of letters, digits, _ . : @ -' % path)
        if name in names:
            problems.append('%s: listed twice' % path)
        names.add(name)
        for key in sorted(set(raw) - LINK_KEYS):
            problems.append('%s: unknown key %s (allowed: %s)' % (path, key, ', '.join(sorted(LINK_KEYS))))
        link = {'name': name, 'kind': raw.get('kind'), 'master': raw.get('master')}
        if link['kind'] is not None and link['kind'] not in VIRTUAL_KINDS:
            problems.append('%s: kind must be one of %s (or omitted for an existing device)'
                            % (path, ', '.join(VIRTUAL_KINDS)))
        if raw.get('mtu') is not None:
            link['mtu'] = _int(raw['mtu'], 68, 65535, path + '.mtu', problems)
        if raw.get('mac') is not None:
            mac = str(raw['mac']).lower()
            if not MAC.fullmatch(mac):
                problems.append('%s.mac: %r is not a MAC address such as 02:00:00:00:01:01' % (path, raw['mac']))
            link['mac'] = mac
        if raw.get('state') is not None:
            if raw['state'] not in ('up', 'down'):
                problems.append('%s.state: must be up or down' % path)
            link['state'] = raw['state']
        if 'addresses' in raw:
            addresses = []
            for position, address in enumerate(raw['addresses'] or []):
                try:
                    parsed = ipaddress.ip_interface(address)
                except ValueError:
                    problems.append('%s.addresses[%d]: %r is not an address with prefix length such as 10.0.0.1/31'
                                    % (path, position, address))
                    continue
                if '/' not in str(address):
                    problems.append('%s.addresses[%d]: %r needs a prefix length' % (path, position, address))
                    continue
                addresses.append(str(parsed))
            link['addresses'] = sorted(set(addresses))
        for sub, allowed in SUB_KEYS.items():
            if sub not in raw:
                continue
            value = raw[sub]
            if not isinstance(value, dict):
                problems.append('%s.%s: must be a mapping' % (path, sub))
                continue
            for key in sorted(set(value) - allowed):
                problems.append('%s.%s: unknown key %s (allowed: %s)' % (path, sub, key, ', '.join(sorted(allowed))))
            link[sub] = dict(value)
        kind = link['kind']
        if kind == 'vxlan':
            vxlan = link.get('vxlan')
            if not vxlan or 'id' not in vxlan or 'local' not in vxlan:
                problems.append('%s.vxlan: a vxlan link needs vxlan.id and vxlan.local' % path)
            else:
                vxlan['id'] = _int(vxlan['id'], 1, 16777215, path + '.vxlan.id', problems)
                vxlan['dstport'] = _int(vxlan.get('dstport', 4789), 1, 65535, path + '.vxlan.dstport', problems)
                vxlan['learning'] = bool(vxlan.get('learning', False))
                if 'tos' in vxlan and vxlan['tos'] != 'inherit':
                    vxlan['tos'] = _int(vxlan['tos'], 0, 255, path + '.vxlan.tos', problems)
                try:
                    vxlan['local'] = str(ipaddress.ip_address(vxlan['local']))
                except ValueError:
                    problems.append('%s.vxlan.local: %r is not an IP address' % (path, vxlan['local']))
        elif 'vxlan' in link:
            problems.append('%s.vxlan: only for kind vxlan' % path)
        if kind == 'vrf':
            table = (link.get('vrf') or {}).get('table')
            if table is None:
                problems.append('%s.vrf: a vrf link needs vrf.table' % path)
            else:
                link['vrf']['table'] = _int(table, 1, 4294967294, path + '.vrf.table', problems)
        elif 'vrf' in link:
            problems.append('%s.vrf: only for kind vrf' % path)
        if 'bridge' in link:
            if kind != 'bridge':
                problems.append('%s.bridge: only for kind bridge' % path)
            elif 'stp_state' in link['bridge']:
                link['bridge']['stp_state'] = _int(link['bridge']['stp_state'], 0, 2, path + '.bridge.stp_state', problems)
        if 'bridge_slave' in link and not link['master']:
            problems.append('%s.bridge_slave: needs a master bridge' % path)
        links.append(link)
    kinds = {link['name']: link['kind'] for link in links}
    for link in links:
        master = link['master']
        if master is not None and master not in kinds:
            problems.append('links (%s).master: %s is not a listed link (list the bridge or vrf too)' % (link['name'], master))
        elif master is not None and kinds[master] not in ('bridge', 'vrf'):
            problems.append('links (%s).master: %s must be a bridge or vrf link' % (link['name'], master))
        if 'bridge_slave' in link and master in kinds and kinds[master] != 'bridge':
            problems.append('links (%s).bridge_slave: the master %s is not a bridge' % (link['name'], master))
    routes = []
    for index, raw in enumerate(state.get('routes') or []):
        path = 'routes[%d]' % index
        if not isinstance(raw, dict) or 'to' not in raw:
            problems.append('%s: must be a mapping with at least "to"' % path)
            continue
        for key in sorted(set(raw) - ROUTE_KEYS):
            problems.append('%s: unknown key %s (allowed: %s)' % (path, key, ', '.join(sorted(ROUTE_KEYS))))
        route = {}
        try:
            route['to'] = _prefix(raw['to'], host_bits_ok=True)
        except ValueError:
            problems.append('%s.to: %r is not a network such as 10.0.0.0/24 or default' % (path, raw['to']))
            continue
        try:
            route['table'] = _table_id(raw.get('table', 'main'))
        except (TypeError, ValueError):
            problems.append('%s.table: %r must be main, local, default or a number' % (path, raw.get('table')))
            continue
        for key in ('via', 'src'):
            if raw.get(key) is not None:
                try:
                    route[key] = str(ipaddress.ip_address(raw[key]))
                except ValueError:
                    problems.append('%s.%s: %r is not an IP address' % (path, key, raw[key]))
        if raw.get('dev') is not None:
            route['dev'] = raw['dev']
        if 'via' not in route and 'dev' not in route:
            problems.append('%s: needs via or dev' % path)
        if raw.get('scope') is not None:
            if raw['scope'] not in ('global', 'link', 'host'):
                problems.append('%s.scope: must be global, link or host' % path)
            route['scope'] = raw['scope']
        if raw.get('metric') is not None:
            route['metric'] = _int(raw['metric'], 0, 4294967295, path + '.metric', problems)
        routes.append(route)
    rules = []
    for index, raw in enumerate(state.get('rules') or []):
        path = 'rules[%d]' % index
        if not isinstance(raw, dict) or 'table' not in raw or ('from' not in raw and 'to' not in raw):
            problems.append('%s: must be a mapping with table and from and/or to' % path)
            continue
        for key in sorted(set(raw) - RULE_KEYS):
            problems.append('%s: unknown key %s (allowed: %s)' % (path, key, ', '.join(sorted(RULE_KEYS))))
        rule = {}
        for key in ('from', 'to'):
            if raw.get(key) is not None:
                try:
                    rule[key] = str(ipaddress.ip_network(raw[key], strict=True))
                except ValueError:
                    problems.append('%s.%s: %r is not an address or network' % (path, key, raw[key]))
        try:
            rule['table'] = _table_id(raw['table'])
        except (TypeError, ValueError):
            problems.append('%s.table: %r must be main, local, default or a number' % (path, raw['table']))
            continue
        if raw.get('priority') is None:
            problems.append('%s.priority: is required (rules are matched and replaced by priority)' % path)
            continue
        rule['priority'] = _int(raw['priority'], 1, 32765, path + '.priority', problems)
        rules.append(rule)
    if problems:
        raise StateError(problems)
    return {'links': links, 'routes': routes, 'rules': rules}


# --------------------------------------------------------------------------------------------- read
def parse_links(addr_json):
    """Current links from `ip -d -j addr show` (links with details and addresses in one call)."""
    current = {}
    for item in addr_json:
        info = item.get('linkinfo') or {}
        data = info.get('info_data') or {}
        kind = info.get('info_kind')
        link = {
            'name': item['ifname'],
            'kind': kind,
            'mtu': item.get('mtu'),
            'state': 'up' if 'UP' in item.get('flags', []) else 'down',
            'master': item.get('master'),
            'mac': item.get('address'),
            'addresses': sorted(
                str(ipaddress.ip_interface('%s/%s' % (address['local'], address['prefixlen'])))
                for address in item.get('addr_info', [])
                if address.get('scope') == 'global' and 'local' in address),
        }
        if kind == 'vxlan':
            link['vxlan'] = {'id': data.get('id'), 'local': data.get('local'), 'dstport': data.get('port'),
                             'learning': bool(data.get('learning')), 'tos': vxlan_tos(data.get('tos'))}
        elif kind == 'bridge':
            link['bridge'] = {'stp_state': data.get('stp_state')}
        elif kind == 'vrf':
            link['vrf'] = {'table': data.get('table')}
        if info.get('info_slave_kind') == 'bridge':
            link['bridge_slave'] = {'learning': bool((info.get('info_slave_data') or {}).get('learning'))}
        current[link['name']] = link
    return current


def vxlan_tos(value):
    """The outer ToS of a VXLAN device from `ip -j -d link`: 'inherit' (iproute2 prints the attribute value 1 as
    "0x1" in JSON, `tos inherit` in text) or the fixed byte (absent = 0, the kernel default)."""
    if value in (None, ''):
        return 0
    if value == 'inherit':
        return 'inherit'
    number = int(value, 0) if isinstance(value, str) else int(value)
    return 'inherit' if number == 1 else number


def _route_table(route, default=254):
    table = route.get('table', default)
    return _table_id(table) if not isinstance(table, int) else table


def parse_routes(route_json):
    """Routes from `ip -j -4 route show table all` (and -6); keeps unicast routes only."""
    routes = []
    for item in route_json:
        if item.get('type', 'unicast') != 'unicast':
            continue
        route = {'to': 'default' if item['dst'] == 'default' else str(ipaddress.ip_network(item['dst'] if '/' in item['dst'] else (
            item['dst'] + ('/128' if ':' in item['dst'] else '/32')), strict=False)),
            'table': _route_table(item)}
        for key, source in (('via', 'gateway'), ('dev', 'dev'), ('src', 'prefsrc'), ('scope', 'scope'), ('metric', 'metric'),
                            ('protocol', 'protocol')):
            if item.get(source) is not None:
                route[key] = item[source]
        routes.append(route)
    return routes


def parse_rules(rule_json):
    """Rules from `ip -j -4 rule show` (and -6)."""
    rules = []
    for item in rule_json:
        rule = {'priority': item.get('priority'), 'table': _table_id(item.get('table', 'main'))}
        src = item.get('src')
        if src and src != 'all':
            rule['from'] = str(ipaddress.ip_network('%s/%s' % (src, item.get('srclen', 32 if ':' not in src else 128)), strict=False))
        dst = item.get('dst')
        if dst and dst != 'all':
            rule['to'] = str(ipaddress.ip_network('%s/%s' % (dst, item.get('dstlen', 32 if ':' not in dst else 128)), strict=False))
        rules.append(rule)
    return rules


def parse_state(addr_json, route_json=(), rule_json=()):
    return {'links': parse_links(addr_json), 'routes': parse_routes(route_json), 'rules': parse_rules(rule_json)}


# --------------------------------------------------------------------------------------------- plan
def _onoff(value):
    return 'on' if value else 'off'


def _create_command(link):
    kind = link['kind']
    command = ['link', 'add', link['name'], 'type', kind]
    if kind == 'vxlan':
        vxlan = link['vxlan']
        command += ['id', str(vxlan['id']), 'local', vxlan['local'], 'dstport', str(vxlan['dstport'])]
        command.append('learning' if vxlan['learning'] else 'nolearning')
        if 'tos' in vxlan:
            command += ['tos', str(vxlan['tos'])]
    elif kind == 'vrf':
        command += ['table', str(link['vrf']['table'])]
    elif kind == 'bridge' and 'stp_state' in link.get('bridge', {}):
        command += ['stp_state', str(link['bridge']['stp_state'])]
    return command


def _needs_recreate(want, have):
    if have['kind'] != want['kind']:
        return True
    if want['kind'] == 'vxlan':
        return any(have['vxlan'].get(key) != want['vxlan'][key] for key in ('id', 'local', 'dstport', 'learning', 'tos')
                   if key in want['vxlan'])
    if want['kind'] == 'vrf':
        return have['vrf'].get('table') != want['vrf']['table']
    return False


def _route_matches(want, have):
    return all(have.get(key) == value for key, value in want.items())


def _route_args(route):
    args = [route['to']]
    for key in ('via', 'dev', 'src', 'scope', 'metric'):
        if key in route:
            args += [key, str(route[key])]
    if route['table'] != SHARED_TABLES['main']:
        args += ['table', str(route['table'])]
    return args


def _rule_args(rule):
    args = []
    if 'from' in rule:
        args += ['from', rule['from']]
    if 'to' in rule:
        args += ['to', rule['to']]
    return args + ['table', str(rule['table']), 'priority', str(rule['priority'])]


def _owned_tables(desired):
    tables = {route['table'] for route in desired['routes']} | {rule['table'] for rule in desired['rules']}
    return tables - set(SHARED_TABLES.values())


def plan(desired, current, purge=False):
    """iproute2 commands (argument lists without the leading `ip`) that turn `current` into `desired`.

    Raises StateError when a listed physical device does not exist: nothing is changed then.
    """
    problems = ['links (%s): the device does not exist (only bridge, vxlan and vrf links are created)' % link['name']
                for link in desired['links'] if link['kind'] is None and link['name'] not in current['links']]
    if problems:
        raise StateError(problems)
    commands = []
    links = current['links']
    wanted = {link['name'] for link in desired['links']}
    if purge:
        for name in sorted(links):
            if links[name]['kind'] in VIRTUAL_KINDS and name not in wanted:
                commands.append(['link', 'del', name])
    existing = set(links)
    for kind in VIRTUAL_KINDS:
        for link in desired['links']:
            if link['kind'] != kind:
                continue
            have = links.get(link['name'])
            if have is not None and _needs_recreate(link, have):
                commands.append(['link', 'del', link['name']])
                existing.discard(link['name'])
            if link['name'] not in existing:
                commands.append(_create_command(link))
    for link in desired['links']:
        name = link['name']
        have = links.get(name) if name in existing else None
        fresh = have is None
        have = have or {'kind': link['kind'], 'mtu': None, 'state': 'down', 'master': None, 'addresses': [],
                        'bridge': {}, 'bridge_slave': None}
        if not fresh and link['kind'] == 'bridge' and 'stp_state' in link.get('bridge', {}) \
                and have.get('bridge', {}).get('stp_state') != link['bridge']['stp_state']:
            commands.append(['link', 'set', 'dev', name, 'type', 'bridge', 'stp_state', str(link['bridge']['stp_state'])])
        if link.get('mac') is not None and have.get('mac') != link['mac']:
            commands.append(['link', 'set', 'dev', name, 'address', link['mac']])
        if link.get('mtu') is not None and have['mtu'] != link['mtu']:
            commands.append(['link', 'set', 'dev', name, 'mtu', str(link['mtu'])])
        if link['master'] != have['master']:
            commands.append(['link', 'set', 'dev', name] + (['master', link['master']] if link['master'] else ['nomaster']))
        if 'bridge_slave' in link:
            learning = link['bridge_slave'].get('learning')
            if link['master'] != have['master']:
                had = True  # a freshly enslaved port starts with learning on
            else:
                had = (have.get('bridge_slave') or {}).get('learning')
            if learning is not None and had != learning:
                commands.append(['link', 'set', 'dev', name, 'type', 'bridge_slave', 'learning', _onoff(learning)])
        if 'addresses' in link:
            for address in have['addresses']:
                if address not in link['addresses']:
                    commands.append(['address', 'del', address, 'dev', name])
            for address in link['addresses']:
                if address not in have['addresses']:
                    commands.append(['address', 'add', address, 'dev', name])
        if link.get('state') is not None and link['state'] != have['state']:
            commands.append(['link', 'set', 'dev', name, link['state']])
    owned = _owned_tables(desired)
    current_routes = current['routes']
    for route in current_routes:
        if route['table'] in owned and route.get('protocol') != 'kernel' and \
                not any(_route_matches(want, route) and want['to'] == route['to'] for want in desired['routes']):
            commands.append(['route', 'del'] + _route_args({key: route[key] for key in ('to', 'table', 'via', 'dev')
                                                           if key in route}))
    for route in desired['routes']:
        if not any(_route_matches(route, have) for have in current_routes):
            commands.append(['route', 'replace'] + _route_args(route))
    current_rules = current['rules']
    for rule in current_rules:
        if rule['table'] in owned and rule not in desired['rules']:
            commands.append(['rule', 'del'] + _rule_args(rule))
    for rule in desired['rules']:
        if rule not in current_rules:
            commands.append(['rule', 'add'] + _rule_args(rule))
    return commands


def checkpoint(current, desired):
    """The state document that puts `current` back after `desired` was applied with purge: every link `desired`
    lists and every bridge, vxlan and vrf link as it is now, and the routes and rules of the tables `desired` owns.
    Applied with purge=True it deletes the virtual links made since and restores the rest. Raises StateError when
    `current` cannot be written as a document (a listed port enslaved to a bond, say): nothing is changed then."""
    listed = {link['name']: link for link in desired['links']}
    links = []
    for name, have in sorted(current['links'].items()):
        kind = have['kind'] if have['kind'] in VIRTUAL_KINDS else None
        if kind is None and name not in listed:
            continue
        # A virtual link may be deleted and made again: all of it. Another link: what `desired` manages of it.
        managed = set(LINK_KEYS) if kind is not None else set(listed[name]) | {'master'}
        link = {'name': name, 'master': have['master']}
        link.update((key, have[key]) for key in ('mtu', 'state', 'mac') if key in managed and have.get(key) is not None)
        if 'addresses' in managed:
            link['addresses'] = list(have['addresses'])
        if kind is not None:
            link['kind'] = kind
            link.update((sub, dict(have[sub])) for sub in ('vxlan', 'bridge', 'vrf') if have.get(sub))
        if have['master'] is not None and have.get('bridge_slave') is not None and 'bridge_slave' in managed:
            link['bridge_slave'] = dict(have['bridge_slave'])
        links.append(link)
    owned = _owned_tables(desired)
    routes = [{key: value for key, value in route.items() if key != 'protocol'} for route in current['routes']
              if route['table'] in owned and route.get('protocol') != 'kernel']
    rules = [rule for rule in current['rules'] if rule['table'] in owned]
    return validate({'links': links, 'routes': routes, 'rules': rules})


def boot_script(desired):
    """`ip -force -batch` lines that rebuild `desired` on a freshly started machine (idempotent enough)."""
    empty_links = {link['name']: {'name': link['name'], 'kind': None, 'mtu': None, 'state': 'down', 'master': None,
                                  'addresses': []}
                   for link in desired['links'] if link['kind'] is None}
    lines = []
    for command in plan(desired, {'links': empty_links, 'routes': [], 'rules': []}):
        if command[:2] == ['address', 'add']:
            command = ['address', 'replace'] + command[2:]
        lines.append(' '.join(command))
    return lines


# --------------------------------------------------------------------------------------------- views
def _link_view(want, have):
    view = {'name': want['name']}
    if have is None:
        view['present'] = False
        return view
    for key in sorted(want):
        if key == 'name' or (key == 'kind' and want['kind'] is None):
            continue
        value = have.get(key)
        if isinstance(want[key], dict) and isinstance(value, dict):
            value = {sub: value.get(sub) for sub in want[key]}
        view[key] = value
    return view


def summarize(desired, current):
    """What `current` looks like through the eyes of `desired` (same shape as desired_view when equal)."""
    owned = _owned_tables(desired)
    links = [_link_view(want, current['links'].get(want['name'])) for want in desired['links']]
    routes = [want for want in desired['routes'] if any(_route_matches(want, have) for have in current['routes'])]
    routes += [{key: value for key, value in route.items() if key != 'protocol'} for route in current['routes']
               if route['table'] in owned and route.get('protocol') != 'kernel'
               and not any(_route_matches(want, route) and want['to'] == route['to'] for want in desired['routes'])]
    rules = [rule for rule in desired['rules'] if rule in current['rules']]
    rules += [rule for rule in current['rules'] if rule['table'] in owned and rule not in desired['rules']]
    return {'links': links, 'routes': routes, 'rules': rules}


def desired_view(desired):
    links = [_link_view(want, want) for want in desired['links']]
    return {'links': links, 'routes': list(desired['routes']), 'rules': list(desired['rules'])}


def to_text(data):
    return json.dumps(data, indent=2, sort_keys=True) + '\n'
