# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""dscp_probe and dscp_capture: frame parsing on frames built from the RFC layouts, and the real thing - the probe
sends through a real Linux VXLAN device between two network namespaces and the capture reads the wire."""

import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import time

import pytest

from ansible_collections.aifabric.fabric.plugins.module_utils.dscp_packets import parse_frame
from tests.unit.utils.waiting import stretch

MAC = b'\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x00\x02'


def ipv4(src, dst, tos, proto, payload):
    header = struct.pack('!BBHHHBBH4s4s', 0x45, tos, 20 + len(payload), 1, 0, 64, proto, 0,
                         socket.inet_aton(src), socket.inet_aton(dst))
    return header + payload


def udp(sport, dport, payload=b'probe'):
    return struct.pack('!HHHH', sport, dport, 8 + len(payload), 0) + payload


def ethernet(payload, vlan=None):
    tag = struct.pack('!HH', 0x8100, vlan) if vlan is not None else b''
    return MAC + tag + struct.pack('!H', 0x0800) + payload


def vxlan(vni, frame):
    return struct.pack('!B3xI', 0x08, vni << 8) + frame


def test_plain_udp_frame():
    frame = ethernet(ipv4('10.100.0.10', '10.100.0.12', 106, 17, udp(50000, 4791)))
    assert parse_frame(frame) == {'src': '10.100.0.10', 'dst': '10.100.0.12', 'dscp': 26, 'ecn': 2,
                                  'sport': 50000, 'dport': 4791, 'vni': None, 'inner': None}


def test_vxlan_frame_behind_a_vlan_tag():
    inner = ethernet(ipv4('10.100.0.10', '10.100.0.12', 0xc0, 17, udp(50000, 4791)))
    frame = ethernet(ipv4('10.254.16.1', '10.254.16.3', 0x68, 17, udp(61000, 4789, vxlan(10100, inner))), vlan=5)
    packet = parse_frame(frame)
    assert (packet['dscp'], packet['ecn'], packet['dport'], packet['vni']) == (26, 0, 4789, 10100)
    assert packet['inner'] == {'src': '10.100.0.10', 'dst': '10.100.0.12', 'dscp': 48, 'ecn': 0, 'proto': 17,
                               'sport': 50000, 'dport': 4791}


@pytest.mark.parametrize('frame', [
    MAC + struct.pack('!H', 0x0806) + b'\x00' * 28,                        # ARP
    ethernet(ipv4('10.0.0.1', '10.0.0.2', 0, 1, b'\x08\x00' + b'\x00' * 6)),  # ICMP
    ethernet(ipv4('10.0.0.1', '10.0.0.2', 0, 17, b'\x01')),                 # truncated UDP
    ethernet(b'\x60' + b'\x00' * 39),                                        # not IPv4
    MAC,                                                                     # no ethertype
])
def test_what_is_not_ipv4_udp_is_none(frame):
    assert parse_frame(frame) is None


# ---------------------------------------------------------------------------------------- on a real kernel
NS = ('aifabric-probe-a-%d' % os.getpid(), 'aifabric-probe-b-%d' % os.getpid())


def _ip(*args):
    subprocess.run(['ip'] + list(args), check=True, capture_output=True)


@pytest.fixture
def tunnel():
    """Two namespaces joined by a veth (the leaf-spine link); in each a VXLAN device (VNI 100) with an address
    of the same subnet. Yields a function that (re)creates the VXLAN devices with a given `tos`."""
    if os.geteuid() != 0 or not shutil.which('ip'):
        pytest.skip('needs root and iproute2 (network namespaces)')
    for name in NS:
        _ip('netns', 'add', name)
    try:
        _ip('link', 'add', 'prb-a', 'type', 'veth', 'peer', 'name', 'prb-b')
        for side, (name, peer) in enumerate(((NS[0], 'prb-a'), (NS[1], 'prb-b'))):
            _ip('link', 'set', peer, 'netns', name)
            _ip('-n', name, 'addr', 'add', '192.0.2.%d/24' % (side + 1), 'dev', peer)
            _ip('-n', name, 'link', 'set', peer, 'up')

        def make(tos):
            for side, name in enumerate(NS):
                subprocess.run(['ip', '-n', name, 'link', 'del', 'vx-prb'], check=False, capture_output=True)
                _ip('-n', name, 'link', 'add', 'vx-prb', 'type', 'vxlan', 'id', '100', 'local', '192.0.2.%d' % (side + 1),
                    'remote', '192.0.2.%d' % (2 - side), 'dstport', '4789', 'tos', tos)
                _ip('-n', name, 'addr', 'add', '198.51.100.%d/24' % (side + 1), 'dev', 'vx-prb')
                _ip('-n', name, 'link', 'set', 'vx-prb', 'up')
        yield make
    finally:
        for name in NS:
            subprocess.run(['ip', 'netns', 'delete', name], check=False)


def _in_namespace(namespace, code):
    """Run `code` in a namespace with this checkout importable as the collection (tests/conftest.py links it)."""
    module_file = sys.modules[parse_frame.__module__].__file__
    collections_root = module_file[:module_file.rindex(os.sep + 'ansible_collections' + os.sep)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([collections_root] + [path for path in sys.path if path]))
    return subprocess.Popen(['ip', 'netns', 'exec', namespace, sys.executable, '-c', code], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


CAPTURE = '''
import json
from ansible_collections.aifabric.fabric.plugins.modules.dscp_capture import capture
print(json.dumps(capture({'interfaces': ['prb-b'], 'port': 4791, 'vxlan_port': 4789, 'sources': ['198.51.100.1'],
                          'expect': [{'source': '198.51.100.1', 'dscp': 26}, {'source': '198.51.100.1', 'dscp': 48}],
                          'packets': 5, 'seconds': %d})))
'''
PROBE = '''
import json
from ansible_collections.aifabric.fabric.plugins.modules.dscp_probe import send
print(json.dumps(send({'source': '198.51.100.1', 'destination': '198.51.100.2', 'port': 4791, 'packets': 5,
                       'interval_ms': 50, 'markings': [{'dscp': 26, 'ecn': 2}, {'dscp': 48, 'ecn': 0}]})))
'''


def _wait_for_packet_socket(process, timeout=60):
    """The probe may leave once the capture's packet socket is open: /proc/PID/net/packet lists the packet sockets
    of the process's namespace, where the capture is the only one (a fixed sleep lost the race on a loaded machine)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with open('/proc/%d/net/packet' % process.pid, encoding='ascii') as table:
                if len(table.read().splitlines()) > 1:
                    return
        except OSError:
            pass  # it has just ended: poll() says so next
        time.sleep(0.05)
    ended = process.poll() is not None
    raise AssertionError('the capture opened no packet socket: %s' % (process.communicate()[1] if ended else 'timeout'))


