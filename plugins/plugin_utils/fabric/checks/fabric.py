# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fabric checks on gathered state: BGP, EVPN, LLDP cabling, interfaces, reachability and jumbo frames.

These are what the containerlab twin proves for real (FRR, Linux bridges and VXLAN, lldpd, ping).
"""

from __future__ import annotations

from . import FAIL, NOT_APPLICABLE, PASS, Result, check, state_problem
from . import catalog
from ..platforms import PLATFORMS
from ..state import StateError
from ..state.iproute2 import is_up
from ..state.sources import ping_key

SWITCHES = ('leaf', 'spine', 'super_spine')
ALL = SWITCHES + ('host',)
# Platforms whose overlay lives in the Linux kernel (bridge + VXLAN netdevs) rather than in an ASIC.
KERNEL_DATAPLANE = tuple(name for name, platform in PLATFORMS.items() if platform.kernel_dataplane)


def _not_gathered(ctx, model, check_id, key, subject='all'):
    """A not-applicable Result when this device's platform cannot show `key`, else None."""
    state = ctx.state(model['name'])
    if not state.provides(key):
        return Result(model['name'], check_id, subject, NOT_APPLICABLE, 'state from the device', '-',
                      'not applicable: the %s gatherer does not read %s' % (state.gatherer.title, key))
    return None


def _source(ctx, model, *keys):
    """The commands behind the state keys on this device's platform (Result.source)."""
    state = ctx.state(model['name'])
    return '; '.join(state.describe(key) for key in keys if state.provides(key))


def _state(ctx, model, check_id, key, subjects, expected):
    """(parsed state, None) or (None, [Results]) when the state is missing or unreadable.

    `expected` is one text for every subject or a list aligned with `subjects`.
    """
    skip = _not_gathered(ctx, model, check_id, key)
    if skip:
        return None, [skip]
    try:
        return ctx.state(model['name']).get(key), None
    except StateError as exc:
        wants = expected if isinstance(expected, list) else [expected] * len(subjects)
        return None, [state_problem(model['name'], check_id, subject, exc, want) for subject, want in zip(subjects, wants)]


# --------------------------------------------------------------------------- BGP
@check('bgp_session', 'BGP sessions established', 'fabric', SWITCHES, ('bgp_summary',),
       description='Every designed BGP neighbour is Established in every designed address family, '
                   'with the designed remote AS; sessions the design does not have are reported.')
def bgp_session(ctx, model):
    name = model['name']
    expected = catalog.expected_sessions(model)
    subjects = ['%s %s' % (item['key'], item['peer']) for item in expected]
    wants = ['Established in %s, remote AS %s' % (', '.join(item['afis']), item['remote_asn']) for item in expected]
    sessions, problems = _state(ctx, model, 'bgp_session', 'bgp_summary', subjects or ['all'], wants or ['no session'])
    if problems:
        return problems
    by_peer = {}
    for session in sessions:
        if session['vrf'] == 'default':
            by_peer.setdefault(session['peer'], {})[session['afi']] = session
    results = []
    for item, subject, want in zip(expected, subjects, wants):
        seen = by_peer.pop(item['key'], {})
        if not seen:
            results.append(Result(name, 'bgp_session', subject, FAIL, want, 'no such neighbour configured',
                                  source=_source(ctx, model, 'bgp_summary')))
            continue
        states = ['%s %s' % (afi, seen[afi]['state']) if afi in seen else '%s not activated' % afi for afi in item['afis']]
        remote = {session['remote_as'] for session in seen.values()}
        ok = all(afi in seen and seen[afi]['established'] for afi in item['afis']) and remote == {item['remote_asn']}
        text = ', '.join(states) + ', remote AS %s' % ','.join(str(value) for value in sorted(remote, key=str))
        results.append(Result(name, 'bgp_session', subject, PASS if ok else FAIL, want, text,
                              source=_source(ctx, model, 'bgp_summary')))
    for peer, afis in sorted(by_peer.items()):
        states = ', '.join('%s %s' % (afi, session['state']) for afi, session in sorted(afis.items()))
        host = next(iter(afis.values())).get('hostname') or ''
        results.append(Result(name, 'bgp_session', ('%s %s' % (peer, host)).strip(), FAIL,
                              'no session (not in the design)', states, source=_source(ctx, model, 'bgp_summary')))
    return results


