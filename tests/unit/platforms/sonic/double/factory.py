"""The CONFIG_DB a SONiC switch runs when it boots for the first time, built the way the image builds it (our own code,
from the vendor's scripts and templates, sonic-buildimage @ 086b03bd70):

- files/image_config/config-setup/config-setup: without minigraph and without ZTP, `generate_config factory` runs
  `sonic-cfggen -H -k <HwSKU> --preset <preset>` with the platform's default_sku (e.g. "ACS-SN5600 t1") and loads the
  result (`reload_configdb`, i.e. `config reload`, which writes /etc/sonic/init_cfg.json first and the file on top of
  it: sonic-utilities config/main.py reload).
- src/sonic-config-engine/config_samples.py generate_t1_sample_config: hostname `sonic`, type LeafRouter, ASN 65100,
  Loopback0 10.1.0.1/32, every port of the HwSKU's port map admin up with MTU 9100, a /31 per port and a BGP
  neighbour per port (the first half `ARISTAnnT2` in AS 65200, the second half `ARISTAnnT0` in AS 64001 + n);
  generate_common_config: FLEX_COUNTER_TABLE ACL disabled. No QoS maps, no buffer tables, no PFC_WD, no
  DEVICE_NEIGHBOR, no management address (eth0 asks DHCP).
- files/build_templates/init_cfg.json.j2: DEVICE_METADATA buffer_model `dynamic` where the build sets
  SONIC_BUFFER_MODEL=dynamic (platform/mellanox/rules.mk; slave.mk exports it as default_buffer_model), otherwise
  `traditional`; default_bgp_status `up`; default_pfcwd_status `disable` (ENABLE_PFCWD_ON_START is not set in
  rules/config); timezone UTC; the CRM thresholds, the FLEX_COUNTER_TABLE groups, BGP_DEVICE_GLOBAL and FEATURE (of
  which the double keeps bgp and lldp). AUTO_TECHSUPPORT, SYSLOG_CONFIG, PASSW_HARDENING, BANNER_MESSAGE,
  SYSTEM_DEFAULTS, KDUMP and NTP of init_cfg are not modelled.
- MGMT_PORT|eth0 is not in the preset either; the double has it so that a deploy's MGMT_INTERFACE rows have the port
  their leafref names (sonic-mgmt_interface.yang); a real switch gets it from its minigraph or a person's
  `config interface ip add eth0` (unverified for the factory case).

Facts (device.json) choose the HwSKU: `hwsku`, `platform`, `asic_type` (mellanox, broadcom), `port_map`
([name, lanes, alias] in index order), `port_speed` (Mb/s), `tacacs_passkey` (the TACACS+ key an operator sets out of
band, docs/deploy.md), `mgmt_address` (eth0's DHCP lease, in MGMT_INTERFACE only when a test sets it).
"""

from __future__ import annotations

import zlib

# platform/mellanox/rules.mk: SONIC_BUFFER_MODEL=dynamic; every other platform keeps the traditional model.
DYNAMIC_BUFFER_VENDORS = ('mellanox',)
INIT_FLEX_COUNTERS = ('PORT', 'PORT_PHY_ATTR', 'RIF', 'QUEUE', 'PFCWD', 'PG_WATERMARK', 'PG_DROP', 'QUEUE_WATERMARK',
                      'BUFFER_POOL_WATERMARK', 'PORT_BUFFER_DROP')
CRM_RESOURCES = ('ipv4_route', 'ipv6_route', 'ipv4_nexthop', 'ipv6_nexthop', 'ipv4_neighbor', 'ipv6_neighbor',
                 'nexthop_group_member', 'nexthop_group', 'acl_table', 'acl_group', 'acl_entry', 'acl_counter',
                 'fdb_entry', 'snat_entry', 'dnat_entry', 'ipmc_entry', 'mpls_inseg', 'mpls_nexthop')


def _mac(name):
    return '02:1c:73:%02x:%02x:%02x' % tuple(zlib.crc32(name.encode()).to_bytes(4, 'big')[1:])


def _ports(facts):
    """[name, lanes, alias] of every front-panel port: the HwSKU's port map, or 8-lane ports named by first lane."""
    if facts.get('port_map'):
        return [list(entry) for entry in facts['port_map']]
    return [[name, ','.join(str(lane) for lane in range(index * 8, index * 8 + 8)), 'etp%d' % (index + 1)]
            for index, name in enumerate(facts['ports'])]


