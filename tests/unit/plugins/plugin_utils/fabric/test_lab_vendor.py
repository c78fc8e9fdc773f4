"""The lab twin on vendor images: containerlab kinds per platform and the port maps of each kind."""

import json
import os

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.errors import IntentError
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.lab import (
    LAB_KINDS, containerlab_twin, lab_inventory,
)
from tests.unit.utils.paths import ROOT

MIXED = design_from_file(os.path.join(ROOT, 'tests', 'doubles', 'fixtures', 'mixed.yml'))
IMAGES = {'eos': 'ceos:4.32.0F', 'sonic': 'vrnetlab/sonic_sonic-vs:202405', 'nvue': 'networkop/cx:5.4.0'}


def twin(kinds=None, images=None):
    return containerlab_twin(MIXED, 'aifabric/lab-node:0123456789ab', '/lab/ssh/id.pub', '/lab/nodes',
                             vendor_images=IMAGES if images is None else images, vendor_kinds=kinds)


def endpoints_of(topology, node):
    return sorted(end.split(':')[1] for link in topology['topology']['links'] for end in link['endpoints']
                  if end.split(':')[0] == node)


def test_each_platform_runs_as_its_default_kind_on_the_given_image():
    nodes = twin()[0]['topology']['nodes']
    assert (nodes['leaf001']['kind'], nodes['leaf001']['image']) == ('ceos', 'ceos:4.32.0F')
    assert (nodes['leaf002']['kind'], nodes['leaf002']['image']) == ('sonic-vm', 'vrnetlab/sonic_sonic-vs:202405')
    assert (nodes['spine001']['kind'], nodes['spine001']['image']) == ('cvx', 'networkop/cx:5.4.0')
    # GPU servers stay on the lab image (the kind defaults), with their link count for the node init.
    assert 'kind' not in nodes['gpu0001'] and nodes['gpu0001']['env'] == {'AIFABRIC_LINKS': '2'}
    assert all(node['mgmt-ipv4'] == MIXED.management_ip[name] for name, node in nodes.items())


def test_ceos_ports_come_from_an_interface_map_with_the_rendered_names():
    topology, files = twin()
    assert endpoints_of(topology, 'leaf001') == ['eth1', 'eth2', 'eth3', 'eth4']
    path = '/lab/nodes/leaf001/EosIntfMapping.json'
    assert topology['topology']['nodes']['leaf001']['binds'] == [path + ':/mnt/flash/EosIntfMapping.json:ro']
    assert json.loads(files[path]) == {
        'ManagementIntf': {'eth0': 'Management1'},
        'EthernetIntf': {'eth1': 'Ethernet1/1', 'eth2': 'Ethernet1/5', 'eth3': 'Ethernet2/1', 'eth4': 'Ethernet2/5'}}
    # Every link end of leaf001 is the interface its map names as the port of that link in the design.
    mapping = json.loads(files[path])['EthernetIntf']
    for item in MIXED.device('leaf001')['interfaces']:
        ends = [link['endpoints'] for link in topology['topology']['links']
                if any(end.startswith('leaf001:') and mapping[end.split(':')[1]] == item['name']
                       for end in link['endpoints'])]
        assert len(ends) == 1 and any(end.startswith(item['peer'] + ':') for end in ends[0]), item['name']
    assert sorted(files) == ['/lab/nodes/leaf001/EosIntfMapping.json', '/lab/nodes/leaf003/EosIntfMapping.json']


def test_sonic_vs_ports_sit_on_eth_n_of_their_lane():
    topology = twin()[0]
    assert endpoints_of(topology, 'leaf002') == ['eth1', 'eth2', 'eth3', 'eth4']  # Ethernet0, 4, 8, 12
    wired, rule = LAB_KINDS['sonic-vs'].wire(['Ethernet0', 'Ethernet8', 'Ethernet124', 'Ethernet2', 'Ethernet128'])
    assert wired == {'Ethernet0': 'eth1', 'Ethernet8': 'eth3', 'Ethernet124': 'eth32'}
    assert rule.startswith('Ethernet0, Ethernet4 ... Ethernet124')


def test_cumulus_ports_keep_their_names_in_cvx():
    assert endpoints_of(twin()[0], 'spine001') == ['swp1s0', 'swp1s1', 'swp2s0', 'swp2s1']


def test_a_kind_that_cannot_represent_a_port_names_the_switch_and_the_port():
    with pytest.raises(IntentError) as error:
        twin(kinds={'nvue': 'nvidia_cumulusvx'})
    report = error.value.report()
    assert 'topology.devices.spine001.ports: cannot be wired in a nvidia_cumulusvx twin: the kind takes swpN ' \
           '(the VM has no breakout ports) (got \'swp1s0\')' in report
    assert len(error.value.issues) == 8  # the four breakout ports of both spines


def test_a_kind_the_platform_cannot_run_is_refused():
    with pytest.raises(IntentError, match=r"lab_vendor_kinds.eos: a eos switch runs in containerlab as ceos "
                                          r"\(got 'sonic-vs'\)"):
        twin(kinds={'eos': 'sonic-vs'})


def test_every_missing_image_is_reported_at_once():
    with pytest.raises(IntentError) as error:
        twin(images={'sonic': 'vrnetlab/sonic_sonic-vs:202405'})
    assert [issue.path for issue in error.value.issues] == ['lab_vendor_images.eos', 'lab_vendor_images.nvue']


def test_static_inventory_leaves_the_vendor_login_to_the_user():
    hosts = lab_inventory(MIXED, '/x/mixed.yml', '/lab/ssh/id')['all']['hosts']
    assert 'ansible_user' not in hosts['leaf001'] and 'ansible_user' not in hosts['spine001']
    assert hosts['gpu0001']['ansible_user'] == 'root'
