# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""FRR JSON outputs (vtysh -c '... json'), as printed by FRR 8.4 (Debian bookworm) and later.

Shapes handled (recorded in tests/unit/fixtures/state/captured):
- `show bgp summary json`: {afi: {routerId, as, vrfName, peers: {peer: {...}}}}
- `show bgp vrf all summary json`: {vrf: {afi: {... peers ...}}}
- `show ip bgp summary json` (one address family): {routerId, as, peers: {...}}
- `show evpn vni json`: {"<vni>": {vni, type, vxlanIf, remoteVteps: [...]}}; `remoteVteps` is absent when
  there are none; empty output when zebra has no EVPN (no `advertise-all-vni`, or bgpd is not running)
- `show evpn vni detail json`: a list (FRR 8.4) whose `numRemoteVteps` holds the list of VTEP addresses
- `show bgp l2vpn evpn vni json`: {advertiseAllVnis, numVnis, "<vni>": {importRTs, exportRTs, rd, inKernel}}
- `show bgp l2vpn evpn route type multicast json`: {"<rd>": {rd, "<prefix>": {paths: [[path, ...]]}}, numPrefix}
- `show ip route json` (zebra's RIB): {"<prefix>": [{prefix, protocol, selected, installed, metric, nexthops: [{fib,
  ip, interfaceName, active, directlyConnected, unreachable, blackhole | reject | adminProhibited}]}]} (FRR
  zebra/zebra_vty.c, show_nexthop_json_helper and vty_show_ip_route: `installed` is the route zebra handed to the
  data plane, `fib` the next hops it installed)
vtysh prints '<daemon> is not running' (rc 1) when the daemon owning the state is down: DaemonDown.

