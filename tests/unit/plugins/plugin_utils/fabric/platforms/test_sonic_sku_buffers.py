# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""SONiC buffer objects are the HWSKU's own (issue 22, item 7).

The expected objects below are written here from sonic-buildimage at 086b03bd70, independently of the shipped
hardware YAML the renderer reads:

- NVIDIA: device/mellanox/<platform>/<hwsku>/buffers_defaults_t1.j2 (pool sizes) and the
  buffers_defaults_objects.j2 it links (x86_64-mlnx_msn2700-r0/ACS-MSN2700/: pools, profiles, port profile lists,
  PG 0 -> ingress_lossy_profile, queues 0-2/5-6 -> q_lossy_profile); pg_profile_lookup.ini threshold column 0.
- Dell: device/dell/<platform>/<hwsku>/buffers_defaults_t1.j2 (one dynamic ingress pool with a shared headroom
  pool, one static egress pool, no lossy pools) with files/build_templates/buffers_config.j2 (PG 0 ->
  ingress_lossy_profile, queues 0-2/5-6 -> egress_lossy_profile, no port profile lists), and the xon_offset column
  of pg_profile_lookup.ini.
- NVIDIA images build with the dynamic buffer model (platform/mellanox/rules.mk SONIC_BUFFER_MODEL=dynamic): as
  buffers_defaults_objects.j2 writes it in dynamic_mode, the ingress and egress lossy pools have no size (buffermgrd
  computes them), the egress lossless pool keeps the SKU's, and a lossless PG's profile is NULL (buffermgrd computes
  it from speed, cable length and LOSSLESS_TRAFFIC_PATTERN).
- sonic-swss cfgmgr/buffermgr.cpp (traditional model): a lossless PG profile is {pool ingress_lossless_pool, xon, xon_offset (when the
  lookup file has the column), xoff, size, <ingress_lossless_pool mode>_th: threshold}.
- sonic-utilities generic_config_updater/gcu_field_operation_validators.conf.json: an existing profile's pool and
  size cannot be changed, so the PGs and queues use our own profiles (AIFABRIC_*) with the SKU's values, and the SKU's
  own profiles are rendered only where its port profile lists name them.
