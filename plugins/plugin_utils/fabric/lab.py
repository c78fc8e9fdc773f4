# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The containerlab digital twin of a fabric, generated from the same design as the configurations.

Every GPU server, and every switch of a platform that runs on the lab's own image (LAB_IMAGE: Debian with the
routing suite, see roles/lab), becomes a Linux node, wired exactly as the design's links with the design's port
names; each node's management address is the design's management_ip on a lab-private management network, so the
intent-driven inventory already knows ansible_host. These nodes are never privileged (that fails on the project's
machines): they get NET_ADMIN, NET_RAW and SYS_ADMIN.

Switches of the other platforms become nodes of containerlab's vendor kinds when the user has the images
(vendor_images; nothing is pulled). A platform lists the kinds that can run it (Platform.lab_kinds) and says how each
maps the rendered (hardware) port names onto the image's interfaces in its own folder (platforms/<name>/lab.py KINDS);
a kind refuses the ports it cannot represent.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass

from .errors import IssueCollector
from .platforms import registered
from .terms import SWITCH_ROLES

CAPABILITIES = ['NET_ADMIN', 'NET_RAW', 'SYS_ADMIN']
AUTHORIZED_KEYS = '/root/.ssh/authorized_keys'
# Lab nodes get new host keys on every deploy: do not record or check them.
SSH_COMMON_ARGS = '-o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=no -o LogLevel=ERROR'


def natural_key(name):
    """Sort key that puts eth2 before eth10."""
    return [int(part) if part.isdigit() else part for part in re.split(r'(\d+)', name)]


def same_names(pattern, rule):
    """A kind whose interfaces are the rendered names themselves (those matching `pattern`; `rule` says which)."""
    def wire(ports):
        return {port: port for port in ports if re.fullmatch(pattern, port)}, rule
    return wire


def sequential_eth(pattern, rule):
    """A kind whose interfaces are eth1, eth2 ... in port order (the image renames them itself)."""
    def wire(ports):
        usable = sorted((port for port in ports if re.fullmatch(pattern, port)), key=natural_key)
        return {port: 'eth%d' % index for index, port in enumerate(usable, 1)}, rule
    return wire


@dataclass(frozen=True)
class LabKind:
    """How one containerlab kind runs a switch: wire(ports) -> ({rendered port: interface}, allowed ports);
    files(design, node, wiring, files_dir) -> ({path: text}, [bind]) of what a node of the kind needs beside it."""

    name: str
    wire: object
    vendor: bool = True
    files: object = None


# The lab's own image: every GPU server, and the switches of platforms that name this kind.
LAB_IMAGE = LabKind('linux', same_names(r'[A-Za-z][A-Za-z0-9_.-]{0,14}', 'a Linux interface name'), vendor=False)


def lab_kinds() -> dict:
    """{kind name: LabKind} of the lab image and of every platform's lab.py."""
    kinds = {LAB_IMAGE.name: LAB_IMAGE}
    for platform in registered().values():
        if platform.has_part('lab'):
            kinds.update((kind.name, kind) for kind in platform.part('lab').KINDS)
    return kinds


class _LabKinds(Mapping):
    def __getitem__(self, name):
        return lab_kinds()[name]

    def __iter__(self):
        return iter(lab_kinds())

    def __len__(self):
        return len(lab_kinds())


LAB_KINDS = _LabKinds()


def lab_names(design, prefix='aifabric'):
    """Lab name, container-name prefix and management network name, all derived from the intent name."""
    return {'lab': design.name, 'prefix': prefix, 'network': '%s-%s' % (prefix, design.name),
            'container_prefix': '%s-%s-' % (prefix, design.name)}


