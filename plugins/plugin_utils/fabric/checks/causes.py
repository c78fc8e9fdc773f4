# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Root cause first: failed and errored results grouped into causes, each with its consequences folded under it.

A port that is admin down fails its own interface check, and with it the far end's carrier, LLDP on both ends, the
BGP session that rides the link and, when the leaf is cut off, EVPN and the pings of the servers behind it. The
design says which session rides which link, which VNI lives on which leaf and which server reaches which leaf on
which rail, so each failure can be traced to the one fact that explains it:

1. detectors, in order of how directly a fact explains others (a device that cannot be read, cabling, a port that
   is down or missing, an MTU, a daemon that is down, a local AS, a VNI or route-target, state nobody designed,
   the lossless configuration, health findings, a session whose two ends disagree, a device still converging),
   each turn the results that show such a fact into a cause;
2. every other failure is folded under the first cause that explains it through the design (the same link, a
   session to the cause's device, an overlay path through it, the same VNI);
3. what no cause explains stays a cause of its own, per device and check: nothing is hidden.

analyse() returns the causes, most explanatory first; every failed or errored result belongs to exactly one.
"""

from __future__ import annotations

import re

from . import ERROR, FAIL
from .catalog import expected_sessions, expected_vnis, marking_flows, marking_subject, ping_targets, rail_members

DAEMON_DOWN = re.compile(r'^(\w+d) is not running$')
MANY_NEIGHBOURS = re.compile(r'^\d+ LLDP neighbours: ')
OVERLAY = ('evpn_vtep', 'reachability', 'jumbo_frames', 'dataplane_marking')
# A marking probe that never reached the spine links is a consequence of the path, like a failed ping; a probe that
# arrived with the wrong DSCP is a finding of its own.
PROBE_LOST = 'no probe packet'
VNI_CHECKS = ('evpn_vni', 'evpn_route_target', 'vxlan_device', 'evpn_vtep')
LINK_CHECKS = ('interface_state', 'lldp_neighbor', 'interface_mtu', 'interface_address', 'link_mtu', 'bgp_session',
               'link_lossless', 'lossless_port_mtu', 'host_switch_mtu')
UPPER = ('spine', 'super_spine')


class Cause:
    """One fact that explains failures: its evidence (the results that show it) and its consequences."""

    def __init__(self, kind, devices, title, evidence, explains=None, hint='', anchors=(), anywhere=False):
        self.kind = kind
        self.devices = list(dict.fromkeys(devices))
        # which results it may explain: those depending on one of its anchors (its devices and, for a link, both
        # ends), or any (a VNI a fabric shares, an upper-tier device every overlay path crosses)
        self.anchors = set(self.devices) | set(anchors)
        self.anywhere = anywhere
        self.title = title
        self.evidence = list(evidence)
        self.consequences = []
        self.notes = []
        self.hint = hint
        self.sessions_down = 0  # designed BGP sessions among its results, each counted once (not once per end)
        self._explains = explains or (lambda _result: False)

    def explains(self, result) -> bool:
        return self._explains(result)

    @property
    def results(self) -> list:
        return self.evidence + self.consequences

    def headline(self) -> str:
        """'spine001: bgpd is not running -> 8 consequences (8 BGP sessions down)'."""
        count = len(self.consequences)
        text = self.title
        if count:
            text += ' -> %d consequence%s' % (count, '' if count == 1 else 's')
            if self.sessions_down:
                text += ' (%d BGP session%s down)' % (self.sessions_down, '' if self.sessions_down == 1 else 's')
        return text

    def summary_of_consequences(self, limit=6) -> str:
        """'spine001 interface_state [eth1], leaf001 bgp_session x2, ...': what follows from the cause, briefly."""
        counts = {}
        for result in self.consequences:
            key = '%s %s' % (result.device, result.check)
            counts[key] = counts.get(key, 0) + 1
        parts = ['%s%s' % (key, ' x%d' % count if count > 1 else '') for key, count in counts.items()]
        return ', '.join(parts[:limit]) + (', ... (%d more)' % (len(parts) - limit) if len(parts) > limit else '')

    def to_dict(self, index) -> dict:
        return {'id': index, 'kind': self.kind, 'devices': self.devices, 'title': self.title,
                'headline': self.headline(), 'hint': self.hint, 'notes': list(self.notes),
                'evidence': [result.line() for result in self.evidence],
                'consequences': [result.line() for result in self.consequences]}


# =========================================================================== what the design knows
class Design:
    """Design facts about results, computed on demand: the peer of a port, the device a session goes to, the
    devices an overlay result depends on, the VNI of a rail network."""

    def __init__(self, ctx):
        self.ctx = ctx
        self._peers = {}
        self._sessions = {}
        self._paths = {}
        self._vnis = None
        self._upper = None
        self._rail_ifs = None

    def role(self, device):
        return self.ctx.model(device)['role'] if device in self.ctx.design.nodes else None

    def peer(self, device, port):
        """(peer device, peer port) of a cabled port, or None."""
        if device not in self._peers:
            model = self.ctx.model(device)
            if model['role'] == 'host':
                table = {rail['interface']: (rail['leaf'], rail['leaf_interface']) for rail in model['rails']}
            else:
                table = {item['name']: (item['peer'], item['peer_interface']) for item in model['interfaces']}
            self._peers[device] = table
        return self._peers[device].get(port)

    def link_ends(self, device, port):
        """{(device, port), (peer, peer port)} of the cabled link at `device` `port`."""
        peer = self.peer(device, port)
        return {(device, port), peer} if peer else {(device, port)}

    def session(self, device, subject):
        """(peer device, local port) of a designed BGP session named `subject` on `device`."""
        if device not in self._sessions:
            self._sessions[device] = {'%s %s' % (item['key'], item['peer']): (item['peer'], item['interface'])
                                      for item in expected_sessions(self.ctx.model(device))}
        return self._sessions[device].get(subject)

    def upper(self):
        if self._upper is None:
            self._upper = {name for role in UPPER for name in self.ctx.design.device_names(role)}
        return self._upper

    def vni_of_network(self):
        """{network name: vni} and {vni: (network, vlan)} over the leaves' EVPN VLANs."""
        if self._vnis is None:
            by_network, by_vni = {}, {}
            for leaf in self.ctx.design.device_names('leaf'):
                for vlan in (self.ctx.model(leaf).get('evpn') or {}).get('vlans') or []:
                    by_network[vlan['name']] = vlan['vni']
                    by_vni[vlan['vni']] = (vlan['name'], vlan['vlan'])
            self._vnis = (by_network, by_vni)
        return self._vnis

    def path(self, result):
        """{'ends': devices at the ends, 'links': cabled links (as link ends) it crosses at the edge, 'vni': vni or
        None} of an overlay result (evpn_vtep, pings); None for any other result."""
        if result.check not in OVERLAY:
            return None
        if result.check == 'dataplane_marking' and PROBE_LOST not in (result.seen or ''):
            return None
        key = (result.device, result.check)
        if key not in self._paths:  # every subject of the device at once: a fabric-wide failure has many
            if result.check == 'evpn_vtep':
                self._paths[key] = self._vtep_paths(result.device)
            elif result.check == 'dataplane_marking':
                self._paths[key] = self._probe_paths(result.device)
            else:
                self._paths[key] = self._ping_paths(result.device)
        return self._paths[key].get(result.subject)

    def _probe_paths(self, host):
        """The marking probe's flows from `host`, by their result subject (catalog.marking_subject)."""
        return {marking_subject(flow): {'ends': {host, flow['sender_leaf'], flow['receiver'], flow['receiver_leaf']},
                                        'links': self.link_ends(host, flow['interface']), 'vni': flow['vni']}
                for flow in marking_flows(self.ctx) if flow['sender'] == host}

    def _vtep_paths(self, leaf):
        return {'VNI %d from %s %s' % (item['vni'], remote, ip): {'ends': {leaf, remote}, 'links': set(), 'vni': item['vni']}
                for item in expected_vnis(self.ctx, self.ctx.model(leaf)) for ip, remote in item['remote_vteps'].items()}

    def _ping_paths(self, host):
        model = self.ctx.model(host)
        if self._rail_ifs is None:
            self._rail_ifs = {(network, peer, ip): interface for network, items in rail_members(self.ctx).items()
                              for peer, interface, ip in items}
        vnis = self.vni_of_network()[0]
        rails = {rail['interface']: rail for rail in model['rails']}
        paths = {}
        for target in ping_targets(self.ctx, model, self.ctx.options.get('ping_peers', 0)):
            peer_if = self._rail_ifs.get((target['network'], target['peer'], target['peer_ip']))
            peer_leaf = self.peer(target['peer'], peer_if) if peer_if else None
            ends = {host, rails[target['interface']]['leaf'], target['peer']} | ({peer_leaf[0]} if peer_leaf else set())
            links = self.link_ends(host, target['interface']) | (self.link_ends(target['peer'], peer_if) if peer_if else set())
            paths['%s -> %s %s' % (target['interface'], target['peer'], target['peer_ip'])] = {
                'ends': ends, 'links': links, 'vni': vnis.get(target['network'])}
        return paths

    def devices(self, result):
        """The devices a result depends on: its own, the far end of its port or session, an overlay path's ends."""
        found = {result.device}
        path = self.path(result)
        if path:
            return found | path['ends']
        session = self.session(result.device, result.subject) if result.check == 'bgp_session' else None
        if session:
            found.add(session[0])
        if result.link:
            device, _space, port = result.link.partition(' ')
            found.add(device)
            peer = self.peer(device, port) if device in self.ctx.design.nodes else None
            if peer:
                found.add(peer[0])
        return found

    def links(self, result):
        """The cabled link ends a result is about (its port's link, its session's link, a path's edge links)."""
        path = self.path(result)
        if path:
            return path['links']
        port = None
        if result.check == 'bgp_session':
            session = self.session(result.device, result.subject)
            port = session[1] if session else None
        elif result.link:
            device, _space, link_port = result.link.partition(' ')
            return self.link_ends(device, link_port)
        return self.link_ends(result.device, port) if port else set()


# =========================================================================== detectors
def _devices_of(ends):
    return {device for device, _port in ends}


def _port_of(result):
    """The port a per-port result is about (its subject, before any ' [phase]')."""
    return result.subject.split(' ', 1)[0]


def _through(design, devices):
    """A predicate: the result depends on one of `devices` (as its own device, a far end, an overlay end or, for an
    upper-tier device, any overlay result, whose path crosses the upper tiers)."""
    devices = set(devices)
    upper = devices & design.upper()

    def explains(result):
        if design.devices(result) & devices:
            return True
        return bool(upper) and design.path(result) is not None
    return explains


def _unreadable(ctx, design, bad):
    by_device = {}
    for result in bad:
        if result.status == ERROR and not ctx.gathered(result.device) and result.device in ctx.states:
            by_device.setdefault(result.device, []).append(result)
    for device, evidence in by_device.items():
        reason = evidence[0].seen
        yield Cause('unreadable', [device], '%s could not be read: %s' % (device, reason), evidence,
                    lambda result, device=device, reason=reason: (  # a device that was read, judged on this one
                        result.status == ERROR and result.seen == reason and ctx.gathered(result.device)
                        and device in design.devices(result)),
                    hint='check the connection to %s (ansible -m ping %s); no check of it was judged' % (device, device))


def _lldp_seen(ctx, device, port):
    try:
        return [(entry['system_name'] or entry['chassis_id'], entry['peer_port'])
                for entry in ctx.state(device).get('lldp') if entry['interface'] == port]
    except Exception:  # pylint: disable=broad-except  # evidence only: unreadable LLDP explains nothing here
        return []


def _host_part(name):
    return str(name).split('.', 1)[0]


def _cabling(ctx, design, bad):
    """LLDP shows another designed port than the plan: two ports of one device swapped (seen from that device or from
    the far ends of its two cables), or a cable moved."""
    wrong = {}
    for result in bad:
        if result.check == 'lldp_neighbor' and result.status == FAIL and not MANY_NEIGHBOURS.match(result.seen) \
                and result.seen != 'no LLDP neighbour':
            seen = _lldp_seen(ctx, result.device, result.subject)
            if len(seen) == 1:
                wrong[(result.device, result.subject)] = ((_host_part(seen[0][0]), seen[0][1]), result)
    swaps, used = [], set()
    for first, (seen_first, _result) in sorted(wrong.items()):
        for second, (seen_second, _other) in sorted(wrong.items()):
            if first >= second or first in used or second in used:
                continue
            if first[0] == second[0] and design.peer(*second) == seen_first and design.peer(*first) == seen_second:
                swaps.append((first[0], (first[1], second[1]), (first, second)))  # seen from the device itself
            elif seen_first[0] == seen_second[0] and design.peer(*first) == seen_second \
                    and design.peer(*second) == seen_first:
                swaps.append((seen_first[0], (seen_second[1], seen_first[1]), (first, second)))  # from the far ends
            else:
                continue
            used.update({first, second})
    for device, ports, keys in swaps:
        ports = sorted(ports)
        peers = [design.peer(device, name)[0] for name in ports]
        ends = design.link_ends(device, ports[0]) | design.link_ends(device, ports[1])
        yield Cause('cabling', [device], 'cables swapped: %s %s <-> %s (%s/%s)' % (device, ports[0], ports[1], *peers),
                    [wrong[key][1] for key in keys], lambda result, ends=frozenset(ends): bool(design.links(result) & ends),
                    anchors=_devices_of(ends),
                    hint='swap the cables of %s %s and %s back, or correct the cabling plan' % (device, *ports))
    for (device, port), ((seen_device, seen_port), result) in sorted(wrong.items()):
        if (device, port) in used:
            continue
        planned = design.peer(device, port)
        ends = design.link_ends(device, port) | {(seen_device, seen_port)}
        yield Cause('cabling', [device], '%s %s is cabled to %s %s (the plan: %s %s)' % (
            device, port, seen_device, seen_port, planned[0], planned[1]), [result],
            lambda result, ends=frozenset(ends): bool(design.links(result) & ends), anchors=_devices_of(ends),
            hint='move the cable or correct the cabling plan')


def _interfaces(ctx, design, bad):
    """A port admin down or missing, then links without carrier on both ends."""
    states = [result for result in bad if result.check == 'interface_state' and result.status == FAIL]
    taken = set()
    for words, kind, what in (('admin down', 'admin_down', 'is admin down'),
                              ('does not exist', 'port_missing', 'does not exist')):
        for result in states:
            if words in result.seen and id(result) not in taken:
                taken.add(id(result))
                ends = frozenset(design.link_ends(result.device, result.subject))
                yield Cause(kind, [result.device], '%s %s %s' % (result.device, result.subject, what), [result],
                            _link_or_behind(design, result.device, ends), anchors=_devices_of(ends),
                            hint='%s: bring %s up (or find who shut it)' % (result.device, result.subject)
                            if kind == 'admin_down' else 'the port name or the switch model differs from the design')
    carrier = {(result.device, result.subject): result for result in states if id(result) not in taken}
    done = set()
    for (device, port), result in sorted(carrier.items()):
        if (device, port) in done:
            continue
        peer = design.peer(device, port)
        evidence = [result] + ([carrier[peer]] if peer in carrier else [])
        done.update({(device, port), peer})
        ends = frozenset(design.link_ends(device, port))
        both = ' on either end' if peer in carrier else ''
        yield Cause('no_carrier', [device] + ([peer[0]] if peer in carrier else []),
                    'link %s %s <-> %s %s has no carrier%s' % (device, port, peer[0], peer[1], both) if peer else
                    '%s %s has no carrier' % (device, port), evidence, _link_or_behind(design, device, ends),
                    anchors=_devices_of(ends),
                    hint='the cable, the optics, or the far end of the link')


def _link_or_behind(design, device, ends):
    """A link cause explains what rides the link, and the overlay results of the lower-tier device it cuts off."""
    lower = {name for name, _port in ends if design.role(name) not in UPPER}
    host_link = any(design.role(name) == 'host' for name, _port in ends)

    def explains(result):
        links = design.links(result)
        if links & ends:
            return True
        path = design.path(result)
        return bool(path) and not host_link and bool(path['ends'] & lower)
    return explains


def _mtu(ctx, design, bad):
    for result in bad:
        if result.check == 'interface_mtu' and result.status == FAIL:
            ends = frozenset(design.link_ends(result.device, result.subject))
            designed = result.expected.replace('MTU ', '')
            seen = result.seen.replace('MTU ', '')
            yield Cause('mtu', [result.device], '%s %s has MTU %s, the design %s' % (
                result.device, result.subject, seen, designed), [result], _mtu_explains(design, result.device, ends),
                anchors=_devices_of(ends),
                hint='set the MTU of %s %s to %s' % (result.device, result.subject, designed))


def _mtu_explains(design, device, ends):
    lower = {name for name, _port in ends if design.role(name) not in UPPER}
    host_link = any(design.role(name) == 'host' for name, _port in ends)

    def explains(result):
        if result.check in ('link_mtu', 'lossless_port_mtu', 'host_switch_mtu', 'interface_mtu'):
            return bool(design.links(result) & ends)
        if result.check == 'jumbo_frames':
            path = design.path(result)
            return bool(path) and (bool(path['links'] & ends) or (not host_link and bool(path['ends'] & lower)))
        return False
    return explains


def _daemons(ctx, design, bad):
    by_device = {}
    for result in bad:
        match = DAEMON_DOWN.match(result.seen or '')
        if match and result.status == FAIL:
            by_device.setdefault((result.device, match.group(1)), []).append(result)
    for (device, daemon), evidence in sorted(by_device.items()):
        through = _through(design, [device])

        def explains(result, device=device, through=through):
            if result.check in ('bgp_session',) + VNI_CHECKS:
                return through(result)
            return result.check in OVERLAY and through(result)
        yield Cause('daemon_down', [device], '%s: %s is not running' % (device, daemon), evidence, explains,
                    hint='start %s on %s (and find why it stopped: watchfrr, the logs)' % (daemon, device))


def _local_as(ctx, design, bad):
    for result in bad:
        if result.check == 'bgp_session' and result.subject == 'local AS':
            through = _through(design, [result.device])
            yield Cause('local_as', [result.device], '%s runs local %s where the design has %s' % (
                result.device, result.seen, result.expected), [result],
                lambda other, through=through: other.check in ('bgp_session',) + VNI_CHECKS + OVERLAY and through(other),
                hint='configure router bgp %s on %s' % (result.expected.replace('AS ', ''), result.device))


def _vni_results(bad, device, vni, check=None):
    prefix = 'VNI %d' % vni
    return [result for result in bad if result.device == device and result.check in VNI_CHECKS
            and (result.subject == prefix or result.subject.startswith(prefix + ' '))
            and (check is None or result.check == check)]


def _vni_explains(design, leaf, vni, extra=None):
    vtep = (design.ctx.model(leaf).get('evpn') or {}).get('vtep_ip')

    def explains(result):
        if result.check in VNI_CHECKS and result.device == leaf and result.subject.split(' from ')[0] in (
                'VNI %d' % vni, 'VNI %d unexpected VTEPs' % vni):
            return True
        if extra is not None and result.device == leaf and result.subject in ('VNI %d' % extra,):
            return True
        if result.check == 'evpn_vtep' and extra is not None and result.subject == 'VNI %d unexpected VTEPs' % extra:
            return vtep in result.seen.split(', ')
        path = design.path(result)
        return bool(path) and path['vni'] == vni and leaf in path['ends']
    return explains


def _vnis(ctx, design, bad):
    """A designed L2VNI missing on a leaf, and what the leaf carries there instead."""
    _by_network, by_vni = design.vni_of_network()
    for leaf in sorted({result.device for result in bad if result.check in ('evpn_vni', 'vxlan_device')}):
        missing = sorted({int(result.subject.split()[1]) for result in bad if result.device == leaf
                          and result.check in ('evpn_vni', 'vxlan_device') and result.status == FAIL
                          and result.expected.startswith(('L2VNI', 'VXLAN'))
                          and ('not on the VXLAN data plane' in result.seen or 'no VXLAN device' in result.seen
                               or 'VXLAN type' in result.seen or 'designed VLAN' in result.seen)})
        extra = sorted(int(result.subject.split()[1]) for result in bad if result.device == leaf
                       and result.check == 'evpn_vni' and result.expected.startswith('no VNI'))
        for vni in missing:
            network, vlan = by_vni.get(vni, ('?', '?'))
            instead = extra[0] if len(missing) == 1 and len(extra) == 1 else None
            evidence = _vni_results(bad, leaf, vni, 'evpn_vni') + _vni_results(bad, leaf, vni, 'vxlan_device')
            if instead is not None:
                where = _vxlan_if(ctx, leaf, instead)
                owner = by_vni.get(instead)
                title = '%s carries VNI %d%s%s where VNI %d (VLAN %s, %s) belongs' % (
                    leaf, instead, ' (%s\'s)' % owner[0] if owner else '', ' on %s' % where if where else '', vni, vlan,
                    network)
                evidence += [result for result in bad if result.device == leaf and result.check == 'evpn_vni'
                             and result.subject == 'VNI %d' % instead]
            else:
                title = '%s does not carry VNI %d (VLAN %s, %s)' % (leaf, vni, vlan, network)
            yield Cause('vni', [leaf], title, evidence, _vni_explains(design, leaf, vni, instead), anywhere=True,
                        hint='bind VLAN %s to VNI %d on %s' % (vlan, vni, leaf))


def _vxlan_if(ctx, leaf, vni):
    try:
        return (ctx.state(leaf).get('evpn_vni').get(vni) or {}).get('vxlan_if')
    except Exception:  # pylint: disable=broad-except  # the name is a detail of the title only
        return None


def _route_targets(ctx, design, bad):
    for result in bad:
        if result.check == 'evpn_route_target' and result.status == FAIL and result.seen.startswith('import'):
            vni = int(result.subject.split()[1])
            seen = re.match(r'^import (\S+), export (\S+)$', result.seen)
            designed = result.expected.split(', ')[0].replace('import ', '')
            if seen and seen.group(1) == seen.group(2):
                title = '%s VNI %d imports and exports route-target %s where the design has %s' % (
                    result.device, vni, seen.group(1), designed)
            else:
                title = '%s VNI %d has route-targets %s where the design has %s' % (result.device, vni, result.seen, designed)
            yield Cause('route_target', [result.device], title, [result], _vni_explains(design, result.device, vni),
                        anywhere=True,
                        hint='set the route-target of VNI %d on %s as designed' % (vni, result.device))


def _unexpected(ctx, design, bad):
    """State the design does not have, each a cause of its own."""
    for result in bad:
        if result.status != FAIL:
            continue
        if result.check == 'evpn_vni' and result.expected.startswith('no VNI'):
            vni = int(result.subject.split()[1])
            yield Cause('unexpected_vni', [result.device], '%s carries VNI %d, which the design does not have (%s)' % (
                result.device, vni, result.seen), [result],
                lambda other, vni=vni: other.check == 'evpn_vtep' and other.subject == 'VNI %d unexpected VTEPs' % vni,
                anywhere=True,
                hint='remove VNI %d from %s, or add it to the intent' % (vni, result.device))
        elif result.check == 'bgp_session' and result.expected.startswith('no '):
            yield Cause('unexpected_session', [result.device], '%s has BGP %s the design does not have: %s' % (
                result.device, 'sessions in ' + result.subject.replace(' sessions', '') if result.subject.startswith('VRF')
                else 'session %s' % result.subject, result.seen), [result],
                hint='remove it from %s, or add it to the intent' % result.device)
        elif result.check == 'lldp_neighbor' and MANY_NEIGHBOURS.match(result.seen):
            yield Cause('lldp_neighbors', [result.device], '%s %s has %s' % (result.device, result.subject, result.seen),
                        [result], hint=result.message)
        elif result.check == 'evpn_vtep' and result.subject.endswith('unexpected VTEPs'):
            yield Cause('unexpected_vtep', [result.device], '%s floods %s to VTEPs the design does not have: %s' % (
                result.device, result.subject.replace(' unexpected VTEPs', ''), result.seen), [result])


def _lossless(ctx, design, bad):
    """Lossless failures: in the design phase one cause per check and finding over the fabric (the intent or the
    renderer is wrong everywhere alike); deployed, one cause per switch or NIC."""
    groups = {}
    for result in bad:
        if result.category != 'lossless':
            continue
        phase = 'design' if result.subject.endswith('[design]') or (result.source or '').startswith('design') else 'deployed'
        if phase == 'design':
            key = ('design', result.check, result.seen)
        else:
            key = ('deployed', result.device)
        groups.setdefault(key, []).append(result)
    for key, evidence in groups.items():
        devices = sorted({result.device for result in evidence})
        checks_ = sorted({result.check for result in evidence})
        if key[0] == 'design':
            title = 'the rendered configuration breaks %s on %d port%s of %d device%s: %s' % (
                key[1], len(evidence), '' if len(evidence) == 1 else 's', len(devices), '' if len(devices) == 1 else 's',
                key[2])
            yield Cause('lossless_design', devices[:20], title, evidence, hint='the intent or the renderer')
            continue
        device = key[1]
        ports = {_port_of(result) for result in evidence}
        title = '%s: the running lossless configuration differs from the design (%s on %d port%s/rail%s)' % (
            device, ', '.join(checks_), len(ports), '' if len(ports) == 1 else 's', '' if len(ports) == 1 else 's')
        ends = frozenset(end for result in evidence for end in design.links(result))
        yield Cause('lossless', [device], title, evidence,
                    lambda result, ends=ends: result.category == 'lossless' and bool(design.links(result) & ends),
                    anchors=_devices_of(ends),
                    hint='redeploy %s, or read the differences below' % device)


def _health(ctx, design, bad):
    """Health findings by link: the first finding (where the problem starts) with the others on that link."""
    by_link = {}
    for result in bad:
        if result.category == 'health':
            by_link.setdefault(result.link or (result.device, result.subject), []).append(result)
    for _link, evidence in by_link.items():
        first = evidence[0]
        yield Cause('health', [first.device], first.seen, evidence, hint=first.message)


def _disagreeing_sessions(ctx, design, bad, results):
    """A BGP session that fails on one end and passes on the other: read at different moments, it changed."""
    passed = {(result.device, result.subject): result for result in results
              if result.check == 'bgp_session' and result.status not in (FAIL, ERROR)}
    times = ctx.options.get('read_at') or {}  # when each device's state was read (validate_gather)
    for result in bad:
        if result.check != 'bgp_session' or result.status != FAIL:
            continue
        session = design.session(result.device, result.subject)
        if not session:
            continue
        other = next((item for (device, subject), item in passed.items() if device == session[0]
                      and design.session(device, subject) and design.session(device, subject)[0] == result.device), None)
        if other is None:
            continue
        apart = ''
        if result.device in times and other.device in times:
            apart = ', read %.0f s apart' % abs(times[result.device] - times[other.device])
        title = ('BGP session %s - %s changed between the two readings%s: %s saw it %s, %s saw it Established' % (
            result.device, other.device, apart, result.device, result.seen.split(',')[0], other.device))
        yield Cause('session_changed', [result.device, other.device], title, [result],
                    hint='flapping or still converging: validate again, and look at BFD and the link')


def _converging(ctx, design, bad):
    """Devices still changing when their settle deadline ran out: their failures say "not converged yet"."""
    changing = ctx.options.get('converging') or {}
    by_device = {}
    for result in bad:
        if result.device in changing:
            by_device.setdefault(result.device, []).append(result)
    for device, evidence in sorted(by_device.items()):
        yield Cause('not_converged', [device], '%s had not converged when its deadline ran out (%s)' % (
            device, changing[device]), evidence, _through(design, [device]),
            hint='not a verdict on the design: validate again, or give it longer (validate_settle_timeout)')


DETECTORS = (_unreadable, _cabling, _interfaces, _mtu, _daemons, _local_as, _vnis, _route_targets, _unexpected,
             _lossless, _health)


class _Folder:
    """The causes found so far, indexed by the devices they may explain results of."""

    def __init__(self, design):
        self.design = design
        self.causes = []
        self.by_device = {}
        self.anywhere = []

    def add(self, cause):
        index = len(self.causes)
        self.causes.append(cause)
        if cause.anywhere or cause.anchors & self.design.upper():
            self.anywhere.append(index)
        else:
            for device in cause.anchors:
                self.by_device.setdefault(device, []).append(index)

    def explaining(self, result):
        """The first cause that explains `result`, or None."""
        candidates = set(self.anywhere)
        for device in self.design.devices(result):
            candidates.update(self.by_device.get(device, ()))
        for index in sorted(candidates):
            if self.causes[index].explains(result):
                return self.causes[index]
        return None


def analyse(ctx, results) -> list:
    """Causes of the failed and errored results, most explanatory first; each such result belongs to one cause."""
    bad = [result for result in results if result.status in (FAIL, ERROR)]
    if not bad:
        return []
    design = Design(ctx)
    folder, claimed = _Folder(design), set()

    def free():
        return [result for result in bad if id(result) not in claimed]

    def fold(candidates):
        for result in candidates:
            if id(result) not in claimed:
                cause = folder.explaining(result)
                if cause is not None:
                    cause.consequences.append(result)
                    claimed.add(id(result))

    def take(cause):
        """A new cause, unless what shows it is already explained by a cause found before it."""
        fold(cause.evidence)
        cause.evidence = [result for result in cause.evidence if id(result) not in claimed]
        if cause.evidence:
            claimed.update(id(result) for result in cause.evidence)
            folder.add(cause)

    for detector in (_converging,) + DETECTORS:
        for cause in detector(ctx, design, free()):
            take(cause)
        fold(free())
    for cause in _disagreeing_sessions(ctx, design, free(), results):
        take(cause)
    groups = {}
    for result in free():
        groups.setdefault((result.device, result.check), []).append(result)
    for (device, check_id), evidence in groups.items():
        title = evidence[0].line() if len(evidence) == 1 else '%s %s fails on %d subjects (%s, ...)' % (
            device, check_id, len(evidence), evidence[0].subject)
        take(Cause('other', [device], title, evidence, _through(design, [device])))
    fold(free())
    causes = folder.causes
    for cause in causes:
        pairs = set()
        for result in cause.results:
            session = design.session(result.device, result.subject) if result.check == 'bgp_session' else None
            if session:
                pairs.add(frozenset(design.link_ends(result.device, session[1])))  # the link the session rides
        cause.sessions_down = len(pairs)
    _bfd_notes(ctx, causes)
    return causes


def _bfd_notes(ctx, causes):
    """Name BFD flaps under the causes whose BGP sessions are down: they explain an Idle session."""
    for cause in causes:
        for result in cause.results:
            if result.check == 'bgp_session' and result.message.startswith('BFD'):
                note = '%s %s: %s' % (result.device, result.subject, result.message)
                if note not in cause.notes:
                    cause.notes.append(note)


def blamed(causes) -> list:
    """Devices the causes are on, in cause order (the play fails there)."""
    return list(dict.fromkeys(device for cause in causes for device in cause.devices))


__all__ = ['analyse', 'blamed', 'Cause']
