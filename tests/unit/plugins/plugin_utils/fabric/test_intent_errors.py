"""Every bad intent stops before any device is touched, with an error naming the field, value and what is allowed."""

import copy
import re

import pytest
from hypothesis import assume, given, settings, strategies as st

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import FabricDesign, design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.errors import IntentError
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.intent import load_intent
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms import platform_names

BASE = {
    'name': 'unit',
    'topology': {
        'rail_optimized': {'servers': 4, 'rails': 2, 'nic_speed_gbps': 100, 'leaf_radix': 4},
        'platform': {'leaf': 'sonic', 'spine': 'sonic', 'super_spine': 'sonic'},
    },
    'overlay': {'networks': [
        {'name': 'rail0', 'vlan': 100, 'subnet': '10.100.0.0/24', 'rails': [0]},
        {'name': 'rail1', 'vlan': 101, 'subnet': '10.101.0.0/24', 'rails': [1]},
    ]},
}


def _set(path, value):
    def mutate(intent):
        node = intent
        for key in path[:-1]:
            node = node.setdefault(key, {}) if isinstance(key, str) else node[key]
        node[path[-1]] = value
    return mutate


def _platforms(name):
    return _set(['topology', 'platform'], {'leaf': name, 'spine': name, 'super_spine': name})


def _both(*mutations):
    def mutate(intent):
        for mutation in mutations:
            mutation(intent)
    return mutate


def _delete(path):
    def mutate(intent):
        node = intent
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
    return mutate


EXPLICIT = {
    'nodes': [{'name': 'spine1', 'role': 'spine'}, {'name': 'leaf1', 'role': 'leaf'}, {'name': 'leaf2', 'role': 'leaf'},
              {'name': 'gpu1', 'role': 'host'}],
    'links': [{'a': 'gpu1', 'b': 'leaf1'}, {'a': 'leaf1', 'b': 'spine1'}, {'a': 'leaf2', 'b': 'spine1'}],
}


def _explicit(**changes):
    def mutate(intent):
        spec = copy.deepcopy(EXPLICIT)
        for key, value in changes.items():
            spec[key] = value(spec[key])
        intent['topology'].pop('rail_optimized')
        intent['topology']['explicit'] = spec
        intent['overlay']['networks'] = [{'name': 'rail0', 'vlan': 100, 'subnet': '10.100.0.0/24', 'rails': [0]}]
    return mutate


