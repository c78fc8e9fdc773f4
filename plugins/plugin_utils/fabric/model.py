# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The device model, as types: what FabricDesign.device() gives a renderer (SwitchModel, HostModel). The contract
between the design (design/, which makes the models) and the platforms' renderers (which format them), below both.

The model stays plain data (JSON-serialisable dicts and lists, shared between devices where equal); these
TypedDicts say its shape, and `problems(model)` holds one against it. The design's tests check every device of
every test fabric, and a platform folder's contract test checks the models it renders, so a field the design stops
giving fails there rather than in a renderer.
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, TypedDict, Union

from . import typed
from .terms import SwitchRole


class Neighbor(TypedDict):
    peer: str
    interface: str
    ip: Optional[str]            # None on unnumbered sessions (the interface is the peer)
    remote_asn: int
    direction: str               # 'up' (towards the spines) or 'down'
    description: str


class Bgp(TypedDict):
    asn: int
    router_id: str
    numbered: bool
    bfd: bool
    bfd_timers: Dict[str, int]   # interval_ms, multiplier
    timers: Dict[str, int]       # keepalive_s, hold_s
    wait_for_fib: bool
    neighbors: List[Neighbor]
    advertise: List[str]
    evpn: bool
    maximum_paths: int


class Ecn(TypedDict):
    min_threshold_bytes: int
    max_threshold_bytes: int
    mark_probability_percent: int


class SwitchInterface(TypedDict):
    name: str
    port: int
    link_index: int
    link_role: str
    direction: str
    speed_gbps: int
    lanes: Optional[int]
    cage: int
    subport: int
    lane_ids: Optional[List[int]]
    alias: Optional[str]
    breakout: Optional[str]
    breakout_parent: Optional[str]
    split: bool
    fec: Optional[str]
    mtu: int
    cable_length_m: int
    peer: str
    peer_role: str
    peer_interface: str
    ecn: Ecn
    peer_asn: Optional[int]
    description: str
    mode: str                    # routed, unnumbered or access
    ipv4: Optional[str]
    peer_ipv4: Optional[str]
    access_vlan: Optional[int]
    rail: Optional[int]
    headroom: Optional[Dict[str, int]]


class Management(TypedDict):
    interface: str
    vrf: Optional[str]
    address: Optional[str]
    gateway: Optional[str]
    ntp_servers: List[str]
    syslog_servers: List[str]
    dns_servers: List[str]
    dns_domain: Optional[str]
    tacacs_servers: List[str]
    allowed_sources: List[str]
    users: List[Dict[str, Any]]


class Hardware(TypedDict):
    model: str
    title: str
    vendor: str
    ports: int
    vxlan_dscp_propagation: bool
    vxlan_ecn_propagation: bool


class Vlan(TypedDict):
    name: str
    vlan: int
    vni: int
    subnet: str
    prefixlen: int
    vrf: Optional[str]
    gateway: Optional[str]
    rails: List[int]
    route_target: str
    ports: List[str]
    rd: str
    svi_ip: Optional[str]


class Vrf(TypedDict):
    name: str
    l3vni: int
    vlan: int
    rd_number: int
    route_target: str
    rd: str


class Evpn(TypedDict):
    vtep_ip: str
    source_interface: str
    udp_port: int
    vlans: List[Vlan]
    vrfs: List[Vrf]
    gateway_mac: str
    tunnel_qos: Dict[str, Any]


class Lossless(TypedDict):
    """The fabric-wide lossless profile (design/lossless.py build_lossless_profile), shared by every switch."""
    roce_dscp: int
    cnp_dscp: int
    lossless_priorities: List[int]
    roce_priority: int
    cnp_priority: int
    default_traffic_class: int
    lossy_traffic_classes: List[int]
    traffic_class_byte: int
    dscp_to_tc: Dict[Any, int]
    tc_to_pg: Dict[Any, int]
    tc_to_dscp: Dict[Any, int]
    tc_to_queue: Dict[Any, int]
    pfc_to_queue: Dict[Any, int]
    pfc_to_pg: Dict[Any, int]
    pfc_mask: List[int]
    lldp_app_priorities: List[Dict[str, Any]]
    ecn: Dict[str, Any]
    scheduler: Dict[str, Any]
    tc_bandwidth_percent: Dict[Any, int]
    watchdog: Dict[str, Any]
    mtu: Dict[str, int]
    buffer: Dict[str, Any]


class BufferProfile(TypedDict):
    name: str
    speed_gbps: int
    cable_length_m: int
    xon: int
    xoff: int
    size: int


class Buffer(TypedDict):
    headroom_bytes: int
    shared_headroom: bool
    pool_source: str
    pool_bytes: int
    headroom_room_bytes: int
    egress_lossless_pool_bytes: int
    # A platform rendering its SKU's buffers (Platform.sku_buffers): the SKU's pools sized for the headroom, and the
    # SKU's buffer objects; None where the NOS sizes its pools itself.
    pools: Optional[Dict[str, Dict[str, Any]]]
    sku: Optional[Dict[str, Any]]
    profiles: List[BufferProfile]
    asic_buffer_bytes: int


class SwitchModel(TypedDict):
    name: str
    fabric: str
    role: SwitchRole
    platform: str
    asic: Optional[str]
    asic_vendor: Optional[str]
    hardware: Optional[Hardware]  # None on platforms without switch models (the lab)
    ecmp: Dict[str, Any]
    nos_release: str
    pod: Optional[int]
    rail: Optional[int]
    management_ip: Optional[str]
    management: Management
    asn: int
    router_id: str
    mtu: int
    interfaces: List[SwitchInterface]
    bgp: Bgp
    evpn: Optional[Evpn]         # leaves of a fabric with networks or VRFs
    qos: Optional[Lossless]      # platforms with a lossless data plane
    buffer: Optional[Buffer]     # the same


class Rail(TypedDict):
    rail: int
    interface: str
    rdma_device: str
    speed_gbps: int
    leaf: str
    leaf_interface: str
    table: int
    rule_priority: int
    cable_length_m: int
    address: str
    ip: str
    prefixlen: int
    gateway: Optional[str]
    network: Optional[str]
    vlan: Optional[int]
    routes: List[Dict[str, Any]]


class HostModel(TypedDict):
    name: str
    fabric: str
    role: Literal['host']
    index: int
    pod: Optional[int]
    group: Optional[int]
    management_ip: Optional[str]
    gpus: int
    gpudirect: Any
    attachment: str
    bootstrap_interface: str
    mtu: int
    rails: List[Rail]
    rnic: Dict[str, Any]
    nccl: Dict[str, Any]
    sysctl: Dict[str, Any]
    kubernetes: Dict[str, Any]


# What FabricDesign.device() gives: a switch's model or a GPU server's (tell them apart by `role`).
DeviceModel = Union[SwitchModel, HostModel]


def problems(model, limit=5) -> list:
    """What is wrong with a device model (empty list: nothing)."""
    kind = HostModel if isinstance(model, dict) and model.get('role') == 'host' else SwitchModel
    return typed.problems(model, kind, model.get('name', 'model') if isinstance(model, dict) else 'model', limit)


__all__ = ['SwitchModel', 'HostModel', 'DeviceModel', 'SwitchInterface', 'Bgp', 'Neighbor', 'Evpn', 'Management', 'problems']
