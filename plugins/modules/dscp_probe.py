#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
---
module: dscp_probe
short_description: Send a few UDP packets marked with given DSCP and ECN values from a rail address
version_added: 1.0.0
description:
  - Sends O(packets) small UDP datagrams per marking from O(source) to O(destination):O(port), the IPv4 DS field
    set to DSCP << 2 | ECN (socket option IP_TOS), the markings interleaved every O(interval_ms).
  - The M(aifabric.fabric.validate) role's data-plane marking probe sends the RoCE and CNP DSCPs of the design to
    a host on another leaf of the rail while M(aifabric.fabric.dscp_capture) listens on the spine links.
  - Nothing on the host changes; the destination need not listen (the packets are counted on the way).
author:
  - aifabric contributors (@aifabric)
options:
  source:
    description: IPv4 address to send from (a rail address of this host; policy routing picks the rail).
    type: str
    required: true
  destination:
    description: IPv4 address to send to.
    type: str
    required: true
  port:
    description: UDP destination port (RoCEv2 4791).
    type: int
    default: 4791
  markings:
    description: DS field values to send.
    type: list
    elements: dict
    required: true
    suboptions:
      dscp:
        description: DSCP, 0..63.
        type: int
        required: true
      ecn:
        description: ECN bits, 0..3 (2 = ECT(0)).
        type: int
        default: 0
  packets:
    description: Packets per marking.
    type: int
    default: 20
  interval_ms:
    description: Pause between rounds (one packet of each marking per round).
    type: int
    default: 100
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: Sending probe packets changes nothing on the host, so it runs in check mode too.
  diff_mode:
    support: none
  platform:
    platforms: posix
seealso:
  - module: aifabric.fabric.dscp_capture
"""

EXAMPLES = r"""
- name: RoCE (DSCP 26, ECT(0)) and CNP (DSCP 48) probes to a host on another leaf of rail 0
  aifabric.fabric.dscp_probe:
    source: 10.100.0.10
    destination: 10.100.0.12
    markings: [{dscp: 26, ecn: 2}, {dscp: 48}]
"""

RETURN = r"""
sent:
  description: Per marking, the DS field byte and how many packets left.
  returned: always
  type: list
  elements: dict
  sample: [{dscp: 26, ecn: 2, tos: 106, packets: 20}]
source_port:
  description: UDP source port the kernel chose (one socket, so one ECMP path for every marking).
  returned: always
  type: int
source:
  description: The O(source) address.
  returned: always
  type: str
destination:
  description: The O(destination) address.
  returned: always
  type: str
port:
  description: The UDP destination port.
  returned: always
  type: int
"""

import ipaddress
import socket
import time

from ansible.module_utils.basic import AnsibleModule

PAYLOAD = b'aifabric dscp probe'


def send(params, sleep=time.sleep):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        sock.bind((params['source'], 0))
        sent = [dict(marking, tos=marking['dscp'] << 2 | marking['ecn'], packets=0) for marking in params['markings']]
        for round_number in range(params['packets']):
            for entry in sent:
                sock.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, entry['tos'])
                sock.sendto(PAYLOAD, (params['destination'], params['port']))
                entry['packets'] += 1
            if round_number + 1 < params['packets']:
                sleep(params['interval_ms'] / 1000.0)
        return sent, sock.getsockname()[1]
    finally:
        sock.close()


def main():
    module = AnsibleModule(
        argument_spec=dict(
            source=dict(type='str', required=True),
            destination=dict(type='str', required=True),
            port=dict(type='int', default=4791),
            markings=dict(type='list', elements='dict', required=True, options=dict(
                dscp=dict(type='int', required=True), ecn=dict(type='int', default=0))),
            packets=dict(type='int', default=20),
            interval_ms=dict(type='int', default=100),
        ),
        supports_check_mode=True,
    )
    params = module.params
    problems = []
    for name in ('source', 'destination'):
        try:
            ipaddress.IPv4Address(params[name])
        except ValueError:
            problems.append('%s %r is not an IPv4 address' % (name, params[name]))
    if not 1 <= params['port'] <= 65535:
        problems.append('port=%d is not a UDP port (1..65535)' % params['port'])
    for index, marking in enumerate(params['markings']):
        if not 0 <= marking['dscp'] <= 63 or not 0 <= marking['ecn'] <= 3:
            problems.append('markings[%d]: DSCP %d / ECN %d out of range (DSCP 0..63, ECN 0..3)'
                            % (index, marking['dscp'], marking['ecn']))
    if not 1 <= params['packets'] <= 1000 or not 0 <= params['interval_ms'] <= 10000:
        problems.append('packets must be 1..1000 and interval_ms 0..10000')
    if problems:
        module.fail_json(msg='; '.join(problems))
    try:
        sent, port = send(params)
    except OSError as exc:
        module.fail_json(msg='cannot send from %s to %s:%d: %s' % (
            params['source'], params['destination'], params['port'], exc))
    module.exit_json(changed=False, sent=sent, source_port=port, source=params['source'],
                     destination=params['destination'], port=params['port'])


if __name__ == '__main__':
    main()
