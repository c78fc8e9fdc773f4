# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fabric documentation: golden files for the lab, consistency with the device models, the SVG picture."""

import csv
import io
import os
import random
import xml.etree.ElementTree as ET

import pytest
import yaml

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import docs
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file, design_from_intent
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms import get_platform
from tests.unit.utils import sampling
from tests.unit.utils.golden import assert_golden
from tests.unit.utils.paths import ROOT

LAB_INTENT = os.path.join(ROOT, 'fabrics', 'lab.yml')
POD1K_INTENT = os.path.join(ROOT, 'fabrics', 'pod1k.yml')
SVG = '{http://www.w3.org/2000/svg}'


def _rail_networks(rails, prefix=20):
    return [{'name': 'rail%d' % rail, 'vlan': 100 + rail, 'subnet': '10.%d.0.0/%d' % (100 + rail, prefix), 'rails': [rail]}
            for rail in range(rails)]


@pytest.fixture(scope='module')
def lab():
    return design_from_file(LAB_INTENT)


@pytest.fixture(scope='module')
def pod1k():
    return design_from_file(POD1K_INTENT)


@pytest.fixture(scope='module')
def big():
    """The 16,384-GPU fabric: 2,048 servers x 8 rails at 400G on 64-port leaves (3 tiers, 16 pods)."""
    return design_from_intent({'name': 'big', 'topology': {'rail_optimized': {'servers': 2048, 'rails': 8, 'leaf_radix': 64, 'spine_radix': 64}},
                               'overlay': {'networks': _rail_networks(8)}})


@pytest.mark.parametrize('name', ['cabling.csv', 'cabling.md', 'addressing.md', 'asn.md', 'overlay.md', 'index.md',
                                  'devices.md'])
def test_lab_documents_match_golden_files(lab, name):
    produced = dict(docs.fabric_docs(lab))
    assert_golden('docs/lab/%s' % name, produced[name])


def test_lab_device_pages_match_golden_files(lab):
    for name in ('leaf001', 'spine002', 'gpu0003'):
        path, text = docs.device_page(lab, lab.device(name), ['frr.conf'] if name != 'gpu0003' else ['netplan.yaml'])
        assert path == 'devices/%s.md' % name
        assert_golden('docs/lab/%s' % path, text)


def test_fabric_docs_yields_every_document_once(lab):
    assert [name for name, _unused in docs.fabric_docs(lab)] == list(docs.FABRIC_DOCS)


def _csv_rows(design):
    return list(csv.DictReader(io.StringIO(docs.cabling_csv(design))))


@pytest.mark.parametrize('fixture', ['lab', 'pod1k'])
def test_cabling_agrees_with_device_models(fixture, request):
    """Every cabling row names the interfaces, peers and speeds the device configurations use, on both ends."""
    design = request.getfixturevalue(fixture)
    rows = _csv_rows(design)
    assert len(rows) == len(design.links)
    assert list(rows[0]) == list(docs.CABLING_COLUMNS)
    switch_ports = {}
    host_ports = {}
    for name in design.nodes:
        model = design.device(name)
        if model['role'] == 'host':
            for rail in model['rails']:
                host_ports[name, rail['interface']] = (rail['leaf'], rail['leaf_interface'], rail['speed_gbps'],
                                                       rail['cable_length_m'], rail['rail'])
        else:
            for item in model['interfaces']:
                switch_ports[name, item['name']] = (item['peer'], item['peer_interface'], item['speed_gbps'],
                                                    item['cable_length_m'])
    for row in rows:
        speed, length = int(row['speed_gbps']), int(row['cable_length_m'])
        assert switch_ports[row['b_device'], row['b_interface']] == (row['a_device'], row['a_interface'], speed, length)
        if row['a_role'] == 'host':
            assert host_ports[row['a_device'], row['a_interface']] == (row['b_device'], row['b_interface'], speed,
                                                                       length, int(row['rail']))
        else:
            assert switch_ports[row['a_device'], row['a_interface']] == (row['b_device'], row['b_interface'], speed,
                                                                         length)
    assert len(switch_ports) + len(host_ports) == 2 * len(rows)


def test_cabling_markdown_has_one_row_per_link(pod1k):
    text = docs.cabling_md(pod1k)
    link_rows = [line for line in text.splitlines() if line.startswith('| ') and line.split(' | ')[0][2:].isdigit()]
    assert len(link_rows) == len(pod1k.links) == 2048
    assert '| server - leaf | 400G | 10 m | 1,024 |' in text
    assert '| leaf - spine | 400G | 50 m | 1,024 |' in text


