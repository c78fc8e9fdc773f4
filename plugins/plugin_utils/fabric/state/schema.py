# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The platform-neutral state every gatherer gives and the checks read, as types: one TypedDict per shape, and
`problems(key, value)` that holds a value against the type of its key (every field present, of its type).

Gatherer.parse checks what its parser returned (a parser that leaves out a field fails there, naming the key,
the field and the gatherer, instead of a check failing later with a KeyError), and each platform's tests run its
gatherer's outputs through it. A field typed Optional may be None where the platform does not expose it; fields
beyond the declared ones are allowed at run time (a platform may say more); those some platforms give are declared
NotRequired, so that the type checker knows them too. Mapping keys are not checked: state crosses
Ansible's JSON transport, which turns integer keys (VNIs, priorities) into strings.
"""

from __future__ import annotations

from typing import Any, Dict, List, NotRequired, Optional, TypedDict, Union

from .. import typed

Number = typed.Number


class BgpSession(TypedDict):
    """One (vrf, address family, peer) of `bgp_summary`."""
    vrf: str
    afi: str
    peer: str
    id_type: str                     # 'ip' or 'interface' (unnumbered)
    hostname: Optional[str]
    remote_as: Optional[Union[int, str]]
    local_as: Optional[Union[int, str]]
    state: str
    established: bool
    prefixes_received: Optional[int]
    prefixes_sent: Optional[int]
    uptime_ms: Optional[Number]
    description: Optional[str]
    # the neighbour is shut down in the switch's own configuration, where the platform says so (FRR: peerState Admin)
    admin_shutdown: NotRequired[bool]


class EvpnVni(TypedDict):
    """One VNI zebra (the data plane side) knows, in `evpn_vni`."""
    vni: int
    type: Optional[str]
    vxlan_if: Optional[str]
    vtep_ip: Optional[str]
    remote_vteps: List[str]
    tenant_vrf: NotRequired[Optional[str]]
    macs: NotRequired[Optional[int]]
    vlan: NotRequired[Optional[int]]


class BgpEvpnVni(TypedDict):
    """One VNI of BGP's EVPN view."""
    vni: int
    rd: Optional[str]
    in_kernel: bool
    import_rts: List[str]
    export_rts: List[str]
    type: NotRequired[Optional[str]]
    originator_ip: NotRequired[Optional[str]]


class BgpEvpnVnis(TypedDict):
    advertise_all_vni: bool
    vnis: Dict[Any, BgpEvpnVni]


class ImetRoute(TypedDict):
    """One EVPN type-3 (inclusive multicast) path of `evpn_type3`."""
    rd: Optional[str]
    vtep: Optional[str]
    route_targets: List[str]
    valid: bool
    best: bool
    eth_tag: NotRequired[Optional[int]]
    as_path: NotRequired[Optional[str]]
    peer: NotRequired[Optional[str]]
    next_hop: NotRequired[Optional[str]]


class LldpNeighbor(TypedDict):
    interface: Optional[str]
    system_name: Optional[str]
    peer_port: Optional[str]
    chassis_id: NotRequired[Optional[str]]
    port_id_type: NotRequired[Optional[str]]
    port_id: NotRequired[Optional[str]]
    port_descr: NotRequired[Optional[str]]
    via: NotRequired[Optional[str]]


class Interface(TypedDict):
    """One interface of `interfaces` (Linux `ip -j` words: what a check of links and MTUs reads)."""
    ifname: str
    mtu: Optional[int]
    operstate: Optional[str]
    admin_up: bool
    lower_up: bool
    addresses: List[Dict[str, Any]]
    master: NotRequired[Optional[str]]
    kind: NotRequired[Optional[str]]
    vxlan: NotRequired[Optional[Dict[str, Any]]]
    status: NotRequired[Optional[str]]   # the NOS's own word for the interface's state (EOS interfaceStatus)


class Nexthop(TypedDict):
    gateway: Optional[str]
    dev: Optional[str]


class Route(TypedDict):
    """One route of `routes` (the kernel's main table on a Linux data plane)."""
    dst: str
    type: str                        # unicast, blackhole, unreachable, prohibit, local ...
    protocol: Optional[str]
    metric: Optional[int]
    nexthops: List[Nexthop]


class BfdSession(TypedDict):
    """One BFD session of `bfd`, keyed by peer address (and by interface for an unnumbered one)."""
    peer: str
    interface: Optional[str]
    status: Optional[str]            # 'up', 'down', 'init' ...
    diagnostic: Optional[str]
    down_events: Optional[int]
    remote_diagnostic: NotRequired[Optional[str]]
    uptime_s: NotRequired[Optional[Number]]
    downtime_s: NotRequired[Optional[Number]]
    up_events: NotRequired[Optional[int]]


class Watchdog(TypedDict):
    action: Optional[str]
    detection_ms: Optional[Number]
    restoration_ms: Optional[Number]


