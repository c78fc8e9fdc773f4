"""NVIDIA Cumulus NVUE renderer: golden files, the `nv config` YAML shape and lossless invariants."""

import copy
import json
import os
import re

import pytest
import yaml

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file, design_from_intent
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms import PLATFORMS
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms.nvue import render as nvue
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_model
from tests.unit.utils.golden import assert_golden

HERE = os.path.dirname(os.path.abspath(__file__))
INTENTS = os.path.normpath(os.path.join(HERE, '..', '..', '..', '..', 'fixtures', 'intents'))
FIXTURES = ('nvue_small', 'nvue_unnumbered')
ON = (True, 'on')  # PyYAML (YAML 1.1) reads NVUE's bare `on` as True


def _design(name):
    return design_from_file(os.path.join(INTENTS, name + '.yml'))


DESIGNS = {name: _design(name) for name in FIXTURES}
SWITCHES = [(name, device) for name in FIXTURES for device in DESIGNS[name].device_names()
            if DESIGNS[name].nodes[device].role != 'host']


def startup(model):
    return render_model(model)['startup.yaml']


def non_string_keys(node, path=()):
    """Paths of mapping keys that YAML did not read as strings (an unquoted 101 becomes an int)."""
    found = []
    if isinstance(node, dict):
        for key, value in node.items():
            if not isinstance(key, str):
                found.append('.'.join(map(str, path + (key,))))
            found.extend(non_string_keys(value, path + (str(key),)))
    elif isinstance(node, list):
        for index, item in enumerate(node):
            found.extend(non_string_keys(item, path + (str(index),)))
    return found


