# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fabric-wide design: topology, addressing, ASNs, VNIs, lossless profile and buffer headroom.

`FabricDesign(intent)` does every fabric-wide computation once; `device(name)` then returns the plain,
JSON-serialisable model of one switch or host (its shape: model.py), which is all a renderer or host role needs.
A device's model depends only on the intent, so --limit, forks and job slicing give identical results.

The design is put together by domain, in this order (each stage reports every problem it finds and the design stops
at its end when there is one): hardware.py (platform, model and ASIC of every switch, its ports named the NOS's
way), addressing.py (ASNs, loopbacks, VTEPs, /31s, management), overlay.py (networks, VRFs, EVPN), lossless.py
(the fabric's lossless profile, ECN, headroom and buffers), then switches.py and servers.py make device models.
"""

from __future__ import annotations

from collections import Counter

from ..errors import IssueCollector
from ..errors import IntentError
from ..intent import read_intent_file_located, validate_intent
from ..model import DeviceModel
from ..topology import build_topology, intent_rails
from ..terms import SWITCH_ROLES, VXLAN_OVERHEAD
from .addressing import Addressing, dotted
from .hardware import assign_ports, check_devices
from .lossless import ROLE_LABEL, Buffers, build_lossless_profile, ecn_thresholds, traffic_class_byte
from .overlay import ANYCAST_GATEWAY_MAC, TUNNEL_QOS, Overlay, check_rails
from .servers import DEFAULT_QPS_PER_CONNECTION, Servers
from .switches import switch_model


class FabricDesign:
    """Everything derived from one intent. Build once, then ask for devices."""

    def __init__(self, intent: dict, issues=None):
        """`intent` has passed the schema; `issues` holds its cross-field problems (validate_intent), if any, so that
        they are reported together with the design's own."""
        self.intent = intent
        self.name = intent['name']
        issues = issues if issues is not None else IssueCollector()
        topology_unusable = any(issue.path == 'topology' or issue.path.startswith('topology.naming')
                                for issue in issues.issues)
        topology = None if topology_unusable else build_topology(intent, issues)
        if topology is None:
            # The topology has problems; still report what can be checked without it.
            rails = intent_rails(intent)
            if rails is not None:
                check_rails(intent, rails, issues)
            issues.raise_if_any()
            raise RuntimeError('no topology, and no problem said why')  # build_topology returns None only with issues
        self.topology = topology
        self.nodes = self.topology.nodes
        self.links = self.topology.links
        self.lossless = build_lossless_profile(intent)
        check_devices(intent, self.topology, self.switches(), issues)
        check_rails(intent, self.topology.rails, issues)
        issues.raise_if_any()
        self.ports = assign_ports(intent, self.switches(), issues)
        issues.raise_if_any()
        self.addressing = Addressing(intent, self.topology, self.switches(), self.hosts(), issues)
        self.overlay = Overlay(intent, self.topology, self.hosts(), issues)
        issues.raise_if_any()
        self.buffers = Buffers(intent, self.lossless, self.switches(), issues)
        issues.raise_if_any()
        self.servers = Servers(self.name, intent, self.topology, self.lossless, self.overlay, self.addressing,
                               self.ports)
        # The parts' results, where callers have always found them.
        self.asn, self.router_id, self.vtep = self.addressing.asn, self.addressing.router_id, self.addressing.vtep
        self.link_ip, self.management_ip = self.addressing.link_ip, self.addressing.management_ip
        self.management_network = self.addressing.management_network
        self.management_gateway = self.addressing.management_gateway
        self.vrfs, self.networks = self.overlay.vrfs, self.overlay.networks
        self.network_by_rail = self.overlay.network_by_rail
        self.buffer_budget, self.headroom = self.buffers.buffer_budget, self.buffers.headroom

    # ----------------------------------------------------------------- the devices
    def switches(self):
        return [node for node in self.nodes.values() if node.role != 'host']

    def hosts(self):
        return self.topology.by_role('host')

    def device_names(self, role=None):
        return [name for name, node in self.nodes.items() if role is None or node.role == role]

    def interface_name(self, node, link) -> str:
        """Name of `link`'s end on `node`, as the device models name it (hosts: the rail netdev). For docs."""
        if node.role == 'host':
            return self.servers.interface(link.rail)
        return self.ports[node.name][link.index]['name']

    def device(self, name: str) -> DeviceModel:
        """The model of one device. It shares parts with other devices' models (physical ports, the NIC settings
        of servers with the same NICs), which renderers format once: read it, never change it."""
        node = self.nodes[name]
        if node.role == 'host':
            return self.servers.model(node)
        return switch_model(self, node)

    def kubernetes(self) -> dict:
        """Multus secondary networks, one per rail, shared by every server of the fabric (computed once)."""
        return self.servers.kubernetes()

    # ----------------------------------------------------------------- fabric views for docs
    def summary(self) -> dict:
        counts = Counter(node.role for node in self.nodes.values())
        return {
            'name': self.name,
            'tiers': self.topology.tiers,
            'pods': self.topology.pods,
            'rails': self.topology.rails,
            'gpus': counts['host'] * self.topology.gpus_per_server,
            'hosts': counts['host'],
            'leaves': counts['leaf'],
            'spines': counts['spine'],
            'super_spines': counts['super_spine'],
            'links': len(self.links),
            'leaf_downlinks': self.topology.leaf_downlinks,
            'leaf_uplinks': self.topology.leaf_uplinks,
            'oversubscription': round(self.topology.oversubscription, 3),
            # How the fabric was sized: spines per pod and parallel links per leaf-spine pair (gap: sizing).
            'spines_per_pod': self.topology.spines_per_pod,
            'links_per_leaf_spine': self.topology.links_per_leaf_spine,
            'platforms': dict(Counter(node.platform for node in self.switches())),
            'models': dict(Counter(node.model for node in self.switches() if node.model)),
        }


def design_from_intent(data) -> FabricDesign:
    """The design of an intent mapping; IntentError lists every problem of the intent and of its design at once."""
    intent, issues = validate_intent(data)
    return FabricDesign(intent, issues)


def design_from_file(path: str) -> FabricDesign:
    """The design of the intent file at `path`; IntentError naming, beside each problem's path, its file and line."""
    data, lines = read_intent_file_located(path)
    try:
        return design_from_intent(data)
    except IntentError as exc:
        raise exc.located(path, lines) from None


__all__ = ['FabricDesign', 'design_from_file', 'design_from_intent', 'build_lossless_profile', 'ecn_thresholds',
           'traffic_class_byte', 'dotted', 'VXLAN_OVERHEAD', 'ROLE_LABEL', 'SWITCH_ROLES', 'ANYCAST_GATEWAY_MAC',
           'TUNNEL_QOS', 'DEFAULT_QPS_PER_CONNECTION']