VTYSH_SOURCES and BFD_SOURCE are the state keys every platform that runs FRR reads this way: the FRR platform's
gatherer (platforms/frr/state.py, with iproute2, lldpd and bfdd's sessions) and SONiC's (its `vtysh` runs in the bgp
container).
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..state import DaemonDown, StateError, command_output, excerpt, integer, load_json, require_mapping
from ..state.gatherer import Source
from ..state.views import route_table
from ..state.schema import BfdSession, BgpEvpnVni, BgpEvpnVnis, BgpSession, EvpnVni, ImetRoute

_NOT_RUNNING = re.compile(r'\b(\w+d) is not running\b')
_UNKNOWN_COMMAND = '% Unknown command'


def vtysh_output(source: str, result) -> str:
    """stdout of a vtysh command, with the daemon-down and unknown-command cases made explicit."""
    if isinstance(result, dict):
        text = ' '.join(str(result.get(key) or '') for key in ('stdout', 'stderr'))
        # (the plain test first: the expression's word boundaries walk megabytes of a route table slowly)
        down = _NOT_RUNNING.search(text) if ' is not running' in text else None
        if down:
            raise DaemonDown(source, down.group(1))
        if _UNKNOWN_COMMAND in text:
            raise StateError(source, 'FRR does not know this command: %s' % excerpt(text))
    elif isinstance(result, str):
        down = _NOT_RUNNING.search(result[:200])
        if down and not result.lstrip().startswith(('{', '[')):
            raise DaemonDown(source, down.group(1))
    return command_output(source, result)


# --------------------------------------------------------------------------- BGP summary
def _peers_of_afi(source, vrf, afi, block) -> list[BgpSession]:
    require_mapping(source, block, 'address family %s' % afi)
    peers = block.get('peers', {})
    require_mapping(source, peers, '%s peers' % afi)
    vrf = block.get('vrfName', vrf) or vrf
    sessions: list[BgpSession] = []
    for peer, data in peers.items():
        require_mapping(source, data, 'peer %s' % peer)
        state = data.get('state')
        if not isinstance(state, str):
            raise StateError(source, 'peer %s in %s has no state' % (peer, afi))
        sessions.append({
            'vrf': vrf,
            'afi': afi,
            'peer': peer,
            'id_type': data.get('idType', 'interface' if not re.match(r'^[0-9a-fA-F:.]+$', peer) else 'ip'),
            'hostname': data.get('hostname'),
            'remote_as': data.get('remoteAs'),
            'local_as': data.get('localAs', block.get('as')),
            'state': state,
            'established': state == 'Established',
            # bgpd's own word for a neighbour shut down in its configuration (bgp_vty.c: peerState "Admin")
            'admin_shutdown': data.get('peerState') == 'Admin',
            'prefixes_received': data.get('pfxRcd'),
            'prefixes_sent': data.get('pfxSnt'),
            'uptime_ms': data.get('peerUptimeMsec'),
            'description': data.get('desc'),
        })
    return sessions


def parse_bgp_summary(result) -> list[BgpSession]:
    """Sessions of `show bgp [vrf all] summary json`: one dict per (vrf, address family, peer).

    Keys: vrf, afi (FRR's name, e.g. ipv4Unicast, l2VpnEvpn), peer (address or interface), id_type, hostname,
    remote_as, local_as, state, established, prefixes_received, prefixes_sent, uptime_ms, description.
    An empty object (no BGP instance) gives an empty list.
    """
    source = 'FRR show bgp summary json'
    data = require_mapping(source, load_json(source, vtysh_output(source, result)))
    if 'peers' in data:
        return _peers_of_afi(source, data.get('vrfName', 'default'), 'ipv4Unicast', data)
    sessions: list[BgpSession] = []
    for key, value in data.items():
        if not isinstance(value, dict):
            continue
        if 'peers' in value or 'routerId' in value:
            sessions.extend(_peers_of_afi(source, 'default', key, value))
            continue
        for afi, block in value.items():
            if isinstance(block, dict) and ('peers' in block or 'routerId' in block):
                sessions.extend(_peers_of_afi(source, key, afi, block))
    return sessions


# --------------------------------------------------------------------------- EVPN VNIs (zebra)
def parse_evpn_vni(result) -> dict[Any, EvpnVni]:
    """zebra's VNIs from `show evpn vni [detail] json`: {vni: {vni, type, vxlan_if, vtep_ip, remote_vteps}}.

    Empty output is valid and means zebra knows no VNI (EVPN not enabled or bgpd not running): {}.
    """
    source = 'FRR show evpn vni json'
    data = load_json(source, vtysh_output(source, result), empty={})
    items = []
    if isinstance(data, list):
        items = data
    elif isinstance(data, dict):
        items = [value for value in data.values() if isinstance(value, dict) and 'vni' in value]
        if data and not items:
            raise StateError(source, 'no VNI objects in %r' % excerpt(str(data), 80))
    else:
        raise StateError(source, 'top level is %s, expected an object or a list' % type(data).__name__)
    vnis: dict[Any, EvpnVni] = {}
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get('vni'), int):
            raise StateError(source, 'VNI entry without a numeric vni: %r' % excerpt(str(item), 80))
        remote = item.get('remoteVteps')
        if remote is None and isinstance(item.get('numRemoteVteps'), list):
            remote = item['numRemoteVteps']  # FRR 8.4 detail output puts the list under numRemoteVteps
        if remote is None:
            remote = []
        if not isinstance(remote, list):
            raise StateError(source, 'VNI %d: remoteVteps is not a list' % item['vni'])
        vnis[item['vni']] = {
            'vni': item['vni'],
            'type': item.get('type'),
            'vxlan_if': item.get('vxlanIf', item.get('vxlanInterface')),
            'vtep_ip': item.get('vtepIp'),
            'remote_vteps': sorted(str(vtep) for vtep in remote),
            'tenant_vrf': item.get('tenantVrf', item.get('vrf')),
            'macs': item.get('numMacs'),
        }
    return vnis


# --------------------------------------------------------------------------- EVPN VNIs (bgpd)
def parse_bgp_evpn_vni(result) -> BgpEvpnVnis:
    """bgpd's view from `show bgp l2vpn evpn vni json`.

    Returns {'advertise_all_vni': bool, 'vnis': {vni: {vni, type, rd, originator_ip, in_kernel, import_rts,
    export_rts}}}.
    """
    source = 'FRR show bgp l2vpn evpn vni json'
    data = require_mapping(source, load_json(source, vtysh_output(source, result)))
    vnis: dict[Any, BgpEvpnVni] = {}
    for key, value in data.items():
        if not (isinstance(value, dict) and 'vni' in value):
            continue
        try:
            vni = int(value['vni'])
        except (TypeError, ValueError):
            raise StateError(source, 'VNI %s has a non-numeric vni %r' % (key, value['vni'])) from None
        imports, exports = value.get('importRTs', []), value.get('exportRTs', [])
        if not isinstance(imports, list) or not isinstance(exports, list):
            raise StateError(source, 'VNI %d: importRTs/exportRTs must be lists' % vni)
        vnis[vni] = {
            'vni': vni,
            'type': value.get('type'),
            'rd': value.get('rd'),
            'originator_ip': value.get('originatorIp'),
            'in_kernel': str(value.get('inKernel', '')).lower() == 'true',
            'import_rts': sorted(imports),
            'export_rts': sorted(exports),
        }
    if 'advertiseAllVnis' not in data and not vnis:
        raise StateError(source, 'neither advertiseAllVnis nor any VNI in %r' % excerpt(str(data), 80))
    return {'advertise_all_vni': data.get('advertiseAllVnis') == 'Enabled', 'vnis': vnis}