def check_nvue(text, model):
    """Problems of a rendered startup.yaml against its device model; an empty list means it is sound."""
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        return ['not valid YAML: %s' % exc]
    if not (isinstance(document, list) and len(document) == 1 and isinstance(document[0], dict)
            and list(document[0]) == ['set']):
        return ['not a one-document `- set:` list']
    problems = ['numeric key not quoted: %s' % path for path in non_string_keys(document)]
    config = document[0]['set']
    qos = model['qos']
    if config.get('system', {}).get('hostname') != model['name']:
        problems.append('system.hostname is not %s' % model['name'])
    nv_qos = config.get('qos', {})
    # C01/C02: trust l3, every DSCP mapped, RoCE and CNP to their switch priorities.
    mapping = nv_qos.get('mapping', {}).get('default-global', {})
    if mapping.get('trust') != 'l3':
        problems.append('qos mapping trust is %r, expected l3' % mapping.get('trust'))
    dscp = {int(key): value.get('switch-priority') for key, value in mapping.get('dscp', {}).items()}
    if sorted(dscp) != list(range(64)):
        problems.append('DSCP map does not cover 0..63')
    if dscp.get(qos['roce_dscp']) != qos['roce_priority']:
        problems.append('RoCE DSCP %d not on switch-priority %d' % (qos['roce_dscp'], qos['roce_priority']))
    if dscp.get(qos['cnp_dscp']) != qos['cnp_priority']:
        problems.append('CNP DSCP %d not on switch-priority %d' % (qos['cnp_dscp'], qos['cnp_priority']))
    # C03/C16: every port's PFC profile on exactly the lossless priorities, its cable length >= the port's cable.
    for item in model['interfaces']:
        name = config.get('interface', {}).get(item['name'], {}).get('qos', {}).get('pfc', {}).get('profile')
        pfc = nv_qos.get('pfc', {}).get(name, {})
        priorities = sorted(int(key) for key in pfc.get('switch-priority', {}))
        if priorities != sorted(qos['lossless_priorities']):
            problems.append('%s: PFC switch priorities %s != lossless priorities %s'
                            % (item['name'], priorities, qos['lossless_priorities']))
        if not isinstance(pfc.get('cable-length'), int) or pfc['cable-length'] < item['cable_length_m']:
            problems.append('%s: PFC cable-length %r is shorter than its cable %d m'
                            % (item['name'], pfc.get('cable-length'), item['cable_length_m']))
    # C08: ECN on the lossless queues only, with the intent thresholds.
    queue_of = {int(tc): queue for tc, queue in qos['tc_to_queue'].items()}
    lossless_queues = {queue_of[tc] for tc in qos['lossless_priorities']}
    # Every port is bound to the congestion-control profile of its speed (thresholds scale with the speed).
    for item in model['interfaces']:
        ecn = item['ecn']
        bound = config.get('interface', {}).get(item['name'], {}).get('qos', {}).get('congestion-control', {})
        name = bound.get('profile')
        expected = {'ecn': 'enable', 'min-threshold': ecn['min_threshold_bytes'],
                    'max-threshold': ecn['max_threshold_bytes'], 'probability': ecn['mark_probability_percent']}
        classes = nv_qos.get('congestion-control', {}).get(name, {}).get('traffic-class', {})
        marking = {int(key) for key, value in classes.items() if value.get('ecn') == 'enable'}
        if marking != lossless_queues:
            problems.append('%s: ECN marks queues %s, expected the lossless queues %s'
                            % (item['name'], sorted(marking), sorted(lossless_queues)))
        for queue in lossless_queues:
            if classes.get(str(queue)) != expected:
                problems.append('ECN profile of queue %d is %s, expected %s' % (queue, classes.get(str(queue)), expected))
    # C17: lossless pool share as the intent says (CL puts 100 % in default-lossy otherwise), total <= 100 %.
    pools = nv_qos.get('traffic-pool', {})
    lossless_percent = pools.get('default-lossless', {}).get('memory-percent')
    if lossless_percent != nvue.lossless_pool_percent(qos, model['buffer']):
        problems.append('default-lossless pool is %r %%, intent says %d %%'
                        % (lossless_percent, nvue.lossless_pool_percent(qos, model['buffer'])))
    if sum(pool.get('memory-percent', 0) for pool in pools.values()) > 100:
        problems.append('traffic pools exceed 100 %')
    # C10/C20: CNP strict, lossless DWRR, bandwidth <= 100 %.
    scheduler = nv_qos.get('egress-scheduler', {}).get('default-global', {}).get('traffic-class', {})
    if scheduler.get(str(queue_of[qos['cnp_priority']]), {}).get('mode') != 'strict':
        problems.append('CNP queue %d is not strict' % queue_of[qos['cnp_priority']])
    for queue in lossless_queues:
        entry = scheduler.get(str(queue), {})
        if entry.get('mode') != 'dwrr' or not entry.get('bw-percent'):
            problems.append('lossless queue %d is not DWRR with a bandwidth share' % queue)
    total = sum(entry.get('bw-percent', 0) for entry in scheduler.values())
    if total > 100:
        problems.append('egress-scheduler bw-percent sums to %d > 100' % total)
    # C12/C13: watchdog detection = polling-interval x robustness, enabled on every swp.
    watchdog = qos['watchdog']
    global_wd = nv_qos.get('pfc-watchdog')
    interfaces = config.get('interface', {})
    if watchdog['enabled']:
        if not global_wd or global_wd.get('polling-interval', 0) * global_wd.get('robustness', 0) != watchdog['detection_ms']:
            problems.append('pfc-watchdog %s does not give detection %d ms' % (global_wd, watchdog['detection_ms']))
        elif global_wd['polling-interval'] != watchdog['poll_interval_ms']:
            problems.append('pfc-watchdog polling-interval %s != %d' % (global_wd['polling-interval'], watchdog['poll_interval_ms']))
        for item in model['interfaces']:
            state = interfaces.get(item['name'], {}).get('qos', {}).get('pfc-watchdog', {}).get('state')
            if state != 'enable':
                problems.append('%s has no PFC watchdog' % item['name'])
    elif global_wd:
        problems.append('pfc-watchdog present although disabled')
    # Interfaces: every model port is a swp with the model MTU; addresses and access VLANs as modelled.
    for item in model['interfaces']:
        port = interfaces.get(item['name'])
        if port is None:
            problems.append('%s missing' % item['name'])
            continue
        if port.get('type') != 'swp' or port.get('link', {}).get('mtu') != item['mtu']:
            problems.append('%s is not a swp with MTU %d' % (item['name'], item['mtu']))
        if item['ipv4'] and item['ipv4'] not in port.get('ip', {}).get('address', {}):
            problems.append('%s lacks address %s' % (item['name'], item['ipv4']))
        access = port.get('bridge', {}).get('domain', {}).get(nvue.DOMAIN, {}).get('access')
        if access != item['access_vlan']:
            problems.append('%s access VLAN %r != %r' % (item['name'], access, item['access_vlan']))
    # BGP: one neighbor per model neighbor, keyed by IP (numbered) or swp (unnumbered).
    bgp = config.get('vrf', {}).get('default', {}).get('router', {}).get('bgp', {})
    neighbors = bgp.get('neighbor', {})
    keys = [peer['ip'] if model['bgp']['numbered'] else peer['interface'] for peer in model['bgp']['neighbors']]
    if sorted(neighbors) != sorted(keys):
        problems.append('BGP neighbors %s != model %s' % (sorted(neighbors), sorted(keys)))
    for peer in model['bgp']['neighbors']:
        entry = neighbors.get(peer['ip'] if model['bgp']['numbered'] else peer['interface'], {})
        wanted = (peer['remote_asn'], 'numbered') if model['bgp']['numbered'] else ('external', 'unnumbered')
        if (entry.get('remote-as'), entry.get('type')) != wanted:
            problems.append('neighbor %s is %s, expected %s' % (peer, entry, wanted))
    router = config.get('router', {}).get('bgp', {})
    if router.get('autonomous-system') != model['bgp']['asn'] or router.get('router-id') != model['bgp']['router_id']:
        problems.append('router bgp ASN/router-id differ from the model')
    if model['evpn']:
        vxlan = config.get('nve', {}).get('vxlan', {})
        if vxlan.get('source', {}).get('address') != model['evpn']['vtep_ip']:
            problems.append('nve vxlan source address is not the VTEP')
        # C21: the outer header carries the inner DSCP (default `derive` takes it from the switch priority, so
        # tunnelled RoCE could land in a lossy class on the spines); decapsulation keeps the inner DSCP.
        encap = vxlan.get('encapsulation', {}).get('dscp', {}).get('action')
        decap = vxlan.get('decapsulation', {}).get('dscp', {}).get('action')
        if (encap, decap) != ('copy', 'preserve'):
            problems.append('nve vxlan DSCP actions are %s/%s, expected copy/preserve' % (encap, decap))
        vlans = config.get('bridge', {}).get('domain', {}).get(nvue.DOMAIN, {}).get('vlan', {})
        for vlan in model['evpn']['vlans']:
            if str(vlan['vni']) not in vlans.get(str(vlan['vlan']), {}).get('vni', {}):
                problems.append('VLAN %d is not mapped to VNI %d' % (vlan['vlan'], vlan['vni']))
        if config.get('evpn', {}).get('enable') not in ON:
            problems.append('evpn is not enabled')
    return problems


