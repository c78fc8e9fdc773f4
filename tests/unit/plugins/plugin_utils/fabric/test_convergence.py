"""Convergence a training job survives, on every platform: BFD on the fabric sessions by default, the BGP and
BFD timers of the intent, EOS waiting for FIB installation, no strict-priority class nothing maps to, and
route distinguishers that name no VLAN the switch does not have."""

import json

import pytest
import yaml

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_intent
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.errors import IntentError
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms import platform_names
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_model
from tests.unit.utils.platforms import platform_data

PLATFORMS = platform_names()  # every platform: a new one is judged too (and fails where its test folder says nothing)


def intent(platform, **underlay):
    return {
        'name': 'conv',
        'topology': {'rail_optimized': {'servers': 4, 'rails': 2, 'nic_speed_gbps': 400, 'leaf_radix': 4},
                     'platform': {'leaf': platform, 'spine': platform, 'super_spine': platform}},
        'underlay': underlay,
        'overlay': {'vrfs': [{'name': 'TENANT', 'l3vni': 50001}],
                    'networks': [{'name': 'rail0', 'vlan': 101, 'subnet': '10.101.0.0/24', 'rails': [0], 'vrf': 'TENANT'},
                                 {'name': 'rail1', 'vlan': 102, 'subnet': '10.102.0.0/24', 'rails': [1]}]},
    }


@pytest.fixture(scope='module', params=PLATFORMS)
def leaf(request):
    design = design_from_intent(intent(request.param))
    model = design.device('leaf001')
    return request.param, model, render_model(model)


def test_bfd_is_on_by_default_with_the_intent_timers(leaf):
    platform, model, files = leaf
    assert model['bgp']['bfd'] is True
    assert model['bgp']['timers'] == {'keepalive_s': 3, 'hold_s': 9}
    assert model['bgp']['bfd_timers'] == {'interval_ms': 300, 'multiplier': 3}
    data = platform_data(platform)
    assert hasattr(data, 'rendered_bfd'), 'say in tests/unit/platforms/%s/testdata.py (rendered_bfd) how it writes BFD ' \
        'and the BGP timers' % platform
    data.rendered_bfd(files)


def test_bfd_can_be_turned_off():
    for platform in PLATFORMS:
        model = design_from_intent(intent(platform, bfd=False)).device('leaf001')
        text = ''.join(render_model(model).values())
        assert 'bfd' not in text.replace('pfc', ''), platform


def test_eos_advertises_only_routes_installed_in_hardware():
    model = design_from_intent(intent('eos')).device('leaf001')
    assert model['bgp']['wait_for_fib'] is True
    text = render_model(model)['startup-config.cfg']
    router = text.split('router bgp', 1)[1]
    assert '\n   update wait-install\n' in router


@pytest.mark.parametrize('platform', PLATFORMS)
def test_route_distinguishers_name_no_missing_vlan(platform):
    design = design_from_intent(intent(platform))
    model = design.device('leaf001')
    vlans = {vlan['vlan'] for vlan in model['evpn']['vlans']}
    for vrf in model['evpn']['vrfs']:
        number = int(vrf['rd'].split(':')[1])
        # The L3VNI VLAN exists only on SONiC/FRR; an RD must never look like a VLAN the switch lacks.
        assert number not in vlans and not 1 <= number <= 4094, vrf['rd']
        assert number == 50001
    rds = [vlan['rd'] for vlan in model['evpn']['vlans']] + [vrf['rd'] for vrf in model['evpn']['vrfs']]
    assert len(rds) == len(set(rds))


def test_vrf_rd_stays_unique_when_the_l3vni_does_not_fit_16_bits():
    data = intent('eos')
    data['overlay']['vrfs'] = [{'name': 'A', 'l3vni': 70000}, {'name': 'B', 'l3vni': 4096}]
    data['overlay']['networks'][0]['vrf'] = 'A'
    data['overlay']['networks'][1]['vrf'] = 'B'
    model = design_from_intent(data).device('leaf001')
    numbers = [int(vrf['rd'].split(':')[1]) for vrf in model['evpn']['vrfs']]
    assert all(4094 < number <= 65535 for number in numbers) and len(set(numbers)) == len(numbers), numbers


def test_no_traffic_class_without_traffic_is_strict_priority():
    """Only the CNP class is strict; classes no DSCP maps to get a small DWRR share, never strict priority."""
    model = design_from_intent(intent('nvue')).device('leaf001')
    qos = model['qos']
    config = yaml.safe_load(render_model(model)['startup.yaml'])[0]['set']
    scheduler = config['qos']['egress-scheduler']['default-global']['traffic-class']
    strict = sorted(int(queue) for queue, entry in scheduler.items() if entry['mode'] == 'strict')
    assert strict == [qos['tc_to_queue'][qos['cnp_priority']]]
    assert sum(entry.get('bw-percent', 0) for entry in scheduler.values()) == 100
    assert sorted(int(queue) for queue in scheduler) == list(range(8))
    sonic = json.loads(render_model(design_from_intent(intent('sonic')).device('leaf001'))['config_db.json'])
    strict_sonic = {name for name, fields in sonic['SCHEDULER'].items() if fields['type'] == 'STRICT'}
    assert {fields['scheduler'] for key, fields in sonic['QUEUE'].items() if key.startswith('Ethernet0|')
            and fields['scheduler'] in strict_sonic} == {'AIFABRIC_CNP'}


@pytest.mark.parametrize('timers,field', [
    ({'keepalive_s': 5, 'hold_s': 9}, 'underlay.timers.hold_s'),
    ({'keepalive_s': 0}, 'underlay.timers.keepalive_s'),
    ({'bfd_interval_ms': 20}, 'underlay.timers.bfd_interval_ms'),
    ({'bfd_multiplier': 1}, 'underlay.timers.bfd_multiplier'),
])
def test_timer_fields_are_validated(timers, field):
    with pytest.raises(IntentError) as error:
        design_from_intent(intent('sonic', timers=timers))
    assert field in str(error.value)


def test_lossy_share_must_leave_room_for_idle_classes():
    data = intent('sonic')
    data['lossless'] = {'scheduler': {'lossless_weight_percent': 96, 'lossy_weight_percent': 4}}
    with pytest.raises(IntentError) as error:
        design_from_intent(data)
    assert 'lossless.scheduler.lossy_weight_percent' in str(error.value)


def test_frr_bfd_profile_writes_only_what_differs_from_bfdd_defaults():
    model = design_from_intent(intent('frr', timers={'bfd_interval_ms': 100, 'bfd_multiplier': 4})).device('leaf001')
    text = render_model(model)['frr.conf']
    assert 'bfd\n profile FABRIC\n  detect-multiplier 4\n  receive-interval 100\n  transmit-interval 100\n exit\n' in text
    # SONiC's bgp container runs no bfdd beside bgpcfgd: its frr.conf has no BFD whatever the timers (_sonic_bfd)
    sonic = design_from_intent(intent('sonic', timers={'bfd_interval_ms': 100, 'bfd_multiplier': 4})).device('leaf001')
    assert 'bfd' not in render_model(sonic)['frr.conf'].replace('RM_SET_SRC', '')
