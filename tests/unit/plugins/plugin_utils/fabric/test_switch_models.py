"""Switch models as data: every shipped model passes its schema and its own rules, ports come from the model
(names, lanes, breakout, FEC), capacity and hardware mismatches are clear errors, and fabrics are sized by the
real server count."""

import os

import jsonschema
import pytest
import yaml

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import switch_models
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_intent
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.errors import IntentError
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.intent import load_schema

MODELS = switch_models.load_models()


def fabric(platform='sonic', servers=4, rails=2, speed=400, **rail_optimized):
    return {
        'name': 'hw',
        'topology': {'rail_optimized': dict({'servers': servers, 'rails': rails, 'nic_speed_gbps': speed},
                                            **rail_optimized),
                     'platform': {'leaf': platform, 'spine': platform, 'super_spine': platform}},
        'overlay': {'networks': [{'name': 'rail%d' % rail, 'vlan': 100 + rail, 'subnet': '10.%d.0.0/22' % (100 + rail),
                                  'rails': [rail]} for rail in range(rails)]},
    }


def with_models(data, **models):
    data['topology']['model'] = models
    return data


def test_shipped_models_pass_the_schema_and_the_intent_lists_them_all():
    schema = switch_models.model_schema()
    for entry in sorted(os.listdir(switch_models.MODELS_DIR)):
        data = yaml.safe_load(open(os.path.join(switch_models.MODELS_DIR, entry), encoding='utf-8'))
        jsonschema.validate(data, schema)
    listed = load_schema()['properties']['topology']['properties']['model']['properties']['leaf']['enum']
    assert sorted(name for name in listed if name) == sorted(MODELS)
    assert {'spectrum4', 'spectrum3', 'tomahawk4', 'tomahawk5'} <= {model.asic for model in MODELS.values()}


@pytest.mark.parametrize('name', sorted(MODELS))
def test_every_model_carries_its_native_speed_on_its_native_lanes(name):
    model = MODELS[name]
    native = model.lanes * model.lane_gbps
    assert model.mode(native).ports == 1, 'the full-rate mode is one port per cage'
    for mode in model.breakout:
        assert mode.lanes_per_port * mode.ports <= model.lanes
    if model.section('sonic'):
        names = [port['name'] for port in model.section('sonic')['ports']]
        assert len(names) == len(set(names)) == model.port_count
        lanes = [lane for port in model.section('sonic')['ports'] for lane in port['lanes']]
        assert len(lanes) == len(set(lanes)), 'a SerDes lane belongs to one port'


def test_breakout_picks_the_native_lane_rate():
    sn5600, sn4700 = MODELS['nvidia-sn5600'], MODELS['nvidia-sn4700']
    assert sn5600.mode(400).text == '2x400G[200G,100G,50G,40G,25G,10G]'  # 400G on 4 x 100G lanes
    assert sn4700.mode(400).text.startswith('1x400G')  # 400G on 8 x 50G lanes
    assert MODELS['arista-7060dx5-64s'].mode(400).lanes_per_port == 8  # 400g-8, defect 6
    assert MODELS['arista-7060x6-64pe'].mode(400).lanes_per_port == 4  # 400g-4
    assert sn4700.mode(800) is None
    assert sn5600.ports_at(400) == 128 and sn4700.ports_at(100) == 128


@pytest.mark.parametrize('change, words', [
    (lambda sonic: sonic['buffers']['profiles']['q_lossy_profile'].update(pool='lossy_pool'), 'uses pool lossy_pool'),
    (lambda sonic: sonic['buffers'].update(lossy_queue_profile='nope'), 'profile nope is not among'),
    (lambda sonic: sonic['buffers']['port_profile_lists']['egress'].append('nope'), 'profile nope is not among'),
    (lambda sonic: sonic['buffers']['pools']['egress_lossy_pool'].update(xoff=1), 'only ingress_lossless_pool'),
])
def test_sku_buffer_objects_name_only_their_own(change, words):
    path = os.path.join(switch_models.MODELS_DIR, 'nvidia-sn5600.yml')
    data = yaml.safe_load(open(path, encoding='utf-8'))
    change(data['sonic'])
    with pytest.raises(switch_models.ModelError, match=words):
        switch_models._model_from_data(data, path)  # pylint: disable=protected-access
    data.pop('sonic')
    with pytest.raises(switch_models.ModelError, match='runs sonic but has no sonic section'):
        switch_models._model_from_data(data, path)  # pylint: disable=protected-access


def test_parse_mode_rejects_garbage():
    with pytest.raises(switch_models.ModelError):
        switch_models.parse_mode('2x400')
    assert switch_models.parse_mode('2x100G(4)[40G]').lanes_per_port == 4


