"""FRR renderer: real FRR accepts every rendered frr.conf (vtysh -C), golden files pin the lab fabric, and the
EVPN and Linux netdev rules the lab depends on are checked on the rendered output."""

import ipaddress
import json
import os
import re

import pytest

from ansible_collections.aifabric.fabric.plugins.module_utils import linux_netdev
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.terms import VXLAN_OVERHEAD
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_model
from tests.unit.utils.frr import assert_frr_accepts
from tests.unit.utils.golden import assert_golden
from tests.unit.utils.paths import ROOT

HERE = os.path.dirname(os.path.abspath(__file__))
INTENTS = os.path.join(ROOT, 'tests', 'unit', 'fixtures', 'intents')
INTENT_FILES = {
    'lab': os.path.join(ROOT, 'fabrics', 'lab.yml'),
    'frr_unnumbered': os.path.join(INTENTS, 'frr_unnumbered.yml'),
    'frr_vrf': os.path.join(INTENTS, 'frr_vrf.yml'),
    'frr_routed': os.path.join(INTENTS, 'frr_routed.yml'),
}
DESIGNS = {name: design_from_file(path) for name, path in INTENT_FILES.items()}
SWITCHES = [(name, device) for name, design in DESIGNS.items() for device in design.device_names()
            if design.nodes[device].role != 'host']


def files(fabric, device):
    return render_model(DESIGNS[fabric].device(device))


def bgp_section(text, header):
    """Lines of one `router bgp ...` block (up to its `exit`)."""
    lines = text.splitlines()
    start = lines.index(header)
    end = lines.index('exit', start)
    return lines[start + 1:end]


def evpn_vnis(text):
    """vni -> its lines inside `address-family l2vpn evpn` of the default BGP instance."""
    vnis, current = {}, None
    for line in text.splitlines():
        match = re.match(r'^  vni (\d+)$', line)
        if match:
            current = int(match.group(1))
            vnis[current] = []
        elif line == '  exit-vni':
            current = None
        elif current is not None:
            vnis[current].append(line.strip())
    return vnis


@pytest.mark.parametrize('fabric,device', SWITCHES)
def test_real_frr_accepts_every_rendered_config(fabric, device):
    assert_frr_accepts(files(fabric, device)['frr.conf'])


@pytest.mark.parametrize('fabric,device', SWITCHES)
def test_interfaces_json_is_a_valid_linux_netdev_state(fabric, device):
    state = json.loads(files(fabric, device)['interfaces.json'])
    desired = linux_netdev.validate({key: value for key, value in state.items() if key != 'sysctl'})
    assert linux_netdev.boot_script(desired)
    assert state['sysctl'] == {'net.ipv4.ip_forward': 1, 'net.ipv6.conf.all.forwarding': 1}


@pytest.mark.parametrize('device', [name for name in DESIGNS['lab'].device_names()
                                    if DESIGNS['lab'].nodes[name].role != 'host'])  # hosts: see test_hosts.py
def test_lab_fabric_golden_files(device):
    for name, content in sorted(files('lab', device).items()):
        assert_golden('lab/%s/%s' % (device, name), content, platform='frr')


def test_frr_platform_files_match_the_platform_contract():
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms import get_platform
    assert set(files('lab', 'leaf001')) == set(get_platform('frr').config_files)


@pytest.mark.parametrize('fabric,device', SWITCHES)
def test_every_designed_neighbor_is_configured_with_its_asn(fabric, device):
    model = DESIGNS[fabric].device(device)
    text = files(fabric, device)['frr.conf']
    section = bgp_section(text, 'router bgp %d' % model['asn'])
    assert ' bgp router-id %s' % model['router_id'] in section
    for neighbor in model['bgp']['neighbors']:
        peer = neighbor['ip'] if model['bgp']['numbered'] else neighbor['interface']
        assert ' neighbor %s remote-as %d' % (peer, neighbor['remote_asn']) in section
        if model['bgp']['numbered']:
            assert ' neighbor %s peer-group FABRIC' % peer in section
        else:
            assert ' neighbor %s interface peer-group FABRIC' % peer in section
    for prefix in model['bgp']['advertise']:
        assert '  network %s' % prefix in section
    assert '  maximum-paths %d' % model['bgp']['maximum_paths'] in section
    assert (' neighbor FABRIC bfd' in section) == model['bgp']['bfd']


@pytest.mark.parametrize('fabric,device', [item for item in SWITCHES if item[0] in ('lab', 'frr_unnumbered', 'frr_vrf')])
def test_evpn_leaves_advertise_every_vni_with_explicit_route_targets(fabric, device):
    """One ASN per leaf: auto-derived RTs (ASN:VNI) would differ per leaf and nothing would be imported."""
    model = DESIGNS[fabric].device(device)
    text = files(fabric, device)['frr.conf']
    section = bgp_section(text, 'router bgp %d' % model['asn'])
    assert ' address-family l2vpn evpn' in section and '  neighbor FABRIC activate' in section
    vnis = evpn_vnis(text)
    if model['role'] == 'leaf':
        assert '  advertise-all-vni' in section
        expected = {vlan['vni']: vlan for vlan in model['evpn']['vlans']}
        assert set(vnis) == set(expected)
        for vni, vlan in expected.items():
            assert vnis[vni] == ['rd %s' % vlan['rd'], 'route-target import %s' % vlan['route_target'],
                                 'route-target export %s' % vlan['route_target']]
            # The same RT on every leaf of the fabric.
            assert vlan['route_target'] == '65000:%d' % vni
    else:
        # Spines relay EVPN routes (activated, next hop unchanged) but own no VNI.
        assert '  advertise-all-vni' not in section
        assert vnis == {}


