# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Faults drawn from the design, not from a list: every kind of fault can land on any place the design has for it
(any cabled port, any BGP session end, any VNI of any leaf, any remote VTEP, any daemon, any rail rule...).

A kind knows where it can happen (`places`), which devices it touches (`scope`: faults of one round touch disjoint
devices), what validation must name first (the cause's kind, on the fault's device), whether it changes what the
deploy manages (`drift`: validation must find the difference), how it changes the simulated world (`apply`,
tests/faults/world.py) and how it is made and undone on the lab's FRR and Linux nodes (`lab`: argv run on the device
over SSH, or on the Docker host for what needs the container itself).

    rounds = generate(design, seed=7, rounds=20, per_round=3)

The seed is printed by every user (the tests, benchmarks/bench_causes.py, the clab_faults scenario), so any round
can be replayed.
"""

from __future__ import annotations

import ipaddress
import random

FRR_CONF = '/etc/frr/frr.conf'
# the `router bgp` block of the configuration FRR starts with (frr_config writes it): re-applied to undo a change
BGP_BLOCK = "awk '/^router bgp /{on=1} on{print} /^exit$/{on=0}' %s > /tmp/aifabric-bgp.conf && vtysh -f /tmp/aifabric-bgp.conf" % FRR_CONF


class Fault(dict):
    """One fault: kind, device (where the design is contradicted), target (kind-specific), cause (the kind of
    cause validation must name first), drift (what the deploy manages changes), scope (devices it touches)."""

    @property
    def title(self):
        return '%s on %s %s' % (self['kind'], self['device'], ' '.join(
            '%s=%s' % (key, value) for key, value in sorted(self['target'].items()) if key != 'device'))


def _sh(*lines):
    return ['sh', '-c', ' && '.join(lines)]


def _vtysh(asn, *lines, family=None):
    argv = ['vtysh', '-c', 'configure terminal', '-c', 'router bgp %s' % asn]
    if family:
        argv += ['-c', 'address-family %s' % family]
    for line in lines:
        argv += ['-c', line]
    return argv


class Kind:
    name = ''
    cause = ''
    drift = True
    lab_ok = True  # can be made on the lab quickly (frozen containers wait out SSH timeouts: campaign only)
    # A Linux network stack on the device (netdevs, iproute2, lldpd, FRR's daemons): the kind changes those. Switches
    # have it where their platform forwards in the kernel (Platform.kernel_dataplane); GPU servers always.
    linux = False

    def places(self, world) -> list:
        raise NotImplementedError

    def fits(self, world, name) -> bool:
        return not self.linux or world.linux(name)

    def scope(self, world, target) -> set:
        return {target['device']}

    def apply(self, world, target):
        raise NotImplementedError

    def lab(self, world, target) -> dict:
        raise NotImplementedError

    def fault(self, world, target):
        return Fault(kind=self.name, device=target['device'], target=target, cause=self.cause, drift=self.drift,
                     scope=sorted(self.scope(world, target)))


def _switches(world, roles=('leaf', 'spine', 'super_spine')):
    return [name for name, device in world.devices.items() if device['role'] in roles]


def _ports(world, name):
    device = world.devices[name]
    return [port for port in device['ports'] if world.far_end(name, port)]


def _part(world, name):
    return 'rails' if world.devices[name]['role'] == 'host' else 'interfaces'


def _rail(world, host, interface):
    return next(rail for rail in world.devices[host]['model']['rails'] if rail['interface'] == interface)


def _restore_rail(world, host, interface):
    """Shell lines that put a GPU server rail back as host_network sets it (links, address, its table, its rule)."""
    model = world.devices[host]['model']
    rail = _rail(world, host, interface)
    lines = ['ip link set %s mtu %d' % (interface, model['mtu']), 'ip link set %s up' % interface,
             'ip address replace %s dev %s' % (rail['address'], interface),
             'ip route replace %s dev %s src %s table %s scope link' % (rail.get('subnet') or rail['address'], interface,
                                                                        rail['ip'], rail['table'])]
    lines += ['ip route replace %s via %s dev %s src %s table %s' % (route['to'], route['via'], interface, rail['ip'],
                                                                     rail['table']) for route in rail.get('routes') or []]
    lines.append('{ ip rule del from %s/32 table %s priority %s 2>/dev/null; ip rule add from %s/32 table %s priority %s; }'
                 % (rail['ip'], rail['table'], rail['rule_priority'], rail['ip'], rail['table'], rail['rule_priority']))
    return lines


class PortDown(Kind):
    name, cause = 'port_down', 'admin_down'

    def places(self, world):
        return [{'device': name, 'port': port} for name in world.devices for port in _ports(world, name)]

    def scope(self, world, target):
        return {target['device'], world.far_end(target['device'], target['port'])[0]}

    def apply(self, world, target):
        world.port(target['device'], target['port'])['admin_up'] = False
        world.drifted(target['device'], _part(world, target['device']), '+ip link set dev %s up' % target['port'])

    def lab(self, world, target):
        name, port = target['device'], target['port']
        undo = _sh(*_restore_rail(world, name, port)) if world.devices[name]['role'] == 'host' else \
            ['ip', 'link', 'set', port, 'up']
        return {'inject': ['ip', 'link', 'set', port, 'down'], 'undo': undo}


class PortMtu(PortDown):
    name, cause = 'port_mtu', 'mtu'

    def apply(self, world, target):
        port = world.port(target['device'], target['port'])
        world.drifted(target['device'], _part(world, target['device']),
                      '+ip link set dev %s mtu %d' % (target['port'], port['mtu']))
        port['mtu'] = 1500

    def lab(self, world, target):
        designed = world.port(target['device'], target['port'])['mtu']
        return {'inject': ['ip', 'link', 'set', target['port'], 'mtu', '1500'],
                'undo': ['ip', 'link', 'set', target['port'], 'mtu', str(designed)]}


class PortAddress(PortDown):
    name, cause = 'port_address', 'address'

    def places(self, world):
        return [{'device': name, 'port': port, 'address': world.port(name, port)['addresses'][0],
                 'other': _other_address(world.port(name, port)['addresses'][0], index)}
                for index, (name, port) in enumerate((name, port) for name in world.devices for port in _ports(world, name)
                                                     if world.port(name, port)['addresses'])]

    def apply(self, world, target):
        world.port(target['device'], target['port'])['addresses'] = [target['other']]
        world.drifted(target['device'], _part(world, target['device']),
                      '+ip address del %s dev %s' % (target['other'], target['port']),
                      '+ip address add %s dev %s' % (target['address'], target['port']))

    def lab(self, world, target):
        name, port = target['device'], target['port']
        inject = _sh('ip address del %s dev %s' % (target['address'], port),
                     'ip address add %s dev %s' % (target['other'], port))
        if world.devices[name]['role'] == 'host':
            undo = _sh('ip address del %s dev %s' % (target['other'], port), *_restore_rail(world, name, port))
        else:
            undo = _sh('ip address del %s dev %s' % (target['other'], port),
                       'ip address add %s dev %s' % (target['address'], port))
        return {'inject': inject, 'undo': undo}


def _other_address(address, index):
    """An address of the same length in a range the design does not use (198.18.0.0/15, RFC 2544 benchmarking)."""
    interface = ipaddress.ip_interface(address)
    base = int(ipaddress.ip_address('198.18.0.0')) + index * (2 ** (32 - interface.network.prefixlen)) * 2
    offset = int(interface.ip) - int(interface.network.network_address)
    return '%s/%d' % (ipaddress.ip_address(base + offset), interface.network.prefixlen)


class PortMissing(PortDown):
    name, cause, drift = 'port_missing', 'port_missing', 'error'  # the deploy refuses to plan without the port

    def apply(self, world, target):
        world.port(target['device'], target['port'])['exists'] = False
        world.drifted(target['device'], 'error', 'links (%s): the device does not exist' % target['port'])

    def lab(self, world, target):
        name, port = target['device'], target['port']
        gone = ('x' + port)[:15]
        undo = ['ip link set %s name %s' % (gone, port)]
        if world.devices[name]['role'] == 'host':
            undo += _restore_rail(world, name, port)
        else:
            # FRR 8.4's zebra keeps the next-hop group it had without the port after the rename back (the route
            # stays rejected in BGP while the kernel's is healthy); a restart rebuilds it from the kernel.
            undo += ['ip link set %s up' % port, '/usr/lib/frr/frrinit.sh restart']
        return {'inject': _sh('ip link set %s down' % port, 'ip link set %s name %s' % (port, gone)), 'undo': _sh(*undo)}


class CablesSwapped(Kind):
    name, cause, drift = 'cables_swapped', 'cabling', False

    def places(self, world):
        places = []
        for name in _switches(world, ('leaf',)):
            ports = [port for port in _ports(world, name) if world.devices[world.far_end(name, port)[0]]['role'] == 'host']
            for first, second in zip(ports, ports[1:]):
                if world.port(name, first)['master'] == world.port(name, second)['master']:
                    places.append({'device': name, 'ports': [first, second]})
        return places

    def scope(self, world, target):
        return {target['device']} | {world.far_end(target['device'], port)[0] for port in target['ports']}

    def apply(self, world, target):
        name, (first, second) = target['device'], target['ports']
        one, two = world.cables[(name, first)], world.cables[(name, second)]
        world.cables[(name, first)], world.cables[(name, second)] = two, one
        world.cables[one], world.cables[two] = (name, second), (name, first)

    def lab(self, world, target):
        name, (first, second) = target['device'], target['ports']
        wait = 'for try in 1 2 3 4 5 6 7 8 9 10; do lldpcli show interfaces >/dev/null 2>&1 && break; sleep 0.5; done'

        def rename(a, b):
            return 'ip link set %s name aifabric-swap && ip link set %s name %s && ip link set aifabric-swap name %s' % (
                a, b, a, b)
        announce = [{'device': peer, 'argv': ['lldpcli', 'update']} for peer in sorted(
            {world.far_end(name, port)[0] for port in _ports(world, name)})]
        return {'inject': ['sh', '-c', '%s && service lldpd restart && %s' % (rename(first, second), wait)],
                'undo': ['sh', '-c', '%s; service lldpd restart; %s' % (rename(second, first), wait)],
                'after_inject': announce, 'after_undo': announce}


class _Session(Kind):

    def places(self, world):
        return [{'device': name, 'key': key, 'peer': neighbor['peer']} for name in _switches(world)
                for key, neighbor in sorted(world.devices[name]['bgp']['neighbors'].items())]

    def scope(self, world, target):
        return {target['device'], target['peer']}

    @staticmethod
    def asn(world, target):
        return world.devices[target['device']]['bgp']['asn']


class SessionShutdown(_Session):
    name, cause = 'session_shutdown', 'session_shutdown'

    def apply(self, world, target):
        world.devices[target['device']]['bgp']['neighbors'][target['key']]['shutdown'] = True
        world.drifted(target['device'], 'FRR', '-router bgp %s' % self.asn(world, target),
                      '- no neighbor %s shutdown' % target['key'])

    def lab(self, world, target):
        asn = self.asn(world, target)
        return {'inject': _vtysh(asn, 'neighbor %s shutdown' % target['key']),
                'undo': _vtysh(asn, 'no neighbor %s shutdown' % target['key'])}


class RemoteAs(_Session):
    name, cause = 'remote_as', 'remote_as'

    def apply(self, world, target):
        neighbor = world.devices[target['device']]['bgp']['neighbors'][target['key']]
        world.drifted(target['device'], 'FRR', '-router bgp %s' % self.asn(world, target),
                      '- neighbor %s remote-as 64999' % target['key'],
                      '+ neighbor %s remote-as %s' % (target['key'], neighbor['remote_as']))
        neighbor['remote_as'] = 64999

    def lab(self, world, target):
        asn = self.asn(world, target)
        designed = world.devices[target['device']]['bgp']['neighbors'][target['key']]['remote_as']
        return {'inject': _vtysh(asn, 'neighbor %s remote-as 64999' % target['key']),
                'undo': _vtysh(asn, 'neighbor %s remote-as %s' % (target['key'], designed))}


class NeighbourRemoved(_Session):
    name, cause = 'neighbour_removed', 'neighbour_missing'

    def apply(self, world, target):
        del world.devices[target['device']]['bgp']['neighbors'][target['key']]
        world.drifted(target['device'], 'FRR', '+router bgp %s' % self.asn(world, target),
                      '+ neighbor %s remote-as' % target['key'])

    def lab(self, world, target):
        return {'inject': _vtysh(self.asn(world, target), 'no neighbor %s' % target['key']),
                'undo': ['sh', '-c', BGP_BLOCK]}


class LocalAs(Kind):
    name, cause = 'local_as', 'local_as'

    def places(self, world):
        return [{'device': name} for name in _switches(world)]

    def apply(self, world, target):
        bgp = world.devices[target['device']]['bgp']
        world.drifted(target['device'], 'FRR', '-router bgp 65099', '+router bgp %s' % bgp['asn'])
        bgp['asn'] = 65099

    def lab(self, world, target):
        asn = world.devices[target['device']]['bgp']['asn']
        block = "awk '/^router bgp /{on=1} on{print} /^exit$/{on=0}' %s" % FRR_CONF
        return {'inject': ['sh', '-c', "%s | sed 's/^router bgp .*/router bgp 65099/' > /tmp/aifabric-as.conf && vtysh -c "
                           "'configure terminal' -c 'no router bgp %s' && vtysh -f /tmp/aifabric-as.conf" % (block, asn)],
                'undo': ['sh', '-c', "vtysh -c 'configure terminal' -c 'no router bgp 65099'; %s" % BGP_BLOCK]}


class BgpdStopped(LocalAs):
    name, cause = 'bgpd_stopped', 'daemon_down'
    linux = True

    def apply(self, world, target):
        world.devices[target['device']]['daemons']['bgpd'] = False
        world.drifted(target['device'], 'FRR', '+router bgp %s' % world.devices[target['device']]['bgp']['asn'])

    def lab(self, world, target):
        return {'inject': ['sh', '-c', 'kill "$(cat /var/run/frr/watchfrr.pid)"; sleep 1; kill "$(cat /var/run/frr/bgpd.pid)"'],
                'undo': ['/usr/lib/frr/frrinit.sh', 'start']}


class LldpdStopped(Kind):
    name, cause, drift = 'lldpd_stopped', 'daemon_down', False
    linux = True

    def places(self, world):
        return [{'device': name} for name in world.devices]

    def scope(self, world, target):
        return {target['device']} | {world.far_end(target['device'], port)[0] for port in _ports(world, target['device'])}

    def apply(self, world, target):
        world.devices[target['device']]['daemons']['lldpd'] = False

    def lab(self, world, target):
        name = target['device']
        # a started lldpd hears its neighbours at their next announcement: they announce at once
        announce = [{'device': peer, 'argv': ['lldpcli', 'update']} for peer in sorted(
            {world.far_end(name, port)[0] for port in _ports(world, name)})]
        return {'inject': ['service', 'lldpd', 'stop'], 'undo': ['service', 'lldpd', 'start'], 'after_undo': announce}


class Unreadable(LldpdStopped):
    name, cause, drift = 'unreadable', 'unreadable', 'error'
    linux = False

    def scope(self, world, target):
        return {target['device']}

    def apply(self, world, target):
        world.devices[target['device']]['daemons']['sshd'] = False

    def lab(self, world, target):
        # every sshd of the node (the listener and the sessions a ControlMaster keeps), in the container only
        return {'via': 'docker', 'inject': ['sh', '-c', 'kill $(pgrep -x sshd)'], 'undo': ['/usr/sbin/sshd']}


class Frozen(Unreadable):
    name, cause = 'frozen', 'unreadable'
    lab_ok = False

    def scope(self, world, target):
        return LldpdStopped.scope(self, world, target)

    def apply(self, world, target):
        world.devices[target['device']]['frozen'] = True

    def lab(self, world, target):
        return {'via': 'docker_host', 'inject': ['docker', 'pause', '{container}'],
                'undo': ['docker', 'unpause', '{container}']}


def _vlans(world):
    return [(name, vlan) for name in _switches(world, ('leaf',))
            for vlan in (world.devices[name]['model'].get('evpn') or {}).get('vlans') or []]


def _vxlan_add(world, leaf, vlan, vni, local=None, tos=True):
    model = world.devices[leaf]['model']
    evpn = model['evpn']
    name = 'vxlan%d' % vlan['vni']
    inherit = ' tos inherit' if tos and evpn['tunnel_qos']['encap_dscp'] == 'copy' else ''
    return ('ip link add %s type vxlan id %d local %s dstport %d%s nolearning && ip link set %s mtu %d master br%d up '
            '&& bridge link set dev %s learning off' % (
                name, vni, local or evpn['vtep_ip'], evpn['udp_port'], inherit, name, world.port(leaf, name)['mtu'],
                vlan['vlan'], name))


class _Vni(Kind):
    linux = True

    def places(self, world):
        return [{'device': name, 'vni': vlan['vni'], 'vlan': vlan['vlan']} for name, vlan in _vlans(world)]

    @staticmethod
    def vxlan(world, target):
        return world.port(target['device'], 'vxlan%d' % target['vni'])

    @staticmethod
    def vlan(world, target):
        return next(vlan for vlan in world.devices[target['device']]['model']['evpn']['vlans']
                    if vlan['vni'] == target['vni'])

    def recreate(self, world, target):
        return _sh('ip link del vxlan%d' % target['vni'],
                   _vxlan_add(world, target['device'], self.vlan(world, target), target['vni']))


class VniMissing(_Vni):
    name, cause = 'vni_missing', 'vni'

    def apply(self, world, target):
        self.vxlan(world, target)['exists'] = False
        world.drifted(target['device'], 'interfaces', '+ip link add vxlan%d type vxlan id %d' % (target['vni'], target['vni']))

    def lab(self, world, target):
        return {'inject': ['ip', 'link', 'del', 'vxlan%d' % target['vni']],
                'undo': ['sh', '-c', _vxlan_add(world, target['device'], self.vlan(world, target), target['vni'])]}


class VniWrong(_Vni):
    name, cause = 'vni_wrong', 'vni'

    def apply(self, world, target):
        self.vxlan(world, target)['vxlan']['id'] = 10999 if target['vni'] != 10999 else 10998
        world.drifted(target['device'], 'interfaces', '+ip link del vxlan%d' % target['vni'],
                      '+ip link add vxlan%d type vxlan id %d' % (target['vni'], target['vni']))

    def lab(self, world, target):
        other = 10999 if target['vni'] != 10999 else 10998
        return {'inject': _sh('ip link del vxlan%d' % target['vni'], _vxlan_add(world, target['device'], self.vlan(
            world, target), other)), 'undo': self.recreate(world, target)}


class VxlanDown(_Vni):
    name, cause = 'vxlan_down', 'vni'

    def apply(self, world, target):
        self.vxlan(world, target)['admin_up'] = False
        world.drifted(target['device'], 'interfaces', '+ip link set dev vxlan%d up' % target['vni'])

    def lab(self, world, target):
        return {'inject': ['ip', 'link', 'set', 'vxlan%d' % target['vni'], 'down'],
                'undo': ['ip', 'link', 'set', 'vxlan%d' % target['vni'], 'up']}


class VxlanMtu(_Vni):
    name, cause = 'vxlan_mtu', 'vxlan_mtu'

    def apply(self, world, target):
        port = self.vxlan(world, target)
        world.drifted(target['device'], 'interfaces', '+ip link set dev vxlan%d mtu %d' % (target['vni'], port['mtu']))
        port['mtu'] = 1500

    def lab(self, world, target):
        return {'inject': ['ip', 'link', 'set', 'vxlan%d' % target['vni'], 'mtu', '1500'],
                'undo': ['ip', 'link', 'set', 'vxlan%d' % target['vni'], 'mtu', str(self.vxlan(world, target)['mtu'])]}


class Marking(_Vni):
    name, cause = 'marking', 'marking'

    def places(self, world):
        return [place for place in super().places(world) if self.vxlan(world, place)['vxlan']['tos'] == 1]

    def apply(self, world, target):
        self.vxlan(world, target)['vxlan']['tos'] = 0
        world.drifted(target['device'], 'interfaces', '+ip link del vxlan%d' % target['vni'],
                      '+ip link add vxlan%d type vxlan id %d tos inherit' % (target['vni'], target['vni']))

    def lab(self, world, target):
        return {'inject': _sh('ip link del vxlan%d' % target['vni'], _vxlan_add(world, target['device'], self.vlan(
            world, target), target['vni'], tos=False)), 'undo': self.recreate(world, target)}


class RouteTarget(_Vni):
    name, cause = 'route_target', 'route_target'

    def apply(self, world, target):
        config = world.devices[target['device']]['bgp']['vnis'][target['vni']]
        bad = '64999:%d' % target['vni']
        world.drifted(target['device'], 'FRR', '- route-target import %s' % bad, '+ route-target import %s' % config['import'][0])
        config['import'], config['export'] = [bad], [bad]

    def lab(self, world, target):
        asn = world.devices[target['device']]['bgp']['asn']
        designed = self.vlan(world, target)['route_target']
        bad = '64999:%d' % target['vni']
        lines = ['vni %d' % target['vni']]
        return {'inject': _vtysh(asn, *(lines + ['no route-target import %s' % designed, 'no route-target export %s'
                                                 % designed, 'route-target import %s' % bad,
                                                 'route-target export %s' % bad]), family='l2vpn evpn'),
                'undo': _vtysh(asn, *(lines + ['no route-target import %s' % bad, 'no route-target export %s' % bad,
                                               'route-target import %s' % designed, 'route-target export %s' % designed]),
                               family='l2vpn evpn')}


class VniExtra(Kind):
    name, cause = 'vni_extra', 'unexpected_vni'
    linux = True

    def places(self, world):
        return [{'device': name} for name in _switches(world, ('leaf',)) if world.devices[name]['model'].get('evpn')]

    def apply(self, world, target):
        ports = world.devices[target['device']]['ports']
        evpn = world.devices[target['device']]['model']['evpn']
        tos = 1 if evpn['tunnel_qos']['encap_dscp'] == 'copy' else 0
        ports['aifabric-br999'] = {'exists': True, 'admin_up': True, 'mtu': 1500, 'addresses': [], 'master': None,
                                   'kind': 'bridge', 'vxlan': None}
        ports['vxlan99999'] = {'exists': True, 'admin_up': True, 'mtu': 1500, 'addresses': [], 'master': 'aifabric-br999',
                               'kind': 'vxlan', 'vxlan': {'id': 99999, 'local': evpn['vtep_ip'], 'port': 4789, 'tos': tos}}
        world.drifted(target['device'], 'interfaces', '+ip link del aifabric-br999', '+ip link del vxlan99999')

    def lab(self, world, target):
        evpn = world.devices[target['device']]['model']['evpn']
        inherit = ' tos inherit' if evpn['tunnel_qos']['encap_dscp'] == 'copy' else ''
        return {'inject': _sh('ip link add aifabric-br999 type bridge', 'ip link set aifabric-br999 up',
                              'ip link add vxlan99999 type vxlan id 99999 local %s dstport %d%s nolearning' % (
                                  evpn['vtep_ip'], evpn['udp_port'], inherit),
                              'ip link set vxlan99999 master aifabric-br999 up'),
                'undo': ['sh', '-c', 'ip link del vxlan99999; ip link del aifabric-br999']}


class VtepAddress(Kind):
    name, cause = 'vtep_address', 'vtep_address'
    linux = True

    def places(self, world):
        return [{'device': name, 'other': '198.19.%d.%d' % divmod(index + 1, 256)}
                for index, name in enumerate(_switches(world, ('leaf',))) if world.devices[name]['model'].get('evpn')]

    def apply(self, world, target):
        device = world.devices[target['device']]
        vtep = device['model']['evpn']['vtep_ip']
        device['ports']['lo']['addresses'] = [item for item in device['ports']['lo']['addresses']
                                              if not item.startswith(vtep + '/')] + [target['other'] + '/32']
        for port in device['ports'].values():
            if port['kind'] == 'vxlan' and port['vxlan']['local'] == vtep:
                port['vxlan']['local'] = target['other']
        world.drifted(target['device'], 'interfaces', '+ip address add %s/32 dev lo' % vtep)

    def lab(self, world, target):
        name = target['device']
        evpn = world.devices[name]['model']['evpn']
        vlans = evpn['vlans']
        inject = ['ip address del %s/32 dev lo' % evpn['vtep_ip'], 'ip address add %s/32 dev lo' % target['other']]
        undo = ['ip address del %s/32 dev lo' % target['other'], 'ip address add %s/32 dev lo' % evpn['vtep_ip']]
        for vlan in vlans:
            inject += ['ip link del vxlan%d' % vlan['vni'], _vxlan_add(world, name, vlan, vlan['vni'], local=target['other'])]
            undo += ['ip link del vxlan%d' % vlan['vni'], _vxlan_add(world, name, vlan, vlan['vni'])]
        return {'inject': _sh(*inject), 'undo': _sh(*undo)}


class VtepBlackhole(Kind):
    name, cause, drift = 'vtep_blackhole', 'route', False

    def places(self, world):
        places = []
        for name in _switches(world, ('leaf',)):
            evpn = world.devices[name]['model'].get('evpn') or {}
            mine = {vlan['vni'] for vlan in evpn.get('vlans') or []}
            for other in _switches(world, ('leaf',)):
                theirs = world.devices[other]['model'].get('evpn') or {}
                if other != name and mine & {vlan['vni'] for vlan in theirs.get('vlans') or []}:
                    places.append({'device': name, 'remote': other, 'vtep': theirs['vtep_ip']})
        return places

    def apply(self, world, target):
        world.devices[target['device']]['routes'].append({'dst': target['vtep'], 'type': 'blackhole', 'protocol': None,
                                                          'metric': None, 'nexthops': []})

    def lab(self, world, target):
        return {'inject': ['ip', 'route', 'add', 'blackhole', target['vtep'] + '/32'],
                'undo': ['ip', 'route', 'del', 'blackhole', target['vtep'] + '/32']}


class MaximumPaths(LocalAs):
    name, cause = 'maximum_paths', 'drift'

    def apply(self, world, target):
        bgp = world.devices[target['device']]['bgp']
        world.drifted(target['device'], 'FRR', '-  no maximum-paths 1', '+  maximum-paths %d' % bgp['maximum_paths'])
        bgp['maximum_paths'] = 1

    def lab(self, world, target):
        bgp = world.devices[target['device']]['bgp']
        return {'inject': _vtysh(bgp['asn'], 'maximum-paths 1', family='ipv4 unicast'),
                'undo': _vtysh(bgp['asn'], 'maximum-paths %d' % bgp['maximum_paths'], family='ipv4 unicast')}


class HostRule(Kind):
    name, cause = 'host_rule', 'drift'

    def places(self, world):
        return [{'device': name, 'port': rail['interface'], 'ip': rail['ip'], 'table': rail['table'],
                 'priority': rail['rule_priority']}
                for name, device in world.devices.items() if device['role'] == 'host' for rail in device['model']['rails']]

    def apply(self, world, target):
        world.devices[target['device']]['rules'][target['port']] = False
        world.drifted(target['device'], 'rails', '+ip rule add from %s/32 table %s priority %s' % (
            target['ip'], target['table'], target['priority']))

    def lab(self, world, target):
        rule = ['from', '%s/32' % target['ip'], 'table', str(target['table']), 'priority', str(target['priority'])]
        return {'inject': ['ip', 'rule', 'del'] + rule, 'undo': ['ip', 'rule', 'add'] + rule}


class HostSysctl(HostRule):
    name = 'host_sysctl'

    def places(self, world):
        return [{'device': name, 'key': key, 'value': str(value)} for name, device in world.devices.items()
                if device['role'] == 'host' for key, value in sorted((device['model'].get('sysctl') or {}).items())[:2]]

    def apply(self, world, target):
        world.drifted(target['device'], 'sysctl', '-%s = %s' % (target['key'], _other_sysctl(target['value'])))

    def lab(self, world, target):
        return {'inject': ['sysctl', '-q', '-w', '%s=%s' % (target['key'], _other_sysctl(target['value']))],
                'undo': ['sysctl', '-q', '-w', '%s=%s' % (target['key'], target['value'])]}


def _other_sysctl(value):
    return '0' if str(value) != '0' else '1'


class NcclConf(HostRule):
    name = 'nccl_conf'

    def places(self, world):
        return [{'device': name, 'key': key, 'value': str(value)} for name, device in world.devices.items()
                if device['role'] == 'host' for key, value in sorted((device['model'].get('nccl') or {}).items())[:3]
                if '|' not in str(value)]

    def apply(self, world, target):
        world.devices[target['device']]['nccl'][target['key']] = 'aifabric-drift'

    def lab(self, world, target):

        def line(value):
            return "sed -i 's|^%s=.*|%s=%s|' /etc/nccl.conf" % (target['key'], target['key'], value)
        return {'inject': ['sh', '-c', line('aifabric-drift')], 'undo': ['sh', '-c', line(target['value'])]}


KINDS = {kind.name: kind for kind in (
    PortDown(), PortMtu(), PortAddress(), PortMissing(), CablesSwapped(), SessionShutdown(), RemoteAs(),
    NeighbourRemoved(), LocalAs(), BgpdStopped(), LldpdStopped(), Unreadable(), Frozen(), VniMissing(), VniWrong(),
    VxlanDown(), VxlanMtu(), Marking(), RouteTarget(), VniExtra(), VtepAddress(), VtepBlackhole(), MaximumPaths(),
    HostRule(), HostSysctl(), NcclConf())}


def candidates(world, kinds=None):
    """[(kind, target)] of every place the design has for each kind."""
    found = []
    for name in kinds or KINDS:
        kind = KINDS[name]
        found.extend((kind, target) for target in kind.places(world))
    return found


def generate(world, seed, rounds, per_round, kinds=None):
    """Rounds of faults, each round `per_round` faults (fewer when the design has no more disjoint places) on
    disjoint devices, drawn with `random.Random(seed)`: first a kind (every kind as likely), then a place of it."""
    rng = random.Random(seed)
    names = sorted(kinds or KINDS)
    places = {name: [target for target in KINDS[name].places(world) if KINDS[name].fits(world, target['device'])]
              for name in names}
    names = [name for name in names if places[name]]
    result = []
    for _round in range(rounds):
        taken, faults = set(), []
        for _attempt in range(per_round * 20):
            if len(faults) == per_round:
                break
            kind = KINDS[rng.choice(names)]
            target = rng.choice(places[kind.name])
            scope = kind.scope(world, target)
            if scope & taken:
                continue
            taken |= scope
            faults.append(kind.fault(world, target))
        result.append(faults)
    return result


def apply(world, faults):
    for fault in faults:
        KINDS[fault['kind']].apply(world, fault['target'])
    world.changed()


def lab_steps(world, fault, container):
    """The fault as the clab_faults scenario makes it: inject and undo (argv on the device over SSH, or with `via`
    on the Docker host through `docker exec`), and what it sets off elsewhere."""
    steps = KINDS[fault['kind']].lab(world, fault['target'])
    via = steps.pop('via', 'ssh')
    for key in ('inject', 'undo'):
        if via == 'docker':
            steps[key] = ['docker', 'exec', container] + steps[key]
        elif via == 'docker_host':
            steps[key] = [word.replace('{container}', container) for word in steps[key]]
    steps['on'] = 'localhost' if via.startswith('docker') else fault['device']
    steps.setdefault('after_inject', [])
    steps.setdefault('after_undo', [])
    return steps


def describe(rounds) -> str:
    return '\n'.join('round %d: %s' % (index, '; '.join(fault.title for fault in faults))
                     for index, faults in enumerate(rounds, 1))


__all__ = ['KINDS', 'Fault', 'generate', 'apply', 'candidates', 'lab_steps', 'describe']
