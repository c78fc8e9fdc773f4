# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Community SONiC: CONFIG_DB + FRR (docs/platform-sonic.md).

Limits from SONiC's YANG models (sonic-buildimage src/sonic-yang-models: sonic-pfcwd.yang, sonic-port.yang).
"""

from __future__ import annotations

import re

from .. import ModelSection, Platform, SecretForms, TimerRule, WatchdogRules

# The pools every SKU has, as sonic-swss buffermgrd and orchagent name them: the lossless PGs' ingress pool and the
# egress lossless pool (on Spectrum the SKU's whole buffer).
INGRESS_LOSSLESS_POOL = 'ingress_lossless_pool'
EGRESS_LOSSLESS_POOL = 'egress_lossless_pool'


def _check_buffers(buffers: dict):
    """Every name a SKU's buffer objects use is one of its own: profiles name pools, the PG/queue profiles and
    port profile lists name profiles; a shared headroom pool (xoff) sits on the ingress lossless pool only."""
    pools, profiles = buffers['pools'], buffers['profiles']
    for name, profile in profiles.items():
        if profile['pool'] not in pools:
            raise ValueError('buffer profile %s uses pool %s, which the SKU lacks' % (name, profile['pool']))
    used = [buffers['lossy_pg_profile'], buffers['lossless_queue_profile'], buffers['lossy_queue_profile']]
    for names in (buffers.get('port_profile_lists') or {}).values():
        used.extend(names)
    for name in used:
        if name not in profiles:
            raise ValueError('buffer profile %s is not among the SKU\'s profiles' % name)
    for name, pool in pools.items():
        if 'xoff' in pool and name != INGRESS_LOSSLESS_POOL:
            raise ValueError('pool %s has a shared headroom pool (xoff); only %s can' % (name, INGRESS_LOSSLESS_POOL))


def read_model_section(sonic: dict, model: dict) -> dict:
    """The `sonic` section of a switch model: the HWSKU's port map, one entry per cage with as many lanes as the
    model's ports have, as {name, lanes, alias}, and buffer objects that name only their own."""
    ports = model['ports']
    _check_buffers(sonic['buffers'])
    if len(sonic['ports']) != ports['count']:
        raise ValueError('sonic.ports lists %d ports, the model has %d' % (len(sonic['ports']), ports['count']))
    sonic = dict(sonic, ports=[{'name': name, 'lanes': [int(lane) for lane in lanes.split(',')], 'alias': alias}
                               for name, lanes, alias in sonic['ports']])
    for port in sonic['ports']:
        if len(port['lanes']) != ports['lanes']:
            raise ValueError('%s has %d lanes, the model says %d' % (port['name'], len(port['lanes']), ports['lanes']))
    return sonic


def port_name(model, cage, subport, lanes, mode):
    """The HWSKU port map's name of the cage's first lane, Ethernet<first lane of the sub-port>, with its lanes and
    alias (sonic-buildimage device/<vendor>/<platform>/<hwsku>/port_config.ini and platform.json)."""
    parent = model.section('sonic')['ports'][cage - 1]
    base = int(parent['name'][len('Ethernet'):])
    return {'name': 'Ethernet%d' % (base + subport * lanes), 'parent': parent['name'],
            'lane_ids': parent['lanes'][subport * lanes:(subport + 1) * lanes],
            'alias': parent['alias'] + ('abcdefgh'[subport] if mode.ports > 1 else '')}


# The vendors whose images build with the dynamic buffer model: NVIDIA (sonic-buildimage platform/mellanox/rules.mk
# SONIC_BUFFER_MODEL=dynamic, written into init_cfg.json's DEVICE_METADATA.buffer_model). There buffermgrd computes
# every lossless PG's headroom from the port's speed, cable length and the LOSSLESS_TRAFFIC_PATTERN
# (sonic-swss cfgmgr/buffer_headroom_mellanox.lua) and the shared pools' sizes from what is left
# (cfgmgr/buffer_pool_mellanox.lua), again after a port goes down and up; `config qos reload` uses it on mellanox and
# barefoot (sonic-utilities config/main.py vendors_supporting_dynamic_buffer).
DYNAMIC_BUFFER_VENDORS = ('nvidia',)
# buffer_pool_mellanox.lua's reserves: the management pool, egress mirror headroom per port that is up (none from
# SN6000 on, which reserve 32 MiB of modification descriptors instead).
MANAGEMENT_POOL_BYTES = 256 * 1024
EGRESS_MIRROR_BYTES = 10 * 1024
MODIFICATION_DESCRIPTORS_BYTES = 32 * 1024 * 1024


def sku_buffers(model):
    """The HWSKU's buffer objects (the model's sonic section: buffers_defaults_t1.j2 and the templates it uses) with the
    pools the design sizes named, whether the switch computes its headroom and pools itself (the dynamic model of
    the vendor's image), and where they come from; None without HWSKU data."""
    sonic = model.section('sonic')
    if not sonic:
        return None
    return (dict(sonic['buffers'], ingress_lossless_pool=INGRESS_LOSSLESS_POOL,
                 egress_lossless_pool=EGRESS_LOSSLESS_POOL, dynamic=model.vendor in DYNAMIC_BUFFER_VENDORS),
            '%s HWSKU defaults' % sonic['hwsku'])


