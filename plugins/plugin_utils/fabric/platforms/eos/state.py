# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Arista EOS: eAPI JSON outputs turned into platform-neutral state (the gatherer of platform `eos`).

Every command is sent through eAPI with format json. Shapes handled (instances in
tests/unit/platforms/eos/recorded/, written after Arista's published outputs, ANTA's unit-test data and napalm's):
- `show bgp summary vrf all` (EOS 4.27+): {vrfs: {vrf: {asn, routerId, peers: {peer: {peerState, peerAsn,
  ipv4Unicast|l2VpnEvpn: {afiSafiState, nlrisReceived, nlrisAccepted}}}}}}; older releases answer
  `show ip bgp summary vrf all` + `show bgp evpn summary` with {vrfs: {vrf: {peers: {peer: {peerState, asn,
  prefixReceived}}}}}, also accepted (a list of the two outputs).
- `show interfaces`: {interfaces: {name: {lineProtocolStatus, interfaceStatus, mtu, forwardingModel,
  interfaceAddress: [{primaryIp: {address, maskLen}}] (a dict in `show ip interface`)}}}.
- `show lldp neighbors detail`: {lldpNeighbors: {port: {lldpNeighborInfo: [{systemName, chassisId,
  neighborInterfaceInfo: {interfaceIdType, interfaceId_v2, interfaceId, interfaceDescription}}]}}}; releases before
  4.23 have no interfaceId_v2 and print interfaceId quoted ('"Ethernet1"').
- `show vxlan vni`: {vxlanIntfs: {Vxlan1: {vniBindings: {vni: {vlan, source}}, vniBindingsToVrf: {vni: {vrfName, vlan}}}}}.
- `show bgp evpn route-type imet`: {vrf, routerId, asn, evpnRoutes: {"RD: <rd> imet <vtep>": {routeKeyDetail: {rd,
  nlriType, ipGenAddr}, evpnRoutePaths: [{nextHop, routeType: {valid, active}, routeDetail: {extCommunities: [...]}}]}}}.
- `show running-config` as JSON: {cmds: {line: None | {cmds: {...}}}} (EOS's nested configuration tree; ANTA's
  VerifyRunningConfig reads the same). The lossless settings (qos maps, qos profile, PFC, watchdog, ECN) and the
  EVPN route-targets come from it. The rendered startup-config (CLI text) parses into the same tree.
- counters: `show priority-flow-control counters` (revision 3: {interfaceCounters: {port: {rxFrames, txFrames}}},
  per port, all priorities), `show priority-flow-control counters watchdog` ({interfaceCounters | interfaces: {port:
  {txQueues: {queue: {stuckCount, recoveryCount, droppedPackets, state}}}}}; modelled on EOS naming, not confirmed on
  a capture), `show interfaces counters queue detail`
  ({egressQueueCounters: {interfaces: {port: {ucastQueues: {trafficClasses: {TCn: {dropPrecedences: {DP0:
  {droppedPackets}}}}}}}}}) and `show qos interfaces ecn counters queue` ({intfQueueCounters: {port:
  {queueCounters: {queue: "count" | "-"}}}}).
- `show ip route` (the default VRF's routing table, as the hardware forwards it): {vrfs: {default: {routes: {prefix:
  {routeType (eBGP, iBGP, connected, static...), routeAction (forward, drop...), hardwareProgrammed, metric, vias:
  [{nexthopAddr, interface}]}}}}} (ANTA VerifyRoutingTableEntry / VerifyIPv4RouteNextHops and their unit data); a
  static route to Null0 is `routeAction: drop` with no vias (public EOS captures; not confirmed on a device here).
