# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""SONiC renderer: golden files, CONFIG_DB format rules from the SONiC YANG models, the lossless chain
(DSCP -> TC -> PG -> queue, PFC, buffers, ECN, watchdog) and real FRR acceptance of every frr.conf.

The format rules are the schema facts of the SONiC YANG models (sonic-buildimage src/sonic-yang-models) and
the lossless rules of docs/validation.md (C05-C08, C10, C12, C13, C22, C25). `test_checks_bite` proves the checkers
reject broken configurations, so a passing check means something.
"""

import copy
import ipaddress
import json
import os
import re

import pytest
import yaml
from hypothesis import given, settings, strategies as st

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import (
    design_from_file, design_from_intent)
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms import get_platform
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms.sonic import render as sonic
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_device, render_model
from tests.unit.utils.frr import assert_frr_accepts
from tests.unit.utils.golden import assert_golden

UNIT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
INTENTS = os.path.join(UNIT, 'fixtures', 'intents')
SMALL = os.path.join(INTENTS, 'sonic_small.yml')
UNNUMBERED = os.path.join(INTENTS, 'sonic_unnumbered.yml')

# ----------------------------------------------------------------------------------------------- YANG facts
PFC_LIST = re.compile(r'^([0-7](,[0-7])*)?$')           # sonic-port-qos-map.yang pfc_enable / pfcwd_sw_enable
CABLE = re.compile(r'^[0-9]+m$')                         # sonic-cable-length.yang
WRED_NAME = re.compile(r'^[a-zA-Z0-9][-a-zA-Z0-9_]*$')   # sonic-wred-profile.yang, <= 32 chars
VLAN_NAME = re.compile(r'^Vlan(409[0-5]|40[0-8][0-9]|[1-3][0-9]{3}|[1-9][0-9]{2}|[1-9][0-9]|[2-9])$')
VRF_NAME = re.compile(r'^Vrf[a-zA-Z0-9_-]+$')
PORT_NAME = re.compile(r'^Ethernet[0-9]+$')
ID_OR_RANGE = re.compile(r'^([0-9]+)(-([0-9]+))?$')
DEVICE_TYPES = {'ToRRouter', 'LeafRouter', 'SpineRouter', 'BackEndToRRouter', 'BackEndLeafRouter'}
ECN_MODES = {'ecn_none', 'ecn_green', 'ecn_yellow', 'ecn_red', 'ecn_green_yellow', 'ecn_green_red',
             'ecn_yellow_red', 'ecn_all'}
# YANG leaf-lists are JSON lists in config_db.json: sonic-hash.yang hash-field enum.
HASH_FIELDS = {'IN_PORT', 'DST_MAC', 'SRC_MAC', 'ETHERTYPE', 'VLAN_ID', 'IP_PROTOCOL', 'DST_IP', 'SRC_IP', 'L4_DST_PORT',
               'L4_SRC_PORT', 'INNER_DST_MAC', 'INNER_SRC_MAC', 'INNER_ETHERTYPE', 'INNER_IP_PROTOCOL', 'INNER_DST_IP',
               'INNER_SRC_IP', 'INNER_L4_DST_PORT', 'INNER_L4_SRC_PORT', 'IPV6_FLOW_LABEL'}
LEAF_LISTS = {('SWITCH_HASH', 'ecmp_hash'): HASH_FIELDS, ('SWITCH_HASH', 'lag_hash'): HASH_FIELDS}
PORT_KEYED = ('PORT', 'PORT_QOS_MAP', 'PFC_WD', 'DEVICE_NEIGHBOR', 'INTERFACE', 'BUFFER_PG', 'BUFFER_QUEUE', 'QUEUE')
MAP_TABLES = {'dscp_to_tc_map': 'DSCP_TO_TC_MAP', 'tc_to_pg_map': 'TC_TO_PRIORITY_GROUP_MAP',
              'tc_to_queue_map': 'TC_TO_QUEUE_MAP', 'pfc_to_queue_map': 'MAP_PFC_PRIORITY_TO_QUEUE',
              'pfc_to_pg_map': 'PFC_PRIORITY_TO_PRIORITY_GROUP_MAP'}
MAP_RANGES = {'DSCP_TO_TC_MAP': (63, 15), 'TC_TO_PRIORITY_GROUP_MAP': (15, 7), 'TC_TO_QUEUE_MAP': (15, 9),
              'MAP_PFC_PRIORITY_TO_QUEUE': (7, 7), 'PFC_PRIORITY_TO_PRIORITY_GROUP_MAP': (7, 7)}


def _int_in(value, low, high):
    return isinstance(value, str) and value.isdigit() and low <= int(value) <= high


def _split_port_key(key):
    port, _unused, rest = key.partition('|')
    return port, rest


def _ids(text):
    match = ID_OR_RANGE.match(text)
    if not match:
        return None
    low = int(match.group(1))
    high = int(match.group(3)) if match.group(3) else low
    return set(range(low, high + 1)) if low <= high else None


def format_problems(db):
    """CONFIG_DB facts from the SONiC YANG models and CLI (sonic-yang-models, sonic-utilities pfcwd; C13, C25)."""
    problems = []
    add = problems.append
    for table, rows in db.items():
        for key, fields in rows.items():
            for field, value in fields.items():
                if (table, field) in LEAF_LISTS:
                    if not isinstance(value, list) or not set(value) <= LEAF_LISTS[table, field]:
                        add('%s|%s.%s: %r is not a list of %s' % (table, key, field, value, LEAF_LISTS[table, field]))
                elif not isinstance(value, str):
                    add('%s|%s.%s: CONFIG_DB values are strings, got %r' % (table, key, field, value))
    for table in PORT_KEYED:
        for key in db.get(table, {}):
            port, _unused = _split_port_key(key)
            if ',' in key or (port not in ('global', 'GLOBAL') and not PORT_NAME.match(port)):
                add('%s|%s: one port per key (YANG/GCU)' % (table, key))
    for port, fields in db.get('PORT', {}).items():
        if not _int_in(fields.get('mtu'), 68, 9216):
            add('PORT|%s.mtu %r outside 68..9216' % (port, fields.get('mtu')))
        if not _int_in(fields.get('speed'), 1000, 1600000) or int(fields['speed']) % 1000:
            add('PORT|%s.speed %r is not a Mb/s value of 1G..1.6T' % (port, fields.get('speed')))
        if fields.get('admin_status') not in ('up', 'down'):
            add('PORT|%s.admin_status %r' % (port, fields.get('admin_status')))
    metadata = db.get('DEVICE_METADATA', {}).get('localhost', {})
    if metadata.get('buffer_model') not in ('traditional', 'dynamic'):
        add('DEVICE_METADATA.buffer_model %r' % metadata.get('buffer_model'))
    if metadata.get('docker_routing_config_mode') not in ('separated', 'unified', 'split', 'split-unified'):
        add('DEVICE_METADATA.docker_routing_config_mode %r' % metadata.get('docker_routing_config_mode'))
    if metadata.get('default_pfcwd_status') not in ('enable', 'disable'):
        add('DEVICE_METADATA.default_pfcwd_status %r' % metadata.get('default_pfcwd_status'))
    if metadata.get('type') not in DEVICE_TYPES:
        add('DEVICE_METADATA.type %r' % metadata.get('type'))
    if not _int_in(metadata.get('bgp_asn'), 1, 4294967295):
        add('DEVICE_METADATA.bgp_asn %r' % metadata.get('bgp_asn'))
    for table, (key_max, value_max) in MAP_RANGES.items():
        for name, mapping in db.get(table, {}).items():
            for source, target in mapping.items():
                if not (_int_in(source, 0, key_max) and _int_in(target, 0, value_max)):
                    add('%s|%s: %r -> %r outside 0..%d -> 0..%d' % (table, name, source, target, key_max, value_max))
    for key, fields in db.get('PORT_QOS_MAP', {}).items():
        for field in ('pfc_enable', 'pfcwd_sw_enable'):
            if field in fields and not PFC_LIST.match(fields[field]):
                add('PORT_QOS_MAP|%s.%s %r does not match ([0-7](,[0-7])*)?' % (key, field, fields[field]))
        for field, table in MAP_TABLES.items():
            if field in fields and fields[field] not in db.get(table, {}):
                add('PORT_QOS_MAP|%s.%s -> missing %s|%s' % (key, field, table, fields[field]))
        if key != 'global' and key not in db.get('PORT', {}):
            add('PORT_QOS_MAP|%s: port not in PORT' % key)
    for name, lengths in db.get('CABLE_LENGTH', {}).items():
        for port, value in lengths.items():
            if not CABLE.match(value):
                add('CABLE_LENGTH|%s.%s %r must be <metres>m' % (name, port, value))
    for name, fields in db.get('WRED_PROFILE', {}).items():
        if len(name) > 32 or not WRED_NAME.match(name):
            add('WRED_PROFILE|%s: name must be <= 32 chars [a-zA-Z0-9][-a-zA-Z0-9_]*' % name)
        if fields.get('ecn', 'ecn_none') not in ECN_MODES:
            add('WRED_PROFILE|%s.ecn %r' % (name, fields.get('ecn')))
        for colour in ('green', 'yellow', 'red'):
            low, high = fields.get('%s_min_threshold' % colour), fields.get('%s_max_threshold' % colour)
            if low is not None and high is not None and (not low.isdigit() or not high.isdigit() or int(low) > int(high)):
                add('WRED_PROFILE|%s: %s min %r > max %r' % (name, colour, low, high))
            probability = fields.get('%s_drop_probability' % colour)
            if probability is not None and not _int_in(probability, 0, 100):
                add('WRED_PROFILE|%s.%s_drop_probability %r' % (name, colour, probability))
    for name, fields in db.get('SCHEDULER', {}).items():
        if fields.get('type', 'WRR') not in ('DWRR', 'WRR', 'STRICT'):
            add('SCHEDULER|%s.type %r' % (name, fields.get('type')))
        if 'weight' in fields and not _int_in(fields['weight'], 1, 100):
            add('SCHEDULER|%s.weight %r outside 1..100' % (name, fields['weight']))
    for key, fields in db.get('QUEUE', {}).items():
        _unused, queue = _split_port_key(key)
        if _ids(queue) is None:
            add('QUEUE|%s: queue id or range' % key)
        if 'scheduler' in fields and fields['scheduler'] not in db.get('SCHEDULER', {}):
            add('QUEUE|%s.scheduler -> missing SCHEDULER|%s' % (key, fields['scheduler']))
        if 'wred_profile' in fields and fields['wred_profile'] not in db.get('WRED_PROFILE', {}):
            add('QUEUE|%s.wred_profile -> missing WRED_PROFILE|%s' % (key, fields['wred_profile']))
    pools = db.get('BUFFER_POOL', {})
    for name, fields in pools.items():
        if fields.get('type') not in ('ingress', 'egress', 'both') or fields.get('mode') not in ('static', 'dynamic'):
            add('BUFFER_POOL|%s: type/mode %r/%r' % (name, fields.get('type'), fields.get('mode')))
        # the dynamic model computes the shared pools: no size (buffers_defaults_objects.j2 dynamic_mode)
        computed = metadata.get('buffer_model') == 'dynamic' and name != 'egress_lossless_pool' and 'size' not in fields
        if not computed and not fields.get('size', '').isdigit():
            add('BUFFER_POOL|%s.size %r' % (name, fields.get('size')))
    profiles = db.get('BUFFER_PROFILE', {})
    for name, fields in profiles.items():
        if fields.get('pool') not in pools or not fields.get('size', '').isdigit():
            add('BUFFER_PROFILE|%s: needs size and an existing pool' % name)
        threshold = fields.get('dynamic_th')
        if threshold is not None and not (re.match(r'^-?[0-9]$', threshold) and -8 <= int(threshold) <= 7):
            add('BUFFER_PROFILE|%s.dynamic_th %r outside -8..7' % (name, fields.get('dynamic_th')))
    for table, limit in (('BUFFER_PG', 7), ('BUFFER_QUEUE', 15)):
        for key, fields in db.get(table, {}).items():
            _unused, ids = _split_port_key(key)
            members = _ids(ids)
            if members is None or max(members) > limit:
                add('%s|%s: id must be 0..%d or a range' % (table, key, limit))
            null = table == 'BUFFER_PG' and fields.get('profile') == 'NULL' and metadata.get('buffer_model') == 'dynamic'
            if fields.get('profile') not in profiles and not null:  # sonic-buffer-pg.yang: NULL, buffermgrd computes
                add('%s|%s.profile -> missing BUFFER_PROFILE|%s' % (table, key, fields.get('profile')))
    watchdog = db.get('PFC_WD', {})
    poll = watchdog.get('GLOBAL', {}).get('POLL_INTERVAL')
    if watchdog and not _int_in(poll, 100, 1000):
        add('PFC_WD|GLOBAL.POLL_INTERVAL %r outside 100..1000 ms' % poll)
    for port, fields in watchdog.items():
        if port == 'GLOBAL':
            continue
        if fields.get('action', 'drop') not in ('drop', 'forward', 'alert'):
            add('PFC_WD|%s.action %r' % (port, fields.get('action')))
        for field, high in (('detection_time', 5000), ('restoration_time', 60000)):
            value = fields.get(field)
            if not _int_in(value, 100, high):
                add('PFC_WD|%s.%s %r outside 100..%d ms' % (port, field, value, high))
            elif _int_in(poll, 1, 1000) and int(value) < int(poll):
                add('PFC_WD|%s.%s %s below POLL_INTERVAL %s' % (port, field, value, poll))
    vlans = db.get('VLAN', {})
    for name, fields in vlans.items():
        if not VLAN_NAME.match(name) or fields.get('vlanid') != name[4:]:
            add('VLAN|%s: key must be Vlan<vlanid 2..4094> (vlanid %r)' % (name, fields.get('vlanid')))
        if 'mtu' in fields and not _int_in(fields['mtu'], 1, 9216):
            add('VLAN|%s.mtu %r' % (name, fields['mtu']))
    for key, fields in db.get('VLAN_MEMBER', {}).items():
        vlan, port = _split_port_key(key)
        if vlan not in vlans or port not in db.get('PORT', {}) or fields.get('tagging_mode') not in ('tagged', 'untagged'):
            add('VLAN_MEMBER|%s: needs an existing VLAN, port and tagging_mode' % key)
    for key in db.get('VLAN_INTERFACE', {}):
        vlan, prefix = _split_port_key(key)
        if vlan not in vlans:
            add('VLAN_INTERFACE|%s: VLAN missing' % key)
        fields = db['VLAN_INTERFACE'].get(vlan, {})
        if fields.get('vrf_name') is not None and fields['vrf_name'] not in db.get('VRF', {}):
            add('VLAN_INTERFACE|%s.vrf_name -> missing VRF' % vlan)
        if prefix:
            ipaddress.IPv4Interface(prefix)
    for name, fields in db.get('VRF', {}).items():
        if not VRF_NAME.match(name) or len(name) > 15:
            add('VRF|%s: name must be Vrf[a-zA-Z0-9_-]+ and fit a 15-char netdev name' % name)
        if 'vni' in fields and not _int_in(fields['vni'], 0, 16777215):
            add('VRF|%s.vni %r' % (name, fields['vni']))
    tunnels = db.get('VXLAN_TUNNEL', {})
    for name, fields in tunnels.items():
        ipaddress.IPv4Address(fields['src_ip'])
    for key, fields in db.get('VXLAN_TUNNEL_MAP', {}).items():
        tunnel, _unused = _split_port_key(key)
        if tunnel not in tunnels:
            add('VXLAN_TUNNEL_MAP|%s: tunnel missing' % key)
        if not VLAN_NAME.match(fields.get('vlan', '')) or fields['vlan'] not in vlans:
            add('VXLAN_TUNNEL_MAP|%s.vlan %r must be an existing Vlan<id>' % (key, fields.get('vlan')))
        if not _int_in(fields.get('vni'), 1, 16777215):
            add('VXLAN_TUNNEL_MAP|%s.vni %r' % (key, fields.get('vni')))
    for name, fields in db.get('VXLAN_EVPN_NVO', {}).items():
        if fields.get('source_vtep') not in tunnels:
            add('VXLAN_EVPN_NVO|%s.source_vtep -> missing VXLAN_TUNNEL' % name)
    for key in db.get('INTERFACE', {}):
        port, prefix = _split_port_key(key)
        if port not in db.get('PORT', {}) or (prefix and port not in db['INTERFACE']):
            add('INTERFACE|%s: port and its bare INTERFACE entry must exist' % key)
        if prefix:
            ipaddress.IPv4Interface(prefix)
    return problems


def _row(table, port, member):
    """The row of a `<port>|<id or range>` keyed table that covers `member`, or None."""
    for key, fields in table.items():
        key_port, ids = _split_port_key(key)
        if key_port == port and member in (_ids(ids) or ()):
            return fields
    return None


def chain_problems(db, roce_dscp=26, cnp_dscp=48):
    """Lossless chain per port: C05-C08 (DSCP -> TC -> PG -> queue, PFC, buffers, ECN), C10 (CNP), C12, C22."""
    problems = []
    add = problems.append
    profiles, pools = db.get('BUFFER_PROFILE', {}), db.get('BUFFER_POOL', {})
    ports = [key for key in db.get('PORT_QOS_MAP', {}) if key != 'global']
    if not ports:
        return ['no port has PORT_QOS_MAP']
    if db['PORT_QOS_MAP'].get('global', {}).get('dscp_to_tc_map') is None:
        add('PORT_QOS_MAP|global has no dscp_to_tc_map')
    for port in ports:
        qos = db['PORT_QOS_MAP'][port]
        try:
            tc = db['DSCP_TO_TC_MAP'][qos['dscp_to_tc_map']][str(roce_dscp)]
            pg = db['TC_TO_PRIORITY_GROUP_MAP'][qos['tc_to_pg_map']][tc]
            queue = db['TC_TO_QUEUE_MAP'][qos['tc_to_queue_map']][tc]
            pfc_queue = db['MAP_PFC_PRIORITY_TO_QUEUE'][qos['pfc_to_queue_map']][tc]
        except KeyError as exc:
            add('%s: lossless chain for DSCP %d is broken at %s' % (port, roce_dscp, exc))
            continue
        enabled = set(filter(None, qos.get('pfc_enable', '').split(',')))
        if tc not in enabled or pg not in enabled:
            add('%s: DSCP %d -> TC %s -> PG %s but pfc_enable is %r (C05)' % (port, roce_dscp, tc, pg, qos.get('pfc_enable')))
        if pfc_queue != queue:
            add('%s: PFC priority %s pauses queue %s, traffic uses queue %s (C05)' % (port, tc, pfc_queue, queue))
        if 'pfc_to_pg_map' in qos and db['PFC_PRIORITY_TO_PRIORITY_GROUP_MAP'][qos['pfc_to_pg_map']].get(tc) != pg:
            add('%s: PFC priority %s does not map to PG %s (C05)' % (port, tc, pg))
        if not enabled <= set(filter(None, qos.get('pfcwd_sw_enable', '').split(','))):
            add('%s: pfcwd_sw_enable does not cover pfc_enable (C12)' % port)
        pg_row = _row(db.get('BUFFER_PG', {}), port, int(pg))
        profile = profiles.get((pg_row or {}).get('profile'), {})
        dynamic = db.get('DEVICE_METADATA', {}).get('localhost', {}).get('buffer_model') == 'dynamic'
        if dynamic and (pg_row or {}).get('profile') == 'NULL':
            # buffermgrd computes the headroom from the port's speed, its cable and the lossless traffic pattern
            if not db.get('LOSSLESS_TRAFFIC_PATTERN', {}).get('AZURE', {}).get('mtu', '').isdigit():
                add('%s: dynamic PG %s without LOSSLESS_TRAFFIC_PATTERN (C06)' % (port, pg))
        elif not profile.get('xoff', '0').isdigit() or int(profile.get('xoff', '0')) <= 0:
            add('%s: BUFFER_PG for PG %s has no lossless profile with xoff > 0 (C06)' % (port, pg))
        queue_row = _row(db.get('BUFFER_QUEUE', {}), port, int(queue))
        egress = profiles.get((queue_row or {}).get('profile'), {})
        if 'lossless' not in egress.get('pool', '') or pools.get(egress.get('pool'), {}).get('type') != 'egress':
            add('%s: BUFFER_QUEUE for queue %s is not on the egress lossless pool (C07)' % (port, queue))
        wred = db.get('WRED_PROFILE', {}).get(db.get('QUEUE', {}).get('%s|%s' % (port, queue), {}).get('wred_profile'))
        if not wred or wred.get('ecn', 'ecn_none') == 'ecn_none' or wred.get('wred_green_enable') != 'true':
            add('%s: queue %s has no ECN-marking WRED profile (C08)' % (port, queue))
        cnp_tc = db['DSCP_TO_TC_MAP'][qos['dscp_to_tc_map']].get(str(cnp_dscp))
        cnp_queue = db['TC_TO_QUEUE_MAP'][qos['tc_to_queue_map']].get(cnp_tc)
        cnp_row = db.get('QUEUE', {}).get('%s|%s' % (port, cnp_queue), {})
        if cnp_tc in enabled or db.get('SCHEDULER', {}).get(cnp_row.get('scheduler'), {}).get('type') != 'STRICT' \
                or 'wred_profile' in cnp_row:
            add('%s: CNP DSCP %d must be a strict, lossy, non-WRED class (C10)' % (port, cnp_dscp))
        if 'detection_time' not in db.get('PFC_WD', {}).get(port, {}):
            add('%s: no PFC watchdog (C12)' % port)
        if port not in db.get('DEVICE_NEIGHBOR', {}):
            add('%s: not in DEVICE_NEIGHBOR, so SONiC tools treat it as inactive (C22)' % port)
        if port not in db.get('CABLE_LENGTH', {}).get('AZURE', {}):
            add('%s: no CABLE_LENGTH (C06: buffermgrd needs one)' % port)
    return problems


# ----------------------------------------------------------------------------------------------- fixtures
@pytest.fixture(scope='module')
def small():
    return design_from_file(SMALL)


@pytest.fixture(scope='module')
def unnumbered():
    return design_from_file(UNNUMBERED)


def switches(design):
    return [name for name in design.device_names() if design.nodes[name].role != 'host']


def rendered(design):
    return {name: render_device(design, name) for name in switches(design)}


SMALL_SWITCHES = ['leaf001', 'leaf002', 'leaf003', 'leaf004', 'spine001', 'spine002']


# ----------------------------------------------------------------------------------------------- golden files
def test_small_fabric_devices(small):
    assert switches(small) == SMALL_SWITCHES


@pytest.mark.parametrize('device', SMALL_SWITCHES)
def test_golden_small(small, device):
    files = render_device(small, device)
    assert sorted(files) == sorted(get_platform('sonic').config_files)
    for name, content in files.items():
        assert_golden('%s/%s/%s' % (small.name, device, name), content, platform='sonic')


@pytest.mark.parametrize('device', ['leaf001', 'spine001', 'sspine001'])
def test_golden_unnumbered(unnumbered, device):
    for name, content in render_device(unnumbered, device).items():
        assert_golden('%s/%s/%s' % (unnumbered.name, device, name), content, platform='sonic')


# ----------------------------------------------------------------------------------------------- format
@pytest.mark.parametrize('fixture', ['small', 'unnumbered'])
def test_config_db_is_canonical_json_and_yang_clean(fixture, request):
    design = request.getfixturevalue(fixture)
    for device, files in rendered(design).items():
        text = files['config_db.json']
        db = json.loads(text)
        assert text == json.dumps(db, sort_keys=True, indent=2) + '\n', device
        assert format_problems(db) == [], device


@pytest.mark.parametrize('fixture', ['small', 'unnumbered'])
def test_lossless_chain(fixture, request):
    design = request.getfixturevalue(fixture)
    for device, files in rendered(design).items():
        db = json.loads(files['config_db.json'])
        assert chain_problems(db) == [], device
        # Every port of the model carries the lossless class.
        ports = {item['name'] for item in design.device(device)['interfaces']}
        assert set(db['PORT']) == ports
        assert set(db['PORT_QOS_MAP']) == ports | {'global'}
        assert set(db['PFC_WD']) == ports | {'GLOBAL'}
        assert set(db['CABLE_LENGTH']['AZURE']) == ports == set(db['DEVICE_NEIGHBOR'])


@pytest.mark.parametrize('fixture', ['small', 'unnumbered'])
def test_frr_accepts_every_switch(fixture, request):
    design = request.getfixturevalue(fixture)
    for files in rendered(design).values():
        assert_frr_accepts(files['frr.conf'])


def test_dump_matches_json_dumps_on_edge_cases():
    tables = {'B': {}, 'A': {'k|1': {}, 'k"2': {'z': 'é', 'a': 'x\ny'}}, 'C': {'10': {'2': '1', '10': '0'}},
              # rows with the same fields in either order, '%' in names and values, a YANG leaf-list beside strings
              'P': {'a': {'x%s': '1', 'b': '%d'}, 'b': {'b': '2', 'x%s': '%s'}, 'c': {'b': '3', 'x%s': '4'}},
              'L': {'GLOBAL': {'z': 'q', 'ecmp_hash': ['A', 'B']}, 'OTHER': {'z': 'r', 'ecmp_hash': 's'}}}
    assert sonic.dump_config_db(tables) == json.dumps(tables, sort_keys=True, indent=2) + '\n'
    assert sonic.dump_config_db({}) == '{}\n'
    with pytest.raises(TypeError):
        sonic.dump_config_db({'T': {'k': {'f': 1}}})  # CONFIG_DB values must be strings


def test_id_ranges():
    assert sonic.id_ranges([3]) == ['3']
    assert sonic.id_ranges([4, 3]) == ['3-4']
    assert sonic.id_ranges([0, 1, 2, 4, 5, 6, 7]) == ['0-2', '4-7']
    assert sonic.id_ranges([]) == []


# ----------------------------------------------------------------------------------------------- semantics
def test_metadata_and_roles(small, unnumbered):
    for design, device, kind in ((small, 'leaf001', 'ToRRouter'), (small, 'spine001', 'LeafRouter'),
                                 (unnumbered, 'sspine001', 'SpineRouter')):
        model = design.device(device)
        meta = json.loads(render_model(model)['config_db.json'])['DEVICE_METADATA']['localhost']
        sku = model['hardware']['sonic']
        # the SKU vendor's image model: NVIDIA's dynamic (platform/mellanox/rules.mk), the others traditional
        model_name = 'dynamic' if model['hardware']['vendor'] == 'nvidia' else 'traditional'
        assert meta == {'hostname': device, 'bgp_asn': str(model['asn']), 'type': kind,
                        'buffer_model': model_name, 'docker_routing_config_mode': 'split-unified',
                        'default_pfcwd_status': 'disable', 'platform': sku['platform'], 'hwsku': sku['hwsku']}


def test_numbered_leaf_tables(small):
    model = small.device('leaf001')
    db = json.loads(render_model(model)['config_db.json'])
    uplinks = [item for item in model['interfaces'] if item['link_role'] == 'leaf_spine']
    hosts = [item for item in model['interfaces'] if item['link_role'] == 'host_leaf']
    assert set(db['INTERFACE']) == {item['name'] for item in uplinks} | {'%s|%s' % (item['name'], item['ipv4'])
                                                                         for item in uplinks}
    assert db['LOOPBACK_INTERFACE'] == {'Loopback0': {}, 'Loopback0|%s/32' % model['router_id']: {},
                                        'Loopback1': {}, 'Loopback1|%s/32' % model['evpn']['vtep_ip']: {}}
    # SN5600 (ACS-SN5600): 400G hosts on a 2 x 400G breakout of cage 1, lanes 0-3, alias etp1a, RS FEC.
    assert db['PORT'][hosts[0]['name']] == {'admin_status': 'up', 'description': hosts[0]['description'],
                                            'mtu': '9100', 'speed': '400000', 'lanes': '0,1,2,3', 'alias': 'etp1a',
                                            'index': '1', 'fec': 'rs'}
    assert db['BREAKOUT_CFG'] == {'Ethernet0': {'brkout_mode': '2x400G[200G,100G,50G,40G,25G,10G]'},
                                  'Ethernet8': {'brkout_mode': '2x400G[200G,100G,50G,40G,25G,10G]'}}
    assert db['DEVICE_NEIGHBOR'][hosts[0]['name']] == {'name': hosts[0]['peer'], 'port': 'eth1'}
    # Rail 0: routed network rail0 (VRF gpu) only; its hosts are untagged members.
    assert db['VLAN'] == {'Vlan100': {'vlanid': '100', 'mtu': '9100', 'admin_status': 'up'},
                          'Vlan4000': {'vlanid': '4000', 'mtu': '9100', 'admin_status': 'up'}}
    assert db['VLAN_MEMBER'] == {'Vlan100|%s' % item['name']: {'tagging_mode': 'untagged'} for item in hosts}
    assert db['VRF'] == {'Vrfgpu': {'vni': '50000'}}
    assert db['VLAN_INTERFACE'] == {
        'Vlan100': {'vrf_name': 'Vrfgpu', 'mac_addr': model['evpn']['gateway_mac']},
        'Vlan100|10.100.0.1/24': {}, 'Vlan4000': {'vrf_name': 'Vrfgpu'}}
    assert db['VXLAN_TUNNEL'] == {'vtep': {'src_ip': model['evpn']['vtep_ip']}}
    assert db['VXLAN_TUNNEL_MAP'] == {'vtep|map_10100_Vlan100': {'vlan': 'Vlan100', 'vni': '10100'},
                                      'vtep|map_50000_Vlan4000': {'vlan': 'Vlan4000', 'vni': '50000'}}
    assert db['VXLAN_EVPN_NVO'] == {'nvo': {'source_vtep': 'vtep'}}
    # A leaf of the L2-only rail 1 has no SVI, no VRF.
    rail1 = [name for name in switches(small) if small.nodes[name].role == 'leaf' and small.nodes[name].rail == 1]
    other = json.loads(render_device(small, rail1[0])['config_db.json'])
    assert set(other['VLAN']) == {'Vlan101'} and 'VLAN_INTERFACE' not in other and 'VRF' not in other


def test_anycast_gateway_is_identical_on_every_leaf(small):
    gateways = set()
    rail0 = [name for name in switches(small) if small.nodes[name].role == 'leaf' and small.nodes[name].rail == 0]
    assert len(rail0) == 2
    for device in rail0:
        db = json.loads(render_device(small, device)['config_db.json'])
        gateways.add((db['VLAN_INTERFACE']['Vlan100']['mac_addr'],
                      tuple(key for key in db['VLAN_INTERFACE'] if '|' in key)))
    assert len(gateways) == 1


def test_spine_has_no_overlay_tables(small):
    db = json.loads(render_device(small, 'spine001')['config_db.json'])
    for table in ('VLAN', 'VLAN_MEMBER', 'VLAN_INTERFACE', 'VRF', 'VXLAN_TUNNEL', 'VXLAN_TUNNEL_MAP', 'VXLAN_EVPN_NVO'):
        assert table not in db
    assert set(db['LOOPBACK_INTERFACE']) == {'Loopback0', 'Loopback0|10.254.0.5/32'}


def test_qos_objects_follow_the_model(small):
    model = small.device('leaf001')
    qos = model['qos']
    db = json.loads(render_model(model)['config_db.json'])
    assert db['DSCP_TO_TC_MAP']['AIFABRIC'] == {str(dscp): str(tc) for dscp, tc in qos['dscp_to_tc'].items()}
    assert db['DSCP_TO_TC_MAP']['AIFABRIC']['26'] == '3' and db['DSCP_TO_TC_MAP']['AIFABRIC']['48'] == '6'
    idle = {'AIFABRIC_TC%d' % tc: {'type': 'DWRR', 'weight': '1'} for tc in (1, 2, 4, 5, 7)}
    assert db['SCHEDULER'] == dict(idle, AIFABRIC_TC3={'type': 'DWRR', 'weight': '50'},
                                   AIFABRIC_TC0={'type': 'DWRR', 'weight': '45'}, AIFABRIC_CNP={'type': 'STRICT'})
    # ECN thresholds of NVIDIA's RoCE profile at every speed: 150 KB / 1.5 MB, probability 100.
    assert list(db['WRED_PROFILE']) == ['AIFABRIC_LOSSLESS_400G']
    wred = db['WRED_PROFILE']['AIFABRIC_LOSSLESS_400G']
    assert (wred['ecn'], wred['green_min_threshold'], wred['green_max_threshold'], wred['green_drop_probability']) == \
        ('ecn_all', '150000', '1500000', '100')
    port = model['interfaces'][0]['name']
    assert [db['QUEUE']['%s|%d' % (port, queue)]['scheduler'] for queue in range(8)] == \
        ['AIFABRIC_TC%d' % queue for queue in range(6)] + ['AIFABRIC_CNP', 'AIFABRIC_TC7']
    assert {key for key in db['QUEUE'] if 'wred_profile' in db['QUEUE'][key]} == \
        {'%s|3' % item['name'] for item in model['interfaces']}
    assert db['PFC_WD'][port] == {'action': 'drop', 'detection_time': '200', 'restoration_time': '200'}
    assert db['PFC_WD']['GLOBAL'] == {'POLL_INTERVAL': '100'}


def test_buffers_follow_the_model(small):
    """NVIDIA SKU, dynamic model: the shared pools without size, the SKU's buffer as the egress lossless pool, lossless
    PGs NULL (buffermgrd computes them from speed, cable and LOSSLESS_TRAFFIC_PATTERN), no lossless PG profile."""
    model = small.device('leaf001')
    db = json.loads(render_model(model)['config_db.json'])
    buffer = model['buffer']
    assert buffer['sku']['dynamic'] and db['DEVICE_METADATA']['localhost']['buffer_model'] == 'dynamic'
    assert db['BUFFER_POOL']['ingress_lossless_pool'] == {'type': 'ingress', 'mode': 'dynamic'}
    assert db['BUFFER_POOL']['egress_lossless_pool']['size'] == str(buffer['egress_lossless_pool_bytes'])
    assert not [name for name in db['BUFFER_PROFILE'] if name.startswith('pg_lossless_')]
    assert db['LOSSLESS_TRAFFIC_PATTERN'] == {'AZURE': {'mtu': '1024', 'small_packet_percentage': '100'}}
    assert db['DEFAULT_LOSSLESS_BUFFER_PARAMETER'] == {'AZURE': {'default_dynamic_th': '0'}}
    for item in model['interfaces']:
        assert db['BUFFER_PG']['%s|3' % item['name']] == {'profile': 'NULL'}
        assert db['BUFFER_PG']['%s|0' % item['name']] == {'profile': 'AIFABRIC_INGRESS_LOSSY'}
        assert db['CABLE_LENGTH']['AZURE'][item['name']] == '%dm' % item['cable_length_m']


def test_traditional_buffers_follow_the_model(unnumbered):
    """Broadcom SKU, traditional model: one profile per (speed, cable) named as buffermgrd names it, so it reuses ours
    (sonic-swss cfgmgr/buffermgr.cpp)."""
    model = unnumbered.device('leaf001')
    db = json.loads(render_model(model)['config_db.json'])
    assert db['DEVICE_METADATA']['localhost']['buffer_model'] == 'traditional' and 'LOSSLESS_TRAFFIC_PATTERN' not in db
    for profile in model['buffer']['profiles']:
        assert db['BUFFER_PROFILE'][profile['name']]['xoff'] == str(profile['xoff'])
    for item in model['interfaces']:
        assert item['buffer_profile'] == 'pg_lossless_%d_%s_profile' % (
            int(db['PORT'][item['name']]['speed']), db['CABLE_LENGTH']['AZURE'][item['name']])
        assert db['BUFFER_PG']['%s|3-4' % item['name']] == {'profile': item['buffer_profile']}


def test_vendor_specific_tables(unnumbered):
    leaf = json.loads(render_device(unnumbered, 'leaf001')['config_db.json'])    # Tomahawk 5
    spine = json.loads(render_device(unnumbered, 'spine001')['config_db.json'])  # Spectrum-4
    assert 'PFC_PRIORITY_TO_PRIORITY_GROUP_MAP' not in leaf
    assert all('pfc_to_pg_map' not in row for row in leaf['PORT_QOS_MAP'].values())
    assert spine['PFC_PRIORITY_TO_PRIORITY_GROUP_MAP'] == {'AIFABRIC': {'3': '3', '4': '4'}}
    # Shared headroom pool on the Broadcom table-driven ASIC only: the SKU's (Dell-Z9864f-O64
    # buffers_defaults_t1.j2: 33 374 584 B), or the design's headroom where that needs more.
    model = unnumbered.device('leaf001')
    assert leaf['BUFFER_POOL']['ingress_lossless_pool']['xoff'] == str(max(33374584, model['buffer']['headroom_bytes']))
    assert 'xoff' not in spine['BUFFER_POOL']['ingress_lossless_pool']


def test_two_priorities_and_watchdog_settings(unnumbered):
    db = json.loads(render_device(unnumbered, 'spine001')['config_db.json'])
    port = 'Ethernet0'
    assert db['PORT_QOS_MAP'][port]['pfc_enable'] == '3,4' == db['PORT_QOS_MAP'][port]['pfcwd_sw_enable']
    assert db['BUFFER_PG']['%s|3-4' % port] == {'profile': 'NULL'}  # Spectrum-4: computed by the switch
    assert db['BUFFER_QUEUE']['%s|3-4' % port] == {'profile': 'AIFABRIC_EGRESS_LOSSLESS'}
    assert set(key for key in db['BUFFER_QUEUE'] if key.startswith(port + '|')) == \
        {'%s|0-2' % port, '%s|3-4' % port, '%s|5-7' % port}
    # The lossless share (50 %) is split over the two lossless classes; the default class keeps 50 %.
    assert {name: row.get('weight') for name, row in db['SCHEDULER'].items()} == {
        'AIFABRIC_TC3': '25', 'AIFABRIC_TC4': '25', 'AIFABRIC_TC0': '46', 'AIFABRIC_TC1': '1', 'AIFABRIC_TC2': '1',
        'AIFABRIC_TC5': '1', 'AIFABRIC_TC7': '1', 'AIFABRIC_CNP': None}
    assert db['QUEUE']['%s|4' % port] == {'scheduler': 'AIFABRIC_TC4', 'wred_profile': 'AIFABRIC_LOSSLESS_400G'}
    assert db['PFC_WD'][port] == {'action': 'forward', 'detection_time': '400', 'restoration_time': '800'}
    assert db['PFC_WD']['GLOBAL'] == {'POLL_INTERVAL': '200'}


def test_unnumbered_interfaces_and_bgp(unnumbered):
    model = unnumbered.device('leaf001')
    files = render_model(model)
    db = json.loads(files['config_db.json'])
    uplinks = [item['name'] for item in model['interfaces'] if item['link_role'] == 'leaf_spine']
    assert db['INTERFACE'] == {name: {'ipv6_use_link_local_only': 'enable'} for name in uplinks}
    for name in uplinks:
        assert ' neighbor %s interface peer-group UPLINK\n' % name in files['frr.conf']
    # the bgp container runs no bfdd with bgpcfgd (supervisord.conf.common.j2): no BFD line, the BGP timers detect
    assert model['bgp']['bfd'] and ' bfd\n' not in files['frr.conf'] and 'bfd profile' not in files['frr.conf']
    assert ' neighbor UPLINK timers 3 9\n' in files['frr.conf']
    spine = render_device(unnumbered, 'spine001')['frr.conf']
    assert ' neighbor UPLINK activate\n' in spine and ' neighbor DOWNLINK activate\n' in spine
    assert 'advertise-all-vni' not in spine


def test_frr_evpn_route_targets_and_vrf(small):
    model = small.device('leaf001')
    text = render_model(model)['frr.conf']
    for vlan in model['evpn']['vlans']:
        block = '  vni %d\n   rd %s\n   route-target import %s\n   route-target export %s\n  exit-vni\n' % (
            vlan['vni'], vlan['rd'], vlan['route_target'], vlan['route_target'])
        assert block in text
    assert 'vrf Vrfgpu\n vni 50000\nexit-vrf\n' in text
    assert 'router bgp %d vrf Vrfgpu\n' % model['asn'] in text
    assert '  route-target import 65000:50000\n' in text and '  advertise ipv4 unicast\n' in text
    assert '  maximum-paths %d\n' % model['bgp']['maximum_paths'] in text
    for prefix in model['bgp']['advertise']:
        assert '  network %s\n' % prefix in text
    for neighbor in model['bgp']['neighbors']:
        assert ' neighbor %s remote-as %d\n' % (neighbor['ip'], neighbor['remote_asn']) in text


@pytest.mark.parametrize('fixture', ['small', 'unnumbered'])
def test_frr_programs_routes_through_fpm(fixture, request):
    """zebra hands routes to fpmsyncd (APPL_DB -> ASIC) only with an FPM address; the file must not rely on the
    bgp container's start-up script appending it (docker_init.sh does so only in some routing-config modes)."""
    design = request.getfixturevalue(fixture)
    for device, files in rendered(design).items():
        head = files['frr.conf'].split('router bgp', 1)[0]
        assert '\nfpm address 127.0.0.1\n' in head, device
        assert '\nno fpm use-next-hop-groups\n' in head, device


