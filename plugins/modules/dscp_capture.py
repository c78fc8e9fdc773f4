#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
---
module: dscp_capture
short_description: Capture UDP probe packets on switch links and report their DSCP, outer and tunnelled
version_added: 1.0.0
description:
  - Listens on the given interfaces (Linux packet sockets, no tcpdump needed) for IPv4 UDP packets to O(port),
    plain or inside VXLAN (UDP O(vxlan_port)), and returns, per interface and kind of packet, the outer and inner
    source, destination, DSCP and ECN and how many were seen.
  - Stops after O(seconds), or earlier once every O(expect) entry was seen O(packets) times.
  - Used by the M(aifabric.fabric.validate) role's data-plane marking probe on switches that forward in the
    Linux kernel (the FRR lab). A switch that forwards in its ASIC never shows transit packets to its CPU.
  - Only reads; nothing on the device changes.
author:
  - aifabric contributors (@aifabric)
options:
  interfaces:
    description: Interfaces to listen on.
    type: list
    elements: str
    required: true
  port:
    description: UDP destination port of the probe packets (RoCEv2 4791).
    type: int
    default: 4791
  vxlan_port:
    description: UDP destination port of VXLAN.
    type: int
    default: 4789
  sources:
    description: Only packets (inner packets for VXLAN) from these IPv4 addresses are counted; all when empty.
    type: list
    elements: str
    default: []
  expect:
    description: (source, DSCP) pairs; the capture ends early once each was seen O(packets) times.
    type: list
    elements: dict
    default: []
    suboptions:
      source:
        description: IPv4 source of the probe packets.
        type: str
        required: true
      dscp:
        description: DSCP the sender marked.
        type: int
        required: true
  packets:
    description: Packets per O(expect) entry after which the capture may end early.
    type: int
    default: 5
  seconds:
    description: Longest capture, in seconds.
    type: int
    default: 8
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: The capture only reads, so it runs in check mode too.
  diff_mode:
    support: none
  platform:
    platforms: posix
notes:
  - Needs CAP_NET_RAW (root).
seealso:
  - module: aifabric.fabric.dscp_probe
"""

EXAMPLES = r"""
- name: Listen on the spine ports towards leaf001 while a host sends marked probes
  aifabric.fabric.dscp_capture:
    interfaces: [eth1]
    sources: [10.100.0.10]
    expect: [{source: 10.100.0.10, dscp: 26}, {source: 10.100.0.10, dscp: 48}]
  async: 40
  poll: 0
  register: capture_job
"""

RETURN = r"""
packets:
  description: One entry per interface and kind of packet seen, with its count. C(outer) is the VXLAN header's
    IPv4 marking (null for a packet that is not tunnelled), C(inner) the probe packet's own.
  returned: always
  type: list
  elements: dict
  sample:
    - interface: eth1
      count: 20
      vni: 10100
      outer: {src: 10.254.16.1, dst: 10.254.16.3, dscp: 26, ecn: 2}
      inner: {src: 10.100.0.10, dst: 10.100.0.12, dscp: 26, ecn: 2, dport: 4791}
interfaces:
  description: Interfaces listened on.
  returned: always
  type: list
  elements: str
seconds:
  description: How long the capture ran.
  returned: always
  type: float
"""

import ipaddress
import select
import socket
import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.aifabric.fabric.plugins.module_utils.dscp_packets import parse_frame

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4


def _marking(header):
    return {key: header[key] for key in ('src', 'dst', 'dscp', 'ecn')}


def _probe_packet(packet, port):
    """(outer, inner) markings of a probe packet to `port`, plain (outer None) or tunnelled, else (None, None)."""
    if packet['inner'] is not None and packet['inner'].get('dport') == port:
        return _marking(packet), dict(_marking(packet['inner']), dport=port)
    if packet['inner'] is None and packet['dport'] == port:
        return None, dict(_marking(packet), dport=port)
    return None, None


def capture(params, clock=time.monotonic):
    sockets = {}
    try:
        for name in params['interfaces']:
            sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
            sock.bind((name, 0))
            sock.setblocking(False)
            sockets[sock] = name
        counts, order = {}, []
        seen = {(entry['source'], entry['dscp']): 0 for entry in params['expect']}
        started = clock()
        deadline = started + params['seconds']
        while clock() < deadline:
            ready, _unused, _unused = select.select(list(sockets), [], [], max(0.0, min(0.5, deadline - clock())))
            for sock in ready:
                data, address = sock.recvfrom(65535)
                if address[2] == PACKET_OUTGOING:
                    continue  # what the switch sends out of this port, not what arrives on the link from the leaf
                packet = parse_frame(data, params['vxlan_port'])
                outer, inner = _probe_packet(packet, params['port']) if packet else (None, None)
                if inner is None or (params['sources'] and inner['src'] not in params['sources']):
                    continue
                key = (sockets[sock], packet['vni'], tuple(sorted((outer or {}).items())), tuple(sorted(inner.items())))
                if key not in counts:
                    order.append((key, sockets[sock], packet['vni'], outer, inner))
                    counts[key] = 0
                counts[key] += 1
                if (inner['src'], inner['dscp']) in seen:
                    seen[inner['src'], inner['dscp']] += 1
            if seen and min(seen.values()) >= params['packets']:
                break
        packets = [{'interface': name, 'count': counts[key], 'vni': vni, 'outer': outer, 'inner': inner}
                   for key, name, vni, outer, inner in order]
        return packets, round(clock() - started, 2)
    finally:
        for sock in sockets:
            sock.close()


def main():
    module = AnsibleModule(
        argument_spec=dict(
            interfaces=dict(type='list', elements='str', required=True),
            port=dict(type='int', default=4791),
            vxlan_port=dict(type='int', default=4789),
            sources=dict(type='list', elements='str', default=[]),
            expect=dict(type='list', elements='dict', default=[], options=dict(
                source=dict(type='str', required=True), dscp=dict(type='int', required=True))),
            packets=dict(type='int', default=5),
            seconds=dict(type='int', default=8),
        ),
        supports_check_mode=True,
    )
    params = module.params
    problems = []
    for address in params['sources'] + [entry['source'] for entry in params['expect']]:
        try:
            ipaddress.IPv4Address(address)
        except ValueError:
            problems.append('%r is not an IPv4 address' % address)
    for name in ('port', 'vxlan_port'):
        if not 1 <= params[name] <= 65535:
            problems.append('%s=%d is not a UDP port (1..65535)' % (name, params[name]))
    if not 1 <= params['seconds'] <= 600:
        problems.append('seconds=%d must be between 1 and 600' % params['seconds'])
    if problems:
        module.fail_json(msg='; '.join(problems))
    try:
        packets, seconds = capture(params)
    except OSError as exc:
        module.fail_json(msg='cannot capture on %s: %s (needs root / CAP_NET_RAW and existing interfaces)'
                         % (', '.join(params['interfaces']), exc))
    module.exit_json(changed=False, packets=packets, interfaces=params['interfaces'], seconds=seconds)


if __name__ == '__main__':
    main()
