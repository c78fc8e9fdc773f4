"""`show` commands of the EOS double, in eAPI JSON, derived from the current running config and the fault knobs.

Key names follow real EOS output as read by public consumers (napalm's eos driver, ANTA's tests): see
tests/doubles/README.md for which shapes are confirmed there and which follow EOS naming conventions only.
Only interfaces present in the running config (plus Management1) are listed, to keep outputs small.
"""

from __future__ import annotations

import functools
import ipaddress
import re
import time
import zlib

from tests.doubles import routes as route_tables
from tests.doubles.world import flooding_vteps, remote_vteps

SPEED = re.compile(r'^(\d+)(g|m)')


def short_name(interface):
    for long_name, short in (('Ethernet', 'Et'), ('Port-Channel', 'Po'), ('Management', 'Ma'), ('Loopback', 'Lo'),
                             ('Vlan', 'Vl'), ('Vxlan', 'Vx')):
        if interface.startswith(long_name):
            return short + interface[len(long_name):]
    return interface


def link_local(interface):
    value = zlib.crc32(interface.encode())
    return 'fe80::%x:%x%%%s' % (value >> 16, value & 0xffff, short_name(interface))


# -- what the running config says ------------------------------------------------------------------------
def interfaces(config):
    """name -> facts of every `interface` section."""
    result = {}
    for node in config.sections('interface'):
        name = node.words[1]
        facts = {'description': '', 'mtu': None, 'shutdown': False, 'routed': not name.startswith('Ethernet'),
                 'ipv4': None, 'virtual': None, 'ipv6': False, 'vrf': 'default', 'access_vlan': None,
                 'profile': None, 'speed': None, 'vxlan': {}, 'pfc': {}}
        for child in node.children:
            words = child.words
            if words[0] == 'description':
                facts['description'] = ' '.join(words[1:])
            elif words[0] == 'mtu':
                facts['mtu'] = int(words[1])
            elif words == ['shutdown']:
                facts['shutdown'] = True
            elif words == ['no', 'switchport']:
                facts['routed'] = True
            elif words[:2] == ['ip', 'address'] and len(words) == 3:
                facts['ipv4'] = words[2]
            elif words[:3] == ['ip', 'address', 'virtual']:
                facts['virtual'] = words[3]
            elif words[:2] == ['ipv6', 'enable']:
                facts['ipv6'] = True
            elif words[0] == 'vrf':
                facts['vrf'] = words[1]
            elif words[:3] == ['switchport', 'access', 'vlan']:
                facts['access_vlan'] = int(words[3])
            elif words[0] == 'service-profile':
                facts['profile'] = words[1]
            elif words[0] == 'speed':
                facts['speed'] = words[1]
            elif words[0] == 'vxlan':
                facts['vxlan'][' '.join(words[1:-1]) if words[1] in ('vlan', 'vrf') else words[1]] = words
        result[name] = facts
    return result


def default_mtu(name, facts):
    if name.startswith('Loopback'):
        return 65535
    if name.startswith('Vxlan'):
        return 0
    if name.startswith('Ethernet') and not facts['routed']:
        return 9214
    return 1500


def bandwidth(facts):
    match = SPEED.match(facts['speed'] or '')
    if not match:
        return 100000000000
    return int(match.group(1)) * (1000000000 if match.group(2) == 'g' else 1000000)


def link_up(device, name, facts, all_facts=None):
    if facts['shutdown'] or name in (device.faults.get('interfaces_down') or []):
        return False
    if name.startswith('Vlan'):
        vlan = int(name[4:])
        all_facts = all_facts or interfaces(device.running)
        return any(other['access_vlan'] == vlan and link_up(device, other_name, other)
                   for other_name, other in all_facts.items() if other_name.startswith('Ethernet'))
    if name.startswith('Vxlan'):
        return 'source-interface' in facts['vxlan']
    return True


