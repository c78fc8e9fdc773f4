# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""iputils `ping -c N [-M do -s SIZE] DEST` results (rc, stdout, stderr), as Ansible registers a command.

ping exits 0 when at least one reply came back, 1 when none did, 2 on other errors. Besides the loss
summary it reports why packets did not leave or come back; those reasons name an MTU problem precisely:
- `ping: local error: message too long, mtu=1500` (stderr): the local interface MTU is below the packet
- `From 10.0.0.2 icmp_seq=1 Frag needed and DF set (mtu = 1500)`: a router on the path has a smaller MTU
- neither, but 100% loss of DF packets while small pings pass: dropped silently on an L2 hop (bridge,
  VXLAN or access port MTU), which is what an undersized overlay does
"""

from __future__ import annotations

import re
from typing import Any, cast

from . import StateError, excerpt
from .schema import Ping

_SUMMARY = re.compile(r'(\d+) packets transmitted, (\d+) received(?:, \+(\d+) duplicates)?'
                      r'(?:, \+(\d+) errors)?(?:, \+(\d+) duplicates)?, ([\d.]+)% packet loss')
_HEADER = re.compile(r'^PING (\S+) \(([^)]+)\).*? (\d+)\((\d+)\) bytes of data', re.M)
_LOCAL_MTU = re.compile(r'message too long, mtu=(\d+)')
_FRAG = re.compile(r'From (\S+) .*Frag needed and DF set \(mtu = (\d+)\)')
_UNREACHABLE = re.compile(r'From (\S+) .*Destination (Host|Net|Port|Protocol) Unreachable')
_CONNECT = re.compile(r'ping: connect: (.+)')
_RESOLVE = re.compile(r'ping: (\S+): (Name or service not known|Temporary failure in name resolution|'
                      r'No address associated with hostname)')


def _args(cmd):
    if isinstance(cmd, str):
        return cmd.split()
    return [str(part) for part in cmd or []]


def parse_ping(result) -> Ping:
    """Keys: destination, payload, dont_fragment, transmitted, received, loss_percent, errors, ok,
    local_mtu, frag_needed ({from, mtu}), unreachable ({from, kind}), connect_error, reason.

    `reason` is a one-line explanation for a failed ping, None when ok.
    """
    source = 'ping'
    if not isinstance(result, dict):
        raise StateError(source, 'expected a command result with rc, stdout and stderr')
    if result.get('skipped'):
        raise StateError(source, 'not run (task skipped)')
    if 'rc' not in result:
        raise StateError(source, 'command did not run: %s' % excerpt(result.get('msg', 'no rc')))
    stdout = result.get('stdout') or ''
    stderr = result.get('stderr') or ''
    args = _args(result.get('cmd'))
    text = stdout + '\n' + stderr
    parsed: dict[str, Any] = {
        'destination': args[-1] if args else None, 'payload': None,
        'dont_fragment': '-M' in args and args[args.index('-M') + 1:args.index('-M') + 2] == ['do'],
        'transmitted': None, 'received': None, 'loss_percent': None, 'errors': 0, 'ok': False,
        'local_mtu': None, 'frag_needed': None, 'unreachable': None, 'connect_error': None, 'reason': None,
    }
    if '-s' in args and args.index('-s') + 1 < len(args):
        try:
            parsed['payload'] = int(args[args.index('-s') + 1])
        except ValueError:
            pass
    header = _HEADER.search(stdout)
    if header:
        parsed['destination'] = header.group(2)
        parsed['payload'] = int(header.group(3))
    summary = _SUMMARY.search(stdout)
    if summary:
        parsed['transmitted'] = int(summary.group(1))
        parsed['received'] = int(summary.group(2))
        parsed['errors'] = int(summary.group(4) or 0)
        parsed['loss_percent'] = float(summary.group(6))
    local = _LOCAL_MTU.search(text)
    if local:
        parsed['local_mtu'] = int(local.group(1))
    frag = _FRAG.search(text)
    if frag:
        parsed['frag_needed'] = {'from': frag.group(1), 'mtu': int(frag.group(2))}
    unreachable = _UNREACHABLE.search(text)
    if unreachable:
        parsed['unreachable'] = {'from': unreachable.group(1), 'kind': unreachable.group(2).lower()}
    connect = _CONNECT.search(stderr) or _RESOLVE.search(stderr)
    if connect:
        parsed['connect_error'] = connect.group(0).split('ping: ', 1)[1]
    if summary is None and connect is None:
        raise StateError(source, 'no packet statistics in the output (rc %s): %s'
                         % (result.get('rc'), excerpt(stderr or stdout or 'empty output')))
    parsed['ok'] = bool(parsed['received']) and result.get('rc') == 0
    if not parsed['ok']:
        parsed['reason'] = _reason(parsed)
    return cast(Ping, parsed)  # every field of Ping (the literal above), and more


def _reason(parsed) -> str:
    size = ('%d-byte payload' % parsed['payload']) if parsed['payload'] else 'packets'
    if parsed['connect_error']:
        return parsed['connect_error']
    if parsed['frag_needed']:
        return '%s reports fragmentation needed: path MTU %d is too small for the %s' % (
            parsed['frag_needed']['from'], parsed['frag_needed']['mtu'], size)
    if parsed['local_mtu'] is not None:
        return 'local interface MTU %d is too small for the %s (ping: message too long)' % (parsed['local_mtu'], size)
    if parsed['unreachable']:
        return '%s reports destination %s unreachable' % (parsed['unreachable']['from'], parsed['unreachable']['kind'])
    lost = '%d of %d lost' % (parsed['transmitted'] - parsed['received'], parsed['transmitted'])
    if parsed['dont_fragment'] and parsed['received'] == 0:
        return 'no reply to %s with DF set (%s): dropped on the path, e.g. an MTU below the packet size' % (size, lost)
    return 'no reply (%s)' % lost


__all__ = ['parse_ping']
