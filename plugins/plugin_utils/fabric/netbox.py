# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fabric's addressing and cabling plan as a NetBox import bundle: <dest>/netbox/, one CSV file per object type.

NetBox imports objects in bulk, one object type at a time (Import on the type's list, or its bulk import view
`/<app>/<objects>/import/`), from CSV whose header names the fields of the type's import form. The files are numbered
in the order they must be imported: each names only objects of the files before it (a device its site, role, type
and platform; an interface its device; a cable two interfaces; an address its interface and VRF). Column names and
choice values are those of NetBox 4.6.8's import forms and choice sets (commit
43fe81f9e833228c9869f7ddadb67e6c5f145060: netbox/dcim/forms/bulk_import.py, netbox/ipam/forms/bulk_import.py,
netbox/dcim/choices.py, netbox/ipam/choices.py); tests/unit/fixtures/netbox/ holds those forms as data (made by
scripts/netbox-import-forms.py from a NetBox checkout) and the unit tests hold every file against them.

Everything is the design's, as in the configurations: devices with their management address as primary IP, every
switch port with its speed, cage type and MTU, loopbacks, VTEPs and the SVIs of routed networks as each NOS names them
(Platform.loopback_interface, vtep_interface, svi_interface), rail NICs, every link of the cabling plan as a cable
with its length, the pools, rail subnets, VLANs, VRFs with their route targets, and the ASNs. Rows are made from the
design's links and tables one at a time (no device model is built), and each file is one document of the render, so
the render's workers write them beside the devices.
"""

from __future__ import annotations

import csv
import functools
import io
import ipaddress
import json
from dataclasses import dataclass
from typing import Callable, Iterable

from .design import ROLE_LABEL
from .intent import named_pools
from .platforms import get_platform
from .switch_models import get_model
from .terms import TOP_DOWN

NETBOX_DIR = 'netbox'
NETBOX_RELEASE = '4.6.8'  # the NetBox whose import forms the files follow (and that scripts/netbox-import-check.sh loads)
# What the objects say of themselves: a fabric still to be built (NetBox's planned and reserved statuses), or one that
# runs (active, connected). Per object type: the value of NetBox's status choices (SiteStatusChoices, DeviceStatusChoices,
# LinkStatusChoices, PrefixStatusChoices, VLANStatusChoices, IPAddressStatusChoices).
STATUSES = {
    'planned': {'site': 'planned', 'device': 'planned', 'cable': 'planned', 'prefix': 'reserved', 'vlan': 'reserved',
                'ip': 'reserved'},
    'active': {'site': 'active', 'device': 'active', 'cable': 'connected', 'prefix': 'active', 'vlan': 'active',
               'ip': 'active'},
}
DEFAULT_STATUS = 'planned'
# NetBox's pluggable Ethernet interface types (InterfaceTypeChoices, netbox/dcim/choices.py) of the cages a switch
# model names (schema/switch-model.schema.yml ports.form_factor), '<speed>gbase-x-<cage>'.
PLUGGABLE_TYPES = frozenset((
    '25gbase-x-sfp28', '50gbase-x-sfp56', '100gbase-x-qsfp28', '200gbase-x-qsfp56', '100gbase-x-qsfpdd',
    '200gbase-x-qsfpdd', '400gbase-x-qsfpdd', '800gbase-x-qsfpdd', '400gbase-x-qsfp112', '400gbase-x-osfp',
    '800gbase-x-osfp'))
OTHER_TYPE, VIRTUAL_TYPE = 'other', 'virtual'
TRUE, FALSE = 'true', 'false'  # NetBox's CSV booleans (None is an empty cell)
INTERFACE_TYPE = 'dcim.interface'  # a cable end (CABLE_TERMINATION_MODELS, netbox/dcim/constants.py)
GENERIC_MANUFACTURER = 'Generic'  # of GPU servers and lab switches, whose maker the intent does not know
DEFAULT_HEIGHT = 1  # rack units of a device type whose height the fabric does not know (DeviceType.u_height's default)
# Private-use AS numbers (RFC 6996 section 5): NetBox's ASNs need an RIR, and these belong to none.
PRIVATE_ASNS = ((64512, 65534), (4200000000, 4294967294))
PRIVATE_RIR = ('RFC 6996', 'rfc-6996', 'Private-use AS numbers (RFC 6996)')
ASSIGNED_RIR = ('Assigned ASNs', 'assigned-asns', 'AS numbers outside the private-use ranges: set their RIR')
KBPS_PER_GBPS = 1000000  # NetBox's interface speed is in Kbps (Interface.speed, netbox/dcim/models/device_components.py)
POOL_USE = {
    'underlay.pools.loopback': 'router-ID loopback /32 per switch',
    'underlay.pools.vtep': 'VTEP /32 per leaf',
    'underlay.pools.p2p': '/31 per fabric link',
    'underlay.pools.host_p2p': '/31 per server NIC',
    'management.pool': 'management address per device',
}


@dataclass(frozen=True)
class BundleFile:
    """One file of the bundle: the NetBox object type it creates, its import view and its columns."""

    name: str
    model: str      # NetBox app_label.model
    view: str       # the bulk import view's path
    columns: tuple  # the import form's fields ('vrf.name': the related object named by another field)
    rows: Callable[['Plan'], Iterable[tuple]]  # rows in column order


# ----------------------------------------------------------------------------------------------- the plan
def interface_type(model_name, speed_gbps) -> str:
    """NetBox's type of a front-panel port of switch model `model_name` (None: a lab switch) at `speed_gbps`."""
    hardware = get_model(model_name) if model_name else None
    if hardware is None or not hardware.form_factor:
        return OTHER_TYPE
    for speed in (speed_gbps, hardware.lanes * hardware.lane_gbps):
        kind = '%dgbase-x-%s' % (speed, hardware.form_factor)
        if kind in PLUGGABLE_TYPES:
            return kind
    return OTHER_TYPE


