# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The lossless view of a community SONiC switch, from CONFIG_DB as JSON.

Input: `sonic-cfggen -d --print-data` (the running CONFIG_DB), /etc/sonic/config_db.json, or the
config_db.json this collection renders: {TABLE: {key: {field: "string"}}}. Schema facts (sonic-buildimage
src/sonic-yang-models/doc/Configuration.md and the YANG models beside it): keys with several parts are joined by '|' ("Ethernet0|3",
"Ethernet0|3-4"); legacy keys list several ports joined by ',' ("Ethernet0,Ethernet4|3-4"); object
references are plain names or, in old releases, "[TABLE|name]"; every value is a string; buffer sizes
are bytes, watchdog times ms, CABLE_LENGTH values end in "m".

Output per port: the maps actually bound to it (PORT_QOS_MAP per port, else `global`), PFC and watchdog
priorities, PFC_WD timers, queue schedulers and WRED/ECN profiles, lossless buffer PGs/queues with their
profiles, cable length, MTU, plus device-wide watchdog poll interval, buffer model, lossless traffic
pattern, DEVICE_NEIGHBOR ports and format problems (rule C25).

GATHERER reads a community SONiC switch: FRR JSON through vtysh (the bgp container; the leaves' routes too, `show ip
route json`: zebra's installed routes are what fpmsyncd writes to APPL_DB ROUTE_TABLE and orchagent programs into the
ASIC), the running CONFIG_DB
(`sonic-cfggen -d --print-data`), port state and MTU from APPL_DB (PORT_TABLE), LLDP neighbours from APPL_DB
(LLDP_ENTRY_TABLE, written by lldp_syncd) and counters from COUNTERS_DB (port PFC frames, queue drops / ECN marks /
PFC watchdog, priority-group drops), each database table in one `sonic-db-dump` call.
"""

from __future__ import annotations

import json
import re

from ...state import StateError, command_output, excerpt, load_json, require_mapping
from ...state.counters import number
from ...state.gatherer import Gatherer, Source
from ...state.shell import SHELL
from ...state.views import lossless_state, port_view
from ...frrouting import vtysh
from ...state.schema import Counters, Interface, LldpNeighbor, Lossless

SOURCE = 'SONiC CONFIG_DB'
_PRIORITY_LIST = re.compile(r'^([0-7](,[0-7])*)?$')
_CABLE = re.compile(r'^(\d+)m$')
_WRED_NAME = re.compile(r'^[a-zA-Z0-9][-a-zA-Z0-9_]{0,31}$')


def _ref(value):
    """'[DSCP_TO_TC_MAP|AZURE]' (old releases) or 'AZURE' -> 'AZURE'."""
    if not isinstance(value, str):
        return value
    value = value.strip()
    if value.startswith('[') and value.endswith(']'):
        value = value[1:-1].split('|', 1)[-1]
    return value


def _int(value, what, issues, default=None):
    if value is None or value == '':
        return default
    try:
        return int(str(value).strip())
    except ValueError:
        issues.append('%s is not a number: %r' % (what, value))
        return default


def _ids(text, what, issues):
    """'3-4' -> [3, 4]; '3' -> [3]; anything else is recorded as an issue."""
    text = str(text)
    try:
        if '-' in text:
            low, high = text.split('-', 1)
            return list(range(int(low), int(high) + 1))
        return [int(text)]
    except ValueError:
        issues.append('%s: %r is not a number or a range a-b' % (what, text))
        return []


def _priority_list(value, what, issues):
    value = '' if value is None else str(value)
    if not _PRIORITY_LIST.match(value):
        issues.append('%s %r does not match ([0-7](,[0-7])*)? (C25)' % (what, value))
        return sorted({int(item) for item in re.findall(r'[0-7]', value)})
    return sorted({int(item) for item in value.split(',') if item != ''})


def _int_map(table, name, what, issues):
    if name is None:
        return None
    mapping = table.get(name)
    if mapping is None:
        issues.append('%s %s is referenced but not defined' % (what, name))
        return None
    result = {}
    for key, value in mapping.items():
        number = _int(key, '%s %s key' % (what, name), issues)
        target = _int(value, '%s %s[%s]' % (what, name, key), issues)
        if number is not None and target is not None:
            result[number] = target
    return result


def _split_keys(table):
    """Yield (port, suffix or None, fields) for every key, expanding legacy comma-joined port lists."""
    for key, fields in table.items():
        ports, suffix = key.split('|', 1) if '|' in key else (key, '')
        for port in ports.split(','):
            yield port, (suffix or None), fields, (',' in ports)


def parse_config_db(result) -> dict:
    """{'ports': {port: view}, 'watchdog_poll_ms', 'buffer_model', 'lossless_traffic_pattern',
    'device_neighbors', 'wred_profiles', 'schedulers', 'buffer_profiles', 'issues'}."""
    data = result
    if not isinstance(result, dict) or 'PORT' not in result:
        data = load_json(SOURCE, command_output(SOURCE, result))
    require_mapping(SOURCE, data)
    tables = {}
    for name, table in data.items():
        tables[name] = require_mapping(SOURCE, table, 'table %s' % name)
    if not tables.get('PORT'):
        raise StateError(SOURCE, 'no PORT table: not a CONFIG_DB dump')
    issues = []
    map_tables = ('DSCP_TO_TC_MAP', 'TC_TO_PRIORITY_GROUP_MAP', 'TC_TO_QUEUE_MAP', 'MAP_PFC_PRIORITY_TO_QUEUE',
                  'PFC_PRIORITY_TO_PRIORITY_GROUP_MAP')
    maps = {kind: tables.get(kind, {}) for kind in map_tables}
    profiles = {}
    for name, fields in tables.get('BUFFER_PROFILE', {}).items():
        profiles[name] = {
            'name': name, 'pool': _ref(fields.get('pool')),
            'size': _int(fields.get('size'), 'BUFFER_PROFILE %s size' % name, issues),
            'xon': _int(fields.get('xon'), 'BUFFER_PROFILE %s xon' % name, issues),
            'xoff': _int(fields.get('xoff'), 'BUFFER_PROFILE %s xoff' % name, issues),
            'dynamic_th': _int(fields.get('dynamic_th'), 'BUFFER_PROFILE %s dynamic_th' % name, issues),
            'static_th': _int(fields.get('static_th'), 'BUFFER_PROFILE %s static_th' % name, issues),
        }
    wred = {}
    for name, fields in tables.get('WRED_PROFILE', {}).items():
        if not _WRED_NAME.match(name):
            issues.append('WRED_PROFILE name %r is not [a-zA-Z0-9][-a-zA-Z0-9_]* of at most 32 characters (C25)' % name)
        wred[name] = {
            'name': name, 'ecn': fields.get('ecn', 'ecn_none'),
            'green_enable': str(fields.get('wred_green_enable', 'false')).lower() == 'true',
            'min_bytes': _int(fields.get('green_min_threshold'), 'WRED %s green_min_threshold' % name, issues),
            'max_bytes': _int(fields.get('green_max_threshold'), 'WRED %s green_max_threshold' % name, issues),
            'probability': _int(fields.get('green_drop_probability'), 'WRED %s green_drop_probability' % name, issues,
                                default=100),
        }
    schedulers = {}
    for name, fields in tables.get('SCHEDULER', {}).items():
        schedulers[name] = {'name': name, 'type': str(fields.get('type', 'WRR')).upper(),
                            'weight': _int(fields.get('weight'), 'SCHEDULER %s weight' % name, issues, default=1),
                            'priority': _int(fields.get('priority'), 'SCHEDULER %s priority' % name, issues)}
    ports = {}
    for name, fields in tables['PORT'].items():
        ports[name] = {
            'port': name,
            'mtu': _int(fields.get('mtu'), 'PORT %s mtu' % name, issues, default=9100),
            'speed_mbps': _int(fields.get('speed'), 'PORT %s speed' % name, issues),
            'admin_status': fields.get('admin_status', 'down'),
            'pfc_asym': fields.get('pfc_asym', 'off'),
            'maps': {}, 'dscp_to_tc': None, 'tc_to_pg': None, 'tc_to_queue': None, 'pfc_to_queue': None,
            'pfc_to_pg': None, 'pfc_enable': [], 'pfcwd_sw_enable': [], 'watchdog': None, 'queues': {},
            'buffer_pgs': {}, 'buffer_queues': {}, 'cable_length_m': None,
        }
    qos_map = tables.get('PORT_QOS_MAP', {})
    global_maps = qos_map.get('global', {})
    fields_to_table = (('dscp_to_tc_map', 'dscp_to_tc', 'DSCP_TO_TC_MAP'), ('tc_to_pg_map', 'tc_to_pg', 'TC_TO_PRIORITY_GROUP_MAP'),
                       ('tc_to_queue_map', 'tc_to_queue', 'TC_TO_QUEUE_MAP'),
                       ('pfc_to_queue_map', 'pfc_to_queue', 'MAP_PFC_PRIORITY_TO_QUEUE'),
                       ('pfc_to_pg_map', 'pfc_to_pg', 'PFC_PRIORITY_TO_PRIORITY_GROUP_MAP'))
    parsed_maps = {}  # each map is parsed once, not once per port that binds it

    def int_map(table, name):
        if (table, name) not in parsed_maps:
            parsed_maps[(table, name)] = _int_map(maps[table], name, table, issues)
        return parsed_maps[(table, name)]

    for port, _suffix, fields, legacy in _split_keys({key: value for key, value in qos_map.items() if key != 'global'}):
        if port not in ports:
            issues.append('PORT_QOS_MAP names %s, which is not in PORT' % port)
            continue
        if legacy:
            issues.append('PORT_QOS_MAP key lists several ports (%s): use one port per key for YANG/GCU (C25)' % port)
        view = ports[port]
        for field, target, table in fields_to_table:
            if field in fields:
                view['maps'][field] = _ref(fields[field])
                view[target] = int_map(table, _ref(fields[field]))
        view['pfc_enable'] = _priority_list(fields.get('pfc_enable'), 'PORT_QOS_MAP|%s pfc_enable' % port, issues)
        view['pfcwd_sw_enable'] = _priority_list(fields.get('pfcwd_sw_enable'), 'PORT_QOS_MAP|%s pfcwd_sw_enable' % port,
                                                 issues)
    for view in ports.values():  # the global binding applies where a port has none of its own
        for field, target, table in fields_to_table:
            if view[target] is None and field in global_maps:
                view['maps'][field] = _ref(global_maps[field]) + ' (global)'
                view[target] = int_map(table, _ref(global_maps[field]))
    watchdog = tables.get('PFC_WD', {})
    for port, fields in watchdog.items():
        if port == 'GLOBAL':
            continue
        if port not in ports:
            issues.append('PFC_WD names %s, which is not in PORT' % port)
            continue
        detection = _int(fields.get('detection_time'), 'PFC_WD|%s detection_time' % port, issues)
        restoration = _int(fields.get('restoration_time'), 'PFC_WD|%s restoration_time' % port, issues)
        ports[port]['watchdog'] = {
            'action': fields.get('action', 'drop'),
            'detection_ms': detection,
            # pfcwd CLI: no restoration time given means 2 x detection (sonic-utilities pfcwd/main.py).
            'restoration_ms': restoration if restoration is not None else (detection * 2 if detection else None),
        }
    for port, suffix, fields, _legacy in _split_keys(tables.get('QUEUE', {})):
        if port not in ports or suffix is None:
            continue
        for queue in _ids(suffix, 'QUEUE|%s' % port, issues):
            ports[port]['queues'][queue] = {'scheduler': schedulers.get(_ref(fields.get('scheduler'))),
                                            'scheduler_name': _ref(fields.get('scheduler')),
                                            'wred': wred.get(_ref(fields.get('wred_profile'))),
                                            'wred_name': _ref(fields.get('wred_profile'))}
    for table, target in (('BUFFER_PG', 'buffer_pgs'), ('BUFFER_QUEUE', 'buffer_queues')):
        for port, suffix, fields, _legacy in _split_keys(tables.get(table, {})):
            if port not in ports or suffix is None:
                continue
            name = _ref(fields.get('profile'))
            profile = {'name': 'NULL', 'dynamic': True} if name in (None, 'NULL') else profiles.get(name)
            if profile is None:
                issues.append('%s|%s|%s uses profile %s, which is not in BUFFER_PROFILE' % (table, port, suffix, name))
                profile = {'name': name, 'missing': True}
            for item in _ids(suffix, '%s|%s' % (table, port), issues):
                ports[port][target][item] = profile
    for _name, lengths in tables.get('CABLE_LENGTH', {}).items():
        for port, value in lengths.items():
            match = _CABLE.match(str(value))
            if not match:
                issues.append('CABLE_LENGTH %s %r must be a number of metres ending in m (C25)' % (port, value))
            elif port in ports:
                ports[port]['cable_length_m'] = int(match.group(1))
    metadata = tables.get('DEVICE_METADATA', {}).get('localhost', {})
    pattern = tables.get('LOSSLESS_TRAFFIC_PATTERN', {}).get('AZURE')
    for key, fields in tables.get('VXLAN_TUNNEL_MAP', {}).items():
        if not str(fields.get('vlan', '')).startswith('Vlan'):
            issues.append('VXLAN_TUNNEL_MAP|%s vlan %r must be Vlan<id> (C25)' % (key, fields.get('vlan')))
    return {
        'ports': ports,
        'watchdog_poll_ms': _int(watchdog.get('GLOBAL', {}).get('POLL_INTERVAL'), 'PFC_WD|GLOBAL POLL_INTERVAL', issues),
        'buffer_model': metadata.get('buffer_model'),
        'hostname': metadata.get('hostname'),
        'lossless_traffic_pattern': {'mtu': _int(pattern.get('mtu'), 'LOSSLESS_TRAFFIC_PATTERN mtu', issues),
                                     'small_packet_percentage': _int(pattern.get('small_packet_percentage'),
                                                                     'LOSSLESS_TRAFFIC_PATTERN small_packet_percentage',
                                                                     issues)} if pattern else None,
        'device_neighbors': sorted(tables.get('DEVICE_NEIGHBOR', {})),
        'wred_profiles': wred,
        'schedulers': schedulers,
        'buffer_profiles': profiles,
        'issues': issues,
    }


# --------------------------------------------------------------------------- lossless view
def lossless_view(parsed, source: str = 'running CONFIG_DB') -> Lossless:
    """The neutral `lossless` state (state/views.py) of a parsed CONFIG_DB."""
    ports = {}
    neighbors = set(parsed['device_neighbors'])
    pattern = parsed['lossless_traffic_pattern'] or {}
    shared = {}  # the views of one scheduler, WRED or buffer profile, made once for every port using it (read-only)

    def once(key, make):
        if key not in shared:
            shared[key] = make()
        return shared[key]

    for port, data in parsed['ports'].items():
        queues = {}
        for queue, entry in data['queues'].items():
            sched = entry['scheduler']
            queues[queue] = once(('queue', entry['scheduler_name'], entry['wred_name'], sched is None), lambda: {
                'scheduler': {'type': sched['type'], 'weight': sched['weight']} if sched else None, 'wred': entry['wred']})
        pgs = {}
        for pg, profile in data['buffer_pgs'].items():
            if profile.get('dynamic'):
                pgs[pg] = once(('dynamic',), lambda: {'dynamic': True})
            elif not profile.get('missing') and (profile.get('xoff') or 0) > 0:
                pgs[pg] = once(('pg', profile['name']), lambda: {
                    'dynamic': False, 'xoff': profile['xoff'], 'xon': profile.get('xon'), 'size': profile.get('size'),
                    'name': profile['name']})
        egress = {}
        for queue, profile in data['buffer_queues'].items():
            # The profile's name says what the queue is (egress_lossless_profile, ours AIFABRIC_EGRESS_LOSSLESS), not
            # its pool: Broadcom SKUs keep egress_lossy_profile in egress_lossless_pool.
            label = profile.get('name') or profile.get('pool') or ''
            if profile.get('missing'):
                egress[queue] = 'missing profile ' + label
            else:
                egress[queue] = 'lossless' if 'lossless' in label.lower() else label
        ports[port] = port_view(
            mtu=data['mtu'], trust='dscp' if data['dscp_to_tc'] is not None else None,
            dscp_to_tc=data['dscp_to_tc'], dscp_map=data['maps'].get('dscp_to_tc_map'),
            pfc=data['pfc_enable'], pfcwd=data['pfcwd_sw_enable'], watchdog=data['watchdog'],
            poll_ms=parsed['watchdog_poll_ms'], tc_to_pg=data['tc_to_pg'], tc_to_queue=data['tc_to_queue'],
            pfc_to_queue=data['pfc_to_queue'], pfc_to_pg=data['pfc_to_pg'], queues=queues, pgs=pgs, egress=egress,
            cable_length_m=data['cable_length_m'], in_neighbors=(port in neighbors) if neighbors else None,
            lossless_mtu=pattern.get('mtu'))
    return lossless_state(ports, source, parsed['issues'])


def parse_lossless(result) -> Lossless:
    return lossless_view(parse_config_db(result))


def design_view(files) -> Lossless:
    """The lossless view of the config_db.json this collection renders ({file name: text}; pre-deploy checks)."""
    return lossless_view(parse_config_db(files['config_db.json']), 'rendered config_db.json')


# --------------------------------------------------------------------------- sonic-db-dump
DB_MARK = '== '


def _db_dump(db, patterns, names):
    """One shell command: a line '== <group> <name> ...' per group of names the reading wants (the device model's
    ports, queues, priority groups, never free text, quoted anyway), then `sonic-db-dump -n <db> -k <pattern>` per
    pattern: every key of the table in one call (a switch's redis pipelines the reads), where a `sonic-db-cli
    HGETALL` per port took a process per port. sonic-db-dump is the host's dump of a SONiC database by name
    (sonic-py-common's sonic_db_dump_load, a console script of the host since 202211, sonic-py-swsssdk's before;
    `show techsupport` dumps every database with it); sonic-db-cli takes one redis command per call."""
    return ['sh', '-c', '%s; %s' % _db_dump_parts(db, patterns, names)]


def _db_dump_parts(db, patterns, names):
    """(the echo of the '== <group> <names>' lines, the sonic-db-dump calls) of _db_dump's script."""
    header = '; '.join("echo '%s%s %s'" % (DB_MARK, group, ' '.join(name.replace("'", '') for name in members))
                       for group, members in names.items())
    return header, ' && '.join("sonic-db-dump -n %s -k '%s'" % (db, pattern) for pattern in patterns)


def parse_db_dump(source, result) -> tuple[dict[str, list[str]], dict[str, dict[str, str]]]:
    """({group: [name, ...]}, {redis key: {field: value}}) from the output of _db_dump.

    sonic-db-dump prints redisdl's JSON, {key: {"type": "hash", "value": {field: value}, ...}} (SONiC's redisdl adds
    "ttl" and "expireat" to every key), without a final newline; several dumps follow each other."""
    text = command_output(source, result)
    groups: dict[str, list[str]] = {}
    lines = text.split('\n')
    while lines and lines[0].startswith(DB_MARK):
        group, *members = lines.pop(0)[len(DB_MARK):].split()
        groups[group] = members
    if not groups:
        raise StateError(source, 'no %r line naming what was read: %r' % (DB_MARK.strip(), excerpt(text, 60)))
    body = '\n'.join(lines)
    decoder = json.JSONDecoder()
    keys: dict[str, dict[str, str]] = {}
    position, dumps = 0, 0
    while True:
        while position < len(body) and body[position].isspace():
            position += 1
        if position == len(body):
            break
        try:
            dump, position = decoder.raw_decode(body, position)
        except ValueError:
            raise StateError(source, 'not a sonic-db-dump JSON object: %r' % excerpt(body[position:], 60)) from None
        if not isinstance(dump, dict):
            raise StateError(source, 'not a sonic-db-dump JSON object: %r' % excerpt(body[position:], 60))
        dumps += 1
        for key, entry in dump.items():
            value = entry.get('value') if isinstance(entry, dict) else None
            if not isinstance(value, dict) or entry.get('type') != 'hash':
                raise StateError(source, '%s: not a hash as sonic-db-dump prints it: %r'
                                 % (key, excerpt(str(entry), 60)))
            keys[key] = {str(field): str(item) for field, item in value.items()}
    if not dumps:
        raise StateError(source, 'empty output (expected the dump of the table)')
    return groups, keys


# --------------------------------------------------------------------------- LLDP (APPL_DB)
_PORT_ID_SUBTYPES = {'1': 'ifalias', '2': 'portcomponent', '3': 'mac', '4': 'ip', '5': 'ifname', '6': 'agentcircuitid',
                     '7': 'local'}


def _lldp_command(model, options):
    return _db_dump('APPL_DB', ['LLDP_ENTRY_TABLE:*'], {'ports': [item['name'] for item in model['interfaces']]})


def parse_lldp(result) -> list[LldpNeighbor]:
    """Neighbours from APPL_DB LLDP_ENTRY_TABLE:<port> (lldp_rem_sys_name, lldp_rem_port_id, lldp_rem_port_desc,
    lldp_rem_port_id_subtype as the LLDP MIB number), in the shape of lldp.parse_lldp_neighbors; the model's ports
    only (lldp_syncd also writes the management port's, eth0)."""
    from ...state.lldp import _peer_port  # pylint: disable=import-outside-toplevel
    groups, keys = parse_db_dump('SONiC APPL_DB LLDP_ENTRY_TABLE', result)
    neighbors: list[LldpNeighbor] = []
    for port in groups.get('ports', []):
        fields = keys.get('LLDP_ENTRY_TABLE:' + port)
        if not fields:
            continue  # no neighbour on this port
        subtype = _PORT_ID_SUBTYPES.get(str(fields.get('lldp_rem_port_id_subtype', '')), 'unknown')
        port_id, descr = fields.get('lldp_rem_port_id'), fields.get('lldp_rem_port_desc')
        neighbors.append({'interface': port, 'system_name': fields.get('lldp_rem_sys_name'),
                          'chassis_id': fields.get('lldp_rem_chassis_id'), 'port_id_type': subtype, 'port_id': port_id,
                          'port_descr': descr, 'peer_port': _peer_port(subtype, port_id, descr), 'via': 'LLDP'})
    return sorted(neighbors, key=lambda item: item['interface'] or '')


# --------------------------------------------------------------------------- interfaces (APPL_DB + CONFIG_DB)
def _interfaces_command(model, options):
    return [_db_dump('APPL_DB', ['PORT_TABLE:*'], {'ports': [item['name'] for item in model['interfaces']]}),
            CONFIG_DB_COMMAND]


def parse_interfaces(result) -> dict[str, Interface]:
    """Front-panel ports in the shape of iproute2.parse_ip_link: state and MTU from APPL_DB PORT_TABLE:<port>
    (admin_status, oper_status, mtu, as portsyncd / portsorch keep them), addresses from CONFIG_DB INTERFACE."""
    source = 'SONiC APPL_DB PORT_TABLE'
    outputs = result if isinstance(result, list) else [result]
    if len(outputs) != 2:
        raise StateError(source, 'expected the PORT_TABLE dump and CONFIG_DB, got %d outputs' % len(outputs))
    addresses = {}
    config = load_json(SOURCE, command_output(SOURCE, outputs[1]))
    for table in ('INTERFACE', 'PORTCHANNEL_INTERFACE', 'VLAN_INTERFACE'):
        for key in require_mapping(SOURCE, config, 'CONFIG_DB').get(table, {}) or {}:
            if '|' in key:
                name, prefix = key.split('|', 1)
                address, _sep, length = prefix.partition('/')
                if '.' in address:
                    addresses.setdefault(name, []).append({'family': 'inet', 'address': address,
                                                           'prefixlen': int(length) if length.isdigit() else None})
    interfaces: dict[str, Interface] = {}
    groups, keys = parse_db_dump(source, outputs[0])
    for name in groups.get('ports', []):
        fields = keys.get('PORT_TABLE:' + name)
        if not fields:
            continue  # not in PORT_TABLE: the port does not exist on this switch
        up = fields.get('oper_status') == 'up'
        interface: Interface = {
            'ifname': name, 'mtu': int(fields['mtu']) if str(fields.get('mtu', '')).isdigit() else None,
            'operstate': 'UP' if up else 'DOWN', 'admin_up': fields.get('admin_status') == 'up', 'lower_up': up,
            'master': None, 'kind': 'ethernet', 'vxlan': None, 'addresses': addresses.get(name, [])}
        interfaces[name] = interface
    return interfaces


# --------------------------------------------------------------------------- counters (COUNTERS_DB)
# The COUNTERS_DB name maps (name -> object id) of the groups read, and the counters of each object: COUNTERS:<oid>.
COUNTER_MAPS = {'ports': 'COUNTERS_PORT_NAME_MAP', 'queues': 'COUNTERS_QUEUE_NAME_MAP', 'pgs': 'COUNTERS_PG_NAME_MAP'}


def _counter_queues(model):
    qos = model.get('qos') or {}
    tcs = sorted(set(qos.get('lossless_priorities') or []) | ({qos['cnp_priority']} if 'cnp_priority' in qos else set()))
    return sorted({int((qos.get('tc_to_queue') or {}).get(tc, tc)) for tc in tcs})


def _lossless_pgs(model):
    qos = model.get('qos') or {}
    return sorted({int((qos.get('tc_to_pg') or {}).get(tc, tc)) for tc in qos.get('lossless_priorities') or []})


# The counters parse_counters reads: a port's PFC frames per priority and direction (field -> (metric, priority)), a
# queue's numbers (field -> metric) and watchdog status, a priority group's drops.
_PORT_PFC = {'SAI_PORT_STAT_PFC_%d_%s_PKTS' % (priority, way): ('pfc_%s' % way.lower(), priority)
             for priority in range(8) for way in ('RX', 'TX')}
_QUEUE_NUMBERS = {'SAI_QUEUE_STAT_DROPPED_PACKETS': 'queue_dropped',
                  'SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS': 'queue_ecn_marked',
                  'PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED': 'wd_storms',
                  'PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED': 'wd_restored'}
_QUEUE_WATCHDOG = 'PFC_WD_STATUS'
_PG_DROPPED = 'SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS'
# What the reading asks the switch for, per group: those fields only. All the switch keeps of an object is far more (a
# port has about a hundred SAI_PORT_STAT_* fields, and COUNTERS holds every queue, priority group, buffer pool and
# router interface).
COUNTER_FIELDS = {'ports': list(_PORT_PFC), 'queues': list(_QUEUE_NUMBERS) + [_QUEUE_WATCHDOG], 'pgs': [_PG_DROPPED]}
# Run by jq on the switch over the two dumps (slurped): the name maps' entries of the names wanted and, of the objects
# they name, the fields wanted, both still in sonic-db-dump's shape. jq is on every SONiC host (sonic-buildimage
# build_debian.sh installs it), so the switch sends kilobytes where the whole table is megabytes.
_COUNTERS_JQ = (
    'if length != 2 then error("expected the 2 sonic-db-dump outputs, got \\(length)") else . end'
    ' | .[0] as $maps | .[1] as $counters'
    ' | [$want | to_entries[] | .key as $map | .value.fields as $fields | .value.names[]'
    ' | {map: $map, name: ., fields: $fields, oid: ($maps[$map].value[.] // empty)}] as $hits'
    ' | (reduce $hits[] as $hit ({}; .[$hit.map].type = "hash" | .[$hit.map].value[$hit.name] = $hit.oid)),'
    ' (reduce $hits[] as $hit ({}; ("COUNTERS:" + $hit.oid) as $key'
    ' | if $counters[$key] then .[$key] = {type: "hash", value: ($counters[$key].value'
    ' | with_entries(select(.key as $field | $hit.fields | has($field))))} else . end))')


def counters_command(model, options):
    """The name maps and every object's counters dumped (a table per `sonic-db-dump`), cut on the switch by jq to the
    model's ports, queues and priority groups and the fields parse_counters reads."""
    if not model.get('qos'):
        return None
    ports = [item['name'] for item in model['interfaces']]
    names = {'ports': ports, 'queues': ['%s:%d' % (port, queue) for port in ports for queue in _counter_queues(model)],
             'pgs': ['%s:%d' % (port, pg) for port in ports for pg in _lossless_pgs(model)]}
    want = {COUNTER_MAPS[group]: {'names': members, 'fields': dict.fromkeys(COUNTER_FIELDS[group], True)}
            for group, members in names.items()}
    header, dumps = _db_dump_parts('COUNTERS_DB', ['COUNTERS_*_NAME_MAP', 'COUNTERS:*'], names)
    # names come from the device model (never free text) and carry no quote: the JSON goes in single quotes as it is
    return ['sh', '-c', "%s; { %s; } | jq -c -s --argjson want '%s' '%s'" % (
        header, dumps, json.dumps(want, separators=(',', ':')).replace("'", ''), _COUNTERS_JQ)]


def _split(name, source):
    port, _sep, index = name.rpartition(':')
    try:
        return port, int(index)
    except ValueError:
        raise StateError(source, '%r is not <port>:<index>' % name) from None


def parse_counters(result) -> Counters:
    """Neutral counters (state/counters.py) from the COUNTERS_DB dump: the model's ports, queues and priority groups
    through their name maps to COUNTERS:<oid>.

    Ports: SAI_PORT_STAT_PFC_<p>_RX_PKTS / _TX_PKTS. Queues: SAI_QUEUE_STAT_DROPPED_PACKETS,
    SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS, and the PFC watchdog's PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED /
    _RESTORED and PFC_WD_STATUS (operational | stormed). Priority groups: SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS.
    A name without an object id means counter polling for that group is off (`counterpoll queue|pg-drop enable`).
    """
    source = 'SONiC COUNTERS_DB'
    groups, keys = parse_db_dump(source, result)
    missing = sorted(set(COUNTER_MAPS) - set(groups))
    if missing:
        raise StateError(source, 'no %s line naming the %s read' % (DB_MARK.strip(), ', '.join(missing)))

    def counters(group):
        """(name, object id or None, its counters) for every name of the group the reading wanted."""
        names = keys.get(COUNTER_MAPS[group], {})
        for name in groups[group]:
            oid = names.get(name)
            yield name, oid, (keys.get('COUNTERS:' + oid, {}) if oid else {})

    ports = {}
    for name, oid, fields in counters('ports'):
        if not oid:
            raise StateError(source, '%s is not in COUNTERS_PORT_NAME_MAP (port counters not polled)' % name)
        view = ports.setdefault(name, {})
        for field, value in fields.items():
            if field in _PORT_PFC:
                metric, priority = _PORT_PFC[field]
                view.setdefault(metric, {})[priority] = number(source, value, field)
    for name, oid, fields in counters('queues'):
        port, queue = _split(name, source)
        if not oid:
            raise StateError(source, 'queue %s has no counters (not in COUNTERS_QUEUE_NAME_MAP: enable them with '
                                     '`counterpoll queue enable`)' % name)
        view = ports.setdefault(port, {})
        for field, metric in _QUEUE_NUMBERS.items():
            if field in fields:
                view.setdefault(metric, {})[queue] = number(source, fields[field], '%s %s' % (name, field))
        if _QUEUE_WATCHDOG in fields:
            view.setdefault('wd_stormed', {})[queue] = fields[_QUEUE_WATCHDOG] == 'stormed'
    for name, oid, fields in counters('pgs'):
        port, pg = _split(name, source)
        value = fields.get(_PG_DROPPED)
        if oid and value is not None:
            ports.setdefault(port, {}).setdefault('pg_dropped', {})[pg] = number(source, value, name)
    return {'ports': ports}


CONFIG_DB_COMMAND = ('sonic-cfggen', '-d', '--print-data')
SOURCES = vtysh.VTYSH_SOURCES + (
    vtysh.ROUTES_SOURCE,
    Source('interfaces', _interfaces_command, parse_interfaces),
    Source('lldp', _lldp_command, parse_lldp),
    Source('lossless', CONFIG_DB_COMMAND, parse_lossless),
    Source('counters', counters_command, parse_counters),
)
GATHERER = Gatherer('sonic', 'SONiC', SOURCES, reader=SHELL, design_view=design_view)

__all__ = ['parse_config_db', 'lossless_view', 'parse_lossless', 'parse_db_dump', 'parse_lldp', 'parse_counters',
           'counters_command', 'COUNTER_FIELDS',
           'parse_interfaces',
           'design_view', 'GATHERER']
