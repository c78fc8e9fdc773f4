# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fabric checks on gathered state: BGP, EVPN, LLDP cabling, interfaces, reachability and jumbo frames.

These are what the containerlab twin proves for real (FRR, Linux bridges and VXLAN, lldpd, ping). Each also
reports what the device has and the design does not (a session, VNI, VLAN or VRF nobody designed, a second LLDP
neighbour on a port).
"""

from __future__ import annotations

import ipaddress

from . import Check, NotApplicable, StateError, Subject, Unexpected, failed, passed, register, verdict
from . import catalog
from ..platforms import PLATFORMS
from ..state.iproute2 import is_up
from ..state.sources import ping_key
from ..terms import ROLES, SWITCH_ROLES

SWITCHES = SWITCH_ROLES
ALL = ROLES


def _once(ctx, name, key, what, build):
    """A per-device view of the parsed state `key`, built once (a check judges many subjects on it)."""
    return ctx.state(name).derived(key, what, build)


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
    return _once(ctx, name, 'bgp_summary', 'bgp_by_peer', build)


def _bfd_session(ctx, name, item):
    """The BFD session of a BGP neighbour when it is down or has gone down (explanation only), else None."""
    sessions = _optional(ctx, name, 'bfd') or {}
    session = sessions.get(item['ip'] or '') or sessions.get(item['interface'])
    if not session or (session['status'] == 'up' and not session['down_events']):
        return None
    diagnostic = session['diagnostic'] if session['diagnostic'] not in (None, 'ok') else session['remote_diagnostic']
    return {'status': session['status'], 'down_events': session['down_events'],
            'diagnostic': diagnostic if diagnostic not in (None, 'ok') else None}


def bfd_note(key, bfd) -> str:
    """'BFD with 10.0.0.0 is down (control detection time expired), 2 down events: ...' from a session's BFD facts."""
    events = ', %s down events' % bfd['down_events'] if bfd['down_events'] else ''
    return ('BFD with %s is %s%s%s: BFD takes the BGP session down when its packets are lost (a flapping link, or a '
            'control plane too loaded to answer in time)' % (
                key, bfd['status'], ' (%s)' % bfd['diagnostic'] if bfd['diagnostic'] else '', events))


