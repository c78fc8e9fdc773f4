"""The containerlab digital twin generated from the intent."""

import copy
import os

import pytest
import yaml

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file, design_from_intent
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.errors import IntentError
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.lab import (
    containerlab_twin, lab_inventory, lab_names,
)
from tests.unit.utils.paths import ROOT

INTENT = os.path.join(ROOT, 'fabrics', 'lab.yml')
DESIGN = design_from_file(INTENT)


def raw_intent():
    with open(INTENT, encoding='utf-8') as handle:
        return yaml.safe_load(handle)


def topology(design=DESIGN):
    return containerlab_twin(design, 'aifabric/lab-node:0123456789ab', '/lab/ssh/id_ed25519.pub', '/lab/nodes')[0]


def test_every_device_is_a_node_with_its_design_management_address():
    nodes = topology()['topology']['nodes']
    assert set(nodes) == set(DESIGN.nodes)
    assert {name: node['mgmt-ipv4'] for name, node in nodes.items()} == DESIGN.management_ip
    assert topology()['mgmt'] == {'network': 'aifabric-lab', 'ipv4-subnet': '172.31.100.0/24'}


def test_nodes_are_unprivileged_and_never_pulled():
    lab_image = topology()['topology']['kinds']['linux']
    assert lab_image['privileged'] is False
    assert lab_image['cap-add'] == ['NET_ADMIN', 'NET_RAW', 'SYS_ADMIN']
    assert topology()['topology']['defaults'] == {'kind': 'linux', 'image-pull-policy': 'never', 'restart-policy': 'no'}
    assert lab_image['binds'] == ['/lab/ssh/id_ed25519.pub:/root/.ssh/authorized_keys:ro']
    nodes = topology()['topology']['nodes']
    assert nodes['leaf001']['env'] == {'AIFABRIC_LINKS': '4'} and nodes['gpu0001']['env'] == {'AIFABRIC_LINKS': '2'}


def test_links_follow_the_design_with_model_port_names():
    links = topology()['topology']['links']
    assert len(links) == len(DESIGN.links)
    assert all(link['mtu'] == 9100 for link in links)
    pairs = {tuple(link['endpoints']) for link in links}
    for name in DESIGN.device_names():
        model = DESIGN.device(name)
        if model['role'] == 'host':
            for rail in model['rails']:
                assert ('%s:%s' % (name, rail['interface']), '%s:%s' % (rail['leaf'], rail['leaf_interface'])) in pairs
        else:
            for item in model['interfaces']:
                ends = {'%s:%s' % (name, item['name']), '%s:%s' % (item['peer'], item['peer_interface'])}
                assert any(set(pair) == ends for pair in pairs)
    # Every interface is used once.
    used = [end for pair in pairs for end in pair]
    assert len(used) == len(set(used))


def test_lab_names_derive_from_the_intent_name():
    intent = raw_intent()
    intent['name'] = 'other'
    intent['management']['pool'] = '172.31.101.0/24'
    other = topology(design_from_intent(intent))
    assert other['name'] == 'other' and other['mgmt'] == {'network': 'aifabric-other', 'ipv4-subnet': '172.31.101.0/24'}
    assert lab_names(DESIGN)['container_prefix'] == 'aifabric-lab-'


def test_a_lab_needs_a_management_pool():
    intent = raw_intent()
    del intent['management']
    with pytest.raises(IntentError, match='management.pool: is required for a lab'):
        topology(design_from_intent(intent))


def test_a_vendor_switch_needs_its_image():
    intent = raw_intent()
    intent['topology']['platform'] = {'leaf': 'sonic', 'spine': 'frr', 'super_spine': 'frr'}
    intent['topology']['asic'] = {'leaf': 'spectrum4'}
    with pytest.raises(IntentError, match=r'lab_vendor_images.sonic: is required: the image of containerlab kind '
                       r'sonic-vm, already loaded into Docker, that runs the sonic switches \(leaf001, leaf002, leaf003 '
                       r'and 1 more\); nothing is pulled'):
        topology(design_from_intent(intent))


def test_management_addresses_must_be_in_the_pool():
    intent = raw_intent()
    intent['topology']['devices'] = {'leaf001': {'management_ip': '10.9.9.9'}, 'leaf002': {'management_ip': '172.31.100.1'}}
    with pytest.raises(IntentError) as error:
        topology(design_from_intent(intent))
    assert len(error.value.issues) == 2


def test_static_inventory_matches_the_plugin_groups():
    inventory = lab_inventory(DESIGN, '/x/intent.yml', '/lab/ssh/id_ed25519')['all']
    assert inventory['vars']['aifabric_intent'] == '/x/intent.yml'
    assert all(host['ansible_ssh_private_key_file'] == '/lab/ssh/id_ed25519' for host in inventory['hosts'].values())
    assert set(inventory['children']['gpu_servers']['hosts']) == {'gpu0001', 'gpu0002', 'gpu0003', 'gpu0004'}
    assert set(inventory['children']['platform_frr']['hosts']) == set(DESIGN.device_names()) - {
        'gpu0001', 'gpu0002', 'gpu0003', 'gpu0004'}
    assert inventory['children']['switches'] == {'children': {'leaf': {}, 'spine': {}}}
    assert inventory['hosts']['leaf001']['ansible_host'] == '172.31.100.10'
    assert copy.deepcopy(inventory) == inventory