def statuses(status) -> dict:
    """The status of each object type for `status` (planned, active); ValueError naming anything else."""
    if status not in STATUSES:
        raise ValueError('netbox status %r is not one of %s' % (status, ', '.join(STATUSES)))
    return STATUSES[status]


def _slug(text) -> str:
    return ''.join(char if char.isalnum() else '-' for char in text.lower()).strip('-')


def _title(label) -> str:
    return label[:1].upper() + label[1:]


class Plan:
    """What every file names: the site, the roles, device types and platforms of the devices, the VLAN group."""

    def __init__(self, design, status=DEFAULT_STATUS):
        self.design = design
        self.site = design.name
        self.status = statuses(status)
        self.vlan_group = design.name if design.networks else None
        self.numbered = design.intent['underlay']['routing'] == 'ebgp_numbered'
        self.routed_hosts = design.intent['hosts']['attachment'] == 'routed'
        self.evpn = design.overlay.enabled
        self.switch_mtu = design.lossless['mtu']['switch']
        self.host_mtu = design.lossless['mtu']['host']
        self.rail_interface = [design.servers.interface(rail) for rail in range(design.topology.rails)]
        self._types = {}
        self._device_types = None

    @property
    def device_types(self) -> tuple:
        """({device name: (manufacturer, model)}, {(manufacturer, model): (slug, height, description)}), made once."""
        if self._device_types is None:
            by_device, types = {}, {}
            for node in self.design.nodes.values():
                key, slug, height, description = self._device_type(node)
                by_device[node.name] = key
                types.setdefault(key, (slug, height, description))
            self._device_types = by_device, types
        return self._device_types

    def _device_type(self, node):
        if node.role == 'host':
            speeds = {}
            for link in node.links:
                speeds[link.speed_gbps] = speeds.get(link.speed_gbps, 0) + 1
            shape = ' '.join('%dx%dG' % (count, speed) for speed, count in sorted(speeds.items(), reverse=True))
            model = ('GPU server %s' % shape).strip()
            return (GENERIC_MANUFACTURER, model), _slug(model), DEFAULT_HEIGHT, 'GPU server: %s rail NICs' % (shape or 'no')
        if node.model:
            hardware = get_model(node.model)
            return ((hardware.manufacturer, hardware.product), hardware.name, hardware.rack_units or DEFAULT_HEIGHT,
                    hardware.title)
        platform = get_platform(node.platform)
        model = '%s switch' % platform.label
        return (GENERIC_MANUFACTURER, model), _slug(model), DEFAULT_HEIGHT, '%s without a switch model' % platform.title

    def role(self, role) -> str:
        return _title(ROLE_LABEL[role])

    def interface_type(self, node, speed_gbps) -> str:
        """The NetBox type of a front-panel port: its cage at its speed, else the cage's own (a 200G port of an
        800G OSFP cage is an OSFP 800G port run at 200G), 'other' when the model names no cage (lab switches)."""
        key = (node.model, speed_gbps)
        kind = self._types.get(key)
        if kind is None:
            kind = self._types[key] = interface_type(node.model, speed_gbps)
        return kind

    def is_private(self, asn) -> bool:
        return any(first <= asn <= last for first, last in PRIVATE_ASNS)


