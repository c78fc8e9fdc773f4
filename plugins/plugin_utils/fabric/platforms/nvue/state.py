# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""NVIDIA Cumulus Linux (NVUE): `nv ... -o json` outputs turned into platform-neutral state.

Commands run on the switch over Ansible's SSH connection (transport `command`; Cumulus Linux has Python 3). Shapes handled (instances in
tests/unit/platforms/nvue/recorded/, written after the Cumulus Linux 5.x user guide and NVUE command reference):
- `nv config show -o json`: the applied configuration, the same object tree as startup.yaml (a list of
  {set: {...}} / {unset: ...} documents, or the `set` object itself). Lossless settings (qos mapping, pfc,
  congestion-control, egress-scheduler, pfc-watchdog; profiles bound per port under interface.<swp>.qos) and the
  EVPN route-targets come from it; the rendered startup.yaml parses into the same tree. A cage split by `link
  breakout 2x|4x|8x` is no port (its swpNsM are). Switches read `enable: on` (5.14 and earlier) and
  `state: enabled` (5.15 and later).
- `nv show vrf default router bgp neighbor -o json`: {peer: {remote-as, state, address-family|afi-safi: {afi: ...}}};
  Cumulus Linux 5.11 and earlier print the detailed neighbour object here, 5.12 and later a summary per
  neighbour (both carry remote-as, state and the address families).
- `nv show evpn vni -o json`: {vni: {vlan | bridge-domain ..., remote-vtep: {ip: {...}} | [ip, ...]}}.
- `nv show interface <swp> counters qos -o json` (5.5+; `qos counters` before 5.5): pfc-stats {switch-priority:
  {rx-pause-frames, tx-pause-frames}}, egress-queue-stats {traffic-class: {tx-uc-buffer-discards (bytes),
  wred-discards}}, ingress-buffer-stats {priority-group: {rx-buffer-discards (bytes)}}, port-stats
  {ecn-marked-packets: {transmit}}.
- `nv show interface <swp> qos pfc-watchdog -o json` (5.6+): {state, status: {traffic-class: {status: OK | DEADLOCK,
  deadlock-count}}}.
- `nv show interface -o json`: {name: {type, link: {admin-status, oper-status, mtu, state: {up: {}}}, ip: {address:
  {prefix: {}}}}}.
- `ip -j -4 route show table main` (leaves): the kernel's main table, which switchd programs into the ASIC (Cumulus
  Linux switchd.conf `route.table = 254`, "Configuring switchd"; FRR's routes reach it through zebra), in iproute2's
  JSON (iproute2.parse_ip_route, as on the FRR platform).
- `nv show interface <swp> lldp -o json` per cabled port: {neighbor: {id: {chassis: {system-name, chassis-id}, port:
  {name | id, description, type}}}}.
