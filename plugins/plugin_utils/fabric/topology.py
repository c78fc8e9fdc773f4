# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Nodes and links of the fabric: generated rail-optimized Clos or an explicit list.

Rail-optimized: servers are cut into groups of `leaf downlinks` servers; group g has one leaf per rail and
rail r of every server in the group plugs into that leaf. Leaves reach all spines of their pod; in three
tiers, spine i of every pod joins super-spine plane i.

Sizing follows the real servers: a leaf takes at most as many downlinks as there are servers (and as its model's
front panel holds at the NIC speed), and only the uplinks the oversubscription target needs for them; two tiers get
the fewest spines (at least 2) that hold every leaf link, with parallel links per leaf-spine pair when a spine has
room. Uplinks start on the cage after the last downlink cage, in ports of the uplink speed.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field

from .intent import load_schema
from .platforms import get_platform
from .switch_models import default_model, get_model, load_models

ROLE_TIER = {'host': 0, 'leaf': 1, 'spine': 2, 'super_spine': 3}
LINK_ROLE = {('host', 'leaf'): 'host_leaf', ('leaf', 'spine'): 'leaf_spine', ('spine', 'super_spine'): 'spine_super_spine'}


# Slotted: a 16,384-GPU fabric has 3,328 nodes and 49,152 links, made on every run (a third less time to make them).
@dataclass(eq=False, slots=True)
class Node:
    name: str
    role: str
    index: int  # 1-based within its role
    pod: int = 1
    rail: int | None = None  # leaves: the rail they serve
    group: int | None = None  # leaves and hosts: server group
    plane: int | None = None  # spines: spine index in pod; super-spines: plane
    platform: str | None = None
    model: str | None = None  # shipped switch model (hardware/<model>.yml); None on lab platforms
    asic: str | None = None
    links: list = field(default_factory=list)  # Link objects touching this node, in port order


@dataclass(eq=False, slots=True)
class Link:
    index: int  # 0-based, fabric-wide
    role: str  # host_leaf | leaf_spine | spine_super_spine
    lower: Node
    lower_port: int
    upper: Node
    upper_port: int
    speed_gbps: int
    cable_length_m: int
    rail: int | None = None  # host links: the server NIC rail

    def end(self, node: Node):
        """(local port, peer node, peer port) seen from `node`."""
        if node is self.lower:
            return self.lower_port, self.upper, self.upper_port
        return self.upper_port, self.lower, self.lower_port


@dataclass
class Topology:
    nodes: dict  # name -> Node, in generation order
    links: list
    tiers: int
    rails: int
    gpus_per_server: int
    leaf_downlinks: int = 0
    leaf_uplinks: int = 0
    oversubscription: float = 1.0
    pods: int = 1
    spines_per_pod: int = 0
    links_per_leaf_spine: int = 0

    def by_role(self, role):
        return [node for node in self.nodes.values() if node.role == role]


@functools.lru_cache(maxsize=1)
def device_name_rule():
    """Compiled pattern of $defs/device_name (one definition, in the schema)."""
    return re.compile(load_schema()['$defs']['device_name']['pattern'])


def device_name_allowed() -> str:
    return ' '.join(load_schema()['$defs']['device_name']['x-allowed'].split())


def build_topology(intent, issues) -> Topology | None:
    """The topology, or None when it cannot be built (the reasons are added to `issues`)."""
    spec = intent['topology']
    if 'rail_optimized' in spec:
        return _rail_optimized(intent, spec['rail_optimized'], issues)
    return _explicit(intent, spec['explicit'], issues)


def intent_rails(intent):
    """Rails per server as the intent states them (rail-optimized), None when only the topology can tell."""
    generated = intent['topology'].get('rail_optimized')
    return generated['rails'] if generated else None