# ----------------------------------------------------------------------------------------------- golden files
@pytest.mark.parametrize('fixture,device', SWITCHES)
def test_golden(fixture, device):
    assert_golden('%s/%s.yaml' % (fixture, device), startup(DESIGNS[fixture].device(device)), platform='nvue')


@pytest.mark.parametrize('fixture,device', SWITCHES)
def test_rendered_files_pass_the_checker(fixture, device):
    model = DESIGNS[fixture].device(device)
    assert check_nvue(startup(model), model) == []


def test_documented_shape():
    """Reference 3.3/3.4: nested CLI tokens, list members as quoted keys, leaf-less members {}."""
    config = yaml.safe_load(startup(DESIGNS['nvue_small'].device('leaf001')))[0]['set']
    assert config['bridge']['domain']['br_default']['vlan']['101']['vni'] == {'10101': {}}
    assert config['interface']['lo'] == {'ip': {'address': {'10.254.0.1/32': {}, '10.254.16.1/32': {}}},
                                         'type': 'loopback'}
    assert config['interface']['swp1s0']['bridge']['domain']['br_default']['access'] == 101
    assert config['interface']['swp2s0']['ip']['address'] == {'10.0.0.1/31': {}}
    # 400G on the SN5600's 800G cages: 2 x 400G breakout (4 x 100G lanes each), RS FEC (PAM4).
    assert config['interface']['swp1'] == {'link': {'breakout': {'2x': {}}}}
    assert config['interface']['swp1s0']['link'] == {'fec': 'rs', 'mtu': 9100, 'speed': '400G'}
    assert config['router']['bgp']['enable'] in ON
    default = config['vrf']['default']['router']['bgp']
    assert default['neighbor']['10.0.0.0'] == {
        'address-family': {'l2vpn-evpn': {'enable': True}}, 'description': 'spine001:swp1s0', 'remote-as': 65100,
        'type': 'numbered', 'timers': {'hold': 9, 'keepalive': 3},
        'bfd': {'enable': True, 'detect-multiplier': 3, 'min-rx-interval': 300, 'min-tx-interval': 300}}
    assert default['address-family']['ipv4-unicast']['network'] == {'10.254.0.1/32': {}, '10.254.16.1/32': {}}
    assert default['address-family']['l2vpn-evpn']['enable'] in ON
    assert config['evpn']['vni']['10101'] == {'rd': '10.254.0.1:101', 'route-target': {'both': {'65000:10101': {}}}}
    assert config['nve']['vxlan']['source']['address'] == '10.254.16.1'
    tenant = config['vrf']['TENANT']
    assert tenant['evpn']['vni'] == {'50001': {}}
    assert tenant['router']['bgp']['route-import']['from-evpn']['route-target'] == {'65000:50001': {}}
    assert config['interface']['vlan101']['ip'] == {
        'address': {'10.101.0.253/24': {}}, 'vrf': 'TENANT',
        'vrr': {'address': {'10.101.0.1/24': {}}, 'enable': True, 'mac-address': '02:00:00:00:01:01', 'state': 'up'}}
    assert config['qos']['pfc-watchdog'] == {'polling-interval': 100, 'robustness': 3}
    assert config['qos']['pfc']['aifabric-5m']['switch-priority'] == {'3': {}}
    assert config['qos']['pfc']['aifabric-40m']['cable-length'] == 40
    assert config['interface']['swp1s0']['qos']['pfc'] == {'profile': 'aifabric-5m'}


