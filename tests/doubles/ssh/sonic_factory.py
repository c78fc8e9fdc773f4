"""The CONFIG_DB a SONiC switch runs before the first deploy, built the way SONiC builds it (our own code, from the
vendor's templates and scripts, sonic-buildimage @ 086b03bd70 and sonic-utilities @ 691b1bbc4f):

- `config-setup factory` (files/image_config/config-setup/config-setup generate_config): `sonic-cfggen -H -k <HwSKU>
  --preset t1` (the platform's default_sku, e.g. "ACS-SN5600 t1"): every port of the HwSKU's port map (port_config.ini)
  admin up with MTU 9100, Loopback0 10.1.0.1/32, a /31 and a BGP neighbour per port, hostname `sonic`, type
  LeafRouter, ASN 65100 (src/sonic-config-engine/config_samples.py generate_t1_sample_config), FLEX_COUNTER_TABLE ACL
  disabled (generate_common_config);
- `config qos reload` (files/build_templates/qos_config.j2 with the HwSKU's buffers_defaults_t1.j2): the buffer pools
  of the SKU and, since a factory switch has no DEVICE_NEIGHBOR, every port inactive: on NVIDIA SKUs the zero pool
  and zero profiles of buffers_defaults_objects.j2 (device/mellanox/.../ACS-MSN2700/buffers_defaults_objects.j2) with
  the per-port profile lists, PGs and queues; the AZURE QoS maps and schedulers;
- with DEVICE_METADATA default_pfcwd_status `enable`, `pfcwd start_default` (sonic-utilities pfcwd/main.py): no
  active port, so only PFC_WD|GLOBAL POLL_INTERVAL (200 ms per 32 ports, at most 1000).

Facts (device.json) choose the HwSKU: `hwsku`, `platform`, `asic_type`, `port_map` ([name, lanes, alias] in index
order), `port_speed` (Mb/s), `buffers` (the switch model's SKU buffer pools and profiles, bytes, as its
buffers_defaults_t1.j2 and the templates it uses define them), `tacacs_passkey` (the TACACS+ key an
operator sets out of band, docs/deploy.md).
"""

from __future__ import annotations

import zlib

DEFAULT_PORT_NUM = 32
DEFAULT_POLL_INTERVAL = 200
MAX_POLL_INTERVAL = 1000


def _mac(name):
    return '02:1c:73:%02x:%02x:%02x' % tuple(zlib.crc32(name.encode()).to_bytes(4, 'big')[1:])


def _ports(facts):
    """[name, lanes, alias] of every front-panel port: the HwSKU's port map, or 8-lane ports named by first lane."""
    if facts.get('port_map'):
        return [list(entry) for entry in facts['port_map']]
    return [[name, ','.join(str(lane) for lane in range(index * 8, index * 8 + 8)), 'etp%d' % (index + 1)]
            for index, name in enumerate(facts['ports'])]


def _strings(rows):
    return {name: {key: str(value) for key, value in fields.items()} for name, fields in rows.items()}


def _buffers(config, facts, ports):
    buffers = facts.get('buffers')
    if not buffers:
        return
    nvidia = facts.get('asic_type') == 'mellanox'
    pool_table, profiles = _strings(buffers['pools']), _strings(buffers['profiles'])
    lossy_pool = 'ingress_lossy_pool' if 'ingress_lossy_pool' in pool_table else 'ingress_lossless_pool'
    config['BUFFER_POOL'], config['BUFFER_PROFILE'] = pool_table, profiles
    if not nvidia:
        return
    # Inactive ports (no DEVICE_NEIGHBOR yet): the zero pool and profiles.
    pool_table['ingress_zero_pool'] = {'type': 'ingress', 'mode': 'static', 'size': '0'}
    profiles.update({
        'ingress_lossy_pg_zero_profile': {'pool': 'ingress_zero_pool', 'size': '0', 'static_th': '0'},
        'ingress_lossless_zero_profile': {'pool': 'ingress_lossless_pool', 'size': '0', 'dynamic_th': '-8'},
        'ingress_lossy_zero_profile': {'pool': lossy_pool, 'size': '0', 'dynamic_th': '-8'},
        'egress_lossless_zero_profile': {'pool': 'egress_lossless_pool', 'size': '0', 'dynamic_th': '-8'},
        'egress_lossy_zero_profile': {'pool': 'egress_lossy_pool', 'size': '0', 'dynamic_th': '-8'}})
    names = [name for name, _lanes, _alias in ports]
    config['BUFFER_PORT_INGRESS_PROFILE_LIST'] = {
        name: {'profile_list': 'ingress_lossless_zero_profile,ingress_lossy_zero_profile'} for name in names}
    config['BUFFER_PORT_EGRESS_PROFILE_LIST'] = {
        name: {'profile_list': 'egress_lossless_zero_profile,egress_lossy_zero_profile'} for name in names}
    config['BUFFER_PG'] = {'%s|0' % name: {'profile': 'ingress_lossy_pg_zero_profile'} for name in names}
    config['BUFFER_QUEUE'] = {}
    for name in names:
        config['BUFFER_QUEUE'].update({'%s|0-2' % name: {'profile': 'egress_lossy_zero_profile'},
                                       '%s|3-4' % name: {'profile': 'egress_lossless_zero_profile'},
                                       '%s|5-6' % name: {'profile': 'egress_lossy_zero_profile'}})


