# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The switch hardware part of the design: each switch's platform, model and ASIC checked against each other and
against the links it carries, and every switch port named the NOS's way from its model (breakout, lanes, FEC)."""

from __future__ import annotations

from ..asic import get_asic
from ..platforms import PLATFORMS, get_platform
from ..switch_models import get_model, load_models, physical_port, port_cage


def hardware_path(intent, node, key):
    """Where the intent sets `key` (platform, model, asic) of `node`: its device override, else its role's entry."""
    override = intent['topology']['devices'].get(node.name, {})
    return ['topology', 'devices', node.name, key] if key in override else ['topology', key, node.role]


def check_devices(intent, topology, switches, issues):
    """Device overrides that name no device or do not apply, and every switch's platform, model and ASIC."""
    for name, override in intent['topology']['devices'].items():
        node = topology.nodes.get(name)
        if node is None:
            issues.add(['topology', 'devices', name], override, 'is not a device of this fabric')
        elif node.role == 'host' and set(override) & {'platform', 'asic', 'model', 'nos_release'}:
            issues.add(['topology', 'devices', name], override,
                       'platform, model, asic and nos_release apply to switches only')
        elif node.role != 'host' and 'nos_release' in override:
            platform = get_platform(node.platform)
            if override['nos_release'] not in platform.releases:
                issues.add(['topology', 'devices', name, 'nos_release'], override['nos_release'],
                           'is not a supported %s release (supported: %s)'
                           % (platform.title, ', '.join(platform.releases)))
    models = load_models()
    reported = set()
    for node in switches:
        problem = hardware_problem(intent, node, models)
        if problem and (tuple(problem[0]), problem[1]) not in reported:
            reported.add((tuple(problem[0]), problem[1]))
            issues.add(*problem)
    if intent['underlay']['ecmp']['adaptive_routing']:
        lacking = sorted({node.model or node.platform for node in switches
                          if not get_platform(node.platform).adaptive_routing
                          or not (node.model and models[node.model].adaptive_routing)})
        if lacking:
            capable = sorted(name for name, model in models.items() if model.adaptive_routing)
            issues.add('underlay.ecmp.adaptive_routing', True,
                       'needs switches that do adaptive routing (%s, on %s); not available on: %s'
                       % (', '.join(capable), ', '.join(sorted(name for name, platform in PLATFORMS.items()
                                                               if platform.adaptive_routing)), ', '.join(lacking)))
    if not topology.by_role('leaf'):
        issues.add('topology', None, 'the fabric has no leaves')


def hardware_problem(intent, node, models):
    """(path, value, message) of the first thing wrong with a switch's platform/model/ASIC, or None."""
    platform = get_platform(node.platform)
    if node.model is None:
        if platform.uses_models:
            runs = sorted(name for name, model in models.items() if node.platform in model.nos)
            return (hardware_path(intent, node, 'asic'), node.asic,
                    'no shipped switch model runs %s with this ASIC; name one in topology.model (models for %s: %s)'
                    % (node.platform, node.platform, ', '.join(runs)))
        return None
    model = models[node.model]
    if node.platform not in model.nos:
        return (hardware_path(intent, node, 'model'), node.model,
                '%s runs %s, not %s' % (model.title, ', '.join(model.nos), node.platform))
    if node.asic != model.asic:
        same = sorted(name for name, other in models.items() if other.asic == node.asic and node.platform in other.nos)
        return (hardware_path(intent, node, 'asic'), node.asic,
                'contradicts model %s (%s); drop the asic or pick a %s model (%s)'
                % (node.model, model.asic, node.asic, ', '.join(same) or 'none shipped'))
    asic = get_asic(node.asic)
    for speed in sorted({link.speed_gbps for link in node.links}):
        if model.mode(speed) is None:
            return (hardware_path(intent, node, 'model'), node.model,
                    '%s cannot run %dG ports (speeds: %s; on %s)'
                    % (model.title, speed, ', '.join('%dG' % item for item in model.speeds()), node.name))
        if platform.lossless_dataplane and not asic.supports_speed(speed, model.headroom_lookup):
            return (hardware_path(intent, node, 'asic'), node.asic,
                    'no headroom data for %s at %dG (%s; on %s): lossless buffers cannot be sized'
                    % (node.asic, speed, asic.source, node.name))
    if platform.lossless_dataplane and platform.sku_buffers and platform.sku_buffers(model) is None:
        return (hardware_path(intent, node, 'model'), node.model, 'has no %s SKU data (its buffer pools and port map)'
                % platform.label)
    return None


def assign_ports(intent, switches, issues) -> dict:
    """{switch: {link index: physical port}}: name, lanes, breakout and FEC of every switch port from its model (lab
    platforms: prefix + number).

    Topology port p at speed s sits on cage (p - 1) // ports_per_cage + 1 of the model's front panel (port
    numbers count ports of that speed, so an 800G uplink and a 400G host port may share a number); a cage runs
    one breakout mode, carries one link per sub-port, and the front panel has model.port_count cages.
    """
    ports = {}
    layouts = {}  # switches with the same model and the same ports in use (every leaf, most spines) share one
    for node in switches:
        pattern = tuple((link.end(node)[0], link.speed_gbps) for link in node.links)
        key = (node.platform, node.model, pattern)
        layout = layouts.get(key) or layouts.setdefault(key, port_layout(node, pattern))
        infos, problem = layout
        if problem:
            issues.add(hardware_path(intent, node, 'model'), node.model, problem % {'switch': node.name})
        ports[node.name] = {link.index: info for link, info in zip(node.links, infos)}
    return ports


def port_layout(node, pattern):
    """([physical port of each (port number, speed) of `pattern`, up to the first problem], the problem or None,
    with %(switch)s for the switch's name)."""
    platform = get_platform(node.platform)
    model = get_model(node.model) if node.model else None
    infos, cage_mode, used_slots = [], {}, set()
    for number, speed in pattern:
        if model is None:
            infos.append({'name': '%s%d' % (platform.port_prefix, number), 'lanes': None, 'lane_ids': None,
                          'alias': None, 'fec': None, 'breakout': None, 'split': False, 'parent': None,
                          'cage': number, 'subport': 0})
            continue
        info = physical_port(platform.port_naming, model, number, speed)
        if info is None:
            return infos, ('%s has %d ports; %%(switch)s needs port %d (%dG, cage %d): more ports than the model '
                           'has; pick a bigger model, fewer servers per leaf or a higher oversubscription'
                           % (model.title, model.port_count, number, speed, port_cage(model, number, speed)))
        slot = (info['cage'], info['subport'])
        if slot in used_slots:
            return infos, 'cage %d sub-port %d of %%(switch)s carries two links' % slot
        used_slots.add(slot)
        other = cage_mode.setdefault(info['cage'], info['breakout'])
        if other != info['breakout']:
            return infos, ('cage %d of %%(switch)s would need two breakout modes (%s and %s)'
                           % (info['cage'], other, info['breakout']))
        infos.append(info)
    return infos, None


def hardware_model(node):
    """What the switch is: the shipped model, and what its platform says of it (Platform.hardware_facts)."""
    if node.model is None:
        return None
    model = get_model(node.model)
    facts = get_platform(node.platform).hardware_facts
    return dict({'model': model.name, 'title': model.title, 'vendor': model.vendor, 'ports': model.port_count,
                 'vxlan_dscp_propagation': model.vxlan_dscp_propagation,
                 'vxlan_ecn_propagation': model.vxlan_ecn_propagation}, **(facts(model) if facts else {}))
