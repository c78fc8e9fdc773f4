"""buffermgrd, the SONiC daemon that turns a port's speed, cable length and lossless priorities into buffers.

It starts with the model DEVICE_METADATA.buffer_model names when swss starts (sonic-buildimage
dockers/docker-orchagent/buffermgrd.sh: `dynamic` runs it with the ASIC table, anything else with the SKU's
pg_profile_lookup.ini) and keeps that model until swss restarts (sonic-utilities config/main.py `qos reload`: "Buffer
calculation model updated, restarting swss is required to take effect").

Traditional model (sonic-swss @ e6b0c5b5d cfgmgr/buffermgr.cpp doSpeedUpdateTask), per port, when its PORT speed or
admin_status, its CABLE_LENGTH or its PORT_QOS_MAP pfc_enable changes: the profile name is
`pg_lossless_<speed>_<cable>_profile` and the PG key the lossless priorities as ranges (`3-4`);
- admin down on Mellanox or Barefoot (ASIC_VENDOR): a lossless PG whose profile has that name is deleted from
  CONFIG_DB BUFFER_PG ("Removing PG ... which is administrative down"); another name is left ("Not default profile");
- otherwise, without a lookup row for (speed, cable) nothing changes ("No PG profile configured for speed ... and cable
  length ..."); with one, the profile is created from the row unless it exists ("Reusing existing profile") and the
  PG is set to it unless it already points there.

Dynamic model (cfgmgr/buffer_mgr_dyn.cpp, buffer_headroom_mellanox.lua): CONFIG_DB keeps `BUFFER_PG|<port>|3-4`
with profile NULL; for every admin-up port the daemon computes the PG's headroom from speed, cable length and the
LOSSLESS_TRAFFIC_PATTERN and publishes it in APPL_DB (BUFFER_PG_TABLE, BUFFER_PROFILE_TABLE); an admin-down port's
lossless PGs are removed there and come back at admin up, recomputed. The double computes the headroom with the
tests' own transcription of the Lua (buffer_headroom_lua.py, also the reference of test_headroom_algorithm.py) and the ASIC values of
platform/mellanox/asic_table.j2; the shared pools' sizes (buffer_pool_mellanox.lua) are not published.
"""

from __future__ import annotations

import os
import time

from tests.doubles.ssh import state

RECLAIMING_VENDORS = ('mellanox', 'barefoot')  # buffermgr.cpp: admin-down PG reclaim
# config/main.py _per_namespace_swss_ready: `config reload` without -f waits until swss has been active this long
SWSS_READY_S = 120


def model(directory):
    """The model buffermgrd runs (read at its start)."""
    return state.read_json(state.path(directory, 'buffers', 'buffermgrd.json'), {}).get('model', 'traditional')


def restart(directory, up_since=None):
    """swss (re)starts (at `up_since`, now by default): buffermgrd.sh picks the model CONFIG_DB names now."""
    config = state.read_json(state.path(directory, 'db', 'CONFIG_DB.json'), {})
    chosen = config.get('DEVICE_METADATA', {}).get('localhost', {}).get('buffer_model') or 'traditional'
    state.write_json(state.path(directory, 'buffers', 'buffermgrd.json'), {'model': chosen})
    state.write_json(state.path(directory, 'buffers', 'swss.json'),
                     {'active_since': time.time() if up_since is None else up_since})


def stop(directory):
    """`config reload` stopped sonic.target: swss is not active until the reload starts it again."""
    state.write_json(state.path(directory, 'buffers', 'swss.json'), {'active_since': None})


def _active_since(directory):
    return state.read_json(state.path(directory, 'buffers', 'swss.json'), {}).get('active_since')


def swss_active(directory):
    return _active_since(directory) is not None


def swss_ready(directory):
    """sonic-utilities config/main.py _swss_ready: swss is active and has been for more than SWSS_READY_S."""
    since = _active_since(directory)
    return since is not None and time.time() - since > SWSS_READY_S


def _ranges(pfc_enable):
    """buffermgr.cpp generateIdListFromMap: consecutive priorities as one range (`3-4`), others alone."""
    ids = sorted({int(item) for item in str(pfc_enable).split(',') if item.strip().isdigit()})
    ranges, start = [], None
    for index, value in enumerate(ids):
        if start is None:
            start = value
        if index + 1 == len(ids) or ids[index + 1] != value + 1:
            ranges.append(str(start) if start == value else '%d-%d' % (start, value))
            start = None
    return ranges