# ----------------------------------------------------------------------------------------------- organisation
def _sites(plan):
    design = plan.design
    summary = design.summary()
    description = 'aifabric fabric %s: %d GPUs in %d servers, %d switches' % (
        design.name, summary['gpus'], summary['hosts'], summary['leaves'] + summary['spines'] + summary['super_spines'])
    yield (plan.site, plan.site, plan.status['site'], description, design.intent['description'])


def _manufacturers(plan):
    for name in sorted({manufacturer for manufacturer, _model in plan.device_types[1]}):
        yield (name, _slug(name))


def _platforms(plan):
    for name in sorted({node.platform for node in plan.design.switches()}):
        platform = get_platform(name)
        yield (platform.label, platform.name, platform.title)


def _device_types(plan):
    for (manufacturer, model), (slug, height, description) in plan.device_types[1].items():
        yield (manufacturer, model, slug, height, description)


def _device_roles(plan):
    present = {node.role for node in plan.design.nodes.values()}
    colours = {'super_spine': '263238', 'spine': '455a64', 'leaf': '78909c', 'host': '2ca02c'}
    for role in TOP_DOWN:
        if role in present:
            yield (plan.role(role), _slug(ROLE_LABEL[role]), colours[role], 'aifabric %s' % ROLE_LABEL[role])


# ----------------------------------------------------------------------------------------------- ASNs, VRFs, VLANs
def _asn_users(plan) -> dict:
    users = {}
    for node in plan.design.switches():
        users.setdefault(plan.design.asn[node.name], []).append(node.name)
    return users


def _rirs(plan):
    kinds = {TRUE if plan.is_private(asn) else FALSE for asn in _asn_users(plan)}
    for private, (name, slug, description) in ((TRUE, PRIVATE_RIR), (FALSE, ASSIGNED_RIR)):
        if private in kinds:
            yield (name, slug, private, description)


def _asns(plan):
    for asn, names in sorted(_asn_users(plan).items()):
        users = ', '.join(names) if len(names) <= 3 else '%s ... %s (%d switches)' % (names[0], names[-1], len(names))
        yield (asn, (PRIVATE_RIR if plan.is_private(asn) else ASSIGNED_RIR)[0], users)


def _route_targets(plan):
    for vrf in plan.design.vrfs:
        yield (vrf['route_target'], 'VRF %s (L3VNI %d)' % (vrf['name'], vrf['l3vni']))


def _vrfs(plan):
    for vrf in plan.design.vrfs:
        yield (vrf['name'], TRUE, 'L3VNI %d, VLAN %d' % (vrf['l3vni'], vrf['vlan']),
               vrf['route_target'], vrf['route_target'])


def _vlan_groups(plan):
    if plan.vlan_group:
        yield (plan.vlan_group, plan.vlan_group, 'dcim.site', plan.site, 'VLANs of fabric %s' % plan.site)


def _vlans(plan):
    for network in plan.design.networks:
        yield (plan.site, plan.vlan_group, network['vlan'], network['name'], plan.status['vlan'],
               _network_text(network))


def _network_text(network) -> str:
    rails = ', '.join(str(rail) for rail in network['rails'])
    return 'VNI %d%s' % (network['vni'], ', rails %s' % rails if rails else '')


