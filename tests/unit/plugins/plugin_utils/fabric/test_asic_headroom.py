"""Lossless headroom reproduces published SONiC vendor tables (pg_profile_lookup.ini)."""

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.asic import Headroom, ASICS, get_asic

# sonic-buildimage device/mellanox/.../ACS-SN5600/pg_profile_lookup.ini (Spectrum-4), bytes: (size, xon, xoff)
SN5600 = {
    (100, 5): (133120, 19456, 113664), (100, 40): (146432, 19456, 126976), (100, 300): (244736, 19456, 225280),
    (400, 5): (250880, 19456, 231424), (400, 40): (303104, 19456, 283648), (400, 300): (697344, 19456, 677888),
    (800, 5): (304128, 38912, 257024), (800, 40): (410624, 38912, 362496), (800, 300): (1198080, 38912, 1150976),
}


@pytest.mark.parametrize('speed,cable', sorted(SN5600))
def test_spectrum4_xoff_and_xon_match_sn5600_table(speed, cable):
    size, xon, xoff = SN5600[speed, cable]
    # The static table was generated with port MTU 9216, lossless MTU 1024 and 100 % small packets.
    room = get_asic('spectrum4').headroom(speed, cable, port_mtu=9216, lossless_mtu=1024, small_packet_percent=100)
    assert room.xoff == xoff
    assert room.xon == xon


@pytest.mark.parametrize('speed,cable', [key for key in sorted(SN5600) if key[0] != 800])
def test_spectrum4_size_is_xon_plus_xoff(speed, cable):
    size = SN5600[speed, cable][0]
    room = get_asic('spectrum4').headroom(speed, cable, port_mtu=9216)
    assert room.size == size


def test_eight_lane_port_reserves_a_port_mtu_more():
    room = get_asic('spectrum4').headroom(800, 40, port_mtu=9216)
    assert room.size == room.xon + room.xoff + 9216 == 410624


def test_issue_figures_100g():
    xoffs = [get_asic('spectrum4').headroom(100, cable, port_mtu=9216).xoff for cable in (5, 40, 300)]
    assert xoffs == [113664, 126976, 225280]


def test_longer_cable_and_faster_port_need_more_headroom():
    asic = get_asic('spectrum4')
    assert asic.headroom(100, 5, 9100).xoff < asic.headroom(100, 40, 9100).xoff < asic.headroom(100, 300, 9100).xoff
    assert asic.headroom(100, 40, 9100).xoff < asic.headroom(400, 40, 9100).xoff
    # About 380 B per metre at 100G on Spectrum-4 (round trip x worst-case cell factor 3).
    per_metre = (asic.headroom(100, 300, 9100).xoff - asic.headroom(100, 40, 9100).xoff) / 260
    assert 360 < per_metre < 400


def test_smaller_cells_need_less_headroom():
    room = {name: get_asic(name).headroom(100, 40, 9100).xoff for name in ('spectrum1', 'spectrum2', 'spectrum4')}
    assert room['spectrum1'] < room['spectrum2'] < room['spectrum4']


def test_table_driven_asic_reproduces_rows_and_interpolates():
    th5 = get_asic('tomahawk5')
    assert th5.headroom(400, 40, 9100).xoff == 446024
    middle = th5.headroom(400, 170, 9100).xoff
    assert 446024 < middle < 839216
    assert th5.headroom(400, 600, 9100).xoff > 839216  # beyond the table: slope of the last segment
    assert th5.supports_speed(100) and th5.supports_speed(800) and not th5.supports_speed(50)
    assert th5.supports_speed(400)


@pytest.mark.parametrize('name', ['tomahawk3', 'trident3', 'trident4', 'jericho2', 'jericho3'])
def test_families_without_headroom_data_say_so(name):
    """No published formula and no SKU table: no speed is supported, and the source says why."""
    asic = get_asic(name)
    assert not any(asic.supports_speed(speed) for speed in (25, 100, 400, 800))
    assert 'no published headroom' in asic.source


def test_a_model_table_wins_over_the_family_table():
    th4 = get_asic('tomahawk4')
    own = {(400, 5): (1, 2, 3), (400, 40): (1, 20, 30)}
    assert th4.headroom(400, 5, 9100, lookup=own) == Headroom(1, 2, 3)
    assert th4.supports_speed(100) and not th4.supports_speed(100, lookup=own)


def test_every_asic_has_a_source():
    for asic in ASICS.values():
        assert asic.source and asic.buffer_bytes > 0 and asic.cell_bytes > 0
