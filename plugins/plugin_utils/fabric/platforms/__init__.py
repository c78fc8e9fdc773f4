# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Switch platforms as data: port names, limits and watchdog rules. Renderers live in sibling modules.

Sources (see docs/platforms.md): SONiC YANG sonic-pfcwd.yang / sonic-port.yang; AVD eos_cli_config_gen
schema (EOS watchdog timers in seconds, 2 decimals, polling 3 decimals); Cumulus Linux 5.x NVUE command
reference (pfc-watchdog polling-interval 100-5000 ms, robustness 1-1000, link mtu 552-9216).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class TimerRule:
    """Allowed values of one watchdog timer, in milliseconds."""

    minimum: int
    maximum: int
    step: int = 1

    def problem(self, value_ms: int):
        if not self.minimum <= value_ms <= self.maximum:
            return 'must be between %d and %d ms' % (self.minimum, self.maximum)
        if value_ms % self.step:
            return 'must be a multiple of %d ms' % self.step
        return None


@dataclass(frozen=True)
class WatchdogRules:
    detection: TimerRule | None
    restoration: TimerRule | None
    poll_interval: TimerRule | None
    actions: tuple
    robustness_max: int | None = None  # NVUE: detection = poll_interval x robustness
    unit: str = 'ms'


@dataclass(frozen=True)
class Platform:
    name: str
    title: str
    port_prefix: str
    lossless_dataplane: bool
    max_lossless_priorities: int
    mtu_max: int
    watchdog: WatchdogRules | None
    config_files: tuple = field(default_factory=tuple)
    # Real switch hardware: port names, lanes, breakout and FEC come from a shipped switch model
    # (switch_models.py) named the NOS's way; lab platforms number their ports port_prefix + N.
    uses_models: bool = False
    # How the NOS names a (breakout) port: sonic_lanes = the HWSKU port map's Ethernet<first lane>;
    # slot_lane = Ethernet<port>/<first lane>; split_suffix = swp<port>[s<sub-port>]; sequential = prefix + N.
    port_naming: str = 'sequential'
    # NOS releases the renderer writes for (intent topology.nos_release), oldest first, and the default one.
    releases: tuple = ()
    default_release: str | None = None
    # Renders the switch's buffer pools from the model's HWSKU data (model.sonic['buffer_pools']).
    uses_sku_buffers: bool = False
    # Can turn on adaptive routing where the switch model has it.
    adaptive_routing: bool = False
    # The out-of-band management port and the VRF it lives in when management.vrf is on (SONiC and Cumulus
    # require the name mgmt; EOS takes any name, MGMT by convention).
    management_interface: str = 'eth0'
    management_vrf: str = 'mgmt'
    # containerlab kinds a lab twin can run this platform as (lab.py LAB_KINDS), the default first.
    lab_kinds: tuple = ()
    # The Linux kernel forwards transit traffic, so a capture on a port sees it (the data-plane marking probe);
    # an ASIC-forwarding switch shows its CPU only what is addressed to it.
    kernel_forwarding: bool = False


PLATFORMS = {
    'sonic': Platform(
        'sonic', 'SONiC (CONFIG_DB + FRR)', 'Ethernet', True,
        # Community qos_config.j2 and the Dell module both cap lossless priorities at 2.
        max_lossless_priorities=2, mtu_max=9216,
        watchdog=WatchdogRules(TimerRule(100, 5000), TimerRule(100, 60000), TimerRule(100, 1000),
                               actions=('drop', 'forward', 'alert')),
        config_files=('config_db.json', 'frr.conf'), uses_models=True, port_naming='sonic_lanes', uses_sku_buffers=True,
        # split-unified routing mode, FPM via dplane_fpm_nl, YANG-modelled keys and GCU: 202305 on.
        releases=('202305', '202311', '202405', '202411', '202505'), default_release='202405',
        # sonic-vm runs the whole SONiC image (sshd, sonic-utilities with GCU) that the deploy drives.
        lab_kinds=('sonic-vm', 'sonic-vs')),
    'eos': Platform(
        'eos', 'Arista EOS (CLI)', 'Ethernet', True,
        max_lossless_priorities=2, mtu_max=9214,
        # EOS takes seconds: timeout/recovery with 2 decimals (10 ms steps), polling with 3 decimals.
        watchdog=WatchdogRules(TimerRule(10, 60000, 10), TimerRule(10, 60000, 10), TimerRule(5, 60000, 1),
                               actions=('drop', 'alert'), unit='s'),
        config_files=('startup-config.cfg',), uses_models=True, port_naming='slot_lane',
        # Multi-agent routing is the default from 4.30.1F (AVD release notes).
        releases=('4.30', '4.31', '4.32', '4.33', '4.34'), default_release='4.32',
        management_interface='Management1', management_vrf='MGMT', lab_kinds=('ceos',)),
    'nvue': Platform(
        'nvue', 'NVIDIA Cumulus Linux (NVUE)', 'swp', True,
        max_lossless_priorities=2, mtu_max=9216,
        # NVUE sets only polling-interval and robustness; detection = poll x robustness, action drop.
        watchdog=WatchdogRules(None, None, TimerRule(100, 5000), actions=('drop',), robustness_max=1000),
        config_files=('startup.yaml',), uses_models=True, port_naming='split_suffix', adaptive_routing=True,
        # 5.14 and earlier: `enable: on`; 5.15 on: `state: enabled` (platforms/nvue.py SYNTAX).
        releases=('5.9', '5.10', '5.11', '5.12', '5.13', '5.14', '5.15', '5.16'), default_release='5.14',
        lab_kinds=('cvx', 'nvidia_cumulusvx')),
    'frr': Platform(
        'frr', 'FRR on Linux (lab switch, no lossless data plane)', 'eth', False,
        max_lossless_priorities=8, mtu_max=9500, watchdog=None,
        config_files=('frr.conf', 'interfaces.json'),
        releases=('8.4', '8.5', '9.0', '9.1', '10.0', '10.1', '10.2', '10.3'), default_release='8.4',
        lab_kinds=('linux',), kernel_forwarding=True),
}


def get_platform(name: str) -> Platform:
    return PLATFORMS[name]