def test_sonic_ports_come_from_the_hwsku_port_map():
    design = design_from_intent(with_models(fabric(), leaf='dell-z9664f', spine='dell-z9664f'))
    leaf = design.device('leaf001')
    # Z9664F: 400G runs 1 x 400G on 4 lanes; port 1 is Ethernet0 on lanes 5-8 (DellEMC-Z9664f-O64 port_config.ini).
    # One leaf per rail holds all 4 servers; its 4 uplinks follow on cages 5-8.
    assert [(item['name'], item['lane_ids'], item['link_role']) for item in leaf['interfaces']] == [
        ('Ethernet0', [5, 6, 7, 8], 'host_leaf'), ('Ethernet4', [9, 10, 11, 12], 'host_leaf'),
        ('Ethernet8', [17, 18, 19, 20], 'host_leaf'), ('Ethernet12', [25, 26, 27, 28], 'host_leaf'),
        ('Ethernet16', [33, 34, 35, 36], 'leaf_spine'), ('Ethernet20', [41, 42, 43, 44], 'leaf_spine'),
        ('Ethernet24', [49, 50, 51, 52], 'leaf_spine'), ('Ethernet28', [57, 58, 59, 60], 'leaf_spine')]
    assert {item['breakout'] for item in leaf['interfaces']} == {'1x400G'}
    assert leaf['hardware']['sonic'] == {'platform': 'x86_64-dell_z9664f-r0', 'hwsku': 'DellEMC-Z9664f-O64'}
    assert leaf['buffer']['shared_headroom'] and leaf['buffer']['pool_bytes'] == 113620296


def test_eos_names_and_speed_keywords_follow_the_model():
    design = design_from_intent(with_models(fabric('eos'), leaf='arista-7060dx5-64s', spine='arista-7060dx5-64s'))
    text = ''.join(design_from_intent(with_models(fabric('eos'), leaf='arista-7060dx5-64s',
                                                  spine='arista-7060dx5-64s')).device('leaf001')['interfaces'][0]['name'])
    assert text == 'Ethernet1/1'
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_model
    config = render_model(design.device('leaf001'))['startup-config.cfg']
    assert 'interface Ethernet2/1\n' in config and '   speed 400g-8\n' in config
    assert '   error-correction encoding reed-solomon\n' in config
    broken_out = render_model(design_from_intent(fabric('eos')).device('leaf001'))['startup-config.cfg']
    # 7060X6-64PE (default EOS model): 400G is a 2 x 400G breakout, Ethernet1/1 and Ethernet1/5, 400g-4.
    assert 'interface Ethernet1/5\n' in broken_out and '   speed 400g-4\n' in broken_out


def _one_leaf_design_error(links, **topology) -> str:
    """The IntentError text of an explicit fabric (spine s1, leaf l1, server h1) with these links."""
    data = {'name': 'ex', 'topology': dict(topology, explicit={
            'nodes': [{'name': 's1', 'role': 'spine'}, {'name': 'l1', 'role': 'leaf'}, {'name': 'h1', 'role': 'host'}],
            'links': links}),
            'overlay': {'networks': [{'name': 'r0', 'vlan': 100, 'subnet': '10.100.0.0/24', 'rails': [0]}]}}
    with pytest.raises(IntentError) as error:
        design_from_intent(data)
    return str(error.value)


def test_explicit_ports_beyond_the_front_panel_are_an_error():
    error = _one_leaf_design_error([{'a': 'l1', 'b': 's1', 'speed_gbps': 400, 'a_port': 65, 'b_port': 1},
                                    {'a': 'h1', 'b': 'l1', 'speed_gbps': 400}],
                                   model={'leaf': 'nvidia-sn4700', 'spine': 'nvidia-sn4700'})
    assert 'topology.model.leaf' in error and 'more ports than the model has' in error
    assert 'l1 needs port 65' in error


def test_explicit_cage_cannot_mix_breakout_modes():
    # SN5600: port 1 at 800G is cage 1 (1x800G); port 2 at 400G is cage 1 too (2 x 400G): two modes, one cage.
    error = _one_leaf_design_error([{'a': 'l1', 'b': 's1', 'speed_gbps': 800, 'a_port': 1, 'b_port': 1},
                                    {'a': 'h1', 'b': 'l1', 'speed_gbps': 400, 'b_port': 2}])
    assert 'cage 1 of l1 would need two breakout modes' in error


def test_explicit_sub_port_cannot_carry_two_links():
    # SN5600: port 2 at 800G (1 x 800G) and port 3 at 400G (2 x 400G) are both sub-port 0 of cage 2.
    error = _one_leaf_design_error([{'a': 'l1', 'b': 's1', 'speed_gbps': 800, 'a_port': 2, 'b_port': 1},
                                    {'a': 'h1', 'b': 'l1', 'speed_gbps': 400, 'b_port': 3}])
    assert 'cage 2 sub-port 0 of l1 carries two links' in error