"""

from __future__ import annotations

import re
from typing import Any, cast

from ...state import StateError, excerpt, integer, require_mapping
from ...state.counters import number
from ...state.gatherer import Gatherer, Source, results
from ...state.views import identity, lossless_state, port_view, route_table
from .eapi import EAPI
from ...state.schema import (BgpEvpnVni, BgpEvpnVnis, BgpSession, Counters, EvpnVni, ImetRoute, Interface,
                             LldpNeighbor, Lossless, Route)

RUNNING = 'show running-config'
VXLAN_VNI = 'show vxlan vni'
IMET = 'show bgp evpn route-type imet'
INTERFACES = 'show interfaces'
AFI = {'ipv4Unicast': 'ipv4Unicast', 'l2VpnEvpn': 'l2VpnEvpn'}
_RT = re.compile(r'Route-Target-AS:(\S+)')


def _json(source, output):
    """One eAPI result: a JSON object (pyeapi/napalm return dicts); errors arrive as {'errors': [...]}."""
    if output is None:
        raise StateError(source, 'not gathered')
    if isinstance(output, str):
        from ...state import load_json  # pylint: disable=import-outside-toplevel
        output = load_json(source, output)
    require_mapping(source, output)
    if 'errors' in output and len(output) <= 2:
        raise StateError(source, 'eAPI error: %s' % excerpt('; '.join(str(item) for item in output['errors'])))
    return output


# --------------------------------------------------------------------------- BGP
def _sessions(source, data, afi_default=None) -> list[BgpSession]:
    sessions: list[BgpSession] = []
    for vrf, block in require_mapping(source, data.get('vrfs', {}), 'vrfs').items():
        require_mapping(source, block, 'vrf %s' % vrf)
        for peer, info in require_mapping(source, block.get('peers', {}), 'peers of vrf %s' % vrf).items():
            require_mapping(source, info, 'peer %s' % peer)
            state = info.get('peerState')
            if not isinstance(state, str):
                raise StateError(source, 'peer %s in vrf %s has no peerState' % (peer, vrf))
            remote = info.get('peerAsn', info.get('asn'))
            afis = [name for name in AFI if isinstance(info.get(name), dict)]
            if not afis and afi_default:
                afis = [afi_default]
            for afi in afis:
                negotiated = (info.get(afi) or {}).get('afiSafiState', 'negotiated') == 'negotiated'
                sessions.append({
                    'vrf': vrf, 'afi': AFI[afi], 'peer': peer, 'id_type': 'ip', 'hostname': None,
                    'remote_as': int(remote) if str(remote or '').isdigit() else remote,
                    'local_as': block.get('asn'), 'state': state if negotiated or state != 'Established'
                    else 'Established (%s not negotiated)' % afi,
                    'established': state == 'Established' and negotiated,
                    'prefixes_received': (info.get(afi) or {}).get('nlrisReceived', info.get('prefixReceived')),
                    'prefixes_sent': None, 'uptime_ms': None, 'description': info.get('description'),
                })
    return sessions


def parse_bgp_summary(output) -> list[BgpSession]:
    """Sessions in the shape of frr.parse_bgp_summary, one per (vrf, address family, peer)."""
    source = 'EOS show bgp summary vrf all'
    outputs = results(source, output)
    if len(outputs) == 2:  # older releases: show ip bgp summary vrf all + show bgp evpn summary
        return (_sessions(source, _json(source, outputs[0]), 'ipv4Unicast')
                + _sessions(source, _json(source, outputs[1]), 'l2VpnEvpn'))
    return _sessions(source, _json(source, outputs[0]), 'ipv4Unicast')


# --------------------------------------------------------------------------- interfaces
def _addresses(info):
    value = info.get('interfaceAddress') or []
    items = value if isinstance(value, list) else [value]
    addresses = []
    for item in items:
        primary = (item or {}).get('primaryIp') or {}
        if primary.get('address') and primary['address'] != '0.0.0.0':
            addresses.append({'family': 'inet', 'address': primary['address'], 'prefixlen': primary.get('maskLen')})
    return addresses


def parse_interfaces(output) -> dict[str, Interface]:
    """`show interfaces` in the shape of iproute2.parse_ip_link (operstate UP when the line protocol is up)."""
    source = 'EOS show interfaces'
    data = _json(source, results(source, output, 1)[0])
    interfaces: dict[str, Interface] = {}
    for name, info in require_mapping(source, data.get('interfaces', {}), 'interfaces').items():
        require_mapping(source, info, 'interface %s' % name)
        if 'mtu' not in info or 'lineProtocolStatus' not in info:
            raise StateError(source, 'interface %s has no mtu or lineProtocolStatus' % name)
        up = info['lineProtocolStatus'] == 'up'
        admin = info.get('interfaceStatus') not in ('disabled', 'adminDown')
        interfaces[name] = {'ifname': name, 'mtu': info['mtu'], 'operstate': 'UP' if up else 'DOWN', 'admin_up': admin,
                            'lower_up': up, 'master': None, 'kind': info.get('hardware'), 'vxlan': None,
                            'addresses': _addresses(info), 'status': info.get('interfaceStatus')}
    return interfaces


# --------------------------------------------------------------------------- LLDP
def parse_lldp(output) -> list[LldpNeighbor]:
    """`show lldp neighbors detail` in the shape of lldp.parse_lldp_neighbors."""
    source = 'EOS show lldp neighbors detail'
    data = _json(source, results(source, output, 1)[0])
    neighbors: list[LldpNeighbor] = []
    for port, entry in require_mapping(source, data.get('lldpNeighbors', {}), 'lldpNeighbors').items():
        for info in require_mapping(source, entry, 'port %s' % port).get('lldpNeighborInfo') or []:
            iface = info.get('neighborInterfaceInfo') or {}
            port_id = iface.get('interfaceId_v2', str(iface.get('interfaceId', '')).strip('"')) or None
            kind = iface.get('interfaceIdType')
            id_type = {'interfaceName': 'ifname', 'macAddress': 'mac', 'local': 'local'}.get(str(kind), kind)
            descr = iface.get('interfaceDescription')
            neighbors.append({'interface': port, 'system_name': info.get('systemName'), 'chassis_id': info.get('chassisId'),
                              'port_id_type': id_type, 'port_id': port_id, 'port_descr': descr,
                              'peer_port': port_id if id_type in ('ifname', 'local') and port_id else (descr or port_id),
                              'via': 'LLDP'})
    return sorted(neighbors, key=lambda item: (item['interface'], str(item['system_name'])))


# --------------------------------------------------------------------------- running-config tree
def config_tree(output) -> dict:
    """{line: None | subtree} from `show running-config` JSON ({cmds: ...}) or CLI text (3-space indents)."""
    source = 'EOS show running-config'
    if isinstance(output, dict) and 'cmds' in output:
        return _tree_of(source, output['cmds'])
    if isinstance(output, list) and len(output) == 1:
        return config_tree(output[0])
    if isinstance(output, dict) and 'stdout' in output:
        output = output['stdout']
    if not isinstance(output, str) or not output.strip():
        raise StateError(source, 'empty configuration')
    root = {}
    stack: list[tuple[int, Any, Any]] = [(-1, None, None)]  # (indent, dict holding the line, line)
    for raw in output.splitlines():
        line = raw.rstrip()
        stripped = line.strip()
        if not stripped or stripped.startswith('!') or stripped == 'end':
            continue
        indent = len(line) - len(line.lstrip(' '))
        while stack[-1][0] >= indent:
            stack.pop()
        _indent, holder, key = stack[-1]
        if holder is None:
            target = root
        else:
            if holder[key] is None:
                holder[key] = {}
            target = holder[key]
        target[stripped] = None
        stack.append((indent, target, stripped))
    return root


def _tree_of(source, cmds):
    tree = {}
    for line, value in require_mapping(source, cmds, 'cmds').items():
        if isinstance(value, dict):
            tree[line] = _tree_of(source, value.get('cmds') or {})
        else:
            tree[line] = None
    return tree


def _blocks(tree, prefix):
    """[(rest of the line, subtree)] of the lines starting with `prefix`."""
    return [(line[len(prefix):].strip(), sub or {}) for line, sub in tree.items() if line.startswith(prefix)]


def _seconds_ms(value):
    return int(round(float(value) * 1000))


_ECN = re.compile(r'^random-detect ecn minimum-threshold (\d+) (\w+) maximum-threshold (\d+) (\w+)'
                  r'(?: max-mark-probability (\d+))?')
_UNITS = {'bytes': 1, 'kbytes': 1000, 'mbytes': 1000000}
_TIMER = re.compile(r'^priority-flow-control pause watchdog port timer timeout ([\d.]+) polling-interval ([\d.]+|auto)'
                    r' recovery-time ([\d.]+)')


def _qos_settings(tree):
    """QoS lines of a qos profile or of an interface: trust, PFC, watchdog, tx-queues."""
    settings = {'trust': None, 'pfc_on': None, 'no_drop': set(), 'watchdog': None, 'action': None, 'timer': None,
                'queues': {}}
    for line, sub in tree.items():
        if line.startswith('qos trust '):
            settings['trust'] = line.split()[-1]
        elif line == 'no qos trust':
            settings['trust'] = 'untrusted'
        elif line == 'priority-flow-control on':
            settings['pfc_on'] = True
        elif line in ('no priority-flow-control', 'priority-flow-control off'):
            settings['pfc_on'] = False
        elif re.match(r'^priority-flow-control priority \d no-drop$', line):
            settings['no_drop'].add(int(line.split()[2]))
        elif line == 'priority-flow-control pause watchdog':
            settings['watchdog'] = True
        elif line.startswith('priority-flow-control pause watchdog port action '):
            settings['action'] = line.split()[-1]
        elif _TIMER.match(line):
            match = _TIMER.match(line)
            settings['timer'] = (_seconds_ms(match.group(1)),
                                 None if match.group(2) == 'auto' else _seconds_ms(match.group(2)),
                                 _seconds_ms(match.group(3)))
        elif re.match(r'^(uc-)?tx-queue \d+$', line):
            settings['queues'][int(line.split()[-1])] = _tx_queue(sub or {})
    return settings


def _tx_queue(tree):
    queue = {'scheduler': None, 'wred': None}
    strict = 'priority strict' in tree
    weight = None
    for line in tree:
        match = re.match(r'^bandwidth (?:guaranteed )?percent (\d+)$', line)
        if match:
            weight = int(match.group(1))
        ecn = _ECN.match(line)
        if ecn:
            low = int(ecn.group(1)) * _UNITS.get(ecn.group(2), 0) if ecn.group(2) in _UNITS else None
            high = int(ecn.group(3)) * _UNITS.get(ecn.group(4), 0) if ecn.group(4) in _UNITS else None
            queue['wred'] = {'ecn': 'ecn_all', 'green_enable': True, 'min_bytes': low, 'max_bytes': high,
                             'probability': int(ecn.group(5) or 100)}
    queue['scheduler'] = {'type': 'STRICT' if strict else 'DWRR', 'weight': None if strict else weight}
    return queue


def _qos_map(tree, source, target, mapping=None):
    """`qos map <source> <values> to <target> <value>` lines as {value: target value} (AVD qos.j2), over `mapping`."""
    mapping = dict(mapping or {})
    for line in tree:
        match = re.match(r'^qos map %s ([\d ]+) to %s (\d+)$' % (source, target), line)
        if match:
            for value in match.group(1).split():
                mapping[int(value)] = int(match.group(2))
    return mapping


def _dscp_map(tree):
    return _qos_map(tree, 'dscp', 'traffic-class')


def _tx_queue_map(tree):
    """Traffic class -> tx-queue: EOS's identity, changed by `qos map traffic-class <tc list> to tx-queue <q>`. A PFC
    priority pauses the queue of its traffic class (priority p = traffic class p in the design)."""
    return _qos_map(tree, 'traffic-class', 'tx-queue', identity(range(8)))


def _merge(base, override):
    merged = dict(base)
    for key, value in override.items():
        if key == 'queues':
            merged['queues'] = {**base['queues'], **value}
        elif key == 'no_drop':
            merged['no_drop'] = value or base['no_drop']
        elif value is not None:
            merged[key] = value
    return merged


def lossless_from_tree(tree, operational=None, source: str = 'running-config') -> Lossless:
    """The neutral `lossless` state of an EOS configuration tree; `operational` (parse_interfaces) gives the MTU
    in effect when given, else the configured one. Buffers and headroom: EOS sizes them itself for every no-drop
    priority (no MMU profile is rendered), so the view says `headroom: platform`."""
    dscp = _dscp_map(tree)
    tx_queue = _tx_queue_map(tree)
    defaults = {}
    for line in tree:
        match = re.match(r'^priority-flow-control pause watchdog default (timeout|recovery-time|polling-interval) '
                         r'([\d.]+)$', line)
        if match:
            defaults[match.group(1)] = _seconds_ms(match.group(2))
    profiles = {name: _qos_settings(sub) for name, sub in _blocks(tree, 'qos profile ')}
    ports = {}
    for name, sub in _blocks(tree, 'interface '):
        if not name.startswith('Ethernet'):
            continue
        settings = _qos_settings({})
        for line in sub:
            if line.startswith('service-profile '):
                settings = _merge(settings, profiles.get(line.split(' ', 1)[1], _qos_settings({})))
        settings = _merge(settings, {key: value for key, value in _qos_settings(sub).items()
                                     if value not in (None, set(), {})})
        mtu = next((int(line.split()[1]) for line in sub if re.match(r'^mtu \d+$', line)), None)
        if operational and name in operational:
            mtu = operational[name]['mtu']
        pfc = sorted(settings['no_drop']) if settings['pfc_on'] else []
        timer = settings['timer'] or (defaults.get('timeout'), defaults.get('polling-interval'),
                                      defaults.get('recovery-time'))
        watchdog = None
        if settings['watchdog'] and pfc:
            watchdog = {'action': settings['action'] or 'errdisable', 'detection_ms': timer[0], 'restoration_ms': timer[2]}
        ports[name] = port_view(
            mtu=mtu, trust=settings['trust'], dscp_to_tc=dscp or None, dscp_map='qos map dscp (global)' if dscp else None,
            pfc=pfc, pfcwd=pfc if watchdog else [], watchdog=watchdog,
            poll_ms=timer[1] if timer[1] is not None else defaults.get('polling-interval'),
            tc_to_pg=identity(range(8)), tc_to_queue=dict(tx_queue), pfc_to_queue=dict(tx_queue), pfc_to_pg=None,
            queues=settings['queues'], pgs={prio: {'dynamic': True} for prio in pfc},
            egress={prio: 'lossless' for prio in pfc}, headroom='platform')
    return lossless_state(ports, source)


def parse_lossless(output) -> Lossless:
    source = 'EOS show running-config'
    outputs = results(source, output, 2)
    return lossless_from_tree(config_tree(_json(source, outputs[0])), parse_interfaces([outputs[1]]),
                              'running-config + show interfaces')


def design_view(files) -> Lossless:
    """The lossless view of the startup-config this collection renders ({file name: text}; pre-deploy checks)."""
    return lossless_from_tree(config_tree(files['startup-config.cfg']), None, 'rendered startup-config')


# --------------------------------------------------------------------------- EVPN
def _vni_bindings(source, data):
    bindings = {}
    for intf, block in require_mapping(source, data.get('vxlanIntfs', {}), 'vxlanIntfs').items():
        for vni, info in (block.get('vniBindings') or {}).items():
            vni = integer(source, vni, '%s VNI' % intf)
            bindings[vni] = {'vni': vni, 'type': 'L2', 'vxlan_if': intf, 'vlan': (info or {}).get('vlan')}
        for vni, info in (block.get('vniBindingsToVrf') or {}).items():
            vni = integer(source, vni, '%s VNI' % intf)
            bindings[vni] = {'vni': vni, 'type': 'L3', 'vxlan_if': intf, 'vlan': (info or {}).get('vlan'),
                             'vrf': (info or {}).get('vrfName')}
    return bindings


def _vlan_targets(tree):
    """{vlan: {'rd', 'import', 'export'}} from `router bgp` > `vlan N` blocks."""
    targets = {}
    for _asn, bgp in _blocks(tree, 'router bgp '):
        for vlan, sub in _blocks(bgp, 'vlan '):
            if not vlan.isdigit():
                continue
            entry = targets.setdefault(int(vlan), {'rd': None, 'import': [], 'export': []})
            for line in sub:
                parts = line.split()
                if parts[:1] == ['rd'] and len(parts) == 2:
                    entry['rd'] = parts[1]
                elif parts[:1] == ['route-target'] and len(parts) >= 3:
                    kind, values = parts[1], parts[2:]
                    if kind in ('both', 'import'):
                        entry['import'].extend(values)
                    if kind in ('both', 'export'):
                        entry['export'].extend(values)
    return targets


def parse_imet(output) -> list[ImetRoute]:
    """IMET (type-3) routes of `show bgp evpn route-type imet`, in the shape of frr.parse_evpn_type3."""
    source = 'EOS show bgp evpn route-type imet'
    data = _json(source, results(source, output, 1)[0])
    routes: list[ImetRoute] = []
    for key, entry in require_mapping(source, data.get('evpnRoutes', {}), 'evpnRoutes').items():
        detail = (entry or {}).get('routeKeyDetail') or {}
        match = re.match(r'^RD: (\S+) imet (?:\d+ )?(\S+)$', key)
        rd = detail.get('rd') or (match.group(1) if match else None)
        vtep = detail.get('ipGenAddr') or (match.group(2) if match else None)
        if not vtep:
            raise StateError(source, 'route %r names no originating VTEP' % excerpt(key, 60))
        for path in (entry or {}).get('evpnRoutePaths') or []:
            kind = path.get('routeType') or {}
            communities = (path.get('routeDetail') or {}).get('extCommunities') or []
            routes.append({'rd': rd, 'vtep': vtep, 'eth_tag': 0,
                           'route_targets': sorted(target for text in communities for target in _RT.findall(str(text))),
                           'valid': bool(kind.get('valid')), 'best': bool(kind.get('active')), 'as_path': '',
                           'peer': path.get('peerEntry', {}).get('peerAddr') if isinstance(path.get('peerEntry'), dict)
                           else None, 'next_hop': path.get('nextHop')})
    return routes


def local_vtep(tree):
    """The VTEP address: `vxlan source-interface` of interface Vxlan1, and that interface's address."""
    source_if = next((line.split()[-1] for line in (tree.get('interface Vxlan1') or {})
                      if line.startswith('vxlan source-interface ')), None)
    for line in (tree.get('interface %s' % source_if) or {}) if source_if else ():
        if line.startswith('ip address '):
            return line.split()[2].split('/')[0]
    return None