def test_numeric_keys_are_quoted_in_the_text():
    text = startup(DESIGNS['nvue_small'].device('leaf001'))
    assert not re.findall(r'^\s+\d+:', text, re.M)
    assert "            '26':\n              switch-priority: 3\n" in text


def test_unnumbered_neighbors_use_swp_names():
    config = yaml.safe_load(startup(DESIGNS['nvue_unnumbered'].device('leaf001')))[0]['set']
    neighbors = config['vrf']['default']['router']['bgp']['neighbor']
    assert sorted(neighbors) == ['swp2s0', 'swp2s1']
    assert neighbors['swp2s0']['remote-as'] == 'external' and neighbors['swp2s0']['type'] == 'unnumbered'
    assert neighbors['swp2s0']['bfd'] == {'enable': True, 'detect-multiplier': 3, 'min-rx-interval': 300,
                                          'min-tx-interval': 300}
    assert 'ip' not in config['interface']['swp2s0']
    assert config['qos']['pfc-watchdog'] == {'polling-interval': 250, 'robustness': 2}


def test_spine_carries_evpn_but_no_vtep():
    config = yaml.safe_load(startup(DESIGNS['nvue_small'].device('spine001')))[0]['set']
    assert 'nve' not in config and 'bridge' not in config and 'evpn' not in config
    assert config['vrf']['default']['router']['bgp']['address-family']['l2vpn-evpn']['enable'] in ON
    assert list(config['vrf']) == ['default']


# ----------------------------------------------------------------------------------------------- the checker bites
@pytest.fixture(scope='module')
def leaf():
    model = DESIGNS['nvue_small'].device('leaf001')
    return model, startup(model)


@pytest.mark.parametrize('old,new,problem', [
    ('        robustness: 3\n', '        robustness: 2\n', 'does not give detection 300 ms'),
    ('        polling-interval: 100\n        robustness: 3\n', '        polling-interval: 300\n        robustness: 1\n',
     'polling-interval 300 != 100'),
    ("            '101':\n              vni:", "            101:\n              vni:", 'numeric key not quoted'),
    ("              switch-priority: 3\n", "              switch-priority: 0\n", 'RoCE DSCP 26 not on switch-priority 3'),
    ("            '3': {}\n", "            '4': {}\n", 'PFC switch priorities [4] != lossless priorities [3]'),
    ('          cable-length: 40\n', '          cable-length: 5\n', 'shorter than its cable 40 m'),
    ("            '0':\n              ecn: disable\n", "            '0':\n              ecn: enable\n",
     'ECN marks queues [0, 3]'),
    ('              max-threshold: 1500000\n', '              max-threshold: 6000000\n', 'ECN profile of queue 3'),
    ("            '6':\n              mode: strict\n", "            '6':\n              bw-percent: 10\n              mode: dwrr\n",
     'CNP queue 6 is not strict'),
    ('          trust: l3\n', '          trust: l2\n', "trust is 'l2'"),
    ("          pfc-watchdog:\n            state: enable\n        type: swp\n      swp1s1:",
     "        type: swp\n      swp1s1:", 'swp1s0 has no PFC watchdog'),
    ("          mtu: 9100\n", "          mtu: 1500\n", 'swp1s0 is not a swp with MTU 9100'),
    ("              access: 101\n", "              access: 102\n", 'swp1s0 access VLAN 102 != 101'),
    ('                remote-as: 65100\n', '                remote-as: external\n', "expected (65100, 'numbered')"),
    ("      hostname: 'leaf001'\n", "      hostname: 'leaf009'\n", 'system.hostname is not leaf001'),
    ('          memory-percent: 50\n', '          memory-percent: 60\n', 'default-lossless pool is 60 %'),
    ('            action: copy\n', '            action: derive\n', 'DSCP actions are derive/preserve'),
    ('- set:\n', '- unset:\n', 'not a one-document `- set:` list'),
    ('    interface:\n', '  interface:\n', 'not valid YAML'),
])
def test_checker_catches_a_wrong_file(leaf, old, new, problem):
    model, text = leaf
    assert old in text, 'the mutation must apply to the rendered text'
    problems = check_nvue(text.replace(old, new, 1), model)
    assert any(problem in item for item in problems), problems