def bgp(config):
    """The `router bgp` section as plain data: asn, router-id, groups and peers per VRF."""
    section = config.section('router', 'bgp')
    if section is None:
        return None
    data = {'asn': section.words[2], 'router_id': '0.0.0.0', 'vrfs': {}, 'ipv4_default': True}
    groups = {}

    def collect(node, vrf):
        peers = data['vrfs'].setdefault(vrf, {'router_id': None, 'peers': {}})
        for child in node.children:
            words = child.words
            if words[0] == 'router-id':
                peers['router_id'] = words[1]
            elif words == ['no', 'bgp', 'default', 'ipv4-unicast']:
                data['ipv4_default'] = False
            elif words[0] == 'neighbor' and words[1] == 'interface':
                interface = words[2]
                blank = {'group': None, 'asn': None, 'description': '', 'interface': interface}
                peer = peers['peers'].setdefault(link_local(interface), blank)
                peer['group'], peer['asn'] = words[4], words[6]
            elif words[0] == 'neighbor' and words[2:4] in (['peer', 'group'], ['peer-group']) and len(words) <= 4:
                groups.setdefault(words[1], {'asn': None, 'af': set()})
            elif words[0] == 'neighbor':
                target = words[1]
                if target in groups:
                    if words[2] == 'remote-as':
                        groups[target]['asn'] = words[3]
                    continue
                peer = peers['peers'].setdefault(target, {'group': None, 'asn': None, 'description': '', 'interface': None})
                if words[2:4] == ['peer', 'group']:
                    peer['group'] = words[4]
                elif words[2] == 'peer-group':
                    peer['group'] = words[3]
                elif words[2] == 'remote-as':
                    peer['asn'] = words[3]
                elif words[2] == 'description':
                    peer['description'] = ' '.join(words[3:])
            elif words[:2] == ['address-family', 'evpn'] or words[:2] == ['address-family', 'ipv4']:
                family = 'evpn' if words[1] == 'evpn' else 'ipv4'
                for af_child in child.children:
                    if af_child.words[0] == 'neighbor' and af_child.words[2:] == ['activate']:
                        peers.setdefault('af', {}).setdefault(family, set()).add(af_child.words[1])
            elif words[0] == 'vrf' and vrf == 'default':
                collect(child, words[1])

    collect(section, 'default')
    data['router_id'] = data['vrfs']['default']['router_id'] or '0.0.0.0'
    for vrf in data['vrfs'].values():
        activated = vrf.get('af', {})
        for address, peer in vrf['peers'].items():
            group = groups.get(peer['group'] or '', {})
            peer['asn'] = peer['asn'] or group.get('asn')
            names = {address, peer['group']}
            peer['evpn'] = bool(names & activated.get('evpn', set()))
            peer['ipv4'] = data['ipv4_default'] or bool(names & activated.get('ipv4', set()))
    return data


def bgp_peer_keys(config):
    data = bgp(config)
    if data is None:
        return set()
    return {(vrf, address) for vrf, body in data['vrfs'].items() for address in body['peers']}


def peer_state(device, vrf, address, peer, all_facts):
    """Established once configured for `convergence_s` seconds, unless stuck or its link is down."""
    stuck = device.faults.get('bgp_stuck') or []
    if '*' in stuck or address in stuck or (peer['interface'] and peer['interface'] in stuck):
        return 'Active', device.first_seen.get((vrf, address), time.time())
    link = peer['interface'] or _interface_for(address, all_facts)
    if link and not link_up(device, link, all_facts[link], all_facts):
        return 'Active', device.first_seen.get((vrf, address), time.time())
    since = device.first_seen.get((vrf, address), time.time()) + float(device.faults.get('convergence_s', 1.0))
    if time.time() < since:
        return 'Connect', since
    return 'Established', since


def _interface_for(address, all_facts):
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return None
    for name, facts in all_facts.items():
        if facts['ipv4'] and ip in _network(facts['ipv4']):
            return name
    return None


@functools.lru_cache(maxsize=65536)
def _network(interface):
    """The subnet of an interface address (`10.0.0.1/31`): parsed once per address, not once per peer and reading."""
    return ipaddress.ip_interface(interface).network