@register
class BgpSession(Check):
    id = 'bgp_session'
    title = 'BGP sessions established'
    remember_passes = True  # a session down at one end and Established at the other changed between the readings
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
        facts = {'peer': item['peer'], 'port': item['interface'], 'key': item['key'], 'configured': bool(seen),
                 'designed_remote_as': item['remote_asn']}
        if not seen:
            return failed('no such neighbour configured', facts=facts)
        states = ['%s %s' % (afi, seen[afi]['state']) if afi in seen else '%s not activated' % afi for afi in item['afis']]
        remote = {_asn(session['remote_as']) for session in seen.values()}
        established = all(afi in seen and seen[afi]['established'] for afi in item['afis'])
        ok = established and remote == {item['remote_asn']}
        text = ', '.join(states) + ', remote AS %s' % ','.join(str(value) for value in sorted(remote, key=str))
        if ok:
            return passed(text)
        facts.update(states={afi: seen[afi]['state'] if afi in seen else None for afi in item['afis']},
                     established=established, remote_as=sorted(remote, key=str),
                     admin_shutdown=any(session.get('admin_shutdown') for session in seen.values()))
        bfd = _bfd_session(ctx, model['name'], item)
        if bfd:
            facts['bfd'] = bfd
        return failed(text, message=bfd_note(item['key'], bfd) if bfd else '', facts=facts)

    def fact_node(self, graph, result, facts):
        if 'local_as' in facts:
            return ('bgp', result.device)
        if facts.get('unexpected'):
            return ('bgp_extra', result.device, result.subject)
        if 'peer' not in facts:
            return ('check', result.device, self.id)
        # the session's configuration on this end contradicts the design: this device's own fact
        if not facts['configured'] or facts.get('admin_shutdown') or (
                facts.get('remote_as') and facts['remote_as'] != [facts['designed_remote_as']]):
            return ('peer', result.device, facts['key'])
        return ('session',) + graph.link(result.device, facts['port'])[1:]

    def finding(self, graph, node, evidence):
        first = evidence[0]
        facts = first.facts or {}
        if node[0] == 'bgp':
            return ('local_as', '%s runs local AS %s where the design has AS %s' % (
                node[1], ','.join(str(value) for value in facts['local_as']), facts['designed']),
                'configure router bgp %s on %s' % (facts['designed'], node[1]))
        if node[0] == 'bgp_extra':
            return ('unexpected_session', '%s has BGP %s the design does not have: %s' % (
                node[1], 'sessions in ' + first.subject.replace(' sessions', '') if facts.get('vrf')
                else 'session %s' % first.subject, first.seen), 'remove it from %s, or add it to the intent' % node[1])
        if node[0] == 'peer':
            own = next(item for item in evidence if item.facts and item.facts.get('key') == node[2])
            facts = own.facts
            where = '%s (%s %s)' % (facts['key'], facts['peer'], facts['port']) if facts['key'] != facts['port'] \
                else '%s (%s)' % (facts['key'], facts['peer'])
            if not facts['configured']:
                return ('neighbour_missing', '%s has no BGP neighbour %s, which the design has' % (node[1], where),
                        'configure the neighbour %s on %s as designed' % (facts['key'], node[1]))
            if facts.get('admin_shutdown'):
                return ('session_shutdown', '%s has BGP neighbour %s shut down in its configuration (%s)' % (
                    node[1], where, ', '.join(sorted({state for state in facts['states'].values() if state}))),
                    'no neighbor %s shutdown on %s (or find who shut it)' % (facts['key'], node[1]))
            return ('remote_as', '%s expects remote AS %s from BGP neighbour %s where the design has AS %s' % (
                node[1], ','.join(str(value) for value in facts['remote_as']), where, facts['designed_remote_as']),
                'neighbor %s remote-as %s on %s' % (facts['key'], facts['designed_remote_as'], node[1]))
        if node[0] == 'session':
            return self._session_finding(graph, node, evidence)
        return super().finding(graph, node, evidence)

    def _session_finding(self, graph, node, evidence):
        """A session down with nothing it needs failing: both ends read down, or one end saw it Established."""
        ends = graph.ends(('link', node[1], node[2]))
        down = sorted({item.device for item in evidence})
        up = [name for name, interface in ends if name not in down and graph.passed(
            name, self.id, '%s %s' % (graph.session_key(name, interface), next(
                (other for other, _port in ends if other != name), '')))]
        ends = [name for name, _interface in ends]
        first = evidence[0]
        if up:
            apart = graph.read_apart(first.device, up[0])
            afi, state = next(iter((first.facts.get('states') or {'': None}).items()))
            return ('session_changed', 'BGP session %s - %s changed between the two readings%s: %s saw it %s %s, %s '
                    'saw it Established' % (first.device, up[0], ', read %.0f s apart' % apart if apart is not None
                                            else '', first.device, afi, state, up[0]),
                    'flapping or still converging: validate again, and look at BFD and the link')
        return ('session_down', 'BGP session %s is down on %s and nothing it needs fails (link up, bgpd running, '
                'both ends configured as designed): look at what filters it (ACL, password, TTL)' % (
                    ' - '.join(ends), ' and '.join(down)), 'compare both ends: %s' % ', '.join(ends))

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
            yield Unexpected(('%s %s' % (peer, host)).strip(), states, 'no session (not in the design)',
                             facts={'peer': peer})
        vrfs = {}
        for session in sessions:
            if session['vrf'] != 'default':
                vrfs.setdefault(session['vrf'], set()).add('%s %s' % (session['peer'], session['state']))
        for vrf, peers in sorted(vrfs.items()):
            yield Unexpected('VRF %s sessions' % vrf, ', '.join(sorted(peers)), 'no BGP session in VRF %s (not in the '
                             'design: the tenant VRFs carry EVPN routes only)' % vrf, facts={'vrf': vrf})
        asn = (model.get('bgp') or {}).get('asn')
        local = sorted({_asn(session['local_as']) for session in sessions if session['vrf'] == 'default'
                        and session.get('local_as') is not None}, key=str)
        if asn is not None and local and local != [asn]:
            yield Unexpected('local AS', 'AS %s' % ','.join(str(value) for value in local), 'AS %s' % asn,
                             'the switch runs another AS than the design gives it: its peers refuse its sessions',
                             facts={'local_as': local, 'designed': asn})


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
        facts = {'vni': vni, 'vlan': item['vlan'], 'bound': bound is not None,
                 'type': (bound or {}).get('type'), 'bound_vlan': (bound or {}).get('vlan'),
                 'in_bgp': bgp_vni is not None, 'installed': bool(bgp_vni and bgp_vni['in_kernel']),
                 'advertise_all_vni': bgp['advertise_all_vni'], 'vtep_ip': (bound or {}).get('vtep_ip'),
                 'designed_vtep': item['vtep_ip']}
        if bound is None:
            facts['replaced_by'] = _replacement(ctx, model, vxlan, item)
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
        wrong_vtep = bool(bound) and bound.get('vtep_ip') not in (None, item['vtep_ip'])
        if wrong_vtep:
            seen.append('VTEP %s, designed %s' % (bound['vtep_ip'], item['vtep_ip']))
        ok = (bound is not None and bound['type'] == 'L2' and not wrong_vlan and not wrong_vtep and bgp_vni is not None
              and bgp_vni['in_kernel'])
        return verdict(ok, ', '.join(seen), facts=facts)

    def fact_node(self, graph, result, facts):
        if facts.get('unexpected'):
            return ('vni', result.device, facts.get('instead_of') or facts['vni'])
        if facts.get('bound') and facts.get('vtep_ip') not in (None, facts.get('designed_vtep')) \
                and facts['type'] == 'L2' and facts['installed']:
            return ('vtep', result.device)
        return ('vni', result.device, facts['vni'])

    def finding(self, graph, node, evidence):
        if node[0] == 'vni':
            return vni_finding(graph, node, evidence)
        return super().finding(graph, node, evidence)

    def unexpected(self, ctx, model):
        vxlan, bgp = _optional(ctx, model['name'], 'evpn_vni'), _optional(ctx, model['name'], 'bgp_evpn_vni')
        designed = catalog.designed_vnis(model)
        missing = {item['vni']: item for item in catalog.expected_vnis(ctx, model) if item['vni'] not in (vxlan or {})}
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
                info = (vxlan or {}).get(vni) or {}
                instead = next((item['vni'] for item in missing.values()
                                if _replacement(ctx, model, vxlan or {}, item) == vni), None)
                yield Unexpected('VNI %d' % vni, ', '.join(found[vni]), 'no VNI %d (not in the design)' % vni,
                                 'the leaf carries a VNI nobody designed; with advertise-all-vni every leaf imports it',
                                 facts={'vni': vni, 'vxlan_if': info.get('vxlan_if'), 'instead_of': instead})


