# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Rolling deploy batches: no batch takes away the redundancy a training job needs."""

import copy

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.deploy.batches import batch_of, deploy_batches
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_intent

BASE = {
    'name': 'batches',
    'topology': {'rail_optimized': {'servers': 16, 'rails': 4, 'nic_speed_gbps': 400, 'leaf_radix': 16},
                 'platform': {'leaf': 'sonic', 'spine': 'sonic', 'super_spine': 'sonic'}},
    'overlay': {'networks': [{'name': 'rail%d' % rail, 'vlan': 100 + rail, 'subnet': '10.%d.0.0/24' % (100 + rail),
                              'rails': [rail]} for rail in range(4)]},
}


def _design(**rail_optimized):
    intent = copy.deepcopy(BASE)
    intent['topology']['rail_optimized'].update(rail_optimized)
    return design_from_intent(intent)


@pytest.mark.parametrize('shape', [{}, {'servers': 64}, {'servers': 64, 'tiers': 3}])
def test_every_switch_once_leaves_first_and_redundancy_kept(shape):
    design = _design(**shape)
    batches = deploy_batches(design)
    names = [name for batch in batches for name in batch]
    switches = [name for name, node in design.nodes.items() if node.role != 'host']
    assert sorted(names) == sorted(switches) and len(names) == len(set(names))
    roles = [[design.nodes[name].role for name in batch] for batch in batches]
    assert all(len(set(batch)) == 1 for batch in roles), 'a batch holds one role'
    order = [batch[0] for batch in roles]
    assert order == sorted(order, key=['leaf', 'spine', 'super_spine'].index), 'leaves, then spines, then super-spines'
    for batch in batches:
        nodes = [design.nodes[name] for name in batch]
        if nodes[0].role == 'leaf':
            assert len({node.rail for node in nodes}) == 1, 'one rail per leaf batch'
        if nodes[0].role == 'spine':
            for pod in {node.pod for node in nodes}:
                in_pod = [node for node in design.nodes.values() if node.role == 'spine' and node.pod == pod]
                if len(in_pod) > 1:
                    assert sum(node.pod == pod for node in nodes) <= len(in_pod) // 2 + len(in_pod) % 2 < len(in_pod)
    for role in ('spine', 'super_spine'):
        everyone = [name for name, node in design.nodes.items() if node.role == role]
        assert all(len(batch) < len(everyone) for batch, kinds in zip(batches, roles) if kinds[0] == role), \
            'never every %s at once' % role
    assert batch_of(design) == {name: number for number, batch in enumerate(batches, 1) for name in batch}