# --------------------------------------------------------------------------- EVPN
def _vni_subject(item):
    return 'VNI %d' % item['vni']


@check('evpn_vni', 'EVPN L2VNIs present', 'fabric', ('leaf',), ('evpn_vni', 'bgp_evpn_vni'),
       description='Every designed L2VNI of the leaf is bound on the VXLAN data plane (type L2) and installed '
                   'in BGP EVPN; a missing VNI lists the VNIs the device has.')
def evpn_vni(ctx, model):
    name = model['name']
    expected = catalog.expected_vnis(ctx, model)
    if not expected:
        return []
    subjects = [_vni_subject(item) for item in expected]
    want = 'L2VNI on the VXLAN data plane and in BGP EVPN (installed)'
    vxlan, problems = _state(ctx, model, 'evpn_vni', 'evpn_vni', subjects, want)
    if problems:
        return problems
    bgp, problems = _state(ctx, model, 'evpn_vni', 'bgp_evpn_vni', subjects, want)
    if problems:
        return problems
    results = []
    for item, subject in zip(expected, subjects):
        vni = item['vni']
        seen = []
        bound = vxlan.get(vni)
        bgp_vni = bgp['vnis'].get(vni)
        if bound is None:
            known = ', '.join(str(other) for other in sorted(vxlan)) if vxlan else None
            there = ' (VNIs there: %s)' % known if known else ' (no VNI at all: EVPN not enabled)'
            seen.append('not on the VXLAN data plane' + there)
        elif bound['type'] != 'L2':
            seen.append('VXLAN type %s' % bound['type'])
        else:
            seen.append('VXLAN L2 on %s' % bound['vxlan_if'])
        if bgp_vni is None:
            seen.append('not in BGP EVPN' + ('' if bgp['advertise_all_vni'] else ' (advertise-all-vni is off)'))
        else:
            seen.append('BGP EVPN %s' % ('installed' if bgp_vni['in_kernel'] else 'NOT installed'))
        ok = bound is not None and bound['type'] == 'L2' and bgp_vni is not None and bgp_vni['in_kernel']
        results.append(Result(name, 'evpn_vni', subject, PASS if ok else FAIL, want, ', '.join(seen),
                              source=_source(ctx, model, 'evpn_vni', 'bgp_evpn_vni')))
    return results


@check('evpn_route_target', 'EVPN route-targets as designed', 'fabric', ('leaf',), ('bgp_evpn_vni',),
       description='Import and export route-targets of every L2VNI equal the designed route-target.')
def evpn_route_target(ctx, model):
    name = model['name']
    expected = catalog.expected_vnis(ctx, model)
    if not expected:
        return []
    subjects = [_vni_subject(item) for item in expected]
    bgp, problems = _state(ctx, model, 'evpn_route_target', 'bgp_evpn_vni', subjects, 'designed route-targets')
    if problems:
        return problems
    results = []
    for item, subject in zip(expected, subjects):
        want = 'import %s, export %s' % (item['route_target'], item['route_target'])
        seen_vni = bgp['vnis'].get(item['vni'])
        if seen_vni is None:
            results.append(Result(name, 'evpn_route_target', subject, FAIL, want, 'VNI not in bgpd',
                                  source=_source(ctx, model, 'bgp_evpn_vni')))
            continue
        seen = 'import %s, export %s' % (','.join(seen_vni['import_rts']) or 'none',
                                         ','.join(seen_vni['export_rts']) or 'none')
        ok = seen_vni['import_rts'] == [item['route_target']] and seen_vni['export_rts'] == [item['route_target']]
        results.append(Result(name, 'evpn_route_target', subject, PASS if ok else FAIL, want, seen,
                              source=_source(ctx, model, 'bgp_evpn_vni')))
    return results