def test_checker_catches_a_missing_neighbor(leaf):
    model, text = leaf
    document = yaml.safe_load(text)
    del document[0]['set']['vrf']['default']['router']['bgp']['neighbor']['10.0.0.2']
    problems = check_nvue(yaml.safe_dump(document), model)
    assert any('BGP neighbors' in item for item in problems), problems


# ----------------------------------------------------------------------------------------------- variants
def _intent(**lossless):
    roles = {'leaf': 'nvue', 'spine': 'nvue', 'super_spine': 'nvue'}
    return {
        'name': 'nvuevar',
        'topology': {'rail_optimized': {'servers': 4, 'rails': 2, 'nic_speed_gbps': 400, 'leaf_radix': 4},
                     'platform': roles},
        'overlay': {'networks': [{'name': 'rail%d' % rail, 'vlan': 101 + rail, 'subnet': '10.10%d.0.0/24' % rail,
                                  'rails': [rail]} for rail in range(2)]},
        'lossless': lossless,
    }


def test_two_lossless_priorities():
    model = design_from_intent(_intent(pfc={'priorities': [3, 4]})).device('leaf001')
    text = startup(model)
    assert check_nvue(text, model) == []
    qos = yaml.safe_load(text)[0]['set']['qos']
    assert all(profile['switch-priority'] == {'3': {}, '4': {}} for profile in qos['pfc'].values())
    scheduler = qos['egress-scheduler']['default-global']['traffic-class']
    assert (scheduler['3']['bw-percent'], scheduler['4']['bw-percent'], scheduler['0']['bw-percent']) == (25, 25, 46)
    assert all(scheduler[str(tc)] == {'bw-percent': 1, 'mode': 'dwrr'} for tc in (1, 2, 5, 7))


def test_disabled_watchdog():
    model = design_from_intent(_intent(pfc={'watchdog': {'enabled': False}})).device('leaf001')
    text = startup(model)
    assert 'pfc-watchdog' not in text
    assert check_nvue(text, model) == []


def test_lossless_pool_from_pool_bytes():
    model = design_from_intent(_intent(buffer={'pool_bytes': 40 * 1024 * 1024})).device('leaf001')
    config = yaml.safe_load(startup(model))[0]['set']
    # Spectrum-4: 160 MiB buffer, so 40 MiB is 25 %.
    assert config['qos']['traffic-pool'] == {'default-lossless': {'memory-percent': 25},
                                             'default-lossy': {'memory-percent': 75}}


def test_descriptions_with_quotes_stay_valid_yaml():
    assert nvue.quote("it's") == "'it''s'"
    assert yaml.safe_load('key: %s' % nvue.quote("a: 'b' #c")) == {'key': "a: 'b' #c"}


def test_model_after_json_round_trip_renders_identically():
    model = DESIGNS['nvue_small'].device('leaf001')
    assert startup(json.loads(json.dumps(model))) == startup(model)


def test_renderer_does_not_modify_the_model():
    model = DESIGNS['nvue_small'].device('leaf001')
    before = copy.deepcopy(model)
    startup(model)
    assert model == before


