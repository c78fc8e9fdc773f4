# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read the marking of captured frames: Ethernet (802.1Q tags skipped), IPv4, UDP and, for VXLAN, the
encapsulated frame (stdlib only, used by the dscp_capture module).

Layouts: Ethernet II (IEEE 802.3), 802.1Q tag 0x8100 / 802.1ad 0x88a8, IPv4 (RFC 791: the DS field is the second
byte, DSCP its upper six bits and ECN the lower two, RFC 2474 / RFC 3168), UDP (RFC 768), VXLAN (RFC 7348: 8-byte
header, VNI in bytes 4-6, then the inner Ethernet frame).
"""

from __future__ import annotations

import struct

ETH_P_IP = 0x0800
VLAN_TAGS = (0x8100, 0x88a8)
IPPROTO_UDP = 17
VXLAN_HEADER = 8


def _ipv4(data: bytes, offset: int):
    """(header dict, offset of the payload) of the IPv4 packet at `offset`, or None."""
    if len(data) < offset + 20 or data[offset] >> 4 != 4:
        return None
    ihl = (data[offset] & 0x0F) * 4
    if ihl < 20 or len(data) < offset + ihl:
        return None
    tos = data[offset + 1]
    header = {'src': '.'.join(str(byte) for byte in data[offset + 12:offset + 16]),
              'dst': '.'.join(str(byte) for byte in data[offset + 16:offset + 20]),
              'dscp': tos >> 2, 'ecn': tos & 0x03, 'proto': data[offset + 9]}
    return header, offset + ihl


def _ethernet(data: bytes, offset: int = 0):
    """Offset of the IPv4 header in the Ethernet frame at `offset`, or None when it carries no IPv4."""
    position = offset + 12
    while len(data) >= position + 2:
        ethertype = struct.unpack('!H', data[position:position + 2])[0]
        if ethertype in VLAN_TAGS:
            position += 4
            continue
        return position + 2 if ethertype == ETH_P_IP else None
    return None


def _udp(data: bytes, offset: int):
    if len(data) < offset + 8:
        return None
    sport, dport = struct.unpack('!HH', data[offset:offset + 4])
    return {'sport': sport, 'dport': dport}, offset + 8


def parse_frame(data: bytes, vxlan_port: int = 4789) -> dict | None:
    """The IPv4/UDP marking of one Ethernet frame.

    {'src', 'dst', 'dscp', 'ecn', 'sport', 'dport', 'vni', 'inner'}: `inner` is the same for the frame a VXLAN
    packet (UDP destination `vxlan_port`) carries, else None. None for anything that is not IPv4/UDP.
    """
    start = _ethernet(data)
    if start is None:
        return None
    outer = _ipv4(data, start)
    if outer is None or outer[0]['proto'] != IPPROTO_UDP:
        return None
    header, offset = outer
    ports = _udp(data, offset)
    if ports is None:
        return None
    packet = dict(header, **ports[0])
    packet.pop('proto')
    packet['vni'] = None
    packet['inner'] = None
    if packet['dport'] == vxlan_port and len(data) >= ports[1] + VXLAN_HEADER:
        vxlan = ports[1]
        packet['vni'] = int.from_bytes(data[vxlan + 4:vxlan + 7], 'big')
        inner_start = _ethernet(data, vxlan + VXLAN_HEADER)
        inner = _ipv4(data, inner_start) if inner_start is not None else None
        if inner is not None:
            inner_header, inner_offset = inner
            inner_ports = _udp(data, inner_offset) if inner_header['proto'] == IPPROTO_UDP else None
            inner_header.update(inner_ports[0] if inner_ports else {'sport': None, 'dport': None})
            packet['inner'] = inner_header
    return packet