@check('evpn_vtep', 'EVPN type-3 route of every remote VTEP imported', 'fabric', ('leaf',),
       ('evpn_vni', 'evpn_type3'),
       description='For every L2VNI, the type-3 (IMET) route of every other leaf carrying that VNI is imported: '
                   'its VTEP is in the VNI flood list. The BGP table explains a miss (route absent or its '
                   'route-target not imported).')
def evpn_vtep(ctx, model):
    name = model['name']
    expected = catalog.expected_vnis(ctx, model)
    subjects = ['VNI %d from %s %s' % (item['vni'], leaf, ip)
                for item in expected for ip, leaf in sorted(item['remote_vteps'].items())]
    if not subjects:
        return []
    zebra, problems = _state(ctx, model, 'evpn_vtep', 'evpn_vni', subjects, 'VTEP in the VNI flood list')
    if problems:
        return problems
    try:
        routes = ctx.state(name).get('evpn_type3')
    except StateError as exc:
        routes = exc.message  # explanation only; the verdict comes from zebra's flood list
    try:
        local = ctx.state(name).get('bgp_evpn_vni')['vnis']
    except StateError:
        local = {}
    results = []
    for item in expected:
        flood = set((zebra.get(item['vni']) or {}).get('remote_vteps', []))
        for ip, leaf in sorted(item['remote_vteps'].items()):
            subject = 'VNI %d from %s %s' % (item['vni'], leaf, ip)
            want = 'type-3 route imported (VTEP %s in the VNI %d flood list)' % (ip, item['vni'])
            if ip in flood:
                results.append(Result(name, 'evpn_vtep', subject, PASS, want, 'in the flood list',
                                      source=_source(ctx, model, 'evpn_vni')))
                continue
            results.append(Result(name, 'evpn_vtep', subject, FAIL, want,
                                  'not in the flood list; ' + _type3_evidence(routes, ip, item['route_target'],
                                                                              local.get(item['vni'])),
                                  source=_source(ctx, model, 'evpn_vni', 'evpn_type3')))
        extra = sorted(flood - set(item['remote_vteps']))
        if extra:
            results.append(Result(name, 'evpn_vtep', 'VNI %d unexpected VTEPs' % item['vni'], FAIL,
                                  'only the designed VTEPs', ', '.join(extra), source=_source(ctx, model, 'evpn_vni')))
    return results


def _type3_evidence(routes, vtep, route_target, local_vni):
    """Why a remote VTEP is missing, from the BGP EVPN table and this leaf's import route-targets."""
    if isinstance(routes, str):
        return 'BGP EVPN table not readable: %s' % routes
    paths = [route for route in routes if route['vtep'] == vtep]
    if not paths:
        return 'no type-3 route from %s in the BGP table' % vtep
    targets = sorted({target for route in paths for target in route['route_targets']})
    imports = local_vni['import_rts'] if local_vni else [route_target]
    if not set(targets) & set(imports):
        return 'its type-3 route carries RT %s but this leaf imports %s, so it is not imported' % (
            ','.join(targets) or 'none', ','.join(imports) or 'nothing')
    return 'its type-3 route with RT %s is in the BGP table but not installed' % ','.join(targets)


# --------------------------------------------------------------------------- LLDP
def _same_host(system_name, device):
    """LLDP system names are often fully qualified (EOS sends 'leaf001.example.net'): compare the host part."""
    return bool(system_name) and (system_name == device or str(system_name).split('.', 1)[0] == device)


@check('lldp_neighbor', 'LLDP neighbours match the cabling plan', 'fabric', ALL, ('lldp',),
       description='On every cabled port the LLDP neighbour is the designed device and port.')