def buffer_reserves(model, asic, port_lanes, lossy_pgs, lossless_ports):
    """What SONiC's Mellanox pool calculator (sonic-swss @ e6b0c5b5d cfgmgr/buffer_pool_mellanox.lua) takes from the
    SKU's buffer before the shared pools, beside the lossless PGs: per port that is up, a management PG of the
    pipeline latency (twice it less 1 KiB on 8-lane ports); per lossy PG of a port, the same again ("the implicitly
    reserved buffer for lossy profile applied on PG"); per port with a profile list, its egress lossy profile's size;
    per port that is up, 10 KiB of egress mirror headroom; the 256 KiB management pool; from SN6000 on 32 MiB of
    modification descriptors and no mirror headroom. Returns (bytes, what they are)."""
    latency = asic.pipeline_latency_bytes
    sonic = model.section('sonic')
    spc6 = any(int(number) >= 6000 for number in re.findall(r'sn(\d+)', sonic['platform']))

    def pg(lanes):
        return 2 * latency - 1024 if lanes == 8 else latency
    buffers = sonic['buffers']
    egress_lossy = buffers['profiles'][buffers['port_profile_lists']['egress'][-1]]['size'] \
        if buffers.get('port_profile_lists') else 0
    management_pgs = sum(pg(lanes) for lanes in port_lanes)
    lossy = sum(pg(lanes) * lossy_pgs for lanes in port_lanes[:lossless_ports])
    mirror = 0 if spc6 else EGRESS_MIRROR_BYTES * len(port_lanes)
    fixed = MANAGEMENT_POOL_BYTES + (MODIFICATION_DESCRIPTORS_BYTES if spc6 else 0)
    total = management_pgs + lossy + egress_lossy * lossless_ports + mirror + fixed
    return total, ('%d ports up: management PGs %d B, lossy PGs %d B, egress lossy profiles %d B, egress mirror %d B; '
                   'management pool%s %d B (sonic-swss buffer_pool_mellanox.lua)'
                   % (len(port_lanes), management_pgs, lossy, egress_lossy * lossless_ports, mirror,
                      ' and modification descriptors' if spc6 else '', fixed))


def hardware_facts(model):
    """DEVICE_METADATA platform and HWSKU of the switch."""
    sonic = model.section('sonic')
    return {'sonic': {'platform': sonic['platform'], 'hwsku': sonic['hwsku']} if sonic else None}


# Secrets in CONFIG_DB as sonic-buildimage's YANG models define them (src/sonic-yang-models/yang-models/):
# sonic-system-tacacs.yang at 01688967 (TACPLUS|global and TACPLUS_SERVER|<address> passkey), sonic-system-radius.yang
# at 8e991bc2 (RADIUS|global and RADIUS_SERVER|<address> passkey), sonic-snmp.yang at 0c4a8a4e (SNMP_COMMUNITY keyed by
# the community itself; SNMP_USER's authentication and encryption passwords). The bgp container's FRR prints FRR's.
SECRETS = SecretForms(
    fields=('passkey', 'SNMP_USER_AUTH_PASSWORD', 'SNMP_USER_ENCRYPTION_PASSWORD'),
    names=('SNMP_COMMUNITY',),
)


PLATFORM = Platform(
    name='sonic',
    title='SONiC (CONFIG_DB + FRR)',
    label='SONiC',
    rank=10,
    port_prefix='Ethernet',
    lossless_dataplane=True,
    # Community qos_config.j2 and the Dell module both cap lossless priorities at 2.
    max_lossless_priorities=2,
    mtu_max=9216,
    watchdog=WatchdogRules(detection=TimerRule(100, 5000), restoration=TimerRule(100, 60000),
                           poll_interval=TimerRule(100, 1000), actions=('drop', 'forward', 'alert')),
    config_files=('config_db.json', 'frr.conf'),
    uses_models=True,
    port_naming=port_name,
    sku_buffers=sku_buffers,
    buffer_reserves=buffer_reserves,
    # render.py LOOPBACK_ROUTER_ID, LOOPBACK_VTEP, vlan_name()
    loopback_interface='Loopback0',
    vtep_interface='Loopback1',
    svi_interface='Vlan{vlan}',
    hardware_facts=hardware_facts,
    model_section=ModelSection('switch-model.schema.yml', read_model_section, 'HWSKU ports and buffers'),
    # CONFIG_DB VRF keys are Vrf<name> and Linux interface names hold 15 characters (sonic-vrf.yang; netdevice(7)).
    vrf_name_max=12,
    neighbor_table='DEVICE_NEIGHBOR',
    # split-unified routing mode, FPM via dplane_fpm_nl, YANG-modelled keys and GCU: 202305 on.
    releases=('202305', '202311', '202405', '202411', '202505'),
    default_release='202405',
    # sonic-vm runs the whole SONiC image (sshd, sonic-utilities with GCU) that the deploy drives.
    lab_kinds=('sonic-vm', 'sonic-vs'),
    deploy_libraries=('netmiko',),
    secrets=SECRETS,
)