def test_a_device_can_run_another_model_than_its_role():
    data = fabric()
    data['topology']['devices'] = {'leaf002': {'model': 'nvidia-sn4700'}}
    design = design_from_intent(data)
    assert design.device('leaf002')['hardware']['model'] == 'nvidia-sn4700'
    assert design.device('leaf002')['asic'] == 'spectrum3'
    assert design.device('leaf001')['hardware']['model'] == 'nvidia-sn5600'
    assert design.device('leaf002')['interfaces'][0]['name'] == 'Ethernet0'  # 1 x 400G on 8 x 50G lanes
    assert design.device('leaf002')['interfaces'][1]['name'] == 'Ethernet8'


def test_16_gpus_on_radix_64_boxes_get_two_spines_not_thirty_two():
    """Gap: sizing by the real servers. 2 servers x 8 rails x 400G on SN5600 (128 x 400G ports)."""
    design = design_from_intent(fabric(servers=2, rails=8))
    summary = design.summary()
    assert (summary['gpus'], summary['leaves'], summary['spines']) == (16, 8, 2)
    assert (summary['leaf_downlinks'], summary['leaf_uplinks'], summary['links_per_leaf_spine']) == (2, 2, 1)
    assert summary['oversubscription'] == 1.0
    assert summary['models'] == {'nvidia-sn5600': 10}


def test_spines_take_parallel_links_when_they_have_room():
    """128 servers x 8 rails on SN5600: 32 downlinks per leaf need 32 uplinks at 1:1; 32 leaves x 32 links fit
    8 spines of 128 ports with 4 links per leaf-spine pair (not 32 spines)."""
    design = design_from_intent(fabric(servers=128, rails=8, leaf_radix=64))
    summary = design.summary()
    assert (summary['leaves'], summary['spines'], summary['links_per_leaf_spine']) == (32, 8, 4)
    assert summary['leaf_uplinks'] == 32 and summary['oversubscription'] == 1.0


def test_oversubscription_target_sizes_the_uplinks():
    design = design_from_intent(fabric(servers=24, rails=2, oversubscription=3.0))
    summary = design.summary()
    assert (summary['leaf_downlinks'], summary['leaf_uplinks']) == (24, 8)
    assert summary['oversubscription'] == 3.0


def test_uplinks_at_another_speed_start_on_the_next_cage():
    """8 x 400G downlinks take cages 1-4 of an SN5600 (2 x 400G each); 800G uplinks follow on cages 5-8."""
    design = design_from_intent(fabric(servers=8, rails=2, uplink_speed_gbps=800))
    leaf = design.device('leaf001')
    assert [item['cage'] for item in leaf['interfaces']] == [1, 1, 2, 2, 3, 3, 4, 4, 5, 6, 7, 8]
    assert [item['name'] for item in leaf['interfaces'] if item['speed_gbps'] == 800] == [
        'Ethernet32', 'Ethernet40', 'Ethernet48', 'Ethernet56']


@pytest.mark.parametrize('fixture', ['sonic_small', 'sonic_unnumbered', 'eos_small', 'nvue_small', 'shape2'])
def test_every_port_name_and_lane_is_used_once_per_switch(fixture):
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
    here = os.path.dirname(os.path.abspath(__file__))
    design = design_from_file(os.path.join(here, '..', '..', '..', 'fixtures', 'intents', fixture + '.yml'))
    for name in design.device_names():
        if design.nodes[name].role == 'host':
            continue
        interfaces = design.device(name)['interfaces']
        names = [item['name'] for item in interfaces]
        assert len(names) == len(set(names)), (name, names)
        lanes = [lane for item in interfaces for lane in (item['lane_ids'] or [])]
        assert len(lanes) == len(set(lanes)), name


def test_sn4700_pools_are_the_sku_defaults_not_the_datasheet():
    """Defect 4: the SN4700 egress lossless pool is the ACS-MSN4700 default of 60 817 392 B, not 64 MiB of datasheet."""
    import json
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_model
    design = design_from_intent(with_models(fabric(), leaf='nvidia-sn4700', spine='nvidia-sn4700'))
    model = design.device('leaf001')
    pools = json.loads(render_model(model)['config_db.json'])['BUFFER_POOL']
    assert pools['egress_lossless_pool']['size'] == '60817392'
    # the dynamic model (NVIDIA's image) computes the shared pools: no size; the floor is a quarter of the default
    assert 'size' not in pools['ingress_lossless_pool'] and 'size' not in pools['egress_lossy_pool']
    budget = model['buffer']
    assert budget['headroom_bytes'] <= budget['headroom_room_bytes'] == \
        60817392 - budget['reserved_bytes'] - 2 * (20627456 // 4)