def parse_evpn_vni(output) -> dict[Any, EvpnVni]:
    """VNIs in the shape of frr.parse_evpn_vni: VXLAN bindings, and per L2VNI the remote VTEPs whose valid IMET
    route carries a route-target the VLAN imports (EOS's flood list)."""
    source = 'EOS show vxlan vni'
    outputs = results(source, output, 3)
    bindings = _vni_bindings(source, _json(source, outputs[0]))
    routes = parse_imet([outputs[1]])
    tree = config_tree(_json(source, outputs[2]))
    targets, own = _vlan_targets(tree), local_vtep(tree)
    vnis: dict[Any, EvpnVni] = {}
    for vni, info in bindings.items():
        imports = set((targets.get(info['vlan']) or {}).get('import') or [])
        remote = sorted({route['vtep'] for route in routes if route['valid'] and route['vtep'] and route['vtep'] != own
                         and imports & set(route['route_targets'])})
        vnis[vni] = cast(EvpnVni, dict(info, vtep_ip=own, remote_vteps=remote if info['type'] == 'L2' else [], tenant_vrf=info.get('vrf'),
                         macs=None))
    return vnis


def parse_bgp_evpn_vni(output) -> BgpEvpnVnis:
    """Route-targets per VNI from the `router bgp` VLAN blocks, in the shape of frr.parse_bgp_evpn_vni."""
    source = 'EOS show running-config'
    outputs = results(source, output, 2)
    targets = _vlan_targets(config_tree(_json(source, outputs[0])))
    bindings = _vni_bindings('EOS show vxlan vni', _json('EOS show vxlan vni', outputs[1]))
    by_vlan = {info['vlan']: vni for vni, info in bindings.items() if info['type'] == 'L2'}
    vnis: dict[Any, BgpEvpnVni] = {}
    for vlan, entry in targets.items():
        vni = by_vlan.get(vlan)
        if vni is None:
            continue  # a MAC-VRF whose VLAN is bound to no VNI: the evpn_vni check reports the missing VNI
        vnis[vni] = {'vni': vni, 'type': 'L2', 'rd': entry['rd'], 'originator_ip': None, 'in_kernel': True,
                     'import_rts': sorted(entry['import']), 'export_rts': sorted(entry['export'])}
    return {'advertise_all_vni': True, 'vnis': vnis}


