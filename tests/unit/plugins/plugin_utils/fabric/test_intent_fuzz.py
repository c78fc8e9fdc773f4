"""Property: any mutation of a valid intent gives either a valid design or a clean IntentError, nothing else."""

import copy

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import FabricDesign
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.errors import IntentError
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.intent import load_intent

VALID = {
    'name': 'fuzz',
    'topology': {
        'rail_optimized': {'servers': 4, 'rails': 2, 'nic_speed_gbps': 100, 'leaf_radix': 4, 'spines': 2},
        'platform': {'leaf': 'sonic', 'spine': 'eos', 'super_spine': 'nvue'},
        'asic': {'leaf': 'spectrum4', 'spine': 'tomahawk4'},
        'naming': {'leaf': 'leaf{n:02d}'},
        'devices': {'leaf01': {'platform': 'frr'}},
    },
    'management': {'pool': '192.168.50.0/24'},
    'underlay': {'routing': 'ebgp_numbered', 'pools': {'p2p': '10.0.0.0/24'}, 'asn': {'spine': 65100}},
    'overlay': {
        'vrfs': [{'name': 'T1', 'l3vni': 50001}],
        'networks': [
            {'name': 'rail0', 'vlan': 100, 'subnet': '10.100.0.0/24', 'rails': [0], 'vrf': 'T1'},
            {'name': 'rail1', 'vlan': 101, 'vni': 20101, 'subnet': '10.101.0.0/24', 'rails': [1]},
        ],
    },
    'hosts': {'rail_interfaces': ['ens1', 'ens2'], 'nccl': {'gid_index': 3, 'extra': {'NCCL_DEBUG': 'WARN'}}},
    'lossless': {'roce_dscp': 26, 'cnp_dscp': 48, 'pfc': {'priorities': [3], 'watchdog': {'detection_ms': 200}},
                 'ecn': {'min_threshold_bytes': 150000, 'max_threshold_bytes': 1500000},
                 'mtu': {'switch': 9100, 'host': 9000}, 'cable_length_m': {'leaf_spine': 30}},
}


def _paths(node, prefix=()):
    """Every path to a value in the intent (mapping keys and list indexes)."""
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, prefix + (index,))


PATHS = [path for path in _paths(VALID) if path]

SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-5, max_value=10 ** 10), st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(['', 'eth0', 'sonic', 'eos', 'nvue', 'frr', 'junos', '10.0.0.0/8', '10.0.0.1', '300.1.1.1/24',
                     'leaf{n}', '{x}', 'a' * 40, 'T1', 'rail0', 'drop', 'forward', 'routed', 'auto', '3']),
    st.text(max_size=12),
)
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.text(max_size=6), inner, max_size=3)),
                      max_leaves=6)
MUTATION = st.tuples(st.sampled_from(['replace', 'delete', 'add']), st.sampled_from(PATHS), VALUES, st.text(max_size=8))


def _apply(intent, operation, path, value, new_key):
    parent = intent
    for key in path[:-1]:
        parent = parent[key]
    last = path[-1]
    if operation == 'replace':
        parent[last] = value
    elif operation == 'delete':
        del parent[last]
    elif isinstance(parent, dict):
        parent[new_key or 'extra'] = value
    else:
        parent.append(value)


def mutated(mutations):
    """A copy of VALID with the mutations applied; one that no longer fits (an earlier one removed or retyped its
    path) is skipped."""
    intent = copy.deepcopy(VALID)
    for operation, path, value, new_key in mutations:
        try:
            _apply(intent, operation, path, value, new_key)
        except (KeyError, IndexError, TypeError, AttributeError):
            continue
    return intent


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(MUTATION, min_size=1, max_size=3))
def test_mutated_intent_designs_or_fails_cleanly(mutations):
    intent = mutated(mutations)
    try:
        design = FabricDesign(load_intent(intent))
    except IntentError as exc:
        assert exc.issues, 'IntentError without issues'
        for issue in exc.issues:
            assert issue.path and issue.message
        return
    # A valid design must also produce every device model.
    for name in design.device_names():
        assert design.device(name)['name'] == name


def test_valid_fuzz_base_designs():
    design = FabricDesign(load_intent(copy.deepcopy(VALID)))
    assert design.device('leaf01')['platform'] == 'frr'
    assert design.device('gpu0001')['nccl']['NCCL_IB_GID_INDEX'] == 3
