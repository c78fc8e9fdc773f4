# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""People-facing fabric documentation: cabling plan, addressing, ASNs, devices, overlay and a topology picture.

Everything here formats what the design already decided (links, ports, addresses, ASNs, budgets); the Markdown
layout lives in templates/docs/. `fabric_docs(design)` yields (relative path, text) one document at a time and
`device_page(design, model)` gives the page of one device, so a caller can stream and write as it goes.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import io
import ipaddress
import json
import os
import re
from collections import Counter

from .design import ROLE_LABEL
from .platforms import get_platform
from .environment import environment
from .terms import SWITCH_ROLES, TOP_DOWN

FABRIC_DOCS = ('index.md', 'cabling.md', 'cabling.csv', 'addressing.md', 'asn.md', 'devices.md', 'overlay.md',
               'topology.svg')
MAX_NODES_PER_TIER = 16
DOCUMENTS_KEY = 'documents_key'  # manifest meta: documents_key() of the generation's docs
TIER_ROLES = TOP_DOWN
TIER_LABEL = {'super_spine': 'super-spines', 'spine': 'spines', 'leaf': 'leaves', 'host': 'GPU servers'}
LINK_LABEL = {'host_leaf': 'server - leaf', 'leaf_spine': 'leaf - spine', 'spine_super_spine': 'spine - super-spine'}
CABLING_COLUMNS = ('link', 'link_role', 'rail', 'a_device', 'a_role', 'a_interface', 'a_port',
                   'b_device', 'b_role', 'b_interface', 'b_port', 'speed_gbps', 'cable_length_m')
# Rail colours: distinguishable on white, cycled beyond 16 rails.
RAIL_COLOURS = ('#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#17becf',
                '#bcbd22', '#7f7f7f', '#393b79', '#637939', '#8c6d31', '#843c39', '#7b4173', '#3182bd')
ROLE_FILL = {'super_spine': '#263238', 'spine': '#455a64', 'leaf': '#78909c', 'host': '#eceff1'}
LINK_STROKE = {'leaf_spine': '#90a4ae', 'spine_super_spine': '#b0bec5'}
NODE_W, NODE_H, SLOT_W, ROW_H, MARGIN = 64, 26, 72, 130, 40


def rail_colour(rail) -> str:
    return RAIL_COLOURS[rail % len(RAIL_COLOURS)]


def _n(value) -> str:
    """Thousands separators for counts and byte sizes."""
    return '{:,}'.format(value)


def _cell(value) -> str:
    return '-' if value is None or value == '' else str(value)


def _ratio(value) -> str:
    text = ('%.2f' % value).rstrip('0').rstrip('.')
    return '%s:1' % text


def _table(headers, rows) -> str:
    """A Markdown table; `rows` hold ready-made cell strings (Python does this: per-cell Jinja is slow at scale)."""
    lines = ['| %s |' % ' | '.join(headers), '|%s' % ('---|' * len(headers))]
    lines.extend('| %s |' % ' | '.join(row) for row in rows)
    return '\n'.join(lines) + '\n'


# A line that stands for a table (it starts with '|', like the table) while a page is tidied.
_TABLE_MARK = '|\x00table %d'
_TABLE_MARKS = re.compile('^\\|\x00table ([0-9]+)$', re.MULTILINE)


def _render(template, **context) -> str:
    """Render templates/docs/<template> and tidy the Markdown: one blank line around headings and tables.
    Tables (thousands of lines in a large fabric's cabling or addressing) are tidy as made: the page is tidied
    with one marker line for each, then they take the markers' places."""
    tables = []

    def table(headers, rows):
        tables.append(_table(headers, rows)[:-1])
        return _TABLE_MARK % (len(tables) - 1) + '\n'  # a table ends with a new line, like _table's
    text = _tidy(environment().get_template('docs/%s' % template).render(table=table, **context))
    if tables:
        text = _TABLE_MARKS.sub(lambda match: tables[int(match.group(1))], text)
    return text


def _tidy(text) -> str:
    lines = []
    for line in text.split('\n'):
        stripped = line.strip()
        previous = lines[-1] if lines else ''
        if stripped == '':
            if previous != '':
                lines.append('')
            continue
        starts_block = stripped.startswith('#') or (stripped.startswith('|') and not previous.startswith('|'))
        ends_table = previous.startswith('|') and not stripped.startswith('|')
        if lines and previous != '' and (starts_block or ends_table or previous.startswith('#')):
            lines.append('')
        lines.append(line.rstrip())
    while lines and lines[-1] == '':
        lines.pop()
    return '\n'.join(lines) + '\n'