def _node_kinds(design, issues, vendor_images, vendor_kinds):
    """platform -> (kind, image) of every switch platform in the design, problems into issues."""
    chosen = {}
    for platform in sorted({node.platform for node in design.switches()}):
        allowed = registered()[platform].lab_kinds
        if not allowed:
            issues.add(['topology', 'platform'], platform, 'no containerlab kind runs %s switches: a lab twin cannot '
                       'be built' % platform)
            continue
        kind = vendor_kinds.get(platform) or allowed[0]
        if kind not in allowed:
            issues.add(['lab_vendor_kinds', platform], kind, 'a %s switch runs in containerlab as %s'
                       % (platform, ' or '.join(allowed)))
            continue
        image = vendor_images.get(platform)
        if LAB_KINDS[kind].vendor and not image:
            switches = [node.name for node in design.switches() if node.platform == platform]
            issues.add(['lab_vendor_images', platform], None, 'is required: the image of containerlab kind %s, already '
                       'loaded into Docker, that runs the %s switches (%s%s); nothing is pulled' % (
                           kind, platform, ', '.join(switches[:3]), ' and %d more' % (len(switches) - 3)
                           if len(switches) > 3 else ''))
            continue
        chosen[platform] = (kind, image)
    return chosen


def check_lab(design, vendor_images=None, vendor_kinds=None):
    """Problems that stop a lab from being built: raise IntentError listing them all.

    Returns the management network and platform -> (containerlab kind, vendor image or None)."""
    issues = IssueCollector()
    pool = design.intent['management']['pool']
    if not pool:
        issues.add('management.pool', None, 'is required for a lab: set a dedicated /24 such as 172.31.100.0/24; '
                   'its addresses become the static management addresses of the lab nodes')
        issues.raise_if_any()
    network = ipaddress.IPv4Network(pool)
    gateway = network.network_address + 1
    kinds = _node_kinds(design, issues, vendor_images or {}, vendor_kinds or {})
    for name, address in design.management_ip.items():
        address = ipaddress.IPv4Address(address)
        if address not in network or address in (network.network_address, network.broadcast_address, gateway):
            issues.add(['topology', 'devices', name, 'management_ip'], str(address),
                       'must be a host address of management.pool %s other than the gateway %s' % (network, gateway))
    issues.raise_if_any()
    return network, kinds


def endpoints(design):
    """link index -> [(node, interface), (node, interface)], port names as the device models use them."""
    ends = {}
    for node in design.switches():
        for item in design.device(node.name)['interfaces']:
            pair = ends.setdefault(item['link_index'], [])
            pair.append((node.name, item['name']))
            if item['peer_role'] == 'host':
                pair.append((item['peer'], item['peer_interface']))
    for link in design.links:
        pair = ends[link.index]
        order = {link.lower.name: 0, link.upper.name: 1}
        pair.sort(key=lambda end: order[end[0]])
    return ends


def _kind_of(node, kinds):
    """(containerlab kind, vendor image or None) of a node: GPU servers run the lab image."""
    return (LAB_IMAGE.name, None) if node.role == 'host' else kinds[node.platform]


def _wiring(design, ends, kinds, issues):
    """node -> {rendered port: the interface the node's kind gives it}; unrepresentable ports into issues."""
    wiring = {}
    ports = {}
    for pair in ends.values():
        for node, port in pair:
            ports.setdefault(node, []).append(port)
    for node, names in ports.items():
        kind = LAB_KINDS[_kind_of(design.nodes[node], kinds)[0]]
        wired, rule = kind.wire(names)
        for port in names:
            if port not in wired:
                issues.add(['topology', 'devices', node, 'ports'], port, 'cannot be wired in a %s twin: the kind '
                           'takes %s' % (kind.name, rule))
        wiring[node] = wired
    return wiring


