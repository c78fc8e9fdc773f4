"""A lossless design that does not fit the switch's buffer is refused before anything is rendered (issue 35, item 6).

Spectrum SKUs on SONiC run NVIDIA's dynamic buffer model: the switch computes each lossless PG's headroom
(buffer_headroom_mellanox.lua) and gives the shared pools what its buffer leaves once every PG's headroom and the
calculator's reserves are out (sonic-swss @ e6b0c5b5d cfgmgr/buffer_pool_mellanox.lua). The reference below is written
here from that file, sharing no code with design/lossless.py or platforms/sonic: per port that is up a management PG
of the pipeline latency (twice it less 1 KiB on 8-lane ports), the same for every lossy PG, the egress lossy profile
of each port with profile lists (9216 B, buffers_defaults_objects.j2), 10 KiB egress mirror headroom per port that is
up, the 256 KiB management pool; the two ingress pools split the rest. The design refuses a switch whose pools would
fall below a quarter of the SKU's default (ACS-SN5600 buffers_defaults_t1.j2: 52 161 690 B).
"""

import copy
import os

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_intent
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.errors import IntentError

KIB = 1024
SN5600_BUFFER = 158229504                   # ACS-SN5600 egress_lossless_pool (buffers_defaults_t1.j2)
SN5600_FLOOR = 52161690 // 4                # a quarter of its default ingress pool
PIPELINE_LATENCY = 19 * KIB                 # asic_table.j2 MELLANOX-SPECTRUM-4 pipeline_latency
CAGES, CAGE_LANES = 64, 8
HOST_CABLE_MAX = 999                        # lossless.cable_length_m.host_leaf: what the mlx5 NIC takes (1-999 m)


def reference_pool(port_lanes, lossless_ports, lossless_pgs, lossy_pgs, headroom_per_port):
    """buffer_pool_mellanox.lua's ingress pool size for these ports (all up; the first `lossless_ports` carry the
    lossless and lossy PGs and the profile lists)."""
    def pg(lanes):
        return (2 * PIPELINE_LATENCY - KIB) if lanes == 8 else PIPELINE_LATENCY
    occupied = sum(headroom_per_port[:lossless_ports]) * lossless_pgs
    occupied += sum(pg(lanes) * lossy_pgs for lanes in port_lanes[:lossless_ports])
    occupied += sum(pg(lanes) for lanes in port_lanes)          # management PGs of the ports that are up
    occupied += 9216 * lossless_ports + 10 * KIB * len(port_lanes) + 256 * KIB
    return (SN5600_BUFFER - occupied) // 2


def cable_lengths(cable_m):
    """The intent's cable length per link role: `cable_m` between switches, as long as a server's NIC takes to it."""
    return {'host_leaf': min(cable_m, HOST_CABLE_MAX), 'leaf_spine': cable_m}


def intent(servers, cable_m, priorities):
    return {'name': 'o', 'topology': {'rail_optimized': {'servers': servers, 'rails': 2, 'nic_speed_gbps': 400,
                                                         'leaf_radix': 64, 'oversubscription': 1.0},
                                      'platform': {'leaf': 'sonic', 'spine': 'sonic'},
                                      'model': {'leaf': 'nvidia-sn5600', 'spine': 'nvidia-sn5600'}},
            'overlay': {'networks': [{'name': 'rail%d' % rail, 'vlan': 100 + rail, 'subnet': '10.%d.0.0/22' % (100 + rail),
                                      'rails': [rail]} for rail in range(2)]},
            'lossless': {'pfc': {'priorities': priorities},
                         'cable_length_m': cable_lengths(cable_m)}}


def _figures(design, name, cable_m):
    """(port lanes, lossless ports, headroom size per lossless port) of the switch: its ports from the design's
    interfaces (100G lanes), each PG's headroom from the tests' own transcription of buffer_headroom_mellanox.lua
    for the cable of its link's role."""
    from tests.unit.platforms.sonic.double.buffer_headroom_lua import lua_headroom
    from .test_headroom_algorithm import ASIC_TABLE
    asic_key, cell, pipeline, mac_phy, peer, _lane = ASIC_TABLE['spectrum4']
    used = [item['speed_gbps'] // 100 for item in design.device(name)['interfaces']]
    per_cage = {lanes: CAGE_LANES // lanes for lanes in set(used)}
    cages = sum(-(-used.count(lanes) // per_cage[lanes]) for lanes in per_cage)
    cables = cable_lengths(cable_m)
    sizes = [lua_headroom(asic_key, cell, pipeline, mac_phy, peer, item['speed_gbps'] * 1000, cables[item['link_role']],
                          9100, lanes, 1024, 100, False)[2] for item, lanes in zip(design.device(name)['interfaces'], used)]
    return used + [CAGE_LANES] * (CAGES - cages), len(used), sizes


@settings(max_examples=16, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(servers=st.sampled_from([4, 8, 16, 32]), cable_m=st.sampled_from([3, 10, 50, 300, 1000, 2000]),
       priorities=st.sampled_from([[3], [3, 4]]))
def test_the_design_refuses_exactly_what_the_pool_calculator_cannot_hold(servers, cable_m, priorities):
    data = intent(servers, cable_m, priorities)
    # the same fabric with short cables always fits: its ports are the ones the longer cables would have
    ports = design_from_intent(intent(servers, 3, priorities))
    pools = {name: reference_pool(*_figures(ports, name, cable_m)[:2], len(priorities), 1, _figures(ports, name, cable_m)[2])
             for name in ('leaf001', 'spine001')}
    try:
        design = design_from_intent(copy.deepcopy(data))
    except IntentError as error:
        text = str(error)
        assert 'need more lossless headroom than the buffer holds' in text, text
        assert min(pools.values()) < SN5600_FLOOR, (pools, text)
        event('refused')
        return
    event('fits')
    assert min(pools.values()) >= SN5600_FLOOR, pools
    for name, pool in pools.items():
        budget = design.device(name)['buffer']
        assert budget['pools']['ingress_lossless_pool']['size'] == pool, (name, budget['reserved'])


def test_the_refusal_names_the_switch_the_numbers_and_what_to_change():
    with pytest.raises(IntentError) as caught:
        design_from_intent(intent(32, 2000, [3, 4]))
    text = str(caught.value)
    assert 'lossless.buffer' in text and 'worst ' in text
    for words in ('needs ', 'bytes (2 lossless priorities) where ', ' are left (ACS-SN5600 HWSKU defaults',
                  'SONiC reserves ', 'ports up: management PGs', 'Use fewer lossless priorities, shorter cables'):
        assert words in text, words


def test_pod1k_spine_reserves_are_what_the_pool_calculator_counts():
    """The pod1k spine: 128 lossless 400G ports on 64 cages, 7 733 248 B reserved (issue 35: "about 7.7 MB")."""
    from tests.doubles.fleet import load_design
    from tests.unit.utils.paths import FABRICS
    design = load_design(os.path.join(FABRICS, 'pod1k.yml'))
    budget = design.device('spine001')['buffer']
    lanes = [4] * 128
    expected = sum(PIPELINE_LATENCY for _lane in lanes) * 2 + 9216 * 128 + 10 * KIB * 128 + 256 * KIB
    assert budget['reserved_bytes'] == expected == 7733248