# -- show commands ----------------------------------------------------------------------------------------
def show_version(device):
    return {
        'mfgName': 'Arista', 'modelName': device.model, 'hardwareRevision': '11.00', 'serialNumber': 'DBL%08X' % zlib.crc32(device.name.encode()),
        'systemMacAddress': _mac(device.name), 'hwMacAddress': _mac(device.name), 'configMacAddress': '00:00:00:00:00:00',
        'version': device.version, 'architecture': 'x86_64', 'internalVersion': '%s-double' % device.version,
        'internalBuildId': '00000000-0000-0000-0000-000000000000', 'imageFormatVersion': '3.0', 'imageOptimization': 'Default',
        'bootupTimestamp': device.booted, 'uptime': device.uptime(), 'memTotal': 32000000, 'memFree': 24000000,
        'isIntlVersion': False,
    }


def _mac(name):
    value = zlib.crc32(name.encode())
    return '02:1c:73:%02x:%02x:%02x' % ((value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff)


def show_hostname(device):
    node = device.running.section('hostname')
    hostname = node.words[1] if node else 'localhost'
    return {'hostname': hostname, 'fqdn': hostname}


def _listed(device):
    facts = interfaces(device.running)
    facts.setdefault('Management1', {'description': '', 'mtu': None, 'shutdown': False, 'routed': True, 'ipv4': None,
                                     'virtual': None, 'ipv6': False, 'vrf': 'default', 'access_vlan': None, 'profile': None,
                                     'speed': '1g', 'vxlan': {}, 'pfc': {}})
    return facts


def _address(prefix):
    if not prefix:
        return {'address': '0.0.0.0', 'maskLen': 0}
    interface = ipaddress.ip_interface(prefix)
    return {'address': str(interface.ip), 'maskLen': interface.network.prefixlen}


def show_interfaces(device):
    facts = _listed(device)
    out = {}
    for name, item in facts.items():
        up = link_up(device, name, item, facts)
        out[name] = {
            'name': name, 'description': item['description'], 'mtu': item['mtu'] or default_mtu(name, item),
            'bandwidth': bandwidth(item) if name.startswith('Ethernet') else 0,
            'lineProtocolStatus': 'up' if up else ('down' if not item['shutdown'] else 'down'),
            'interfaceStatus': 'disabled' if item['shutdown'] else ('connected' if up else 'notconnect'),
            'hardware': 'ethernet' if name.startswith(('Ethernet', 'Management')) else name.rstrip('0123456789/').lower(),
            'forwardingModel': 'routed' if item['routed'] else 'bridged',
            'physicalAddress': _mac(device.name), 'burnedInAddress': _mac(device.name),
            'lastStatusChangeTimestamp': device.booted, 'interfaceAddress': [{
                'primaryIp': _address(item['ipv4']), 'secondaryIpsOrderedList': [],
                'virtualIp': _address(item['virtual'])}] if item['ipv4'] or item['virtual'] else [],
            'interfaceCounters': {'inOctets': 0, 'outOctets': 0, 'inUcastPkts': 0, 'outUcastPkts': 0,
                                  'inMulticastPkts': 0, 'outMulticastPkts': 0, 'inBroadcastPkts': 0,
                                  'outBroadcastPkts': 0, 'inDiscards': 0, 'outDiscards': 0,
                                  'totalInErrors': 0, 'totalOutErrors': 0},
        }
    return {'interfaces': out}


def show_interfaces_status(device):
    facts = _listed(device)
    out = {}
    for name, item in facts.items():
        if not name.startswith(('Ethernet', 'Management', 'Port-Channel')):
            continue
        up = link_up(device, name, item, facts)
        out[name] = {
            'description': item['description'], 'bandwidth': bandwidth(item), 'interfaceType': '400GBASE-CR4',
            'linkStatus': 'disabled' if item['shutdown'] else ('connected' if up else 'notconnect'),
            'lineProtocolStatus': 'up' if up else 'down', 'duplex': 'duplexFull', 'autoNegotiateActive': False,
            'vlanInformation': {'interfaceMode': 'routed', 'interfaceForwardingModel': 'routed'} if item['routed'] else
            {'interfaceMode': 'bridged', 'vlanId': item['access_vlan'] or 1, 'interfaceForwardingModel': 'bridged'},
        }
    return {'interfaceStatuses': out}


def show_interfaces_description(device):
    facts = _listed(device)
    out = {}
    for name, item in facts.items():
        up = link_up(device, name, item, facts)
        out[name] = {'description': item['description'], 'lineProtocolStatus': 'up' if up else 'down',
                     'interfaceStatus': 'adminDown' if item['shutdown'] else ('up' if up else 'down')}
    return {'interfaceDescriptions': out}


def show_ip_interface(device):
    facts = _listed(device)
    out = {}
    for name, item in facts.items():
        if not (item['ipv4'] or item['virtual'] or item['routed']) or name.startswith('Vxlan'):
            continue
        up = link_up(device, name, item, facts)
        out[name] = {
            'name': name, 'description': item['description'], 'vrf': item['vrf'],
            'lineProtocolStatus': 'up' if up else 'down', 'interfaceStatus': 'connected' if up else 'notconnect',
            'mtu': item['mtu'] or default_mtu(name, item),
            'interfaceAddress': {'primaryIp': _address(item['ipv4']), 'secondaryIpsOrderedList': [],
                                 'virtualIp': _address(item['virtual'])},
        }
    return {'interfaces': out}


def show_ip_interface_brief(device):
    full = show_ip_interface(device)['interfaces']
    return {'interfaces': {name: {'name': name, 'interfaceStatus': item['interfaceStatus'],
                                  'lineProtocolStatus': item['lineProtocolStatus'], 'mtu': item['mtu'],
                                  'interfaceAddress': {'ipAddr': item['interfaceAddress']['primaryIp']}}
                           for name, item in full.items()}}


def _summary(device, family):
    """`show ip bgp summary vrf all` / `show bgp evpn summary` / `show bgp summary vrf all` bodies."""
    data = bgp(device.running)
    if data is None:
        return {'vrfs': {}}
    facts = interfaces(device.running)
    vrfs = {}
    for vrf, body in data['vrfs'].items():
        peers = {}
        for address, peer in body['peers'].items():
            if family in ('ipv4', 'evpn') and not peer[family]:
                continue
            state, since = peer_state(device, vrf, address, peer, facts)
            up = state == 'Established'
            entry = {
                'description': peer['description'], 'version': 4, 'msgReceived': 100 if up else 0,
                'msgSent': 100 if up else 0, 'inMsgQueue': 0, 'outMsgQueue': 0, 'asn': peer['asn'] or '0',
                'prefixAccepted': 2 if up else 0, 'prefixReceived': 2 if up else 0, 'upDownTime': since,
                'underMaintenance': False, 'peerState': state,
            }
            if family == 'all':
                entry = {'description': peer['description'], 'peerState': state, 'peerAsn': peer['asn'] or '0',
                         'upDownTime': since}
                for enabled, key in ((peer['ipv4'], 'ipv4Unicast'), (peer['evpn'], 'l2VpnEvpn')):
                    if enabled:
                        entry[key] = {'afiSafiState': 'negotiated' if up else 'advertised',
                                      'nlrisReceived': 2 if up else 0, 'nlrisAccepted': 2 if up else 0}
            peers[address] = entry
        if vrf != 'default' and not peers and family == 'evpn':
            continue
        vrfs[vrf] = {'vrf': vrf, 'routerId': body['router_id'] or data['router_id'], 'asn': data['asn'], 'peers': peers}
    if family == 'evpn':
        return {'vrfs': {'default': vrfs.get('default', {'vrf': 'default', 'routerId': data['router_id'],
                                                         'asn': data['asn'], 'peers': {}})}}
    return {'vrfs': vrfs}


def show_vxlan_vtep(device):
    if 'Vxlan1' not in interfaces(device.running):
        return {'vteps': [], 'interfaces': {}}
    vteps = flooding_vteps(device.world)
    return {'vteps': vteps, 'interfaces': {'Vxlan1': {'vteps': vteps}}}


def show_bgp_evpn_imet(device):
    """IMET (type-3) routes: this switch's own per VLAN of `router bgp` (its RD and route-targets) and one per remote
    VTEP of the VLAN's VNI, carrying the same route-targets (the fabric uses one RT per VNI)."""
    data = bgp(device.running) or {'asn': '0', 'router_id': '0.0.0.0'}
    section = device.running.section('router', 'bgp')
    bindings = show_vxlan_vni(device)['vxlanIntfs'].get('Vxlan1', {}).get('vniBindings', {})
    vni_of = {str(item['vlan']): vni for vni, item in bindings.items()}
    own = device.world.get('vtep_ip')
    routes = {}
    for block in (section.find('vlan') if section is not None else []):
        vni = vni_of.get(block.words[1])
        if vni is None:
            continue
        rd = next((child.words[1] for child in block.children if child.words[0] == 'rd'), None)
        targets = ['Route-Target-AS:%s' % child.words[-1] for child in block.children
                   if child.words[0] == 'route-target' and child.words[1] in ('both', 'import')]
        remote = [('%s:%s' % (vtep, block.words[1]), vtep, vtep) for vtep in remote_vteps(device.world, vni)]
        origins = ([(rd, own, None)] if own else []) + remote
        for route_rd, vtep, peer in origins:
            routes['RD: %s imet %s' % (route_rd, vtep)] = {
                'routeKeyDetail': {'rd': route_rd, 'nlriType': 'imet', 'ipGenAddr': vtep, 'etid': '0'},
                'evpnRoutePaths': [{'nextHop': vtep if peer else '', 'routeType': {'valid': True, 'active': True},
                                    'peerEntry': {'peerAddr': peer} if peer else {},
                                    'routeDetail': {'extCommunities': targets + ['TunnelEncap:tunnelTypeVxlan']}}]}
    return {'vrf': 'default', 'routerId': data['router_id'], 'asn': data['asn'], 'evpnRoutes': routes}


def show_ip_route(device):
    """`show ip route` (the default VRF): the connected subnets of the interfaces that are up, a BGP route to every
    remote VTEP over the established IPv4 sessions (an unnumbered one's next hop is the peer's link-local address), and
    the routes of the `routes` fault knob, which win for their prefix (tests/doubles/routes.py)."""
    facts = interfaces(device.running)
    connected = [(item['ipv4'], name) for name, item in facts.items()
                 if item['ipv4'] and item['vrf'] == 'default' and link_up(device, name, item, facts)]
    hops = []
    for address, peer in sorted(((bgp(device.running) or {}).get('vrfs', {}).get('default', {}).get('peers', {})).items()):
        if peer['ipv4'] and peer_state(device, 'default', address, peer, facts)[0] == 'Established':
            port = peer['interface'] or _interface_for(address, facts)
            if port:
                hops.append((address, port))
    held = route_tables.held(device.faults.get('routes'))
    return route_tables.eos_show_ip_route(route_tables.switch_routes(connected, hops, flooding_vteps(device.world), held))


def show_vxlan_vni(device):
    facts = interfaces(device.running).get('Vxlan1')
    if facts is None:
        return {'vxlanIntfs': {}}
    bindings, to_vrf = {}, {}
    ports = interfaces(device.running)
    for words in facts['vxlan'].values():
        if words[1] == 'vlan' and len(words) == 5:
            vlan, vni = int(words[2]), words[4]
            members = {name: {'vlan': vlan} for name, item in ports.items() if item['access_vlan'] == vlan}
            bindings[vni] = {'vlan': vlan, 'dynamicVlan': False, 'source': 'static', 'interfaces': members}
        elif words[1] == 'vrf' and len(words) == 5:
            to_vrf[words[4]] = {'vrfName': words[2], 'vlan': 4094, 'source': 'evpn'}
    return {'vxlanIntfs': {'Vxlan1': {'vniBindings': bindings, 'vniBindingsToVrf': to_vrf}}}


def _lldp(device):
    facts = interfaces(device.running)
    for port, neighbor in sorted(device.world.get('lldp', {}).items()):
        if port in facts and link_up(device, port, facts[port], facts):
            yield port, neighbor


def show_lldp_neighbors(device):
    return {'tablesLastChangeTime': device.booted, 'tablesAgeOuts': 0, 'tablesInserts': 0, 'tablesDeletes': 0,
            'tablesDrops': 0, 'lldpNeighbors': [
                {'port': port, 'neighborDevice': item['device'], 'neighborPort': item['port'], 'ttl': 120}
                for port, item in _lldp(device)]}


def show_lldp_neighbors_detail(device):
    out = {}
    for port, item in _lldp(device):
        out[port] = {'lldpNeighborInfo': [{
            'systemName': item['device'], 'chassisIdType': 'macAddress', 'chassisId': _mac(item['device']),
            'neighborDiscoveryTime': device.booted, 'ttl': 120,
            'neighborInterfaceInfo': {'interfaceIdType': 'interfaceName', 'interfaceId': '"%s"' % item['port'],
                                      'interfaceId_v2': item['port'], 'interfaceDescription': item.get('description', '')},
        }]}
    return {'lldpNeighbors': out}


# -- QoS / PFC ------------------------------------------------------------------------------------------
def qos_profiles(config):
    """profile name -> {'trust', 'pfc_on', 'no_drop': [prio], 'watchdog', 'action', 'queues': {q: {...}}}."""
    profiles = {}
    for node in config.sections('qos', 'profile'):
        profile = {'trust': None, 'pfc_on': False, 'no_drop': [], 'watchdog': False, 'action': None, 'queues': {}}
        for child in node.children:
            words = child.words
            if words[:2] == ['qos', 'trust']:
                profile['trust'] = words[2]
            elif words == ['priority-flow-control', 'on']:
                profile['pfc_on'] = True
            elif words[:2] == ['priority-flow-control', 'priority'] and words[3] == 'no-drop':
                profile['no_drop'].append(int(words[2]))
            elif words == ['priority-flow-control', 'pause', 'watchdog']:
                profile['watchdog'] = True
            elif words[:5] == ['priority-flow-control', 'pause', 'watchdog', 'port', 'action']:
                profile['action'] = words[5]
            elif words[0] in ('tx-queue', 'uc-tx-queue'):
                queue = {'strict': False, 'bandwidth': None, 'ecn': None}
                for line in child.children:
                    if line.words == ['priority', 'strict']:
                        queue['strict'] = True
                    elif line.words[:2] == ['bandwidth', 'percent']:
                        queue['bandwidth'] = int(line.words[2])
                    elif line.words[:2] == ['random-detect', 'ecn'] and 'minimum-threshold' in line.words:
                        queue['ecn'] = {'min': int(line.words[3]), 'max': int(line.words[6])}
                profile['queues'][int(words[1])] = queue
        profiles[node.words[2]] = profile
    return profiles


def _lossless_ports(device):
    profiles = qos_profiles(device.running)
    for name, item in interfaces(device.running).items():
        if name.startswith('Ethernet') and item['profile'] in profiles:
            yield name, profiles[item['profile']]


def show_pfc(device):
    out = {}
    for name, profile in _lossless_ports(device):
        out[name] = {'enabled': profile['pfc_on'], 'active': profile['pfc_on'], 'priorities': sorted(profile['no_drop']),
                     'watchdogEnabled': profile['watchdog'], 'watchdogAction': profile['action'] or 'errdisable'}
    return {'interfaceStatuses': out}


def show_pfc_counters(device):
    out = {}
    for name, _profile in _lossless_ports(device):
        out[name] = {'rxFrames': device.faults.counter('pfc_pause', name, 'rx_per_s'),
                     'txFrames': device.faults.counter('pfc_pause', name, 'tx_per_s')}
    return {'interfaceCounters': out}


def show_pfc_counters_detail(device):
    out = {}
    for name, profile in _lossless_ports(device):
        knob = (device.faults.get('pfc_pause') or {}).get(name, {})
        priorities = {}
        for priority in range(8):
            hit = knob and int(knob.get('priority', -1)) == priority
            priorities[str(priority)] = {
                'rxFrames': device.faults.counter('pfc_pause', name, 'rx_per_s') if hit else 0,
                'txFrames': device.faults.counter('pfc_pause', name, 'tx_per_s') if hit else 0}
        out[name] = {'enabled': profile['pfc_on'], 'priorities': priorities}
    return {'interfaceCounters': out}


def show_pfc_watchdog_counters(device):
    out = {}
    for name, profile in _lossless_ports(device):
        trip = (device.faults.get('watchdog_tripped') or {}).get(name, {})
        queues = {}
        for priority in profile['no_drop']:
            count = int(trip.get('count', 1)) if trip and int(trip.get('priority', priority)) == priority else 0
            queues[str(priority)] = {'stuckCount': count, 'recoveryCount': count,
                                     'dropCount': device.faults.counter('lossless_drops', name) if count else 0}
        out[name] = {'txQueues': queues}
    return {'interfaces': out}


def show_qos_maps(device):
    dscp = {str(value): 0 for value in range(64)}
    tc_queue = {str(tc): tc for tc in range(8)}
    for node in device.running.sections('qos', 'map', 'dscp'):
        words = node.words
        target = int(words[-1])
        for value in words[3:words.index('to')]:
            dscp[value] = target
    for node in device.running.sections('qos', 'map', 'traffic-class'):
        words = node.words
        if words[-2] == 'tx-queue':
            for value in words[3:words.index('to')]:
                tc_queue[value] = int(words[-1])
    return {'dscpTcMaps': {'default': {'dscpToTcMap': dscp}}, 'tcTxQueueMaps': {'default': {'tcToTxQueueMap': tc_queue}}}


def show_qos_interfaces(device):
    out = {}
    for name, profile in _lossless_ports(device):
        out[name] = {
            'trustMode': 'dscp' if profile['trust'] == 'dscp' else ('cos' if profile['trust'] == 'cos' else 'untrusted'),
            'pfcEnabled': profile['pfc_on'], 'pfcPriorities': sorted(profile['no_drop']),
            'txQueues': {str(q): {'priority': 'strict' if item['strict'] else 'roundRobin',
                                  'bandwidthPercent': item['bandwidth'],
                                  'ecn': {'enabled': True, 'minThreshold': item['ecn']['min'], 'maxThreshold': item['ecn']['max'],
                                          'unit': 'bytes'} if item['ecn'] else {'enabled': False}}
                         for q, item in sorted(profile['queues'].items())},
        }
    return {'intfQosStatus': out}


def show_queue_counters(device):
    out = {}
    for name, profile in _lossless_ports(device):
        drops = (device.faults.get('lossless_drops') or {}).get(name, {})
        classes = {}
        for tc in range(8):
            dropped = device.faults.counter('lossless_drops', name) if drops and int(drops.get('priority', -1)) == tc else 0
            classes['TC%d' % tc] = {'dropPrecedences': {'DP0': {'enqueuedPackets': 0, 'enqueuedBytes': 0,
                                                                'droppedPackets': dropped, 'droppedBytes': dropped * 4096}}}
        out[name] = {'trafficClasses': classes}
    return {'interfaces': out}


def show_queue_counters_detail(device):
    """`show interfaces counters queue detail`: the drop counters of `... queue drops` under egressQueueCounters."""
    ports = show_queue_counters(device)['interfaces']
    return {'egressQueueCounters': {'interfaces': {name: {'ucastQueues': body} for name, body in ports.items()}}}


def show_ecn_counters(device):
    out = {}
    for name, profile in _lossless_ports(device):
        marks = (device.faults.get('ecn_marks') or {}).get(name, {})
        counters = {}
        for queue in range(8):
            if queue not in profile['queues'] or not profile['queues'][queue]['ecn']:
                counters[str(queue)] = '-'
            else:
                hit = marks and int(marks.get('queue', -1)) == queue
                counters[str(queue)] = str(device.faults.counter('ecn_marks', name) if hit else 0)
        out[name] = {'queueCounters': counters}
    return {'intfQueueCounters': out}


def _release(version):
    return tuple(int(part) for part in re.findall(r'\d+', version)[:2])


def show_sessions(device, detail=False):
    """`show configuration sessions [detail]`. Before EOS 4.32 a session with a commit timer is in state
    `pendingCommitTimer` with `commitBy` (uptime seconds); from 4.32 the pending timer is reported once, at the top,
    as `commitTimerSessionName` and `commitTimerExpireTime` (the two shapes napalm's eos driver reads,
    napalm/eos/eos.py _get_pending_commits)."""
    new_shape = _release(device.version) >= (4, 32)
    sessions, pending = {}, None
    for name, session in device.sessions.items():
        entry = {'state': session.state, 'completedTime': 0, 'commitUser': '', 'description': '', 'instances': {}}
        if session.commit_by is not None:
            pending = (name, session.commit_by)
            if detail and not new_shape:
                entry['commitBy'] = session.commit_by
        sessions[name] = entry
    result = {'sessions': sessions, 'maxSavedSessions': 1, 'maxOpenSessions': 5}
    if detail and new_shape and pending:
        result.update(commitTimerSessionName=pending[0], commitTimerExpireTime=pending[1])
    return result


def running_config_json(config):
    def nested(node):
        return {child.line: ({'cmds': nested(child), 'comments': []} if child.children or child.mode else None)
                for child in node.children}
    return {'cmds': nested(config.root), 'header': [], 'comments': []}


HANDLERS = {
    'show version': show_version,
    'show hostname': show_hostname,
    'show interfaces': show_interfaces,
    'show interfaces status': show_interfaces_status,
    'show interfaces description': show_interfaces_description,
    'show ip interface': show_ip_interface,
    'show ip interface brief': show_ip_interface_brief,
    'show ip bgp summary vrf all': lambda device: _summary(device, 'ipv4'),
    'show ip bgp summary': lambda device: {'vrfs': {'default': _summary(device, 'ipv4')['vrfs'].get('default', {})}},
    'show bgp evpn summary': lambda device: _summary(device, 'evpn'),
    'show bgp summary vrf all': lambda device: _summary(device, 'all'),
    'show vxlan vtep': show_vxlan_vtep,
    'show vxlan vni': show_vxlan_vni,
    'show lldp neighbors': show_lldp_neighbors,
    'show lldp neighbors detail': show_lldp_neighbors_detail,
    'show priority-flow-control': show_pfc,
    'show priority-flow-control status': show_pfc,
    'show priority-flow-control counters': show_pfc_counters,
    'show priority-flow-control counters detail': show_pfc_counters_detail,
    'show priority-flow-control counters watchdog': show_pfc_watchdog_counters,
    'show qos maps': show_qos_maps,
    'show qos interfaces': show_qos_interfaces,
    'show interfaces counters queue': show_queue_counters,
    'show interfaces counters queue drops': show_queue_counters,
    'show interfaces counters queue detail': show_queue_counters_detail,
    'show bgp evpn route-type imet': show_bgp_evpn_imet,
    'show ip route': show_ip_route,
    'show qos interfaces ecn counters queue': show_ecn_counters,
    'show configuration sessions': show_sessions,
    'show configuration sessions detail': lambda device: show_sessions(device, detail=True),
}


def as_text(command, data):
    """Text rendering for the few show commands whose text form is modelled; None for the others."""
    if command == 'show version':
        return ('Arista %s\nHardware version: %s\nSerial number: %s\nSystem MAC address: %s\n\nSoftware image version: %s\n'
                % (data['modelName'], data['hardwareRevision'], data['serialNumber'], data['systemMacAddress'], data['version']))
    if command == 'show hostname':
        return 'Hostname: %s\nFQDN:     %s\n' % (data['hostname'], data['fqdn'])
    return None
