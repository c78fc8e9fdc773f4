# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A fabric of the design, simulated: what every device would show, in the neutral state the checks read.

Not the engine's dependency graph run backwards: the world knows nothing of checks/graph.py. It keeps each device's
running state (ports with their admin state, MTU and addresses, cables, daemons, BGP configuration, VXLAN devices,
static routes, rail rules) and derives what the protocols make of it the way the lab's FRR, Linux and lldpd do:

- a cable has carrier when both ports exist and are admin up; lldpd hears the far end when both run;
- a BGP session comes up when the link carries the configured addresses, both ends run bgpd, configure each other
  with the other's AS and are not shut down; routes spread over the established sessions by AS path (eBGP loop
  prevention keeps spine-leaf-spine paths out), ECMP up to maximum-paths;
- a route the device holds itself (a blackhole, a static route) wins over BGP's, as zebra leaves it in the kernel;
- a leaf advertises a type-3 route per VXLAN device that is up, with its configured route-targets (FRR's automatic
  ASN:VNI without a `vni` block), and floods to the VTEPs whose routes it imports;
- a ping walks the data plane hop by hop: the rail, the leaf's bridge and VXLAN device, the flood list, the kernel's
  route at every switch (ECMP by a hash of the flow), every port's MTU (the VXLAN outer packet may be fragmented,
  the inner one carries DF), and the same way back;
- the marking probe is captured on the spine port it crosses, with the outer DSCP the sending VXLAN device writes.