CASES = [
    # (id, mutation, expected path, expected words in the message)
    ('name-pattern', _set(['name'], 'Lab-1'), 'name', 'lowercase letters/digits'),
    ('unknown-root-key', _set(['colour'], 'blue'), 'colour', 'unknown key (allowed:'),
    ('typo-nested-key', _set(['lossless', 'rocedscp'], 26), 'lossless.rocedscp', 'unknown key'),
    ('servers-type', _set(['topology', 'rail_optimized', 'servers'], 'four'), 'topology.rail_optimized.servers',
     'must be an integer'),
    ('not-a-number', _set(['topology', 'rail_optimized', 'oversubscription'], float('nan')),
     'topology.rail_optimized.oversubscription', 'NaN is not allowed'),
    ('servers-missing', _delete(['topology', 'rail_optimized', 'servers']), 'topology.rail_optimized.servers',
     'is required'),
    ('rails-range', _set(['topology', 'rail_optimized', 'rails'], 0), 'topology.rail_optimized.rails',
     'between 1 and 16'),
    ('nic-speed-enum', _set(['topology', 'rail_optimized', 'nic_speed_gbps'], 300),
     'topology.rail_optimized.nic_speed_gbps', 'must be one of: 10, 25, 40, 50, 100, 200, 400, 800'),
    ('platform-enum', _set(['topology', 'platform', 'leaf'], 'junos'), 'topology.platform.leaf',
     'must be one of: %s' % ', '.join(platform_names())),
    ('no-topology', _set(['topology'], {}), 'topology', 'exactly one of rail_optimized or explicit'),
    ('both-topologies', _set(['topology', 'explicit'], EXPLICIT), 'topology', 'exactly one'),
    ('roce-dscp-range', _set(['lossless', 'roce_dscp'], 64), 'lossless.roce_dscp', 'between 0 and 63'),
    ('cnp-dscp-equals-roce', _set(['lossless', 'cnp_dscp'], 26), 'lossless.cnp_dscp', 'must differ from lossless.roce_dscp'),
    ('cnp-priority-lossless', _set(['lossless', 'cnp_priority'], 3), 'lossless.cnp_priority', 'must not be a lossless priority'),
    ('pfc-priority-range', _set(['lossless', 'pfc', 'priorities'], [3, 9]), 'lossless.pfc.priorities[1]',
     'between 0 and 7'),
    ('pfc-priority-repeat', _set(['lossless', 'pfc', 'priorities'], [3, 3]), 'lossless.pfc.priorities',
     'must not repeat'),
    ('pfc-too-many-for-sonic', _set(['lossless', 'pfc', 'priorities'], [2, 3, 4]), 'lossless.pfc.priorities[2]',
     'at most 2 lossless priorities'),
    ('dscp-map-reserved', _set(['lossless', 'dscp_map'], [{'dscp': 48, 'traffic_class': 3}]), 'lossless.dscp_map[0].dscp',
     'is already set by lossless.cnp_dscp'),
    ('dscp-map-duplicate', _set(['lossless', 'dscp_map'], [{'dscp': 24, 'traffic_class': 3}, {'dscp': 24, 'traffic_class': 0}]),
     'lossless.dscp_map[1].dscp', 'duplicates lossless.dscp_map[0].dscp'),
    ('dscp-map-class-without-bandwidth', _set(['lossless', 'dscp_map'], [{'dscp': 24, 'traffic_class': 5}]),
     'lossless.dscp_map[0].traffic_class', 'must be a lossless priority or the default class (0, 3)'),
    ('default-tc-lossless', _set(['lossless', 'default_traffic_class'], 3), 'lossless.default_traffic_class',
     'must differ'),
    ('ecn-min-ge-max', _set(['lossless', 'ecn'], {'min_threshold_bytes': 2000000, 'max_threshold_bytes': 1500000}),
     'lossless.ecn.min_threshold_bytes', 'must be below'),
    ('scheduler-sum', _set(['lossless', 'scheduler'], {'lossless_weight_percent': 60, 'lossy_weight_percent': 50}),
     'lossless.scheduler', 'must be 100'),
    ('lossless-weight-per-priority', _both(_set(['lossless', 'pfc', 'priorities'], [3, 4]),
                                           _set(['lossless', 'scheduler'], {'lossless_weight_percent': 1,
                                                                            'lossy_weight_percent': 99})),
     'lossless.scheduler.lossless_weight_percent', 'each of the 2 lossless priorities at least 1 %'),
    ('host-mtu-vxlan-overhead', _set(['lossless', 'mtu'], {'switch': 9100, 'host': 9100}), 'lossless.mtu.host',
     '50 bytes of VXLAN overhead'),
    ('switch-mtu-eos-max', _both(_platforms('eos'), _set(['lossless', 'mtu'], {'switch': 9216, 'host': 9000})),
     'lossless.mtu.switch', 'exceeds the Arista EOS (CLI) maximum of 9214'),
    ('watchdog-sonic-range', _set(['lossless', 'pfc', 'watchdog'], {'detection_ms': 50, 'poll_interval_ms': 100}),
     'lossless.pfc.watchdog.detection_ms', 'between 100 and 5000 ms'),
    ('watchdog-sonic-restore-below-poll', _set(['lossless', 'pfc', 'watchdog'],
                                               {'restoration_ms': 150, 'poll_interval_ms': 200}),
     'lossless.pfc.watchdog.restoration_ms', 'at least poll_interval_ms'),
    ('watchdog-eos-action', _both(_platforms('eos'), _set(['lossless', 'pfc', 'watchdog'], {'action': 'forward'})),
     'lossless.pfc.watchdog.action', 'must be one of: drop, alert'),
    ('watchdog-eos-seconds', _both(_platforms('eos'), _set(['lossless', 'pfc', 'watchdog'], {'detection_ms': 205})),
     'lossless.pfc.watchdog.detection_ms', 'EOS takes seconds: 0.205 s'),
    ('watchdog-nvue-robustness', _both(_platforms('nvue'), _set(['lossless', 'pfc', 'watchdog'],
                                                                {'detection_ms': 250, 'poll_interval_ms': 100})),
     'lossless.pfc.watchdog.detection_ms', 'poll_interval_ms x robustness'),
    ('pool-overlap', _set(['underlay', 'pools'], {'loopback': '10.254.0.0/20', 'vtep': '10.254.8.0/24'}),
     'underlay.pools.vtep', 'overlaps underlay.pools.loopback'),
    ('pool-host-bits', _set(['underlay', 'pools'], {'loopback': '10.254.0.1/20'}), 'underlay.pools.loopback',
     'no host bits set'),
    ('p2p-pool-too-small', _set(['underlay', 'pools'], {'p2p': '10.0.0.0/29'}), 'underlay.pools.p2p',
     'is too small: 8 fabric /31 links need 16 addresses'),
    ('loopback-pool-too-small', _set(['underlay', 'pools'], {'loopback': '10.254.0.0/30'}), 'underlay.pools.loopback',
     'is too small'),
    ('leaf-asn-range-too-small', _set(['underlay', 'asn'], {'leaf_first': 65001, 'leaf_last': 65002}),
     'underlay.asn.leaf_last', 'gives 2 leaf ASNs but the fabric has 4 leaves'),
    ('spine-asn-in-leaf-range', _set(['underlay', 'asn'], {'spine': 4200000005}), 'underlay.asn.spine',
     'inside the leaf ASN range'),
    ('duplicate-vlan', _set(['overlay', 'networks', 1, 'vlan'], 100), 'overlay.networks[1].vlan',
     'duplicates overlay.networks[0].vlan'),
    ('duplicate-vni', _both(_set(['overlay', 'vrfs'], [{'name': 'T1', 'l3vni': 10100}])), 'overlay.networks[0].vni',
     'duplicates the VNI of overlay.vrfs[0].l3vni'),
    ('unknown-vrf', _set(['overlay', 'networks', 0, 'vrf'], 'NOPE'), 'overlay.networks[0].vrf',
     'is not a defined VRF'),
    ('gateway-outside-subnet', _both(_set(['overlay', 'vrfs'], [{'name': 'T1', 'l3vni': 50001}]),
                                     _set(['overlay', 'networks', 0, 'vrf'], 'T1'),
                                     _set(['overlay', 'networks', 0, 'gateway'], '10.200.0.1')),
     'overlay.networks[0].gateway', 'must lie inside the subnet 10.100.0.0/24'),
    ('gateway-collides-with-hosts', _both(_set(['overlay', 'vrfs'], [{'name': 'T1', 'l3vni': 50001}]),
                                          _set(['overlay', 'networks', 0, 'vrf'], 'T1'),
                                          _set(['overlay', 'networks', 0, 'gateway'], '10.100.0.11')),
     'overlay.networks[0].gateway', 'collides with host addresses'),
    ('subnet-too-small', _set(['overlay', 'networks', 0, 'subnet'], '10.100.0.0/29'), 'overlay.networks[0].subnet',
     'is too small: 4 hosts from hosts.address_offset 10'),
    ('rail-without-network', _set(['overlay', 'networks', 1, 'rails'], []), 'overlay.networks', 'rails [1] attach to no network'),
    ('rail-out-of-range', _set(['overlay', 'networks', 0, 'rails'], [0, 5]), 'overlay.networks[0].rails[1]',
     'is not a rail of this fabric'),
    ('rail-in-two-networks', _set(['overlay', 'networks', 1, 'rails'], [1, 0]), 'overlay.networks[1].rails[1]',
     'is already attached'),
    ('evpn-without-networks', _set(['overlay', 'networks'], []), 'overlay.networks', 'must define a network per rail'),
    ('oversubscription', _set(['topology', 'rail_optimized', 'leaf_uplinks'], 1), 'topology.rail_optimized.oversubscription',
     'is exceeded: 3 x 100G down over 1 x 100G up gives 3.00:1'),
    ('spines-do-not-divide', _set(['topology', 'rail_optimized', 'spines'], 3), 'topology.rail_optimized.spines',
     'must divide the 2 uplinks'),
    ('two-tiers-do-not-fit', _both(_set(['topology', 'rail_optimized', 'servers'], 64),
                                   _set(['topology', 'rail_optimized', 'tiers'], 2),
                                   _set(['topology', 'rail_optimized', 'spine_radix'], 4),
                                   _set(['overlay', 'networks', 0, 'subnet'], '10.100.0.0/23'),
                                   _set(['overlay', 'networks', 1, 'subnet'], '10.102.0.0/23')),
     'topology.rail_optimized.tiers', 'cannot hold 64 leaves'),
    ('explicit-unknown-node', _explicit(links=lambda links: links + [{'a': 'leaf1', 'b': 'spine9'}]),
     'topology.explicit.links[3].b', 'is not a node'),
    ('explicit-duplicate-name', _explicit(nodes=lambda nodes: nodes + [{'name': 'leaf1', 'role': 'leaf'}]),
     'topology.explicit.nodes[4].name', 'duplicates another node name'),
    ('explicit-leaf-to-leaf', _explicit(links=lambda links: links + [{'a': 'leaf1', 'b': 'leaf2'}]),
     'topology.explicit.links[3]', 'cannot be linked'),
    ('explicit-port-reused', _explicit(links=lambda links: [dict(links[0], b_port=1), dict(links[1], a_port=1)] + links[2:]),
     'topology.explicit.links[1].a_port', 'port 1 of leaf1 is already used by links[0]'),
    ('explicit-rail-twice', _explicit(links=lambda links: links + [{'a': 'gpu1', 'b': 'leaf2', 'rail': 0}]),
     'topology.explicit.links[3].rail', 'already has a link on rail 0'),
    ('device-override-unknown', _set(['topology', 'devices'], {'leaf999': {'platform': 'eos'}}),
     'topology.devices.leaf999', 'is not a device of this fabric'),
    ('naming-without-n', _set(['topology', 'naming'], {'leaf': 'leaf-r{rail}'}), 'topology.naming.leaf',
     'must contain {n}'),
    ('naming-unknown-field', _set(['topology', 'naming'], {'host': 'gpu{n}{rack}'}), 'topology.naming.host',
     'uses unknown field {rack}'),
    ('rail-interfaces-count', _set(['hosts', 'rail_interfaces'], ['eth1']), 'hosts.rail_interfaces',
     'one entry per rail (2 rails)'),
    ('rail-interface-repeat', _set(['hosts', 'rail_interfaces'], ['eth1', 'eth1']), 'hosts.rail_interfaces[1]',
     'is listed twice'),
    ('bootstrap-is-rail', _both(_set(['hosts', 'rail_interfaces'], ['eth1', 'eth2']),
                                _set(['hosts', 'bootstrap_interface'], 'eth2')), 'hosts.bootstrap_interface',
     'must not be a rail interface'),
    ('nccl-extra-not-nccl', _set(['hosts', 'nccl'], {'extra': {'OMP_NUM_THREADS': 4}}), 'hosts.nccl.extra.OMP_NUM_THREADS',
     'must be NCCL_ followed by'),
    ('nccl-extra-managed', _set(['hosts', 'nccl'], {'extra': {'NCCL_IB_TC': 104}}), 'hosts.nccl.extra.NCCL_IB_TC',
     'is derived from the intent'),
    ('management-pool-too-small', _set(['management'], {'pool': '192.168.0.0/29'}), 'management.pool', 'is too small'),
    ('management-duplicate', _set(['topology', 'devices'], {'leaf001': {'management_ip': '192.0.2.1'},
                                                            'leaf002': {'management_ip': '192.0.2.1'}}),
     'topology.devices.leaf002.management_ip', 'is already the management address of leaf001'),
    ('buffer-pool-too-small', _both(_set(['topology', 'platform'], {'leaf': 'nvue', 'spine': 'nvue'}),
                                    _set(['lossless', 'buffer'], {'pool_bytes': 100000})), 'lossless.buffer',
     'need more lossless headroom than the buffer holds'),
    ('headroom-beyond-the-sku-buffer', _both(_set(['lossless', 'cable_length_m'], {'host_leaf': 999, 'leaf_spine': 10000}),
                                             _set(['topology', 'rail_optimized', 'servers'], 64),
                                             _set(['topology', 'rail_optimized', 'leaf_radix'], 128)),
     'lossless.buffer', 'ACS-SN5600 HWSKU defaults, shared pools computed by the switch'),
    ('asic-without-a-shipped-model', _set(['topology', 'asic'], {'leaf': 'trident3'}), 'topology.asic.leaf',
     'no shipped switch model runs sonic with this ASIC'),
    ('model-not-for-this-nos', _set(['topology', 'model'], {'leaf': 'arista-7060dx5-64s'}), 'topology.model.leaf',
     'runs eos, not sonic'),
    ('asic-contradicts-model', _both(_set(['topology', 'model'], {'spine': 'nvidia-sn4700'}),
                                     _set(['topology', 'asic'], {'spine': 'spectrum4'})), 'topology.asic.spine',
     'contradicts model nvidia-sn4700 (spectrum3)'),
    ('model-lacks-the-speed', _both(_set(['topology', 'model'], {'leaf': 'nvidia-sn4700'}),
                                    _set(['topology', 'rail_optimized', 'nic_speed_gbps'], 800)), 'topology.model.leaf',
     'cannot run 800G'),
    ('more-ports-than-the-model', _both(_set(['topology', 'model'], {'leaf': 'nvidia-sn4700'}),
                                        _set(['topology', 'rail_optimized', 'leaf_radix'], 160)),
     'topology.rail_optimized.leaf_radix', 'exceeds the 128 x 100G ports of the leaf model nvidia-sn4700'),
    ('unsupported-nos-release', _set(['topology', 'nos_release'], {'nvue': '4.4'}), 'topology.nos_release.nvue',
     'is not a supported NVIDIA Cumulus Linux (NVUE) release (supported: 5.9, 5.10'),
    ('unsupported-device-release', _set(['topology', 'devices'], {'leaf001': {'nos_release': '201811'}}),
     'topology.devices.leaf001.nos_release', 'supported: 202305, 202311, 202405, 202411, 202505'),
    ('unknown-model', _set(['topology', 'model'], {'leaf': 'sn9999'}), 'topology.model.leaf', 'must be one of'),
    ('release-not-a-version', _set(['topology', 'nos_release'], {'sonic': 'latest'}), 'topology.nos_release.sonic',
     'must be'),
    ('ecn-reference-speed', _set(['lossless', 'ecn', 'reference_speed_gbps'], 300), 'lossless.ecn.reference_speed_gbps',
     'must be one of'),
    ('ecn-scale-not-bool', _set(['lossless', 'ecn', 'scale_with_speed'], 'yes'), 'lossless.ecn.scale_with_speed',
     'must be true or false'),
    ('hash-field-unknown', _set(['underlay', 'ecmp', 'hash_fields'], ['l4_src_port', 'vni']),
     'underlay.ecmp.hash_fields[1]', 'must be one of'),
    ('adaptive-routing-not-bool', _set(['underlay', 'ecmp', 'adaptive_routing'], 1), 'underlay.ecmp.adaptive_routing',
     'must be true or false'),
    ('split-data-on-qps-range', _set(['hosts', 'nccl', 'split_data_on_qps'], 2), 'hosts.nccl.split_data_on_qps',
     'must be between 0 and 1'),
    ('bfd-interval-range', _set(['underlay', 'timers', 'bfd_interval_ms'], 10), 'underlay.timers.bfd_interval_ms',
     'must be between 50 and 10000'),
    ('device-model-override', _set(['topology', 'devices'], {'leaf001': {'model': 'arista-7060x6-64pe'}}),
     'topology.devices.leaf001.model', 'runs eos, not sonic'),
    ('host-override-platform', _set(['topology', 'devices'], {'gpu0001': {'platform': 'eos'}}), 'topology.devices.gpu0001',
     'apply to switches only'),
    ('management-gateway-outside-pool', _set(['management'], {'pool': '192.168.0.0/24', 'gateway': '192.168.1.1'}),
     'management.gateway', 'must be a host address of management.pool 192.168.0.0/24'),
    ('management-gateway-without-pool', _set(['management'], {'gateway': '192.168.1.1'}), 'management.gateway',
     'needs management.pool'),
    ('management-gateway-is-a-switch', _set(['management'], {'pool': '192.168.0.0/24', 'gateway': '192.168.0.10'}),
     'topology.devices.leaf001.management_ip', 'is already the management address of the management gateway'),
    ('management-switch-outside-pool', lambda intent: intent.update(
        management={'pool': '192.168.0.0/24'}, topology=dict(intent['topology'], devices={
            'leaf001': {'management_ip': '10.9.9.9'}})),
     'topology.devices.leaf001.management_ip', 'is outside management.pool 192.168.0.0/24'),
    ('management-ntp-not-an-address', _set(['management'], {'ntp_servers': ['ntp.example.net']}),
     'management.ntp_servers[0]', 'must be an IPv4 address'),
    ('management-too-many-dns', _set(['management'], {'dns_servers': ['10.0.0.%d' % n for n in range(1, 5)]}),
     'management.dns_servers', 'at most 3'),
    ('management-user-name', _set(['management'], {'users': [{'name': 'root;reboot'}]}), 'management.users[0].name',
     'a Linux user name'),
    ('management-user-role', _set(['management'], {'users': [{'name': 'ops', 'role': 'root'}]}),
     'management.users[0].role', 'admin'),
    ('management-user-duplicate', _set(['management'], {'users': [{'name': 'ops'}, {'name': 'ops'}]}),
     'management.users[1].name', 'duplicates management.users[0].name'),
    ('management-domain-injection', _set(['management'], {'dns_domain': 'lab.net\nusername x'}),
     'management.dns_domain', 'RFC 1123'),
]