# ----------------------------------------------------------------------------------------- cabling
def cabling_rows(design):
    """One dict per link, lower tier as end A: both ends with interface names and ports, speed, length, rail.

    `rail` is the NIC rail for server links and the leaf's rail for leaf-spine links (empty when the leaf serves
    several rails, and for spine - super-spine links).
    """
    name_of = design.interface_name
    for link in design.links:
        lower, upper = link.lower, link.upper
        rail = link.rail if link.role == 'host_leaf' else (lower.rail if lower.role == 'leaf' else None)
        yield {
            'link': link.index + 1,
            'link_role': link.role,
            'rail': rail,
            'a_device': lower.name,
            'a_role': lower.role,
            'a_interface': name_of(lower, link),
            'a_port': link.lower_port,
            'b_device': upper.name,
            'b_role': upper.role,
            'b_interface': name_of(upper, link),
            'b_port': link.upper_port,
            'speed_gbps': link.speed_gbps,
            'cable_length_m': link.cable_length_m,
        }


def cabling_csv(design) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator='\n')
    writer.writerow(CABLING_COLUMNS)
    for row in cabling_rows(design):
        writer.writerow(['' if row[key] is None else row[key] for key in CABLING_COLUMNS])
    return buffer.getvalue()


def cabling_md(design) -> str:
    sections = {}
    for row in cabling_rows(design):
        sections.setdefault(row['link_role'], []).append(
            (str(row['link']), '%s %s' % (row['a_device'], row['a_interface']), str(row['a_port']),
             '%s %s' % (row['b_device'], row['b_interface']), str(row['b_port']),
             '%dG' % row['speed_gbps'], '%d m' % row['cable_length_m'], _cell(row['rail'])))
    totals = Counter((link.role, link.speed_gbps, link.cable_length_m) for link in design.links)
    bill = [(LINK_LABEL[role], '%dG' % speed, '%d m' % length, _n(count))
            for (role, speed, length), count in sorted(totals.items(), key=lambda item: (_role_order(item[0][0]), item[0]))]
    ordered = [(LINK_LABEL[role], sections[role]) for role in ('host_leaf', 'leaf_spine', 'spine_super_spine')
               if role in sections]
    return _render('cabling.md.j2', name=design.name, links=_n(len(design.links)), bill=bill,
                   sections=ordered)


def _role_order(role):
    return ('host_leaf', 'leaf_spine', 'spine_super_spine').index(role)


# ----------------------------------------------------------------------------------------- addressing
def _pool_rows(design):
    intent = design.intent
    pools = intent['underlay']['pools']
    switches = design.switches()
    leaves = [node for node in switches if node.role == 'leaf']
    fabric_links = sum(1 for link in design.links if link.role != 'host_leaf')
    host_links = len(design.links) - fabric_links
    rows = [('underlay.pools.loopback', pools['loopback'], 'router-ID loopback /32 per switch', len(switches)),
            ('underlay.pools.vtep', pools['vtep'], 'VTEP /32 per leaf', len(leaves))]
    if intent['underlay']['routing'] == 'ebgp_numbered':
        rows.append(('underlay.pools.p2p', pools['p2p'], '/31 per fabric link', 2 * fabric_links))
    if intent['hosts']['attachment'] == 'routed':
        rows.append(('underlay.pools.host_p2p', pools['host_p2p'], '/31 per server NIC', 2 * host_links))
    hosts = len(design.hosts())
    for index, network in enumerate(design.networks):
        if network['rails']:
            rows.append(('overlay.networks[%d].subnet' % index, network['subnet'],
                         '%s: rail %s server NICs' % (network['name'], ', '.join(str(rail) for rail in network['rails'])),
                         hosts * len([rail for rail in network['rails'] if rail < design.topology.rails])))
    if intent['management']['pool']:
        rows.append(('management.pool', intent['management']['pool'], 'management address per device',
                     len(design.management_ip)))
    return [(path, network, use, _n(used), _n(ipaddress.IPv4Network(network).num_addresses))
            for path, network, use, used in rows]