def _port_inputs(config, port):
    fields = config.get('PORT', {}).get(port, {})
    cable = next((lengths.get(port) for lengths in config.get('CABLE_LENGTH', {}).values() if port in lengths), None)
    pfc = config.get('PORT_QOS_MAP', {}).get(port, {}).get('pfc_enable')
    return fields.get('speed'), fields.get('admin_status', 'down'), cable, pfc


def after_commit(directory, before, now):
    """buffermgrd's reaction to a CONFIG_DB change (traditional model: CONFIG_DB rows; dynamic: APPL_DB only)."""
    if model(directory) != 'traditional':
        return
    facts = state.device(directory)
    changed = [port for port in now.get('PORT', {}) if _port_inputs(before, port) != _port_inputs(now, port)]
    if not changed:
        return
    with state.locked(directory):
        config = state.read_json(state.path(directory, 'db', 'CONFIG_DB.json'), {})
        for port in changed:
            _speed_update(config, port, facts)
        state.write_json(state.path(directory, 'db', 'CONFIG_DB.json'), config)


def _speed_update(config, port, facts):
    speed, admin, cable, pfc = _port_inputs(config, port)
    if not cable or cable == '0m' or pfc is None or speed is None:
        return
    name = 'pg_lossless_%s_%s_profile' % (speed, cable)
    pgs = config.setdefault('BUFFER_PG', {})
    if admin != 'up' and facts.get('asic_type') in RECLAIMING_VENDORS:
        for pg in _ranges(pfc):
            key = '%s|%s' % (port, pg)
            if pgs.get(key, {}).get('profile') == name:
                del pgs[key]
        return
    row = lookup(facts).get((int(speed), int(cable.rstrip('m'))))
    if row is None:
        return
    profiles = config.setdefault('BUFFER_PROFILE', {})
    if name not in profiles:
        mode = config.get('BUFFER_POOL', {}).get('ingress_lossless_pool', {}).get('mode')
        if not mode:
            return  # "PG lossless pool is not yet created": retried later
        profile = {'pool': 'ingress_lossless_pool', 'xon': str(row['xon']), 'xoff': str(row['xoff']),
                   'size': str(row['size']), '%s_th' % mode: str(row.get('threshold', 0))}
        if row.get('xon_offset'):
            profile['xon_offset'] = str(row['xon_offset'])
        profiles[name] = profile
    for pg in _ranges(pfc):
        pgs['%s|%s' % (port, pg)] = {'profile': name}


# pg_profile_lookup.ini of the NVIDIA HwSKUs (sonic-buildimage @ 086b03bd70 device/mellanox/<platform>/<HwSKU>/):
# [speed Mb/s, cable m, size, xon, xoff, threshold]. The Dell SKUs' rows are in their switch models (headroom_lookup).
NVIDIA_LOOKUP = {
    'ACS-SN5600': [
        [10000, 5, 64512, 19456, 45056, 0], [25000, 5, 67584, 19456, 48128, 0], [40000, 5, 75776, 19456, 57344, 0],
        [50000, 5, 82944, 19456, 63488, 0], [100000, 5, 133120, 19456, 113664, 0], [200000, 5, 150528, 19456, 131072, 0],
        [400000, 5, 250880, 19456, 231424, 0], [800000, 5, 304128, 38912, 257024, 0], [10000, 40, 65536, 19456, 46080, 0],
        [25000, 40, 71680, 19456, 52224, 0], [40000, 40, 81920, 19456, 62464, 0], [50000, 40, 89088, 19456, 69632, 0],
        [100000, 40, 146432, 19456, 126976, 0], [200000, 40, 177152, 19456, 157696, 0],
        [400000, 40, 303104, 19456, 283648, 0], [800000, 40, 410624, 38912, 362496, 0],
        [10000, 300, 75776, 19456, 56320, 0], [25000, 300, 96256, 19456, 76800, 0], [40000, 300, 120832, 19456, 101376, 0],
        [50000, 300, 138240, 19456, 118784, 0], [100000, 300, 244736, 19456, 225280, 0],
        [200000, 300, 374784, 19456, 355328, 0], [400000, 300, 697344, 19456, 677888, 0],
        [800000, 300, 1198080, 38912, 1150976, 0]],
    'ACS-MSN4700': [
        [10000, 5, 52224, 19456, 32768, 0], [25000, 5, 52224, 19456, 32768, 0], [40000, 5, 53248, 19456, 33792, 0],
        [50000, 5, 53248, 19456, 33792, 0], [100000, 5, 53248, 19456, 33792, 0], [200000, 5, 55296, 19456, 35840, 0],
        [400000, 5, 86016, 37888, 38912, 0], [10000, 40, 53248, 19456, 33792, 0], [25000, 40, 55296, 19456, 35840, 0],
        [40000, 40, 57344, 19456, 37888, 0], [50000, 40, 58368, 19456, 38912, 0], [100000, 40, 63488, 19456, 44032, 0],
        [200000, 40, 74752, 19456, 55296, 0], [400000, 40, 124928, 37888, 77824, 0], [10000, 300, 60416, 19456, 40960, 0],
        [25000, 300, 73728, 19456, 54272, 0], [40000, 300, 86016, 19456, 66560, 0], [50000, 300, 95232, 19456, 75776, 0],
        [100000, 300, 137216, 19456, 117760, 0], [200000, 300, 223232, 19456, 203776, 0],
        [400000, 300, 420864, 37888, 373760, 0]],
}