def _vlan_of(ctx, model, info):
    """The VLAN a VNI of the device is bound to: the platform's own word (EOS, NVUE bind VNIs to VLANs), or on a
    Linux data plane the designed VLAN whose access ports share a bridge with the VNI's VXLAN device."""
    if info.get('vlan') not in (None, ''):
        try:
            return int(str(info['vlan']).replace('Vlan', ''))
        except ValueError:
            return None
    interfaces = _optional(ctx, model['name'], 'interfaces') or {}
    bridge = (interfaces.get(info.get('vxlan_if') or '') or {}).get('master')
    if not bridge:
        return None
    for vlan in (model.get('evpn') or {}).get('vlans') or []:
        if any((interfaces.get(name) or {}).get('master') == bridge for name in vlan.get('ports') or []):
            return vlan['vlan']
    return None


def _replacement(ctx, model, vxlan, item):
    """The VNI the device carries on the designed VLAN of a missing VNI (a VXLAN device recreated with another
    number, a binding to another rail's VNI), or None."""
    designed = catalog.designed_vnis(model)
    for number, info in sorted(vxlan.items()):
        if number not in designed and _vlan_of(ctx, model, info) == item['vlan']:
            return number
    return None


def _networks(graph):
    """{vni: (network name, vlan)} over the leaves of the design."""
    table = graph.ctx.cache.get('vni_networks')
    if table is None:
        table = {}
        for leaf in graph.design.device_names('leaf'):
            for vlan in (graph.ctx.model(leaf).get('evpn') or {}).get('vlans') or []:
                table[vlan['vni']] = (vlan['name'], vlan['vlan'])
        graph.ctx.cache['vni_networks'] = table
    return table


def vni_finding(graph, node, evidence):
    """The cause of a VNI of a leaf that is not as designed, from the facts of every check that saw it."""
    leaf, number = node[1], node[2]
    facts = {}
    for item in evidence:  # the facts of all of them: the data plane, BGP, the VXLAN device, a VNI in its place
        for key, value in (item.facts or {}).items():
            facts.setdefault(key, value)
    extra = next((item.facts for item in evidence if (item.facts or {}).get('unexpected')), None)
    network, vlan = _networks(graph).get(number, ('?', facts.get('vlan', '?')))
    hint = 'bind VLAN %s to VNI %d on %s' % (vlan, number, leaf)
    if extra and extra.get('instead_of') is None:
        seen = next(item.seen for item in evidence if (item.facts or {}).get('unexpected'))
        return ('unexpected_vni', '%s carries VNI %d, which the design does not have (%s)' % (leaf, number, seen),
                'remove VNI %d from %s, or add it to the intent' % (number, leaf))
    instead = (extra or {}).get('vni') or facts.get('replaced_by') or facts.get('carried')
    if instead is not None:
        owner = _networks(graph).get(instead)
        where = (extra or {}).get('vxlan_if') or facts.get('ifname')
        return ('vni', '%s carries VNI %d%s%s where VNI %d (VLAN %s, %s) belongs' % (
            leaf, instead, " (%s's)" % owner[0] if owner else '', ' on %s' % where if where else '', number, vlan,
            network), hint)
    if facts.get('bound') is False or facts.get('exists') is False:
        return ('vni', '%s does not carry VNI %d (VLAN %s, %s)' % (leaf, number, vlan, network), hint)
    if facts.get('bound_vlan') not in (None, '') and str(facts['bound_vlan']) != str(vlan):
        return ('vni', '%s binds VNI %d to VLAN %s where the design has VLAN %s (%s)' % (
            leaf, number, facts['bound_vlan'], vlan, network), hint)
    if facts.get('type') not in (None, 'L2'):
        return ('vni', '%s has VNI %d as %s, the design an L2VNI of VLAN %s' % (leaf, number, facts['type'], vlan), hint)
    if facts.get('up') is False:
        return ('vni', '%s %s (VNI %d) is down' % (leaf, facts.get('ifname'), number),
                'ip link set %s up on %s' % (facts.get('ifname'), leaf))
    if facts.get('in_bgp') is False or facts.get('installed') is False:
        return ('vni', '%s does not advertise VNI %d in BGP EVPN%s' % (
            leaf, number, '' if facts.get('advertise_all_vni', True) else ' (advertise-all-vni is off)'), hint)
    if facts.get('bridge_up') is False or facts.get('bridge') is None:
        return ('vni', '%s VXLAN device of VNI %d is in no working bridge (%s)' % (
            leaf, number, facts.get('bridge') or 'none'), hint)
    return ('vni', '%s VNI %d is not as designed: %s' % (leaf, number, evidence[0].seen), hint)


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
            return failed('VNI not in bgpd', facts={'vni': item['vni'], 'in_bgp': False})
        seen = 'import %s, export %s' % (','.join(seen_vni['import_rts']) or 'none', ','.join(seen_vni['export_rts']) or 'none')
        return verdict(seen_vni['import_rts'] == [item['route_target']] and seen_vni['export_rts'] == [item['route_target']],
                       seen, facts={'vni': item['vni'], 'import': list(seen_vni['import_rts']),
                                    'export': list(seen_vni['export_rts']), 'designed': item['route_target']})

    def fact_node(self, graph, result, facts):
        if facts.get('in_bgp') is False:
            return ('vni', result.device, facts['vni'])
        return ('rt', result.device, facts['vni'])

    def finding(self, graph, node, evidence):
        if node[0] == 'vni':
            return vni_finding(graph, node, evidence)
        if node[0] != 'rt':
            return super().finding(graph, node, evidence)
        facts = evidence[0].facts
        if facts['import'] == facts['export'] and len(facts['import']) == 1:
            title = '%s VNI %d imports and exports route-target %s where the design has %s' % (
                node[1], node[2], facts['import'][0], facts['designed'])
        else:
            title = '%s VNI %d has route-targets %s where the design has %s' % (
                node[1], node[2], evidence[0].seen, facts['designed'])
        return ('route_target', title, 'set the route-target of VNI %d on %s as designed' % (node[2], node[1]))