def host_address_rows(model) -> list:
    """Addressing rows of one GPU server model."""
    return [(model['name'], str(rail['rail']), rail['interface'], rail['address'], _cell(rail['gateway']),
             '%s %s' % (rail['leaf'], rail['leaf_interface']),
             _cell(rail['network']) + ('' if rail['vlan'] is None else ' (VLAN %d)' % rail['vlan']))
            for rail in model['rails']]


def addressing_md(design) -> str:
    """Pools, loopbacks, fabric /31s and server rail addresses."""
    numbered = design.intent['underlay']['routing'] == 'ebgp_numbered'
    loopbacks = [(node.name, ROLE_LABEL[node.role], '%s/32' % design.router_id[node.name],
                  '%s/32' % design.vtep[node.name] if node.name in design.vtep else '-',
                  _cell(design.management_ip.get(node.name))) for node in design.switches()]
    fabric = []
    if numbered:
        for link in design.links:
            if link.role == 'host_leaf':
                continue
            lower_ip, upper_ip, prefix = design.link_ip[link.index]
            fabric.append((str(link.index + 1),
                           '%s %s' % (link.lower.name, design.interface_name(link.lower, link)), '%s/%d' % (lower_ip, prefix),
                           '%s %s' % (link.upper.name, design.interface_name(link.upper, link)), '%s/%d' % (upper_ip, prefix)))
    hosts = []
    host_management = []
    for node in design.hosts():
        if design.management_ip.get(node.name):
            host_management.append((node.name, design.management_ip[node.name]))
        hosts.extend(host_address_rows(design.device(node.name)))
    return _render(
        'addressing.md.j2',
        name=design.name, pools=_pool_rows(design), loopbacks=loopbacks, numbered=numbered, fabric=fabric,
        hosts=hosts, host_management=host_management, attachment=design.intent['hosts']['attachment'])


# ----------------------------------------------------------------------------------------- ASNs
def asn_md(design) -> str:
    spec = design.intent['underlay']['asn']
    peers = Counter()
    for link in design.links:
        if link.role != 'host_leaf':
            peers[link.lower.name] += 1
            peers[link.upper.name] += 1
    order = {'super_spine': 0, 'spine': 1, 'leaf': 2}
    switches = sorted(design.switches(), key=lambda node: (order[node.role], node.index))
    rows = [(node.name, ROLE_LABEL[node.role], _cell(node.pod if node.role != 'super_spine' else None),
             str(design.asn[node.name]), design.router_id[node.name], str(peers[node.name])) for node in switches]
    pods = design.topology.pods
    scheme = []
    if design.topology.by_role('super_spine'):
        scheme.append(('super-spines', str(spec['super_spine'])))
    scheme.append(('spines', str(spec['spine']) if pods == 1 else '%d-%d (pod p: %d + p - 1)'
                   % (spec['spine'], spec['spine'] + pods - 1, spec['spine'])))
    leaves = design.topology.by_role('leaf')
    scheme.append(('leaves', '%d-%d (one per leaf; range %d-%d)' % (
        design.asn[leaves[0].name], design.asn[leaves[-1].name], spec['leaf_first'], spec['leaf_last'])))
    return _render('asn.md.j2', name=design.name, scheme=scheme, rows=rows,
                   numbered=design.intent['underlay']['routing'] == 'ebgp_numbered')


# ----------------------------------------------------------------------------------------- devices
def _ports(node) -> str:
    counts = Counter(('up' if link.lower is node else 'down', link.speed_gbps) for link in node.links)
    if node.role == 'host':
        return ', '.join('%dx%dG rails' % (count, speed) for (_unused, speed), count in sorted(counts.items()))
    parts = []
    for direction in ('down', 'up'):
        parts.extend('%dx%dG %s' % (count, speed, direction) for (where, speed), count in sorted(counts.items())
                     if where == direction)
    return ', '.join(parts)