def lookup(facts):
    """{(speed Mb/s, cable m): row} of the SKU's pg_profile_lookup.ini: NVIDIA_LOOKUP, or the device fact `pg_lookup`
    ([speed Mb/s, cable m, size, xon, xoff, threshold, xon_offset])."""
    rows = facts.get('pg_lookup') or NVIDIA_LOOKUP.get(facts.get('hwsku'), [])
    return {(int(row[0]), int(row[1])): {'size': row[2], 'xon': row[3], 'xoff': row[4], 'threshold': row[5],
                                         'xon_offset': row[6] if len(row) > 6 else None} for row in rows}


# -- dynamic model: APPL_DB ------------------------------------------------------------------------------------
# platform/mellanox/asic_table.j2 per HwSKU family: (ASIC key, cell size, pipeline latency KB, MAC/PHY delay KB,
# peer response time KB).
ASIC_TABLE = {'spectrum3': ('MELLANOX-SPECTRUM-3', 144, 19, 0.8, 3.8), 'spectrum4': ('MELLANOX-SPECTRUM-4', 192, 19, 0.8, 3.8)}


def appl_db(directory, config):
    """APPL_DB BUFFER_PG_TABLE / BUFFER_PROFILE_TABLE entries of the dynamic model's lossless PGs."""
    if model(directory) != 'dynamic':
        return {}
    facts = state.device(directory)
    asic = ASIC_TABLE.get(facts.get('asic_family', ''))
    if asic is None:
        return {}
    from tests.unit.platforms.sonic.double.buffer_headroom_lua import lua_headroom  # the tests' own transcription
    pattern = config.get('LOSSLESS_TRAFFIC_PATTERN', {}).get('AZURE', {})
    over_subscribe = config.get('DEFAULT_LOSSLESS_BUFFER_PARAMETER', {}).get('AZURE', {}).get('over_subscribe_ratio')
    shared = bool(over_subscribe and over_subscribe != '0') or bool(
        config.get('BUFFER_POOL', {}).get('ingress_lossless_pool', {}).get('xoff'))
    db = {}
    for key, fields in config.get('BUFFER_PG', {}).items():
        port, _sep, pgs = key.partition('|')
        if fields.get('profile') not in (None, 'NULL'):
            continue
        speed, admin, cable, _pfc = _port_inputs(config, port)
        if admin != 'up' or not cable or not speed:
            continue  # reclaimed while down, recomputed at admin up
        lanes = len(str(config['PORT'][port].get('lanes', '')).split(','))
        mtu = int(config['PORT'][port].get('mtu', 9100))
        xon, xoff, size = lua_headroom(asic[0], asic[1], asic[2], asic[3], asic[4], int(speed), int(cable.rstrip('m')),
                                       mtu, lanes, int(pattern.get('mtu', 1024)),
                                       int(pattern.get('small_packet_percentage', 100)), shared)
        name = 'pg_lossless_%s_%s_profile' % (speed, cable) + ('' if mtu == 9100 else '_mtu%d' % mtu)
        db['BUFFER_PROFILE_TABLE:' + name] = {'pool': 'ingress_lossless_pool', 'xon': str(xon), 'xoff': str(xoff),
                                              'size': str(size), 'dynamic_th': '0'}
        db['BUFFER_PG_TABLE:%s:%s' % (port, pgs)] = {'profile': name}
    return db


def exists(directory):
    return os.path.exists(state.path(directory, 'buffers', 'buffermgrd.json'))