def test_routed_rail_svis_use_vrr():
    """Defect 3: the rail subnet spans every leaf of the rail through the L2VNI, so each leaf's SVI has its own
    address and the gateway is the shared VRR address and MAC (CL "Virtual Router Redundancy")."""
    design = DESIGNS['nvue_small']
    seen = {}
    for leaf in ('leaf001', 'leaf003'):  # both rail-0 leaves carry the routed network rail0
        model = design.device(leaf)
        config = yaml.safe_load(startup(model))[0]['set']
        svi = config['interface']['vlan101']
        vlan = next(item for item in model['evpn']['vlans'] if item['vlan'] == 101)
        assert svi['ip']['address'] == {'%s/24' % vlan['svi_ip']: {}}
        assert svi['ip']['vrr'] == {'address': {'10.101.0.1/24': {}}, 'enable': True,
                                    'mac-address': model['evpn']['gateway_mac'], 'state': 'up'}
        seen[leaf] = vlan['svi_ip']
    assert len(set(seen.values())) == 2 and '10.101.0.1' not in seen.values()


def test_nvue_syntax_follows_the_release():
    """Defect 8: CL 5.15 replaced `enable: on` by `state: enabled` and moved VRR to `ipv4 vrr`; the release comes from
    the intent, per platform or per device. Its list of changed commands has no QoS row: the QoS values keep
    enable/disable (issue 40, NVUE reference QoS)."""
    data = _intent()
    data['overlay'] = {'vrfs': [{'name': 'T', 'l3vni': 5000}],
                       'networks': [{'name': 'rail0', 'vlan': 101, 'subnet': '10.100.0.0/24', 'rails': [0], 'vrf': 'T'},
                                    {'name': 'rail1', 'vlan': 102, 'subnet': '10.101.0.0/24', 'rails': [1]}]}
    data['topology']['nos_release'] = {'nvue': '5.15'}
    data['topology']['devices'] = {'leaf003': {'nos_release': '5.14'}}
    design = design_from_intent(data)
    new, old = startup(design.device('leaf001')), startup(design.device('leaf003'))
    assert design.device('leaf001')['nos_release'] == '5.15' and design.device('leaf003')['nos_release'] == '5.14'
    assert 'enable: on' not in new and ': on\n' not in new and 'state: enabled' in new
    config = yaml.safe_load(new)[0]['set']
    assert config['evpn'] == {'state': 'enabled'} or config['evpn']['state'] == 'enabled'
    assert config['nve']['vxlan']['state'] == 'enabled'
    assert config['interface']['vlan101']['ipv4']['vrr']['address'] == {'10.100.0.1/24': {}}
    assert config['qos']['pfc']['aifabric-5m']['rx'] == 'enable'
    assert 'state: enabled' not in old and 'enable: on' in old
    assert yaml.safe_load(old)[0]['set']['interface']['vlan101']['ip']['vrr']['state'] == 'up'


def _release_design(release):
    """Routed rail0 (VRR SVIs), management services, and the given Cumulus Linux release on every switch."""
    data = _intent()
    data['overlay'] = {'vrfs': [{'name': 'T', 'l3vni': 5000}],
                       'networks': [{'name': 'rail0', 'vlan': 101, 'subnet': '10.100.0.0/24', 'rails': [0], 'vrf': 'T'},
                                    {'name': 'rail1', 'vlan': 102, 'subnet': '10.101.0.0/24', 'rails': [1]}]}
    data['topology']['nos_release'] = {'nvue': release}
    data['management'] = {'pool': '192.0.2.0/24', 'dns_servers': ['192.0.2.53'], 'dns_domain': 'fabric.example',
                          'ntp_servers': ['192.0.2.123'], 'syslog_servers': ['192.0.2.14']}
    return design_from_intent(data)


def _config(model):
    return yaml.safe_load(startup(model))[0]['set']


@pytest.mark.parametrize('release, vrr', [('5.14', {'enable': True}), ('5.15', {'state': 'enabled'})])
def test_vrr_is_enabled_globally_where_svis_have_a_gateway(release, vrr):
    """`nv set router vrr enable on` (5.15: `state enabled`) defaults to off; without it no SVI's VRR address, the
    hosts' gateway, comes up (CL "Virtual Router Redundancy - VRR"; 5.15 New and Changed NVUE Commands)."""
    design = _release_design(release)
    leaf = _config(design.device('leaf001'))
    assert leaf['router']['vrr'] == vrr
    assert 'vrr' not in _config(design.device('spine001'))['router']


