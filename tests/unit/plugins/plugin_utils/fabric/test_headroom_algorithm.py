"""Every ASIC x speed x cable length against headroom the test computes on its own from the cited sources.

The Spectrum reference below is a line-by-line transcription of sonic-swss cfgmgr/buffer_headroom_mellanox.lua at
revision 422271e7e (PR #4797; the file is unchanged at e6b0c5b5d), fed with the ASIC_TABLE values of
sonic-buildimage platform/mellanox/asic_table.j2. It shares no code with asic.py: a mistake there cannot hide here.
Broadcom families have no formula; their reference is linear interpolation between the rows of the SKU's
pg_profile_lookup.ini (sonic-buildimage device/dell/...), again written out here.
"""

import math

import pytest

from tests.unit.platforms.sonic.double.buffer_headroom_lua import lua_headroom

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.asic import ASICS, get_asic

CABLES_M = (1, 5, 10, 40, 100, 300)
SPEEDS_GBPS = (10, 25, 40, 50, 100, 200, 400, 800)

# asic_table.j2: ASIC_TABLE:MELLANOX-SPECTRUM[-N] -> cell_size, pipeline_latency (KB), mac_phy_delay (KB),
# peer_response_time (KB); and the lane rate each generation's ports run on (platform.json breakout modes).
ASIC_TABLE = {
    'spectrum1': ('MELLANOX-SPECTRUM', 96, 19, 0.8, 3.8, 25),
    'spectrum2': ('MELLANOX-SPECTRUM-2', 144, 19, 0.8, 3.8, 50),
    'spectrum3': ('MELLANOX-SPECTRUM-3', 144, 19, 0.8, 3.8, 50),
    'spectrum4': ('MELLANOX-SPECTRUM-4', 192, 19, 0.8, 3.8, 100),
    'spectrum5': ('MELLANOX-SPECTRUM-5', 192, 19, 0.8, 3.8, 100),
    'spectrum6': ('MELLANOX-SPECTRUM-6', 256, 42, 0.8, 3.8, 200),
}
# Fastest port of each family: the fastest breakout mode of its SONiC platforms (sonic-buildimage
# device/<vendor>/<platform>/platform.json: SN2700, SN3700, SN4700, SN5600, SN5640, SN6600_LD, Z9100, Z9664f, Z9864f).
FASTEST_PORT_GBPS = {'spectrum1': 100, 'spectrum2': 200, 'spectrum3': 400, 'spectrum4': 800, 'spectrum5': 400,
                     'spectrum6': 800, 'tomahawk': 100, 'tomahawk4': 400, 'tomahawk5': 800}
# pg_profile_lookup.ini rows (speed Mb/s, cable m) -> (size, xon, xoff), as the SKU files list them.
SKU_TABLES = {
    # Force10-Z9100-C32
    'tomahawk': {(100000, 5): (1248, 2288, 165568), (100000, 40): (1248, 2288, 177632),
                 (100000, 300): (1248, 2288, 268736)},
    # DellEMC-Z9664f-O64
    'tomahawk4': {(100000, 5): (9144, 9144, 129032), (200000, 5): (9144, 9144, 214122),
                  (400000, 5): (9144, 9144, 371348), (100000, 40): (9144, 9144, 142240),
                  (200000, 40): (9144, 9144, 240792), (400000, 40): (9144, 9144, 424434),
                  (100000, 300): (9144, 9144, 240538), (200000, 300): (9144, 9144, 437134),
                  (400000, 300): (9144, 9144, 817372)},
    # Dell-Z9864f-O64
    'tomahawk5': {(100000, 5): (18796, 0, 147066), (200000, 5): (18796, 0, 229362), (400000, 5): (18796, 0, 393192),
                  (800000, 5): (18796, 0, 729488), (100000, 40): (18796, 0, 160274), (200000, 40): (18796, 0, 255778),
                  (400000, 40): (18796, 0, 446024), (800000, 40): (18796, 0, 835406),
                  (100000, 300): (18796, 0, 258572), (200000, 300): (18796, 0, 452374),
                  (400000, 300): (18796, 0, 839216), (800000, 300): (18796, 0, 1621536)},
}