def _prefixes(plan):
    by_subnet = {network['subnet']: network for network in plan.design.networks}
    for path, network in named_pools(plan.design.intent):
        overlay = by_subnet.get(str(network))
        if overlay is not None:
            yield (str(network), overlay['vrf'], plan.vlan_group,
                   overlay['vlan'], plan.status['prefix'], 'dcim.site', plan.site, FALSE,
                   '%s: %s' % (overlay['name'], _network_text(overlay)))
        else:
            # Pools of /32s and /31s: every address is usable (is_pool), there is no network or broadcast address.
            pool = FALSE if path == 'management.pool' else TRUE
            yield (str(network), None, None, None, plan.status['prefix'], 'dcim.site', plan.site, pool,
                   '%s: %s' % (path, POOL_USE[path]))


# ----------------------------------------------------------------------------------------------- devices
def _devices(plan):
    design = plan.design
    by_device = plan.device_types[0]
    for node in design.nodes.values():
        manufacturer, model = by_device[node.name]
        platform = get_platform(node.platform).label if node.role != 'host' else None
        where = ['pod %d' % node.pod] if node.role in ('leaf', 'spine') else []
        if node.rail is not None:
            where.append('rail %d' % node.rail)
        description = ROLE_LABEL[node.role] + (' (%s)' % ', '.join(where) if where else '')
        yield (node.name, plan.role(node.role), manufacturer, model, platform, plan.status['device'], plan.site,
               description)


def _peer(plan, node, link) -> str:
    """"<peer> <its port>" of `link` seen from switch `node` (an interface's description)."""
    peer = link.upper if link.lower is node else link.lower
    if peer.role == 'host':
        return '%s %s' % (peer.name, plan.rail_interface[link.rail])
    return '%s %s' % (peer.name, plan.design.ports[peer.name][link.index]['name'])


def _label(physical):
    """The front-panel label of a port: its cage, and sub-port (from 1) when the cage is broken out."""
    return '%d/%d' % (physical['cage'], physical['subport'] + 1) if physical.get('split') else physical['cage']


def _svis(plan, node):
    """(name, VRF, [(address/prefix, role)]) of each routed network's SVI on leaf `node`."""
    design = plan.design
    platform = get_platform(node.platform)
    evpn = design.overlay.evpn_model(node, [], design.router_id[node.name], design.vtep[node.name], design.lossless)
    for vlan in evpn['vlans']:
        if vlan['vrf'] is None:
            continue
        addresses = [('%s/%d' % (vlan['gateway'], vlan['prefixlen']), 'anycast')]
        if platform.svi_address and vlan['svi_ip']:
            addresses.insert(0, ('%s/%d' % (vlan['svi_ip'], vlan['prefixlen']), None))
        yield platform.svi_interface.format(vlan=vlan['vlan']), vlan, addresses


def _loopbacks(plan, node):
    """(name, [(address/32, role)]) of the loopbacks of switch `node`."""
    design = plan.design
    platform = get_platform(node.platform)
    loopbacks = {platform.loopback_interface: [('%s/32' % design.router_id[node.name], 'loopback')]}
    if plan.evpn and node.role == 'leaf':
        loopbacks.setdefault(platform.vtep_interface, []).append(('%s/32' % design.vtep[node.name], 'loopback'))
    return loopbacks.items()


def _management(plan, node):
    """(interface, address/prefix or None, description) of the device's management."""
    design = plan.design
    address = design.management_ip.get(node.name)
    if address is not None:
        network = design.management_network
        in_pool = network is not None and ipaddress.IPv4Address(address) in network
        address = '%s/%d' % (address, network.prefixlen if in_pool else 32)
    if node.role == 'host':
        return design.intent['hosts']['bootstrap_interface'], address, 'management, NCCL bootstrap'
    return get_platform(node.platform).management_interface, address, 'management'