def _type3_evidence(routes, vtep, route_target, local_vni):
    """(why, text): why a remote VTEP is missing, from the BGP EVPN table and this leaf's import route-targets."""
    if isinstance(routes, str):
        return 'unread', 'BGP EVPN table not readable: %s' % routes
    paths = [route for route in routes if route['vtep'] == vtep]
    if not paths:
        return 'no_route', 'no type-3 route from %s in the BGP table' % vtep
    targets = sorted({target for route in paths for target in route['route_targets']})
    imports = local_vni['import_rts'] if local_vni else [route_target]
    if not set(targets) & set(imports):
        return 'route_target', 'its type-3 route carries RT %s but this leaf imports %s, so it is not imported' % (
            ','.join(targets) or 'none', ','.join(imports) or 'nothing')
    return 'not_installed', 'its type-3 route with RT %s is in the BGP table but not installed' % ','.join(targets)


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
        why, text = _type3_evidence(routes, ip, item['route_target'], local)
        return failed('not in the flood list; ' + text, source=source,
                      facts={'vni': item['vni'], 'remote': item['remote_vteps'][ip], 'vtep': ip, 'why': why})

    def fact_node(self, graph, result, facts):
        if facts.get('unexpected'):
            return ('flood_extra', result.device, facts['vni'])
        return ('flood', result.device, facts['vni'], facts['remote'])

    def finding(self, graph, node, evidence):
        if node[0] == 'flood_extra':
            return ('unexpected_vtep', '%s floods VNI %d to VTEPs the design does not have (%s) and no leaf shows '
                    'why' % (node[1], node[2], evidence[0].seen), 'compare the VTEP addresses of the leaves of VNI %d'
                    % node[2])
        if node[0] == 'flood':
            return ('flood', '%s does not flood VNI %d to %s and nothing it needs fails (%s)' % (
                node[1], node[2], node[3], evidence[0].seen), 'read the BGP EVPN table of %s and %s' % (node[1], node[3]))
        return super().finding(graph, node, evidence)

    def unexpected(self, ctx, model):
        zebra = _optional(ctx, model['name'], 'evpn_vni')
        if zebra is None:
            return
        for item in catalog.expected_vnis(ctx, model):
            extra = sorted(set((zebra.get(item['vni']) or {}).get('remote_vteps', [])) - set(item['remote_vteps']))
            if extra:
                yield Unexpected('VNI %d unexpected VTEPs' % item['vni'], ', '.join(extra), 'only the designed VTEPs',
                                 facts={'vni': item['vni'], 'vteps': extra})


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
        seen = _once(ctx, model['name'], 'lldp', 'lldp_by_port', build).get(item['interface'], [])
        text = ', '.join('%s %s' % (entry['system_name'] or entry['chassis_id'], entry['peer_port']) for entry in seen)
        ok = any(_same_host(entry['system_name'], item['peer']) and entry['peer_port'] == item['peer_interface']
                 for entry in seen)
        facts = {'port': item['interface'], 'designed': [item['peer'], item['peer_interface']],
                 'seen': [[_host_part(entry['system_name'] or entry['chassis_id']), entry['peer_port']] for entry in seen]}
        if ok and len(seen) > 1:
            return failed('%d LLDP neighbours: %s' % (len(seen), text), facts=facts,
                          message='one port, one neighbour: a stale neighbour, a second LLDP agent (NIC firmware) or a '
                                  'shared segment')
        return verdict(ok, text or 'no LLDP neighbour', facts=facts)

    def fact_node(self, graph, result, facts):
        if not facts.get('seen'):
            return ('lldp', result.device, facts['port'])
        if len(facts['seen']) > 1:
            return ('lldp_extra', result.device, facts['port'])
        return ('cabling', _miswired_at(graph, result.device, facts))

    def finding(self, graph, node, evidence):
        if node[0] == 'cabling':
            return _cabling_finding(graph, node[1], evidence)
        if node[0] == 'lldp_extra':
            return ('lldp_neighbors', '%s %s has %s' % (node[1], node[2], evidence[0].seen), evidence[0].message)
        if node[0] == 'lldp':
            peer = graph.peer(node[1], node[2])
            return ('lldp', '%s %s hears no LLDP neighbour (the plan: %s) and nothing it needs fails' % (
                node[1], node[2], ' '.join(peer) if peer else '?'),
                'is LLDP sent by %s, and received here?' % (peer[0] if peer else 'the far end'))
        return super().finding(graph, node, evidence)