def role_hardware(intent, role, override=None) -> tuple:
    """(platform, model name or None, asic or None) of a switch role, or of one device with its override.

    A device override that changes the platform does not inherit the role's model or ASIC (they belong to the
    role's NOS); a NOS that renders for real hardware gets the default model of its ASIC when none is named.
    """
    topology = intent['topology']
    override = override or {}
    platform = override.get('platform', topology['platform'][role])
    same_platform = platform == topology['platform'][role]
    model = override.get('model', topology['model'][role] if same_platform else None)
    asic = override.get('asic', topology['asic'][role] if same_platform else None)
    if model is None and get_platform(platform).uses_models:
        found = default_model(platform, asic)
        model = found.name if found else None
    if model is not None and model in load_models() and asic is None:
        asic = get_model(model).asic
    return platform, model, asic


def _settle(node, spec, intent):
    if node.role != 'host':
        node.platform, node.model, node.asic = role_hardware(
            intent, node.role, intent['topology']['devices'].get(node.name))
    return node


def _role_model(intent, role):
    """The shipped model of a switch role (None for lab platforms or unknown names, reported by the design)."""
    _platform, model, _asic = role_hardware(intent, role)
    return load_models().get(model) if model else None


def _ports_per_cage(model, speed):
    mode = model.mode(speed) if model else None
    return mode.ports if mode else 1


