# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The NetBox import bundle (netbox.py) as NetBox 4.6.8 takes it, on the shipped fabrics, the golden shapes and
generated fabric shapes: every column a field of the type's import form, required ones filled, choice values
NetBox's, every reference to an object of an earlier file, nothing NetBox holds unique twice, every address on an
interface of the bundle and inside one of its prefixes (tests/unit/utils/netbox_bundle.py, against the forms as
data in tests/unit/fixtures/netbox/import-forms.json); and the bundle says what the design and the rendered
configurations say (devices, ports, speeds, MTUs, addresses, cables and their lengths, loopbacks and SVIs as each NOS
names them). scripts/netbox-import-check.sh loads bundles into a real NetBox (docs/testing.md)."""

import copy
import csv
import io
import ipaddress
import json
import os
import re

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import netbox
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file, design_from_intent
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.errors import IntentError
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms import get_platform, platform_names
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_model
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.switch_models import load_models
from tests.unit.utils import netbox_bundle
from tests.unit.utils.paths import ROOT

INTENTS = os.path.join(ROOT, 'tests', 'unit', 'fixtures', 'intents')
SHAPES = [os.path.join(ROOT, 'fabrics', 'lab.yml'), os.path.join(ROOT, 'fabrics', 'pod1k.yml')] + \
    [os.path.join(INTENTS, name) for name in sorted(os.listdir(INTENTS))]
_DESIGNS = {}


def design_of(path):
    if path not in _DESIGNS:
        _DESIGNS[path] = design_from_file(path)
    return _DESIGNS[path]


def bundle_of(design, status=netbox.DEFAULT_STATUS):
    files = {relative.split('/', 1)[1]: text for relative, text in netbox.bundle(design, status)}
    return files, json.loads(files['bundle.json'])


def outside_pools(design):
    """Management addresses the intent gives outside management.pool (a GPU server's own): in no prefix."""
    return {address for name, address in design.management_ip.items()
            if design.management_network is None or ipaddress.IPv4Address(address) not in design.management_network}


def assert_netbox_takes(design, status=netbox.DEFAULT_STATUS):
    files, index = bundle_of(design, status)
    problems = netbox_bundle.problems(files, index, outside=outside_pools(design))
    assert problems == [], '\n'.join(problems[:30])
    return files, index


# ----------------------------------------------------------------------------------------------- as NetBox takes it
@pytest.mark.parametrize('path', SHAPES, ids=[os.path.basename(path) for path in SHAPES])
def test_netbox_takes_the_bundle_of_every_shipped_and_golden_fabric(path):
    design = design_of(path)
    files, index = assert_netbox_takes(design)
    assert [item['file'] for item in index['files']] == [item.name for item in netbox.FILES]
    assert_says_what_the_design_says(design, files, index)


@pytest.mark.parametrize('status', sorted(netbox.STATUSES))
def test_both_statuses_are_netbox_choices(status):
    files, index = assert_netbox_takes(design_of(SHAPES[0]), status)
    tables = netbox_bundle.tables(files, index)
    assert {row['status'] for row in tables['dcim.device']} == {netbox.STATUSES[status]['device']}
    assert {row['status'] for row in tables['dcim.cable']} == {netbox.STATUSES[status]['cable']}
    assert {row['status'] for row in tables['ipam.ipaddress']} == {netbox.STATUSES[status]['ip']}


def test_an_unknown_status_is_refused_naming_it():
    with pytest.raises(ValueError, match="'running' is not one of planned, active"):
        netbox.bundle_documents(design_of(SHAPES[0]), 'running')


def test_the_files_come_in_netbox_dependency_order():
    """A file names only object types of the files before it (NetBox looks each name up when the file is imported)."""
    forms = netbox_bundle.import_forms()['forms']
    position = {item.model: number for number, item in enumerate(netbox.FILES)}
    for number, item in enumerate(netbox.FILES):
        for column in item.columns:
            related = forms[item.model]['fields'][column.split('.')[0]].get('related')
            if related and related['model'] in position:
                assert position[related['model']] < number, (item.name, column, related['model'])


def test_the_fixture_is_netbox_4_6_8_at_the_cited_commit():
    data = netbox_bundle.import_forms()
    assert (data['netbox'], data['commit']) == (netbox.NETBOX_RELEASE, '43fe81f9e833228c9869f7ddadb67e6c5f145060')
    assert set(data['forms']) == {item.model for item in netbox.FILES}


def test_every_cage_type_the_models_can_give_is_a_netbox_interface_type():
    choices = set(netbox_bundle.import_forms()['forms']['dcim.interface']['fields']['type']['choices'])
    assert netbox.PLUGGABLE_TYPES <= choices
    assert {netbox.OTHER_TYPE, netbox.VIRTUAL_TYPE} <= choices
    for model in load_models().values():
        native = netbox.interface_type(model.name, model.lanes * model.lane_gbps)
        assert native != netbox.OTHER_TYPE, '%s: its cage %s at %dG is no NetBox type' % (
            model.name, model.form_factor, model.lanes * model.lane_gbps)
        for speed in model.speeds():
            assert netbox.interface_type(model.name, speed) in choices


# ----------------------------------------------------------------------------------------------- what the design says
def assert_says_what_the_design_says(design, files, index):
    tables = netbox_bundle.tables(files, index)
    interfaces = {(row['device'], row['name']): row for row in tables['dcim.interface']}
    addresses = {}
    for row in tables['ipam.ipaddress']:
        addresses.setdefault((row['device'], row['interface']), set()).add((row['address'], row['vrf'], row['role']))
    devices = {row['name']: row for row in tables['dcim.device']}
    assert list(devices) == list(design.nodes)
    cables = {(row['side_a_device'], row['side_a_name'], row['side_b_device'], row['side_b_name']):
              row for row in tables['dcim.cable']}
    assert len(cables) == len(design.links)
    for link in design.links:
        key = (link.lower.name, design.interface_name(link.lower, link), link.upper.name,
               design.interface_name(link.upper, link))
        assert cables[key]['length'] == str(link.cable_length_m) and cables[key]['length_unit'] == 'm'
    primary = {row['device']: row['address'] for row in tables['ipam.ipaddress'] if row['is_primary'] == 'true'}
    for name, node in design.nodes.items():
        model = design.device(name)
        if model['management_ip']:
            assert primary[name].split('/')[0] == model['management_ip']
        else:
            assert name not in primary
        if node.role == 'host':
            for rail in model['rails']:
                row = interfaces[(name, rail['interface'])]
                assert (row['speed'], row['mtu']) == (str(rail['speed_gbps'] * 1000000), str(model['mtu']))
                network = design.network_by_rail.get(rail['rail']) if rail['network'] else None
                assert (rail['address'], network['vrf'] if network and network['vrf'] else '', '') in \
                    addresses[(name, rail['interface'])]
            continue
        platform = get_platform(model['platform'])
        for item in model['interfaces']:
            row = interfaces[(name, item['name'])]
            assert (row['speed'], row['mtu']) == (str(item['speed_gbps'] * 1000000), str(item['mtu']))
            assert row['type'] == netbox.interface_type(node.model, item['speed_gbps'])
            assert row['untagged_vlan'] == ('' if item['access_vlan'] is None else str(item['access_vlan']))
            assert addresses.get((name, item['name']), set()) == ({(item['ipv4'], '', '')} if item['ipv4'] else set())
        assert ('%s/32' % model['router_id'], '', 'loopback') in addresses[(name, platform.loopback_interface)]
        assert interfaces[(name, platform.management_interface)]['mgmt_only'] == 'true'
        if model['evpn']:
            assert ('%s/32' % model['evpn']['vtep_ip'], '', 'loopback') in addresses[(name, platform.vtep_interface)]
            for vlan in model['evpn']['vlans']:
                if vlan['vrf']:
                    svi = platform.svi_interface.format(vlan=vlan['vlan'])
                    assert interfaces[(name, svi)]['vrf'] == vlan['vrf']
                    assert ('%s/%d' % (vlan['gateway'], vlan['prefixlen']), vlan['vrf'], 'anycast') in addresses[(name, svi)]


@pytest.mark.parametrize('name', platform_names())
def test_the_logical_interfaces_are_named_as_each_platform_renders_them(name):
    """Platform.loopback_interface, vtep_interface, svi_interface and svi_address against the rendered leaf of a
    fabric with a routed network on that platform."""
    platform = get_platform(name)
    intent = {'name': 'names', 'topology': {'rail_optimized': {'servers': 2, 'rails': 1, 'nic_speed_gbps': 100},
                                            'platform': {'leaf': name, 'spine': name}},
              'overlay': {'vrfs': [{'name': 'gpu', 'l3vni': 50000}],
                          'networks': [{'name': 'rail0', 'vlan': 100, 'subnet': '10.100.0.0/24', 'vrf': 'gpu',
                                        'rails': [0]}]}}
    design = design_from_intent(intent)
    leaf = design.device('leaf001')
    text = '\n'.join(render_model(leaf).values())
    vlan = leaf['evpn']['vlans'][0]
    svi = platform.svi_interface.format(vlan=100)

    def renders(interface):
        return re.search(r'(?<![\w.-])%s(?![\w.-])' % re.escape(interface), text)
    for interface in (platform.loopback_interface, platform.vtep_interface, svi):
        assert renders(interface), '%s renders no %s' % (name, interface)
        assert not renders(interface + '9')  # the check tells names apart
    assert (vlan['svi_ip'] in text) == platform.svi_address
    assert vlan['gateway'] in text


# ----------------------------------------------------------------------------------------------- generated shapes
SPEEDS = st.sampled_from([100, 200, 400])


@st.composite
def fabric_intents(draw):
    platform = draw(st.sampled_from(platform_names()))
    spine_platform = draw(st.sampled_from([platform] + platform_names()))
    rails = draw(st.integers(1, 8))
    routed = draw(st.booleans())
    intent = {
        'name': 'gen',
        'topology': {'rail_optimized': {'servers': draw(st.integers(1, 40)), 'rails': rails,
                                        'nic_speed_gbps': draw(SPEEDS),
                                        'oversubscription': draw(st.sampled_from([1.0, 2.0, 3.0]))},
                     'platform': {'leaf': platform, 'spine': spine_platform, 'super_spine': spine_platform}},
        'underlay': {'routing': draw(st.sampled_from(['ebgp_numbered', 'ebgp_unnumbered']))},
        'hosts': {'attachment': 'routed' if routed else 'evpn'},
    }
    radix = draw(st.sampled_from([None, 4, 8, 16]))
    if radix:
        intent['topology']['rail_optimized']['leaf_radix'] = radix
    if draw(st.booleans()):
        intent['topology']['rail_optimized']['tiers'] = 3
    networks = [{'name': 'rail%d' % rail, 'vlan': 100 + rail, 'subnet': '10.%d.0.0/24' % (100 + rail),
                 'rails': [] if routed else [rail]} for rail in range(rails)]
    if not routed or draw(st.booleans()):
        intent['overlay'] = {'networks': networks}
        if draw(st.booleans()):  # routed networks in a VRF (at least the first), the others bridged only
            intent['overlay']['vrfs'] = [{'name': 'gpu', 'l3vni': 50000}]
            for position, network in enumerate(networks):
                if position == 0 or draw(st.booleans()):
                    network['vrf'] = 'gpu'
    if draw(st.booleans()):
        intent['management'] = {'pool': draw(st.sampled_from(['172.16.0.0/22', '192.168.0.0/20'])),
                                'offset': draw(st.integers(2, 20)), 'vrf': draw(st.booleans())}
        if draw(st.booleans()):
            intent['topology']['devices'] = {'gpu0001': {'management_ip': '198.51.100.7'}}
    return intent


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fabric_intents())
def test_netbox_takes_the_bundle_of_generated_fabric_shapes(intent):
    try:
        design = design_from_intent(copy.deepcopy(intent))
    except IntentError:
        design = None
    assume(design is not None)  # a shape the intent's own checks refuse (too few ports, ...): hypothesis draws again
    files, index = assert_netbox_takes(design)
    assert_says_what_the_design_says(design, files, index)