# --------------------------------------------------------------------------- counters
_QUEUE = re.compile(r'(?:TxQ|TC|UC|MC)?([0-9]{1,2})')


def _queue(source, name, what) -> int:
    """The number of a queue or traffic class as EOS names it ('TxQ3', 'TC3', '3'); anything else is the device's
    error, named."""
    match = _QUEUE.fullmatch(str(name))
    if not match:
        raise StateError(source, '%s %s is not a queue EOS names (TxQ<n>, TC<n> or <n>)' % (what, excerpt(repr(name), 60)))
    return int(match.group(1))


def parse_counters(output) -> Counters:
    """Neutral counters (state/counters.py) from the four counter commands."""
    source = 'EOS counters'
    pfc, watchdog, queues, ecn = (_json(source, item) for item in results(source, output, 4))
    ports = {}
    for port, info in require_mapping(source, pfc.get('interfaceCounters', {}), 'interfaceCounters').items():
        ports.setdefault(port, {}).update(
            pfc_rx_total=number(source, (info or {}).get('rxFrames', 0), '%s rxFrames' % port),
            pfc_tx_total=number(source, (info or {}).get('txFrames', 0), '%s txFrames' % port))
    # EOS names the per-port table interfaceCounters in most counter commands; accept `interfaces` as well
    table = watchdog.get('interfaceCounters', watchdog.get('interfaces', {}))
    for port, info in require_mapping(source, table, 'watchdog counters').items():
        view = ports.setdefault(port, {})
        for queue, values in ((info or {}).get('txQueues') or {}).items():
            index = _queue(source, queue, '%s watchdog queue' % port)
            view.setdefault('wd_storms', {})[index] = number(source, values.get('stuckCount', 0), '%s stuckCount' % port)
            view.setdefault('wd_restored', {})[index] = number(source, values.get('recoveryCount', 0),
                                                               '%s recoveryCount' % port)
            if 'state' in values:  # stuck now (only some releases say so; the storm count is always there)
                view.setdefault('wd_stormed', {})[index] = str(values['state']).lower() in ('stuck', 'stormed')
    egress = require_mapping(source, queues.get('egressQueueCounters', {}), 'egressQueueCounters')
    for port, info in require_mapping(source, egress.get('interfaces', {}), 'egress interfaces').items():
        classes = (((info or {}).get('ucastQueues') or {}).get('trafficClasses') or {})
        for name, detail in classes.items():
            index = _queue(source, name.split('-')[0], '%s traffic class' % port)
            dropped = sum(number(source, (dp or {}).get('droppedPackets', 0), '%s %s droppedPackets' % (port, name))
                          for dp in ((detail or {}).get('dropPrecedences') or {}).values())
            ports.setdefault(port, {}).setdefault('queue_dropped', {})[index] = dropped
    for port, info in require_mapping(source, ecn.get('intfQueueCounters', {}), 'intfQueueCounters').items():
        for queue, value in ((info or {}).get('queueCounters') or {}).items():
            if value == '-':
                continue  # ECN not configured on this queue
            index = _queue(source, queue, '%s ECN queue' % port)
            ports.setdefault(port, {}).setdefault('queue_ecn_marked', {})[index] = number(
                source, value, '%s queue %s ECN marks' % (port, queue))
    return {'ports': ports}