# --------------------------------------------------------------------------- EVPN type-3 routes
_RT = re.compile(r'\bRT:(\S+)')


def _paths(source, prefix, entry):
    paths = entry.get('paths', [])
    if not isinstance(paths, list):
        raise StateError(source, 'route %s: paths is not a list' % prefix)
    flat = []
    for item in paths:  # FRR 8.x: a list of lists of paths; some releases: a flat list
        flat.extend(item if isinstance(item, list) else [item])
    for path in flat:
        if not isinstance(path, dict):
            raise StateError(source, 'route %s: a path is not an object' % prefix)
    return flat


def parse_evpn_type3(result) -> list:
    """IMET (type-3) routes of `show bgp l2vpn evpn route type multicast json`.

    One dict per path: rd, vtep (originating router IP), eth_tag, route_targets, valid, best, as_path,
    peer, next_hop. Non-type-3 prefixes are ignored.
    """
    source = 'FRR show bgp l2vpn evpn route type multicast json'
    data = require_mapping(source, load_json(source, vtysh_output(source, result)))
    routes: list[ImetRoute] = []
    for rd_key, block in data.items():
        if not isinstance(block, dict):
            continue
        rd = block.get('rd', rd_key)
        for prefix, entry in block.items():
            if not prefix.startswith('[3]:') or not isinstance(entry, dict):
                continue
            for path in _paths(source, prefix, entry):
                communities = (path.get('extendedCommunity') or {}).get('string', '')
                vtep = path.get('ip') or prefix.rstrip(']').rsplit('[', 1)[-1]
                next_hops = path.get('nexthops') or [{}]
                routes.append({
                    'rd': rd,
                    'vtep': vtep,
                    'eth_tag': path.get('ethTag', 0),
                    'route_targets': sorted(_RT.findall(communities)),
                    'valid': bool(path.get('valid')),
                    'best': bool(path.get('bestpath')),
                    'as_path': path.get('path', ''),
                    'peer': path.get('peerId'),
                    'next_hop': next_hops[0].get('ip'),
                })
    return routes


# --------------------------------------------------------------------------- BFD
def _documents(source, text) -> list:
    """The JSON documents vtysh prints one after the other for several -c commands."""
    decoder, documents, index = json.JSONDecoder(), [], 0
    text = text or ''
    while index < len(text):
        while index < len(text) and text[index].isspace():
            index += 1
        if index >= len(text):
            break
        try:
            document, index = decoder.raw_decode(text, index)
        except ValueError as exc:
            raise StateError(source, 'not valid JSON (%s) in %r' % (exc.args[0].split(':')[0], excerpt(text[index:], 60))) from None
        documents.append(document)
    return documents


def parse_bfd_peers(result) -> dict[str, BfdSession]:
    """BFD sessions from `vtysh -c 'show bfd peers json' -c 'show bfd peers counters json'` (bfdd, bfdd/bfdd_vty.c):
    two arrays of sessions keyed by peer (and local, vrf, interface), one after the other. Returns {peer address:
    {status, diagnostic, remote_diagnostic, uptime_s, downtime_s, interface, up_events, down_events}}; unnumbered
    sessions are also keyed by interface. No BFD session at all is an empty mapping."""
    source = 'FRR show bfd peers json'
    documents = _documents(source, vtysh_output(source, result))
    peers, counters = (documents + [[], []])[:2]
    if not isinstance(peers, list) or not isinstance(counters, list):
        raise StateError(source, 'expected JSON arrays of BFD sessions')
    sessions: dict[str, BfdSession] = {}
    for item in peers:
        if not isinstance(item, dict) or not item.get('peer'):
            raise StateError(source, 'BFD session without a peer: %r' % excerpt(str(item), 80))
        session: BfdSession = {
            'peer': item['peer'], 'interface': item.get('interface'), 'status': item.get('status'),
            'diagnostic': item.get('diagnostic'), 'remote_diagnostic': item.get('remote-diagnostic'),
            'uptime_s': item.get('uptime'), 'downtime_s': item.get('downtime'), 'up_events': None, 'down_events': None}
        sessions[item['peer']] = session
        if item.get('interface'):
            sessions.setdefault(item['interface'], session)
    for item in counters:
        counted = sessions.get(str(item.get('peer'))) if isinstance(item, dict) else None
        if counted is not None:
            counted['up_events'] = item.get('session-up')
            counted['down_events'] = item.get('session-down')
    return sessions