def test_model_after_json_round_trip_renders_the_same(small):
    """Ansible passes models as JSON: int map keys become strings; the output must not change."""
    for device in ('leaf001', 'spine001'):
        model = small.device(device)
        assert render_model(json.loads(json.dumps(model))) == render_model(model)


def test_watchdog_disabled_renders_no_pfc_wd():
    with open(SMALL, encoding='utf-8') as handle:
        intent = yaml.safe_load(handle)
    intent['lossless'] = {'pfc': {'watchdog': {'enabled': False}}}
    db = json.loads(render_device(design_from_intent(intent), 'leaf001')['config_db.json'])
    assert 'PFC_WD' not in db
    assert db['PORT_QOS_MAP']['Ethernet0']['pfc_enable'] == '3'


# ----------------------------------------------------------------------------------------------- checks bite
def _set(db, table, key, field, value):
    db[table][key][field] = value


def _remove_lossless_pg(db):
    for key in [key for key in db['BUFFER_PG'] if key.startswith('Ethernet0|3')]:
        del db['BUFFER_PG'][key]


def _multi_port_key(db):
    db['PORT_QOS_MAP']['Ethernet0,Ethernet4'] = db['PORT_QOS_MAP'].pop('Ethernet0')


BREAKAGES = {
    'pfc_enable semicolon': (lambda db: _set(db, 'PORT_QOS_MAP', 'Ethernet0', 'pfc_enable', '3;4'), 'pfc_enable', 'format'),
    'pfc priority 8': (lambda db: _set(db, 'PORT_QOS_MAP', 'Ethernet0', 'pfcwd_sw_enable', '8'), 'pfcwd_sw_enable', 'format'),
    'cable without m': (lambda db: _set(db, 'CABLE_LENGTH', 'AZURE', 'Ethernet0', '5'), 'CABLE_LENGTH', 'format'),
    'mtu too big': (lambda db: _set(db, 'PORT', 'Ethernet0', 'mtu', '9300'), 'mtu', 'format'),
    'speed in Gb/s': (lambda db: _set(db, 'PORT', 'Ethernet0', 'speed', '400'), 'speed', 'format'),
    'detection too short': (lambda db: _set(db, 'PFC_WD', 'Ethernet0', 'detection_time', '50'), 'detection_time', 'format'),
    'seconds not ms': (lambda db: _set(db, 'PFC_WD', 'Ethernet0', 'restoration_time', '0.2'), 'restoration_time', 'format'),
    'poll above detection': (lambda db: _set(db, 'PFC_WD', 'GLOBAL', 'POLL_INTERVAL', '1000'), 'below POLL_INTERVAL', 'format'),
    'vxlan map vlan number': (lambda db: _set(db, 'VXLAN_TUNNEL_MAP', 'vtep|map_10100_Vlan100', 'vlan', '100'), 'Vlan<id>', 'format'),
    'multi-port key': (_multi_port_key, 'one port per key', 'format'),
    'integer value': (lambda db: _set(db, 'PORT', 'Ethernet0', 'mtu', 9100), 'strings', 'format'),
    'long wred name': (lambda db: db['WRED_PROFILE'].__setitem__('X' * 33, {'ecn': 'ecn_all'}), '32 chars', 'format'),
    'dscp 26 lossy': (lambda db: _set(db, 'DSCP_TO_TC_MAP', 'AIFABRIC', '26', '1'), 'C05', 'chain'),
    'pfc off': (lambda db: _set(db, 'PORT_QOS_MAP', 'Ethernet0', 'pfc_enable', ''), 'C05', 'chain'),
    'no lossless pg': (_remove_lossless_pg, 'C06', 'chain'),
    'lossy egress': (lambda db: _set(db, 'BUFFER_QUEUE', 'Ethernet0|3', 'profile', 'AIFABRIC_EGRESS_LOSSY'), 'C07', 'chain'),
    'no ecn': (lambda db: _set(db, 'WRED_PROFILE', 'AIFABRIC_LOSSLESS_400G', 'ecn', 'ecn_none'), 'C08', 'chain'),
    'cnp weighted': (lambda db: _set(db, 'QUEUE', 'Ethernet0|6', 'scheduler', 'AIFABRIC_LOSSY'), 'C10', 'chain'),
    'no watchdog': (lambda db: db['PFC_WD'].pop('Ethernet0'), 'C12', 'chain'),
    'inactive port': (lambda db: db['DEVICE_NEIGHBOR'].pop('Ethernet0'), 'C22', 'chain'),
}