def _host_part(name):
    return str(name).split('.', 1)[0] if name else name


def _miswired_at(graph, name, facts):
    """The device whose cables are not where the plan has them, from one port that hears another designed port:
    the far end when it is the planned device on another port (its ports are exchanged), this device when the port
    it hears is planned to come here on another port (this device's ports are exchanged), else this device (a cable
    moved)."""
    heard_device, heard_port = facts['seen'][0]
    planned_device, _planned_port = facts['designed']
    if heard_device == planned_device and heard_device in graph.design.nodes:
        return heard_device
    return name


def _cabling_finding(graph, name, evidence):
    """'cables swapped: leaf002 eth1 <-> eth2 (gpu0001/gpu0002)', or the one port cabled elsewhere."""
    ports = set()
    for item in evidence:
        if item.device == name:
            ports.add(item.facts['port'])
        else:
            ports.add(item.facts['seen'][0][1])
    ports = sorted(ports)
    if len(ports) == 2:
        peers = [(graph.peer(name, port) or ('?',))[0] for port in ports]
        return ('cabling', 'cables swapped: %s %s <-> %s (%s/%s)' % (name, ports[0], ports[1], peers[0], peers[1]),
                'swap the cables of %s %s and %s back, or correct the cabling plan' % (name, ports[0], ports[1]))
    own = next((item for item in evidence if item.device == name), evidence[0])
    heard = own.facts['seen'][0]
    planned = own.facts['designed']
    title = '%s %s is cabled to %s %s (the plan: %s %s)' % (
        own.device, own.facts['port'], heard[0], heard[1], planned[0], planned[1])
    return ('cabling', title, 'move the cable or correct the cabling plan')


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

    def fact_node(self, graph, result, facts):
        return ('port', result.device, facts['port'])  # what the port itself has: its existence, state, MTU, address

    def finding(self, graph, node, evidence):
        if node[0] == 'port':
            return port_finding(graph, node, evidence)
        return super().finding(graph, node, evidence)


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
        return verdict(is_up(seen), _describe_link(seen), facts={
            'port': subject.data['name'], 'exists': seen is not None, 'admin_up': bool(seen and seen['admin_up']),
            'lower_up': bool(seen and seen['lower_up']), 'operstate': (seen or {}).get('operstate')})

    def fact_node(self, graph, result, facts):
        if not facts['exists'] or not facts['admin_up']:
            return super().fact_node(graph, result, facts)
        return graph.link(result.device, facts['port'])  # admin up without carrier: the cable, or the far end

    def finding(self, graph, node, evidence):
        if node[0] == 'link':
            ends = graph.ends(node)
            down = sorted({item.device for item in evidence})
            if len(ends) == 2:
                title = 'link %s %s <-> %s %s has no carrier%s' % (ends[0] + ends[1] + (
                    (' on either end' if len(down) == 2 else ''),))
            else:
                title = '%s %s has no carrier' % ends[0]
            return ('no_carrier', title, 'the cable, the optics, or the far end of the link')
        return super().finding(graph, node, evidence)