states() returns {device: checks.DeviceState} with the state already parsed; the keys a platform's gatherer does
not read are left out, so the checks are as applicable as on that platform. Its limits are in docs/validation.md
("Measured on generated faults").
"""

from __future__ import annotations

import copy
import hashlib
import ipaddress
import json
import os

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import catalog
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms import get_platform
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state import DaemonDown, StateError
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.gatherer import UNREADABLE
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.host import parse_rnic_counters
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.rnic import parse_rnic_facts
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.sources import gatherer_for

from tests.doubles import routes as route_tables
from tests.unit.utils.paths import FIXTURES as FIXTURES_ROOT

VXLAN_OVERHEAD = 50
FIXTURES = os.path.join(FIXTURES_ROOT, 'state')
PING_COUNT = 3


def _flow_hash(*parts) -> int:
    return int(hashlib.sha256(' '.join(str(part) for part in parts).encode()).hexdigest()[:8], 16)


def _host(address) -> str:
    return str(address).split('/', 1)[0]


class World:
    """The running state of every device of a design, changed by faults, shown as neutral state."""

    def __init__(self, design, options=None):
        self.design = design
        self.ctx = checks.Context(design, {}, dict(options or {}))
        self.devices = {}
        self.cables = {}
        for name in design.device_names():
            model = self.ctx.model(name)
            self.devices[name] = self._device(model)
        for name in design.device_names():
            model = self.ctx.model(name)
            for port, peer in catalog_peers(model):
                self.cables[(name, port)] = peer

    # ------------------------------------------------------------------ the design's running state
    def _device(self, model):
        name = model['name']
        device = {'model': model, 'role': model['role'], 'ports': {}, 'daemons': {'bgpd': True, 'lldpd': True,
                  'sshd': True}, 'frozen': False, 'routes': [], 'drift': {}, 'rules': {}, 'nccl': None}
        if model['role'] == 'host':
            for rail in model['rails']:
                device['ports'][rail['interface']] = {'exists': True, 'admin_up': True, 'mtu': model['mtu'],
                                                      'addresses': [rail['address']], 'master': None, 'kind': None,
                                                      'vxlan': None}
                device['rules'][rail['interface']] = True
            device['nccl'] = {key: str(value) for key, value in (model.get('nccl') or {}).items()}
            return device
        bgp = model.get('bgp') or {}
        for item in model['interfaces']:
            device['ports'][item['name']] = {'exists': True, 'admin_up': True, 'mtu': item['mtu'],
                                             'addresses': [item['ipv4']] if item.get('ipv4') else [], 'master': None,
                                             'kind': None, 'vxlan': None}
        loopback = [bgp['router_id'] + '/32'] if bgp.get('router_id') else []
        evpn = model.get('evpn') or {}
        if evpn.get('vtep_ip') and evpn['vtep_ip'] != bgp.get('router_id'):
            loopback.append(evpn['vtep_ip'] + '/32')
        device['ports']['lo'] = {'exists': True, 'admin_up': True, 'mtu': 65536, 'addresses': loopback,
                                 'master': None, 'kind': None, 'vxlan': None}
        host_mtu = self.design.lossless['mtu']['host']
        tos = 1 if (evpn.get('tunnel_qos') or {}).get('encap_dscp') == 'copy' else 0
        for vlan in evpn.get('vlans') or []:
            bridge = 'br%d' % vlan['vlan']
            device['ports'][bridge] = {'exists': True, 'admin_up': True, 'mtu': host_mtu + VXLAN_OVERHEAD,
                                       'addresses': [], 'master': None, 'kind': 'bridge', 'vxlan': None}
            device['ports']['vxlan%d' % vlan['vni']] = {
                'exists': True, 'admin_up': True, 'mtu': host_mtu + VXLAN_OVERHEAD, 'addresses': [], 'master': bridge,
                'kind': 'vxlan', 'vxlan': {'id': vlan['vni'], 'local': evpn['vtep_ip'], 'port': 4789, 'tos': tos}}
            for port in vlan.get('ports') or []:
                if port in device['ports']:
                    device['ports'][port]['master'] = bridge
        device['bgp'] = {
            'asn': bgp.get('asn'), 'router_id': bgp.get('router_id'), 'evpn': bool(bgp.get('evpn')),
            'maximum_paths': bgp.get('maximum_paths') or 1, 'numbered': bool(bgp.get('numbered')),
            'networks': list(bgp.get('advertise') or []),
            'neighbors': {item['key']: {'peer': item['peer'], 'port': item['interface'], 'ip': item['ip'],
                                        'remote_as': item['remote_asn'], 'shutdown': False}
                          for item in catalog.expected_sessions(model)},
            'vnis': {vlan['vni']: {'rd': vlan.get('rd'), 'import': [vlan['route_target']],
                                   'export': [vlan['route_target']]} for vlan in evpn.get('vlans') or []},
            'advertise_all_vni': bool(evpn)}
        return device

    def changed(self):
        """Forget what was derived: a fault changed the running state."""
        self._sessions = None
        self._rib = None
        self._kernel = {}

    def linux(self, name) -> bool:
        """Whether the device runs a Linux network stack validation reads (a GPU server, or a switch whose platform
        forwards in the kernel): netdevs, iproute2, lldpd, FRR's daemons."""
        model = self.devices[name]['model']
        return model['role'] == 'host' or get_platform(model['platform']).kernel_dataplane

    def drifted(self, name, part, *lines):
        """Record configuration the deploy manages changing on a device (what its check-mode diff would show)."""
        self.devices[name]['drift'].setdefault(part, []).extend(lines)

    # ------------------------------------------------------------------ physical
    def port(self, name, interface):
        return self.devices[name]['ports'].get(interface)

    def usable(self, name, interface) -> bool:
        port = self.port(name, interface)
        return bool(port and port['exists'] and port['admin_up'])

    def far_end(self, name, interface):
        return self.cables.get((name, interface))

    def carrier(self, name, interface) -> bool:
        far = self.far_end(name, interface)
        return bool(far and self.usable(name, interface) and self.usable(*far))

    # ------------------------------------------------------------------ BGP
    def _session(self, name, key):
        """(established, peer name, peer key) of a configured neighbour of `name`."""
        device = self.devices[name]
        neighbor = device['bgp']['neighbors'][key]
        peer = neighbor['peer']
        other = self.devices.get(peer)
        if other is None or other['role'] == 'host' or not self.carrier(name, neighbor['port']):
            return False, peer, None
        far = self.far_end(name, neighbor['port'])
        if far[0] != peer:  # the cable leads elsewhere
            return False, peer, None
        peer_key = next((item_key for item_key, item in other['bgp']['neighbors'].items()
                         if item['port'] == far[1] and item['peer'] == name), None)
        if peer_key is None:
            peer_key = next((item_key for item_key, item in other['bgp']['neighbors'].items() if item['port'] == far[1]),
                            None)
        if peer_key is None:
            return False, peer, None
        mine, theirs = neighbor, other['bgp']['neighbors'][peer_key]
        if device['bgp']['numbered']:
            local = {_host(address) for address in device['ports'][neighbor['port']]['addresses']}
            remote = {_host(address) for address in other['ports'][far[1]]['addresses']}
            if mine['ip'] not in remote or theirs['ip'] not in local:
                return False, peer, peer_key
        up = (self.running(name, 'bgpd') and self.running(peer, 'bgpd') and not mine['shutdown']
              and not theirs['shutdown'] and mine['remote_as'] == other['bgp']['asn']
              and theirs['remote_as'] == device['bgp']['asn'])
        return up, peer, peer_key

    def running(self, name, daemon) -> bool:
        device = self.devices[name]
        return device['daemons'].get(daemon, False) and not device['frozen']

    def sessions(self):
        """{(name, key): (established, peer)} over every switch."""
        if getattr(self, '_sessions', None) is None:
            table = {}
            for name, device in self.devices.items():
                if device['role'] == 'host':
                    continue
                for key in device['bgp']['neighbors']:
                    up, peer, _peer_key = self._session(name, key)
                    table[(name, key)] = (up, peer)
            self._sessions = table
        return self._sessions

    def _adjacency(self):
        """[(name, port, peer, gateway)] of the established sessions, both directions."""
        pairs = []
        for (name, key), (up, peer) in self.sessions().items():
            if not up:
                continue
            neighbor = self.devices[name]['bgp']['neighbors'][key]
            gateway = neighbor['ip'] if self.devices[name]['bgp']['numbered'] else None
            pairs.append((name, neighbor['port'], peer, gateway))
        return pairs

    def _originated(self, name):
        """Prefixes `name` advertises: its `network` statements whose address it has on an interface."""
        device = self.devices[name]
        if device['role'] == 'host' or not self.running(name, 'bgpd'):
            return []
        have = {address for port_name, port in device['ports'].items() if port['exists'] and port['admin_up']
                and (port_name == 'lo' or port['kind'] or self.carrier(name, port_name)) for address in port['addresses']}
        return [prefix for prefix in device['bgp']['networks']
                if any(ipaddress.ip_interface(address).ip in ipaddress.ip_network(prefix, strict=False)
                       and address.endswith('/32') == prefix.endswith('/32') for address in have)]

    def _imets(self, name):
        """Type-3 routes `name` originates: (key, route) per VXLAN device that is up, with its export targets."""
        device = self.devices[name]
        if device['role'] != 'leaf' or not self.running(name, 'bgpd') or not device['bgp']['advertise_all_vni']:
            return []
        routes = []
        for port_name, port in device['ports'].items():
            if port['kind'] != 'vxlan' or not port['exists'] or not port['admin_up']:
                continue
            bridge = device['ports'].get(port['master'] or '')
            if not bridge or not bridge['exists']:
                continue
            vni = port['vxlan']['id']
            config = device['bgp']['vnis'].get(vni) or {}
            targets = config.get('export') or ['%s:%d' % (device['bgp']['asn'], vni)]
            routes.append((('imet', name, vni), {'vni': vni, 'vtep': port['vxlan']['local'], 'route_targets': targets,
                                                 'rd': config.get('rd') or '%s:%d' % (device['bgp']['router_id'], vni),
                                                 'origin': name, 'vxlan_if': port_name}))
        return routes

    def rib(self):
        """{name: {prefix: {'length', 'hops': [(port, gateway)], 'route'}}}: what BGP spreads over the established
        sessions (AS-path loop prevention, shortest path, ECMP up to maximum-paths)."""
        if getattr(self, '_rib', None) is not None:
            return self._rib
        table = {name: {} for name, device in self.devices.items() if device['role'] != 'host'}
        for name in table:
            for prefix in self._originated(name):
                table[name][prefix] = {'length': 0, 'path': [], 'hops': [], 'route': None}
            for key, route in self._imets(name):
                table[name][key] = {'length': 0, 'path': [], 'hops': [], 'route': route}
        adjacency = self._adjacency()
        for _round in range(len(table) + 2):
            changed = False
            for name, port, peer, gateway in adjacency:
                asn = self.devices[name]['bgp']['asn']
                for prefix, entry in list(table[peer].items()):
                    path = [self.devices[peer]['bgp']['asn']] + entry['path']
                    if asn in path:
                        continue
                    mine = table[name].get(prefix)
                    if mine is not None and mine['length'] == 0:
                        continue
                    if mine is None or len(path) < mine['length']:
                        table[name][prefix] = {'length': len(path), 'path': path, 'hops': [(port, gateway)],
                                               'route': entry['route']}
                        changed = True
                    elif len(path) == mine['length'] and (port, gateway) not in mine['hops'] \
                            and len(mine['hops']) < self.devices[name]['bgp']['maximum_paths']:
                        mine['hops'].append((port, gateway))
                        changed = True
            if not changed:
                break
        self._rib = table
        return table

    def kernel_routes(self, name):
        """The kernel's main table of a switch: connected /31s, BGP routes (unless the device holds its own route
        for the prefix), the routes a fault added."""
        cache = self.__dict__.setdefault('_kernel', {})
        if name not in cache:
            cache[name] = self._kernel_routes(name)
        return cache[name]

    def _kernel_routes(self, name):
        device = self.devices[name]
        routes = []
        for port_name, port in device['ports'].items():
            if port_name == 'lo' or not port['exists'] or not port['admin_up'] or port['kind']:
                continue
            for address in port['addresses']:
                network = ipaddress.ip_interface(address).network
                if network.prefixlen < 32:
                    routes.append({'dst': str(network), 'type': 'unicast', 'protocol': 'kernel', 'metric': None,
                                   'nexthops': [{'gateway': None, 'dev': port_name}]})
        own = {str(ipaddress.ip_network(route['dst'], strict=False)) for route in device['routes']}
        if self.running(name, 'bgpd'):
            for prefix, entry in sorted(self.rib().get(name, {}).items(), key=str):
                if isinstance(prefix, tuple) or entry['length'] == 0 or prefix in own:
                    continue
                routes.append({'dst': prefix[:-3] if prefix.endswith('/32') else prefix, 'type': 'unicast',
                               'protocol': 'bgp', 'metric': 20,
                               'nexthops': [{'gateway': gateway, 'dev': port} for port, gateway in entry['hops']]})
        routes.extend(copy.deepcopy(device['routes']))
        # the management network's way out, as the lab's nodes have it (not a route through the fabric)
        routes.append({'dst': 'default', 'type': 'unicast', 'protocol': None, 'metric': None,
                       'nexthops': [{'gateway': None, 'dev': 'eth0'}]})
        return routes

    # ------------------------------------------------------------------ EVPN
    def zebra_vnis(self, name):
        """{vni: (vxlan device name, port)} of the VXLAN devices in a bridge on a leaf."""
        device = self.devices[name]
        found = {}
        for port_name, port in device['ports'].items():
            if port['kind'] == 'vxlan' and port['exists'] and port['master'] and (
                    device['ports'].get(port['master']) or {}).get('exists'):
                found[port['vxlan']['id']] = (port_name, port)
        return found

    def imported(self, name):
        """{vni: [vtep]}: the flood list of each VNI of a leaf (type-3 routes of other leaves it imports)."""
        device = self.devices[name]
        if not self.running(name, 'bgpd'):
            return {}
        flood = {}
        for vni in self.zebra_vnis(name):
            imports = (device['bgp']['vnis'].get(vni) or {}).get('import') or ['%s:%d' % (device['bgp']['asn'], vni)]
            for prefix, entry in self.rib().get(name, {}).items():
                route = entry['route']
                if route is None or entry['length'] == 0 or route['origin'] == name:
                    continue
                if set(route['route_targets']) & set(imports):
                    flood.setdefault(vni, set()).add(route['vtep'])
        return {vni: sorted(vteps) for vni, vteps in flood.items()}

    # ------------------------------------------------------------------ data plane
    def owner_of(self, address):
        for name, device in self.devices.items():
            for port in device['ports'].values():
                if port['exists'] and any(_host(item) == address for item in port['addresses']):
                    return name
        return None

    def _lookup(self, name, address):
        target = ipaddress.ip_address(address)
        best = None
        for route in self.kernel_routes(name):
            dst = '0.0.0.0/0' if route['dst'] == 'default' else route['dst']
            network = ipaddress.ip_network(dst if '/' in dst else dst + '/32', strict=False)
            if target in network:
                key = (network.prefixlen, -(route['metric'] or 0))
                if best is None or key > best[0]:
                    best = (key, route)
        return best[1] if best else None

    def underlay(self, source, address, size, flow):
        """Whether an outer (VXLAN) packet of `size` bytes from switch `source` reaches the switch owning `address`:
        (ok, the first spine-facing hop it took)."""
        name, hops, first = source, 0, None
        while hops < 8:
            if any(_host(item) == address for port in self.devices[name]['ports'].values() if port['exists']
                   for item in port['addresses']):
                return True, first
            route = self._lookup(name, address)
            if route is None or route['type'] != 'unicast' or not route['nexthops']:
                return False, first
            hop = route['nexthops'][_flow_hash(flow, name) % len(route['nexthops'])]
            port = hop['dev']
            if not self.carrier(name, port):
                return False, first
            far = self.far_end(name, port)
            egress = self.port(name, port)['mtu']
            fragment = min(size, egress)  # the outer packet may be fragmented (VXLAN df unset)
            if fragment > self.port(*far)['mtu']:
                return False, first
            if first is None:
                first = (far[0], far[1])
            name, hops = far[0], hops + 1
        return False, first

    def _bridge_vxlan(self, leaf, access_port):
        """(bridge, vxlan device name, its port dict) of the bridge an access port sits in."""
        device = self.devices[leaf]
        bridge = (device['ports'].get(access_port) or {}).get('master')
        if not bridge or not (device['ports'].get(bridge) or {}).get('exists') or not device['ports'][bridge]['admin_up']:
            return bridge, None, None
        for port_name, port in device['ports'].items():
            if port['kind'] == 'vxlan' and port['master'] == bridge and port['exists']:
                return bridge, port_name, port
        return bridge, None, None

    def _rail_of(self, host, address=None, interface=None):
        for name, port in self.devices[host]['ports'].items():
            if (interface and name == interface) or (address and any(_host(item) == address for item in port['addresses'])):
                return name, port
        return None, None

    def deliver(self, host, interface, peer_ip, size, df, flow):
        """(ok, how): a frame of `size` from a host rail to the same-rail address `peer_ip`, across the overlay."""
        port = self.port(host, interface)
        if not port or not port['exists'] or not port['admin_up']:
            return False, 'connect'
        if size > port['mtu']:
            return False, 'local_mtu'
        if not self.carrier(host, interface):
            return False, 'unreachable'
        if not port['addresses']:
            return False, 'connect'
        leaf, access = self.far_end(host, interface)
        target = self.owner_of(peer_ip)
        if target is None or self.devices[target]['role'] != 'host':
            return False, 'unreachable'
        target_if, target_port = self._rail_of(target, address=peer_ip)
        if not self.carrier(target, target_if):
            return False, 'unreachable'
        far_leaf, far_access = self.far_end(target, target_if)
        if size > self.port(leaf, access)['mtu'] or size > self.port(far_leaf, far_access)['mtu'] \
                or size > target_port['mtu']:
            return False, 'silent'
        if self.port(leaf, access)['addresses'] and not self.port(leaf, access)['master']:
            return self._routed(host, interface, peer_ip, size, df, flow)
        bridge, vxlan_name, vxlan = self._bridge_vxlan(leaf, access)
        far_bridge, far_vxlan_name, far_vxlan = self._bridge_vxlan(far_leaf, far_access)
        if bridge is None or far_bridge is None:
            return False, 'unreachable'
        if leaf == far_leaf:
            return (bridge == far_bridge), ('ok' if bridge == far_bridge else 'unreachable')
        for vxlan_dev, name in ((vxlan, leaf), (far_vxlan, far_leaf)):
            if vxlan_dev is None or not vxlan_dev['admin_up']:
                return False, 'unreachable'
            if size > vxlan_dev['mtu']:  # the bridge forwards onto the VXLAN device: its MTU counts, not the bridge's
                return False, 'silent'
        if vxlan['vxlan']['id'] != far_vxlan['vxlan']['id']:
            return False, 'unreachable'
        number = vxlan['vxlan']['id']
        for (source, dev), (target_leaf, far_dev) in (((leaf, vxlan), (far_leaf, far_vxlan)),
                                                      ((far_leaf, far_vxlan), (leaf, vxlan))):
            flood = self.imported(source).get(number, [])
            if far_dev['vxlan']['local'] not in flood:
                return False, 'unreachable'
            if self.owner_of(far_dev['vxlan']['local']) != target_leaf:
                return False, 'unreachable'
            ok, _first = self.underlay(source, far_dev['vxlan']['local'], size + VXLAN_OVERHEAD, flow)
            if not ok:
                return False, 'unreachable' if size <= 1500 else 'silent'
        return True, 'ok'

    def _routed(self, host, interface, peer_ip, size, df, flow):
        """A packet between routed GPU server rails (a /31 per rail): hop by hop through the leaves' and spines'
        routes; with DF set a hop whose port is too small answers "fragmentation needed"."""
        rail = next(rail for rail in self.devices[host]['model']['rails'] if rail['interface'] == interface)
        leaf, _access = self.far_end(host, interface)
        gateway = rail.get('gateway')
        if not gateway or self.owner_of(gateway) != leaf:
            return False, 'unreachable'
        name, hops = leaf, 0
        while hops < 10:
            if name == self.owner_of(peer_ip) and self.devices[name]['role'] == 'host':
                return True, 'ok'
            route = self._lookup(name, peer_ip)
            if route is None or route['type'] != 'unicast' or not route['nexthops']:
                return False, 'unreachable'
            hop = route['nexthops'][_flow_hash(flow, name) % len(route['nexthops'])]
            if not self.carrier(name, hop['dev']):
                return False, 'unreachable'
            far = self.far_end(name, hop['dev'])
            if size > self.port(name, hop['dev'])['mtu']:
                return False, 'frag' if df else 'silent'
            if size > self.port(*far)['mtu']:
                return False, 'silent'
            name, hops = far[0], hops + 1
        return False, 'silent'

    # ------------------------------------------------------------------ what each device shows
    def states(self):
        """{device: checks.DeviceState} with the neutral state each shows."""
        rnic = _static_host_state()
        result = {}
        for name, device in self.devices.items():
            model = device['model']
            gatherer = gatherer_for(model)
            if not device['daemons'].get('sshd', True) or device['frozen']:
                reason = ('%s: read state failed: no answer within 120 s' % name if device['frozen'] else
                          '%s is unreachable: ssh: connect to host %s port 22: Connection refused' % (
                              name, model.get('management_ip')))
                result[name] = checks.DeviceState(name, {UNREADABLE: reason}, gatherer=gatherer)
                continue
            parsed = {'interfaces': self._interfaces(name), 'lldp': self._lldp(name)}
            if device['role'] == 'host':
                parsed.update(rnic)
                parsed['nccl_conf'] = {'path': '/etc/nccl.conf', 'present': True, 'settings': dict(device['nccl'])}
                parsed.update(self._pings(name))
                parsed['config_drift'] = self._drift(name)
            else:
                parsed.update(self._bgp(name))
                if gatherer.provides('routes'):
                    # printed as the platform prints its forwarding table, read back by its own parser
                    parsed['routes'] = gatherer.parse('routes', route_tables.printed(model['platform'], self.kernel_routes(name)))
                parsed['config_drift'] = self._drift(name)
                if device['role'] == 'leaf':
                    parsed.update(self._evpn(name))
            parsed = {key: value for key, value in parsed.items() if key == 'config_drift' or gatherer.provides(key)}
            state = checks.DeviceState(name, {}, gatherer=gatherer, parsed=parsed)
            state.model = model
            result[name] = state
        self._probe(result)
        return result

    def _drift(self, name):
        """What the deploy in check mode shows: its lines per part, or the error it stopped on."""
        drift = self.devices[name]['drift']
        if 'error' in drift:
            return StateError('switch_deploy (check mode)', drift['error'][0])
        return {part: list(lines) for part, lines in drift.items()}

    def _interfaces(self, name):
        device = self.devices[name]
        table = {}
        for port_name, port in device['ports'].items():
            if not port['exists']:
                continue
            virtual = port_name == 'lo' or port['kind'] in ('bridge', 'vxlan')
            lower = port['admin_up'] and (virtual or self.carrier(name, port_name))
            table[port_name] = {
                'ifname': port_name, 'mtu': port['mtu'],
                'operstate': ('UNKNOWN' if virtual else 'UP') if lower else 'DOWN',
                'admin_up': port['admin_up'], 'lower_up': lower, 'master': port['master'], 'kind': port['kind'],
                'vxlan': dict(port['vxlan']) if port['vxlan'] else None,
                'addresses': [{'family': 'inet', 'address': _host(address),
                               'prefixlen': ipaddress.ip_interface(address).network.prefixlen}
                              for address in port['addresses']]}
        return table

    def _lldp(self, name):
        device = self.devices[name]
        if not device['daemons']['lldpd']:
            return DaemonDown('lldpcli show neighbors json', 'lldpd')
        neighbors = []
        for port_name in device['ports']:
            far = self.far_end(name, port_name)
            if not far or not self.carrier(name, port_name) or not self.devices[far[0]]['daemons']['lldpd']:
                continue
            neighbors.append({'interface': port_name, 'system_name': far[0], 'chassis_id': None,
                              'port_id_type': 'ifname', 'port_id': far[1], 'port_descr': far[1], 'peer_port': far[1],
                              'via': 'LLDP'})
        return neighbors

    def _bgp(self, name):
        device = self.devices[name]
        if not self.running(name, 'bgpd'):
            down = DaemonDown('FRR show bgp summary json', 'bgpd')
            return {'bgp_summary': down}
        afis = ['ipv4Unicast'] + (['l2VpnEvpn'] if device['bgp']['evpn'] else [])
        sessions = []
        for key, neighbor in device['bgp']['neighbors'].items():
            up, peer = self.sessions()[(name, key)]
            state = 'Idle (Admin)' if neighbor['shutdown'] else 'Established' if up else 'Active'
            for afi in afis:
                sessions.append({'vrf': 'default', 'afi': afi, 'peer': key,
                                 'id_type': 'ip' if device['bgp']['numbered'] else 'interface',
                                 'hostname': peer if up else None, 'remote_as': neighbor['remote_as'],
                                 'local_as': device['bgp']['asn'], 'state': state, 'established': up,
                                 'admin_shutdown': neighbor['shutdown'], 'prefixes_received': None,
                                 'prefixes_sent': None, 'uptime_ms': None, 'description': None})
        return {'bgp_summary': sessions}

    def _evpn(self, name):
        device = self.devices[name]
        zebra = self.zebra_vnis(name)
        flood = self.imported(name)
        evpn_vni = {vni: {'vni': vni, 'type': 'L2', 'vxlan_if': port_name, 'vtep_ip': None,
                          'remote_vteps': flood.get(vni, []), 'tenant_vrf': 'default', 'macs': None}
                    for vni, (port_name, _port) in zebra.items()}
        if not self.running(name, 'bgpd'):
            down = DaemonDown('FRR show bgp l2vpn evpn vni json', 'bgpd')
            return {'evpn_vni': evpn_vni, 'bgp_evpn_vni': down, 'evpn_type3': down}
        vnis = {}
        for vni in set(zebra) | set(device['bgp']['vnis']):
            config = device['bgp']['vnis'].get(vni) or {}
            auto = ['%s:%d' % (device['bgp']['asn'], vni)]
            vnis[vni] = {'vni': vni, 'rd': config.get('rd'), 'in_kernel': vni in zebra,
                         'import_rts': list(config.get('import') or auto), 'export_rts': list(config.get('export') or auto)}
        routes = [{'rd': entry['route']['rd'], 'vtep': entry['route']['vtep'],
                   'route_targets': list(entry['route']['route_targets']), 'valid': True, 'best': True}
                  for prefix, entry in self.rib().get(name, {}).items() if isinstance(prefix, tuple)]
        return {'evpn_vni': evpn_vni, 'bgp_evpn_vni': {'advertise_all_vni': device['bgp']['advertise_all_vni'],
                                                       'vnis': vnis},
                'evpn_type3': routes}

    def _pings(self, name):
        model = self.devices[name]['model']
        parsed = {}
        for target in catalog.ping_targets(self.ctx, model, self.ctx.options.get('ping_peers', 0)):
            for kind, size, df in (('ping', 84, False), ('jumbo', model['mtu'], True)):
                flow = (name, target['interface'], target['peer_ip'], kind)
                ok, how = self.deliver(name, target['interface'], target['peer_ip'], size, df, flow)
                if ok:
                    ok, how = self.deliver_back(name, target, size, df, flow)
                key = '%s:%s:%s' % (kind, target['interface'], target['peer_ip'])
                parsed[key] = _ping_state(target['peer_ip'], size - 28, df, ok, how, self.port(name, target['interface']))
                if not ok and how == 'unreachable' and not df:
                    own = self.port(name, target['interface'])['addresses']
                    parsed[key]['unreachable']['from'] = _host(own[0]) if own else None
                    parsed[key]['reason'] = '%s reports destination host unreachable' % parsed[key]['unreachable']['from']
        return parsed

    def deliver_back(self, name, target, size, df, flow):
        """The answer: from the peer's rail back to this host's address on the rail."""
        peer = target['peer']
        peer_if, _port = self._rail_of(peer, address=target['peer_ip'])
        own = self.port(name, target['interface'])
        if peer_if is None or not own['addresses']:
            return False, 'silent'
        return self.deliver(peer, peer_if, _host(own['addresses'][0]), size, df, flow)

    def _probe(self, states):
        """The data-plane marking probe: what each sending host registered and what each listening spine caught."""
        markings = catalog.probe_markings(self.ctx)
        captures = {}
        for flow in catalog.marking_flows(self.ctx):
            if not flow['captures'] or flow['sender'] not in states or states[flow['sender']].raw.get(UNREADABLE):
                continue
            sent = [{'dscp': item['dscp'], 'ecn': item['ecn'], 'tos': item['dscp'] << 2 | item['ecn'], 'packets': 20}
                    for item in markings]
            sender = states[flow['sender']]
            probes = sender._parsed.setdefault('marking_probe', (True, []))[1]  # pylint: disable=protected-access
            probes.append({'source': flow['source'], 'destination': flow['destination'], 'port': catalog.ROCE_UDP_PORT,
                           'sent': sent})
            sender.raw.setdefault('marking_probe', None)
            for point in flow['captures']:
                captures.setdefault(point['device'], {'interfaces': [], 'packets': [], 'seconds': 2.0})
                captures[point['device']]['interfaces'].append(point['interface'])
            host_if = flow['interface']
            key = (flow['sender'], host_if, flow['destination'], 'probe')
            ok, _how = self.deliver(flow['sender'], host_if, flow['destination'], 1000, False, key)
            back, _how = self.deliver_back(flow['sender'], {'peer': flow['receiver'], 'interface': host_if,
                                                            'peer_ip': flow['destination']}, 84, False, key)
            if not (ok and back):  # ARP never resolved: nothing is sent onto the overlay
                continue
            leaf, access = self.far_end(flow['sender'], host_if)
            _bridge, _name, vxlan = self._bridge_vxlan(leaf, access)
            receiver_if = self._rail_of(flow['receiver'], address=flow['destination'])[0]
            far_leaf, far_access = self.far_end(flow['receiver'], receiver_if)
            far_vxlan = self._bridge_vxlan(far_leaf, far_access)[2]
            if vxlan is None or far_vxlan is None:  # routed rails: the packet itself crosses the spines
                _ok, first = self.underlay(leaf, flow['destination'], 1000, key)
            else:
                _ok, first = self.underlay(leaf, far_vxlan['vxlan']['local'], 1050, key)
            if first is None or first[0] not in captures:
                continue
            for item in markings:
                inner = {'src': flow['source'], 'dst': flow['destination'], 'dscp': item['dscp'], 'ecn': item['ecn'],
                         'dport': catalog.ROCE_UDP_PORT}
                if vxlan is None or far_vxlan is None:
                    captures[first[0]]['packets'].append({'interface': first[1], 'count': 20, 'vni': None,
                                                          'outer': None, 'inner': inner})
                    continue
                inherit = vxlan['vxlan']['tos'] == 1
                captures[first[0]]['packets'].append({
                    'interface': first[1], 'count': 20, 'vni': vxlan['vxlan']['id'],
                    'outer': {'src': vxlan['vxlan']['local'], 'dst': far_vxlan['vxlan']['local'],
                              'dscp': item['dscp'] if inherit else 0, 'ecn': item['ecn'] if inherit else 0},
                    'inner': inner})
        for name, capture in captures.items():
            if name in states and not states[name].raw.get(UNREADABLE):
                states[name]._parsed['marking_capture'] = (True, capture)  # pylint: disable=protected-access
                states[name].raw.setdefault('marking_capture', None)