# ----------------------------------------------------------------------------------------------- the checks fail
def _edit(files, name, change):
    """files with `name` changed by change(header, rows) on its parsed rows."""
    reader = list(csv.reader(io.StringIO(files[name])))
    header, rows = reader[0], reader[1:]
    change(header, rows)
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator='\n').writerows([header] + rows)
    return dict(files, **{name: buffer.getvalue()})


def _set(column, value, row=0):
    def change(header, rows):
        rows[row][header.index(column)] = value
    return change


def _on_loopback(column, value):
    """Set `column` of the first address on a switch's loopback (lo: the lab's FRR switches)."""
    def change(header, rows):
        row = next(row for row in rows if row[header.index('interface')] == 'lo')
        row[header.index(column)] = value
    return change


BROKEN = {
    'a column the form lacks': ('13-devices.csv', lambda header, rows: header.__setitem__(7, 'notes'),
                                'column notes is not a field'),
    'a required column left out': ('01-sites.csv', lambda header, rows: (header.pop(2), rows[0].pop(2)),
                                   'required column status is missing'),
    'a required cell empty': ('13-devices.csv', _set('role', ''), 'role is required'),
    'a value outside the choices': ('14-interfaces.csv', _set('type', '400gbase-x-osfp800'), 'not one of its choices'),
    'a boolean NetBox does not read': ('16-ip-addresses.csv', _set('is_primary', 'yes'), 'is not true or false'),
    'an MTU above NetBox\'s': ('14-interfaces.csv', _set('mtu', '70000', row=1), 'outside 1..65536'),
    'a text longer than the field': ('13-devices.csv', _set('description', 'x' * 201), 'at most 200'),
    'an unknown device': ('14-interfaces.csv', _set('device', 'gpu9999'), "'gpu9999' names no dcim.device"),
    'an unknown role': ('13-devices.csv', _set('role', 'Border leaf'), "'Border leaf' names no dcim.devicerole"),
    'an interface of another device': ('16-ip-addresses.csv', _on_loopback('device', 'gpu0001'),
                                       "interface 'lo' names no dcim.interface"),
    'a row with a cell too many': ('15-cables.csv', lambda header, rows: rows[0].append('x'), 'has 14 cells'),
    'a cell with a space NetBox strips': ('13-devices.csv', _set('name', 'gpu0001 '), 'NetBox would strip'),
    'two devices of one name': ('13-devices.csv', _set('name', 'gpu0002'), 'site/name lab/gpu0002 appears 2 times'),
    'a second cable on a port': ('15-cables.csv', _set('side_b_name', 'eth1', row=2), 'already has cable'),
    'a cable to no interface': ('15-cables.csv', _set('side_a_name', 'eth9'), 'is not an interface of the bundle'),
    'an address twice': ('16-ip-addresses.csv', _set('address', '10.100.0.11/24', row=1), 'appears 2 times'),
    'an address in no prefix': ('16-ip-addresses.csv', _set('address', '192.0.2.1/24', row=1), 'in no prefix'),
    'a network address on an interface': ('16-ip-addresses.csv', _set('address', '10.100.0.0/24', row=1),
                                          'network or broadcast'),
    'an untagged VLAN without a mode': ('14-interfaces.csv', _set('untagged_vlan', '100', row=1), 'without a mode'),
    'a VLAN of no group': ('12-prefixes.csv', _set('vlan_group', '', row=3), "vlan '100' names no ipam.vlan"),
    'a file before what it names': ('bundle.json', None, 'names no dcim.site'),
}


@pytest.mark.parametrize('case', sorted(BROKEN))
def test_every_check_fails_on_a_bundle_netbox_would_refuse(case):
    design = design_of(SHAPES[0])  # the lab: hosts first, eth0 management, 2 rails on VLANs 100/101
    files, index = bundle_of(design)
    name, change, expected = BROKEN[case]
    if name == 'bundle.json':
        index = dict(index, files=index['files'][1:] + index['files'][:1])  # the site last
    else:
        files = _edit(files, name, change)
    problems = netbox_bundle.problems(files, index)
    assert any(expected in problem for problem in problems), problems[:10]