def containerlab_twin(design, image, public_key_path, files_dir, prefix='aifabric', vendor_images=None,
                      vendor_kinds=None):
    """The containerlab topology (a dict to dump as YAML) of the fabric's digital twin, and the files its nodes
    need ({path under files_dir: text}: cEOS interface maps)."""
    network, kinds = check_lab(design, vendor_images, vendor_kinds)
    issues = IssueCollector()
    ends = endpoints(design)
    wiring = _wiring(design, ends, kinds, issues)
    issues.raise_if_any()
    names = lab_names(design, prefix)
    link_mtu = design.lossless['mtu']['switch']
    nodes = {}
    files = {}
    for name, node in design.nodes.items():
        role = 'gpu_server' if node.role == 'host' else node.role
        kind, vendor_image = _kind_of(node, kinds)
        definition = {
            'mgmt-ipv4': design.management_ip[name],
            'labels': {'aifabric.role': role, 'aifabric.fabric': design.name},
        }
        if kind == LAB_IMAGE.name:
            # The node init waits for this many data interfaces before it replays the persisted network
            # state (containerlab 0.79 sets CLAB_INTFS to 0).
            definition['env'] = {'AIFABRIC_LINKS': str(len(node.links))}
        else:
            definition.update(kind=kind, image=vendor_image)
        make_files = LAB_KINDS[kind].files
        if make_files:
            node_files, binds = make_files(design, name, wiring.get(name, {}), files_dir)
            files.update(node_files)
            definition['binds'] = binds
        nodes[name] = definition
    links = [{'endpoints': ['%s:%s' % (node, wiring[node][port]) for node, port in ends[link.index]], 'mtu': link_mtu}
             for link in design.links]
    topology = {
        'name': names['lab'],
        'prefix': names['prefix'],
        'mgmt': {'network': names['network'], 'ipv4-subnet': str(network)},
        'topology': {
            # Nothing is ever pulled: the lab image is built here, vendor images are the user's own.
            'defaults': {'kind': 'linux', 'image-pull-policy': 'never', 'restart-policy': 'no'},
            'kinds': {'linux': {
                'image': image,
                'privileged': False,
                'cap-add': list(CAPABILITIES),
                'binds': ['%s:%s:ro' % (public_key_path, AUTHORIZED_KEYS)],
            }},
            'nodes': nodes,
            'links': links,
        },
    }
    return topology, files


def lab_inventory(design, intent_path, private_key_path, prefix='aifabric'):
    """A static Ansible inventory of the running lab: the same hosts, groups and variables as the intent
    inventory plugin gives, plus the lab's SSH settings on the nodes of the lab image (the login of a vendor
    image is the user's own), for use without the plugin."""
    names = lab_names(design, prefix)
    groups = {}
    hostvars = {}
    lab_login = {'ansible_user': 'root', 'ansible_ssh_private_key_file': private_key_path,
                 'ansible_ssh_common_args': SSH_COMMON_ARGS}
    for name, node in design.nodes.items():
        role = 'gpu_servers' if node.role == 'host' else node.role
        groups.setdefault(role, set()).add(name)
        if node.role != 'host':
            groups.setdefault('platform_%s' % node.platform, set()).add(name)
        hostvars[name] = {'ansible_host': design.management_ip[name], 'aifabric_role': node.role,
                          'aifabric_platform': node.platform, 'aifabric_container': names['container_prefix'] + name}
        kinds = (LAB_IMAGE.name,) if node.role == 'host' else registered()[node.platform].lab_kinds
        if kinds and not LAB_KINDS[kinds[0]].vendor:
            hostvars[name].update(lab_login)
    children = {group: {'hosts': {name: {} for name in sorted(members)}} for group, members in sorted(groups.items())}
    children['switches'] = {'children': {group: {} for group in SWITCH_ROLES if group in groups}}
    return {'all': {
        'vars': {'aifabric_intent': intent_path},
        'hosts': hostvars,
        'children': children,
    }}


def lab_nodes(design, prefix='aifabric'):
    """Each node of the lab; `lab_image`: it runs the lab's own image (Ansible logs in with Python there)."""
    names = lab_names(design, prefix)
    return [{'name': name, 'role': node.role, 'platform': node.platform,
             'management_ip': design.management_ip.get(name), 'container': names['container_prefix'] + name,
             'lab_image': node.role == 'host' or registered()[node.platform].lab_kinds[:1] == (LAB_IMAGE.name,)}
            for name, node in design.nodes.items()]