def port_finding(graph, node, evidence):
    """The cause of a port whose own state is not the design's: missing, admin down, another MTU or address."""
    name, port = node[1], node[2]
    facts = {}
    for item in evidence:
        for key, value in (item.facts or {}).items():
            facts.setdefault(key, value)
    if facts.get('exists') is False:
        return ('port_missing', '%s %s does not exist' % (name, port),
                'the port name or the switch model differs from the design')
    if facts.get('admin_up') is False:
        return ('admin_down', '%s %s is admin down' % (name, port), '%s: bring %s up (or find who shut it)' % (name, port))
    if 'mtu' in facts and facts['mtu'] != facts.get('designed_mtu'):
        return ('mtu', '%s %s has MTU %s, the design %s' % (name, port, facts['mtu'], facts['designed_mtu']),
                'set the MTU of %s %s to %s' % (name, port, facts['designed_mtu']))
    if 'addresses' in facts:
        return ('address', '%s %s has %s where the design has %s' % (
            name, port, ', '.join(facts['addresses']) or 'no IPv4 address', facts['designed_address']),
            'set the address of %s %s to %s' % (name, port, facts['designed_address']))
    return ('port', '%s %s is not as designed: %s' % (name, port, evidence[0].seen), '')


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
                       'MTU %s' % seen['mtu'] if seen else 'interface does not exist',
                       facts={'port': subject.data['name'], 'exists': seen is not None, 'mtu': (seen or {}).get('mtu'),
                              'designed_mtu': subject.data['mtu']})


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
                       ', '.join(have) or ('no IPv4 address' if seen else 'no such interface'),
                       facts={'port': subject.data['name'], 'exists': seen is not None, 'addresses': have,
                              'designed_address': subject.data['address']})


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
        tos = _designed_tos(model)
        by_vni = _once(ctx, model['name'], 'interfaces', 'vxlan_by_vni',
                       lambda: {entry['vxlan']['id']: entry for entry in state.values() if entry['vxlan']})
        device = by_vni.get(item['vni'])
        facts = {'vni': item['vni'], 'designed_local': item['vtep_ip'], 'host_mtu': host_mtu, 'designed_tos': tos}
        if device is None:
            carried = _carried_instead(model, state, item)
            facts.update(exists=False, ifname=carried[0] if carried else None, carried=carried[1] if carried else None)
            return failed('no VXLAN device with VNI %d' % item['vni'], facts=facts)
        bridge = state.get(device['master']) if device['master'] else None
        seen_tos = device['vxlan'].get('tos')
        seen = '%s %s, local %s, MTU %s, bridge %s MTU %s' % (
            device['ifname'], 'up' if device['admin_up'] else 'down', device['vxlan']['local'], device['mtu'],
            device['master'] or 'none', bridge['mtu'] if bridge else '-')
        if seen_tos is not None and seen_tos != tos:
            seen += ', tos %s' % _tos_text(seen_tos)
        facts.update(exists=True, ifname=device['ifname'], up=device['admin_up'], local=device['vxlan']['local'],
                     mtu=device['mtu'], bridge=device['master'], bridge_mtu=bridge['mtu'] if bridge else None,
                     bridge_up=bool(bridge and bridge['admin_up']), tos=seen_tos)
        ok = (device['admin_up'] and device['vxlan']['local'] == item['vtep_ip'] and device['mtu'] >= host_mtu
              and bridge is not None and bridge['mtu'] >= host_mtu and bridge['admin_up']
              and seen_tos in (None, tos))
        return verdict(ok, seen, facts=facts)

    def fact_node(self, graph, result, facts):
        name, number = result.device, facts['vni']
        if not facts['exists'] or not facts['up'] or facts['bridge'] is None or not facts['bridge_up']:
            return ('vni', name, number)
        if facts['local'] != facts['designed_local']:
            return ('vtep', name)
        if facts['mtu'] < facts['host_mtu'] or (facts['bridge_mtu'] or 0) < facts['host_mtu']:
            return ('vxlan', name, number)
        return ('marking', name, number)

    def finding(self, graph, node, evidence):
        facts = evidence[0].facts
        if node[0] == 'vni':
            return vni_finding(graph, node, evidence)
        if node[0] == 'vtep':
            return vtep_finding(graph, node, evidence)
        if node[0] not in ('vxlan', 'marking'):
            return super().finding(graph, node, evidence)
        if node[0] == 'vxlan':
            small = [('%s' % facts['ifname'], facts['mtu'])] if facts['mtu'] < facts['host_mtu'] else []
            if (facts['bridge_mtu'] or 0) < facts['host_mtu']:
                small.append(('bridge %s' % facts['bridge'], facts['bridge_mtu']))
            return ('vxlan_mtu', '%s: %s of VNI %d cannot carry a host frame of %d bytes' % (
                node[1], ' and '.join('%s (MTU %s)' % item for item in small), node[2], facts['host_mtu']),
                'set the MTU of %s on %s as designed' % (' and '.join(item[0] for item in small), node[1]))
        return marking_finding(graph, node, evidence)


# The kernel's VXLAN ToS 1 means "inherit": copy the inner DSCP and ECN to the outer header (Linux
# drivers/net/vxlan/vxlan_core.c, vxlan_xmit_one(): `if (tos == 1) tos = ip_tunnel_get_dsfield(...)`; ip-link(8) `tos`).
TOS_INHERIT = 1


def _designed_tos(model):
    return TOS_INHERIT if ((model.get('evpn') or {}).get('tunnel_qos') or {}).get('encap_dscp') == 'copy' else 0


def _tos_text(tos):
    return 'inherit' if tos == TOS_INHERIT else str(tos)


def _carried_instead(model, interfaces, item):
    """(ifname, VNI) of the VXLAN device in the bridge of the VNI's designed access ports, when it carries another
    VNI (a device recreated with another number), else None."""
    vlan = next((vlan for vlan in (model.get('evpn') or {}).get('vlans') or [] if vlan['vni'] == item['vni']), None)
    bridges = {(interfaces.get(port) or {}).get('master') for port in (vlan or {}).get('ports') or []} - {None}
    for entry in interfaces.values():
        if entry['vxlan'] and entry['master'] in bridges and entry['vxlan']['id'] != item['vni']:
            return entry['ifname'], entry['vxlan']['id']
    return None


def vtep_finding(graph, node, evidence):
    """A leaf whose VTEP is not the design's: not on the device, or VXLAN sourced from another address."""
    name = node[1]
    designed = (graph.ctx.model(name).get('evpn') or {}).get('vtep_ip')
    sources = sorted({item.facts.get('local') or item.facts.get('vtep_ip') for item in evidence
                      if item.facts and (item.facts.get('local') or item.facts.get('vtep_ip')) not in (None, designed)})
    missing = any(item.check == 'vtep_address' for item in evidence)
    if sources:
        title = '%s sources VXLAN from %s where the design has VTEP %s%s' % (
            name, ', '.join(sources), designed, ' (and %s is on no interface)' % designed if missing else '')
    else:
        title = '%s does not have its VTEP address %s on any interface' % (name, designed)
    return ('vtep_address', title, 'put the VTEP address %s back on %s (and its VXLAN devices)' % (designed, name))