def _probe_through(tunnel, tos):
    tunnel(tos)
    # The capture's window starts before the probe's interpreter does: stretched on a loaded machine (a fixed 10 s
    # ended before the probe's first packet at load 21, with nothing captured).
    capture = _in_namespace(NS[1], CAPTURE % round(10 * stretch()))
    _wait_for_packet_socket(capture)
    probe = _in_namespace(NS[0], PROBE)
    sent, problem = probe.communicate(timeout=60)
    assert probe.returncode == 0, problem
    output, errors = capture.communicate(timeout=60)
    assert capture.returncode == 0, errors
    return json.loads(sent)[0], json.loads(output)[0]


def test_tos_inherit_carries_the_inner_dscp_and_ecn_to_the_outer_header(tunnel):
    sent, packets = _probe_through(tunnel, 'inherit')
    assert [(entry['dscp'], entry['ecn'], entry['tos'], entry['packets']) for entry in sent] == [
        (26, 2, 106, 5), (48, 0, 192, 5)]
    seen = {(item['inner']['dscp'], item['inner']['ecn'], item['outer']['dscp'], item['outer']['ecn'], item['vni'])
            for item in packets}
    assert seen == {(26, 2, 26, 2, 100), (48, 0, 48, 0, 100)}
    assert sum(item['count'] for item in packets) == 10
    assert {item['outer']['src'] for item in packets} == {'192.0.2.1'} and {item['interface'] for item in packets} == {'prb-b'}


def test_a_fixed_tos_sends_tunnelled_roce_with_outer_dscp_0(tunnel):
    _sent, packets = _probe_through(tunnel, '0')
    assert {(item['inner']['dscp'], item['outer']['dscp']) for item in packets} == {(26, 0), (48, 0)}
