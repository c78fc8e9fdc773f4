"""Operator gaps: ECMP entropy for RoCE (switch hash on the UDP source port, NCCL queue pairs), adaptive routing as
an opt-in where the hardware has it, the LLDP application TLV for RoCE, and the counters validation reads."""

import json

import pytest
import yaml

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_intent
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.errors import IntentError
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_model


def intent(platform, underlay=None, hosts=None, **topology):
    return {
        'name': 'ent',
        'topology': dict({'rail_optimized': {'servers': 4, 'rails': 2, 'nic_speed_gbps': 400, 'leaf_radix': 4},
                          'platform': {'leaf': platform, 'spine': platform, 'super_spine': platform}}, **topology),
        'underlay': underlay or {},
        'hosts': hosts or {},
        'overlay': {'networks': [{'name': 'rail%d' % rail, 'vlan': 100 + rail, 'subnet': '10.%d.0.0/24' % (100 + rail),
                                  'rails': [rail]} for rail in range(2)]},
    }


def leaf(platform, **kwargs):
    model = design_from_intent(intent(platform, **kwargs)).device('leaf001')
    return model, render_model(model)


def test_sonic_hashes_on_the_udp_source_port_and_the_inner_headers():
    model, files = leaf('sonic')
    assert 'l4_src_port' in model['ecmp']['hash_fields']
    db = json.loads(files['config_db.json'])
    ecmp = db['SWITCH_HASH']['GLOBAL']['ecmp_hash']
    assert {'SRC_IP', 'DST_IP', 'IP_PROTOCOL', 'L4_SRC_PORT', 'L4_DST_PORT', 'INNER_L4_SRC_PORT'} <= set(ecmp)


def test_nvue_hashes_on_the_udp_source_port():
    _model, files = leaf('nvue')
    hashing = yaml.safe_load(files['startup.yaml'])[0]['set']['system']['forwarding']['ecmp-hash']
    assert hashing['source-port'] is True and hashing['destination-port'] is True
    assert hashing['inner-source-port'] is True
    assert hashing['ipv6-label'] is False


def test_source_port_cannot_be_left_out_of_the_hash():
    with pytest.raises(IntentError) as error:
        design_from_intent(intent('sonic', underlay={'ecmp': {'hash_fields': ['src_ip', 'dst_ip']}}))
    assert 'underlay.ecmp.hash_fields' in str(error.value) and 'l4_src_port' in str(error.value)


def test_adaptive_routing_is_an_opt_in_on_hardware_that_has_it():
    model, files = leaf('nvue', underlay={'ecmp': {'adaptive_routing': True}})
    config = yaml.safe_load(files['startup.yaml'])[0]['set']
    assert config['router']['adaptive-routing'] == {'enable': True}
    uplinks = [item['name'] for item in model['interfaces'] if item['link_role'] == 'leaf_spine']
    for name in uplinks:
        assert config['interface'][name]['router']['adaptive-routing'] == {'enable': True}
    default = yaml.safe_load(leaf('nvue')[1]['startup.yaml'])[0]['set']
    assert 'adaptive-routing' not in default['router']


def test_adaptive_routing_on_hardware_without_it_is_an_error():
    with pytest.raises(IntentError) as error:
        design_from_intent(intent('nvue', underlay={'ecmp': {'adaptive_routing': True}},
                                  model={'leaf': 'nvidia-sn4700', 'spine': 'nvidia-sn4700'}))
    assert 'underlay.ecmp.adaptive_routing' in str(error.value) and 'nvidia-sn4700' in str(error.value)


def test_nccl_entropy_from_the_intent():
    design = design_from_intent(intent('sonic', hosts={'nccl': {'qps_per_connection': 8, 'split_data_on_qps': 1}}))
    nccl = design.device('gpu0001')['nccl']
    assert nccl['NCCL_IB_QPS_PER_CONNECTION'] == 8 and nccl['NCCL_IB_SPLIT_DATA_ON_QPS'] == 1
    # ECMP without adaptive routing: several QPs per connection by default, so each connection spreads over paths.
    default = design_from_intent(intent('sonic')).device('gpu0001')['nccl']
    assert default['NCCL_IB_QPS_PER_CONNECTION'] == 4 and 'NCCL_IB_SPLIT_DATA_ON_QPS' not in default
    adaptive = design_from_intent(intent('nvue', underlay={'ecmp': {'adaptive_routing': True}})).device('gpu0001')
    assert adaptive['nccl']['NCCL_IB_QPS_PER_CONNECTION'] == 1


def test_nccl_entropy_keys_are_not_free_form():
    with pytest.raises(IntentError) as error:
        design_from_intent(intent('sonic', hosts={'nccl': {'extra': {'NCCL_IB_SPLIT_DATA_ON_QPS': 1}}}))
    assert 'hosts.nccl.extra.NCCL_IB_SPLIT_DATA_ON_QPS' in str(error.value)


def test_lldp_application_tlv_announces_roce_on_host_ports():
    model, files = leaf('nvue')
    config = yaml.safe_load(files['startup.yaml'])[0]['set']
    for item in model['interfaces']:
        tlv = config['interface'][item['name']].get('lldp', {}).get('application-tlv')
        if item['link_role'] == 'host_leaf':
            assert tlv == {'udp-port': {'4791': {}}}, item['name']
        else:
            assert tlv is None
    model, files = leaf('eos')
    text = files['startup-config.cfg']
    assert 'dcbx application' not in text  # no Arista source for the command (issue 35): EOS announces none
    assert text.count('   dcbx mode ieee\n') == sum(item['link_role'] == 'host_leaf' for item in model['interfaces'])


@pytest.mark.parametrize('release,wred', [('202305', False), ('202405', True)])
def test_sonic_counters_validation_reads_are_enabled(release, wred):
    _model, files = leaf('sonic', nos_release={'sonic': release})
    groups = json.loads(files['config_db.json'])['FLEX_COUNTER_TABLE']
    for group in ('PORT', 'QUEUE', 'PG_WATERMARK', 'QUEUE_WATERMARK', 'BUFFER_POOL_WATERMARK', 'PFCWD', 'PG_DROP'):
        assert groups[group] == {'FLEX_COUNTER_STATUS': 'enable'}
    # WRED/ECN queue counters exist from 202311 (sonic-flex_counter.yang, sonic-buildimage PR 14758).
    assert ('WRED_ECN_QUEUE' in groups) is wred


def test_eos_counts_ecn_marks_on_the_lossless_queues():
    _model, files = leaf('eos')
    text = files['startup-config.cfg']
    assert text.count('      random-detect ecn count\n') == text.count('      random-detect ecn minimum-threshold')