def marking_finding(graph, node, evidence):
    """The leaf whose VXLAN encapsulation does not carry the packet's DSCP to the outer header."""
    name, number = node[1], node[2]
    device = next((item.facts for item in evidence if item.check == 'vxlan_device'), None)
    probe = next((item.facts for item in evidence if item.check == 'dataplane_marking'), None)
    parts = []
    if device:
        parts.append('%s has tos %s, the design %s' % (
            device['ifname'], _tos_text(device['tos']), _tos_text(device['designed_tos'])))
    if probe:
        parts.extend('%s DSCP %s arrives at %s with outer DSCP %s' % (item['name'], item['inner'], item['where'],
                                                                      item['outer']) for item in probe['wrong'][:2])
    return ('marking', '%s does not copy the DSCP to the outer VXLAN header of VNI %d (%s)' % (
        name, number, '; '.join(parts)), 'create the VXLAN device of VNI %d on %s with tos inherit (as designed)' % (
        number, name))


# --------------------------------------------------------------------------- pings
class _Pings(Check):
    """Every same-rail peer of a GPU server, one subject each, judged on its own ping result."""

    roles = ('host',)
    per = 'rail and same-rail peer'
    kind = 'ping'
    source_per_subject = True

    def subjects(self, ctx, model):
        for target in catalog.ping_targets(ctx, model, ctx.options.get('ping_peers', 0)):
            yield Subject('%s -> %s %s' % (target['interface'], target['peer'], target['peer_ip']), self.want(model, target),
                          data=target)

    def read(self, ctx, model, subject):
        return ctx.state(model['name']).get(ping_key(self.kind, subject.data['interface'], subject.data['peer_ip']))

    def source(self, ctx, model, subject):
        return 'ping -M do -s %d' % subject.data['jumbo_payload'] if self.kind == 'jumbo' else 'ping'

    def judge(self, ctx, model, subject, state):
        target = subject.data
        # no words of ping in the facts: "no reply" one reading, "unreachable" the next (ARP), the same fault
        facts = {'interface': target['interface'], 'peer': target['peer'], 'peer_ip': target['peer_ip'],
                 'rail': target['rail']}
        if not state['ok']:
            return failed(state['reason'], facts=facts)
        seen = '%d/%d replies' % (state['received'], state['transmitted'])
        loss_limit = ctx.options.get('max_loss_percent', 34)
        if state['loss_percent'] <= loss_limit:
            return passed(seen)
        return failed(seen + ' (%s%% loss > %s%%)' % (state['loss_percent'], loss_limit), facts=facts)

    def fact_node(self, graph, result, facts):
        return ('reach' if self.kind == 'ping' else 'jumbo', result.device, facts['interface'], facts['peer'])

    def finding(self, graph, node, evidence):
        if node[0] not in ('reach', 'jumbo'):
            return super().finding(graph, node, evidence)
        what = 'reach' if node[0] == 'reach' else 'send jumbo frames to'
        return (node[0], '%s cannot %s %s over %s, and nothing the checks read explains it (%s); the devices on the '
                'way: %s' % (node[1], what, node[3], node[2], evidence[0].seen, ', '.join(graph.owners(node))),
                'trace the path hop by hop (ARP and FDB on the leaves, the VXLAN packets on the uplinks)')


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


# --------------------------------------------------------------------------- VTEPs and the routes to them
@register
class VtepAddress(Check):
    id = 'vtep_address'
    title = 'The VTEP address is on the leaf'
    roles = ('leaf',)
    per = 'VTEP (Linux data plane), leaves'
    state = ('interfaces',)
    inputs = 'the VTEP address of the leaf (a /32 on its loopback)'
    description = ('Linux data plane (FRR): the leaf carries its designed VTEP address on an interface (the loopback), '
                   'so that BGP advertises it and the remote leaves reach the VXLAN devices sourced from it. Other '
                   'platforms: not applicable, the evpn_vni check compares the VTEP the data plane reports.')
    failure = 'the interfaces that carry it, or that none does'
    example = 'leaf001 vtep_address [VTEP 10.254.16.1]: expected 10.254.16.1/32 on the leaf; seen on no interface'
    na_expected = 'kernel VXLAN devices'

    def subjects(self, ctx, model):
        vtep = (model.get('evpn') or {}).get('vtep_ip')
        if vtep:
            yield Subject('VTEP %s' % vtep, '%s/32 on the leaf' % vtep, data=vtep)

    def read(self, ctx, model, subject):
        if not PLATFORMS[model['platform']].kernel_dataplane:
            raise NotApplicable('%s shows its VTEP through the evpn_* state' % model['platform'])
        return super().read(ctx, model, subject)

    def judge(self, ctx, model, subject, state):
        where = sorted(name for name, entry in state.items()
                       if any(addr['address'] == subject.data for addr in entry['addresses']))
        return verdict(bool(where), 'on %s' % ', '.join(where) if where else 'on no interface',
                       facts={'vtep': subject.data, 'on': where})

    def fact_node(self, graph, result, facts):
        return ('vtep', result.device)

    def finding(self, graph, node, evidence):
        if node[0] != 'vtep':
            return super().finding(graph, node, evidence)
        return vtep_finding(graph, node, evidence)


