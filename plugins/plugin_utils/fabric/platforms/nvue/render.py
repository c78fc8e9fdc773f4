# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""NVIDIA Cumulus Linux (NVUE): one `startup.yaml` per switch in the `nv config` YAML shape.

Shape (Cumulus Linux docs, NVUE CLI: `nv config show -o yaml`, https://docs.nvidia.com/networking-ethernet-software/
cumulus-linux-514/System-Configuration/NVIDIA-User-Experience-NVUE/NVUE-CLI/): a list with one `- set:` document; every
CLI token is a nested key, list members are map keys (numeric ones quoted), leaf-less members are `{}`. Keys and
values follow the NVUE reference of the device's release (the release data of releases.py), see
docs/platform-nvue.md.

QoS is written out explicitly instead of `nv set qos roce`, so every intent value appears in the file:
trust l3 + DSCP -> switch-priority for all 64 code points (Cumulus Linux "Quality of Service" and "RDMA over
Converged Ethernet - RoCE"), SP -> egress queue, PFC on the lossless switch priorities with one profile per cable
length bound to its ports (C16), ECN on the lossless queues only (C08), CNP queue strict + DWRR shares (C10, C20), and
the PFC watchdog as polling-interval x robustness = detection (Quality of Service, PFC watchdog) enabled on every swp
(C12). The only derivations here are formatting: robustness = detection / polling (validation guarantees an
integer), profile names, the lossless traffic-pool percent (CL docs: set the lossless/lossy pools before PFC), YAML
quoting.
"""

from __future__ import annotations

from typing import Any

from jinja2 import Environment

from ...model import Lossless, SwitchModel
from .releases import words as release_words

DOMAIN = 'br_default'
# The BFD profile of the fabric sessions (Cumulus Linux 5.15 and later, releases.py).
BFD_PROFILE = 'aifabric'


PROFILE = 'default-global'  # NVUE applies the default-global profiles to every port (CL Quality of Service)


def quote(text) -> str:
    """YAML single-quoted scalar (a quote inside is doubled)."""
    return "'%s'" % str(text).replace("'", "''")


def lossless_pool_percent(qos: Lossless, buffer: dict) -> int:
    """Share of the switch buffer for the default-lossless traffic pool: the intent percent, or the intent
    pool size as a percent of the ASIC buffer (rounded up, kept within 1..99)."""
    spec = qos['buffer']
    if spec['pool_bytes'] is None or not buffer:
        return spec['lossless_pool_percent']
    return min(99, max(1, -(-spec['pool_bytes'] * 100 // buffer['asic_buffer_bytes'])))


def congestion_profile(speed_gbps: int) -> str:
    return 'aifabric-%dg' % speed_gbps


def pfc_profile(cable_length_m: int) -> str:
    """The PFC profile of a cable length: NVUE sizes a port's headroom from its profile's cable-length."""
    return 'aifabric-%dm' % cable_length_m


def qos_view(qos: Lossless, interfaces: list, buffer=None) -> dict:
    queue_of = {int(tc): queue for tc, queue in qos['tc_to_queue'].items()}
    weights = {int(tc): percent for tc, percent in qos['tc_bandwidth_percent'].items()}
    lossless = set(qos['lossless_priorities'])
    cnp = qos['cnp_priority']
    dscp_to_tc = {int(dscp): tc for dscp, tc in qos['dscp_to_tc'].items()}
    scheduler, congestion = [], []
    for tc in range(8):
        queue = queue_of[tc]
        if tc in weights:
            scheduler.append({'queue': queue, 'mode': 'dwrr', 'bw': weights[tc]})
        else:
            # CNP strict (C10); every other class has a DWRR share from the design.
            scheduler.append({'queue': queue, 'mode': 'strict', 'bw': None})
        if tc in lossless:
            congestion.append({'queue': queue, 'ecn': 'enable'})
        elif tc == qos['default_traffic_class']:
            # default-global marks ECN on queue 0 out of the box (CL QoS docs); the intent marks lossless only.
            congestion.append({'queue': queue, 'ecn': 'disable'})
    watchdog = qos['watchdog']
    return {
        'dscp': sorted(dscp_to_tc.items()),
        'sp_to_queue': sorted(queue_of.items()),
        'scheduler': sorted(scheduler, key=lambda entry: entry['queue']),
        'congestion': sorted(congestion, key=lambda entry: entry['queue']),
        # One congestion-control profile per port speed (the design scales ECN thresholds with it), bound per port.
        'ecn_profiles': sorted({congestion_profile(item['speed_gbps']): item['ecn'] for item in interfaces}.items()),
        'pfc_priorities': sorted(lossless),
        'cnp_priority': cnp,
        # One PFC profile per cable length, bound per port, so short host links do not reserve the headroom of the
        # longest fabric cable (CL "Quality of Service": `nv set qos pfc <profile> cable-length`).
        'pfc_profiles': sorted({(pfc_profile(item['cable_length_m']), item['cable_length_m']) for item in interfaces}),
        # CL QoS docs: all buffer goes to default-lossy unless pools are set before PFC is configured.
        'lossless_pool_percent': lossless_pool_percent(qos, buffer),
        'watchdog': {
            'polling_ms': watchdog['poll_interval_ms'],
            'robustness': watchdog['detection_ms'] // watchdog['poll_interval_ms'],
        } if watchdog['enabled'] else None,
    }


# Intent hash field -> NVUE `system forwarding ecmp-hash` leaf (CL "Equal Cost Multipath Load Sharing").
ECMP_HASH = {'src_ip': 'source-ip', 'dst_ip': 'destination-ip', 'ip_protocol': 'ip-protocol', 'l4_src_port': 'source-port',
             'l4_dst_port': 'destination-port', 'ipv6_flow_label': 'ipv6-label'}
INNER_HASH = ('src_ip', 'dst_ip', 'ip_protocol', 'l4_src_port', 'l4_dst_port')


def ecmp_hash(ecmp: dict) -> list:
    """(leaf, on) for every NVUE ecmp-hash field: the intent fields on, the rest off; inner-* for VXLAN."""
    chosen = set(ecmp['hash_fields'])
    fields = [(leaf, name in chosen) for name, leaf in ECMP_HASH.items()]
    fields += [('inner-' + ECMP_HASH[name], ecmp['inner'] and name in chosen) for name in INNER_HASH]
    return sorted(fields)


def breakouts(interfaces) -> list:
    """(parent swp, `<n>x`) of every split cage: `nv set interface swp1 link breakout 2x` makes swp1s0, swp1s1."""
    split = {}
    for item in interfaces:
        if item.get('split'):
            split[item['breakout_parent']] = '%sx' % item['breakout'].split('x', 1)[0]
    return sorted(split.items(), key=lambda entry: int(entry[0][3:]))


# NVUE's built-in roles: system-admin (sudo and nv set), nvue-monitor (nv show only).
USER_ROLES = {'admin': 'system-admin', 'operator': 'nvue-monitor'}


def nv_block(tree: dict, indent: int) -> str:
    """Nested keys as `nv config` YAML, keys sorted as NVUE prints them, numeric keys quoted, empty members `{}`."""
    lines, pad = [], ' ' * indent
    for key in sorted(tree, key=str):
        value, name = tree[key], "'%s'" % key if str(key).isdigit() else key
        if isinstance(value, dict) and value:
            lines.append('%s%s:' % (pad, name))
            lines.append(nv_block(value, indent + 2))
        else:
            lines.append('%s%s: %s' % (pad, name, '{}' if isinstance(value, dict) else value))
    return '\n'.join(lines)


def _members(items, **attributes) -> dict:
    return {item: dict(attributes) for item in items}


def services(model: SwitchModel, words, vrf) -> tuple:
    """(`service` tree, `system` tree) of DNS, NTP, syslog, the LLDP application TLV and the REST API, each where the
    release keeps it; what the intent does not set is left out."""
    management, qos = model['management'], model['qos']
    service: dict[str, Any] = {}
    system: dict[str, Any] = {'api': {'state': 'disabled'}}  # CL 5.6+ enables the REST API; the deploy uses SSH
    servers, domain = management['dns_servers'], management['dns_domain']
    if servers or domain:
        dns = {'server': _members(servers, **({'vrf': vrf} if words['system_services'] else {}))} if servers else {}
        dns.update({'search': _members([domain])} if domain else {})
        if words['system_services']:
            system['dns'] = dns
        else:
            service['dns'] = {vrf: dns}
    if management['ntp_servers']:
        if words['system_services']:
            system['ntp'] = {'server': _members(management['ntp_servers']), 'vrf': vrf}
        else:
            service['ntp'] = {vrf: {'server': _members(management['ntp_servers'])}}
    if management['syslog_servers']:
        if words['system_syslog']:
            system['syslog'] = {'server': _members(management['syslog_servers'], vrf=vrf)}
        else:
            service['syslog'] = {vrf: {'server': _members(management['syslog_servers'])}}
    if qos and any(item['link_role'] == 'host_leaf' for item in model['interfaces']):
        # The TLV's priority defaults to 0 (CL "Link Layer Discovery Protocol"): announce the RoCE priority.
        (system if words['system_services'] else service)['lldp'] = {'application-tlv': {'udp-port': {
            app['port']: {'priority': app['priority']} for app in qos['lldp_app_priorities']}}}
    return service, system


# The one file and its template: sections/ holds one template per top-level key, included in order.
FILE = 'startup.yaml'
TEMPLATE = 'nvue/startup.yaml.j2'


def render(model: SwitchModel, env: Environment) -> dict[str, str]:
    return {FILE: env.get_template(TEMPLATE).render(context(model))}


def context(model: SwitchModel) -> dict[str, Any]:
    """What the templates format: the model and the view derived from it (each section template renders alone
    from it)."""
    qos = model['qos']
    evpn = model['evpn']
    loopback = ['%s/32' % model['router_id']]
    if evpn and evpn['vtep_ip'] != model['router_id']:
        loopback.append('%s/32' % evpn['vtep_ip'])
    management = model['management']
    words = release_words(model['nos_release'])
    service, system = services(model, words, management['vrf'] or 'default')
    return {
        'm': model,
        'mgmt': management,
        'service_vrf': management['vrf'] or 'default',
        'service_block': nv_block(service, 6),
        'system_before': nv_block({key: value for key, value in system.items() if key < 'forwarding'}, 6),
        'system_after': nv_block({key: value for key, value in system.items() if key > 'hostname'}, 6),
        'user_roles': USER_ROLES,
        'bgp': model['bgp'],
        'evpn': evpn,
        'interfaces': model['interfaces'],
        'domain': DOMAIN,
        'profile': PROFILE,
        'loopback': loopback,
        'q': quote,
        's': words,
        'congestion_profile': congestion_profile,
        'pfc_profile': pfc_profile,
        'bfd_profile': BFD_PROFILE,
        'ecmp_hash': ecmp_hash(model['ecmp']),
        'qos': qos_view(qos, model['interfaces'], model['buffer']) if qos else None,
        'svis': [vlan for vlan in evpn['vlans'] if vlan['vrf'] and vlan['gateway']] if evpn else [],
        'tenant_vrfs': sorted(evpn['vrfs'], key=lambda vrf: vrf['name']) if evpn else [],
        'breakouts': breakouts(model['interfaces']),
    }