def lldp_neighbor(ctx, model):
    name = model['name']
    expected = catalog.expected_neighbors(model)
    subjects = [item['interface'] for item in expected]
    neighbors, problems = _state(ctx, model, 'lldp_neighbor', 'lldp', subjects, 'designed neighbour')
    if problems:
        return problems
    by_port = {}
    for neighbor in neighbors:
        by_port.setdefault(neighbor['interface'], []).append(neighbor)
    results = []
    for item in expected:
        want = '%s %s' % (item['peer'], item['peer_interface'])
        seen = by_port.get(item['interface'], [])
        text = ', '.join('%s %s' % (entry['system_name'] or entry['chassis_id'], entry['peer_port']) for entry in seen)
        ok = any(_same_host(entry['system_name'], item['peer']) and entry['peer_port'] == item['peer_interface']
                 for entry in seen)
        results.append(Result(name, 'lldp_neighbor', item['interface'], PASS if ok else FAIL, want,
                              text or 'no LLDP neighbour', source=_source(ctx, model, 'lldp')))
    return results


# --------------------------------------------------------------------------- interfaces
def _interfaces(ctx, model, check_id):
    expected = catalog.expected_interfaces(model)
    subjects = [item['name'] for item in expected]
    interfaces, problems = _state(ctx, model, check_id, 'interfaces', subjects, 'designed interface')
    return expected, interfaces, problems


def _describe_link(interface):
    if interface is None:
        return 'does not exist'
    parts = [interface['operstate'] or 'state unknown']
    parts.append('admin up' if interface['admin_up'] else 'admin down')
    if interface['admin_up'] and not interface['lower_up']:
        parts.append('no carrier')
    return ', '.join(parts)


@check('interface_state', 'Cabled interfaces up', 'fabric', ALL, ('interfaces',),
       description='Every cabled port exists, is administratively up and has carrier.')
def interface_state(ctx, model):
    expected, interfaces, problems = _interfaces(ctx, model, 'interface_state')
    if problems:
        return problems
    results = []
    for item in expected:
        seen = interfaces.get(item['name'])
        results.append(Result(model['name'], 'interface_state', item['name'], PASS if is_up(seen) else FAIL,
                              'up (to %s)' % item['peer'], _describe_link(seen), source=_source(ctx, model, 'interfaces')))
    return results


@check('interface_mtu', 'Interface MTU as designed', 'fabric', ALL, ('interfaces',), rules=('C14',),
       description='Every cabled port has the designed MTU (switch port MTU, host rail MTU).')
def interface_mtu(ctx, model):
    expected, interfaces, problems = _interfaces(ctx, model, 'interface_mtu')
    if problems:
        return problems
    results = []
    for item in expected:
        seen = interfaces.get(item['name'])
        text = 'MTU %s' % seen['mtu'] if seen else 'interface does not exist'
        ok = seen is not None and seen['mtu'] == item['mtu']
        results.append(Result(model['name'], 'interface_mtu', item['name'], PASS if ok else FAIL,
                              'MTU %d' % item['mtu'], text, rule='C14', source=_source(ctx, model, 'interfaces')))
    return results


@check('interface_address', 'Interface addresses as designed', 'fabric', ALL, ('interfaces',),
       description='Every host rail and routed switch port carries its designed IPv4 address and prefix.')
def interface_address(ctx, model):
    expected = [item for item in catalog.expected_interfaces(model) if item['address']]
    if not expected:
        return []
    subjects = [item['name'] for item in expected]
    interfaces, problems = _state(ctx, model, 'interface_address', 'interfaces', subjects, 'designed address')
    if problems:
        return problems
    results = []
    for item in expected:
        seen = interfaces.get(item['name'])
        have = ['%s/%s' % (addr['address'], addr['prefixlen']) for addr in (seen or {}).get('addresses', [])
                if addr['family'] == 'inet']
        ok = item['address'] in have
        results.append(Result(model['name'], 'interface_address', item['name'], PASS if ok else FAIL,
                              item['address'], ', '.join(have) or ('no IPv4 address' if seen else 'no such interface'),
                              source=_source(ctx, model, 'interfaces')))
    return results


@check('vxlan_device', 'VXLAN devices carry the overlay', 'fabric', ('leaf',), ('interfaces',), rules=('C14',),
       description='Linux data plane (FRR): each L2VNI has an up VXLAN device with the leaf VTEP as source, and it '
                   'and its bridge have an MTU that carries a full host frame.')
