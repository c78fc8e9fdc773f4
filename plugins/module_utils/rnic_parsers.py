# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parsers for RDMA NIC tools and sysfs files: pure functions from text to plain data.

Formats (docs/hosts.md lists the sources): mlnx_qos (mlnx-tools), iproute2 `dcb pfc|app show` (text and
JSON), ibv_devinfo (plain, -v, -l), iproute2 `rdma link show` (text and JSON), show_gids, ibdev2netdev,
ethtool -S / -a, the MLNX_OFED verbs traffic_class file, RDMA-CM configfs values. Stdlib only: these
run on the managed host inside modules. Every parser raises host_parse.ParseError on unexpected output.
"""

from __future__ import annotations

import json
import re

from ansible_collections.aifabric.fabric.plugins.module_utils.host_parse import (
    ParseError, first_line, require_text, to_int,
)

PRIORITIES = tuple(range(8))

# ------------------------------------------------------------------------------------------- mlnx_qos

_MLNX_NOTICES = (
    'Priority trust state is not supported on your system',
    'Buffers commands are not supported on your system',
    'Rate limit is not supported on your system!',
    'ETS features are not supported on your system',
)
_TC_LINE = re.compile(r'^tc:\s*(\d+)\s+ratelimit:\s*(unlimited|[0-9.]+\s*Gbps),\s*tsa:\s*(.*)$')
_DSCP_LINE = re.compile(r'^prio:\s*(\d)\s+dscp:\s*((?:\d+,)*\d*)\s*$')


def parse_mlnx_qos(text):
    """`mlnx_qos -i IF` (any invocation prints the state afterwards) -> dict.

    Keys: dcbx ('os'|'fw'), trust ('dscp'|'pcp'|'none'), dscp2prio {dscp: prio} (empty unless trust dscp),
    pfc [8 x 0|1], pfc_buffer [8] or None, receive_buffer {'sizes': [8], 'max': int|None} or None,
    cable_len, tcs [{tc, ratelimit_gbps, tsa, bw_percent, priorities}], prio_tc {prio: tc}, notices [str].
    """
    tool = 'mlnx_qos'
    text = require_text(tool, text)
    result = {'dcbx': None, 'trust': None, 'dscp2prio': {}, 'pfc': None, 'pfc_buffer': None,
              'receive_buffer': None, 'cable_len': None, 'tcs': [], 'prio_tc': {}, 'notices': [],
              'lldpad_warning': False}
    section = None
    current_tc = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith('*') and 'lldpad' in line:
            result['lldpad_warning'] = True
            continue
        if line in _MLNX_NOTICES:
            result['notices'].append(line)
            continue
        if line.startswith('DCBX mode:'):
            mode = line.split(':', 1)[1].strip()
            if mode == 'OS controlled':
                result['dcbx'] = 'os'
            elif mode == 'Firmware controlled':
                result['dcbx'] = 'fw'
            else:
                raise ParseError(tool, 'unknown DCBX mode', raw)
            section = None
            continue
        if line.startswith('Priority trust state:'):
            result['trust'] = line.split(':', 1)[1].strip()
            section = None
            continue
        if line == 'dscp2prio mapping:':
            section = 'dscp'
            continue
        if line.startswith('Receive buffer size (bytes):'):
            section = None
            cells = [cell.strip() for cell in line.split(':', 1)[1].split(',') if cell.strip()]
            sizes, maximum = [], None
            for cell in cells:
                if cell.startswith('max_buffer_size='):
                    maximum = to_int(tool, cell.split('=', 1)[1], 'max_buffer_size', raw)
                else:
                    sizes.append(to_int(tool, cell, 'receive buffer size', raw))
            if len(sizes) != 8:
                raise ParseError(tool, 'receive buffer line must list 8 sizes', raw)
            result['receive_buffer'] = {'sizes': sizes, 'max': maximum}
            continue
        if line.startswith('Cable len:'):
            section = None
            result['cable_len'] = to_int(tool, line.split(':', 1)[1].strip(), 'cable length', raw)
            continue
        if line == 'PFC configuration:':
            section = 'pfc'
            continue
        match = _TC_LINE.match(line)
        if match:
            section = 'tc'
            rate = match.group(2)
            tsa_text = match.group(3).strip()
            bw = None
            bw_match = re.match(r'^ets,\s*bw:\s*(\d+)%$', tsa_text)
            if bw_match:
                tsa, bw = 'ets', int(bw_match.group(1))
            elif tsa_text in ('strict', 'vendor', 'unknown'):
                tsa = tsa_text
            else:
                raise ParseError(tool, 'unknown TSA in tc line', raw)
            current_tc = {'tc': int(match.group(1)),
                          'ratelimit_gbps': None if rate == 'unlimited' else float(rate.split()[0]),
                          'tsa': tsa, 'bw_percent': bw, 'priorities': []}
            result['tcs'].append(current_tc)
            continue
        if section == 'dscp':
            match = _DSCP_LINE.match(line)
            if not match:
                raise ParseError(tool, "expected 'prio:N dscp:NN,NN,...' in the dscp2prio mapping", raw)
            prio = int(match.group(1))
            for cell in match.group(2).split(','):
                if cell:
                    dscp = to_int(tool, cell, 'DSCP', raw)
                    if not 0 <= dscp <= 63:
                        raise ParseError(tool, 'DSCP %d out of range 0..63' % dscp, raw)
                    result['dscp2prio'][dscp] = prio
            continue
        if section == 'pfc':
            words = line.split()
            if words[0] == 'priority':
                if words[1:] != [str(prio) for prio in PRIORITIES]:
                    raise ParseError(tool, 'PFC priority header must list 0..7', raw)
                continue
            if words[0] in ('enabled', 'buffer'):
                values = [to_int(tool, word, 'PFC %s cell' % words[0], raw) for word in words[1:]]
                if len(values) != 8:
                    raise ParseError(tool, 'PFC %s row must have 8 cells' % words[0], raw)
                if words[0] == 'enabled':
                    if any(value not in (0, 1) for value in values):
                        raise ParseError(tool, 'PFC enabled cells must be 0 or 1', raw)
                    result['pfc'] = values
                else:
                    result['pfc_buffer'] = values
                continue
        if section == 'tc' and current_tc is not None:
            match = re.match(r'^priority:\s*(\d)$', line)
            if match:
                prio = int(match.group(1))
                current_tc['priorities'].append(prio)
                result['prio_tc'][prio] = current_tc['tc']
                continue
        raise ParseError(tool, 'unexpected line', raw)
    if result['trust'] is None and result['pfc'] is None:
        raise ParseError(tool, 'not mlnx_qos state output (no trust state, no PFC configuration)', first_line(text))
    if result['pfc'] is None:
        raise ParseError(tool, "no 'PFC configuration' enabled row in the output")
    if result['trust'] is None:
        raise ParseError(tool, "no 'Priority trust state' line in the output")
    return result


# ------------------------------------------------------------------------------------------- dcb

# DSCP names iproute2 prints from rt_dsfield (value = DSCP << 2).
DSCP_NAMES = {'default': 0, 'CS0': 0, 'CS1': 8, 'CS2': 16, 'CS3': 24, 'CS4': 32, 'CS5': 40, 'CS6': 48, 'CS7': 56,
              'AF11': 10, 'AF12': 12, 'AF13': 14, 'AF21': 18, 'AF22': 20, 'AF23': 22, 'AF31': 26, 'AF32': 28,
              'AF33': 30, 'AF41': 34, 'AF42': 36, 'AF43': 38, 'EF': 46, 'VA': 44, 'LE': 1}


def _maybe_json(tool, text):
    stripped = text.strip()
    if stripped[:1] in ('{', '['):
        try:
            return json.loads(stripped)
        except ValueError as exc:
            raise ParseError(tool, 'invalid JSON: %s' % exc, first_line(text)) from None
    return None


def _on_off(tool, word, line):
    if word in ('on', True):
        return 1
    if word in ('off', False):
        return 0
    raise ParseError(tool, "expected 'on' or 'off', got %r" % (word,), line)


def _prio_map(tool, words, line, value_kind):
    values = {}
    for word in words:
        key, sep, value = word.partition(':')
        if not sep:
            raise ParseError(tool, 'expected PRIO:VALUE pairs', line)
        prio = to_int(tool, key, 'priority', line)
        if prio not in PRIORITIES:
            raise ParseError(tool, 'priority %d out of range 0..7' % prio, line)
        values[prio] = _on_off(tool, value, line) if value_kind == 'on_off' else to_int(tool, value, 'value', line)
    return [values.get(prio) for prio in PRIORITIES] if len(values) == 8 else values


def parse_dcb_pfc(text):
    """`dcb [-s] pfc show dev IF` text or `dcb -j pfc show dev IF` JSON -> dict.

    Keys: pfc [8 x 0|1], pfc_cap, macsec_bypass (bool), delay, requests [8] | None, indications [8] | None.
    """
    tool = 'dcb pfc show'
    text = require_text(tool, text)
    if first_line(text).startswith(('Attribute read', 'Attribute not found')):
        raise ParseError(tool, 'the netdev driver does not implement DCB (dcbnl): %s' % first_line(text))
    data = _maybe_json(tool, text)
    if data is not None:
        if not isinstance(data, dict) or 'prio_pfc' not in data:
            raise ParseError(tool, "JSON output has no 'prio_pfc' array", first_line(text))
        pfc = data['prio_pfc']
        if not isinstance(pfc, list) or len(pfc) != 8:
            raise ParseError(tool, "'prio_pfc' must list 8 booleans", json.dumps(pfc))
        return {'pfc': [_on_off(tool, value, json.dumps(pfc)) for value in pfc], 'pfc_cap': data.get('pfc_cap'),
                'macsec_bypass': data.get('macsec_bypass'), 'delay': data.get('delay'),
                'requests': data.get('requests'), 'indications': data.get('indications')}
    result = {'pfc': None, 'pfc_cap': None, 'macsec_bypass': None, 'delay': None, 'requests': None,
              'indications': None}
    for raw in text.splitlines():
        words = raw.split()
        if not words:
            continue
        index = 0
        while index < len(words):
            key = words[index]
            if key == 'prio-pfc':
                mapping = _prio_map(tool, words[index + 1:], raw, 'on_off')
                if not isinstance(mapping, list):
                    raise ParseError(tool, 'prio-pfc must list priorities 0..7', raw)
                result['pfc'] = mapping
                break
            if key in ('requests', 'indications'):
                mapping = _prio_map(tool, words[index + 1:], raw, 'int')
                if not isinstance(mapping, list):
                    raise ParseError(tool, '%s must list priorities 0..7' % key, raw)
                result[key] = mapping
                break
            if key in ('pfc-cap', 'delay') and index + 1 < len(words):
                result[key.replace('-', '_')] = to_int(tool, words[index + 1], key, raw)
                index += 2
                continue
            if key == 'macsec-bypass' and index + 1 < len(words):
                result['macsec_bypass'] = bool(_on_off(tool, words[index + 1], raw))
                index += 2
                continue
            raise ParseError(tool, 'unexpected token %r' % key, raw)
    if result['pfc'] is None:
        raise ParseError(tool, "no 'prio-pfc' line in the output", first_line(text))
    return result


def _dscp_key(tool, token, line):
    if token in DSCP_NAMES:
        return DSCP_NAMES[token]
    value = to_int(tool, token, 'DSCP', line)
    if not 0 <= value <= 63:
        raise ParseError(tool, 'DSCP %d out of range 0..63' % value, line)
    return value


def parse_dcb_app(text):
    """`dcb [-N] app show dev IF [dscp-prio]` text or `dcb -j app show dev IF` JSON -> dict.

    An empty output means an empty APP table (mlx5: trust pcp). Keys: dscp_prio {dscp: prio},
    pcp_prio {pcp: prio}, default_prio [prio]. Symbolic DSCP names (AF31, CS6, ...) are converted.
    """
    tool = 'dcb app show'
    if text is None or (isinstance(text, (str, bytes)) and not text.strip()):
        return {'dscp_prio': {}, 'pcp_prio': {}, 'default_prio': []}
    text = require_text(tool, text)
    result = {'dscp_prio': {}, 'pcp_prio': {}, 'default_prio': []}
    data = _maybe_json(tool, text)
    if data is not None:
        if not isinstance(data, dict):
            raise ParseError(tool, 'JSON output must be an object', first_line(text))
        for entry in data.get('dscp_prio', []):
            # iproute2 6.1: [dscp, prio]; 6.5+ appends a separator string: [dscp, prio, " "].
            if not isinstance(entry, list) or len(entry) < 2 or not all(isinstance(v, int) for v in entry[:2]):
                raise ParseError(tool, 'dscp_prio entries must be [dscp, prio]', json.dumps(entry))
            result['dscp_prio'][entry[0]] = entry[1]
        result['default_prio'] = list(data.get('default_prio', []))
        return result
    for raw in text.splitlines():
        words = raw.split()
        if not words:
            continue
        kind, rest = words[0], words[1:]
        if kind == 'dscp-prio':
            for word in rest:
                key, sep, prio = word.rpartition(':')
                if not sep or not key:
                    raise ParseError(tool, 'expected DSCP:PRIO pairs', raw)
                prio = to_int(tool, prio, 'priority', raw)
                if prio not in PRIORITIES:
                    raise ParseError(tool, 'priority %d out of range 0..7' % prio, raw)
                result['dscp_prio'][_dscp_key(tool, key, raw)] = prio
        elif kind == 'pcp-prio':
            for word in rest:
                key, sep, prio = word.rpartition(':')
                if not sep:
                    raise ParseError(tool, 'expected PCP:PRIO pairs', raw)
                result['pcp_prio'][key] = to_int(tool, prio, 'priority', raw)
        elif kind == 'default-prio':
            result['default_prio'] = [to_int(tool, word, 'priority', raw) for word in rest]
        elif kind in ('ethtype-prio', 'stream-port-prio', 'dgram-port-prio', 'port-prio'):
            continue
        else:
            raise ParseError(tool, 'unexpected line', raw)
    return result


def dcb_trust(app):
    """mlx5 trusts DSCP exactly when the APP table holds a DSCP entry (en_dcbnl.c)."""
    return 'dscp' if app['dscp_prio'] else 'pcp'


# ------------------------------------------------------------------------------------------- ibv_devinfo

_STATE = re.compile(r'^(\w+)\s*\((\d+)\)$')


def _enum(value):
    """'PORT_ACTIVE (4)' -> ('PORT_ACTIVE', 4); '4096 (5)' -> ('4096', 5); other text -> (text, None)."""
    match = _STATE.match(value.strip())
    if match:
        return match.group(1), int(match.group(2))
    return value.strip(), None


def parse_ibv_devinfo(text):
    """`ibv_devinfo [-v] [-d DEV]` -> list of devices.

    Each device: hca_id, transport, fw_ver, node_guid, sys_image_guid, vendor_id, vendor_part_id, hw_ver,
    board_id, phys_port_cnt, ports [{port, state, state_num, max_mtu, active_mtu, link_layer, sm_lid, port_lid,
    port_lmc, [active_width, active_speed, phys_state, gid_tbl_len], gids [{index, gid, type}]}].
    'No IB devices found' gives an empty list.
    """
    tool = 'ibv_devinfo'
    text = require_text(tool, text)
    stripped = text.strip()
    if stripped.startswith('No IB devices found'):
        return []
    match = re.match(r"IB device '(.*)' wasn't found", stripped)
    if match:
        raise ParseError(tool, 'RDMA device %s does not exist' % match.group(1), first_line(text))
    devices = []
    device = port = None
    for raw in text.splitlines():
        if not raw.strip():
            continue
        line = raw.strip()
        if line.startswith('hca_id:'):
            device = {'hca_id': line.split(':', 1)[1].strip(), 'ports': []}
            devices.append(device)
            port = None
            continue
        if device is None:
            raise ParseError(tool, "output does not start with 'hca_id:'", raw)
        gid = re.match(r'^GID\[\s*(\d+)\]:\s*(\S+?)(?:,\s*(RoCE v[12]))?$', line)
        if gid and port is not None:
            port['gids'].append({'index': int(gid.group(1)), 'gid': gid.group(2), 'type': gid.group(3)})
            continue
        key, sep, value = line.partition(':')
        if not sep:
            # -v prints some capability flags on their own lines (e.g. under device_cap_flags).
            if port is None or raw.startswith('\t\t\t\t'):
                continue
            raise ParseError(tool, 'expected KEY: VALUE', raw)
        key, value = key.strip(), value.strip()
        if key == 'port':
            port = {'port': to_int(tool, value, 'port number', raw), 'gids': []}
            device['ports'].append(port)
            continue
        target = port if port is not None else device
        if key in ('state', 'phys_state'):
            name, number = _enum(value)
            target[key] = name
            target[key + '_num'] = number
        elif key in ('max_mtu', 'active_mtu'):
            mtu, code = _enum(value)
            target[key] = to_int(tool, mtu, key, raw) if mtu.isdigit() else mtu
            target[key + '_code'] = code
        elif key in ('sm_lid', 'port_lid', 'phys_port_cnt', 'vendor_part_id', 'gid_tbl_len', 'pkey_tbl_len'):
            target[key] = to_int(tool, value.split()[0], key, raw, base=0) if value else None
        else:
            target[key] = value
    if not devices:
        raise ParseError(tool, 'no hca_id in the output', first_line(text))
    return devices


def parse_ibv_devinfo_list(text):
    """`ibv_devinfo -l` -> list of device names ('N HCAs found:' / '1 HCA found:' header)."""
    tool = 'ibv_devinfo -l'
    text = require_text(tool, text)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if lines[0].startswith('No IB devices found'):
        return []
    match = re.match(r'^(\d+) HCAs? found:$', lines[0])
    if not match:
        raise ParseError(tool, "expected 'N HCAs found:' header", lines[0])
    names = lines[1:]
    if len(names) != int(match.group(1)):
        raise ParseError(tool, 'header says %s devices but %d are listed' % (match.group(1), len(names)), lines[0])
    return names


# ------------------------------------------------------------------------------------------- rdma link

def parse_rdma_link(text):
    """`rdma link show` (text, -d) or `rdma -j link show` -> list of ports.

    Each: ifname, port, state, physical_state, netdev (None for IB), netdev_index, and for IB subnet_prefix,
    lid, sm_lid, lmc. Empty output = no RDMA device.
    """
    tool = 'rdma link show'
    if text is None or (isinstance(text, (str, bytes)) and not text.strip()):
        return []
    text = require_text(tool, text)
    data = _maybe_json(tool, text)
    if data is not None:
        if not isinstance(data, list):
            raise ParseError(tool, 'JSON output must be an array', first_line(text))
        ports = []
        for item in data:
            if not isinstance(item, dict) or 'ifname' not in item or 'port' not in item:
                raise ParseError(tool, 'JSON entries need ifname and port', json.dumps(item)[:120])
            ports.append({'ifname': item['ifname'], 'port': item['port'], 'state': item.get('state'),
                          'physical_state': item.get('physical_state'), 'netdev': item.get('netdev'),
                          'netdev_index': item.get('netdev_index'), 'subnet_prefix': item.get('subnet_prefix'),
                          'lid': item.get('lid'), 'sm_lid': item.get('sm_lid'), 'lmc': item.get('lmc')})
        return ports
    ports = []
    for raw in text.splitlines():
        words = raw.split()
        if not words:
            continue
        if words[0] == 'caps:' or raw.startswith(' ') and words[0].startswith('caps'):
            continue
        if words[0] != 'link' or len(words) < 2 or '/' not in words[1]:
            raise ParseError(tool, "expected 'link DEV/PORT key value ...'", raw)
        name, dummy, port = words[1].rpartition('/')
        entry = {'ifname': name, 'port': to_int(tool, port, 'port', raw), 'state': None, 'physical_state': None,
                 'netdev': None, 'netdev_index': None, 'subnet_prefix': None, 'lid': None, 'sm_lid': None,
                 'lmc': None}
        rest = words[2:]
        if len(rest) % 2:
            raise ParseError(tool, 'key/value pairs are incomplete', raw)
        for key, value in zip(rest[::2], rest[1::2]):
            if key in ('netdev_index', 'lid', 'sm_lid', 'lmc'):
                value = to_int(tool, value, key, raw)
            entry[key] = value
        ports.append(entry)
    return ports


def parse_ibdev2netdev(text):
    """MLNX_OFED `ibdev2netdev` lines 'mlx5_0 port 1 ==> ens1f0np0 (Up)' -> list of dicts."""
    tool = 'ibdev2netdev'
    if text is None or not str(text).strip():
        return []
    text = require_text(tool, text)
    entries = []
    for raw in text.splitlines():
        if not raw.strip():
            continue
        match = re.match(r'^(\S+)\s+port\s+(\d+)\s+==>\s+(\S+)\s+\((\w+)\)\s*$', raw.strip())
        if not match:
            raise ParseError(tool, "expected 'DEV port N ==> NETDEV (Up|Down)'", raw)
        entries.append({'ifname': match.group(1), 'port': int(match.group(2)), 'netdev': match.group(3),
                        'state': match.group(4)})
    return entries


# ------------------------------------------------------------------------------------------- GIDs

def ipv4_from_gid(gid):
    """'0000:0000:0000:0000:0000:ffff:0a64:000a' or '::ffff:10.100.0.10' -> '10.100.0.10'; else None."""
    gid = gid.strip().lower()
    if gid.startswith('::ffff:') and gid.count('.') == 3:
        return gid[7:]
    groups = gid.split(':')
    if len(groups) == 8 and groups[:6] == ['0000'] * 5 + ['ffff']:
        try:
            value = int(groups[6] + groups[7], 16)
        except ValueError:
            return None
        return '.'.join(str((value >> shift) & 0xff) for shift in (24, 16, 8, 0))
    return None


def gid_entry(index, gid, gid_type, ndev):
    """One GID table row in the shape rnic_facts returns; None for an empty slot."""
    gid = (gid or '').strip()
    if not gid or set(gid.replace(':', '')) <= {'0'}:
        return None
    if gid.replace(':', '').lower() == 'fe80' + '0' * 28:
        return None
    version = None
    if gid_type:
        if 'v2' in gid_type.lower():
            version = 'v2'
        elif 'v1' in gid_type.lower() or gid_type.strip() == 'IB/RoCE v1':
            version = 'v1'
        else:
            version = gid_type.strip()
    ipv4 = ipv4_from_gid(gid)
    family = 'ipv4' if ipv4 else ('ipv6-link-local' if gid.lower().startswith('fe80') else 'ipv6')
    return {'index': index, 'gid': gid, 'type': (gid_type or '').strip() or None, 'version': version,
            'ndev': (ndev or '').strip() or None, 'ipv4': ipv4, 'family': family}


def parse_show_gids(text):
    """mlnx-tools `show_gids [DEV]` -> list of {dev, port, index, gid, ipv4, version, ndev}."""
    tool = 'show_gids'
    text = require_text(tool, text)
    entries = []
    found = None
    for raw in text.splitlines():
        if not raw.strip():
            continue
        cells = [cell.strip() for cell in raw.split('\t')]
        if cells[0] in ('DEV', '---'):
            continue
        match = re.match(r'^n_gids_found=(\d+)$', raw.strip())
        if match:
            found = int(match.group(1))
            continue
        cells = [cell for cell in cells if cell != '']
        if len(cells) not in (6, 7):
            raise ParseError(tool, 'expected DEV PORT INDEX GID [IPv4] VER NETDEV columns', raw)
        dev, port, index, gid = cells[:4]
        ipv4 = cells[4] if len(cells) == 7 else None
        version, ndev = cells[-2], cells[-1]
        entries.append({'dev': dev, 'port': to_int(tool, port, 'port', raw),
                        'index': to_int(tool, index, 'GID index', raw), 'gid': gid, 'ipv4': ipv4,
                        'version': version.lower(), 'ndev': ndev})
    if found is None:
        raise ParseError(tool, "no 'n_gids_found=N' trailer (truncated output?)", first_line(text))
    if found != len(entries):
        raise ParseError(tool, 'trailer says %d GIDs but %d rows were read' % (found, len(entries)))
    return entries


def roce_v2_ipv4_gids(gids, ipv4=None):
    """RoCE v2 IPv4 GID rows (optionally only those carrying `ipv4`), lowest index first."""
    rows = [row for row in gids if row and row.get('version') == 'v2' and row.get('ipv4')
            and (ipv4 is None or row['ipv4'] == ipv4)]
    return sorted(rows, key=lambda row: row['index'])


# ------------------------------------------------------------------------------------------- ethtool

def parse_ethtool_stats(text):
    """`ethtool -S IF` -> {name: int}. 'no stats available' (veth without stats) gives {}."""
    tool = 'ethtool -S'
    text = require_text(tool, text)
    lines = text.splitlines()
    head = first_line(text)
    if 'no stats available' in head:
        return {}
    if not head.endswith('statistics:'):
        raise ParseError(tool, "expected a 'NIC statistics:' header", head)
    stats = {}
    for raw in lines:
        line = raw.strip()
        if not line or line.endswith('statistics:'):
            continue
        name, sep, value = line.rpartition(':')
        if not sep:
            raise ParseError(tool, 'expected NAME: VALUE', raw)
        stats[name.strip()] = to_int(tool, value.strip(), 'counter %s' % name.strip(), raw)
    return stats


_PRIO_COUNTER = re.compile(r'^(rx|tx)_prio(\d)_(pause|pause_duration|pause_transition|bytes|packets|discards)$')
LOSSLESS_COUNTERS = ('rx_discards_phy', 'tx_discards_phy', 'tx_errors_phy', 'rx_out_of_buffer',
                     'rx_pause_ctrl_phy', 'tx_pause_ctrl_phy', 'tx_pause_storm_warning_events',
                     'tx_pause_storm_error_events', 'rx_global_pause', 'tx_global_pause',
                     'rx_vport_rdma_unicast_packets', 'rx_vport_rdma_unicast_bytes',
                     'tx_vport_rdma_unicast_packets', 'tx_vport_rdma_unicast_bytes')


def lossless_counters(stats):
    """The PFC/ECN/drop counters that matter for a lossless fabric, grouped.

    Returns {'per_priority': {prio: {name: value}}, 'port': {name: value}, 'pfc_counter_priorities': [prio]}.
    mlx5 lists rx/tx_prio<N>_pause only for priorities with PFC enabled, so pfc_counter_priorities is
    evidence of the PFC mask as the driver sees it.
    """
    per_priority = {}
    for name, value in stats.items():
        match = _PRIO_COUNTER.match(name)
        if match:
            per_priority.setdefault(int(match.group(2)), {})['%s_%s' % (match.group(1), match.group(3))] = value
    port = {name: stats[name] for name in LOSSLESS_COUNTERS if name in stats}
    pfc_prios = sorted(prio for prio, values in per_priority.items() if 'rx_pause' in values or 'tx_pause' in values)
    return {'per_priority': per_priority, 'port': port, 'pfc_counter_priorities': pfc_prios}


def parse_ethtool_pause(text):
    """`ethtool -a IF` -> {'autoneg': bool, 'rx': bool, 'tx': bool, 'rx_negotiated': bool|None, ...}."""
    tool = 'ethtool -a'
    text = require_text(tool, text)
    head = first_line(text)
    if not head.startswith('Pause parameters for'):
        raise ParseError(tool, "expected 'Pause parameters for IF:' header", head)
    result = {'autoneg': None, 'rx': None, 'tx': None, 'rx_negotiated': None, 'tx_negotiated': None}
    keys = {'Autonegotiate': 'autoneg', 'RX': 'rx', 'TX': 'tx', 'RX negotiated': 'rx_negotiated',
            'TX negotiated': 'tx_negotiated'}
    for raw in text.splitlines()[1:]:
        if not raw.strip():
            continue
        key, sep, value = raw.partition(':')
        key = key.strip()
        if not sep or key not in keys:
            if key.startswith('Statistics') or raw.startswith('  '):
                continue
            raise ParseError(tool, 'unexpected line', raw)
        result[keys[key]] = bool(_on_off(tool, value.strip(), raw))
    if result['rx'] is None or result['tx'] is None:
        raise ParseError(tool, 'RX/TX lines missing', head)
    return result


# ------------------------------------------------------------------------------------------- sysfs values

def parse_traffic_class(text):
    """MLNX_OFED /sys/class/infiniband/DEV/tc/PORT/traffic_class -> {'global': int|None, 'rules': [str]}.

    Empty file = not set. First line 'Global tclass=106', then rule lines 'dst_ip=10.0.0.0/8,tclass=106'.
    """
    tool = 'traffic_class'
    result = {'global': None, 'rules': []}
    if text is None or not str(text).strip():
        return result
    text = require_text(tool, text)
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        match = re.match(r'^Global tclass=(-?\d+)$', line)
        if match:
            value = int(match.group(1))
            result['global'] = value if value >= 0 else None
            continue
        if 'tclass=' in line and '=' in line.split(',')[0]:
            result['rules'].append(line)
            continue
        if re.match(r'^-?\d+$', line):  # some MLNX_OFED versions print the bare number
            value = int(line)
            result['global'] = value if value >= 0 else None
            continue
        raise ParseError(tool, "expected 'Global tclass=N' or a 'dst_ip=...,tclass=N' rule", raw)
    return result


def parse_sysfs_int(tool, text):
    """A one-number sysfs/configfs file ('1\\n', '106', '0x1'); None when empty (firmware query failed)."""
    if text is None or not str(text).strip():
        return None
    value = str(text).strip().splitlines()[0].strip()
    return to_int(tool, value, 'value', value, base=0)


def parse_roce_mode(text):
    """RDMA-CM default_roce_mode: 'RoCE v2' -> 2, 'IB/RoCE v1' -> 1."""
    tool = 'default_roce_mode'
    text = require_text(tool, text)
    value = first_line(text)
    if value == 'RoCE v2':
        return 2
    if value in ('IB/RoCE v1', 'RoCE v1'):
        return 1
    raise ParseError(tool, "expected 'RoCE v2' or 'IB/RoCE v1'", value)


def roce_active_mtu(netdev_mtu):
    """IB MTU a RoCE port uses for a netdev MTU (ib_addr.h iboe_get_mtu: minus 96 bytes of headers)."""
    room = int(netdev_mtu) - 96
    for mtu in (4096, 2048, 1024, 512, 256):
        if room >= mtu:
            return mtu
    return None