def interpolated(rows, speed_mbps, cable):
    """Linear interpolation between the SKU's two nearest cable lengths (the last segment's slope beyond them)."""
    points = sorted((length, values) for (speed, length), values in rows.items() if speed == speed_mbps)
    for (low, low_values), (high, high_values) in zip(points, points[1:]):
        if cable <= high or (low, low_values) == points[-2]:
            if cable < low and (low, low_values) != points[0]:
                continue
            size, xon, xoff = (math.ceil(a + (b - a) * (cable - low) / (high - low))
                               for a, b in zip(low_values, high_values))
            return xon, xoff, size
    raise AssertionError('no rows for %d Mb/s' % speed_mbps)


def spectrum_cases():
    for name, row in ASIC_TABLE.items():
        for speed in SPEEDS_GBPS:
            if speed <= FASTEST_PORT_GBPS[name]:
                for cable in CABLES_M:
                    yield name, speed, cable


@pytest.mark.parametrize('small_percent', [100, 50, 0])
@pytest.mark.parametrize('port_mtu', [9100, 9216])
@pytest.mark.parametrize('name,speed,cable', list(spectrum_cases()))
def test_spectrum_headroom_follows_the_sonic_calculator(name, speed, cable, port_mtu, small_percent):
    key, cell, pipeline, mac_phy, peer, lane_gbps = ASIC_TABLE[name]
    lanes = max(1, speed // lane_gbps)
    expected = lua_headroom(key, cell, pipeline, mac_phy, peer, speed * 1000, cable, port_mtu, lanes, 1024,
                            small_percent, shp_enabled=False)
    room = get_asic(name).headroom(speed, cable, port_mtu, lossless_mtu=1024, small_packet_percent=small_percent)
    assert (room.xon, room.xoff, room.size) == expected


@pytest.mark.parametrize('name,speed,cable', [case for case in spectrum_cases() if case[2] in (5, 300)])
def test_spectrum_headroom_with_a_shared_headroom_pool(name, speed, cable):
    key, cell, pipeline, mac_phy, peer, lane_gbps = ASIC_TABLE[name]
    lanes = max(1, speed // lane_gbps)
    expected = lua_headroom(key, cell, pipeline, mac_phy, peer, speed * 1000, cable, 9100, lanes, 1024, 50,
                            shp_enabled=True)
    room = get_asic(name).headroom(speed, cable, 9100, 1024, 50, shared_headroom=True)
    assert (room.xon, room.xoff, room.size) == expected


def table_cases():
    for name, rows in SKU_TABLES.items():
        for speed in sorted({speed // 1000 for speed, _cable in rows}):
            for cable in CABLES_M:
                yield name, speed, cable


@pytest.mark.parametrize('name,speed,cable', list(table_cases()))
def test_broadcom_headroom_interpolates_the_sku_table(name, speed, cable):
    room = get_asic(name).headroom(speed, cable, 9100)
    assert (room.xon, room.xoff, room.size) == interpolated(SKU_TABLES[name], speed * 1000, cable)


def test_every_asic_family_is_checked_here_or_has_no_headroom_data():
    checked = set(ASIC_TABLE) | set(SKU_TABLES)
    for name, asic in ASICS.items():
        if name not in checked:
            assert not any(asic.supports_speed(speed) for speed in SPEEDS_GBPS), name


@pytest.mark.parametrize('name', sorted(FASTEST_PORT_GBPS))
def test_speeds_the_family_cannot_run_are_refused(name):
    asic = get_asic(name)
    fastest = FASTEST_PORT_GBPS[name]
    assert asic.supports_speed(fastest)
    assert not any(asic.supports_speed(speed) for speed in SPEEDS_GBPS if speed > fastest)


def test_issue_figures_spectrum3():
    """Spectrum-2/3 cells of 144 B count as 3 small packets since PR #3235, not 2.25 (port MTU 9100)."""
    asic = get_asic('spectrum3')
    assert asic.headroom(400, 40, 9100).xoff == 265216
    assert asic.headroom(400, 300, 9100).xoff == 659456
    assert asic.headroom(100, 5, 9100).xoff == 108544
