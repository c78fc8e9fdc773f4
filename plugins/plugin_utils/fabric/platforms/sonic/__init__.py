# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Community SONiC: CONFIG_DB + FRR (docs/platform-sonic.md).

Limits from SONiC's YANG models (sonic-buildimage src/sonic-yang-models: sonic-pfcwd.yang, sonic-port.yang).
"""

from __future__ import annotations

from .. import Platform, TimerRule, WatchdogRules

# The pools every SKU has, as sonic-swss buffermgrd and orchagent name them: the lossless PGs' ingress pool and the
# egress lossless pool (on Spectrum the SKU's whole buffer).
INGRESS_LOSSLESS_POOL = 'ingress_lossless_pool'
EGRESS_LOSSLESS_POOL = 'egress_lossless_pool'


def port_name(model, cage, subport, lanes, mode):
    """The HWSKU port map's name of the cage's first lane, Ethernet<first lane of the sub-port>, with its lanes and
    alias (sonic-buildimage device/<vendor>/<platform>/<hwsku>/port_config.ini and platform.json)."""
    parent = model.sonic['ports'][cage - 1]
    base = int(parent['name'][len('Ethernet'):])
    return {'name': 'Ethernet%d' % (base + subport * lanes), 'parent': parent['name'],
            'lane_ids': parent['lanes'][subport * lanes:(subport + 1) * lanes],
            'alias': parent['alias'] + ('abcdefgh'[subport] if mode.ports > 1 else '')}


def sku_buffers(model):
    """The HWSKU's buffer objects (model.sonic['buffers']: buffers_defaults_t1.j2 and the templates it uses) with the
    pools the design sizes named, and where they come from; None without HWSKU data."""
    if not model.sonic:
        return None
    return (dict(model.sonic['buffers'], ingress_lossless_pool=INGRESS_LOSSLESS_POOL,
                 egress_lossless_pool=EGRESS_LOSSLESS_POOL), '%s HWSKU defaults' % model.sonic['hwsku'])


def hardware_facts(model):
    """DEVICE_METADATA platform and HWSKU of the switch."""
    return {'sonic': {'platform': model.sonic['platform'], 'hwsku': model.sonic['hwsku']} if model.sonic else None}


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
    hardware_facts=hardware_facts,
    # split-unified routing mode, FPM via dplane_fpm_nl, YANG-modelled keys and GCU: 202305 on.
    releases=('202305', '202311', '202405', '202411', '202505'),
    default_release='202405',
    # sonic-vm runs the whole SONiC image (sshd, sonic-utilities with GCU) that the deploy drives.
    lab_kinds=('sonic-vm', 'sonic-vs'),
    deploy_libraries=('netmiko',),
)
