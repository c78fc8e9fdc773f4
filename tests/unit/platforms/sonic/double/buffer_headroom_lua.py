"""sonic-swss cfgmgr/buffer_headroom_mellanox.lua, statement by statement, in Python (the tests' own transcription:
it shares no code with the collection's asic.py, so a mistake there cannot hide here). Revision 422271e7e (PR #4797;
unchanged at e6b0c5b5d). Used by tests/unit/.../test_headroom_algorithm.py against the design and by the SONiC double's
dynamic buffer model (sonic_buffers.py), which runs where the collection cannot be imported.
"""

import math


def lua_headroom(asic_key, cell_size, pipeline_kb, mac_phy_kb, peer_kb, port_speed, cable, port_mtu, lanes,
                 lossless_mtu, small_packet_percentage, shp_enabled, gearbox_delay=0):
    """buffer_headroom_mellanox.lua, statement by statement (ARGV[1] speed Mb/s, ARGV[2] cable, ARGV[3] port MTU,
    ARGV[4] gearbox delay, ARGV[5] lane count)."""
    is_8lane = lanes == 8
    spectrum6_headroom_compensation = 18 * 1024
    pause_quanta_per_speed = {800000: 905, 400000: 905, 200000: 453, 100000: 394, 50000: 147, 40000: 118,
                              25000: 80, 10000: 67, 1000: 2, 100: 1}
    pause_quanta = pause_quanta_per_speed.get(port_speed)
    is_spectrum6 = asic_key[-1] == '6'
    pipeline_latency = pipeline_kb * 1024
    mac_phy_delay = mac_phy_kb * 1024
    peer_response_time = peer_kb * 1024 if pause_quanta is None else None
    kb_on_tile = 0
    if asic_key[-1] in ('4', '5'):
        kb_on_tile = port_speed / 1000 * 120 / 8
    speed_of_light = 198000000
    minimal_packet_size = 64
    headroom_compensation = 2 * 1024
    if is_8lane:
        pipeline_latency = pipeline_latency * 2
        speed_overhead = port_mtu
    else:
        speed_overhead = 0
    if cell_size > 2 * minimal_packet_size:
        worst_case_factor = cell_size / minimal_packet_size
    else:
        worst_case_factor = (2 * cell_size) / (1 + cell_size)
    worst_case_factor = math.ceil(worst_case_factor)
    small_packet_percentage_by_byte = 100 * minimal_packet_size / (
        (small_packet_percentage * minimal_packet_size + (100 - small_packet_percentage) * lossless_mtu) / 100)
    cell_occupancy = (100 - small_packet_percentage_by_byte + small_packet_percentage_by_byte * worst_case_factor) / 100
    bytes_on_gearbox = 0 if gearbox_delay == 0 else port_speed * gearbox_delay / (8 * 1024)
    if pause_quanta is not None:
        peer_response_time = pause_quanta * 512 / 8
    bytes_on_cable = 2 * cable * port_speed * 1000000000 / speed_of_light / (8 * 1000)
    propagation_delay = port_mtu + bytes_on_cable + 2 * bytes_on_gearbox + mac_phy_delay + peer_response_time + kb_on_tile
    xoff_value = lossless_mtu + propagation_delay * cell_occupancy
    xoff_value = math.ceil(xoff_value / 1024) * 1024
    if is_spectrum6:
        xoff_value = xoff_value + spectrum6_headroom_compensation
    if not shp_enabled and small_packet_percentage != 100:
        full_small_packet_xoff = lossless_mtu + propagation_delay * worst_case_factor
        full_small_packet_xoff = math.ceil(full_small_packet_xoff / 1024) * 1024
        if xoff_value + headroom_compensation < full_small_packet_xoff:
            xoff_value = xoff_value + headroom_compensation
    xon_value = math.ceil(pipeline_latency / 1024) * 1024
    headroom_size = xon_value if shp_enabled else xoff_value + xon_value + speed_overhead
    headroom_size = math.ceil(headroom_size / 1024) * 1024
    return math.ceil(xon_value), math.ceil(xoff_value), math.ceil(headroom_size)