def parse_anta(output) -> dict:
    """The outputs of ANTA's commands, {command_key: eAPI JSON}, handed to ANTA unchanged (checks/anta_catalog.py)."""
    source = 'EOS outputs of ANTA\'s commands'
    if not isinstance(output, dict) or not output:
        raise StateError(source, 'not gathered (no ANTA command was read)')
    missing = sorted(key.split('|')[0] for key, value in output.items() if value is None)
    if missing:
        raise StateError(source, 'no output for %s' % ', '.join(missing))
    return output


# --------------------------------------------------------------------------- routes
_DROP = {'drop': 'blackhole', 'reject': 'unreachable'}


def parse_ip_route(output) -> list[Route]:
    """`show ip route` in the shape of iproute2.parse_ip_route: the routes the hardware holds (a route EOS reports as
    not programmed in hardware forwards nothing, so it is left out); routeAction `drop` is a blackhole, the BGP route
    types (eBGP, iBGP, bgpAggregate...) are protocol `bgp`."""
    source = 'EOS show ip route'
    data = _json(source, results(source, output, 1)[0])
    default = require_mapping(source, require_mapping(source, data.get('vrfs'), 'vrfs').get('default', {}), 'vrf default')
    routes: list[Route] = []
    for prefix, entry in require_mapping(source, default.get('routes', {}), 'routes').items():
        require_mapping(source, entry, 'route %s' % excerpt(prefix, 60))
        kind, action = entry.get('routeType'), entry.get('routeAction', 'forward')
        if not isinstance(kind, str) or not isinstance(action, str):
            raise StateError(source, 'route %s has no routeType or routeAction text' % excerpt(prefix, 60))
        if entry.get('hardwareProgrammed') is False:
            continue
        vias = entry.get('vias') or []
        if not isinstance(vias, list) or not all(isinstance(via, dict) for via in vias):
            raise StateError(source, 'vias of route %s is not a list of next hops' % excerpt(prefix, 60))
        metric = entry.get('metric')
        routes.append({'dst': prefix, 'type': 'unicast' if action == 'forward' else _DROP.get(action, action),
                       'protocol': 'bgp' if 'bgp' in kind.lower() else kind,
                       'metric': None if metric is None else integer(source, metric, 'metric of %s' % excerpt(prefix, 60)),
                       'nexthops': [{'gateway': via.get('nexthopAddr'), 'dev': via.get('interface')} for via in vias]})
    return route_table(routes)