def init_cfg(facts):
    """/etc/sonic/init_cfg.json of the image (the tables the double models)."""
    config = {
        'DEVICE_METADATA': {'localhost': {
            'buffer_model': 'dynamic' if facts.get('asic_type') in DYNAMIC_BUFFER_VENDORS else 'traditional',
            'default_bgp_status': 'up', 'default_pfcwd_status': 'disable', 'timezone': 'UTC'}},
        'CRM': {'Config': dict({'polling_interval': '300'}, **{
            '%s_%s' % (resource, field): value for resource in CRM_RESOURCES
            for field, value in (('threshold_type', 'percentage'), ('low_threshold', '70'), ('high_threshold', '85'))})},
        'FLEX_COUNTER_TABLE': dict({'ACL': {'FLEX_COUNTER_STATUS': 'enable', 'POLL_INTERVAL': '10000'}},
                                   **{group: {'FLEX_COUNTER_STATUS': 'enable'} for group in INIT_FLEX_COUNTERS}),
        'BGP_DEVICE_GLOBAL': {'STATE': {'tsa_enabled': 'false', 'wcmp_enabled': 'false',
                                        'idf_isolation_state': 'unisolated'}},
        'FEATURE': {name: {'state': 'enabled', 'auto_restart': 'enabled', 'delayed': 'False',
                           'has_global_scope': 'True', 'has_per_asic_scope': 'False', 'high_mem_alert': 'disabled',
                           'support_syslog_rate_limit': 'true'} for name in ('bgp', 'lldp')},
    }
    return config


def preset_t1(facts):
    """`sonic-cfggen -H -k <HwSKU> --preset t1` (config_samples.py generate_t1_sample_config)."""
    ports = _ports(facts)
    speed = str(facts.get('port_speed', 400000))
    config = {
        'DEVICE_METADATA': {'localhost': {
            'hostname': 'sonic', 'hwsku': facts['hwsku'], 'platform': facts['platform'], 'mac': _mac(facts['name']),
            'type': 'LeafRouter', 'bgp_asn': '65100'}},
        'PORT': {name: {'admin_status': 'up', 'alias': alias, 'index': str(index + 1), 'lanes': lanes, 'mtu': '9100',
                        'speed': speed} for index, (name, lanes, alias) in enumerate(ports)},
        'LOOPBACK_INTERFACE': {'Loopback0': {}, 'Loopback0|10.1.0.1/32': {}},
        'INTERFACE': {}, 'BGP_NEIGHBOR': {},
        'FLEX_COUNTER_TABLE': {'ACL': {'FLEX_COUNTER_STATUS': 'disable', 'POLL_INTERVAL': '10000'}},
    }
    half = len(ports) // 2
    for count, (name, _lanes, _alias) in enumerate(ports):
        local = '10.0.%d.%d' % (2 * count // 256, 2 * count % 256)
        peer = '10.0.%d.%d' % (2 * count // 256, 2 * count % 256 + 1)
        config['INTERFACE'][name] = {}
        config['INTERFACE']['%s|%s/31' % (name, local)] = {}
        config['BGP_NEIGHBOR'][peer] = {
            'rrclient': '0', 'name': 'ARISTA%02d%s' % (1 + count % half, 'T2' if count < half else 'T0'),
            'local_addr': local, 'nhopself': '0', 'holdtime': '180',
            'asn': str(65200 if count < half else 64001 + count - half), 'keepalive': '60'}
    return config


def merged(base, extra):
    """sonic-cfggen -j A -j B: B's rows over A's, field by field (deep_update)."""
    result = {table: {key: dict(fields) for key, fields in rows.items()} for table, rows in base.items()}
    for table, rows in extra.items():
        for key, fields in rows.items():
            result.setdefault(table, {}).setdefault(key, {}).update(fields)
    return result


def config_db(facts):
    """The CONFIG_DB of the switch these facts describe, as config-setup leaves it at first boot."""
    config = merged(init_cfg(facts), preset_t1(facts))
    config['MGMT_PORT'] = {'eth0': {'admin_status': 'up', 'alias': 'eth0'}}
    if facts.get('mgmt_address'):
        config['MGMT_INTERFACE'] = {'eth0|%s' % facts['mgmt_address']: {}}
    if facts.get('tacacs_passkey'):
        config['TACPLUS'] = {'global': {'passkey': facts['tacacs_passkey']}}
    return config