def _first_fresh_port(used, model, used_speed, next_speed):
    """Topology port number (in units of `next_speed` ports) just before the first cage after `used` ports of
    `used_speed`: uplinks start on a fresh cage and never share a downlink's cage."""
    cages = -(-used // _ports_per_cage(model, used_speed))
    return cages * _ports_per_cage(model, next_speed)


def _connect(links, role, lower, lower_port, upper, upper_port, speed, cable, rail=None):
    link = Link(len(links), role, lower, lower_port, upper, upper_port, speed, cable, rail)
    links.append(link)
    lower.links.append(link)
    upper.links.append(link)
    return link


def _rail_optimized(intent, spec, issues):
    base = 'topology.rail_optimized.'
    known = len(issues.issues)  # problems found before (elsewhere in the intent) do not stop the topology
    naming = intent['topology']['naming']
    cable = intent['lossless']['cable_length_m']
    servers, rails, radix = spec['servers'], spec['rails'], spec['leaf_radix']
    nic_speed = spec['nic_speed_gbps']
    up_speed = spec['uplink_speed_gbps'] or nic_speed
    target = spec['oversubscription']

    leaf_model = _role_model(intent, 'leaf')
    spine_model = _role_model(intent, 'spine')
    if radix is None:
        radix = leaf_model.ports_at(nic_speed) if leaf_model and leaf_model.ports_at(nic_speed) else 64
    elif leaf_model and leaf_model.ports_at(nic_speed) and radix > leaf_model.ports_at(nic_speed):
        issues.add(base + 'leaf_radix', radix, 'exceeds the %d x %dG ports of the leaf model %s: more ports than the '
                   'model has' % (leaf_model.ports_at(nic_speed), nic_speed, leaf_model.name))
        return None
    down_per_cage, up_per_cage = _ports_per_cage(leaf_model, nic_speed), _ports_per_cage(leaf_model, up_speed)

    def fits(down, up):
        """Both port groups fit the leaf: the radix in ports and, on a known model, the cages of its front panel."""
        if down + up > radix:
            return False
        return not leaf_model or -(-down // down_per_cage) + -(-up // up_per_cage) <= leaf_model.port_count

    def uplinks_for(down):
        """Fewest uplinks that keep `down` downlinks within the oversubscription target."""
        return max(1, int(math.ceil(down * nic_speed / (target * up_speed) - 1e-9)))

    fixed_uplinks = spec['leaf_uplinks']
    if fixed_uplinks is not None and fixed_uplinks >= radix:
        issues.add(base + 'leaf_uplinks', fixed_uplinks,
                   'must leave downlinks free on a %d-port leaf (at most %d)' % (radix, radix - 1))
        return None
    most = 0
    for down in range(radix - 1, 0, -1):
        if fits(down, fixed_uplinks if fixed_uplinks is not None else uplinks_for(down)):
            most = down
            break
    if most < 1:
        issues.add(base + 'leaf_radix', radix, 'leaves no uplink port at this oversubscription')
        return None
    # Size by the real servers: a leaf never gets more downlinks than servers per group, and (unless given)
    # only the uplinks its real downlinks need at the oversubscription target.
    downlinks = min(most, servers)
    uplinks = fixed_uplinks if fixed_uplinks is not None else uplinks_for(downlinks)
    ratio = downlinks * nic_speed / (uplinks * up_speed)
    if ratio > target + 1e-9:
        issues.add(base + 'oversubscription', target,
                   'is exceeded: %d x %dG down over %d x %dG up gives %.2f:1'
                   % (downlinks, nic_speed, uplinks, up_speed, ratio))
        return None

    groups = math.ceil(servers / downlinks)
    leaves_total = groups * rails
    spine_radix = spec['spine_radix'] or (spine_model.ports_at(up_speed) if spine_model and spine_model.ports_at(up_speed)
                                          else radix)
    super_radix = spec['super_spine_radix'] or spine_radix
    if spec['spines'] is not None:
        spines_per_pod = spec['spines']
        if uplinks % spines_per_pod:
            issues.add(base + 'spines', spines_per_pod, 'must divide the %d uplinks of each leaf' % uplinks)
            return None
        two_tier_fits = leaves_total * (uplinks // spines_per_pod) <= spine_radix
    else:
        two_tier_fits = leaves_total <= spine_radix
    tiers = spec['tiers'] if spec['tiers'] != 'auto' else (2 if two_tier_fits else 3)
    if spec['spines'] is None:
        spines_per_pod = uplinks
        if tiers == 2:
            # Fewest spines that hold every leaf link (at least 2 for redundancy), parallel links per leaf-spine
            # pair when a spine has room: 16 GPUs on radix-64 boxes get 2 spines, not 32.
            spines_per_pod = next((count for count in range(1, uplinks + 1)
                                   if uplinks % count == 0 and count >= min(2, uplinks)
                                   and leaves_total * (uplinks // count) <= spine_radix), uplinks)
    per_spine = uplinks // spines_per_pod
    if tiers == 2 and not leaves_total * per_spine <= spine_radix:
        issues.add(base + 'tiers', 2, 'cannot hold %d leaves x %d links on %d-port spines; use 3 tiers or bigger spines'
                   % (leaves_total, per_spine, spine_radix))
        return None

    if tiers == 2:
        groups_per_pod = groups
    else:
        groups_per_pod = (spine_radix // 2) // (rails * per_spine)
        if groups_per_pod < 1:
            issues.add(base + 'spine_radix', spine_radix,
                       'is too small for one server group (%d rail leaves x %d links) in a pod' % (rails, per_spine))
            return None
    pods = math.ceil(groups / groups_per_pod)
    spine_down = groups_per_pod * rails * per_spine
    leaf_up_first = _first_fresh_port(downlinks, leaf_model, nic_speed, up_speed)
    spine_up_first = _first_fresh_port(spine_down, spine_model, up_speed, up_speed)

    nodes, links = {}, []
    device_name = device_name_rule()
    bad_names = set()

    def add(node):
        if node.name in nodes:
            issues.add('topology.naming.%s' % node.role, intent['topology']['naming'][node.role],
                       'produces the name %r twice; include {n}' % node.name)
        elif node.role not in bad_names and not device_name.fullmatch(node.name):
            bad_names.add(node.role)  # one message per template, not one per device
            issues.add('topology.naming.%s' % node.role, intent['topology']['naming'][node.role],
                       'produces %r for %s %d, which is not a valid device name (allowed: %s)'
                       % (node.name, node.role, node.index, device_name_allowed()))
        nodes[node.name] = _settle(node, spec, intent)
        return node

    hosts = []
    for number in range(1, servers + 1):
        group = (number - 1) // downlinks + 1
        name = naming['host'].format(n=number, pod=(group - 1) // groups_per_pod + 1, rail=0, group=group, plane=1)
        hosts.append(add(Node(name, 'host', number, pod=(group - 1) // groups_per_pod + 1, group=group)))
    leaves = {}
    number = 0
    for group in range(1, groups + 1):
        pod = (group - 1) // groups_per_pod + 1
        for rail in range(rails):
            number += 1
            name = naming['leaf'].format(n=number, pod=pod, rail=rail, group=group, plane=1)
            leaves[group, rail] = add(Node(name, 'leaf', number, pod=pod, rail=rail, group=group))
    spines = {}
    number = 0
    for pod in range(1, pods + 1):
        for plane in range(1, spines_per_pod + 1):
            number += 1
            name = naming['spine'].format(n=number, pod=pod, rail=0, group=0, plane=plane)
            spines[pod, plane] = add(Node(name, 'spine', number, pod=pod, plane=plane))
    if len(issues.issues) > known:
        return None

    for host in hosts:
        position = (host.index - 1) % downlinks + 1
        for rail in range(rails):
            leaf = leaves[host.group, rail]
            _connect(links, 'host_leaf', host, rail + 1, leaf, position, nic_speed, cable['host_leaf'], rail)
    for (group, rail), leaf in leaves.items():
        slot = ((group - 1) % groups_per_pod) * rails + rail  # leaf position inside its pod
        for uplink in range(uplinks):
            plane, copy = divmod(uplink, per_spine)
            spine = spines[leaf.pod, plane + 1]
            _connect(links, 'leaf_spine', leaf, leaf_up_first + uplink + 1, spine, slot * per_spine + copy + 1,
                     up_speed, cable['leaf_spine'])

    if tiers == 3:
        spine_up = spine_down
        per_plane = math.ceil(pods * spine_up / super_radix)
        if per_plane > spine_up:  # even one link per super-spine cannot hold every pod (and no divisor exists)
            issues.add(base + 'super_spine_radix', super_radix, 'is too small for %d pods' % pods)
            return None
        while spine_up % per_plane:
            per_plane += 1
        per_super = spine_up // per_plane
        if pods * per_super > super_radix:
            issues.add(base + 'super_spine_radix', super_radix, 'is too small for %d pods' % pods)
            return None
        supers = {}
        number = 0
        for plane in range(1, spines_per_pod + 1):
            for position in range(1, per_plane + 1):
                number += 1
                name = naming['super_spine'].format(n=number, pod=0, rail=0, group=0, plane=plane)
                supers[plane, position] = add(Node(name, 'super_spine', number, pod=0, plane=plane))
        if len(issues.issues) > known:
            return None
        for (pod, plane), spine in spines.items():
            for uplink in range(spine_up):
                position, copy = divmod(uplink, per_super)
                super_spine = supers[plane, position + 1]
                _connect(links, 'spine_super_spine', spine, spine_up_first + uplink + 1, super_spine,
                         (pod - 1) * per_super + copy + 1, up_speed, cable['spine_super_spine'])

    gpus = spec['gpus_per_server'] or rails
    return Topology(nodes, links, tiers, rails, gpus, downlinks, uplinks, ratio, pods, spines_per_pod, per_spine)


def _nic_cable_range():
    """The server cable lengths a NIC can size its receive headroom for: the bounds of lossless.cable_length_m.host_leaf
    (mlx5 en_dcbnl.c ignores a PFC delay of 0 or from MLX5E_MAX_CABLE_LENGTH, 1000 m, up)."""
    spec = load_schema()['properties']['lossless']['properties']['cable_length_m']['properties']['host_leaf']
    return spec['minimum'], spec['maximum']


def _explicit(intent, spec, issues):
    base = 'topology.explicit.'
    known = len(issues.issues)
    cable = intent['lossless']['cable_length_m']
    nodes = {}
    role_count = {}
    for index, item in enumerate(spec['nodes']):
        if item['name'] in nodes:
            issues.add('%snodes[%d].name' % (base, index), item['name'], 'duplicates another node name')
            continue
        role_count[item['role']] = role_count.get(item['role'], 0) + 1
        nodes[item['name']] = _settle(Node(item['name'], item['role'], role_count[item['role']], pod=item['pod']),
                                      spec, intent)
    used_ports = {}
    next_port = {name: 1 for name in nodes}
    next_rail = {name: 0 for name in nodes}
    links = []
    for index, item in enumerate(spec['links']):
        where = '%slinks[%d]' % (base, index)
        missing = [key for key in ('a', 'b') if item[key] not in nodes]
        for key in missing:
            issues.add('%s.%s' % (where, key), item[key], 'is not a node of topology.explicit.nodes')
        if missing:
            continue
        a, b = nodes[item['a']], nodes[item['b']]
        a_port, b_port = item['a_port'], item['b_port']
        if ROLE_TIER[a.role] > ROLE_TIER[b.role]:
            a, b, a_port, b_port = b, a, b_port, a_port
        role = LINK_ROLE.get((a.role, b.role))
        if role is None:
            issues.add(where, '%s(%s) - %s(%s)' % (a.name, a.role, b.name, b.role),
                       'connects roles that cannot be linked (allowed: host-leaf, leaf-spine, spine-super_spine)')
            continue
        ports = []
        for node, port, key in ((a, a_port, 'a_port' if a.name == item['a'] else 'b_port'),
                                (b, b_port, 'b_port' if b.name == item['b'] else 'a_port')):
            if port is None:
                while (node.name, next_port[node.name]) in used_ports:
                    next_port[node.name] += 1
                port = next_port[node.name]
            if (node.name, port) in used_ports:
                issues.add('%s.%s' % (where, key), port, 'port %d of %s is already used by links[%d]'
                           % (port, node.name, used_ports[node.name, port]))
            used_ports[node.name, port] = index
            ports.append(port)
        rail = None
        if role == 'host_leaf':
            rail = item['rail'] if item['rail'] is not None else next_rail[a.name]
            taken = {link.rail for link in a.links}
            if rail in taken:
                issues.add('%s.rail' % where, rail, 'host %s already has a link on rail %d' % (a.name, rail))
            next_rail[a.name] = max(next_rail[a.name], rail + 1)
        length = item['cable_length_m'] if item['cable_length_m'] is not None else cable[role]
        if role == 'host_leaf' and item['cable_length_m'] is not None:
            low, high = _nic_cable_range()
            if not low <= length <= high:
                issues.add('%s.cable_length_m' % where, length,
                           'is a server cable: %s sizes its NIC headroom from it, which the mlx5 driver takes for %d-%d m '
                           'only (mlnx_qos --cable_len)' % (a.name, low, high))
        _connect(links, role, a, ports[0], b, ports[1], item['speed_gbps'], length, rail)
    if len(issues.issues) > known:
        return None
    for node in nodes.values():
        node.links.sort(key=lambda link: link.end(node)[0])
        if node.role == 'leaf':
            rails = {link.rail for link in node.links if link.role == 'host_leaf'}
            node.rail = rails.pop() if len(rails) == 1 else None
        if node.role == 'spine':
            node.plane = sum(1 for other in nodes.values() if other.role == 'spine' and other.pod == node.pod
                             and other.index <= node.index)
    hosts = [node for node in nodes.values() if node.role == 'host']
    rails = max((len(host.links) for host in hosts), default=0)
    tiers = 3 if role_count.get('super_spine') else 2
    pods = max((node.pod for node in nodes.values()), default=1)
    return Topology(nodes, links, tiers, rails, rails, pods=pods)
