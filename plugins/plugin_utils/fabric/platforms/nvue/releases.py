# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The words of the `nv config` YAML per Cumulus Linux release, as data: the oldest supported release's words, then
what each later release changed, each change from NVIDIA's own list of it. The templates never compare versions:
they take the words of the device's release (`words(release)`).

Sources (docs/platform-nvue.md, "Release words"):
- CL 5.13 Syslog: "Cumulus 5.13 and later does not provide" `nv set service syslog <vrf-id> server`; syslog servers
  are `system syslog server <id> vrf <vrf-id>`.
- CL 5.15 "New and Changed NVUE Commands": `enable on|off` became `state enabled|disabled` (EVPN, BGP, VRR, NVE,
  adaptive routing, address families, ECMP hash fields on|off became enabled|disabled), interface `ip address|gateway|
  vrr` became `ipv4 ...` (VRR `enable on` + `state up` became `state enabled` + `vrr-state up`), `ip vrf` became
  `vrf`, DNS, NTP and LLDP moved from `service` to `system`; and it deprecates the per-neighbor BFD timers (`nv set vrf
  <vrf-id> router bgp neighbor <id> bfd enable|detect-multiplier|min-rx-interval|min-tx-interval`) for a BFD profile
  (`nv set router bfd profile <name> ...`, `nv set vrf <vrf-id> router bgp neighbor <id> bfd profile <name>`) with
  BFD switched on globally (`nv set router bfd state enabled`, CL 5.15 "Bidirectional Forwarding Detection - BFD").
  Its list has no QoS row but `qos roce enable` -> `qos roce state`: the QoS values the renderer writes (PFC `rx`/`tx`,
  congestion-control `ecn`, port `pfc-watchdog state`) keep `enable`/`disable`, as the NVUE reference's QoS page
  gives them.
"""

from __future__ import annotations

# Cumulus Linux 5.9, the oldest release the platform supports (platforms/nvue/__init__.py `releases`).
BASE = {
    'switch': 'enable', 'on': 'on', 'off': 'off',  # feature switches: `enable: on|off`
    'enable': 'enable', 'disable': 'disable',      # QoS values: PFC rx/tx, ECN, port PFC watchdog state
    'ip': 'ip', 'vrr_up': 'state',                 # interface addresses and VRR operational state
    'system_services': False,                      # DNS, NTP, LLDP under `service`
    'system_syslog': False,                        # syslog under `service syslog <vrf-id>`
    'bfd_profile': False,                          # BFD timers per BGP neighbor
}

# (first release, the words it changes), oldest first.
CHANGES = (
    ('5.13', {'system_syslog': True}),
    ('5.15', {'switch': 'state', 'on': 'enabled', 'off': 'disabled', 'ip': 'ipv4', 'vrr_up': 'vrr-state',
              'system_services': True, 'bfd_profile': True}),
)


def _version(text: str) -> tuple:
    return tuple(int(part) for part in str(text).split('.')[:2])


def words(release: str) -> dict:
    """The words of one release (validated against the platform's releases before design)."""
    found = dict(BASE)
    for first, change in CHANGES:
        if _version(release) >= _version(first):
            found.update(change)
    return found