# a blackhole next hop's kind (zebra_vty.c) as iproute2 names the route type the kernel gets for it
_BLACKHOLE = (('reject', 'unreachable'), ('adminProhibited', 'prohibit'), ('admin-prohibited', 'prohibit'))


def _route_type(hops) -> str:
    if hops and all(hop.get('unreachable') for hop in hops):
        return next((kind for flag, kind in _BLACKHOLE if hops[0].get(flag)), 'blackhole')
    return 'unicast'


def parse_ip_route(result) -> list:
    """`show ip route json` in the shape of iproute2.parse_ip_route, keeping what zebra installed in the data plane:
    per prefix the selected, installed route and its FIB next hops (SONiC's fpmsyncd programs the ASIC from exactly
    these, through zebra's FPM channel); a prefix with no installed route forwards nothing and is left out."""
    source = 'FRR show ip route json'
    text = vtysh_output(source, result)
    data = require_mapping(source, load_json(source, text) if text.strip() else {})
    routes = []
    for prefix, entries in data.items():
        if not isinstance(entries, list) or not all(isinstance(entry, dict) for entry in entries):
            raise StateError(source, 'prefix %s is not a list of routes' % excerpt(prefix, 60))
        for entry in entries:
            if not entry.get('selected') or not entry.get('installed'):
                continue
            protocol, hops = entry.get('protocol'), entry.get('nexthops') or []
            if not isinstance(protocol, str) or not isinstance(hops, list) or not all(isinstance(hop, dict) for hop in hops):
                raise StateError(source, 'route %s has no protocol or no list of next hops' % excerpt(prefix, 60))
            installed = [hop for hop in hops if hop.get('fib')] or [hop for hop in hops if hop.get('active')]
            kind = _route_type(installed or hops)
            metric = entry.get('metric')
            routes.append({'dst': prefix, 'type': kind, 'protocol': protocol,
                           'metric': None if metric is None else integer(source, metric, 'metric of %s' % excerpt(prefix, 60)),
                           'nexthops': [] if kind != 'unicast' else
                           [{'gateway': hop.get('ip'), 'dev': hop.get('interfaceName')} for hop in installed]})
    return route_table(routes)


def vtysh(command):
    return ('vtysh', '-c', command)


LEAVES = ('leaf',)
VTYSH_SOURCES = (
    Source('bgp_summary', vtysh('show bgp vrf all summary json'), parse_bgp_summary),
    Source('evpn_vni', vtysh('show evpn vni json'), parse_evpn_vni, roles=LEAVES),
    Source('bgp_evpn_vni', vtysh('show bgp l2vpn evpn vni json'), parse_bgp_evpn_vni, roles=LEAVES),
    Source('evpn_type3', vtysh('show bgp l2vpn evpn route type multicast json'), parse_evpn_type3, roles=LEAVES),
)
# the routes the data plane forwards by (SONiC: zebra -> fpmsyncd -> APPL_DB ROUTE_TABLE -> the ASIC)
ROUTES_SOURCE = Source('routes', vtysh('show ip route json'), parse_ip_route, roles=LEAVES)
BFD_SOURCE = Source('bfd', ('vtysh', '-c', 'show bfd peers json', '-c', 'show bfd peers counters json'),
                    parse_bfd_peers, when=lambda model: (model.get('bgp') or {}).get('bfd'))

__all__ = ['parse_bgp_summary', 'parse_evpn_vni', 'parse_bgp_evpn_vni', 'parse_evpn_type3', 'parse_bfd_peers',
           'vtysh_output', 'vtysh', 'VTYSH_SOURCES', 'BFD_SOURCE', 'parse_ip_route', 'ROUTES_SOURCE']