def _qos(config):
    """qos_config.j2's AZURE maps and schedulers (no per-port rows: no port is active yet)."""
    dscp = {str(value): '1' for value in range(64)}
    dscp.update({'3': '3', '4': '4', '8': '0', '46': '5', '48': '6'})
    config['DSCP_TO_TC_MAP'] = {'AZURE': dscp}
    config['TC_TO_PRIORITY_GROUP_MAP'] = {'AZURE': {str(tc): pg for tc, pg in enumerate('00034007')}}
    config['TC_TO_QUEUE_MAP'] = {'AZURE': {str(tc): str(tc) for tc in range(8)}}
    config['MAP_PFC_PRIORITY_TO_QUEUE'] = {'AZURE': {str(priority): str(priority) for priority in range(8)}}
    config['SCHEDULER'] = {'scheduler.0': {'type': 'DWRR', 'weight': '14'}, 'scheduler.1': {'type': 'DWRR', 'weight': '15'}}
    config['WRED_PROFILE'] = {'AZURE_LOSSLESS': {
        'wred_green_enable': 'true', 'wred_yellow_enable': 'true', 'wred_red_enable': 'true', 'ecn': 'ecn_all',
        'green_max_threshold': '2097152', 'green_min_threshold': '1048576', 'yellow_max_threshold': '2097152',
        'yellow_min_threshold': '1048576', 'red_max_threshold': '2097152', 'red_min_threshold': '1048576',
        'green_drop_probability': '5', 'yellow_drop_probability': '5', 'red_drop_probability': '5'}}


def config_db(facts):
    """The factory CONFIG_DB of the switch these facts describe."""
    ports = _ports(facts)
    speed = str(facts.get('port_speed', 400000))
    config = {
        'DEVICE_METADATA': {'localhost': {
            'hostname': 'sonic', 'hwsku': facts['hwsku'], 'platform': facts['platform'], 'mac': _mac(facts['name']),
            'type': 'LeafRouter', 'bgp_asn': '65100', 'buffer_model': 'traditional', 'default_pfcwd_status': 'enable'}},
        'PORT': {name: {'admin_status': 'up', 'alias': alias, 'index': str(index + 1), 'lanes': lanes, 'mtu': '9100',
                        'speed': speed} for index, (name, lanes, alias) in enumerate(ports)},
        'LOOPBACK_INTERFACE': {'Loopback0': {}, 'Loopback0|10.1.0.1/32': {}},
        'INTERFACE': {}, 'BGP_NEIGHBOR': {},
        'FLEX_COUNTER_TABLE': {'ACL': {'FLEX_COUNTER_STATUS': 'disable', 'POLL_INTERVAL': '10000'}},
        'MGMT_PORT': {'eth0': {'admin_status': 'up', 'alias': 'eth0'}},
        'MGMT_INTERFACE': {'eth0|192.0.2.10/24': {'gwaddr': '192.0.2.1'}},
        'FEATURE': {'bgp': {'state': 'enabled'}, 'lldp': {'state': 'enabled'}},
    }
    for count, (name, _lanes, _alias) in enumerate(ports):
        local, peer = '10.0.%d.%d' % (2 * count // 256, 2 * count % 256), '10.0.%d.%d' % (2 * count // 256, 2 * count % 256 + 1)
        config['INTERFACE'][name] = {}
        config['INTERFACE']['%s|%s/31' % (name, local)] = {}
        config['BGP_NEIGHBOR'][peer] = {'rrclient': '0', 'name': 'ARISTA%02dT2' % (count + 1), 'local_addr': local,
                                        'nhopself': '0', 'holdtime': '180', 'asn': '65200', 'keepalive': '60'}
    _buffers(config, facts, ports)
    _qos(config)
    multiply = max(1, (len(ports) - 1) // DEFAULT_PORT_NUM + 1)
    config['PFC_WD'] = {'GLOBAL': {'POLL_INTERVAL': str(min(DEFAULT_POLL_INTERVAL * multiply, MAX_POLL_INTERVAL))}}
    if facts.get('tacacs_passkey'):
        config['TACPLUS'] = {'global': {'passkey': facts['tacacs_passkey']}}
    return config