@pytest.mark.parametrize('release, where', [('5.14', 'service'), ('5.15', 'system')])
def test_lldp_application_tlv_carries_the_roce_priority(release, where):
    """The TLV's priority defaults to 0 (CL "Link Layer Discovery Protocol": "If you do not set an application
    priority, Cumulus Linux uses the default priority 0"); LLDP moved from service to system in 5.15."""
    design = _release_design(release)
    model = design.device('leaf001')
    config = _config(model)
    assert config[where]['lldp']['application-tlv']['udp-port'] == {'4791': {'priority': model['qos']['roce_priority']}}
    host_port = next(item['name'] for item in model['interfaces'] if item['link_role'] == 'host_leaf')
    assert config['interface'][host_port]['lldp'] == {'application-tlv': {'udp-port': {'4791': {}}}}


def test_release_515_keys():
    """CL 5.15 "New and Changed NVUE Commands": `ip address|gateway` -> `ipv4 address|gateway`, `ip vrf` ->
    `vrf`, `ip vrr enable on` + `state up` -> `ipv4 vrr state enabled` + `vrr-state up`, `service dns|ntp <vrf>` ->
    `system dns|ntp` (with `vrf`); syslog moved to `system syslog server <id> vrf` in 5.13."""
    design = _release_design('5.15')
    model = design.device('leaf001')
    config = _config(model)
    text = startup(model)
    assert '\n        ip:\n' not in text and '\n          ip:\n' not in text
    svi = config['interface']['vlan101']
    vlan = next(item for item in model['evpn']['vlans'] if item['vlan'] == 101)
    assert svi['ipv4'] == {'address': {'%s/24' % vlan['svi_ip']: {}},
                           'vrr': {'address': {'10.100.0.1/24': {}}, 'mac-address': model['evpn']['gateway_mac'],
                                   'state': 'enabled', 'vrr-state': 'up'}}
    assert svi['vrf'] == 'T'
    eth0 = config['interface']['eth0']
    assert eth0['ipv4'] == {'address': {model['management']['address']: {}}, 'gateway': {model['management']['gateway']: {}}}
    assert eth0['vrf'] == 'mgmt'
    assert config['interface']['lo']['ipv4']['address']
    routed = next(item for item in model['interfaces'] if item['ipv4'])
    assert config['interface'][routed['name']]['ipv4'] == {'address': {routed['ipv4']: {}}}
    assert config['system']['dns'] == {'server': {'192.0.2.53': {'vrf': 'mgmt'}}, 'search': {'fabric.example': {}}}
    assert config['system']['ntp'] == {'server': {'192.0.2.123': {}}, 'vrf': 'mgmt'}
    assert config['system']['syslog'] == {'server': {'192.0.2.14': {'vrf': 'mgmt'}}}
    assert 'service' not in config


@pytest.mark.parametrize('release, syslog', [('5.12', 'service'), ('5.13', 'system'), ('5.14', 'system')])
def test_services_before_515(release, syslog):
    config = _config(_release_design(release).device('leaf001'))
    assert config['service']['dns'] == {'mgmt': {'search': {'fabric.example': {}}, 'server': {'192.0.2.53': {}}}}
    assert config['service']['ntp'] == {'mgmt': {'server': {'192.0.2.123': {}}}}
    if syslog == 'service':
        assert config['service']['syslog'] == {'mgmt': {'server': {'192.0.2.14': {}}}}
    else:
        assert config['system']['syslog'] == {'server': {'192.0.2.14': {'vrf': 'mgmt'}}} and 'syslog' not in config['service']
    assert config['interface']['vlan101']['ip']['vrr']['state'] == 'up'


def test_pfc_cable_length_is_per_port():
    """Each port's PFC profile carries its own cable (the SN5600 reserves headroom per port from it); one
    switch-wide longest cable over-reserves on every short host link (CL "Quality of Service": `nv set qos pfc
    <profile> cable-length`, `nv set interface <id> qos pfc profile <profile>`)."""
    model = DESIGNS['nvue_small'].device('leaf001')
    config = _config(model)
    cables = set()
    for item in model['interfaces']:
        profile = config['interface'][item['name']]['qos']['pfc']['profile']
        body = config['qos']['pfc'][profile]
        assert body['cable-length'] == item['cable_length_m']
        assert sorted(int(key) for key in body['switch-priority']) == sorted(model['qos']['lossless_priorities'])
        cables.add(item['cable_length_m'])
    assert len(cables) == 2 and len(config['qos']['pfc']) == 2


def test_rest_api_is_disabled():
    """CL 5.6+ enables the NVUE REST API by default ("be sure to disable or secure the API"); the deploy uses SSH."""
    for release in ('5.9', '5.15'):
        assert _config(_release_design(release).device('spine001'))['system']['api'] == {'state': 'disabled'}