def _design(mutation):
    intent = copy.deepcopy(BASE)
    mutation(intent)
    return FabricDesign(load_intent(intent))


def test_base_intent_is_valid():
    design = _design(lambda intent: None)
    assert design.summary()['leaves'] == 4


@pytest.mark.parametrize('mutation,path,words', [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_invalid_intent_names_the_field(mutation, path, words):
    with pytest.raises(IntentError) as caught:
        _design(mutation)
    matching = [issue for issue in caught.value.issues if issue.path == path]
    assert matching, 'no issue at %s; got:\n%s' % (path, caught.value.report())
    assert any(words in issue.message for issue in matching), caught.value.report()
    assert path in caught.value.report()


def test_at_least_thirty_distinct_invalid_intents():
    assert len({case[0] for case in CASES}) >= 30
    assert len({case[2] for case in CASES}) >= 30


def test_all_problems_are_reported_at_once():
    intent = copy.deepcopy(BASE)
    intent['lossless'] = {'roce_dscp': 70, 'cnp_priority': 9, 'ecn': {'mark_probability_percent': 0}}
    intent['name'] = 'BAD NAME'
    with pytest.raises(IntentError) as caught:
        load_intent(intent)
    paths = {issue.path for issue in caught.value.issues}
    assert {'name', 'lossless.roce_dscp', 'lossless.cnp_priority', 'lossless.ecn.mark_probability_percent'} <= paths
    assert caught.value.report().startswith('Fabric intent has 4 problems:')


def test_data_that_is_not_plain_does_not_hide_the_other_problems():
    """A non-text key or a Python object (Python API) is reported together with the schema's findings elsewhere, and
    without a made-up 'is required' for what was left out."""
    intent = copy.deepcopy(BASE)
    intent[1] = 'x'
    intent['losless'] = {'roce_dscp': 26}
    intent['description'] = object()
    intent['overlay']['networks'][0]['vlan'] = 5000
    with pytest.raises(IntentError) as caught:
        load_intent(intent)
    problems = {issue.path: issue.message for issue in caught.value.issues}
    assert set(problems) == {'[1]', 'losless', 'description', 'overlay.networks[0].vlan'}, problems
    assert problems['losless'].startswith('unknown key')


def test_unknown_keys_are_named_without_their_value():
    intent = copy.deepcopy(BASE)
    intent['db_password'] = 'hunter2-unit'
    with pytest.raises(IntentError) as caught:
        load_intent(intent)
    assert caught.value.report().splitlines()[1].startswith('  - db_password: unknown key (allowed: ')
    assert 'hunter2' not in caught.value.report()


@pytest.mark.parametrize('document', [
    {'root:$6$salt$hash:19000:0:99999:7::': None},
    {'aws_secret_access_key': 'AKIA-unit', 'region': 'eu'},
    '-----BEGIN OPENSSH PRIVATE KEY----- AAAA-unit',
    ['password-unit', 'token-unit'],
    None,
])
def test_a_document_that_is_not_an_intent_is_refused_without_its_content(document):
    with pytest.raises(IntentError) as caught:
        load_intent(document)
    assert [issue.path for issue in caught.value.issues] == ['(root)']
    report = caught.value.report()
    for shown in ('root:', '$6$', 'AKIA', 'aws_', 'BEGIN', 'password', 'token', 'unit'):
        assert shown not in report, report


def test_report_shows_the_bad_value():
    with pytest.raises(IntentError) as caught:
        _design(_set(['lossless', 'roce_dscp'], 99))
    assert 'lossless.roce_dscp: must be between 0 and 63 (got 99)' in caught.value.report()


def test_non_mapping_intent():
    with pytest.raises(IntentError) as caught:
        load_intent(['not', 'a', 'mapping'])
    assert caught.value.issues[0].path == '(root)'


def test_unreadable_and_malformed_files(tmp_path):
    with pytest.raises(IntentError) as caught:
        design_from_file(str(tmp_path / 'missing.yml'))
    assert 'cannot be read' in caught.value.report()
    broken = tmp_path / 'broken.yml'
    broken.write_text('name: lab\ntopology: [unclosed\n')
    with pytest.raises(IntentError) as caught:
        design_from_file(str(broken))
    assert 'broken.yml:3: is not valid YAML' in caught.value.report()


def test_a_management_pool_too_small_is_one_problem_not_a_duplicate_per_device():
    intent = copy.deepcopy(BASE)
    intent['management'] = {'pool': '172.16.0.0/29'}  # 8 addresses for 10 devices from offset 10 (20 needed)
    with pytest.raises(IntentError) as caught:
        FabricDesign(load_intent(intent))
    lines = [line for line in str(caught.value).splitlines() if line.startswith('  - ')]
    assert lines == ["  - management.pool: is too small: 10 devices from offset 10 need 20 addresses, the pool has 8 "
                     "(got '172.16.0.0/29')"]


def test_plain_scalars_mean_what_the_yaml_1_2_core_schema_says():
    """YAML 1.1 (PyYAML's default) reads `1:0` as 60, `on`/`yes` as true, `0100` as 64 and `2024-01-01` as a date: a
    typo or an unquoted word would design another fabric. The intent is read with YAML 1.2 core meanings."""
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.intent_yaml import load_yaml_text
    data = load_yaml_text('plain: [1:0, on, off, yes, no, 0100, 0o17, 0x1f, 1_000, 2024-01-01, 1e3, true, False, ~, '
                          '-.inf]\ntagged: [!!int 1_000, !!float 1:30, !!bool true]\n')
    assert data['plain'][:-1] == ['1:0', 'on', 'off', 'yes', 'no', 100, 15, 31, '1_000', '2024-01-01', 1000.0, True,
                                  False, None]
    assert data['plain'][-1] == float('-inf')
    assert data['tagged'] == [1000, 90.0, True]


# --------------------------------------------------------------------------- errors a person can act on (issue 38)
def test_each_problem_of_an_intent_file_names_its_file_and_line(tmp_path):
    path = tmp_path / 'intent.yml'
    path.write_text('# a comment first\nname: lab\ntopology:\n  rail_optimized:\n    servers: 4\n    rails: 2\n'
                    '    leaf_radix: 8\n  platform: {leaf: sonik}\nlossless:\n  roce_dscp: 99\n  ecn:\n'
                    '    min_treshold_bytes: 5\n')
    with pytest.raises(IntentError) as caught:
        design_from_file(str(path))
    assert caught.value.report().splitlines()[1:] == [
        '  - lossless.ecn.min_treshold_bytes: unknown key; did you mean min_threshold_bytes? (allowed: '
        'mark_probability_percent, max_threshold_bytes, min_threshold_bytes, reference_speed_gbps, scale_with_speed) '
        '[%s:12]' % path,
        '  - lossless.roce_dscp: must be between 0 and 63 (got 99) [%s:10]' % path,
        "  - topology.platform.leaf: must be one of: sonic, eos, nvue, frr; did you mean sonic? (got 'sonik') [%s:8]"
        % path]


def test_a_missing_key_is_located_at_the_mapping_that_lacks_it(tmp_path):
    path = tmp_path / 'intent.yml'
    path.write_text('name: lab\ntopology:\n  rail_optimized:\n    servers: 4\n    rails: 2\n    leaf_radix: 8\n'
                    'overlay:\n  networks:\n    - {name: r0, vlan: 100, rails: [0]}\n')
    with pytest.raises(IntentError) as caught:
        design_from_file(str(path))
    assert '  - overlay.networks[0].subnet: is required [%s:9]' % path in caught.value.report().splitlines()


def test_no_suggestion_when_nothing_is_close():
    intent = copy.deepcopy(BASE)
    intent['topology']['platform']['leaf'] = 'junos'
    intent['qwerty'] = 1
    with pytest.raises(IntentError) as caught:
        load_intent(intent)
    assert 'did you mean' not in caught.value.report()


def test_a_vrf_no_network_is_in_is_refused():
    intent = copy.deepcopy(BASE)
    intent['overlay']['vrfs'] = [{'name': 'gpu', 'l3vni': 50000}, {'name': 'spare', 'l3vni': 50001}]
    intent['overlay']['networks'][0]['vrf'] = 'gpu'
    with pytest.raises(IntentError) as caught:
        load_intent(intent)
    assert [str(issue) for issue in caught.value.issues] == [
        "overlay.vrfs[1].name: has no network (no overlay.networks[].vrf names it), so no device would configure it: "
        "put a network in it or remove it (got 'spare')"]


def _shipped_intents():
    import os  # pylint: disable=import-outside-toplevel
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.intent_yaml import load_yaml_text
    from tests.unit.utils.paths import ROOT
    found = []
    for path in ('fabrics/lab.yml', 'fabrics/pod1k.yml', 'examples/awx/fabrics/pod1.yml'):
        with open(os.path.join(ROOT, path), encoding='utf-8') as handle:
            found.append(load_yaml_text(handle.read()))
    return found


SHIPPED_INTENTS = _shipped_intents()


def _keys(node, path=()):
    """(path of the mapping, key) of every key of every mapping of an intent."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield path, key
            yield from _keys(value, path + (key,))
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from _keys(item, path + (index,))


def _one_edit(word, kind, at, letter):
    at = at % len(word)
    if kind == 'drop':
        return word[:at] + word[at + 1:]
    if kind == 'double':
        return word[:at] + word[at] + word[at:]
    if kind == 'swap' and at + 1 < len(word) and word[at] != word[at + 1]:
        return word[:at] + word[at + 1] + word[at] + word[at + 2:]
    return word[:at] + letter + word[at + 1:] if word[at] != letter else word[:at] + letter + word[at:]


def _distance(left, right):
    """Damerau-Levenshtein distance (adjacent swaps count one), the oracle of what a one-key typo is."""
    rows = [[i + j if i * j == 0 else 0 for j in range(len(right) + 1)] for i in range(len(left) + 1)]
    for i in range(1, len(left) + 1):
        for j in range(1, len(right) + 1):
            rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + (left[i - 1] != right[j - 1]))
            if i > 1 and j > 1 and left[i - 1] == right[j - 2] and left[i - 2] == right[j - 1]:
                rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
    return rows[-1][-1]


@settings(max_examples=150, deadline=None)
@given(st.data(), st.sampled_from(['drop', 'double', 'swap', 'replace']), st.integers(0, 40),
       st.sampled_from('abcdefghijklmnopqrstuvwxyz_'))
def test_a_misspelt_key_anywhere_in_a_shipped_intent_is_named_with_the_key_it_was_meant_to_be(data, kind, at, letter):
    """One typo (a letter dropped, doubled, swapped or replaced) in any key of any mapping of a shipped intent: the
    error names the misspelt key and, when one allowed key is a single edit away from it, suggests that key."""
    intent = copy.deepcopy(data.draw(st.sampled_from(SHIPPED_INTENTS)))
    path, key = data.draw(st.sampled_from(sorted(_keys(intent), key=repr)))
    typo = _one_edit(key, kind, at, letter)
    mapping = intent
    for step in path:
        mapping = mapping[step]
    assume(typo not in mapping and len(key) >= 4)
    mapping[typo] = mapping.pop(key)
    with pytest.raises(IntentError) as caught:
        load_intent(intent)
    dotted = ''.join('[%d]' % step if isinstance(step, int) else ('.' if i else '') + step for i, step in enumerate(path))
    name = (dotted + '.' if dotted else '') + typo
    (issue,) = [issue for issue in caught.value.issues if issue.path == name]
    allowed = re.search(r'\(allowed: ([^)]*)\)', issue.message).group(1).split(', ')
    assert key in allowed, issue.message
    near = [choice for choice in allowed if _distance(typo, choice) == 1]
    if near == [key]:
        assert 'unknown key; did you mean %s?' % key in issue.message, issue.message