def lossless_text(design, platform_name=None) -> str:
    """One-line lossless profile; `platform_name` None means a GPU server."""
    profile = design.lossless
    priorities = ','.join(str(priority) for priority in profile['lossless_priorities'])
    if platform_name is None:
        return 'RNIC trust DSCP, PFC %s, DSCP %d, ECN/DCQCN' % (priorities, profile['roce_dscp'])
    platform = get_platform(platform_name)
    if not platform.lossless_dataplane:
        return 'none (no lossless data plane on %s)' % platform.name
    text = 'PFC %s, ECN, CNP strict TC%d' % (priorities, profile['cnp_priority'])
    if profile['watchdog']['enabled']:
        text += ', watchdog %s' % profile['watchdog']['action']
    return text


def _budget_text(budget) -> str:
    """Lossless headroom against the buffer that holds it (the shared headroom pool, or what a SKU's total
    leaves beside its ingress pools)."""
    if not budget:
        return '-'
    room = budget.get('headroom_room_bytes') or budget['pool_bytes']
    return '%s / %s B (%.1f%%)' % (_n(budget['headroom_bytes']), _n(room), 100.0 * budget['headroom_bytes'] / room)


def devices_md(design) -> str:
    rows = []
    for node in design.nodes.values():
        host = node.role == 'host'
        rows.append(('[%s](devices/%s.md)' % (node.name, node.name), ROLE_LABEL[node.role],
                     'linux' if host else node.platform, _cell(node.asic), _cell(node.pod or None),
                     _cell(node.rail), _cell(design.asn.get(node.name)), _cell(design.router_id.get(node.name)),
                     _cell(design.management_ip.get(node.name)), _ports(node),
                     lossless_text(design, None if host else node.platform),
                     _budget_text(design.buffer_budget.get(node.name))))
    return _render('devices.md.j2', name=design.name, rows=rows)


def device_page(design, model, files=()) -> tuple:
    """('devices/<name>.md', text) for one device model; `files` are its configuration file names."""
    name = model['name']
    if model['role'] == 'host':
        return 'devices/%s.md' % name, _host_page(design, model, files)
    return 'devices/%s.md' % name, _switch_page(design, model, files)


def _switch_page(design, model, files):
    name = model['name']
    facts = [('Role', ROLE_LABEL[model['role']]), ('Platform', get_platform(model['platform']).title),
             ('Model', _cell((model['hardware'] or {}).get('title'))), ('ASIC', _cell(model['asic'])),
             ('Pod', _cell(model['pod'] if model['role'] != 'super_spine' else None)),
             ('Rail', _cell(model['rail'])), ('ASN', str(model['asn'])), ('Router ID', model['router_id']),
             ('VTEP', _cell(design.vtep.get(name))), ('Management', _cell(model['management_ip'])),
             ('MTU', str(model['mtu'])), ('Lossless profile', lossless_text(design, model['platform'])),
             ('Headroom / pool', _budget_text(design.buffer_budget.get(name)))]
    interfaces = [(item['name'], item['direction'], '%s %s' % (item['peer'], item['peer_interface']),
                   '%dG' % item['speed_gbps'], '%d m' % item['cable_length_m'],
                   item['mode'] + ('' if item['access_vlan'] is None else ' VLAN %d' % item['access_vlan']),
                   _cell(item['ipv4']), _cell(item['rail']), _cell(item.get('buffer_profile')))
                  for item in model['interfaces']]
    bgp = model['bgp']
    neighbors = [(item['peer'], item['interface'], _cell(item['ip']), str(item['remote_asn']), item['direction'])
                 for item in bgp['neighbors']]
    evpn = model['evpn']
    vlans = vrfs = ()
    if evpn:
        vlans = [(vlan['name'], str(vlan['vlan']), str(vlan['vni']), vlan['subnet'], _cell(vlan['vrf']),
                  _cell(vlan['gateway']), vlan['route_target'], ', '.join(vlan['ports']) or '-') for vlan in evpn['vlans']]
        vrfs = [(vrf['name'], str(vrf['l3vni']), str(vrf['vlan']), vrf['route_target']) for vrf in evpn['vrfs']]
    buffer = model.get('buffer')
    profiles = [(item['name'], '%dG' % item['speed_gbps'], '%d m' % item['cable_length_m'], _n(item['xon']),
                 _n(item['xoff']), _n(item['size'])) for item in (buffer or {}).get('profiles', ())]
    return _render('device_switch.md.j2', m=model, files=list(files), facts=facts, interfaces=interfaces,
                   neighbors=neighbors, vlans=vlans, vrfs=vrfs, buffer=buffer, profiles=profiles,
                   pool=_n(buffer['pool_bytes']) if buffer else None,
                   headroom=_n(buffer['headroom_bytes']) if buffer else None)