def vxlan_device(ctx, model):
    name = model['name']
    expected = catalog.expected_vnis(ctx, model)
    if not expected:
        return []
    if model['platform'] not in KERNEL_DATAPLANE:
        return [Result(name, 'vxlan_device', 'all', NOT_APPLICABLE, 'kernel VXLAN devices', '-',
                       'not applicable: %s forwards VXLAN in its ASIC; the evpn_* checks cover the overlay'
                       % model['platform'])]
    subjects = [_vni_subject(item) for item in expected]
    interfaces, problems = _state(ctx, model, 'vxlan_device', 'interfaces', subjects, 'VXLAN device')
    if problems:
        return problems
    host_mtu = ctx.design.lossless['mtu']['host']
    by_vni = {item['vxlan']['id']: item for item in interfaces.values() if item['vxlan']}
    results = []
    for item, subject in zip(expected, subjects):
        want = 'VXLAN device up, local %s, it and its bridge MTU >= host MTU %d' % (item['vtep_ip'], host_mtu)
        device = by_vni.get(item['vni'])
        if device is None:
            results.append(Result(name, 'vxlan_device', subject, FAIL, want, 'no VXLAN device with VNI %d' % item['vni'],
                                  rule='C14', source=_source(ctx, model, 'interfaces')))
            continue
        bridge = interfaces.get(device['master']) if device['master'] else None
        seen = '%s %s, local %s, MTU %s, bridge %s MTU %s' % (
            device['ifname'], 'up' if device['admin_up'] else 'down', device['vxlan']['local'], device['mtu'],
            device['master'] or 'none', bridge['mtu'] if bridge else '-')
        ok = (device['admin_up'] and device['vxlan']['local'] == item['vtep_ip'] and device['mtu'] >= host_mtu
              and bridge is not None and bridge['mtu'] >= host_mtu and bridge['admin_up'])
        results.append(Result(name, 'vxlan_device', subject, PASS if ok else FAIL, want, seen, rule='C14',
                              source=_source(ctx, model, 'interfaces')))
    return results


# --------------------------------------------------------------------------- pings
def _pings(ctx, model, check_id, kind):
    name = model['name']
    targets = catalog.ping_targets(ctx, model, ctx.options.get('ping_peers', 0))
    results = []
    for target in targets:
        subject = '%s -> %s %s' % (target['interface'], target['peer'], target['peer_ip'])
        if kind == 'jumbo':
            want = 'reply to %d-byte pings with DF set (MTU %d end to end)' % (target['jumbo_payload'], model['mtu'])
        else:
            want = 'reply over rail %d (%s)' % (target['rail'], target['network'])
        try:
            outcome = ctx.state(name).get(ping_key(kind, target['interface'], target['peer_ip']))
        except StateError as exc:
            results.append(state_problem(name, check_id, subject, exc, want))
            continue
        if outcome['ok']:
            seen = '%d/%d replies' % (outcome['received'], outcome['transmitted'])
            loss_limit = ctx.options.get('max_loss_percent', 34)
            status = PASS if outcome['loss_percent'] <= loss_limit else FAIL
            if status == FAIL:
                seen += ' (%s%% loss > %s%%)' % (outcome['loss_percent'], loss_limit)
        else:
            status, seen = FAIL, outcome['reason']
        source = 'ping -M do -s %d' % target['jumbo_payload'] if kind == 'jumbo' else 'ping'
        results.append(Result(name, check_id, subject, status, want, seen, source=source))
    return results


@check('reachability', 'Host-to-host reachability on each rail', 'fabric', ('host',), ('ping',),
       description='Each GPU server reaches every same-rail peer across the VXLAN overlay (ping from the rail NIC).')
def reachability(ctx, model):
    return _pings(ctx, model, 'reachability', 'ping')


@check('jumbo_frames', 'Jumbo frames end to end', 'fabric', ('host',), ('jumbo',), rules=('C14',),
       description='A ping with DF set and the largest payload the host MTU allows reaches every same-rail peer.')
def jumbo_frames(ctx, model):
    return _pings(ctx, model, 'jumbo_frames', 'jumbo')


__all__ = ['SWITCHES', 'ALL', 'KERNEL_DATAPLANE']