def _interfaces(plan):
    design = plan.design
    group = plan.vlan_group
    for node in design.nodes.values():
        name = node.name
        interface, _address, description = _management(plan, node)
        if node.role == 'host':
            rails = sorted(node.links, key=lambda link: link.rail)
            if all(plan.rail_interface[link.rail] != interface for link in rails):  # else a rail has the address
                yield (name, interface, None, OTHER_TYPE, None, None, FALSE, description, None, None, None, None)
            for link in rails:
                yield (name, plan.rail_interface[link.rail], 'rail %d' % link.rail, OTHER_TYPE,
                       link.speed_gbps * KBPS_PER_GBPS, plan.host_mtu, FALSE, 'rail %d: %s %s' % (
                           link.rail, link.upper.name, design.ports[link.upper.name][link.index]['name']),
                       None, None, None, None)
            continue
        yield (name, interface, None, OTHER_TYPE, None, None, TRUE, description, None, None, None, None)
        for loopback, _addresses in _loopbacks(plan, node):
            yield (name, loopback, None, VIRTUAL_TYPE, None, None, FALSE, 'loopback', None, None, None, None)
        if plan.evpn and node.role == 'leaf':
            for svi, vlan, _addresses in _svis(plan, node):
                yield (name, svi, None, VIRTUAL_TYPE, None, None, FALSE, 'SVI of %s' % vlan['name'], None, None,
                       None, vlan['vrf'])
        ports = design.ports[name]
        access = None if plan.routed_hosts else design.network_by_rail
        for link in node.links:
            physical = ports[link.index]
            vlan = access[link.rail]['vlan'] if access is not None and link.role == 'host_leaf' else None
            yield (name, physical['name'], _label(physical), plan.interface_type(node, link.speed_gbps),
                   link.speed_gbps * KBPS_PER_GBPS, plan.switch_mtu, FALSE, _peer(plan, node, link),
                   'access' if vlan else None, group if vlan else None, vlan, None)


def _cables(plan):
    design = plan.design
    name_of = design.interface_name
    site = plan.site
    status = plan.status['cable']
    for link in design.links:
        lower, upper = link.lower, link.upper
        rail = link.rail if link.role == 'host_leaf' else lower.rail
        yield (site, lower.name, INTERFACE_TYPE, name_of(lower, link), site, upper.name, INTERFACE_TYPE,
               name_of(upper, link), status, '%s-%d' % (site, link.index + 1), link.cable_length_m, 'm',
               '%s%s' % (link.role, '' if rail is None else ', rail %d' % rail))


def _ip_addresses(plan):
    design = plan.design
    status = plan.status['ip']
    for node in design.nodes.values():
        name = node.name
        interface, address, _description = _management(plan, node)
        if address is not None:
            yield (address, None, status, None, name, interface, TRUE, 'management of %s' % name)
        if node.role == 'host':
            for rail in design.device(name)['rails']:
                vrf = design.network_by_rail[rail['rail']]['vrf'] if rail['network'] else None
                yield (rail['address'], vrf, status, None, name, rail['interface'], FALSE, 'rail %d' % rail['rail'])
            continue
        for loopback, addresses in _loopbacks(plan, node):
            for address, role in addresses:
                yield (address, None, status, role, name, loopback, FALSE, loopback)
        if plan.evpn and node.role == 'leaf':
            for svi, vlan, addresses in _svis(plan, node):
                for address, role in addresses:
                    yield (address, vlan['vrf'], status, role, name, svi, FALSE,
                           'gateway of %s' % vlan['name'] if role == 'anycast' else 'SVI of %s' % vlan['name'])
        addressed = {'host_leaf': plan.routed_hosts, 'leaf_spine': plan.numbered, 'spine_super_spine': plan.numbered}
        if not any(addressed.values()):
            continue
        ports = design.ports[name]
        for link in node.links:
            if addressed[link.role]:
                lower, upper, length = design.link_ip[link.index]
                yield ('%s/%d' % (lower if link.lower is node else upper, length), None, status, None, name,
                       ports[link.index]['name'], FALSE, None)