def _host_page(design, model, files):
    facts = [('Role', 'GPU server'), ('Pod', str(model['pod'])), ('Server group', _cell(model['group'])),
             ('GPUs', str(model['gpus'])), ('GPUDirect RDMA', model['gpudirect']),
             ('Management', _cell(model['management_ip'])), ('Rail attachment', model['attachment']),
             ('MTU', str(model['mtu'])), ('Lossless profile', lossless_text(design))]
    rails = [(str(rail['rail']), rail['interface'], rail['rdma_device'], '%dG' % rail['speed_gbps'],
              '%s %s' % (rail['leaf'], rail['leaf_interface']), rail['address'], _cell(rail['gateway']),
              '%s (VLAN %d)' % (rail['network'], rail['vlan']) if rail['network'] else '-', str(rail['table']))
             for rail in model['rails']]
    nccl = [('`%s`' % key, '`%s`' % value) for key, value in model['nccl'].items()]
    return _render('device_host.md.j2', m=model, files=list(files), facts=facts, rails=rails, nccl=nccl)


# ----------------------------------------------------------------------------------------- overlay
def overlay_md(design) -> str:
    overlay = design.intent['overlay']
    vrfs = [(vrf['name'], str(vrf['l3vni']), str(vrf['vlan']), vrf['route_target']) for vrf in design.vrfs]
    networks = [(net['name'], str(net['vlan']), str(net['vni']), net['subnet'], _cell(net['vrf']), _cell(net['gateway']),
                 ', '.join(str(rail) for rail in net['rails']) or '-', net['route_target']) for net in design.networks]
    return _render('overlay.md.j2', name=design.name, vrfs=vrfs, networks=networks,
                   rt_asn=overlay['route_target_asn'], l2vni_base=overlay['l2vni_base'],
                   attachment=design.intent['hosts']['attachment'])