"""

import json

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_intent
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_model

MELLANOX_PROFILES = {
    'ingress_lossless_profile': {'pool': 'ingress_lossless_pool', 'size': '0', 'dynamic_th': '7'},
    'ingress_lossy_profile': {'pool': 'ingress_lossy_pool', 'size': '0', 'dynamic_th': '3'},
    'egress_lossless_profile': {'pool': 'egress_lossless_pool', 'size': '0', 'dynamic_th': '7'},
    'egress_lossy_profile': {'pool': 'egress_lossy_pool', 'size': '9216', 'dynamic_th': '7'},
    'q_lossy_profile': {'pool': 'egress_lossy_pool', 'size': '0', 'dynamic_th': '3'},
}
MELLANOX_LISTS = {'ingress': 'ingress_lossless_profile,ingress_lossy_profile',
                  'egress': 'egress_lossless_profile,egress_lossy_profile'}


def _mellanox(ingress, egress_lossless):
    return {
        'pools': {'ingress_lossless_pool': {'type': 'ingress', 'mode': 'dynamic', 'size': ingress},
                  'ingress_lossy_pool': {'type': 'ingress', 'mode': 'dynamic', 'size': ingress},
                  'egress_lossless_pool': {'type': 'egress', 'mode': 'dynamic', 'size': egress_lossless},
                  'egress_lossy_pool': {'type': 'egress', 'mode': 'dynamic', 'size': ingress}},
        'profiles': MELLANOX_PROFILES, 'lossy_pg': 'ingress_lossy_profile', 'lossy_queue': 'q_lossy_profile',
        'lists': MELLANOX_LISTS, 'lossless_pg': {'dynamic_th': '0'}, 'shared_headroom_pool': None, 'dynamic': True,
    }


def _dell(size, xoff, threshold, lossy_size, lossy_th, cpu_size, cpu_th, xon_offset):
    return {
        'pools': {'ingress_lossless_pool': {'type': 'ingress', 'mode': 'dynamic', 'size': size},
                  'egress_lossless_pool': {'type': 'egress', 'mode': 'static', 'size': size}},
        'profiles': {
            'ingress_lossy_profile': {'pool': 'ingress_lossless_pool', 'size': '0', 'static_th': threshold},
            'egress_lossless_profile': {'pool': 'egress_lossless_pool', 'size': '0', 'static_th': threshold},
            'egress_lossy_profile': {'pool': 'egress_lossless_pool', 'size': lossy_size, 'dynamic_th': lossy_th},
            'egress_lossy_cpu_profile': {'pool': 'egress_lossless_pool', 'size': cpu_size, 'dynamic_th': cpu_th},
        },
        'lossy_pg': 'ingress_lossy_profile', 'lossy_queue': 'egress_lossy_profile', 'lists': None,
        'lossless_pg': {'dynamic_th': '0', 'xon_offset': xon_offset}, 'shared_headroom_pool': xoff,
    }


SKUS = {
    'nvidia-sn5600': _mellanox('52161690', '158229504'),   # ACS-SN5600
    'nvidia-sn4700': _mellanox('20627456', '60817392'),    # ACS-MSN4700
    'dell-z9864f': _dell('162539680', 33374584, '165867080', '1778', '0', '9398', '-2', '3556'),  # Dell-Z9864f-O64
    'dell-z9664f': _dell('113620296', 50653696, '113620296', '0', '2', '0', '-5', '9144'),  # DellEMC-Z9664f-O64
}


def _design(model):
    return design_from_intent({
        'name': 'sku',
        'topology': {'rail_optimized': {'servers': 4, 'rails': 2, 'nic_speed_gbps': 400},
                     'platform': {'leaf': 'sonic', 'spine': 'sonic', 'super_spine': 'sonic'},
                     'model': {'leaf': model, 'spine': model}},
        'overlay': {'networks': [{'name': 'rail%d' % rail, 'vlan': 100 + rail, 'subnet': '10.%d.0.0/22' % (100 + rail),
                                  'rails': [rail]} for rail in range(2)]},
    })


@pytest.fixture(scope='module', params=sorted(SKUS))
def rendered(request):
    design = _design(request.param)
    out = {}
    for name in ('leaf001', 'spine001'):
        model = design.device(name)
        out[name] = (model, json.loads(render_model(model)['config_db.json']))
    return request.param, out


def test_pools_are_the_skus(rendered):
    name, devices = rendered
    sku = SKUS[name]
    for model, db in devices.values():
        pools = db['BUFFER_POOL']
        assert sorted(pools) == sorted(sku['pools']), 'the SKU\'s pools, no more'
        for pool, fields in sku['pools'].items():
            got = dict(pools[pool])
            xoff = got.pop('xoff', None)
            if sku.get('dynamic') and pool != 'egress_lossless_pool':
                fields = {key: value for key, value in fields.items() if key != 'size'}  # computed by buffermgrd
            assert got == fields, pool
            if pool == 'ingress_lossless_pool':
                if sku['shared_headroom_pool'] is None:
                    assert xoff is None
                else:
                    # The SKU's shared headroom pool, or the design's headroom where it needs more.
                    assert int(xoff) == max(sku['shared_headroom_pool'], model['buffer']['headroom_bytes'])


def test_profiles_and_their_users_are_the_skus(rendered):
    name, devices = rendered
    sku = SKUS[name]
    ours = {'AIFABRIC_INGRESS_LOSSY': sku['profiles'][sku['lossy_pg']],
            'AIFABRIC_EGRESS_LOSSLESS': sku['profiles']['egress_lossless_profile'],
            'AIFABRIC_EGRESS_LOSSY': sku['profiles'][sku['lossy_queue']]}
    listed = {profile for names in (sku['lists'] or {}).values() for profile in names.split(',')}
    for model, db in devices.values():
        profiles = db['BUFFER_PROFILE']
        lossless = {key: value for key, value in profiles.items() if key.startswith('pg_lossless_')}
        assert {key: value for key, value in profiles.items() if key not in lossless} == dict(
            ours, **{profile: sku['profiles'][profile] for profile in listed})
        if sku.get('dynamic'):
            assert not lossless and all(db['BUFFER_PG'][item['name'] + '|3'] == {'profile': 'NULL'}
                                        for item in model['interfaces'])
        else:
            assert lossless and {item['buffer_profile'] for item in model['interfaces']} == set(lossless)
        for profile in [] if sku.get('dynamic') else model['buffer']['profiles']:
            fields = dict({'pool': 'ingress_lossless_pool', 'size': str(profile['size']), 'xon': str(profile['xon']),
                           'xoff': str(profile['xoff'])}, **sku['lossless_pg'])
            assert lossless[profile['name']] == fields
        for item in model['interfaces']:
            port = item['name']
            assert db['BUFFER_PG'][port + '|0'] == {'profile': 'AIFABRIC_INGRESS_LOSSY'}
            assert db['BUFFER_PG'][port + '|3'] == {'profile': 'NULL' if sku.get('dynamic') else item['buffer_profile']}
            assert db['BUFFER_QUEUE'][port + '|3'] == {'profile': 'AIFABRIC_EGRESS_LOSSLESS'}
            for queues in ('0-2', '4-7'):  # the CNP queue 6 is lossy too
                assert db['BUFFER_QUEUE'][port + '|' + queues] == {'profile': 'AIFABRIC_EGRESS_LOSSY'}
            for direction in ('ingress', 'egress'):
                table = 'BUFFER_PORT_%s_PROFILE_LIST' % direction.upper()
                if sku['lists'] is None:
                    assert table not in db
                else:
                    assert db[table][port] == {'profile_list': sku['lists'][direction]}
        # Every reference resolves: profiles to pools, PGs, queues and lists to profiles.
        assert {fields['pool'] for fields in profiles.values()} <= set(db['BUFFER_POOL'])
        used = {row['profile'] for table in ('BUFFER_PG', 'BUFFER_QUEUE') for row in db[table].values()} - {'NULL'}
        for direction in ('INGRESS', 'EGRESS'):
            for row in db.get('BUFFER_PORT_%s_PROFILE_LIST' % direction, {}).values():
                used.update(row['profile_list'].split(','))
        assert used <= set(profiles)


def test_tomahawk5_has_one_egress_pool_within_its_buffer():
    """Issue 22: three 162.5 MB pools on a 165 MB chip; the SKU has one static egress pool."""
    design = _design('dell-z9864f')
    db = json.loads(render_model(design.device('leaf001'))['config_db.json'])
    egress = [pool for pool, fields in db['BUFFER_POOL'].items() if fields['type'] == 'egress']
    assert egress == ['egress_lossless_pool'] and db['BUFFER_POOL']['egress_lossless_pool']['mode'] == 'static'
    assert int(db['BUFFER_POOL']['egress_lossless_pool']['size']) <= 165 * 1024 * 1024
    assert all(fields['xon_offset'] == '3556' for key, fields in db['BUFFER_PROFILE'].items()
               if key.startswith('pg_lossless_'))
