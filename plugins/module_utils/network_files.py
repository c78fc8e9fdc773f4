# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A Linux network state (linux_netdev's links, routes and rules of existing interfaces) as the configuration files of
the network service a server runs: netplan (Ubuntu), systemd-networkd, or none of them.

Which service owns the interfaces decides where the state must live: netplan renders /etc/netplan/*.yaml for its
backend (systemd-networkd or NetworkManager) and `netplan apply` rewrites the runtime state from those files, so
addresses set beside it with `ip` disappear at the next apply or boot; systemd-networkd likewise reconfigures a link
it matches from its .network files and, by default, removes routes and rules it does not know
(ManageForeignRoutes=, ManageForeignRoutingPolicyRules= in networkd.conf(5)). On such a server the rails are
written in the service's own format, so it keeps them. Where neither runs, the aifabric-netdev script applies them
with `ip`; NetworkManager, if it runs there, is told to leave the rail interfaces alone (NetworkManager.conf(5),
`unmanaged-devices`).

Formats: netplan YAML reference (https://netplan.readthedocs.io/en/stable/netplan-yaml/: `ethernets`, `mtu`,
`addresses`, `routes` with `to`, `via`, `from`, `scope`, `table`; `routing-policy` with `from`, `to`, `table`, `priority`);
systemd.network(5) (`[Match] Name=`, `[Link] MTUBytes=`, `[Network] Address=`, `[Route] Destination=, Gateway=,
PreferredSource=, Scope=, Table=`, `[RoutingPolicyRule] From=, To=, Table=, Priority=`).
"""

from __future__ import annotations

import json

NETPLAN = 'netplan'
NETWORKD = 'networkd'
SCRIPT = 'script'
BACKENDS = (NETPLAN, NETWORKD, SCRIPT)
HEADER = 'Rendered by aifabric.fabric (host_network): the rail interfaces of this GPU server. Changes are overwritten.'


class StateShapeError(ValueError):
    """The state holds something these formats cannot say (a bridge or VXLAN device, a route without a device)."""


def detect(host):
    """(backend, reason): netplan when its tool and a configuration in /etc/netplan are there, systemd-networkd when
    it is running (it keeps /run/systemd/netif while it runs), else the script."""
    netplan_files = [name for name in host.listdir('/etc/netplan') if name.endswith(('.yaml', '.yml'))]
    if host.which('netplan') and netplan_files:
        return NETPLAN, 'netplan configures this server (/etc/netplan/%s)' % netplan_files[0]
    if host.isdir('/run/systemd/netif') and host.which('networkctl'):
        return NETWORKD, 'systemd-networkd runs on this server (/run/systemd/netif)'
    return SCRIPT, 'neither netplan nor systemd-networkd configures this server'


def network_manager_runs(host) -> bool:
    """NetworkManager keeps its runtime directory while it runs (/run/NetworkManager)."""
    return host.isdir('/run/NetworkManager') and bool(host.which('nmcli'))


def _interfaces(state):
    """[(name, {'mtu', 'addresses', 'routes', 'rules'})] in the state's order; StateShapeError for what the
    formats cannot hold."""
    kinds = sorted({link['name'] for link in state.get('links', []) if link.get('kind') or link.get('master')})
    if kinds:
        verb = 'is' if len(kinds) == 1 else 'are'
        raise StateShapeError('only existing interfaces can be written for netplan or systemd-networkd; %s %s a '
                              'bridge, VXLAN or VRF device or one enslaved to it' % (', '.join(kinds), verb))
    interfaces = {link['name']: {'mtu': link.get('mtu'), 'addresses': list(link.get('addresses') or []),
                                 'routes': [], 'rules': []} for link in state.get('links', [])}
    for route in state.get('routes', []):
        if route.get('dev') not in interfaces:
            raise StateShapeError('route to %s leaves through %r, which is not one of the interfaces (%s)'
                                  % (route.get('to'), route.get('dev'), ', '.join(interfaces)))
        interfaces[route['dev']]['routes'].append(route)
    owner = {address.split('/')[0]: name for name, item in interfaces.items() for address in item['addresses']}
    for rule in state.get('rules', []):
        source = str(rule.get('from', '')).split('/', maxsplit=1)[0]
        if source not in owner:
            raise StateShapeError('rule from %s is for no address of the interfaces' % rule.get('from'))
        interfaces[owner[source]]['rules'].append(rule)
    return list(interfaces.items())


def _scalar(value):
    """A YAML flow scalar: numbers as they are, text as JSON text (a subset of YAML that needs no escaping rules)."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else json.dumps(str(value))


def _flow(mapping):
    return '{%s}' % ', '.join('%s: %s' % (key, _scalar(value)) for key, value in mapping.items())


def netplan_yaml(state) -> str:
    """/etc/netplan/<name>.yaml for the state's interfaces."""
    lines = ['# ' + HEADER, 'network:', '  version: 2', '  ethernets:']
    for name, item in _interfaces(state):
        lines.append('    %s:' % _scalar(name))
        if item['mtu']:
            lines.append('      mtu: %d' % item['mtu'])
        lines.append('      addresses: [%s]' % ', '.join(_scalar(address) for address in item['addresses']))
        if item['routes']:
            lines.append('      routes:')
            for route in item['routes']:
                entry = {'to': route['to']}
                for key, netplan_key in (('via', 'via'), ('src', 'from'), ('scope', 'scope'), ('table', 'table'),
                                         ('metric', 'metric')):
                    if route.get(key) not in (None, ''):
                        entry[netplan_key] = route[key]
                lines.append('        - ' + _flow(entry))
        if item['rules']:
            lines.append('      routing-policy:')
            for rule in item['rules']:
                entry = {'from': rule['from']}
                for key in ('to', 'table', 'priority'):
                    if rule.get(key) not in (None, ''):
                        entry[key] = rule[key]
                lines.append('        - ' + _flow(entry))
    return '\n'.join(lines) + '\n'


def networkd_files(state, prefix='60-aifabric') -> dict:
    """{file name: text}: one systemd .network file per interface of the state."""
    files = {}
    for name, item in _interfaces(state):
        lines = ['# ' + HEADER, '[Match]', 'Name=%s' % name, '']
        if item['mtu']:
            lines += ['[Link]', 'MTUBytes=%d' % item['mtu'], '']
        lines += ['[Network]'] + ['Address=%s' % address for address in item['addresses']] + ['']
        for route in item['routes']:
            lines += ['[Route]', 'Destination=%s' % route['to']]
            for key, option in (('via', 'Gateway'), ('src', 'PreferredSource'), ('scope', 'Scope'), ('table', 'Table'),
                                ('metric', 'Metric')):
                if route.get(key) not in (None, ''):
                    lines.append('%s=%s' % (option, route[key]))
            lines.append('')
        for rule in item['rules']:
            lines += ['[RoutingPolicyRule]', 'From=%s' % rule['from']]
            for key, option in (('to', 'To'), ('table', 'Table'), ('priority', 'Priority')):
                if rule.get(key) not in (None, ''):
                    lines.append('%s=%s' % (option, rule[key]))
            lines.append('')
        files['%s-%s.network' % (prefix, name)] = '\n'.join(lines).rstrip('\n') + '\n'
    return files


def network_manager_conf(state) -> str:
    """NetworkManager conf.d file that leaves the state's interfaces to the script."""
    names = ';'.join('interface-name:%s' % name for name, _item in _interfaces(state))
    return '# %s\n[keyfile]\nunmanaged-devices=%s\n' % (HEADER, names)


__all__ = ['BACKENDS', 'NETPLAN', 'NETWORKD', 'SCRIPT', 'StateShapeError', 'detect', 'network_manager_runs',
           'netplan_yaml', 'networkd_files', 'network_manager_conf']