# ----------------------------------------------------------------------------------------- index
def index_md(design, device_pages=True) -> str:
    summary = design.summary()
    topology = design.topology
    speeds = Counter((link.role, link.speed_gbps) for link in design.links)
    facts = [
        ('GPUs', _n(summary['gpus'])),
        ('GPU servers', '%s (%d GPUs, %d rails each)' % (_n(summary['hosts']), topology.gpus_per_server, summary['rails'])),
        ('Leaves', _n(summary['leaves'])),
        ('Spines', _n(summary['spines']) + (' (%s per pod)' % _n(summary['spines'] // summary['pods'])
                                            if summary['pods'] > 1 else '')
         + (', %d links per leaf-spine pair' % summary['links_per_leaf_spine']
            if summary['links_per_leaf_spine'] > 1 else '')),
    ]
    if summary['super_spines']:
        facts.append(('Super-spines', _n(summary['super_spines'])))
    facts.extend([
        ('Tiers', '%d%s' % (summary['tiers'], ' (%d pods)' % summary['pods'] if summary['pods'] > 1 else '')),
        ('Rails', str(summary['rails'])),
    ])
    if summary['leaf_downlinks']:
        facts.append(('Leaf ports', '%d down, %d up' % (summary['leaf_downlinks'], summary['leaf_uplinks'])))
    facts.extend([
        ('Oversubscription', _ratio(summary['oversubscription'])),
        ('Links', '%s (%s)' % (_n(summary['links']), ', '.join(
            '%s %s x %dG' % (LINK_LABEL[role], _n(count), speed)
            for (role, speed), count in sorted(speeds.items(), key=lambda item: (_role_order(item[0][0]), item[0][1]))))),
        ('Platforms', ', '.join('%s: %s' % (name, _n(count)) for name, count in sorted(summary['platforms'].items()))),
        ('Switch models', ', '.join('%s: %s' % (name, _n(count)) for name, count in sorted(summary['models'].items()))
         or '-'),
        ('Underlay', {'ebgp_numbered': 'eBGP on /31 links', 'ebgp_unnumbered': 'unnumbered eBGP (RFC 5549)'}[
            design.intent['underlay']['routing']]),
        ('Server attachment', {'evpn': 'EVPN-VXLAN network per rail', 'routed': '/31 per NIC'}[
            design.intent['hosts']['attachment']]),
    ])
    profile = design.lossless
    lossless = [
        ('RoCE', 'DSCP %d -> priority/TC %d (lossless)' % (profile['roce_dscp'], profile['roce_priority'])),
        ('CNP', 'DSCP %d -> TC %d (strict priority)' % (profile['cnp_dscp'], profile['cnp_priority'])),
        ('PFC priorities', ', '.join(str(priority) for priority in profile['lossless_priorities'])),
        ('ECN', '%s - %s bytes, %d%% marking' % (_n(profile['ecn']['min_threshold_bytes']),
                                                 _n(profile['ecn']['max_threshold_bytes']),
                                                 profile['ecn']['mark_probability_percent'])),
        ('PFC watchdog', ('%s after %d ms, restore %d ms, poll %d ms' % (
            profile['watchdog']['action'], profile['watchdog']['detection_ms'], profile['watchdog']['restoration_ms'],
            profile['watchdog']['poll_interval_ms'])) if profile['watchdog']['enabled'] else 'disabled'),
        ('Scheduler', 'lossless %d%%, lossy %d%% (DWRR)' % (profile['scheduler']['lossless_weight_percent'],
                                                            profile['scheduler']['lossy_weight_percent'])),
        ('MTU', 'switch %d, server %d' % (profile['mtu']['switch'], profile['mtu']['host'])),
    ]
    worst = {}
    for name, budget in design.buffer_budget.items():
        role = design.nodes[name].role
        share = budget['headroom_bytes'] / (budget.get('headroom_room_bytes') or budget['pool_bytes'])
        if role not in worst or share > worst[role][0]:
            worst[role] = (share, name, budget)
    buffers = [(ROLE_LABEL[role], worst[role][1], _budget_text(worst[role][2]))
               for role in SWITCH_ROLES if role in worst]
    return _render('index.md.j2', name=design.name, description=design.intent.get('description') or '',
                   facts=facts, lossless=lossless, buffers=buffers,
                   device_pages=device_pages)


# ----------------------------------------------------------------------------------------- topology picture
def svg_layout(design, max_nodes_per_tier=MAX_NODES_PER_TIER) -> list:
    """Tiers top to bottom: {'role', 'total', 'nodes' (drawn), 'hidden', 'split' (index of the summary box)}.

    A tier with more than `max_nodes_per_tier` devices shows its first and last devices around a summary box.
    """
    tiers = []
    for role in TIER_ROLES:
        nodes = design.topology.by_role(role)
        if not nodes:
            continue
        if len(nodes) <= max_nodes_per_tier:
            tiers.append({'role': role, 'total': len(nodes), 'nodes': nodes, 'hidden': 0, 'split': None})
            continue
        tail = max_nodes_per_tier // 2
        head = max_nodes_per_tier - tail
        tiers.append({'role': role, 'total': len(nodes), 'nodes': nodes[:head] + (nodes[-tail:] if tail else []),
                      'hidden': len(nodes) - max_nodes_per_tier, 'split': head})
    return tiers


def _xml(text) -> str:
    return str(text).replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;').replace('"', '&quot;')


def topology_svg(design, max_nodes_per_tier=MAX_NODES_PER_TIER) -> str:
    """The fabric as tiers of boxes; rails colour-coded; big tiers shown as first/last devices plus a summary."""
    tiers = svg_layout(design, max(1, max_nodes_per_tier))
    slots = max(len(tier['nodes']) + (1 if tier['hidden'] else 0) for tier in tiers)
    summary = design.summary()
    subtitle = '%s GPUs, %s servers, %s leaves, %s spines%s, %d tiers, %s oversubscription' % (
        _n(summary['gpus']), _n(summary['hosts']), _n(summary['leaves']), _n(summary['spines']),
        ', %s super-spines' % _n(summary['super_spines']) if summary['super_spines'] else '', summary['tiers'],
        _ratio(summary['oversubscription']))
    rails = design.topology.rails
    width = max(slots * SLOT_W + 2 * MARGIN, int(len(subtitle) * 6.2) + MARGIN, rails * 58 + 80 + MARGIN)
    top = MARGIN + 40
    height = top + (len(tiers) - 1) * ROW_H + NODE_H + 90
    position = {}
    boxes = []
    for row, tier in enumerate(tiers):
        count = len(tier['nodes']) + (1 if tier['hidden'] else 0)
        left = (width - count * SLOT_W) / 2 + (SLOT_W - NODE_W) / 2
        y = top + row * ROW_H
        slot = 0
        for index, node in enumerate(tier['nodes']):
            if tier['split'] is not None and index == tier['split']:
                boxes.append(('more', tier, left + slot * SLOT_W, y))
                slot += 1
            x = left + slot * SLOT_W
            position[node.name] = (x, y)
            boxes.append(('node', node, x, y))
            slot += 1
        if tier['split'] is not None and tier['split'] >= len(tier['nodes']):
            boxes.append(('more', tier, left + slot * SLOT_W, y))
        label = '%s: %s' % (TIER_LABEL[tier['role']], _n(tier['total']))
        if tier['hidden']:
            label += ' (showing %d)' % len(tier['nodes'])
        boxes.append(('label', label, MARGIN / 2, y - 8))

    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
           'font-family="Helvetica, Arial, sans-serif">' % (width, height, width, height),
           '<title>%s</title>' % _xml('Fabric %s topology' % design.name),
           '<rect width="100%" height="100%" fill="#ffffff"/>']
    out.append('<text x="%d" y="%d" font-size="15" font-weight="bold">%s</text>' % (
        MARGIN / 2, MARGIN - 16, _xml('Fabric %s' % design.name)))
    out.append('<text x="%d" y="%d" font-size="11" fill="#37474f">%s</text>' % (MARGIN / 2, MARGIN, _xml(subtitle)))
    # Links between drawn devices, one line per device pair.
    out.append('<g class="links" stroke-width="1" stroke-opacity="0.55">')
    seen = set()
    for link in design.links:
        lower, upper = position.get(link.lower.name), position.get(link.upper.name)
        if lower is None or upper is None or (link.lower.name, link.upper.name) in seen:
            continue
        seen.add((link.lower.name, link.upper.name))
        colour = rail_colour(link.rail) if link.role == 'host_leaf' else LINK_STROKE[link.role]
        out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>' % (
            lower[0] + NODE_W / 2, lower[1], upper[0] + NODE_W / 2, upper[1] + NODE_H, colour))
    out.append('</g>')
    for kind, item, x, y in boxes:
        if kind == 'label':
            out.append('<text class="tier" x="%.1f" y="%.1f" font-size="11" fill="#37474f">%s</text>' % (x, y, _xml(item)))
        elif kind == 'more':
            out.append('<g class="more"><rect x="%.1f" y="%.1f" width="%d" height="%d" rx="4" fill="#ffffff" '
                       'stroke="#90a4ae" stroke-dasharray="3,2"/><text x="%.1f" y="%.1f" font-size="9" '
                       'text-anchor="middle" fill="#37474f">+%s more</text></g>' % (
                           x, y, NODE_W, NODE_H, x + NODE_W / 2, y + NODE_H / 2 + 3, _n(item['hidden'])))
        else:
            out.append(_svg_node(item, x, y))
    legend_y = top + (len(tiers) - 1) * ROW_H + NODE_H + 40
    out.append('<g class="legend" font-size="10">')
    out.append('<text x="%d" y="%d" fill="#37474f">rails:</text>' % (MARGIN / 2, legend_y + 9))
    for rail in range(rails):
        x = MARGIN / 2 + 40 + rail * 58
        out.append('<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d">rail %d</text>'
                   % (x, legend_y, rail_colour(rail), x + 16, legend_y + 10, rail))
    out.append('</g>')
    out.append('</svg>')
    return '\n'.join(out) + '\n'