def catalog_peers(model):
    """[(port, (peer, peer port))] of a device's cabled ports, from its model."""
    if model['role'] == 'host':
        return [(rail['interface'], (rail['leaf'], rail['leaf_interface'])) for rail in model['rails']]
    return [(item['name'], (item['peer'], item['peer_interface'])) for item in model['interfaces'] if item.get('peer')]


def _ping_state(destination, payload, df, ok, how, port):
    """A ping's neutral state (state/ping.py's shape) from what happened to it."""
    state = {'destination': destination, 'payload': payload, 'dont_fragment': df, 'transmitted': PING_COUNT,
             'received': PING_COUNT if ok else 0, 'loss_percent': 0.0 if ok else 100.0, 'errors': 0, 'ok': ok,
             'local_mtu': None, 'frag_needed': None, 'unreachable': None, 'connect_error': None, 'reason': None}
    if ok:
        return state
    size = '%d-byte payload' % payload
    if how == 'connect':
        state.update(transmitted=None, received=None, loss_percent=None, connect_error='connect: Network is unreachable',
                     reason='connect: Network is unreachable')
    elif how == 'local_mtu':
        state.update(local_mtu=port['mtu'], errors=PING_COUNT,
                     reason='local interface MTU %d is too small for the %s (ping: message too long)' % (port['mtu'], size))
    elif how == 'unreachable' and not df:
        state.update(errors=PING_COUNT, unreachable={'from': None, 'kind': 'host'},
                     reason='%s reports destination host unreachable' % None)
    elif how == 'frag':
        state.update(errors=PING_COUNT, reason='a hop reports fragmentation needed: the path MTU is too small for the '
                                               '%s' % size)
    elif df:
        state['reason'] = 'no reply to %s with DF set (3 of 3 lost): dropped on the path, e.g. an MTU below the ' \
                          'packet size' % size
    else:
        state['reason'] = 'no reply (3 of 3 lost)'
    return state


_STATIC = {}


def _static_host_state():
    """What a lab GPU server without RDMA NIC shows for the RNIC keys: the real parsers on the real module output
    of such a host (tests/unit/fixtures/state/rnic_facts/no_rdma.json)."""
    if not _STATIC:
        with open(os.path.join(FIXTURES, 'rnic_facts', 'no_rdma.json'), encoding='utf-8') as handle:
            raw = {'ansible_facts': {'aifabric_rnic': json.load(handle)}}
        _STATIC['rnic'] = parse_rnic_facts(raw)
        _STATIC['counters'] = parse_rnic_counters(raw)
    return {key: copy.deepcopy(value) for key, value in _STATIC.items()}


__all__ = ['World', 'StateError']