@pytest.mark.parametrize('breakage', sorted(BREAKAGES))
def test_checks_bite(small, breakage):
    good = json.loads(render_device(small, 'leaf001')['config_db.json'])
    assert format_problems(good) == [] and chain_problems(good) == []
    mutate, expected, checker = BREAKAGES[breakage]
    broken = copy.deepcopy(good)
    mutate(broken)
    problems = format_problems(broken) if checker == 'format' else chain_problems(broken)
    assert problems, 'the %s check accepted a broken config (%s)' % (checker, breakage)
    assert any(expected in problem for problem in problems), problems


_FIELDS = st.dictionaries(st.text(max_size=12), st.text(max_size=12), max_size=4)
_HASHES = st.dictionaries(st.text(min_size=1, max_size=12), _FIELDS, max_size=5)


@settings(max_examples=300, deadline=None)
@given(st.lists(_HASHES, min_size=1, max_size=3), st.booleans(), st.booleans())
def test_tables_as_sonic_db_dump_prints_them_read_back_whole(dumps, pretty, expiry):
    """Whatever the strings (quotes, backslashes, newlines, any letter): every key and field of one or several
    sonic-db-dump outputs read back as redis held them, compact or pretty (-y), with or without redisdl's ttl and
    expireat, the names the reading wanted from its '==' lines."""
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms.sonic.state import (  # pylint: disable=import-outside-toplevel
        parse_db_dump)
    encoder = json.JSONEncoder(indent=2, sort_keys=True) if pretty else json.JSONEncoder(separators=(',', ':'))
    extra = {'ttl': -0.001, 'expireat': 1764524951.6364665} if expiry else {}
    text = "== ports Ethernet0 Ethernet4\n== queues Ethernet0:3\n" + ''.join(
        encoder.encode({key: dict(extra, type='hash', value=fields) for key, fields in dump.items()}) for dump in dumps)
    groups, keys = parse_db_dump('test', {'rc': 0, 'stdout': text, 'stderr': ''})
    assert groups == {'ports': ['Ethernet0', 'Ethernet4'], 'queues': ['Ethernet0:3']}
    expected = {}
    for dump in dumps:
        expected.update(dump)
    assert keys == expected
