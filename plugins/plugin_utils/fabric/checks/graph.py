# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fabric's dependencies, from the design: what each thing a check judges needs in order to work.

A node is a tuple: its kind, then what identifies it. Every failed or errored result is evidence of one node (each
check says which, from the facts the result observed: `Check.node`), and every node depends on others:

    cable (link) -> both ports -> BGP session (and the session's config on both ends, bgpd on both) -> a path between
    two leaves through the spines (any one will do) -> routes to the remote VTEP, EVPN type-3 routes (flood lists)
    -> host reachability over the rail's VNI; jumbo frames also need the MTU of every port on every path; the outer
    marking needs the sending leaf's VXLAN encapsulation; everything on a device needs the device readable and the
    daemon that owns it running.

Two kinds of node. A *local* node is a fact about one device's own running state against the design (a port admin
down or with another MTU, a BGP neighbour shut down or with another remote AS, a VNI bound elsewhere, a route the
design does not have, a daemon that is down, a configuration that differs from what the deploy pushes): when it is
a cause, that device is to blame. A *symptom* node is what several devices make together (a cable's carrier, a
session's state, a flood list, a ping): it is a cause only when nothing it depends on fails, and then it blames no
device, it names the suspects (the engine cannot tell from the state it read which of them is wrong).

`Graph.needs(node)` gives (mode, dependencies): mode `all` (every dependency must hold: a failing one explains the
node) or `any` (redundant paths: the node fails only when all of them fail).
"""

from __future__ import annotations

from .catalog import expected_sessions, marking_flows, marking_subject

ALL, ANY = 'all', 'any'
UPPER = ('spine', 'super_spine')

# Facts about one device's own state: a cause of this kind blames the device (node[1]).
LOCAL = frozenset(('device', 'daemon', 'port', 'peer', 'bgp', 'bgp_extra', 'vni', 'rt', 'vtep', 'vxlan', 'marking',
                   'route', 'cabling', 'lldp_extra', 'drift', 'check', 'read', 'lossless', 'health'))
# What devices make together: a cause only when nothing it needs fails, and then it names suspects, not a culprit.
SYMPTOM = frozenset(('link', 'link_mtu', 'lldp', 'session', 'flood', 'flood_extra', 'learnt', 'path', 'via', 'hop',
                     'reach', 'jumbo', 'probe', 'lossless_design'))

# Symptoms a configuration that differs from the design may explain (a neighbour's password, a filter...).
DRIFT_EXPLAINS = frozenset(('link_mtu', 'lldp', 'session', 'flood', 'learnt', 'reach', 'jumbo', 'probe'))


# --------------------------------------------------------------------------- node constructors
def device(name):
    return ('device', name)


def daemon(name, which):
    return ('daemon', name, which)


def port(name, interface):
    return ('port', name, interface)


def vni(name, number):
    return ('vni', name, int(number))


class Graph:
    """The design's dependency graph of one validation run (computed on demand, memoised per run)."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.design = ctx.design
        self._peers = {}
        self._memo = {}
        self._adjacent = None
        self._paths = {}
        self._flows = None
        self._passed = set()

    def know(self, passed_keys):
        """Remember which subjects passed, as (device, check, subject), of the checks that declare `remember_passes`
        (a cause may say that the other end of a session saw it up)."""
        self._passed = passed_keys

    def passed(self, name, check, subject) -> bool:
        return (name, check, subject) in self._passed

    def read_apart(self, first, second):
        """Seconds between the readings of two devices (validate_gather's read_at), or None."""
        times = self.ctx.options.get('read_at') or {}
        return abs(times[first] - times[second]) if first in times and second in times else None

    # ------------------------------------------------------------------ what the design says
    def role(self, name):
        return self.ctx.model(name)['role'] if name in self.design.nodes else None

    def peer(self, name, interface):
        """(peer device, peer port) of a cabled port, or None."""
        if name not in self.design.nodes:
            return None
        if name not in self._peers:
            model = self.ctx.model(name)
            if model['role'] == 'host':
                table = {rail['interface']: (rail['leaf'], rail['leaf_interface']) for rail in model['rails']}
            else:
                table = {item['name']: (item['peer'], item['peer_interface']) for item in model['interfaces']}
            self._peers[name] = table
        return self._peers[name].get(interface)

    def link(self, name, interface):
        """('link', lower device, lower port) of the cable at a port; a port nobody cabled is its own link."""
        lower = self.ctx.link_of(name, interface)
        if lower is None:
            return ('link', name, interface)
        lower_device, _space, lower_port = lower.partition(' ')
        return ('link', lower_device, lower_port)

    def ends(self, link_node):
        """[(device, port)] of both ends of a link node."""
        first = (link_node[1], link_node[2])
        other = self.peer(*first)
        return [first] + ([other] if other else [])

    def session_key(self, name, interface):
        """The key of the designed BGP neighbour of `name` over `interface` (its peer address or the interface)."""
        for item in expected_sessions(self.ctx.model(name)):
            if item['interface'] == interface:
                return item['key']
        return None

    def adjacent(self):
        """{switch: {neighbour switch: [(local port, peer port)]}} over the switch links of the design."""
        if self._adjacent is None:
            table = {}
            for name in self.design.device_names():
                model = self.ctx.model(name)
                if model['role'] == 'host':
                    continue
                for item in model['interfaces']:
                    if item.get('peer') and self.role(item['peer']) not in (None, 'host'):
                        table.setdefault(name, {}).setdefault(item['peer'], []).append(
                            (item['name'], item['peer_interface']))
            self._adjacent = table
        return self._adjacent

    def switch_paths(self, source, target):
        """Every shortest path of switches from `source` to `target` (lists of device names, both ends included):
        the ways a leaf reaches another through the upper tiers."""
        key = (source, target)
        if key in self._paths:
            return self._paths[key]
        graph = self.adjacent()
        layers, parents = {source: 0}, {source: []}
        frontier = [source]
        while frontier and target not in layers:
            following = []
            for name in frontier:
                for other in graph.get(name, {}):
                    if other not in layers:
                        layers[other] = layers[name] + 1
                        parents[other] = [name]
                        following.append(other)
                    elif layers[other] == layers[name] + 1:
                        parents[other].append(name)
            frontier = following
        paths = []

        def walk(name, tail):
            if name == source:
                paths.append([source] + tail)
                return
            for parent in parents.get(name, []):
                walk(parent, [name] + tail)
        if target in layers:
            walk(target, [])
        self._paths[key] = paths
        return paths

    def leaf_of(self, host, interface):
        """(leaf, leaf port) a host rail is cabled to."""
        return self.peer(host, interface)

    def vni_leaves(self, number):
        """Leaves the design gives VNI `number`."""
        return [name for name in self.design.device_names('leaf')
                if any(vlan['vni'] == number for vlan in (self.ctx.model(name).get('evpn') or {}).get('vlans') or [])]

    def flows(self):
        """{(sender, subject): flow} of the data-plane marking probe."""
        if self._flows is None:
            self._flows = {(flow['sender'], marking_subject(flow)): flow for flow in marking_flows(self.ctx)}
        return self._flows

    # ------------------------------------------------------------------ who a node is about
    def owners(self, node) -> list:
        """The devices a node is about: its device for a local node; both ends, or the devices on the way, for a
        symptom (the suspects when nothing it needs fails)."""
        kind = node[0]
        if kind in ('link', 'link_mtu', 'session'):
            return [name for name, _port in self.ends(('link', node[1], node[2]))]
        if kind == 'lldp':
            return [node[1]] + [name for name, _port in [self.peer(node[1], node[2])] if self.peer(node[1], node[2])]
        if kind in ('flood', 'learnt'):
            return [node[1], node[-1]]
        if kind == 'flood_extra':
            return [node[1]] + [name for name in self.vni_leaves(node[2]) if name != node[1]]
        if kind in ('reach', 'jumbo'):
            host, interface, peer = node[1], node[2], node[3]
            leaf = self.leaf_of(host, interface)
            return [host] + ([leaf[0]] if leaf else []) + [peer]
        if kind == 'probe':
            flow = self.flows().get((node[1], node[2]))
            return [node[1]] + ([flow['sender_leaf'], flow['receiver_leaf']] if flow else [])
        if kind in ('path', 'via'):
            return [node[1], node[2]]
        if kind == 'hop':
            return [node[1], node[2]]
        if kind == 'lossless_design':
            return []
        if kind == 'read':
            return [node[3]]
        return [node[1]]

    # ------------------------------------------------------------------ what a node needs
    def needs(self, node):
        """(mode, [nodes]) this node needs to work. A symptom also needs the configuration of the devices it is
        about to be what the deploy pushes (last: a fact of the device's own state that explains it comes first)."""
        if node not in self._memo:
            mode, needs = self._needs(node)
            if node[0] in DRIFT_EXPLAINS:
                needs = needs + [('drift', name) for name in self.owners(node)]
            self._memo[node] = (mode, needs)
        return self._memo[node]

    def _needs(self, node):  # pylint: disable=too-many-return-statements,too-many-branches
        kind = node[0]
        if kind == 'device' or kind in ('lossless_design', 'health'):
            return ALL, []
        name = node[1]
        if kind in ('daemon', 'port', 'vtep', 'route', 'cabling', 'drift', 'check', 'lossless', 'lldp_extra',
                    'bgp_extra'):
            return ALL, [device(name)]
        if kind in ('bgp', 'peer'):
            return ALL, [daemon(name, 'bgpd'), device(name)]
        if kind == 'vni':
            return ALL, [device(name)]
        if kind in ('rt', 'vxlan', 'marking'):
            return ALL, [vni(name, node[2])]
        if kind == 'read':  # a check on `name` reading another device's state
            return ALL, [device(node[3])]
        if kind in ('link', 'link_mtu'):
            return ALL, [port(end, interface) for end, interface in self.ends(('link', node[1], node[2]))]
        if kind == 'lldp':
            needs = [self.link(name, node[2]), port(name, node[2]), daemon(name, 'lldpd')]
            other = self.peer(name, node[2])
            if other:
                needs += [port(*other), daemon(other[0], 'lldpd'), ('cabling', other[0]), device(other[0])]
            return ALL, needs + [('cabling', name)]
        if kind == 'session':
            return ALL, self._session_needs(node)
        if kind == 'hop':  # two switches: any of their parallel links' sessions will do
            links = self.adjacent().get(node[1], {}).get(node[2], [])
            return ANY, [('session',) + self.link(node[1], local)[1:] for local, _other in links]
        if kind == 'via':
            names = list(node[3])
            needs = [('hop', first, second) for first, second in zip(names, names[1:])]
            for middle in names[1:-1]:
                needs += [daemon(middle, 'bgpd'), ('bgp', middle), device(middle)]
            return ALL, needs
        if kind == 'path':
            return ANY, [('via', name, node[2], tuple(path)) for path in self.switch_paths(name, node[2])]
        if kind == 'learnt':  # a leaf learns another's VTEP route through BGP
            remote = node[2]
            return ALL, [('vtep', remote), ('bgp', remote), daemon(remote, 'bgpd'), ('bgp', name), daemon(name, 'bgpd'),
                         ('path', name, remote)]
        if kind == 'flood':  # an EVPN type-3 route of `remote` imported into `name`'s VNI
            number, remote = node[2], node[3]
            return ALL, [vni(name, number), ('rt', name, number), vni(remote, number), ('rt', remote, number),
                         ('vtep', remote), ('bgp', name), daemon(name, 'bgpd'), ('bgp', remote), daemon(remote, 'bgpd'),
                         ('path', name, remote)]
        if kind == 'flood_extra':  # a VTEP nobody designed: some leaf carrying the VNI advertises another address
            number = node[2]
            return ALL, [('vtep', other) for other in self.vni_leaves(number) if other != name] + [
                vni(other, number) for other in self.design.device_names('leaf') if other != name]
        if kind == 'reach':
            return ALL, self._path_needs(name, node[2], node[3], both_ways=True)
        if kind == 'jumbo':
            return ALL, [('reach',) + node[1:]] + self._mtu_needs(name, node[2], node[3])
        if kind == 'probe':
            flow = self.flows().get((name, node[2]))
            if not flow:
                return ALL, [device(name)]
            # both ways: the sender resolves the receiver's address (ARP) before a probe packet leaves
            return ALL, self._path_needs(name, flow['interface'], flow['receiver'], both_ways=True) + [
                device(point['device']) for point in flow['captures']]
        return ALL, [device(name)]

    def _session_needs(self, node):
        ends = self.ends(('link', node[1], node[2]))
        needs = [('link', node[1], node[2])]
        for name, interface in ends:
            needs.append(port(name, interface))
        for name, interface in ends:
            key = self.session_key(name, interface)
            if key is not None:
                needs.append(('peer', name, key))
            needs += [('bgp', name), daemon(name, 'bgpd'), device(name)]
        return needs

    def _rail(self, host, interface):
        return next((rail for rail in self.ctx.model(host)['rails'] if rail['interface'] == interface), None)

    def _peer_rail(self, peer, network):
        return next((rail for rail in self.ctx.model(peer)['rails']
                     if (rail.get('network') or 'rail%d' % rail['rail']) == network), None)

    def _path_needs(self, host, interface, peer, both_ways):
        """What a packet from `host` `interface` to the same-rail `peer` needs (and its answer, `both_ways`)."""
        rail = self._rail(host, interface)
        if rail is None or peer not in self.design.nodes:
            return [device(host)]
        network = rail.get('network') or 'rail%d' % rail['rail']
        other = self._peer_rail(peer, network)
        # the rails, cabled where the plan has them (a miswired cable breaks a routed rail's /31)
        needs = [port(host, interface), self.link(host, interface), ('cabling', host)]
        leaf = self.leaf_of(host, interface)
        if leaf:
            needs += [port(*leaf), ('cabling', leaf[0])]
        remote = None
        if other is not None:
            needs += [port(peer, other['interface']), self.link(peer, other['interface']), ('cabling', peer)]
            remote = self.leaf_of(peer, other['interface'])
            if remote:
                needs += [port(*remote), ('cabling', remote[0])]
        if not leaf or not remote:
            return needs
        number = rail.get('vlan') and next((vlan['vni'] for vlan in (self.ctx.model(leaf[0]).get('evpn') or {})
                                            .get('vlans') or [] if vlan['name'] == network), None)
        if number is not None:
            needs += [vni(leaf[0], number), vni(remote[0], number)]
        if leaf[0] == remote[0]:
            return needs
        directions = [(leaf[0], remote[0])] + ([(remote[0], leaf[0])] if both_ways else [])
        for source, target in directions:
            needs += [('vtep', target), ('route', source, target), ('learnt', source, target)]
            if number is not None:
                needs.append(('flood', source, number, target))
        return needs

    def _mtu_needs(self, host, interface, peer):
        """Every port a jumbo frame may cross between `host` and `peer` (every ECMP path) and the VXLAN devices."""
        needs = []
        rail = self._rail(host, interface)
        leaf = self.leaf_of(host, interface)
        if rail is None or leaf is None or peer not in self.design.nodes:
            return needs
        network = rail.get('network') or 'rail%d' % rail['rail']
        other = self._peer_rail(peer, network)
        remote = self.leaf_of(peer, other['interface']) if other else None
        for number in [vlan['vni'] for vlan in (self.ctx.model(leaf[0]).get('evpn') or {}).get('vlans') or []
                       if vlan['name'] == network]:
            needs.append(('vxlan', leaf[0], number))
            if remote:
                needs.append(('vxlan', remote[0], number))
        if remote and remote[0] != leaf[0]:
            for path in self.switch_paths(leaf[0], remote[0]):
                for first, second in zip(path, path[1:]):
                    for local, far in self.adjacent().get(first, {}).get(second, []):
                        needs += [port(first, local), port(second, far), ('link_mtu',) + self.link(first, local)[1:]]
        return needs


__all__ = ['Graph', 'LOCAL', 'SYMPTOM', 'ALL', 'ANY', 'device', 'daemon', 'port', 'vni']