"""

from __future__ import annotations

from typing import Any

from ...state import StateError, excerpt, integer, load_json, require_mapping
from ...state.counters import number
from ...state.gatherer import Gatherer, Source, results
from ...state.iproute2 import ROUTES_SOURCE
from ...state.shell import SHELL
from ...state.views import identity, lossless_state, port_view
from ...state.schema import BgpEvpnVni, BgpEvpnVnis, BgpSession, Counters, EvpnVni, Interface, LldpNeighbor, Lossless

CONFIG = ('nv', 'config', 'show', '-o', 'json')
AFI = {'ipv4-unicast': 'ipv4Unicast', 'l2vpn-evpn': 'l2VpnEvpn'}
MARK = '== '


def _text(source, output):
    if isinstance(output, dict) and 'rc' in output:
        from ...state import command_output  # pylint: disable=import-outside-toplevel
        return command_output(source, output)
    return output


def _json(source, output):
    data = load_json(source, _text(source, output))
    if isinstance(data, dict) and set(data) == {'error'}:
        raise StateError(source, 'NVUE error: %s' % excerpt(data['error']))
    return data


# --------------------------------------------------------------------------- configuration tree
def config_tree(output) -> dict:
    """The applied configuration object (`set` documents merged) of `nv config show -o json` or startup.yaml."""
    source = 'NVUE nv config show -o json'
    data = output
    if isinstance(output, str) and output.lstrip().startswith(('-', '#')):
        import yaml  # pylint: disable=import-outside-toplevel
        try:
            # libyaml's safe loader where PyYAML has it: the rendered startup.yaml of a 64-port switch took 1.6 s of
            # pure-Python parsing (a fleet reading of 512 spines judges each one)
            data = yaml.load(output, Loader=getattr(yaml, 'CSafeLoader', yaml.SafeLoader))  # nosec B506: a safe loader
        except yaml.YAMLError as exc:
            raise StateError(source, 'not valid YAML: %s' % excerpt(exc)) from None
    elif not isinstance(output, (dict, list)):
        data = _json(source, output)
    if isinstance(data, dict) and 'set' not in data:
        return data
    documents = data if isinstance(data, list) else [data]
    tree = {}
    for document in documents:
        if isinstance(document, dict) and isinstance(document.get('set'), dict):
            _deep_merge(tree, document['set'])
    if not tree:
        raise StateError(source, 'no `set` document in the configuration')
    return tree


def _deep_merge(target, source):
    for key, value in source.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            _deep_merge(target[key], value)
        else:
            target[key] = value


def _get(tree, *path, default=None):
    node = tree
    for key in path:
        if not isinstance(node, dict) or str(key) not in node and key not in node:
            return default
        node = node[str(key)] if str(key) in node else node[key]
    return node


def _on(value) -> bool:
    return str(value).lower() in ('on', 'enable', 'enabled', 'true', 'yes')


def _switch(node) -> bool:
    """A feature switch: `enable: on` (Cumulus Linux 5.14 and earlier) or `state: enabled` (5.15 and later)."""
    node = node if isinstance(node, dict) else {}
    return _on(node.get('enable', node.get('state', 'off')))


def _split_cage(intf) -> bool:
    """A cage split by `link breakout <n>x` (n > 1): its ports are swpNs0, swpNs1, ...; the cage is no port."""
    breakout = _get(intf, 'link', 'breakout')
    return isinstance(breakout, dict) and any(str(key)[:-1].isdigit() and str(key).endswith('x') and
                                              int(str(key)[:-1]) > 1 for key in breakout)


def _ints(source, mapping, what):
    return sorted(integer(source, key, what) for key in (mapping or {}))


def _profiled(qos, profiles, to_tc, source):
    """(mapping, dscp_to_tc, pfc, pfc profile, queues) of the QoS profiles (mapping, pfc, congestion-control,
    egress-scheduler) a port names."""
    mapping_name, pfc_name, congestion_name, scheduler_name = profiles
    mapping = _get(qos, 'mapping', mapping_name, default={}) or {}
    dscp_to_tc = None
    if mapping.get('dscp'):
        dscp_to_tc = {}
        for dscp, entry in mapping['dscp'].items():
            sp = integer(source, _get(entry, 'switch-priority', default=0), 'dscp %s switch-priority' % dscp)
            dscp_to_tc[integer(source, dscp, 'qos mapping dscp')] = to_tc.get(sp, sp)
    pfc_profile = _get(qos, 'pfc', pfc_name, default=None)
    pfc = []
    if isinstance(pfc_profile, dict) and _on(pfc_profile.get('rx', 'enable')) and _on(pfc_profile.get('tx', 'enable')):
        pfc = _ints(source, pfc_profile.get('switch-priority'), 'pfc switch-priority')
    queues = {}
    for tc, entry in (_get(qos, 'egress-scheduler', scheduler_name, 'traffic-class', default={}) or {}).items():
        strict = str((entry or {}).get('mode', 'dwrr')).lower() == 'strict'
        queues.setdefault(integer(source, tc, 'egress-scheduler traffic-class'),
                          {'scheduler': None, 'wred': None})['scheduler'] = {
            'type': 'STRICT' if strict else 'DWRR', 'weight': None if strict else (entry or {}).get('bw-percent')}
    for tc, entry in (_get(qos, 'congestion-control', congestion_name, 'traffic-class', default={}) or {}).items():
        if _on((entry or {}).get('ecn', 'disable')):
            queues.setdefault(integer(source, tc, 'congestion-control traffic-class'),
                              {'scheduler': None, 'wred': None})['wred'] = {
                'ecn': 'ecn_all', 'green_enable': True, 'min_bytes': entry.get('min-threshold'),
                'max_bytes': entry.get('max-threshold'), 'probability': entry.get('probability', 100)}
    return mapping, dscp_to_tc, pfc, pfc_profile, queues


def lossless_from_tree(tree, operational=None, source: str = 'applied configuration') -> Lossless:
    """The neutral `lossless` state (state/views.py) of an NVUE configuration tree."""
    qos = tree.get('qos') or {}
    poll = integer(source, _get(qos, 'pfc-watchdog', 'polling-interval', default=100), 'pfc-watchdog polling-interval')
    robustness = integer(source, _get(qos, 'pfc-watchdog', 'robustness', default=3), 'pfc-watchdog robustness')
    profiled: dict[tuple, tuple] = {}  # what a port's QoS profiles give it, read once per set of profiles
    switch_maps: tuple[dict[int, int], bool] | None = None  # the egress-queue mapping, whether a lossless pool exists
    ports = {}
    for name, intf in (tree.get('interface') or {}).items():
        if (intf or {}).get('type') != 'swp' and not str(name).startswith('swp'):
            continue
        intf = intf or {}
        if _split_cage(intf):
            continue
        profiles = tuple(_get(intf, 'qos', kind, 'profile', default='default-global')
                         for kind in ('mapping', 'pfc', 'congestion-control', 'egress-scheduler'))
        if switch_maps is None:  # the switch's own maps, read once there is a port to judge
            switch_maps = ({
                sp: integer(source, _get(entry, 'traffic-class', default=sp), 'switch-priority %d traffic-class' % sp)
                for sp, entry in ((integer(source, key, 'egress-queue-mapping switch-priority'), value) for key, value in
                                  (_get(qos, 'egress-queue-mapping', 'default-global', 'switch-priority', default={})
                                   or {}).items())}, any(
                integer(source, _get(qos, 'traffic-pool', pool, 'memory-percent', default=0) or 0,
                        'traffic-pool %s memory-percent' % pool) > 0 for pool in ('default-lossless', 'roce-lossless')))
        to_tc, lossless_pool = switch_maps
        if profiles not in profiled:
            profiled[profiles] = _profiled(qos, profiles, to_tc, source)
        mapping, dscp_to_tc, pfc, pfc_profile, queues = profiled[profiles]
        watchdog_on = _on(_get(intf, 'qos', 'pfc-watchdog', 'state', default='disable'))
        detection = poll * robustness
        watchdog = {'action': 'drop', 'detection_ms': detection, 'restoration_ms': detection} if watchdog_on and pfc else None
        mtu = _get(intf, 'link', 'mtu', default=9216)
        if operational and name in operational:
            mtu = operational[name]['mtu']
        ports[name] = port_view(
            mtu=integer(source, mtu, 'interface %s mtu' % name),
            trust={'l3': 'dscp', 'l2': 'cos', 'both': 'both', 'port': 'port'}.get(str(mapping.get('trust'))),
            dscp_to_tc=dscp_to_tc, dscp_map='qos mapping %s' % profiles[0] if dscp_to_tc else None,
            pfc=pfc, pfcwd=pfc if watchdog else [], watchdog=watchdog, poll_ms=poll,
            tc_to_pg=identity(range(8)), tc_to_queue=identity(range(8)), pfc_to_queue=to_tc or identity(range(8)),
            pfc_to_pg=None, queues=queues, pgs={prio: {'dynamic': True} for prio in pfc if lossless_pool},
            egress={prio: 'lossless' for prio in pfc if lossless_pool},
            cable_length_m=(pfc_profile or {}).get('cable-length') if isinstance(pfc_profile, dict) else None,
            headroom='platform')
    return lossless_state(ports, source)


def parse_lossless(output) -> Lossless:
    source = 'NVUE nv config show -o json'
    outputs = results(source, output, 2)
    return lossless_from_tree(config_tree(_text(source, outputs[0])), parse_interfaces(outputs[1]),
                              'applied configuration + nv show interface')


# --------------------------------------------------------------------------- interfaces and LLDP
def _state_word(value):
    """NVUE prints some states as a word ('up') and some as a one-key object ({'up': {}})."""
    if isinstance(value, dict) and len(value) == 1:
        return next(iter(value))
    return value


def parse_interfaces(output) -> dict[str, Interface]:
    """`nv show interface -o json` in the shape of iproute2.parse_ip_link."""
    source = 'NVUE nv show interface -o json'
    data = require_mapping(source, _json(source, results(source, output, 1)[0]))
    interfaces: dict[str, Interface] = {}
    for name, body in data.items():
        body = require_mapping(source, body or {}, 'interface %s' % name)
        link = body.get('link') or {}
        oper = _state_word(link.get('oper-status', link.get('state')))
        if oper is None or 'mtu' not in link:
            raise StateError(source, 'interface %s has no link oper-status or mtu' % name)
        admin = _state_word(link.get('admin-status', 'up'))
        addresses = []
        # `ip address` up to 5.14, `ipv4 address` from 5.15 (New and Changed NVUE Commands)
        for prefix in ((body.get('ipv4') or body.get('ip') or {}).get('address') or {}):
            address, _sep, length = str(prefix).partition('/')
            if '.' in address:
                addresses.append({'family': 'inet', 'address': address, 'prefixlen': int(length) if length.isdigit() else None})
        up = str(oper).lower() == 'up'
        interfaces[name] = {'ifname': name, 'mtu': integer(source, link['mtu'], 'interface %s mtu' % name),
                            'operstate': 'UP' if up else 'DOWN',
                            'admin_up': str(admin).lower() == 'up', 'lower_up': up, 'master': None,
                            'kind': body.get('type'), 'vxlan': None, 'addresses': addresses}
    return interfaces


def parse_lldp(output) -> list[LldpNeighbor]:
    """Neighbours of the per-port `nv show interface <swp> lldp -o json` loop, in the shape of
    lldp.parse_lldp_neighbors."""
    source = 'NVUE nv show interface lldp'
    neighbors: list[LldpNeighbor] = []
    for port, data in _split_ports(source, results(source, output, 1)[0]).items():
        table = require_mapping(source, data or {}, port).get('neighbor', {})
        table = {} if table is None else table
        for key, entry in require_mapping(source, table, '%s neighbor' % port).items():
            entry = entry or {}
            chassis, remote = entry.get('chassis') or {}, entry.get('port') or {}
            port_id = remote.get('name') or remote.get('id')
            id_type = remote.get('type') or ('ifname' if remote.get('name') else None)
            descr = remote.get('description')
            neighbors.append({'interface': port, 'system_name': chassis.get('system-name') or key,
                              'chassis_id': chassis.get('chassis-id'), 'port_id_type': id_type, 'port_id': port_id,
                              'port_descr': descr, 'via': 'LLDP',
                              'peer_port': port_id if id_type in ('ifname', 'local', None) and port_id else (descr or port_id)})
    return sorted(neighbors, key=lambda item: (item['interface'], str(item['system_name'])))


def design_view(files) -> Lossless:
    """The lossless view of the startup.yaml this collection renders ({file name: text}; pre-deploy checks)."""
    return lossless_from_tree(config_tree(files['startup.yaml']), None, 'rendered startup.yaml')


# --------------------------------------------------------------------------- BGP and EVPN
def parse_bgp_summary(output) -> list[BgpSession]:
    """Sessions in the shape of frr.parse_bgp_summary (vrf default), one per enabled address family."""
    source = 'NVUE nv show vrf default router bgp neighbor -o json'
    data = require_mapping(source, _json(source, results(source, output, 1)[0]))
    sessions: list[BgpSession] = []
    for peer, info in data.items():
        require_mapping(source, info, 'neighbour %s' % peer)
        state = info.get('state', info.get('session-state'))
        if isinstance(state, dict) and len(state) == 1:  # {"established": {}}
            state = next(iter(state))
        if not isinstance(state, str):
            raise StateError(source, 'neighbour %s has no state' % peer)
        families = info.get('address-family', info.get('afi-safi')) or {}
        afis = [name for name, entry in families.items()
                if name in AFI and not (isinstance(entry, dict) and
                                        str(entry.get('enable', entry.get('state', 'on'))).lower() in ('off', 'disabled'))]
        remote = info.get('remote-as', info.get('remote-asn'))
        for afi in afis or ['ipv4-unicast']:
            entry = families.get(afi)
            entry = entry if isinstance(entry, dict) else {}
            sessions.append({
                'vrf': 'default', 'afi': AFI[afi], 'peer': peer,
                'id_type': 'interface' if str(peer).startswith('swp') else 'ip', 'hostname': info.get('hostname'),
                'remote_as': remote, 'local_as': info.get('local-as'),
                'state': 'Established' if state.lower() == 'established' else state,
                'established': state.lower() == 'established',
                'prefixes_received': entry.get('rx-prefix', (entry.get('prefix-counts') or {}).get('received')),
                'prefixes_sent': entry.get('tx-prefix'), 'uptime_ms': None, 'description': info.get('description'),
            })
    return sessions


def parse_evpn_vni(output) -> dict[Any, EvpnVni]:
    """VNIs in the shape of frr.parse_evpn_vni."""
    source = 'NVUE nv show evpn vni -o json'
    data = _json(source, results(source, output, 1)[0])
    if data in ({}, [], None):
        return {}
    vnis: dict[Any, EvpnVni] = {}
    for key, info in require_mapping(source, data).items():
        vni = integer(source, key, 'VNI key')
        info = require_mapping(source, info or {}, 'VNI %s' % key)
        remote = info.get('remote-vtep') or {}
        vteps = sorted(remote) if isinstance(remote, dict) else sorted(str(item) for item in remote)
        vnis[vni] = {'vni': vni, 'type': str(info.get('type', 'L2')).upper(), 'vxlan_if': info.get('vxlan-interface'),
                     'vtep_ip': info.get('local-vtep'), 'remote_vteps': vteps, 'tenant_vrf': info.get('vrf'),
                     'macs': info.get('mac-count'), 'vlan': info.get('vlan')}
    return vnis


def parse_bgp_evpn_vni(output) -> BgpEvpnVnis:
    """Route-targets per VNI (evpn vni <vni> route-target import|export|both) of the applied configuration,
    in the shape of frr.parse_bgp_evpn_vni; `in_kernel` when NVUE shows the VNI operational."""
    source = 'NVUE evpn route-targets'
    outputs = results(source, output, 2)
    tree = config_tree(_text(source, outputs[0]))
    operational = parse_evpn_vni([outputs[1]])
    vnis: dict[Any, BgpEvpnVni] = {}
    for key, entry in (_get(tree, 'evpn', 'vni', default={}) or {}).items():
        targets = (entry or {}).get('route-target') or {}
        both = sorted(targets.get('both') or {})
        vni = integer(source, key, 'evpn vni key')
        vnis[vni] = {'vni': vni, 'type': 'L2', 'rd': (entry or {}).get('rd'), 'originator_ip': None,
                     'in_kernel': vni in operational,
                     'import_rts': sorted(set(both) | set(targets.get('import') or {})),
                     'export_rts': sorted(set(both) | set(targets.get('export') or {}))}
    return {'advertise_all_vni': _switch(tree.get('evpn')), 'vnis': vnis}


# --------------------------------------------------------------------------- counters
def _per_port(model, argv_tail, fallback_tail=None):
    """One shell loop: '== <port>' then the JSON of `nv show interface <port> <tail> -o json` per cabled port."""
    ports = ' '.join("'%s'" % item['name'].replace("'", '') for item in model['interfaces'])
    command = 'nv show interface "$n" %s -o json' % argv_tail
    if fallback_tail:
        command = '{ %s 2>/dev/null || nv show interface "$n" %s -o json; }' % (command, fallback_tail)
    return ['sh', '-c', 'for n in %s; do echo "%s$n"; %s; done' % (ports, MARK, command)]


def _split_ports(source, output):
    """{port: parsed JSON} of a per-port loop."""
    text = _text(source, output)
    if not isinstance(text, str) or not text.strip():
        raise StateError(source, 'empty output (expected one JSON document per port)')
    chunks, port = {}, None
    for line in text.splitlines():
        if line.startswith(MARK):
            port = line[len(MARK):].strip()
            chunks[port] = []
        elif port is None:
            raise StateError(source, 'output does not start with a port marker: %r' % excerpt(line, 60))
        else:
            chunks[port].append(line)
    return {name: _json('%s (%s)' % (source, name), '\n'.join(lines)) for name, lines in chunks.items()}


def _table(section, key):
    """A show table as {index: row}: NVUE prints it keyed by its first column, sometimes under that column name."""
    section = section or {}
    if isinstance(section.get(key), dict):
        section = section[key]
    return {int(index): row or {} for index, row in section.items() if str(index).isdigit()}


def parse_counters(output) -> Counters:
    """Neutral counters (state/counters.py) from the per-port `counters qos` and `qos pfc-watchdog` loops."""
    source = 'NVUE counters'
    qos_out, watchdog_out = results(source, output, 2)
    ports = {}
    for port, data in _split_ports(source + ' qos', qos_out).items():
        require_mapping(source, data, port)
        view = ports.setdefault(port, {})
        for index, row in _table(data.get('pfc-stats'), 'switch-priority').items():
            view.setdefault('pfc_rx', {})[index] = number(source, row.get('rx-pause-frames', 0), '%s rx-pause-frames' % port)
            view.setdefault('pfc_tx', {})[index] = number(source, row.get('tx-pause-frames', 0), '%s tx-pause-frames' % port)
        for index, row in _table(data.get('egress-queue-stats'), 'traffic-class').items():
            view.setdefault('queue_dropped', {})[index] = number(source, row.get('wred-discards', 0),
                                                                 '%s wred-discards' % port)
            if 'ecn-marked-packets' in row:  # some releases count ECN marks per traffic class
                view.setdefault('queue_ecn_marked', {})[index] = number(source, row['ecn-marked-packets'],
                                                                        '%s ecn-marked-packets' % port)
            view.setdefault('queue_dropped_bytes', {})[index] = number(source, row.get('tx-uc-buffer-discards', 0),
                                                                       '%s tx-uc-buffer-discards' % port)
        for index, row in _table(data.get('ingress-buffer-stats'), 'priority-group').items():
            view.setdefault('pg_dropped_bytes', {})[index] = number(source, row.get('rx-buffer-discards', 0),
                                                                    '%s rx-buffer-discards' % port)
        marked = _get(data, 'port-stats', 'ecn-marked-packets', 'transmit')
        if marked not in (None, 'n/a'):
            view['ecn_marked_total'] = number(source, marked, '%s ecn-marked-packets' % port)
    for port, data in _split_ports(source + ' pfc-watchdog', watchdog_out).items():
        view = ports.setdefault(port, {})
        for index, row in _table(data.get('status'), 'traffic-class').items():
            view.setdefault('wd_storms', {})[index] = number(source, row.get('deadlock-count', 0),
                                                             '%s deadlock-count' % port)
            view.setdefault('wd_stormed', {})[index] = str(row.get('status', '')).upper() in ('DEADLOCK', 'STORMED')
    return {'ports': ports}


def _counters_command(model, options):
    if not model.get('qos'):
        return None
    return [_per_port(model, 'counters qos', 'qos counters'), _per_port(model, 'qos pfc-watchdog')]


LEAVES = ('leaf',)
INTERFACES = ('nv', 'show', 'interface', '-o', 'json')
SOURCES = (
    Source('bgp_summary', ('nv', 'show', 'vrf', 'default', 'router', 'bgp', 'neighbor', '-o', 'json'), parse_bgp_summary),
    Source('interfaces', INTERFACES, parse_interfaces),
    Source('lldp', lambda model, options: [_per_port(model, 'lldp')], parse_lldp),
    Source('evpn_vni', ('nv', 'show', 'evpn', 'vni', '-o', 'json'), parse_evpn_vni, roles=LEAVES),
    Source('bgp_evpn_vni', [CONFIG, ('nv', 'show', 'evpn', 'vni', '-o', 'json')], parse_bgp_evpn_vni, roles=LEAVES),
    Source('lossless', [CONFIG, INTERFACES], parse_lossless),
    Source('counters', _counters_command, parse_counters),
    ROUTES_SOURCE,
)
GATHERER = Gatherer('nvue', 'NVIDIA Cumulus Linux (NVUE)', SOURCES, reader=SHELL, design_view=design_view)

__all__ = ['GATHERER', 'config_tree', 'lossless_from_tree', 'parse_lossless', 'parse_bgp_summary', 'parse_evpn_vni',
           'parse_bgp_evpn_vni', 'parse_counters', 'design_view', 'parse_interfaces', 'parse_lldp']