def _svg_node(node, x, y) -> str:
    if node.role == 'leaf' and node.rail is not None:
        fill, text_fill = rail_colour(node.rail), '#ffffff'
    elif node.role == 'host':
        fill, text_fill = ROLE_FILL['host'], '#263238'
    else:
        fill, text_fill = ROLE_FILL[node.role], '#ffffff'
    details = [ROLE_LABEL[node.role]]
    if node.rail is not None:
        details.append('rail %d' % node.rail)
    if node.role != 'super_spine':
        details.append('pod %d' % node.pod)
    if node.platform:
        details.append(node.platform)
    return ('<g class="node %s" id="node-%s"><title>%s</title><rect x="%.1f" y="%.1f" width="%d" height="%d" rx="4" '
            'fill="%s" stroke="#37474f" stroke-width="0.6"/><text x="%.1f" y="%.1f" font-size="9" text-anchor="middle" '
            'fill="%s">%s</text></g>' % (
                node.role, _xml(node.name), _xml('%s (%s)' % (node.name, ', '.join(details))), x, y, NODE_W, NODE_H,
                fill, x + NODE_W / 2, y + NODE_H / 2 + 3, text_fill, _xml(node.name)))


# ----------------------------------------------------------------------------------------- all fabric documents
def fabric_documents(design, max_nodes_per_tier=MAX_NODES_PER_TIER, device_pages=True) -> list:
    """[(relative path, make() -> text)] of every fabric-wide document, in FABRIC_DOCS order. Each is made from the
    design alone, so render workers make them side by side (render.render_into)."""
    return [
        ('index.md', functools.partial(index_md, design, device_pages)),
        ('cabling.md', functools.partial(cabling_md, design)),
        ('cabling.csv', functools.partial(cabling_csv, design)),
        ('addressing.md', functools.partial(addressing_md, design)),
        ('asn.md', functools.partial(asn_md, design)),
        ('devices.md', functools.partial(devices_md, design)),
        ('overlay.md', functools.partial(overlay_md, design)),
        ('topology.svg', functools.partial(topology_svg, design, max_nodes_per_tier)),
    ]


