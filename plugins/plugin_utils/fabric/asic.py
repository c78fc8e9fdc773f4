# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Switch ASIC families and the lossless headroom each port needs.

Spectrum headroom follows SONiC's Mellanox headroom calculator, sonic-swss `cfgmgr/buffer_headroom_mellanox.lua` as
of revision 422271e7e (PR #4797, 2026-07-31; unchanged at e6b0c5b5d, 2026-08-21): the worst-case cell factor rounded
up and the small-packet share counted in bytes (PR #3235), 2 KiB more xoff when the shared headroom pool is off and
the small-packet share is below 100 % (PR #4757), 18 KiB more on Spectrum-6 (PR #4797). The per-ASIC parameters
(cell size, pipeline latency, MAC/PHY delay, peer response time) are those of sonic-buildimage
`platform/mellanox/asic_table.j2`. With port MTU 9216 it reproduces every xoff of the ACS-SN5600 pg_profile_lookup.ini
table (100/400/800G at 5/40/300 m); tests/unit pin those values and check every ASIC, speed and cable length against
an independent transcription of the Lua.
Broadcom families have no published formula; their headroom comes from a SONiC SKU lookup table
(pg_profile_lookup.ini), interpolated linearly between the published cable lengths. A switch model may carry its
own SKU's table (switch_models.py), which then wins. Families without a formula or a published table
(Tomahawk 3, Trident 3/4, Jericho 2/3) say so: `supports_speed()` is False and the design names the ASIC in a
"no headroom data" error instead of guessing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

# IEEE 802.3 Annex 31B.3.7 pause quanta (512 bit times) the peer may still send after PAUSE, per speed (the Lua's
# pause_quanta_per_speed); a speed without an entry uses the ASIC's peer_response_time instead.
PAUSE_QUANTA = {10: 67, 25: 80, 40: 118, 50: 147, 100: 394, 200: 453, 400: 905, 800: 905}
SPEED_OF_LIGHT_IN_CABLE = 198_000_000  # m/s, as in the SONiC calculator
MINIMAL_PACKET_BYTES = 64
KIB = 1024
# The calculator's fixed additions to xoff: with the shared headroom pool off and fewer than 100 % small packets
# (PR #4757), and on Spectrum-6 for its packet-buffer accounting (PR #4797).
SMALL_PACKET_COMPENSATION_BYTES = 2 * KIB


@dataclass(frozen=True)
class Headroom:
    """Per lossless priority-group buffer, bytes (SONiC BUFFER_PROFILE xon/xoff/size)."""

    xon: int
    xoff: int
    size: int


@dataclass(frozen=True)
class Asic:
    name: str
    vendor: str
    cell_bytes: int
    buffer_bytes: int
    lane_gbps: int
    # Fastest port the family runs: the fastest breakout mode of any of its SONiC platforms (sonic-buildimage
    # device/*/platform.json). Faster speeds are refused, whatever a formula could compute for them.
    max_port_gbps: int
    pipeline_latency_bytes: int = 19 * KIB
    mac_phy_delay_bytes: float = 0.8 * KIB
    peer_response_bytes: float = 3.8 * KIB  # used only for a speed without pause quanta
    tile_latency: bool = False  # Spectrum-4/5 add speed/1000*120/8 bytes "on tile"
    headroom_compensation_bytes: int = 0  # Spectrum-6: 18 KiB more xoff
    # (speed_gbps, cable_m) -> (xon, xoff, size) for table-driven families
    lookup: dict = field(default_factory=dict)
    source: str = ''
    formula: bool = True  # False: no published headroom formula (Broadcom); only `lookup` rows, if any

    def lanes(self, speed_gbps: int) -> int:
        return max(1, speed_gbps // self.lane_gbps)

    def supports_speed(self, speed_gbps: int, lookup=None) -> bool:
        """True when the family runs this speed and there is headroom data for it: a lookup table row (the
        model's, else the family's) or the formula."""
        if speed_gbps > self.max_port_gbps:
            return False
        table = lookup or self.lookup
        if table:
            return any(speed == speed_gbps for speed, _unused in table)
        return self.formula and speed_gbps in PAUSE_QUANTA

    def shared_headroom(self, lookup=None) -> bool:
        """Table-driven (Broadcom) SKUs use a shared headroom pool: a PG's xoff only triggers PAUSE."""
        return bool(lookup or self.lookup)

    def headroom(self, speed_gbps: int, cable_m: int, port_mtu: int,
                 lossless_mtu: int = 1024, small_packet_percent: int = 100, lookup=None,
                 shared_headroom: bool = False) -> Headroom:
        table = lookup or self.lookup
        if table:
            return _headroom_from_table(table, speed_gbps, cable_m)
        return self._headroom_from_formula(speed_gbps, cable_m, port_mtu, lossless_mtu, small_packet_percent,
                                           shared_headroom)

    def _headroom_from_formula(self, speed_gbps, cable_m, port_mtu, lossless_mtu, small_packet_percent, shared):
        speed_mbps = speed_gbps * 1000
        if self.cell_bytes > 2 * MINIMAL_PACKET_BYTES:
            worst_case_factor = math.ceil(self.cell_bytes / MINIMAL_PACKET_BYTES)
        else:
            worst_case_factor = math.ceil(2 * self.cell_bytes / (1 + self.cell_bytes))
        # The share of small packets counted in bytes of lossless traffic, not in packets (PR #3235).
        small_bytes_percent = 100 * MINIMAL_PACKET_BYTES / (
            (small_packet_percent * MINIMAL_PACKET_BYTES + (100 - small_packet_percent) * lossless_mtu) / 100)
        cell_occupancy = (100 - small_bytes_percent + small_bytes_percent * worst_case_factor) / 100
        quanta = PAUSE_QUANTA.get(speed_gbps)
        peer_response = quanta * 512 / 8 if quanta is not None else self.peer_response_bytes
        bytes_on_cable = 2 * cable_m * speed_mbps * 1_000_000 / SPEED_OF_LIGHT_IN_CABLE / 8
        bytes_on_tile = speed_mbps / 1000 * 120 / 8 if self.tile_latency else 0
        propagation = port_mtu + bytes_on_cable + self.mac_phy_delay_bytes + peer_response + bytes_on_tile
        xoff = _ceil_kib(lossless_mtu + propagation * cell_occupancy) + self.headroom_compensation_bytes
        if not shared and small_packet_percent != 100:
            worst_case_xoff = _ceil_kib(lossless_mtu + propagation * worst_case_factor)
            if xoff + SMALL_PACKET_COMPENSATION_BYTES < worst_case_xoff:
                xoff += SMALL_PACKET_COMPENSATION_BYTES
        eight_lanes = self.lanes(speed_gbps) == 8
        xon = _ceil_kib(self.pipeline_latency_bytes * (2 if eight_lanes else 1))
        size = _ceil_kib(xon if shared else xon + xoff + (port_mtu if eight_lanes else 0))
        return Headroom(xon=xon, xoff=xoff, size=size)


def _headroom_from_table(lookup, speed_gbps, cable_m):
    """Headroom from a SKU lookup table, interpolated linearly between (or extended past) its cable lengths."""
    rows = sorted((cable, values) for (speed, cable), values in lookup.items() if speed == speed_gbps)
    below = [row for row in rows if row[0] <= cable_m]
    above = [row for row in rows if row[0] >= cable_m]
    low = below[-1] if below else rows[0]
    high = above[0] if above else rows[-1]
    if low[0] == high[0]:
        if cable_m == low[0]:
            xon, xoff, size = low[1]
            return Headroom(xon, xoff, size)
        # Outside the table: extend the nearest segment's slope.
        pair = rows[-2:] if cable_m > rows[-1][0] else rows[:2]
        low, high = pair[0], pair[1]
    ratio = (cable_m - low[0]) / (high[0] - low[0])
    values = [int(math.ceil(a + (b - a) * ratio)) for a, b in zip(low[1], high[1])]
    return Headroom(*values)


def _ceil_kib(value: float) -> int:
    return int(math.ceil(value / KIB)) * KIB


# Buffer sizes are vendor datasheet figures (total packet buffer; Spectrum-5/6: the SKU's egress lossless pool);
# cell sizes, latencies and peer response times are those of sonic-buildimage platform/mellanox/asic_table.j2.
# max_port_gbps: the fastest breakout mode of the family's SONiC platforms (platform.json: SN2700 100G, SN3700 200G,
# SN4700 400G, SN5600 800G, SN5640 400G, SN6600_LD 800G, Z9100 100G, Z9332f 400G, Z9664f 400G, Z9864f 800G,
# S5248f 100G); families without a SONiC platform here: lane rate x 8 lanes. Lookup rows are (xon, xoff, size) bytes.
ASICS = {
    'spectrum1': Asic('spectrum1', 'nvidia', cell_bytes=96, buffer_bytes=16 * 1024 * KIB, lane_gbps=25,
                      max_port_gbps=100, source='asic_table.j2 (SPC-1 cell 96); 16 MB datasheet buffer'),
    'spectrum2': Asic('spectrum2', 'nvidia', cell_bytes=144, buffer_bytes=42 * 1024 * KIB, lane_gbps=50,
                      max_port_gbps=200, source='asic_table.j2 (SPC-2 cell 144); 42 MB datasheet buffer'),
    'spectrum3': Asic('spectrum3', 'nvidia', cell_bytes=144, buffer_bytes=64 * 1024 * KIB, lane_gbps=50,
                      max_port_gbps=400, source='asic_table.j2 (SPC-3 cell 144); 64 MB datasheet buffer'),
    'spectrum4': Asic('spectrum4', 'nvidia', cell_bytes=192, buffer_bytes=160 * 1024 * KIB, lane_gbps=100,
                      max_port_gbps=800, tile_latency=True,
                      source='asic_table.j2 (SPC-4 cell 192) + buffer_headroom_mellanox.lua; 160 MB datasheet buffer'),
    'spectrum5': Asic('spectrum5', 'nvidia', cell_bytes=192, buffer_bytes=136209408, lane_gbps=100,
                      max_port_gbps=400, tile_latency=True,
                      source='asic_table.j2 (SPC-5 cell 192) + buffer_headroom_mellanox.lua; Mellanox-SN5640 SKU buffer'),
    'spectrum6': Asic('spectrum6', 'nvidia', cell_bytes=256, buffer_bytes=226492416, lane_gbps=200,
                      max_port_gbps=800, pipeline_latency_bytes=42 * KIB, headroom_compensation_bytes=18 * KIB,
                      source='asic_table.j2 (SPC-6 cell 256, pipeline latency 42 KB) + buffer_headroom_mellanox.lua '
                      '(18 KB compensation); ACS-SN6600_LD SKU buffer'),
    'tomahawk': Asic('tomahawk', 'broadcom', cell_bytes=208, buffer_bytes=16 * 1024 * KIB, lane_gbps=25,
                     max_port_gbps=100,
                     lookup={(100, 5): (2288, 165568, 1248), (100, 40): (2288, 177632, 1248),
                             (100, 300): (2288, 268736, 1248)},
                     formula=False,
                     source='sonic-buildimage Force10-Z9100 pg_profile_lookup.ini (shared headroom pool)'),
    'tomahawk3': Asic('tomahawk3', 'broadcom', cell_bytes=254, buffer_bytes=64 * 1024 * KIB, lane_gbps=50,
                      max_port_gbps=400, formula=False, source='no published headroom formula or SKU table shipped'),
    'tomahawk4': Asic('tomahawk4', 'broadcom', cell_bytes=254, buffer_bytes=113 * 1024 * KIB, lane_gbps=50,
                      max_port_gbps=400,
                      lookup={(100, 5): (9144, 129032, 9144), (200, 5): (9144, 214122, 9144),
                              (400, 5): (9144, 371348, 9144), (100, 40): (9144, 142240, 9144),
                              (200, 40): (9144, 240792, 9144), (400, 40): (9144, 424434, 9144),
                              (100, 300): (9144, 240538, 9144), (200, 300): (9144, 437134, 9144),
                              (400, 300): (9144, 817372, 9144)},
                      formula=False,
                      source='sonic-buildimage DellEMC-Z9664f-O64 pg_profile_lookup.ini (shared headroom pool)'),
    'tomahawk5': Asic('tomahawk5', 'broadcom', cell_bytes=254, buffer_bytes=165 * 1024 * KIB, lane_gbps=100,
                      max_port_gbps=800,
                      lookup={(100, 5): (0, 147066, 18796), (200, 5): (0, 229362, 18796),
                              (400, 5): (0, 393192, 18796), (800, 5): (0, 729488, 18796),
                              (100, 40): (0, 160274, 18796), (200, 40): (0, 255778, 18796),
                              (400, 40): (0, 446024, 18796), (800, 40): (0, 835406, 18796),
                              (100, 300): (0, 258572, 18796), (200, 300): (0, 452374, 18796),
                              (400, 300): (0, 839216, 18796), (800, 300): (0, 1621536, 18796)},
                      formula=False,
                      source='sonic-buildimage Dell-Z9864f-O64 pg_profile_lookup.ini (shared headroom pool)'),
    'trident3': Asic('trident3', 'broadcom', cell_bytes=256, buffer_bytes=32 * 1024 * KIB, lane_gbps=25,
                     max_port_gbps=100, formula=False, source='no published headroom formula or SKU table shipped'),
    'trident4': Asic('trident4', 'broadcom', cell_bytes=254, buffer_bytes=132 * 1024 * KIB, lane_gbps=50,
                     max_port_gbps=400, formula=False, source='no published headroom formula or SKU table shipped'),
    'jericho2': Asic('jericho2', 'broadcom', cell_bytes=256, buffer_bytes=8 * 1024 * 1024 * KIB, lane_gbps=50,
                     max_port_gbps=400, formula=False,
                     source='VOQ with deep HBM buffers; no published headroom formula or SKU table shipped'),
    'jericho3': Asic('jericho3', 'broadcom', cell_bytes=256, buffer_bytes=16 * 1024 * 1024 * KIB, lane_gbps=100,
                     max_port_gbps=800, formula=False,
                     source='VOQ with deep HBM buffers; no published headroom formula or SKU table shipped'),
}


def get_asic(name: str) -> Asic:
    return ASICS[name]


def asic_names() -> list:
    """Every ASIC family, in the order of ASICS (the intent and switch model schemas list them so)."""
    return list(ASICS)
