# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The containerlab digital twin of a fabric, generated from the same design as the configurations.

Every switch becomes an FRR node and every GPU server a Linux node (one image, see roles/lab), wired exactly
as the design's links with the design's port names; each node's management address is the design's
management_ip on a lab-private management network, so the intent-driven inventory already knows
ansible_host. Nodes are never privileged (that fails on the project's machines): they get NET_ADMIN,
NET_RAW and SYS_ADMIN.
"""

from __future__ import annotations

import ipaddress

from .errors import IssueCollector

LAB_PLATFORMS = ('frr',)
CAPABILITIES = ['NET_ADMIN', 'NET_RAW', 'SYS_ADMIN']
AUTHORIZED_KEYS = '/root/.ssh/authorized_keys'
# Lab nodes get new host keys on every deploy: do not record or check them.
SSH_COMMON_ARGS = '-o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=no -o LogLevel=ERROR'


def lab_names(design, prefix='aifabric'):
    """Lab name, container-name prefix and management network name, all derived from the intent name."""
    return {'lab': design.name, 'prefix': prefix, 'network': '%s-%s' % (prefix, design.name),
            'container_prefix': '%s-%s-' % (prefix, design.name)}


def check_lab(design):
    """Problems that stop a lab from being built: raise IntentError listing them all."""
    issues = IssueCollector()
    pool = design.intent['management']['pool']
    if not pool:
        issues.add('management.pool', None, 'is required for a lab: set a dedicated /24 such as 172.31.100.0/24; '
                   'its addresses become the static management addresses of the lab nodes')
        issues.raise_if_any()
    network = ipaddress.IPv4Network(pool)
    gateway = network.network_address + 1
    for node in design.switches():
        if node.platform not in LAB_PLATFORMS:
            issues.add(['topology', 'platform', node.role], node.platform,
                       'the lab runs only %s switches (%s is %s); use an intent with platform frr for the lab'
                       % (', '.join(LAB_PLATFORMS), node.name, node.platform))
            break
    for name, address in design.management_ip.items():
        address = ipaddress.IPv4Address(address)
        if address not in network or address in (network.network_address, network.broadcast_address, gateway):
            issues.add(['topology', 'devices', name, 'management_ip'], str(address),
                       'must be a host address of management.pool %s other than the gateway %s' % (network, gateway))
    issues.raise_if_any()
    return network


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


def containerlab_topology(design, image, public_key_path, prefix='aifabric'):
    """The containerlab topology (a dict to dump as YAML) of the fabric's digital twin."""
    network = check_lab(design)
    names = lab_names(design, prefix)
    link_mtu = design.lossless['mtu']['switch']
    nodes = {}
    for name, node in design.nodes.items():
        role = 'gpu_server' if node.role == 'host' else node.role
        nodes[name] = {
            'mgmt-ipv4': design.management_ip[name],
            'labels': {'aifabric.role': role, 'aifabric.fabric': design.name},
            # The node init waits for this many data interfaces before it replays the persisted network
            # state (containerlab 0.79 sets CLAB_INTFS to 0).
            'env': {'AIFABRIC_LINKS': str(len(node.links))},
        }
    ends = endpoints(design)
    links = [{'endpoints': ['%s:%s' % end for end in ends[link.index]], 'mtu': link_mtu} for link in design.links]
    return {
        'name': names['lab'],
        'prefix': names['prefix'],
        'mgmt': {'network': names['network'], 'ipv4-subnet': str(network)},
        'topology': {
            'defaults': {
                'kind': 'linux',
                'image': image,
                'image-pull-policy': 'never',
                'privileged': False,
                'cap-add': list(CAPABILITIES),
                'restart-policy': 'no',
                'binds': ['%s:%s:ro' % (public_key_path, AUTHORIZED_KEYS)],
            },
            'nodes': nodes,
            'links': links,
        },
    }


def lab_inventory(design, intent_path, private_key_path, prefix='aifabric'):
    """A static Ansible inventory of the running lab: the same hosts, groups and variables as the intent
    inventory plugin gives, plus the lab's SSH settings, for use without the plugin."""
    names = lab_names(design, prefix)
    groups = {}
    hostvars = {}
    for name, node in design.nodes.items():
        role = 'gpu_servers' if node.role == 'host' else node.role
        groups.setdefault(role, set()).add(name)
        if node.role != 'host':
            groups.setdefault('platform_%s' % node.platform, set()).add(name)
        hostvars[name] = {'ansible_host': design.management_ip[name], 'aifabric_role': node.role,
                          'aifabric_platform': node.platform, 'aifabric_container': names['container_prefix'] + name}
    children = {group: {'hosts': {name: {} for name in sorted(members)}} for group, members in sorted(groups.items())}
    children['switches'] = {'children': {group: {} for group in ('leaf', 'spine', 'super_spine') if group in groups}}
    return {'all': {
        'vars': {'aifabric_intent': intent_path, 'ansible_user': 'root',
                 'ansible_ssh_private_key_file': private_key_path,
                 'ansible_ssh_common_args': SSH_COMMON_ARGS},
        'hosts': hostvars,
        'children': children,
    }}


def lab_nodes(design, prefix='aifabric'):
    names = lab_names(design, prefix)
    return [{'name': name, 'role': node.role, 'platform': node.platform,
             'management_ip': design.management_ip.get(name), 'container': names['container_prefix'] + name}
            for name, node in design.nodes.items()]