class PortView(TypedDict):
    """The lossless view of one switch port (views.port_view gives every field)."""
    mtu: Optional[int]
    trust: Optional[str]
    dscp_to_tc: Optional[Dict[Any, int]]
    dscp_map: Optional[str]
    pfc: List[int]
    pfcwd: List[int]
    watchdog: Optional[Watchdog]
    poll_ms: Optional[Number]
    tc_to_pg: Optional[Dict[Any, int]]
    tc_to_queue: Optional[Dict[Any, int]]
    pfc_to_queue: Optional[Dict[Any, int]]
    pfc_to_pg: Optional[Dict[Any, int]]
    queues: Dict[Any, Dict[str, Any]]
    pgs: Dict[Any, Dict[str, Any]]
    egress: Dict[Any, Any]
    cable_length_m: Optional[Number]
    headroom: str
    in_neighbors: Optional[bool]
    lossless_mtu: Optional[int]


class Lossless(TypedDict):
    ports: Dict[str, PortView]
    source: str
    issues: List[str]


class Counters(TypedDict):
    """{port: {metric: count | {index: count} | flag}} (metrics in counters.py; absent where not counted)."""
    ports: Dict[str, Dict[str, Any]]
    not_applicable: NotRequired[Optional[str]]  # a GPU server without RDMA NIC: why nothing is counted


class RnicInterface(TypedDict):
    interface: str
    exists: bool
    mtu: Optional[int]
    trust: Optional[str]
    pfc_priorities: Optional[List[int]]
    dscp_to_priority: Optional[Dict[Any, int]]
    ecn_rp_priorities: Optional[List[int]]
    ecn_np_priorities: Optional[List[int]]
    cnp_dscp: Optional[int]
    cnp_priority: Optional[int]
    traffic_class: Optional[int]
    cable_length_m: Optional[int]  # the NIC's headroom cable length; None: the NIC reports none
    rdma_devices: NotRequired[List[str]]


class Rnic(TypedDict):
    not_applicable: Optional[str]
    errors: List[str]
    interfaces: Dict[str, RnicInterface]


class NcclConf(TypedDict):
    """A GPU server's /etc/nccl.conf as NCCL reads it (host.parse_nccl_conf): the first line of a key wins."""
    path: str
    present: bool
    settings: Dict[str, str]


class ProbeMarking(TypedDict):
    """One marking a probe sent (aifabric.fabric.dscp_probe `sent`)."""
    dscp: int
    ecn: int
    tos: int
    packets: int


class MarkingProbe(TypedDict):
    """What a GPU server sent to one destination in the data-plane marking probe (probe.parse_marking_probe)."""
    source: str
    destination: str
    port: int
    sent: List[ProbeMarking]


class CapturedHeader(TypedDict):
    """The IPv4 marking of a captured header (the probe packet's own, or the VXLAN outer one)."""
    src: str
    dst: str
    dscp: int
    ecn: int


class CapturedPacket(TypedDict):
    """One kind of packet seen on one interface, with its count (aifabric.fabric.dscp_capture `packets`)."""
    interface: str
    count: int
    vni: Optional[int]
    outer: Optional[CapturedHeader]  # None: not tunnelled
    inner: CapturedHeader


class MarkingCapture(TypedDict):
    """What a kernel-forwarding switch captured on its links during the probe (probe.parse_marking_capture)."""
    interfaces: List[str]
    packets: List[CapturedPacket]
    seconds: Optional[Number]


class Ping(TypedDict):
    destination: Optional[str]
    payload: Optional[int]
    dont_fragment: bool
    transmitted: Optional[int]
    received: Optional[int]
    loss_percent: Optional[Number]
    ok: bool
    reason: Optional[str]


# The type of each neutral state key (ping:<rail>:<peer> and jumbo:... are Ping; keys a gatherer reads for itself,
# such as ANTA's outputs, have none).
STATE = {
    'bgp_summary': List[BgpSession],
    'evpn_vni': Dict[Any, EvpnVni],
    'bgp_evpn_vni': BgpEvpnVnis,
    'evpn_type3': List[ImetRoute],
    'lldp': List[LldpNeighbor],
    'interfaces': Dict[str, Interface],
    'bfd': Dict[str, BfdSession],
    'routes': List[Route],
    'lossless': Lossless,
    'counters': Counters,
    'rnic': Rnic,
    'nccl_conf': NcclConf,
    'marking_probe': List[MarkingProbe],
    'marking_capture': MarkingCapture,
    'ping': Ping,
}


def type_of(key):
    """The type of a state key (None: not a neutral key, such as a gatherer's own ANTA outputs)."""
    base = key.split(':', 1)[0]
    return STATE.get('ping' if base == 'jumbo' else base)


def problems(key, value, limit=5, first=False) -> list:
    """What is wrong with `value` as the state `key` (empty list: nothing): at most `limit` sentences (`first`: see
    typed.problems)."""
    expected = type_of(key)
    return [] if expected is None else typed.problems(value, expected, key, limit, first)


__all__ = ['STATE', 'problems', 'type_of', 'BgpSession', 'EvpnVni', 'BgpEvpnVnis', 'BgpEvpnVni', 'ImetRoute',
           'LldpNeighbor', 'Interface', 'Route', 'BfdSession', 'PortView', 'Lossless', 'Counters', 'Rnic', 'NcclConf',
           'MarkingProbe', 'MarkingCapture', 'Ping']