def test_addressing_numbered_lists_every_31(lab):
    text = docs.addressing_md(lab)
    for link in lab.links:
        if link.role != 'host_leaf':
            lower, upper, prefix = lab.link_ip[link.index]
            assert '| %s/%d |' % (lower, prefix) in text and '| %s/%d |' % (upper, prefix) in text
    for name in lab.device_names('host'):
        for rail in lab.device(name)['rails']:
            assert '| %s | %d | %s | %s |' % (name, rail['rail'], rail['interface'], rail['address']) in text


def test_addressing_unnumbered_and_routed_hosts():
    design = design_from_intent({'name': 'routed', 'topology': {'rail_optimized': {'servers': 4, 'rails': 2, 'leaf_radix': 4}},
                                 'underlay': {'routing': 'ebgp_unnumbered'}, 'hosts': {'attachment': 'routed'}})
    text = docs.addressing_md(design)
    assert 'Unnumbered eBGP: fabric links carry no IPv4 address' in text
    assert '| underlay.pools.host_p2p | 10.128.0.0/13 | /31 per server NIC | 16 | 524,288 |' in text
    rails = design.device('gpu0001')['rails']
    assert '| gpu0001 | 0 | eth1 | %s | %s | leaf001 Ethernet0 | - |' % (rails[0]['address'], rails[0]['gateway']) in text
    assert 'Each NIC has a /31 to its leaf' in text
    assert 'No EVPN-VXLAN overlay' in docs.overlay_md(design)
    assert 'unnumbered over IPv6 link-local' in docs.asn_md(design)


def test_asn_table_three_tiers(big):
    text = docs.asn_md(big)
    assert '| super-spines | 65000 |' in text
    assert '| spines | 65100-65115 (pod p: 65100 + p - 1) |' in text
    assert '| sspine001 | super-spine | - | 65000 |' in text
    assert '| spine512 | spine | 16 | 65115 |' in text
    assert sum(1 for line in text.splitlines() if line.startswith('| leaf')) == 512


def test_pod1k_index_summary(pod1k):
    text = docs.index_md(pod1k)
    for fact in ('| GPUs | 1,024 |', '| GPU servers | 128 (8 GPUs, 8 rails each) |', '| Leaves | 32 |',
                 '| Spines | 8, 4 links per leaf-spine pair |', '| Switch models | nvidia-sn5600: 40 |',
                 '| Tiers | 2 |', '| Oversubscription | 1:1 |', '| Platforms | sonic: 40 |',
                 '| Leaf ports | 32 down, 32 up |'):
        assert fact in text
    for link in ('(cabling.md)', '(cabling.csv)', '(addressing.md)', '(asn.md)', '(devices.md)', '(overlay.md)',
                 '(topology.svg)'):
        assert link in text
    # SN5600 (ACS-SN5600 SKU, dynamic model): headroom against what the SKU's buffer (158,229,504 B) leaves once SONiC's
    # pool calculator has its reserves (5,537,792 B on a leaf: buffer_pool_mellanox.lua) and the two ingress pools
    # their floor (a quarter of the SKU's default, 2 x 13,040,422 B).
    assert '| leaf | leaf001 | 18,448,384 / 126,610,868 B (14.6%) |' in text
    assert '| spine | spine001 | 40,763,392 / 124,415,412 B (32.8%) |' in text


def test_device_pages_of_a_lossless_switch_and_a_host(pod1k):
    _unused, leaf = docs.device_page(pod1k, pod1k.device('leaf001'), ['config_db.json', 'frr.conf'])
    assert '| Platform | SONiC (CONFIG_DB + FRR) |' in leaf
    assert '| Lossless profile | PFC 3, ECN, CNP strict TC6, watchdog drop |' in leaf
    assert '[config_db.json](../../configs/leaf001/config_db.json)' in leaf
    assert '| Ethernet0 | down | gpu0001 eth1 | 400G | 10 m | access VLAN 100 | - | 0 | pg_lossless_400000_10m_profile |' in leaf
    assert '| rail0 | 100 | 10100 | 10.100.0.0/24 | gpu | 10.100.0.1 | 65000:10100 |' in leaf
    assert '| pg_lossless_400000_50m_profile | 400G | 50 m |' in leaf
    _unused, host = docs.device_page(pod1k, pod1k.device('gpu0128'))
    assert '| 7 | eth8 | mlx5_7 | 400G | leaf032 Ethernet124 | 10.107.0.137/24 | 10.107.0.1 | rail7 (VLAN 107) | 107 |' in host
    assert '| GPUDirect RDMA | dmabuf |' in host
    assert 'Configuration:' not in host


def _svg_nodes(text):
    root = ET.fromstring(text.encode('utf-8'))
    assert root.tag == SVG + 'svg'
    groups = root.iter(SVG + 'g')
    nodes, more = [], []
    for group in groups:
        classes = group.get('class', '').split()
        if 'node' in classes:
            nodes.append(group)
        elif 'more' in classes:
            more.append(group)
    return root, nodes, more