class RouteLookup:
    """The route the kernel uses for an address: the longest prefix holding it, the lowest metric among equals, the
    first listed among equal ones. A default route is no route to a VTEP (it is the management network's way out).
    The table is indexed once per prefix length: a leaf looks up every other leaf's VTEP (on a 16k-GPU fabric, 511
    lookups in a table of 600 routes, on 512 leaves)."""

    def __init__(self, routes):
        self.by_length = {}  # (IP version, prefix length) -> {network address as an integer: its route}
        for route in routes:
            try:
                network = ipaddress.ip_network('0.0.0.0/0' if route['dst'] == 'default' else route['dst'], strict=False)
            except ValueError:
                continue
            if network.prefixlen == 0:
                continue
            table = self.by_length.setdefault((network.version, network.prefixlen), {})
            kept = table.get(int(network.network_address))
            if kept is None or -(route['metric'] or 0) > -(kept['metric'] or 0):
                table[int(network.network_address)] = route
        self.lengths = sorted(self.by_length, key=lambda item: item[1], reverse=True)

    def route(self, address):
        target = ipaddress.ip_address(address)
        value, width = int(target), target.max_prefixlen
        for version, length in self.lengths:
            if version == target.version:
                route = self.by_length[(version, length)].get(value >> (width - length) << (width - length))
                if route is not None:
                    return route
        return None


@register
class VtepRoute(Check):
    id = 'vtep_route'
    title = 'Remote VTEPs are reached through the fabric'
    roles = ('leaf',)
    per = 'remote VTEP, leaves'
    state = ('routes',)
    inputs = 'the VTEP of every other leaf sharing a VNI with the leaf, and the leaf\'s uplinks'
    description = ('the route the leaf uses for every remote VTEP (longest prefix, then metric) is a unicast route learnt '
                   'by BGP through its designed uplinks; a blackhole, an unreachable route or a route over another '
                   'port, which the design does not have, is the leaf\'s own finding, a missing route (only the '
                   'default route of the management network matches) a consequence of what carries it')
    failure = 'the route the leaf has for the VTEP: its type, protocol and next hops, or that it has none'
    example = ('leaf001 vtep_route [to leaf003 10.254.16.3]: expected a BGP route via eth3, eth4; seen blackhole '
               '10.254.16.3 (protocol boot)')

    def subjects(self, ctx, model):
        remote = {}
        for item in catalog.expected_vnis(ctx, model):
            remote.update(item['remote_vteps'])
        uplinks = [item['name'] for item in model['interfaces'] if item.get('direction') == 'up']
        for ip, leaf in sorted(remote.items(), key=lambda pair: pair[1]):
            yield Subject('to %s %s' % (leaf, ip), 'a BGP route via %s' % ', '.join(uplinks), data=(leaf, ip, uplinks))

    def judge(self, ctx, model, subject, state):
        leaf, ip, uplinks = subject.data
        route = _once(ctx, model['name'], 'routes', 'route_lookup', lambda: RouteLookup(state)).route(ip)
        facts = {'remote': leaf, 'vtep': ip, 'uplinks': uplinks, 'route': None}
        if route is None:
            return failed('no route to %s' % ip, facts=facts)
        devs = sorted({hop['dev'] for hop in route['nexthops'] if hop['dev']})
        facts['route'] = {'dst': route['dst'], 'type': route['type'], 'protocol': route['protocol'], 'devs': devs}
        seen = '%s%s (protocol %s)%s' % ('' if route['type'] == 'unicast' else route['type'] + ' ', route['dst'],
                                         route['protocol'] or 'none', ' via %s' % ', '.join(devs) if devs else '')
        ok = (route['type'] == 'unicast' and route['protocol'] == 'bgp' and devs and set(devs) <= set(uplinks))
        return verdict(ok, seen, facts=facts)

    def fact_node(self, graph, result, facts):
        if facts['route'] is None:
            return ('learnt', result.device, facts['remote'])
        return ('route', result.device, facts['remote'])

    def finding(self, graph, node, evidence):
        if node[0] not in ('learnt', 'route'):
            return super().finding(graph, node, evidence)
        facts = evidence[0].facts
        if node[0] == 'learnt':
            return ('route_missing', '%s has no route to the VTEP %s of %s, and nothing it needs fails' % (
                node[1], facts['vtep'], node[2]), 'read the BGP table of %s for %s' % (node[1], facts['vtep']))
        route = facts['route']
        how = ('into a %s route %s' % (route['type'], route['dst']) if route['type'] != 'unicast' else
               'over %s (route %s, protocol %s)' % (
                   ', '.join(route['devs']) or 'no port', route['dst'], route['protocol'] or 'none'))
        return ('route', '%s sends the VXLAN packets for %s (VTEP %s) %s, a route the design does not have' % (
            node[1], node[2], facts['vtep'], how), 'remove that route from %s' % node[1])


__all__ = ['SWITCHES', 'ALL', 'port_finding', 'vni_finding', 'vtep_finding', 'marking_finding',
           'bfd_note']
