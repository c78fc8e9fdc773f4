# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fabric checks on gathered state: BGP, EVPN, LLDP cabling, interfaces, reachability and jumbo frames.

These are what the containerlab twin proves for real (FRR, Linux bridges and VXLAN, lldpd, ping). Each also
reports what the device has and the design does not (a session, VNI, VLAN or VRF nobody designed, a second LLDP
neighbour on a port).
"""

from __future__ import annotations

from . import Check, NotApplicable, StateError, Subject, Unexpected, failed, passed, register, verdict
from . import catalog
from ..platforms import PLATFORMS
from ..state.iproute2 import is_up
from ..state.sources import ping_key
from ..terms import ROLES, SWITCH_ROLES

SWITCHES = SWITCH_ROLES
ALL = ROLES
# Platforms whose overlay lives in the Linux kernel (bridge + VXLAN netdevs) rather than in an ASIC.


def _once(ctx, name, what, build):
    """A per-device view of parsed state, built once per run (a check judges many subjects on it)."""
    key = (what, name)
    if key not in ctx.cache:
        ctx.cache[key] = build()
    return ctx.cache[key]


def _optional(ctx, name, key):
    """Parsed state when the platform shows it and it could be read, else None (for findings beyond the design)."""
    state = ctx.state(name)
    if not state.provides(key):
        return None
    try:
        return state.get(key)
    except StateError:
        return None


# --------------------------------------------------------------------------- BGP
def _asn(value):
    """An AS number as an int, whatever the platform printed: 4200000000, "4200000000" or asdot "64086.59904"."""
    text = str(value).strip()
    if '.' in text:
        high, _dot, low = text.partition('.')
        if high.isdigit() and low.isdigit():
            return int(high) * 65536 + int(low)
    return int(text) if text.isdigit() else value


def _sessions_by_peer(ctx, name, sessions):
    def build():
        table = {}
        for session in sessions:
            if session['vrf'] == 'default':
                table.setdefault(session['peer'], {})[session['afi']] = session
        return table
    return _once(ctx, name, 'bgp_by_peer', build)


def _bfd_note(ctx, name, item):
    """Why BFD may have taken a session down: its state and down events on this switch (explanation only)."""
    sessions = _optional(ctx, name, 'bfd') or {}
    session = sessions.get(item['ip'] or '') or sessions.get(item['interface'])
    if not session or (session['status'] == 'up' and not session['down_events']):
        return ''
    events = ', %s down events' % session['down_events'] if session['down_events'] else ''
    diagnostic = session['diagnostic'] if session['diagnostic'] not in (None, 'ok') else session['remote_diagnostic']
    return ('BFD with %s is %s%s%s: BFD takes the BGP session down when its packets are lost (a flapping link, or a '
            'control plane too loaded to answer in time)' % (
                item['key'], session['status'], ' (%s)' % diagnostic if diagnostic not in (None, 'ok') else '', events))


@register
class BgpSession(Check):
    id = 'bgp_session'
    title = 'BGP sessions established'
    roles = SWITCHES
    per = 'BGP neighbour'
    state = ('bgp_summary',)
    explains = ('bfd',)
    inputs = 'the BGP neighbours of the switch (address or interface, peer, remote AS), its AS, EVPN or not'
    description = ('every designed neighbour is Established in IPv4 unicast (+ L2VPN EVPN when the design has EVPN) '
                   'with the designed remote AS')
    failure = ('the state of each address family and the remote AS, and what BFD says about the session where the '
               'platform shows it (down events, diagnostic); a session, a VRF with sessions or a local AS the design does '
               'not have is a finding of its own')
    example = ('leaf001 bgp_session [10.0.0.0 spine001]: expected Established in ipv4Unicast, l2VpnEvpn, remote AS '
               '65100; seen ipv4Unicast Active, l2VpnEvpn Active, remote AS 65100')

    def subjects(self, ctx, model):
        for item in catalog.expected_sessions(model):
            yield Subject('%s %s' % (item['key'], item['peer']),
                          'Established in %s, remote AS %s' % (', '.join(item['afis']), item['remote_asn']),
                          port=item['interface'], data=item)

    def judge(self, ctx, model, subject, state):
        item = subject.data
        seen = _sessions_by_peer(ctx, model['name'], state).get(item['key'], {})
        if not seen:
            return failed('no such neighbour configured')
        states = ['%s %s' % (afi, seen[afi]['state']) if afi in seen else '%s not activated' % afi for afi in item['afis']]
        remote = {session['remote_as'] for session in seen.values()}
        ok = all(afi in seen and seen[afi]['established'] for afi in item['afis']) and remote == {item['remote_asn']}
        text = ', '.join(states) + ', remote AS %s' % ','.join(str(value) for value in sorted(remote, key=str))
        return verdict(ok, text, message='' if ok else _bfd_note(ctx, model['name'], item))

    def unexpected(self, ctx, model):
        sessions = _optional(ctx, model['name'], 'bgp_summary')
        if sessions is None:
            return
        designed = {item['key'] for item in catalog.expected_sessions(model)}
        for peer, afis in sorted(_sessions_by_peer(ctx, model['name'], sessions).items()):
            if peer in designed:
                continue
            states = ', '.join('%s %s' % (afi, session['state']) for afi, session in sorted(afis.items()))
            host = list(afis.values())[0].get('hostname') or ''
            yield Unexpected(('%s %s' % (peer, host)).strip(), states, 'no session (not in the design)')
        vrfs = {}
        for session in sessions:
            if session['vrf'] != 'default':
                vrfs.setdefault(session['vrf'], set()).add('%s %s' % (session['peer'], session['state']))
        for vrf, peers in sorted(vrfs.items()):
            yield Unexpected('VRF %s sessions' % vrf, ', '.join(sorted(peers)), 'no BGP session in VRF %s (not in the '
                             'design: the tenant VRFs carry EVPN routes only)' % vrf)
        asn = (model.get('bgp') or {}).get('asn')
        local = sorted({_asn(session['local_as']) for session in sessions if session['vrf'] == 'default'
                        and session.get('local_as') is not None}, key=str)
        if asn is not None and local and local != [asn]:
            yield Unexpected('local AS', 'AS %s' % ','.join(str(value) for value in local), 'AS %s' % asn,
                             'the switch runs another AS than the design gives it: its peers refuse its sessions')


# --------------------------------------------------------------------------- EVPN
class _Vni(Check):
    """The designed L2VNIs of a leaf, one subject each."""

    roles = ('leaf',)
    per = 'L2VNI'

    def subjects(self, ctx, model):
        for item in catalog.expected_vnis(ctx, model):
            yield Subject('VNI %d' % item['vni'], self.want(item), data=item)

    def want(self, item):
        return ''


@register
class EvpnVni(_Vni):
    id = 'evpn_vni'
    title = 'EVPN L2VNIs present'
    state = ('evpn_vni', 'bgp_evpn_vni')
    inputs = 'the VLANs of the leaf with their L2VNI, the L3VNIs of its tenant VRFs'
    description = ('every designed L2VNI is bound on the VXLAN data plane (type L2, to its designed VLAN where the '
                   'platform shows it) and installed in BGP EVPN')
    failure = ('what the data plane and BGP show instead; a missing VNI lists the VNIs the device has; a VNI the '
               'design does not have is a finding of its own, with the VLAN or VRF it is bound to')
    example = ('leaf001 evpn_vni [VNI 10100]: expected L2VNI on the VXLAN data plane and in BGP EVPN (installed); '
               'seen not on the VXLAN data plane (VNIs there: 10999), not in BGP EVPN')

    def want(self, item):
        return 'L2VNI on the VXLAN data plane and in BGP EVPN (installed)'

    def judge(self, ctx, model, subject, state):
        vxlan, bgp = state
        item = subject.data
        vni = item['vni']
        seen = []
        bound = vxlan.get(vni)
        bgp_vni = bgp['vnis'].get(vni)
        wrong_vlan = bound is not None and bound.get('vlan') is not None and str(bound['vlan']) != str(item['vlan'])
        if bound is None:
            known = ', '.join(str(other) for other in sorted(vxlan)) if vxlan else None
            there = ' (VNIs there: %s)' % known if known else ' (no VNI at all: EVPN not enabled)'
            seen.append('not on the VXLAN data plane' + there)
        elif bound['type'] != 'L2':
            seen.append('VXLAN type %s' % bound['type'])
        elif wrong_vlan:
            seen.append('VXLAN L2 on %s VLAN %s, designed VLAN %d' % (bound['vxlan_if'], bound['vlan'], item['vlan']))
        else:
            seen.append('VXLAN L2 on %s' % bound['vxlan_if'])
        if bgp_vni is None:
            seen.append('not in BGP EVPN' + ('' if bgp['advertise_all_vni'] else ' (advertise-all-vni is off)'))
        else:
            seen.append('BGP EVPN %s' % ('installed' if bgp_vni['in_kernel'] else 'NOT installed'))
        ok = bound is not None and bound['type'] == 'L2' and not wrong_vlan and bgp_vni is not None and bgp_vni['in_kernel']
        return verdict(ok, ', '.join(seen))

    def unexpected(self, ctx, model):
        vxlan, bgp = _optional(ctx, model['name'], 'evpn_vni'), _optional(ctx, model['name'], 'bgp_evpn_vni')
        designed = catalog.designed_vnis(model)
        found = {}
        for vni, info in (vxlan or {}).items():
            text = 'VNI %d %s on %s' % (vni, info.get('type') or 'VXLAN', info.get('vxlan_if') or 'the VTEP')
            if info.get('vlan') is not None:
                text += ' VLAN %s' % info['vlan']
            if info.get('tenant_vrf'):
                text += ' VRF %s' % info['tenant_vrf']
            found[vni] = [text]
        for vni, info in ((bgp or {}).get('vnis') or {}).items():
            found.setdefault(vni, ['VNI %d' % vni]).append(
                'advertised in BGP EVPN' if info.get('in_kernel') else 'in BGP EVPN')
        for vni in sorted(found):
            if vni not in designed:
                yield Unexpected('VNI %d' % vni, ', '.join(found[vni]), 'no VNI %d (not in the design)' % vni,
                                 'the leaf carries a VNI nobody designed; with advertise-all-vni every leaf imports it')


@register
class EvpnRouteTarget(_Vni):
    id = 'evpn_route_target'
    title = 'EVPN route-targets as designed'
    state = ('bgp_evpn_vni',)
    inputs = 'the route-target of every L2VNI of the leaf'
    description = 'import and export route-targets of every L2VNI equal the designed route-target'
    failure = 'the import and export route-targets the leaf has'
    example = ('leaf001 evpn_route_target [VNI 10100]: expected import 65000:10100, export 65000:10100; seen import '
               '64999:10100, export 64999:10100')

    def want(self, item):
        return 'import %s, export %s' % (item['route_target'], item['route_target'])

    def judge(self, ctx, model, subject, state):
        item = subject.data
        seen_vni = state['vnis'].get(item['vni'])
        if seen_vni is None:
            return failed('VNI not in bgpd')
        seen = 'import %s, export %s' % (','.join(seen_vni['import_rts']) or 'none', ','.join(seen_vni['export_rts']) or 'none')
        return verdict(seen_vni['import_rts'] == [item['route_target']] and seen_vni['export_rts'] == [item['route_target']],
                       seen)


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


@register
class EvpnVtep(Check):
    id = 'evpn_vtep'
    title = 'EVPN type-3 route of every remote VTEP imported'
    roles = ('leaf',)
    per = 'L2VNI and remote VTEP'
    state = ('evpn_vni',)
    explains = ('evpn_type3', 'bgp_evpn_vni')
    inputs = 'the L2VNIs of the leaf and, for each, the VTEP of every other leaf carrying it'
    description = ('for every L2VNI, the type-3 (IMET) route of every other leaf carrying it is imported: its VTEP is '
                   'in the VNI flood list. VTEPs in a flood list that the design does not have are a finding.')
    failure = ('not in the flood list, and why from the BGP EVPN table: no type-3 route from that VTEP, or a '
               'route-target this leaf does not import')
    example = ('leaf002 evpn_vtep [VNI 10100 from leaf001 10.254.16.1]: expected type-3 route imported (VTEP '
               '10.254.16.1 in the VNI 10100 flood list); seen not in the flood list; no type-3 route from '
               '10.254.16.1 in the BGP table')

    def subjects(self, ctx, model):
        for item in catalog.expected_vnis(ctx, model):
            for ip, leaf in sorted(item['remote_vteps'].items()):
                yield Subject('VNI %d from %s %s' % (item['vni'], leaf, ip),
                              'type-3 route imported (VTEP %s in the VNI %d flood list)' % (ip, item['vni']),
                              data=(item, ip))

    def judge(self, ctx, model, subject, state):
        item, ip = subject.data
        if ip in (state.get(item['vni']) or {}).get('remote_vteps', []):
            return passed('in the flood list')
        name = ctx.state(model['name'])
        try:
            routes = name.get('evpn_type3')
        except StateError as exc:
            routes = exc.message  # explanation only; the verdict comes from the flood list
        try:
            local = name.get('bgp_evpn_vni')['vnis'].get(item['vni'])
        except StateError:
            local = None
        source = '; '.join(name.describe(key) for key in ('evpn_vni', 'evpn_type3') if name.provides(key))
        return failed('not in the flood list; ' + _type3_evidence(routes, ip, item['route_target'], local), source=source)

    def unexpected(self, ctx, model):
        zebra = _optional(ctx, model['name'], 'evpn_vni')
        if zebra is None:
            return
        for item in catalog.expected_vnis(ctx, model):
            extra = sorted(set((zebra.get(item['vni']) or {}).get('remote_vteps', [])) - set(item['remote_vteps']))
            if extra:
                yield Unexpected('VNI %d unexpected VTEPs' % item['vni'], ', '.join(extra), 'only the designed VTEPs')


# --------------------------------------------------------------------------- LLDP
def _same_host(system_name, device):
    """LLDP system names are often fully qualified (EOS sends 'leaf001.example.net'): compare the host part."""
    return bool(system_name) and (system_name == device or str(system_name).split('.', 1)[0] == device)


@register
class LldpNeighbor(Check):
    id = 'lldp_neighbor'
    title = 'LLDP neighbours match the cabling plan'
    roles = ALL
    per = 'cabled port'
    state = ('lldp',)
    inputs = 'the cabling plan: the peer device and port of every cabled port (port names from the device models)'
    description = ('the one LLDP neighbour on every cabled port is the designed device (a fully qualified system name '
                   'matches its host part) and port')
    failure = ('the neighbours seen on the port, or none; more than one neighbour on a port fails too (a stale '
               'neighbour, a second LLDP agent such as the NIC firmware, or a shared segment)')
    example = 'spine001 lldp_neighbor [eth1]: expected leaf001 eth3; seen no LLDP neighbour'

    def subjects(self, ctx, model):
        for item in catalog.expected_neighbors(model):
            yield Subject(item['interface'], '%s %s' % (item['peer'], item['peer_interface']), port=item['interface'],
                          data=item)

    def judge(self, ctx, model, subject, state):
        def build():
            table = {}
            for neighbor in state:
                table.setdefault(neighbor['interface'], []).append(neighbor)
            return table
        item = subject.data
        seen = _once(ctx, model['name'], 'lldp_by_port', build).get(item['interface'], [])
        text = ', '.join('%s %s' % (entry['system_name'] or entry['chassis_id'], entry['peer_port']) for entry in seen)
        ok = any(_same_host(entry['system_name'], item['peer']) and entry['peer_port'] == item['peer_interface']
                 for entry in seen)
        if ok and len(seen) > 1:
            return failed('%d LLDP neighbours: %s' % (len(seen), text),
                          message='one port, one neighbour: a stale neighbour, a second LLDP agent (NIC firmware) or a '
                                  'shared segment')
        return verdict(ok, text or 'no LLDP neighbour')


# --------------------------------------------------------------------------- interfaces
class _Ports(Check):
    """The cabled ports of a device, one subject each, judged on the `interfaces` state."""

    roles = ALL
    per = 'cabled port'
    state = ('interfaces',)

    def subjects(self, ctx, model):
        for item in catalog.expected_interfaces(model):
            yield Subject(item['name'], self.want(item), port=item['name'], data=item)

    def want(self, item):
        return 'designed interface'


def _describe_link(interface):
    if interface is None:
        return 'does not exist'
    parts = [interface['operstate'] or 'state unknown']
    parts.append('admin up' if interface['admin_up'] else 'admin down')
    if interface['admin_up'] and not interface['lower_up']:
        parts.append('no carrier')
    return ', '.join(parts)


@register
class InterfaceState(_Ports):
    id = 'interface_state'
    title = 'Cabled interfaces up'
    inputs = 'the cabled ports of the device and their peers'
    description = 'every cabled port exists, is administratively up and has carrier'
    failure = 'the operational state: does not exist, admin down, or admin up with no carrier'
    example = 'leaf001 interface_state [eth3]: expected up (to spine001 eth1); seen DOWN, admin down'

    def want(self, item):
        return 'up (to %s)' % item['peer']

    def judge(self, ctx, model, subject, state):
        seen = state.get(subject.data['name'])
        return verdict(is_up(seen), _describe_link(seen))


@register
class InterfaceMtu(_Ports):
    id = 'interface_mtu'
    title = 'Interface MTU as designed'
    rules = ('C14',)
    inputs = 'the designed MTU of every cabled port (switch port MTU, host rail MTU)'
    description = 'every cabled port has the designed MTU'
    failure = 'the MTU the port has'
    example = 'gpu0001 interface_mtu [eth1]: expected MTU 9000; seen MTU 1500'

    def want(self, item):
        return 'MTU %s' % item['mtu']

    def judge(self, ctx, model, subject, state):
        seen = state.get(subject.data['name'])
        return verdict(seen is not None and seen['mtu'] == subject.data['mtu'],
                       'MTU %s' % seen['mtu'] if seen else 'interface does not exist')


@register
class InterfaceAddress(_Ports):
    id = 'interface_address'
    title = 'Interface addresses as designed'
    inputs = 'the address and prefix of every host rail and routed switch port'
    description = 'every host rail and routed switch port carries its designed IPv4 address and prefix'
    failure = 'the IPv4 addresses the port has, or none'
    example = 'gpu0001 interface_address [eth1]: expected 10.100.0.10/24; seen no IPv4 address'

    def subjects(self, ctx, model):
        for item in catalog.expected_interfaces(model):
            if item['address']:
                yield Subject(item['name'], item['address'], port=item['name'], data=item)

    def judge(self, ctx, model, subject, state):
        seen = state.get(subject.data['name'])
        have = ['%s/%s' % (addr['address'], addr['prefixlen']) for addr in (seen or {}).get('addresses', [])
                if addr['family'] == 'inet']
        return verdict(subject.data['address'] in have,
                       ', '.join(have) or ('no IPv4 address' if seen else 'no such interface'))


@register
class VxlanDevice(_Vni):
    id = 'vxlan_device'
    title = 'VXLAN devices carry the overlay'
    state = ('interfaces',)
    rules = ('C14',)
    per = 'L2VNI (Linux data plane)'
    inputs = 'the L2VNIs of the leaf, its VTEP address and the host MTU'
    description = ('Linux data plane (FRR): each L2VNI has an up VXLAN device sourced from the leaf VTEP. It and its '
                   'bridge carry a full host frame (the "bridge MTU 1500" pitfall). Other platforms forward VXLAN in '
                   'their ASIC: not applicable there, the evpn_* checks cover the overlay.')
    failure = 'the VXLAN device with its state, source and MTU and its bridge MTU, or that there is none'
    example = ('leaf001 vxlan_device [VNI 10100]: expected VXLAN device up, local 10.254.16.1, it and its bridge MTU >= '
               'host MTU 9000; seen vxlan10100 up, local 10.254.16.1, MTU 9050, bridge br100 MTU 1500')
    na_expected = 'kernel VXLAN devices'

    def want(self, item):
        return 'VXLAN device'

    def subjects(self, ctx, model):
        host_mtu = ctx.design.lossless['mtu']['host']
        for subject in super().subjects(ctx, model):
            subject.expected = 'VXLAN device up, local %s, it and its bridge MTU >= host MTU %d' % (
                subject.data['vtep_ip'], host_mtu)
            yield subject

    def read(self, ctx, model, subject):
        if not PLATFORMS[model['platform']].kernel_dataplane:
            raise NotApplicable('%s forwards VXLAN in its ASIC; the evpn_* checks cover the overlay' % model['platform'])
        return super().read(ctx, model, subject)

    def judge(self, ctx, model, subject, state):
        item = subject.data
        host_mtu = ctx.design.lossless['mtu']['host']
        by_vni = _once(ctx, model['name'], 'vxlan_by_vni',
                       lambda: {entry['vxlan']['id']: entry for entry in state.values() if entry['vxlan']})
        device = by_vni.get(item['vni'])
        if device is None:
            return failed('no VXLAN device with VNI %d' % item['vni'])
        bridge = state.get(device['master']) if device['master'] else None
        seen = '%s %s, local %s, MTU %s, bridge %s MTU %s' % (
            device['ifname'], 'up' if device['admin_up'] else 'down', device['vxlan']['local'], device['mtu'],
            device['master'] or 'none', bridge['mtu'] if bridge else '-')
        ok = (device['admin_up'] and device['vxlan']['local'] == item['vtep_ip'] and device['mtu'] >= host_mtu
              and bridge is not None and bridge['mtu'] >= host_mtu and bridge['admin_up'])
        return verdict(ok, seen)


# --------------------------------------------------------------------------- pings
class _Pings(Check):
    """Every same-rail peer of a GPU server, one subject each, judged on its own ping result."""

    roles = ('host',)
    per = 'rail and same-rail peer'
    kind = 'ping'
    source_per_subject = True
    # "no reply" one reading, "destination host unreachable" the next: the kernel's ARP state, not the fabric
    settles_on_status = True

    def subjects(self, ctx, model):
        for target in catalog.ping_targets(ctx, model, ctx.options.get('ping_peers', 0)):
            yield Subject('%s -> %s %s' % (target['interface'], target['peer'], target['peer_ip']), self.want(model, target),
                          data=target)

    def read(self, ctx, model, subject):
        return ctx.state(model['name']).get(ping_key(self.kind, subject.data['interface'], subject.data['peer_ip']))

    def source(self, ctx, model, subject):
        return 'ping -M do -s %d' % subject.data['jumbo_payload'] if self.kind == 'jumbo' else 'ping'

    def judge(self, ctx, model, subject, state):
        if not state['ok']:
            return failed(state['reason'])
        seen = '%d/%d replies' % (state['received'], state['transmitted'])
        loss_limit = ctx.options.get('max_loss_percent', 34)
        if state['loss_percent'] <= loss_limit:
            return passed(seen)
        return failed(seen + ' (%s%% loss > %s%%)' % (state['loss_percent'], loss_limit))


@register
class Reachability(_Pings):
    id = 'reachability'
    title = 'Host-to-host reachability on each rail'
    state = ('ping',)
    inputs = 'the same-rail peers of every GPU server rail and their addresses (validate_ping_peers of them)'
    description = ('each rail reaches every same-rail peer across the VXLAN overlay (loss at most '
                   'validate_max_loss_percent, default 34 %)')
    failure = 'the replies, the loss, or why nothing came back (unreachable, no reply)'
    example = 'gpu0001 reachability [eth1 -> gpu0002 10.100.0.11]: expected reply over rail 0 (rail0); seen no reply (3 of 3 lost)'

    def want(self, model, target):
        return 'reply over rail %d (%s)' % (target['rail'], target['network'])


@register
class JumboFrames(_Pings):
    id = 'jumbo_frames'
    title = 'Jumbo frames end to end'
    state = ('jumbo',)
    rules = ('C14',)
    kind = 'jumbo'
    inputs = 'the host MTU and the same-rail peers of every GPU server rail'
    description = 'a DF ping with the largest payload the host MTU allows (MTU - 28) reaches every same-rail peer'
    failure = 'what came back: the local MTU that refuses the size, "fragmentation needed" from a hop, or silence'
    example = ('gpu0001 jumbo_frames [eth1 -> gpu0002 10.100.0.11]: expected reply to 8972-byte pings with DF set (MTU '
               '9000 end to end); seen local interface MTU 1500 is too small for the 8972-byte payload (ping: message '
               'too long)')

    def want(self, model, target):
        return 'reply to %d-byte pings with DF set (MTU %d end to end)' % (target['jumbo_payload'], model['mtu'])


__all__ = ['SWITCHES', 'ALL']
