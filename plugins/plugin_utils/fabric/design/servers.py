# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The GPU server part of the design: each server's rails (address, gateway, routing table, rule), its RDMA NIC QoS,
sysctls and NCCL settings, and the fabric's Kubernetes rail networks."""

from __future__ import annotations

import ipaddress

from ..model import HostModel
from .addressing import dotted

# NCCL queue pairs per connection on ECMP fabrics without adaptive routing (entropy: one UDP source port per QP).
DEFAULT_QPS_PER_CONNECTION = 4


class Servers:
    """Host models of a fabric's GPU servers. Servers with the same NICs share one NCCL, sysctl and RDMA NIC QoS
    object (read-only), and every server shares the fabric's Kubernetes networks."""

    def __init__(self, name, intent, topology, lossless, overlay, addressing, ports):
        self.name = name
        self.intent = intent
        self.topology = topology
        self.lossless = lossless
        self.overlay = overlay
        self.addressing = addressing
        self.ports = ports
        self._host_parts = {}
        self._kubernetes = None

    def interface(self, rail):
        given = self.intent['hosts']['rail_interfaces']
        return given[rail] if given else 'eth%d' % (rail + 1)

    def rdma_device(self, rail):
        given = self.intent['hosts']['rdma_devices']
        return given[rail] if given else 'mlx5_%d' % rail

    def model(self, node) -> HostModel:
        lossless = self.lossless
        attachment = self.intent['hosts']['attachment']
        table_base = self.intent['hosts']['routing_table_base']
        rails: list = []  # each entry is made a field at a time (its Rail type is held in tests: model.problems)
        for link in node.links:
            leaf = link.upper
            entry = {
                'rail': link.rail,
                'interface': self.interface(link.rail),
                'rdma_device': self.rdma_device(link.rail),
                'speed_gbps': link.speed_gbps,
                'leaf': leaf.name,
                'leaf_interface': self.ports[leaf.name][link.index]['name'],
                'table': table_base + link.rail,
                'rule_priority': 1000 + link.rail,
                'cable_length_m': link.cable_length_m,
            }
            if attachment == 'routed':
                mine, gateway, prefix = self.addressing.link_ip[link.index]
                entry.update(address='%s/%d' % (mine, prefix), ip=mine, prefixlen=prefix, gateway=gateway,
                             network=None, vlan=None,
                             routes=[{'to': self.intent['underlay']['pools']['host_p2p'], 'via': gateway}])
            else:
                network = self.overlay.network_by_rail[link.rail]
                first, routes = self.overlay.rail_network[network['name']]
                ip = dotted(first + self.intent['hosts']['address_offset'] + node.index - 1)
                entry.update(address='%s/%d' % (ip, network['prefixlen']), ip=ip, prefixlen=network['prefixlen'],
                             gateway=network['gateway'], network=network['name'], vlan=network['vlan'],
                             subnet=network['subnet'], routes=routes)
            rails.append(entry)
        rails.sort(key=lambda entry: entry['rail'])
        nics = tuple((entry['interface'], entry['rdma_device']) for entry in rails)
        shared = self._host_parts.get(nics)
        if shared is None:
            shared = self._host_parts[nics] = (self._nccl(rails), self._sysctl(rails), self._rnic())
        nccl, sysctl, rnic = shared
        return {
            'name': node.name,
            'fabric': self.name,
            'role': 'host',
            'index': node.index,
            'pod': node.pod,
            'group': node.group,
            'management_ip': self.addressing.management_ip.get(node.name),
            'gpus': self.topology.gpus_per_server,
            'gpudirect': self.intent['hosts']['gpudirect'],
            'attachment': attachment,
            'bootstrap_interface': self.intent['hosts']['bootstrap_interface'],
            'mtu': lossless['mtu']['host'],
            'rails': rails,
            'rnic': rnic,
            'nccl': nccl,
            'sysctl': sysctl,
            'kubernetes': self.kubernetes(),
        }

    def _rnic(self):
        lossless = self.lossless
        return {
            'trust': 'dscp',
            'pfc_priorities': lossless['lossless_priorities'],
            'pfc_mask': lossless['pfc_mask'],
            'roce_dscp': lossless['roce_dscp'],
            'roce_priority': lossless['roce_priority'],
            'cnp_dscp': lossless['cnp_dscp'],
            'cnp_priority': lossless['cnp_priority'],
            # The switches' whole map: a NIC left on its default (priority = DSCP >> 3) would put DSCP 24-31 on
            # priority 3, where PFC is on, while every switch queues them as lossy.
            'dscp_to_priority': lossless['dscp_to_tc'],
            'ecn_priorities': lossless['lossless_priorities'],
            'traffic_class': lossless['traffic_class_byte'],
            'mtu': lossless['mtu']['host'],
        }

    @staticmethod
    def _sysctl(rails):
        sysctl = {'net.ipv4.conf.all.arp_ignore': 1, 'net.ipv4.conf.all.arp_announce': 2,
                  'net.ipv4.conf.all.rp_filter': 2, 'net.ipv4.conf.default.arp_ignore': 1,
                  'net.ipv4.conf.default.arp_announce': 2, 'net.ipv4.conf.default.rp_filter': 2}
        for entry in rails:
            key = entry['interface'].replace('.', '/')
            sysctl.update({'net.ipv4.conf.%s.arp_ignore' % key: 1, 'net.ipv4.conf.%s.arp_announce' % key: 2,
                           'net.ipv4.conf.%s.rp_filter' % key: 2})
        return sysctl

    def kubernetes(self) -> dict:
        """Multus secondary networks, one per rail, shared by every server of the fabric (computed once).

        Pods take the upper half of each rail subnet, above the hosts' addresses.
        """
        if self._kubernetes is None:
            self._kubernetes = self._build_kubernetes()
        return self._kubernetes

    def _build_kubernetes(self):
        spec = self.intent['hosts']['kubernetes']
        if self.intent['hosts']['attachment'] != 'evpn':
            return {'enabled': False, 'reason': 'routed /31 rail attachment leaves no rail addresses for pods '
                                                '(Kubernetes secondary networks need attachment: evpn)'}
        hosts = len(self.topology.by_role('host'))
        first_free = self.intent['hosts']['address_offset'] + hosts
        networks = []
        for rail in range(self.topology.rails):
            network = self.overlay.network_by_rail.get(rail)
            if network is None:
                continue
            subnet = ipaddress.IPv4Network(network['subnet'])
            start = subnet.network_address + max(subnet.num_addresses // 2, first_free)
            # Routed networks keep the top of the subnet for the leaves' own SVI addresses.
            end = (subnet.network_address + network['svi_first_offset'] - 1 if network['svi_first_offset']
                   else subnet.broadcast_address - 1)
            if start > end:
                return {'enabled': False, 'reason': 'rail subnet %s has no room for pod addresses after the %d hosts'
                                                    % (subnet, hosts)}
            gateway = network['gateway']
            exclude = ['%s/32' % gateway] if gateway and start <= ipaddress.IPv4Address(gateway) <= end else []
            networks.append({'rail': rail, 'name': '%s-rail%d' % (self.name, rail),
                             'interface': self.interface(rail), 'rdma_device': self.rdma_device(rail),
                             'resource_name': 'rail%d' % rail, 'subnet': str(subnet),
                             'range_start': str(start), 'range_end': str(end), 'exclude': exclude,
                             'gateway': gateway, 'routes': self.overlay.rail_routes(network),
                             'mtu': self.lossless['mtu']['host']})
        # What NCCL inside a pod and the host NIC need to agree on, from the one lossless profile.
        return dict(spec, enabled=True, networks=networks, traffic_class=self.lossless['traffic_class_byte'],
                    pfc_priorities=self.lossless['lossless_priorities'])

    def _nccl(self, rails):
        spec = self.intent['hosts']['nccl']
        settings = {
            'NCCL_IB_HCA': '=' + ','.join('%s:1' % entry['rdma_device'] for entry in rails),
            'NCCL_IB_TC': self.lossless['traffic_class_byte'],
            'NCCL_SOCKET_IFNAME': '=' + self.intent['hosts']['bootstrap_interface'],
        }
        if spec['gid_index'] is not None:
            settings['NCCL_IB_GID_INDEX'] = spec['gid_index']
        # Entropy: on ECMP fabrics several QPs per connection give each connection several UDP source ports, hence
        # several paths; adaptive routing sprays packets itself, one QP is enough (NCCL default 1).
        qps = spec['qps_per_connection']
        if qps is None:
            qps = 1 if self.intent['underlay']['ecmp']['adaptive_routing'] else DEFAULT_QPS_PER_CONNECTION
        settings['NCCL_IB_QPS_PER_CONNECTION'] = qps
        if spec['split_data_on_qps'] is not None:
            settings['NCCL_IB_SPLIT_DATA_ON_QPS'] = spec['split_data_on_qps']
        settings.update(sorted(spec['extra'].items()))
        return settings
