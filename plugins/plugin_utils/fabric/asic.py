# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Switch ASIC families and the lossless headroom each port needs.

Spectrum headroom follows SONiC's dynamic buffer calculator (sonic-swss cfgmgr/buffer_headroom_mellanox.lua
and platform/mellanox/asic_table.j2). With port MTU 9216 it reproduces every xoff of the ACS-SN5600
pg_profile_lookup.ini table (100/400/800G at 5/40/300 m); tests/unit pin those values.
Broadcom families have no published formula; their headroom comes from a SONiC SKU lookup table
(pg_profile_lookup.ini), interpolated linearly between the published cable lengths. A switch model may carry its
own SKU's table (switch_models.py), which then wins. Families without a formula or a published table
(Tomahawk 3, Trident 3/4, Jericho 2/3) say so: `headroom_data()` is False and the design names the ASIC in a
"no headroom data" error instead of guessing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

# IEEE 802.3 Annex 31B.3.7 pause quanta (512 bit times) the peer may still send after PAUSE, per speed.
PAUSE_QUANTA = {10: 67, 25: 80, 40: 118, 50: 147, 100: 394, 200: 453, 400: 905, 800: 905}
SPEED_OF_LIGHT_IN_CABLE = 198_000_000  # m/s, as in the SONiC calculator
MINIMAL_PACKET_BYTES = 64
KIB = 1024


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
    pipeline_latency_bytes: int = 19 * KIB
    mac_phy_delay_bytes: float = 0.8 * KIB
    tile_latency: bool = False  # Spectrum-4/5 add speed/1000*120/8 bytes "on tile"
    # (speed_gbps, cable_m) -> (xon, xoff, size) for table-driven families
    lookup: dict = field(default_factory=dict)
    source: str = ''
    formula: bool = True  # False: no published headroom formula (Broadcom); only `lookup` rows, if any

    def lanes(self, speed_gbps: int) -> int:
        return max(1, speed_gbps // self.lane_gbps)

    def supports_speed(self, speed_gbps: int, lookup=None) -> bool:
        """True when there is headroom data for this speed: a lookup table row (the model's, else the family's)
        or the formula."""
        table = lookup or self.lookup
        if table:
            return any(speed == speed_gbps for speed, _unused in table)
        return self.formula and speed_gbps in PAUSE_QUANTA

    def shared_headroom(self, lookup=None) -> bool:
        """Table-driven (Broadcom) SKUs use a shared headroom pool: a PG's xoff only triggers PAUSE."""
        return bool(lookup or self.lookup)

    def headroom(self, speed_gbps: int, cable_m: int, port_mtu: int,
                 lossless_mtu: int = 1024, small_packet_percent: int = 100, lookup=None) -> Headroom:
        table = lookup or self.lookup
        if table:
            return _headroom_from_table(table, speed_gbps, cable_m)
        return self._headroom_from_formula(speed_gbps, cable_m, port_mtu, lossless_mtu, small_packet_percent)

    def _headroom_from_formula(self, speed_gbps, cable_m, port_mtu, lossless_mtu, small_packet_percent):
        speed_mbps = speed_gbps * 1000
        if self.cell_bytes > 2 * MINIMAL_PACKET_BYTES:
            worst_case_factor = self.cell_bytes / MINIMAL_PACKET_BYTES
        else:
            worst_case_factor = 2 * self.cell_bytes / (1 + self.cell_bytes)
        cell_occupancy = (100 - small_packet_percent + small_packet_percent * worst_case_factor) / 100
        peer_response = PAUSE_QUANTA[speed_gbps] * 512 / 8
        bytes_on_cable = 2 * cable_m * speed_mbps * 1_000_000 / SPEED_OF_LIGHT_IN_CABLE / 8
        bytes_on_tile = speed_mbps / 1000 * 120 / 8 if self.tile_latency else 0
        propagation = port_mtu + bytes_on_cable + self.mac_phy_delay_bytes + peer_response + bytes_on_tile
        xoff = _ceil_kib(lossless_mtu + propagation * cell_occupancy)
        eight_lanes = self.lanes(speed_gbps) == 8
        xon = _ceil_kib(self.pipeline_latency_bytes * (2 if eight_lanes else 1))
        size = _ceil_kib(xon + xoff + (port_mtu if eight_lanes else 0))
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


# Buffer sizes are vendor datasheet figures (total packet buffer); cell sizes and latencies are from
# sonic-buildimage platform/mellanox/asic_table.j2. Lookup rows are (xon, xoff, size) in bytes.
ASICS = {
    'spectrum1': Asic('spectrum1', 'nvidia', cell_bytes=96, buffer_bytes=16 * 1024 * KIB, lane_gbps=25,
                      source='asic_table.j2 (SPC-1 cell 96); 16 MB datasheet buffer'),
    'spectrum2': Asic('spectrum2', 'nvidia', cell_bytes=144, buffer_bytes=42 * 1024 * KIB, lane_gbps=50,
                      source='asic_table.j2 (SPC-2 cell 144); 42 MB datasheet buffer'),
    'spectrum3': Asic('spectrum3', 'nvidia', cell_bytes=144, buffer_bytes=64 * 1024 * KIB, lane_gbps=50,
                      source='asic_table.j2 (SPC-3 cell 144); 64 MB datasheet buffer'),
    'spectrum4': Asic('spectrum4', 'nvidia', cell_bytes=192, buffer_bytes=160 * 1024 * KIB, lane_gbps=100,
                      tile_latency=True,
                      source='asic_table.j2 (SPC-4 cell 192) + buffer_headroom_mellanox.lua; 160 MB datasheet buffer'),
    'tomahawk': Asic('tomahawk', 'broadcom', cell_bytes=208, buffer_bytes=16 * 1024 * KIB, lane_gbps=25,
                     lookup={(100, 5): (2288, 165568, 1248), (100, 40): (2288, 177632, 1248),
                             (100, 300): (2288, 268736, 1248)},
                     formula=False,
                     source='sonic-buildimage Force10-Z9100 pg_profile_lookup.ini (shared headroom pool)'),
    'tomahawk3': Asic('tomahawk3', 'broadcom', cell_bytes=254, buffer_bytes=64 * 1024 * KIB, lane_gbps=50,
                      formula=False, source='no published headroom formula or SKU table shipped'),
    'tomahawk4': Asic('tomahawk4', 'broadcom', cell_bytes=254, buffer_bytes=113 * 1024 * KIB, lane_gbps=50,
                      lookup={(100, 5): (9144, 129032, 9144), (200, 5): (9144, 214122, 9144),
                              (400, 5): (9144, 371348, 9144), (100, 40): (9144, 142240, 9144),
                              (200, 40): (9144, 240792, 9144), (400, 40): (9144, 424434, 9144),
                              (100, 300): (9144, 240538, 9144), (200, 300): (9144, 437134, 9144),
                              (400, 300): (9144, 817372, 9144)},
                      formula=False,
                      source='sonic-buildimage DellEMC-Z9664f-O64 pg_profile_lookup.ini (shared headroom pool)'),
    'tomahawk5': Asic('tomahawk5', 'broadcom', cell_bytes=254, buffer_bytes=165 * 1024 * KIB, lane_gbps=100,
                      lookup={(100, 5): (0, 147066, 18796), (200, 5): (0, 229362, 18796),
                              (400, 5): (0, 393192, 18796), (800, 5): (0, 729488, 18796),
                              (100, 40): (0, 160274, 18796), (200, 40): (0, 255778, 18796),
                              (400, 40): (0, 446024, 18796), (800, 40): (0, 835406, 18796),
                              (100, 300): (0, 258572, 18796), (200, 300): (0, 452374, 18796),
                              (400, 300): (0, 839216, 18796), (800, 300): (0, 1621536, 18796)},
                      formula=False,
                      source='sonic-buildimage Dell-Z9864f-O64 pg_profile_lookup.ini (shared headroom pool)'),
    'trident3': Asic('trident3', 'broadcom', cell_bytes=256, buffer_bytes=32 * 1024 * KIB, lane_gbps=25,
                     formula=False, source='no published headroom formula or SKU table shipped'),
    'trident4': Asic('trident4', 'broadcom', cell_bytes=254, buffer_bytes=132 * 1024 * KIB, lane_gbps=50,
                     formula=False, source='no published headroom formula or SKU table shipped'),
    'jericho2': Asic('jericho2', 'broadcom', cell_bytes=256, buffer_bytes=8 * 1024 * 1024 * KIB, lane_gbps=50,
                     formula=False, source='VOQ with deep HBM buffers; no published headroom formula or SKU table '
                     'shipped'),
    'jericho3': Asic('jericho3', 'broadcom', cell_bytes=256, buffer_bytes=16 * 1024 * 1024 * KIB, lane_gbps=100,
                     formula=False, source='VOQ with deep HBM buffers; no published headroom formula or SKU table '
                     'shipped'),
}


def get_asic(name: str) -> Asic:
    return ASICS[name]