def test_svg_lab_draws_every_device(lab):
    root, nodes, more = _svg_nodes(docs.topology_svg(lab))
    assert sorted(node.get('id') for node in nodes) == sorted('node-%s' % name for name in lab.nodes)
    assert not more
    lines = list(root.iter(SVG + 'line'))
    assert len(lines) == len(lab.links)  # every link of the lab is drawn, one line per device pair
    leaf = next(node for node in nodes if node.get('id') == 'node-leaf002')
    assert leaf.find(SVG + 'rect').get('fill') == docs.rail_colour(1)


@pytest.mark.parametrize('fixture, limit', [('pod1k', 16), ('big', 16), ('big', 7), ('pod1k', 1)])
def test_svg_big_fabrics_are_summarised(fixture, limit, request):
    design = request.getfixturevalue(fixture)
    text = docs.topology_svg(design, limit)
    _unused, nodes, more = _svg_nodes(text)
    layout = docs.svg_layout(design, limit)
    drawn = [node.name for tier in layout for node in tier['nodes']]
    assert sorted(node.get('id') for node in nodes) == sorted('node-%s' % name for name in drawn)
    assert all(len(tier['nodes']) <= limit for tier in layout)
    assert len(more) == sum(1 for tier in layout if tier['hidden'])
    assert sum(len(tier['nodes']) + tier['hidden'] for tier in layout) == len(design.nodes)
    assert len(text) < 120_000


def test_svg_layout_keeps_first_and_last_devices(big):
    tiers = {tier['role']: tier for tier in docs.svg_layout(big, 16)}
    assert list(tiers) == ['super_spine', 'spine', 'leaf', 'host']
    leaves = [node.name for node in tiers['leaf']['nodes']]
    assert leaves[:2] == ['leaf001', 'leaf002'] and leaves[-1] == 'leaf512'
    assert (tiers['leaf']['split'], tiers['leaf']['hidden'], tiers['host']['hidden']) == (8, 496, 2032)


def test_explicit_topology_docs():
    intent = {'name': 'tiny', 'topology': {'explicit': {
        'nodes': [{'name': 'h1', 'role': 'host'}, {'name': 'l1', 'role': 'leaf'}, {'name': 's1', 'role': 'spine'}],
        'links': [{'a': 'h1', 'b': 'l1', 'speed_gbps': 100, 'cable_length_m': 3},
                  {'a': 'l1', 'b': 's1', 'speed_gbps': 400, 'a_port': 9, 'b_port': 2}]}},
              'overlay': {'networks': _rail_networks(1, 24)}}
    design = design_from_intent(intent)
    rows = _csv_rows(design)
    assert [(row['a_device'], row['a_port'], row['b_device'], row['b_port'], row['speed_gbps'], row['cable_length_m'])
            for row in rows] == [('h1', '1', 'l1', '1', '100', '3'), ('l1', '9', 's1', '2', '400', '40')]
    _unused, nodes, _unused = _svg_nodes(docs.topology_svg(design))
    assert len(nodes) == 3


@pytest.mark.parametrize('fixture', ['sonic_small', 'eos_small', 'nvue_small', 'frr_routed'])
def test_no_fabric_document_shows_what_documents_source_leaves_out(fixture):
    """documents_source() leaves a device's NOS release out, so that a render of that device carries the fabric's
    documents over unmade: every switch moved to a release drawn from its platform's (seeded) must leave every
    document byte for byte as it was, and the digest too; anything else changed changes the digest."""
    with open(os.path.join(ROOT, 'tests', 'unit', 'fixtures', 'intents', fixture + '.yml'), encoding='utf-8') as handle:
        intent = yaml.safe_load(handle)
    design = design_from_intent(intent)
    before = {relative: make() for relative, make in docs.fabric_documents(design)}
    draw = random.Random('%d %s' % (sampling.run_seed(), fixture))
    changed = dict(intent, topology=dict(intent['topology'], devices=dict(intent['topology'].get('devices') or {})))
    for name, node in design.nodes.items():
        if node.role != 'host' and draw.random() < 0.7:
            releases = sorted(get_platform(node.platform).releases)
            changed['topology']['devices'][name] = dict(changed['topology']['devices'].get(name) or {},
                                                        nos_release=draw.choice(releases))
    other = design_from_intent(changed)
    assert {relative: make() for relative, make in docs.fabric_documents(other)} == before, sampling.describe()
    assert docs.documents_source(other.intent) == docs.documents_source(design.intent)
    assert docs.documents_source(dict(design.intent, description='another')) != docs.documents_source(design.intent)
