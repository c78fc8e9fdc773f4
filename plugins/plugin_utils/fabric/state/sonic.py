# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The lossless view of a community SONiC switch, from CONFIG_DB as JSON.

Input: `sonic-cfggen -d --print-data` (the running CONFIG_DB), /etc/sonic/config_db.json, or the
config_db.json this collection renders: {TABLE: {key: {field: "string"}}}. Schema facts (shared
reference switch-lossless-qos-vendors.md §1.2): keys with several parts are joined by '|' ("Ethernet0|3",
"Ethernet0|3-4"); legacy keys list several ports joined by ',' ("Ethernet0,Ethernet4|3-4"); object
references are plain names or, in old releases, "[TABLE|name]"; every value is a string; buffer sizes
are bytes, watchdog times ms, CABLE_LENGTH values end in "m".

Output per port: the maps actually bound to it (PORT_QOS_MAP per port, else `global`), PFC and watchdog
priorities, PFC_WD timers, queue schedulers and WRED/ECN profiles, lossless buffer PGs/queues with their
profiles, cable length, MTU, plus device-wide watchdog poll interval, buffer model, lossless traffic
pattern, DEVICE_NEIGHBOR ports and format problems (rule C25).
"""

from __future__ import annotations

import re

from . import StateError, command_output, load_json, require_mapping

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
                view[target] = _int_map(maps[table], _ref(fields[field]), table, issues)
        view['pfc_enable'] = _priority_list(fields.get('pfc_enable'), 'PORT_QOS_MAP|%s pfc_enable' % port, issues)
        view['pfcwd_sw_enable'] = _priority_list(fields.get('pfcwd_sw_enable'), 'PORT_QOS_MAP|%s pfcwd_sw_enable' % port,
                                                 issues)
    for view in ports.values():  # the global binding applies where a port has none of its own
        for field, target, table in fields_to_table:
            if view[target] is None and field in global_maps:
                view['maps'][field] = _ref(global_maps[field]) + ' (global)'
                view[target] = _int_map(maps[table], _ref(global_maps[field]), table, issues)
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
            # pfcwd CLI: no restoration time given means 2 x detection (reference §1.7).
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


__all__ = ['parse_config_db']