LEAVES = ('leaf',)
SOURCES = (
    Source('bgp_summary', ['show bgp summary vrf all'], parse_bgp_summary),
    Source('interfaces', [INTERFACES], parse_interfaces),
    Source('lldp', ['show lldp neighbors detail'], parse_lldp),
    Source('evpn_vni', [VXLAN_VNI, IMET, RUNNING], parse_evpn_vni, roles=LEAVES),
    Source('bgp_evpn_vni', [RUNNING, VXLAN_VNI], parse_bgp_evpn_vni, roles=LEAVES),
    Source('evpn_type3', [IMET], parse_imet, roles=LEAVES),
    Source('routes', ['show ip route'], parse_ip_route, roles=LEAVES),
    Source('lossless', [RUNNING, INTERFACES], parse_lossless),
    Source('counters', ['show priority-flow-control counters', 'show priority-flow-control counters watchdog',
                        'show interfaces counters queue detail', 'show qos interfaces ecn counters queue'],
           parse_counters),
    Source('anta', lambda model, options: options.get('anta'), parse_anta, keyed=True,
           label="ANTA's commands (eAPI)"),
)
GATHERER = Gatherer('eos', 'Arista EOS (eAPI)', SOURCES, reader=EAPI, design_view=design_view)

__all__ = ['GATHERER', 'parse_bgp_summary', 'parse_interfaces', 'parse_lldp', 'config_tree', 'lossless_from_tree',
           'parse_lossless', 'parse_imet', 'parse_evpn_vni', 'parse_bgp_evpn_vni', 'parse_counters', 'design_view',
           'parse_ip_route']