# ----------------------------------------------------------------------------------------------- the bundle
FILES = (
    BundleFile('01-sites.csv', 'dcim.site', '/dcim/sites/import/',
               ('name', 'slug', 'status', 'description', 'comments'), _sites),
    BundleFile('02-manufacturers.csv', 'dcim.manufacturer', '/dcim/manufacturers/import/', ('name', 'slug'),
               _manufacturers),
    BundleFile('03-platforms.csv', 'dcim.platform', '/dcim/platforms/import/', ('name', 'slug', 'description'),
               _platforms),
    BundleFile('04-device-types.csv', 'dcim.devicetype', '/dcim/device-types/import/',
               ('manufacturer', 'model', 'slug', 'u_height', 'description'), _device_types),
    BundleFile('05-device-roles.csv', 'dcim.devicerole', '/dcim/device-roles/import/',
               ('name', 'slug', 'color', 'description'), _device_roles),
    BundleFile('06-rirs.csv', 'ipam.rir', '/ipam/rirs/import/', ('name', 'slug', 'is_private', 'description'), _rirs),
    BundleFile('07-asns.csv', 'ipam.asn', '/ipam/asns/import/', ('asn', 'rir', 'description'), _asns),
    BundleFile('08-route-targets.csv', 'ipam.routetarget', '/ipam/route-targets/import/', ('name', 'description'),
               _route_targets),
    BundleFile('09-vrfs.csv', 'ipam.vrf', '/ipam/vrfs/import/',
               ('name', 'enforce_unique', 'description', 'import_targets', 'export_targets'), _vrfs),
    BundleFile('10-vlan-groups.csv', 'ipam.vlangroup', '/ipam/vlan-groups/import/',
               ('name', 'slug', 'scope_type', 'scope_name', 'description'), _vlan_groups),
    BundleFile('11-vlans.csv', 'ipam.vlan', '/ipam/vlans/import/',
               ('site', 'group', 'vid', 'name', 'status', 'description'), _vlans),
    BundleFile('12-prefixes.csv', 'ipam.prefix', '/ipam/prefixes/import/',
               ('prefix', 'vrf', 'vlan_group', 'vlan', 'status', 'scope_type', 'scope_name', 'is_pool', 'description'),
               _prefixes),
    BundleFile('13-devices.csv', 'dcim.device', '/dcim/devices/import/',
               ('name', 'role', 'manufacturer', 'device_type', 'platform', 'status', 'site', 'description'), _devices),
    BundleFile('14-interfaces.csv', 'dcim.interface', '/dcim/interfaces/import/',
               ('device', 'name', 'label', 'type', 'speed', 'mtu', 'mgmt_only', 'description', 'mode', 'vlan_group',
                'untagged_vlan', 'vrf.name'), _interfaces),
    BundleFile('15-cables.csv', 'dcim.cable', '/dcim/cables/import/',
               ('side_a_site', 'side_a_device', 'side_a_type', 'side_a_name', 'side_b_site', 'side_b_device',
                'side_b_type', 'side_b_name', 'status', 'label', 'length', 'length_unit', 'description'), _cables),
    BundleFile('16-ip-addresses.csv', 'ipam.ipaddress', '/ipam/ip-addresses/import/',
               ('address', 'vrf', 'status', 'role', 'device', 'interface', 'is_primary', 'description'),
               _ip_addresses),
)
INDEX = 'bundle.json'


def csv_text(bundle_file: BundleFile, plan: Plan) -> str:
    """One file: the header, then a row per object."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator='\n')
    writer.writerow(bundle_file.columns)
    writer.writerows(bundle_file.rows(plan))
    return buffer.getvalue()


def index_text(design, status=DEFAULT_STATUS) -> str:
    """bundle.json: the files in import order with the NetBox object type and import view of each."""
    return json.dumps({
        'format': 1, 'fabric': design.name, 'site': design.name, 'netbox': NETBOX_RELEASE, 'status': status,
        'files': [{'file': item.name, 'model': item.model, 'import_view': item.view} for item in FILES],
    }, indent=1) + '\n'


def bundle_documents(design, status=DEFAULT_STATUS) -> list[tuple[str, Callable[[], str]]]:
    """[(relative path, make() -> text)] of the bundle: the render writes each like a fabric document."""
    statuses(status)
    documents: list[tuple[str, Callable[[], str]]] = [
        ('%s/%s' % (NETBOX_DIR, INDEX), functools.partial(index_text, design, status))]
    for item in FILES:
        documents.append(('%s/%s' % (NETBOX_DIR, item.name), functools.partial(_file_text, item, design, status)))
    return documents


def _file_text(bundle_file: BundleFile, design, status) -> str:
    return csv_text(bundle_file, Plan(design, status))


def bundle(design, status=DEFAULT_STATUS):
    """Yield (relative path, text) of every file, one at a time."""
    for relative, make in bundle_documents(design, status):
        yield relative, make()


__all__ = ['NETBOX_DIR', 'NETBOX_RELEASE', 'FILES', 'STATUSES', 'DEFAULT_STATUS', 'Plan', 'BundleFile', 'bundle',
           'bundle_documents', 'csv_text', 'index_text']