# Every Cumulus Linux release the registry supports, split where NVIDIA's 5.15 list deprecates the per-neighbor BFD
# timers (an oracle of its own, not the renderer's release words).
NVUE_RELEASES = PLATFORMS['nvue'].releases
BFD_PROFILE_RELEASES = [r for r in NVUE_RELEASES if tuple(map(int, r.split('.'))) >= (5, 15)]
BFD_TIMER_RELEASES = [r for r in NVUE_RELEASES if r not in BFD_PROFILE_RELEASES]


@pytest.mark.parametrize('release', NVUE_RELEASES)
def test_qos_values_are_enable_disable_on_every_release(release):
    """NVIDIA's 5.15 "New and Changed NVUE Commands" lists no QoS row but `qos roce enable` -> `state`; the NVUE
    reference's QoS page writes `rx enable`, `tx enable`, `ecn enable` and `pfc-watchdog state enable` (issue 40)."""
    model = _release_design(release).device('leaf001')
    config = _config(model)
    for body in config['qos']['pfc'].values():
        assert (body['rx'], body['tx']) == ('enable', 'enable')
    for profile in config['qos']['congestion-control'].values():
        values = {tc: entry['ecn'] for tc, entry in profile['traffic-class'].items()}
        lossless = {str(tc) for tc in model['qos']['lossless_priorities']}
        assert values == {tc: 'enable' if tc in lossless else 'disable' for tc in values}
    for item in model['interfaces']:
        assert config['interface'][item['name']]['qos']['pfc-watchdog'] == {'state': 'enable'}


@pytest.mark.parametrize('release', BFD_PROFILE_RELEASES)
def test_bfd_profile_from_515(release):
    """CL 5.15 deprecates the per-neighbor BFD timers for `router bfd profile <name>` + `neighbor <id> bfd profile
    <name>`, with BFD switched on globally (`nv set router bfd state enabled`; CL 5.15 "Bidirectional Forwarding
    Detection - BFD", NVUE reference BFD "Introduced in Cumulus Linux 5.15.0")."""
    model = _release_design(release).device('leaf001')
    config = _config(model)
    timers = model['bgp']['bfd_timers']
    assert config['router']['bfd'] == {
        'profile': {'aifabric': {'detect-multiplier': timers['multiplier'], 'min-rx-interval': timers['interval_ms'],
                                 'min-tx-interval': timers['interval_ms']}},
        'state': 'enabled'}
    neighbors = config['vrf']['default']['router']['bgp']['neighbor']
    assert neighbors and all(peer['bfd'] == {'profile': 'aifabric'} for peer in neighbors.values())


@pytest.mark.parametrize('release', BFD_TIMER_RELEASES)
def test_bfd_timers_per_neighbor_before_515(release):
    model = _release_design(release).device('leaf001')
    config = _config(model)
    timers = model['bgp']['bfd_timers']
    assert 'bfd' not in config['router']
    for peer in config['vrf']['default']['router']['bgp']['neighbor'].values():
        assert peer['bfd'] == {'enable': True, 'detect-multiplier': timers['multiplier'],
                               'min-rx-interval': timers['interval_ms'], 'min-tx-interval': timers['interval_ms']}


@pytest.mark.parametrize('release', ['5.14', '5.15'])
def test_no_bfd_without_bfd(release):
    design = _release_design(release)
    data = dict(design.intent)
    data = copy.deepcopy(data)
    data['underlay']['bfd'] = False
    config = _config(design_from_intent(data).device('leaf001'))
    assert 'bfd' not in config['router']
    assert all('bfd' not in peer for peer in config['vrf']['default']['router']['bgp']['neighbor'].values())


def test_release_words_are_data():
    """Every supported release has words; a release takes the changes of every release up to it, none after."""
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms.nvue import PLATFORM, releases
    assert BFD_PROFILE_RELEASES and BFD_TIMER_RELEASES  # both BFD forms are tested on a release of their own
    for release in PLATFORM.releases:
        words = releases.words(release)
        assert set(words) == set(releases.BASE)
    assert releases.words('5.12')['system_syslog'] is False and releases.words('5.13')['system_syslog'] is True
    assert releases.words('5.14')['bfd_profile'] is False and releases.words('5.16')['bfd_profile'] is True
    assert {releases.words(release)['enable'] for release in PLATFORM.releases} == {'enable'}
