# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Community SONiC: CONFIG_DB + FRR (docs/platform-sonic.md).

Limits from SONiC's YANG models (sonic-buildimage src/sonic-yang-models: sonic-pfcwd.yang, sonic-port.yang).
"""

from __future__ import annotations

from .. import Platform, TimerRule, WatchdogRules

PLATFORM = Platform(
    name='sonic',
    title='SONiC (CONFIG_DB + FRR)',
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
    port_naming='sonic_lanes',
    uses_sku_buffers=True,
    # split-unified routing mode, FPM via dplane_fpm_nl, YANG-modelled keys and GCU: 202305 on.
    releases=('202305', '202311', '202405', '202411', '202505'),
    default_release='202405',
    # sonic-vm runs the whole SONiC image (sshd, sonic-utilities with GCU) that the deploy drives.
    lab_kinds=('sonic-vm', 'sonic-vs'),
)