# What of an intent no fabric document shows: a device's NOS release changes that device's configuration and its own
# page, never the fabric's documents, so a render of that device carries them over unmade (test_docs.py proves it
# for every release of every platform, and fails the day a document shows one).
DOCUMENTS_IGNORE = ('nos_release',)  # in topology.devices.<device>


def documents_source(intent) -> str:
    """sha256 of `intent` (parsed) as the fabric documents read it: without the DOCUMENTS_IGNORE entries."""
    topology = intent.get('topology') if isinstance(intent, dict) else None
    if isinstance(topology, dict) and isinstance(topology.get('devices'), dict):
        kept = {}
        for name, override in topology['devices'].items():
            if isinstance(override, dict):
                override = {key: value for key, value in override.items() if key not in DOCUMENTS_IGNORE}
            if override != {}:  # an override of a release alone is as none
                kept[name] = override
        topology = {key: value for key, value in topology.items() if key != 'devices'}
        intent = dict(intent, topology=dict(topology, devices=kept) if kept else topology)
    return hashlib.sha256(json.dumps(intent, sort_keys=True, default=repr).encode()).hexdigest()


def documents_key(intent_digest, max_nodes_per_tier=MAX_NODES_PER_TIER) -> str:
    """What fabric_documents() are made from, as one digest: the intent (documents_source), the options, and the
    collection's code and data as installed (each file's path, size and modification time: an upgrade or an edit
    changes it). Equal keys make equal documents."""
    digest = hashlib.sha256(('%s %d %s\n' % (intent_digest, max_nodes_per_tier, ' '.join(FABRIC_DOCS))).encode())
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # plugins/plugin_utils
    for directory, children, files in os.walk(root):
        children[:] = sorted(child for child in children if child != '__pycache__')
        for name in sorted(files):
            path = os.path.join(directory, name)
            info = os.stat(path)
            digest.update(('%s %d %d\n' % (os.path.relpath(path, root), info.st_size, info.st_mtime_ns)).encode())
    return digest.hexdigest()


def fabric_docs(design, max_nodes_per_tier=MAX_NODES_PER_TIER, device_pages=True):
    """Yield (relative path, text) for every fabric-wide document, one at a time."""
    for relative, make in fabric_documents(design, max_nodes_per_tier, device_pages):
        yield relative, make()


__all__ = ['FABRIC_DOCS', 'CABLING_COLUMNS', 'DOCUMENTS_KEY', 'DOCUMENTS_IGNORE', 'documents_source', 'documents_key',
           'fabric_documents', 'fabric_docs',
           'device_page', 'cabling_rows', 'cabling_csv', 'cabling_md', 'addressing_md', 'host_address_rows', 'asn_md',
           'devices_md', 'overlay_md', 'index_md', 'svg_layout', 'topology_svg', 'rail_colour', 'lossless_text']
