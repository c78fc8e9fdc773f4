# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Community SONiC: `config_db.json` (CONFIG_DB tables merged onto a running switch) and `frr.conf`.

config_db.json is built as plain dicts straight from the device model and serialised exactly like
json.dumps(tables, sort_keys=True, indent=2) (by a formatter specialised to CONFIG_DB's three levels,
table -> key -> field: string, because the generic encoder is the slowest step of a 64-port switch).
frr.conf is the single FRR file of the bgp container in docker_routing_config_mode split-unified,
rendered by templates/sonic/frr.conf.j2.

Only SONiC names and representations are decided here (table keys, `Vrf<name>`, `Vlan<id>`, object
names, string values); every number comes from the device model. Schema facts are cited from the SONiC YANG
models and their reference (sonic-buildimage src/sonic-yang-models/yang-models/*.yang and
src/sonic-yang-models/doc/Configuration.md), the community QoS templates (sonic-buildimage
files/build_templates/qos_config.j2), buffermgrd (sonic-swss cfgmgr/buffermgr.cpp) and docs/platform-sonic.md.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii as _quote
from typing import Any, cast

from jinja2 import Environment

from . import INGRESS_LOSSLESS_POOL
from ...model import SwitchModel

# DEVICE_METADATA|localhost.type per fabric role (YANG pattern in sonic-device_metadata.yang): SONiC's T0/T1/T2.
DEVICE_TYPE = {'leaf': 'ToRRouter', 'spine': 'LeafRouter', 'super_spine': 'SpineRouter'}
# Names of the objects the collection owns. Distinct from the community defaults (AZURE, AZURE_LOSSLESS,
# scheduler.N) so a merge never half-edits a default object; WRED names are <= 32 chars (sonic-wred-profile.yang, C25).
QOS_MAP = 'AIFABRIC'
WRED_LOSSLESS = 'AIFABRIC_LOSSLESS_%dG'  # per port speed: ECN thresholds scale with it
SCHEDULER_TC = 'AIFABRIC_TC%d'    # DWRR share of one traffic class (model qos.tc_bandwidth_percent)
SCHEDULER_LOSSY = 'AIFABRIC_LOSSY'  # queues of lossy classes without a share of their own
SCHEDULER_CNP = 'AIFABRIC_CNP'      # strict priority (C10)
# CABLE_LENGTH is keyed by a free name; buffermgrd and the templates use AZURE (Configuration.md, buffermgr.cpp).
CABLE_LENGTH_KEY = 'AZURE'
VXLAN_TUNNEL = 'vtep'
EVPN_NVO = 'nvo'
# VTEP on its own loopback: bgpcfgd's zebra set-src manager uses the first IPv4 of Loopback0 only.
LOOPBACK_ROUTER_ID = 'Loopback0'
LOOPBACK_VTEP = 'Loopback1'
# SONiC emits PFC_PRIORITY_TO_PRIORITY_GROUP_MAP / pfc_to_pg_map only for asic_type mellanox (and barefoot),
# i.e. NVIDIA Spectrum (qos_config.j2).
PFC_TO_PG_VENDORS = frozenset(['nvidia'])
PEER_GROUP = {'up': 'UPLINK', 'down': 'DOWNLINK'}
# Our own names for the profiles of the lossy PGs and the egress queues, with the values of the SKU's profiles that
# buffers_config.j2 binds there (model buffer.sku): a switch's `config qos reload` already has the SKU's
# ingress_lossy_profile, egress_lossless_profile, egress_lossy_profile, q_lossy_profile, whose values differ between
# releases (sonic-buildimage device/mellanox/*/buffers_defaults_objects.j2; earlier ones in sonic-utilities
# scripts/mellanox_buffer_migrator.py), and SONiC's config updater changes only
# dynamic_th and xoff of an existing profile (sonic-utilities generic_config_updater/
# gcu_field_operation_validators.conf.json, field_operation_validators.py buffer_profile_config_update_validator): a
# profile of our own is added whole, which it allows. pg_lossless_<speed>_<cable>_profile keeps buffermgrd's name, so
# both writers share it.
INGRESS_LOSSY_PROFILE = 'AIFABRIC_INGRESS_LOSSY'
EGRESS_LOSSLESS_PROFILE = 'AIFABRIC_EGRESS_LOSSLESS'
EGRESS_LOSSY_PROFILE = 'AIFABRIC_EGRESS_LOSSY'
# Our profile -> the SKU's buffer data naming the profile whose values it takes.
OWN_PROFILES = {INGRESS_LOSSY_PROFILE: 'lossy_pg_profile', EGRESS_LOSSLESS_PROFILE: 'lossless_queue_profile',
                EGRESS_LOSSY_PROFILE: 'lossy_queue_profile'}
OWN_PROFILE_PREFIXES = ('AIFABRIC_', 'pg_lossless_')
# Intent hash field -> sonic-hash.yang hash-field; the L3/L4 ones also exist as INNER_* for VXLAN.
HASH_FIELD = {'src_ip': 'SRC_IP', 'dst_ip': 'DST_IP', 'ip_protocol': 'IP_PROTOCOL', 'l4_src_port': 'L4_SRC_PORT',
              'l4_dst_port': 'L4_DST_PORT', 'ipv6_flow_label': 'IPV6_FLOW_LABEL'}
INNER_HASHABLE = ('src_ip', 'dst_ip', 'ip_protocol', 'l4_src_port', 'l4_dst_port')
COUNTER_GROUPS = ('PORT', 'QUEUE', 'QUEUE_WATERMARK', 'PG_WATERMARK', 'PG_DROP', 'BUFFER_POOL_WATERMARK', 'PFCWD')
WRED_ECN_COUNTERS_RELEASE = 202311


def vrf_name(name: str) -> str:
    """SONiC VRF key: YANG pattern `Vrf[a-zA-Z0-9_-]+` (sonic-vrf.yang); intent names are <= 12 chars -> <= 15 (IFNAMSIZ)."""
    return 'Vrf' + name


def vlan_name(vlan: int) -> str:
    return 'Vlan%d' % vlan


def id_ranges(ids) -> list:
    """Contiguous runs as SONiC range keys: [0, 1, 2, 4, 5] -> ['0-2', '4-5'] (BUFFER_PG/BUFFER_QUEUE, Configuration.md)."""
    runs = []
    for value in sorted(set(ids)):
        if runs and value == runs[-1][1] + 1:
            runs[-1][1] = value
        else:
            runs.append([value, value])
    return ['%d' % low if low == high else '%d-%d' % (low, high) for low, high in runs]


def _int_map(mapping) -> dict:
    """Model maps have int keys in Python and str keys after a JSON round trip; accept both."""
    return {int(key): int(value) for key, value in mapping.items()}


def _str_map(mapping) -> dict:
    return {str(key): str(value) for key, value in sorted(mapping.items())}


# ----------------------------------------------------------------------------------------------- CONFIG_DB
# How a deploy combines the rendered CONFIG_DB with the switch's: the rows of these tables are merged field by field
# into the running ones (the switch keeps its unused ports, its MAC and counters the renderer does not name) ...
MERGED_TABLES = frozenset({'DEVICE_METADATA', 'PORT', 'BREAKOUT_CFG', 'FLEX_COUNTER_TABLE'})
# ... these get the file's rows whole, next to the running rows the file does not name (the SKU's zero profiles and
# the rest of its `config qos reload`); a SKU profile the switch already has (the file names it for the per-port
# profile lists) stays as the switch has it: the config updater would refuse a change to its pool or size ...
ROW_TABLES = frozenset({'BUFFER_PROFILE'})
# ... and these the rendered file owns: they are replaced whole (a row or table it no longer has is removed). The
# buffer pools are the design's: a first deploy loads them whole, a later one may not change them (the config updater
# changes no BUFFER_POOL: platforms/sonic/deploy.py beyond_gcu); the per-port profile lists name the SKU's profiles
# for active ports. FRR is
# configured by frr.conf alone (split-unified), so the factory's BGP_NEIGHBOR rows go: bgpcfgd, which runs in every
# routing config mode (sonic-buildimage dockers/docker-fpm-frr/frr/supervisord/supervisord.conf.common.j2), would
# otherwise add those peers to FRR.
REPLACED_TABLES = frozenset({
    'AAA', 'BGP_NEIGHBOR', 'BUFFER_PG', 'BUFFER_POOL', 'BUFFER_PORT_EGRESS_PROFILE_LIST',
    'BUFFER_PORT_INGRESS_PROFILE_LIST', 'BUFFER_QUEUE', 'CABLE_LENGTH', 'DEFAULT_LOSSLESS_BUFFER_PARAMETER',
    'DEVICE_NEIGHBOR', 'LOSSLESS_TRAFFIC_PATTERN', 'DNS_NAMESERVER', 'DSCP_TO_TC_MAP', 'INTERFACE',
    'LOOPBACK_INTERFACE', 'MAP_PFC_PRIORITY_TO_QUEUE', 'MGMT_INTERFACE', 'MGMT_PORT', 'MGMT_VRF_CONFIG', 'NTP',
    'NTP_SERVER', 'PFC_PRIORITY_TO_PRIORITY_GROUP_MAP', 'PFC_WD', 'PORT_QOS_MAP', 'QUEUE', 'SCHEDULER', 'SWITCH_HASH',
    'SYSLOG_SERVER', 'TACPLUS_SERVER', 'TC_TO_PRIORITY_GROUP_MAP', 'TC_TO_QUEUE_MAP', 'VLAN', 'VLAN_INTERFACE',
    'VLAN_MEMBER', 'VRF', 'VXLAN_EVPN_NVO', 'VXLAN_TUNNEL', 'VXLAN_TUNNEL_MAP', 'WRED_PROFILE'})
DEPLOYED_TABLES = MERGED_TABLES | ROW_TABLES | REPLACED_TABLES


def _lanes(fields) -> set:
    return {lane.strip() for lane in str(fields.get('lanes', '')).split(',') if lane.strip()}


def deploy_target(running: dict, rendered: dict) -> dict:
    """The CONFIG_DB a deploy applies with `config replace`: the running one with the rendered tables in. A running
    port whose lanes a rendered port now uses (another breakout of its cage) goes, with the kept rows keyed by it."""
    target = {table: rows for table, rows in running.items() if table not in REPLACED_TABLES}
    rendered_lanes = set()
    for name, fields in rendered.get('PORT', {}).items():
        rendered_lanes |= _lanes(fields)
    gone = {name for name, fields in running.get('PORT', {}).items()
            if name not in rendered.get('PORT', {}) and _lanes(fields) & rendered_lanes}
    if gone:
        target = {table: {key: fields for key, fields in rows.items() if key.split('|', 1)[0] not in gone}
                  for table, rows in target.items()}
        target = {table: rows for table, rows in target.items() if rows}
    for table, rows in rendered.items():
        if table in MERGED_TABLES:
            merged = {key: dict(fields) for key, fields in target.get(table, {}).items()}
            for key, fields in rows.items():
                merged[key] = dict(merged.get(key, {}), **fields)
            target[table] = merged
        elif table in ROW_TABLES:
            have = target.get(table, {})
            target[table] = dict(have, **{key: fields for key, fields in rows.items()
                                          if key not in have or key.startswith(OWN_PROFILE_PREFIXES)})
        else:
            target[table] = rows
    return target


def config_db(model: SwitchModel) -> dict:
    """CONFIG_DB tables of one switch: {table: {key: {field: str}}}. Equal rows of a table (a port's queues, PGs,
    watchdog...) are one shared dict, which dump_config_db() formats once: the result is read-only."""
    interfaces = model['interfaces']
    buffer = model.get('buffer')
    sku = (buffer['sku'] if buffer else None) or {}
    metadata = {
        'hostname': model['name'],
        'bgp_asn': str(model['bgp']['asn']),
        'type': DEVICE_TYPE[model['role']],
        # The SKU's model: dynamic where the vendor's image computes headroom and pools (_add_buffers).
        'buffer_model': 'dynamic' if sku.get('dynamic') else 'traditional',
        # FRR reads /etc/sonic/frr/frr.conf as is; nothing is rendered from CONFIG_DB (sonic-buildimage
        # dockers/docker-fpm-frr: split-unified mode).
        'docker_routing_config_mode': 'split-unified',
        # PFC_WD rows are written explicitly; `enable` would let `pfcwd start_default` (run by
        # config load_minigraph) overwrite them with 200 ms x ceil(ports/32) defaults
        # (sonic-utilities pfcwd/main.py start_default).
        'default_pfcwd_status': 'disable',
    }
    # The HWSKU facts SONiC's hardware_facts() puts beside the model's declared fields.
    sonic = cast('dict[str, Any]', model['hardware'] or {}).get('sonic')
    if sonic:
        # The switch the file is for (sonic-device_metadata.yang): a push onto another box fails the deploy's
        # comparison of DEVICE_METADATA instead of creating ports that do not exist there.
        metadata.update(platform=sonic['platform'], hwsku=sonic['hwsku'])
    tables: dict[str, Any] = {'DEVICE_METADATA': {'localhost': metadata}}
    ports, breakout = {}, {}
    for item in interfaces:
        port: dict[str, Any] = {'admin_status': 'up', 'description': item['description'], 'mtu': str(item['mtu']),
                                'speed': str(item['speed_gbps'] * 1000)}  # Mb/s (sonic-port.yang)
        lane_ids = item['lane_ids']
        if lane_ids:
            # Lanes, alias and front-panel index from the HWSKU port map (port_config.ini / platform.json), FEC
            # from the lane rate (sonic-port.yang: rs|fc|none|auto).
            port.update(lanes=','.join(map(str, lane_ids)), alias=item['alias'],
                        index=str(item['cage']), fec=item['fec'])
            breakout[item['breakout_parent']] = {'brkout_mode': item['breakout']}
        ports[item['name']] = port
    tables['PORT'] = ports
    # The breakout mode of every cage in use, exactly as platform.json spells it (Dynamic Port Breakout).
    tables['BREAKOUT_CFG'] = breakout
    tables['DEVICE_NEIGHBOR'] = {item['name']: {'name': item['peer'], 'port': item['peer_interface']}
                                 for item in interfaces}
    _add_interfaces(tables, model)
    if model['qos'] is not None:
        _add_qos(tables, model)
    if model['buffer'] is not None and model['qos'] is not None:
        _add_buffers(tables, model)
    if model['evpn'] is not None:
        _add_evpn(tables, model)
    _add_hash(tables, model)
    if model['qos'] is not None:
        _add_counters(tables, model)
    _add_management(tables, model['management'])
    return {name: table for name, table in tables.items() if table}


def _add_management(tables, management):
    """What `config replace` must keep for the operator to stay connected: eth0 with its address and gateway in the
    management VRF (sonic-mgmt_port.yang, sonic-mgmt_interface.yang, sonic-mgmt_vrf.yang) and the services reached
    through it (sonic-ntp, sonic-syslog, sonic-dns, sonic-system-tacacs, sonic-system-aaa). Local users are Linux
    accounts, not CONFIG_DB rows: a replace leaves them as they are."""
    port = management['interface']
    vrf = 'mgmt' if management['vrf'] else 'default'
    tables['MGMT_PORT'] = {port: {'admin_status': 'up', 'alias': port, 'description': 'management'}}
    if management['vrf']:
        tables['MGMT_VRF_CONFIG'] = {'vrf_global': {'mgmtVrfEnabled': 'true'}}
    if management['address']:
        row = {'gwaddr': management['gateway']} if management['gateway'] else {}
        tables['MGMT_INTERFACE'] = {'%s|%s' % (port, management['address']): row}
    if management['ntp_servers']:
        tables['NTP'] = {'global': {'src_intf': port, 'vrf': vrf}}
        tables['NTP_SERVER'] = {server: {'association_type': 'server', 'iburst': 'on'}
                                for server in management['ntp_servers']}
    if management['syslog_servers']:
        tables['SYSLOG_SERVER'] = {server: {'port': '514', 'vrf': vrf} for server in management['syslog_servers']}
    if management['dns_servers']:
        tables['DNS_NAMESERVER'] = {server: {} for server in management['dns_servers']}
    if management['tacacs_servers']:
        tables['TACPLUS_SERVER'] = {server: {'priority': str(len(management['tacacs_servers']) - index),
                                             'tcp_port': '49', 'vrf': vrf}
                                    for index, server in enumerate(management['tacacs_servers'])}
        tables['AAA'] = {'authentication': {'login': 'tacacs+,local', 'failthrough': 'True'}}


def _add_hash(tables, model):
    """ECMP hash fields (SONiC generic hash, sonic-hash.yang SWITCH_HASH|GLOBAL.ecmp_hash): RoCEv2 entropy is
    in the UDP source port; VTEPs also hash the VXLAN inner headers."""
    ecmp = model['ecmp']
    fields = [HASH_FIELD[name] for name in ecmp['hash_fields']]
    if ecmp['inner']:
        fields += ['INNER_' + HASH_FIELD[name] for name in ecmp['hash_fields'] if name in INNER_HASHABLE]
    tables['SWITCH_HASH'] = {'GLOBAL': {'ecmp_hash': fields}}


def _add_counters(tables, model):
    """Flex counter groups the validation reads: port, per-queue and PG counters and watermarks, the PFC watchdog
    and, from 202311, WRED/ECN per queue (sonic-flex_counter.yang)."""
    groups = list(COUNTER_GROUPS)
    if int(model['nos_release']) >= WRED_ECN_COUNTERS_RELEASE:
        groups.append('WRED_ECN_QUEUE')
    tables['FLEX_COUNTER_TABLE'] = dict.fromkeys(groups, {'FLEX_COUNTER_STATUS': 'enable'})


def _add_interfaces(tables, model):
    routed, no_fields = {}, {}
    link_local_only = {'ipv6_use_link_local_only': 'enable'}
    for item in model['interfaces']:
        if item['mode'] == 'routed':
            routed[item['name']] = no_fields
            routed['%s|%s' % (item['name'], item['ipv4'])] = no_fields
        elif item['mode'] == 'unnumbered':
            # BGP unnumbered runs on the IPv6 link-local address only (sonic-interface.yang).
            routed[item['name']] = link_local_only
    tables['INTERFACE'] = routed
    loopbacks = {LOOPBACK_ROUTER_ID: {}, '%s|%s/32' % (LOOPBACK_ROUTER_ID, model['router_id']): {}}
    if model['evpn'] is not None:
        loopbacks[LOOPBACK_VTEP] = {}
        loopbacks['%s|%s/32' % (LOOPBACK_VTEP, model['evpn']['vtep_ip'])] = {}
    tables['LOOPBACK_INTERFACE'] = loopbacks


def _queues(qos):
    """(lossless queues, CNP queue, all queues) from the model's maps."""
    tc_to_queue = _int_map(qos['tc_to_queue'])
    lossless = sorted({tc_to_queue[priority] for priority in qos['lossless_priorities']})
    return lossless, tc_to_queue[qos['cnp_priority']], sorted(set(tc_to_queue.values()))


def _add_qos(tables, model):
    qos = model['qos']
    names = [item['name'] for item in model['interfaces']]
    with_pfc_to_pg = model.get('asic_vendor') in PFC_TO_PG_VENDORS
    tables['DSCP_TO_TC_MAP'] = {QOS_MAP: _str_map(_int_map(qos['dscp_to_tc']))}
    tables['TC_TO_PRIORITY_GROUP_MAP'] = {QOS_MAP: _str_map(_int_map(qos['tc_to_pg']))}
    tables['TC_TO_QUEUE_MAP'] = {QOS_MAP: _str_map(_int_map(qos['tc_to_queue']))}
    tables['MAP_PFC_PRIORITY_TO_QUEUE'] = {QOS_MAP: _str_map(_int_map(qos['pfc_to_queue']))}
    if with_pfc_to_pg:
        tables['PFC_PRIORITY_TO_PRIORITY_GROUP_MAP'] = {QOS_MAP: _str_map(_int_map(qos['pfc_to_pg']))}

    # pfc_enable / pfcwd_sw_enable: comma list, pattern ([0-7](,[0-7])*)? (sonic-port-qos-map.yang, C25); the watchdog
    # protects the TCs of pfcwd_sw_enable, so it equals pfc_enable (C12).
    pfc_enable = ','.join('%d' % priority for priority in sorted(qos['lossless_priorities']))
    port_qos = {'dscp_to_tc_map': QOS_MAP, 'tc_to_pg_map': QOS_MAP, 'tc_to_queue_map': QOS_MAP,
                'pfc_to_queue_map': QOS_MAP, 'pfc_enable': pfc_enable, 'pfcwd_sw_enable': pfc_enable}
    if with_pfc_to_pg:
        port_qos['pfc_to_pg_map'] = QOS_MAP
    port_qos_map = {'global': {'dscp_to_tc_map': QOS_MAP}}
    for name in names:
        port_qos_map[name] = port_qos
    tables['PORT_QOS_MAP'] = port_qos_map

    # DWRR weights 1..100 (sonic-scheduler.yang): one scheduler per traffic class with a share, CNP strict, the rest lossy.
    shares = _int_map(qos['tc_bandwidth_percent'])
    schedulers = {SCHEDULER_TC % tc: {'type': 'DWRR', 'weight': str(weight)} for tc, weight in shares.items()}
    schedulers[SCHEDULER_CNP] = {'type': 'STRICT'}
    # One WRED profile per port speed: the design scales the ECN thresholds with the speed (sonic-wred-profile.yang:
    # bytes).
    wred_profiles, wred_of_port = {}, {}
    for item in model['interfaces']:
        ecn = item['ecn']
        name = WRED_LOSSLESS % item['speed_gbps']
        wred_of_port[item['name']] = name
        if name not in wred_profiles:
            wred = {'ecn': 'ecn_all'}
            for colour in ('green', 'yellow', 'red'):
                wred['wred_%s_enable' % colour] = 'true'
                wred['%s_min_threshold' % colour] = str(ecn['min_threshold_bytes'])
                wred['%s_max_threshold' % colour] = str(ecn['max_threshold_bytes'])
                wred['%s_drop_probability' % colour] = str(ecn['mark_probability_percent'])
            wred_profiles[name] = wred
    tables['WRED_PROFILE'] = wred_profiles

    lossless_queues, cnp_queue, all_queues = _queues(qos)
    tc_to_queue = _int_map(qos['tc_to_queue'])
    queue_tc = {}
    for tc in sorted(tc_to_queue):
        queue_tc.setdefault(tc_to_queue[tc], tc)
    per_queue = []
    for queue in all_queues:
        tc = queue_tc[queue]
        if queue == cnp_queue:
            fields = {'scheduler': SCHEDULER_CNP}
        elif tc in shares:
            fields = {'scheduler': SCHEDULER_TC % tc}
        else:
            fields = {'scheduler': SCHEDULER_LOSSY}
            schedulers[SCHEDULER_LOSSY] = {'type': 'DWRR', 'weight': str(qos['scheduler']['lossy_weight_percent'])}
        per_queue.append(('|%d' % queue, fields, queue in lossless_queues))
    tables['SCHEDULER'] = schedulers
    queue_table, with_wred = {}, {}
    for name in names:
        for suffix, fields, lossless in per_queue:
            if lossless:
                key = (suffix, wred_of_port[name])
                fields = with_wred.get(key) or with_wred.setdefault(key, dict(fields, wred_profile=key[1]))
            queue_table[name + suffix] = fields
    tables['QUEUE'] = queue_table

    watchdog = qos['watchdog']
    if watchdog['enabled']:
        row = {'action': watchdog['action'], 'detection_time': str(watchdog['detection_ms']),
               'restoration_time': str(watchdog['restoration_ms'])}  # ms (sonic-pfcwd.yang)
        pfc_wd = dict.fromkeys(names, row)
        pfc_wd['GLOBAL'] = {'POLL_INTERVAL': str(watchdog['poll_interval_ms'])}
        tables['PFC_WD'] = pfc_wd


def _strings(fields):
    return {key: str(value) for key, value in fields.items()}


def _add_buffers(tables, model):
    """The SKU's buffer objects (model buffer.pools, buffer.sku: buffers_defaults_t1.j2 and the templates it uses) and
    the lossless PGs in the SKU's buffer model:
    - dynamic (the NVIDIA images' default, sonic-buildimage platform/mellanox/rules.mk): as buffers_defaults_objects.j2
      writes it in dynamic mode, the shared pools without a size (buffermgrd computes them) beside the egress lossless
      pool that is the SKU's buffer, each lossless PG with profile NULL (buffermgrd computes its headroom from speed,
      cable length and LOSSLESS_TRAFFIC_PATTERN, with the design's lossless MTU and small-packet share: the design
      computes the same, sonic-swss cfgmgr/buffer_headroom_mellanox.lua), DEFAULT_LOSSLESS_BUFFER_PARAMETER with the
      SKU's lossless threshold (buffers_config.j2);
    - traditional: one lossless PG profile per (speed, cable), as buffermgrd would write it from pg_profile_lookup.ini:
      pool ingress_lossless_pool, xon, xon_offset where the SKU's lookup has it, xoff, size and the threshold named
      after the pool's mode (sonic-swss cfgmgr/buffermgr.cpp)."""
    qos, buffer = model['qos'], model['buffer']
    sku = buffer['sku']
    dynamic = bool(sku.get('dynamic'))
    lossless_pg = sku['lossless_pg']
    # With a shared headroom pool (the ingress pool's xoff) a profile's xoff only triggers PAUSE (buffermgr.cpp).
    tables['BUFFER_POOL'] = {name: _strings({key: value for key, value in fields.items() if not (
        dynamic and key == 'size' and name != sku['egress_lossless_pool'])}) for name, fields in buffer['pools'].items()}
    threshold = buffer['pools'][INGRESS_LOSSLESS_POOL]['mode'] + '_th'
    profiles = {}
    for profile in [] if dynamic else buffer['profiles']:
        # Same names as buffermgrd's pg_lossless_<speed>_<cable>_profile, so it reuses them (buffermgr.cpp).
        fields = {'pool': INGRESS_LOSSLESS_POOL, 'size': str(profile['size']), 'xon': str(profile['xon']),
                  'xoff': str(profile['xoff']), threshold: str(lossless_pg['threshold'])}
        if 'xon_offset' in lossless_pg:
            fields['xon_offset'] = str(lossless_pg['xon_offset'])
        profiles[profile['name']] = fields
    if dynamic:
        tables['DEFAULT_LOSSLESS_BUFFER_PARAMETER'] = {'AZURE': {'default_dynamic_th': str(lossless_pg['threshold'])}}
        tables['LOSSLESS_TRAFFIC_PATTERN'] = {'AZURE': {'mtu': str(qos['buffer']['lossless_mtu']),
                                                        'small_packet_percentage': str(qos['buffer']['small_packet_percent'])}}
    for own, role in OWN_PROFILES.items():
        profiles[own] = _strings(sku['profiles'][sku[role]])
    lists = sku.get('port_profile_lists') or {}
    for name in sorted({name for names in lists.values() for name in names}):
        profiles[name] = _strings(sku['profiles'][name])
    tables['BUFFER_PROFILE'] = profiles

    tc_to_pg = _int_map(qos['tc_to_pg'])
    lossless_pgs = {tc_to_pg[priority] for priority in qos['lossless_priorities']}
    # Contiguous ranges, the keys buffermgrd derives from pfc_enable, so both writers agree (buffermgr.cpp).
    lossless_pg_keys = ['|' + key for key in id_ranges(lossless_pgs)]
    lossy_pg_keys = ['|' + key for key in id_ranges(set(tc_to_pg.values()) - lossless_pgs)]
    lossless_queues, _unused, all_queues = _queues(qos)
    lossless_queue_keys = ['|' + key for key in id_ranges(lossless_queues)]
    lossy_queue_keys = ['|' + key for key in id_ranges(set(all_queues) - set(lossless_queues))]
    buffer_pg, buffer_queue, cable = {}, {}, {}
    profile_rows = {name: {'profile': name} for name in profiles}
    computed = {'profile': 'NULL'}  # the dynamic model's lossless PG: buffermgrd computes it
    lossy_pg, lossless_queue, lossy_queue = (profile_rows[INGRESS_LOSSY_PROFILE], profile_rows[EGRESS_LOSSLESS_PROFILE],
                                             profile_rows[EGRESS_LOSSY_PROFILE])
    list_rows = {direction: {'profile_list': ','.join(names)} for direction, names in lists.items()}
    port_lists = {direction: {} for direction in list_rows}
    for item in model['interfaces']:
        name = item['name']
        for key in lossless_pg_keys:
            buffer_pg[name + key] = computed if dynamic else profile_rows[item['buffer_profile']]
        for key in lossy_pg_keys:
            buffer_pg[name + key] = lossy_pg
        for key in lossless_queue_keys:
            buffer_queue[name + key] = lossless_queue
        for key in lossy_queue_keys:
            buffer_queue[name + key] = lossy_queue
        for direction, row in list_rows.items():
            port_lists[direction][name] = row
        cable[name] = '%dm' % item['cable_length_m']  # metres, suffix m required (sonic-cable-length.yang)
    tables['BUFFER_PG'] = buffer_pg
    tables['BUFFER_QUEUE'] = buffer_queue
    for direction, rows in port_lists.items():
        tables['BUFFER_PORT_%s_PROFILE_LIST' % direction.upper()] = rows
    tables['CABLE_LENGTH'] = {CABLE_LENGTH_KEY: cable}


def _add_evpn(tables, model):
    evpn = model['evpn']
    vlan_table, members, vlan_interfaces, tunnel_map, vrfs = {}, {}, {}, {}, {}
    untagged, no_fields = {'tagging_mode': 'untagged'}, {}
    mtu = str(model['mtu'])

    def add_vlan(vlan, vni):
        name = vlan_name(vlan)
        vlan_table[name] = {'vlanid': str(vlan), 'mtu': mtu, 'admin_status': 'up'}
        # VXLAN_TUNNEL_MAP.vlan is "Vlan<id>" (sonic-vxlan.yang pattern); map name as `config vxlan map add` makes it.
        tunnel_map['%s|map_%d_%s' % (VXLAN_TUNNEL, vni, name)] = {'vlan': name, 'vni': str(vni)}
        return name

    for vrf in evpn['vrfs']:
        name = add_vlan(vrf['vlan'], vrf['l3vni'])
        vrfs[vrf_name(vrf['name'])] = {'vni': str(vrf['l3vni'])}
        vlan_interfaces[name] = {'vrf_name': vrf_name(vrf['name'])}
    for vlan in evpn['vlans']:
        name = add_vlan(vlan['vlan'], vlan['vni'])
        for port in vlan['ports']:
            members['%s|%s' % (name, port)] = untagged
        if vlan['vrf'] is not None:
            # Anycast gateway: same IP and MAC on every leaf (sonic-vlan.yang VLAN_INTERFACE mac_addr).
            vlan_interfaces[name] = {'vrf_name': vrf_name(vlan['vrf']), 'mac_addr': evpn['gateway_mac']}
            if vlan['gateway'] is not None:
                vlan_interfaces['%s|%s/%d' % (name, vlan['gateway'], vlan['prefixlen'])] = no_fields
    tables['VLAN'] = vlan_table
    tables['VLAN_MEMBER'] = members
    tables['VLAN_INTERFACE'] = vlan_interfaces
    tables['VRF'] = vrfs
    tables['VXLAN_TUNNEL'] = {VXLAN_TUNNEL: {'src_ip': evpn['vtep_ip']}}
    tables['VXLAN_TUNNEL_MAP'] = tunnel_map
    tables['VXLAN_EVPN_NVO'] = {EVPN_NVO: {'source_vtep': VXLAN_TUNNEL}}


def dump_config_db(tables: dict) -> str:
    """Exactly json.dumps(tables, sort_keys=True, indent=2) + newline, for {table: {key: {field: str}}}."""
    bodies = {}  # id(row) -> its formatted fields: a row shared by many keys (see config_db) is formatted once
    out = []
    for table_name in sorted(tables):
        table = tables[table_name]
        if not table:
            out.append('  %s: {}' % _quote(table_name))
            continue
        rows = []
        for key in sorted(table):
            fields = table[key]
            body = bodies.get(id(fields))
            if body is None:
                body = bodies[id(fields)] = _fields_text(fields)
            rows.append('    %s: %s' % (_quote(key), body))
        out.append('  %s: {\n%s\n  }' % (_quote(table_name), ',\n'.join(rows)))
    if not out:
        return '{}\n'
    return '{\n%s\n}\n' % ',\n'.join(out)


# The field names of a row, as inserted -> (the names sorted, the row's text with a %s for each value): rows of a
# table share their fields (64 PORT rows of a switch, 8 fields each), so each layout is worked out once.
_ROW_LAYOUTS = {}
_ROW_LAYOUTS_MAX = 1024


def _fields_text(fields) -> str:
    if not fields:
        return '{}'
    names = tuple(fields)
    layout = _ROW_LAYOUTS.get(names)
    if layout is None:
        if len(_ROW_LAYOUTS) >= _ROW_LAYOUTS_MAX:
            _ROW_LAYOUTS.clear()
        order = sorted(names)
        layout = _ROW_LAYOUTS[names] = (order, '{\n%s\n    }' % ',\n'.join(
            ['      %s: %%s' % _quote(name).replace('%', '%%') for name in order]))
    order, text = layout
    try:
        return text % tuple([_quote(fields[name]) for name in order])
    except TypeError:  # a list (YANG leaf-list) is indented a level deeper; anything else is refused by _value
        return '{\n%s\n    }' % ',\n'.join(['      %s: %s' % (_quote(field), _value(value))
                                            for field, value in sorted(fields.items())])


def _value(value) -> str:
    """A field value as json.dumps(indent=2) writes it at field depth: a string, or a list (YANG leaf-list)."""
    if isinstance(value, list):
        if not value:
            return '[]'
        return '[\n%s\n      ]' % ',\n'.join('        %s' % _quote(item) for item in value)
    return _quote(value)


# ----------------------------------------------------------------------------------------------- FRR
def frr_context(model: SwitchModel) -> dict:
    bgp = model['bgp']
    neighbors = []
    for neighbor in bgp['neighbors']:
        neighbors.append(dict(neighbor, peer_group=PEER_GROUP[neighbor['direction']],
                              address=neighbor['ip'] if bgp['numbered'] else neighbor['interface']))
    used = {neighbor['peer_group'] for neighbor in neighbors}
    evpn = model['evpn']
    vrfs = [dict(vrf, sonic_name=vrf_name(vrf['name'])) for vrf in evpn['vrfs']] if evpn else []
    return {
        'name': model['name'],
        'bgp': bgp,
        'set_src': model['router_id'],  # Loopback0's address (LOOPBACK_ROUTER_ID)
        'neighbors': neighbors,
        'peer_groups': [group for group in ('UPLINK', 'DOWNLINK') if group in used],
        'evpn': evpn,
        'vrfs': vrfs,
    }


def local_users(model: SwitchModel) -> dict:
    """{name: {'hash', 'role'}} of the management users with their password hashes: SONiC keeps local users as Linux
    accounts, not in CONFIG_DB, so the deploy sets them itself (`useradd`, `chpasswd -e`); empty for a design view."""
    management = model.get('management') or {}
    return {user['name']: {'hash': user['hash'], 'role': user['role']}
            for user in management.get('users') or [] if user.get('hash')}


def render(model: SwitchModel, env: Environment) -> dict[str, str]:
    files = {
        'config_db.json': dump_config_db(config_db(model)),
        'frr.conf': env.get_template('sonic/frr.conf.j2').render(frr_context(model)),
    }
    users = local_users(model)
    if users:
        files['local-users.json'] = json.dumps(users, indent=2, sort_keys=True) + '\n'
    return files