def test_routed_fabric_has_no_evpn():
    for fabric, device in SWITCHES:
        if fabric != 'frr_routed':
            continue
        text = files(fabric, device)['frr.conf']
        assert 'l2vpn evpn' not in text and 'vni' not in text
        state = json.loads(files(fabric, device)['interfaces.json'])
        assert not [link for link in state['links'] if link.get('kind')]


def test_routed_leaf_advertises_host_links():
    model = DESIGNS['frr_routed'].device('leaf001')
    text = files('frr_routed', 'leaf001')['frr.conf']
    host_ports = [item for item in model['interfaces'] if item['link_role'] == 'host_leaf']
    for item in host_ports:
        network = ipaddress.IPv4Interface(item['ipv4']).network
        assert '  network %s' % network in text
    state = json.loads(files('frr_routed', 'leaf001')['interfaces.json'])
    by_name = {link['name']: link for link in state['links']}
    for item in host_ports:
        assert by_name[item['name']]['addresses'] == [item['ipv4']]


def test_vrf_config_rendered_for_l3vni_networks():
    model = DESIGNS['frr_vrf'].device('leaf001')
    text = files('frr_vrf', 'leaf001')['frr.conf']
    vrf = model['evpn']['vrfs'][0]
    assert 'vrf %s\n vni %d\nexit-vrf' % (vrf['name'], vrf['l3vni']) in text
    section = bgp_section(text, 'router bgp %d vrf %s' % (model['asn'], vrf['name']))
    assert '  route-target import %s' % vrf['route_target'] in section
    assert '  advertise ipv4 unicast' in section
    state = json.loads(files('frr_vrf', 'leaf001')['interfaces.json'])
    by_name = {link['name']: link for link in state['links']}
    assert by_name[vrf['name']]['kind'] == 'vrf'
    routed = [vlan for vlan in model['evpn']['vlans'] if vlan['vrf']][0]
    bridge = by_name['br%d' % routed['vlan']]
    assert bridge['master'] == vrf['name']
    assert bridge['addresses'] == ['%s/%d' % (routed['gateway'], routed['prefixlen'])]
    assert bridge['mac'] == model['evpn']['gateway_mac']
    # The L3VNI's own bridge and VXLAN device, in the VRF.
    assert by_name['br%d' % vrf['vlan']]['master'] == vrf['name']
    assert by_name['vxlan%d' % vrf['l3vni']]['master'] == 'br%d' % vrf['vlan']
    # Spines carry no VRF.
    assert 'vrf' not in files('frr_vrf', 'spine001')['frr.conf']


def test_unnumbered_fabric_ports_have_no_ipv4():
    model = DESIGNS['frr_unnumbered'].device('spine001')
    state = json.loads(files('frr_unnumbered', 'spine001')['interfaces.json'])
    ports = [link for link in state['links'] if link['name'].startswith('eth')]
    assert len(ports) == len(model['interfaces'])
    assert all(link['addresses'] == [] and link['mtu'] == model['mtu'] for link in ports)


@pytest.mark.parametrize('device', ['leaf001', 'leaf002', 'leaf003', 'leaf004'])
def test_lab_leaf_netdev_carries_host_jumbo_frames(device):
    """Bridge and VXLAN devices start with MTU 1500 (ip-link(8)); host frames must fit end to end (docs/lab.md)."""
    design = DESIGNS['lab']
    model = design.device(device)
    host_mtu = design.lossless['mtu']['host']
    state = json.loads(files('lab', device)['interfaces.json'])
    by_name = {link['name']: link for link in state['links']}
    assert by_name['lo']['addresses'] == ['%s/32' % model['router_id'], '%s/32' % model['evpn']['vtep_ip']]
    for vlan in model['evpn']['vlans']:
        bridge = by_name['br%d' % vlan['vlan']]
        vxlan = by_name['vxlan%d' % vlan['vni']]
        assert bridge['kind'] == 'bridge' and vxlan['kind'] == 'vxlan'
        # tos inherit: the outer header carries the inner DSCP and ECN (RoCE stays RoCE on the spines).
        assert vxlan['vxlan'] == {'id': vlan['vni'], 'local': model['evpn']['vtep_ip'], 'dstport': 4789,
                                  'learning': False, 'tos': 'inherit'}
        assert vxlan['master'] == bridge['name'] and vxlan['bridge_slave'] == {'learning': False}
        assert host_mtu <= bridge['mtu'] == vxlan['mtu'] == model['mtu'] - VXLAN_OVERHEAD
        for port in vlan['ports']:
            assert by_name[port]['master'] == bridge['name'] and by_name[port]['mtu'] >= host_mtu
    for item in model['interfaces']:
        if item['link_role'] == 'leaf_spine':
            assert by_name[item['name']] == {'name': item['name'], 'mtu': 9100, 'state': 'up', 'addresses': [item['ipv4']]}


def test_rendering_is_deterministic():
    first = {device: files('lab', device) for fabric, device in SWITCHES if fabric == 'lab'}
    again = {device: render_model(design_from_file(INTENT_FILES['lab']).device(device)) for device in first}
    assert first == again
