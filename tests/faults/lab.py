# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The faults of the lab's clab_faults scenario, as JSON: the regression set (the eleven faults the scenario has
always made, now placed by the generator's kinds) and faults drawn by the generator with a seed, packed into rounds
of faults on disjoint devices. Each fault carries the commands that make and undo it on the lab's nodes and what
validation must name first (the cause's kind on the fault's device, and for the regression set its title).

    python -m tests.faults.lab --intent fabrics/lab.yml --seed 7 --extra 3
    python -m tests.faults.lab --intent ... --seed 7 --rounds 5 --per-round 3 --no-regression   (a campaign)

Run from the collection root (the scenario does). The seed is printed on standard error and kept in the output.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time

from tests.unit.utils.paths import ROOT


def _import_path():
    collections = os.path.join(ROOT, '.ansible', 'collections')
    parts = ROOT.split(os.sep)
    base = os.sep.join(parts[:-3]) if parts[-3:-2] == ['ansible_collections'] else collections
    for path in (base, ROOT):
        if path not in sys.path:
            sys.path.insert(0, path)


def regression(world, generator):
    """The eleven faults of the scenario before the generator, as (name, fault, title of the cause): spread over the
    design's leaves, spines and servers as they always were."""
    design = world.design
    leaves, spines, hosts = (design.device_names(role) for role in ('leaf', 'spine', 'host'))

    def pick(index):
        return leaves[index % len(leaves)]

    def model(name):
        return world.devices[name]['model']

    def uplinks(name):
        return [item for item in model(name)['interfaces'] if item.get('link_role') == 'leaf_spine']

    def host_ports(name):
        return [item for item in model(name)['interfaces'] if item.get('link_role') == 'host_leaf']

    def vlan(name):
        return model(name)['evpn']['vlans'][0]

    kinds = generator.KINDS
    items = []
    leaf = pick(0)
    port = uplinks(leaf)[0]['name']
    items.append(('link_down', kinds['port_down'].fault(world, {'device': leaf, 'port': port}),
                  '%s %s is admin down' % (leaf, port)))
    leaf = pick(1)
    items.append(('bgpd_stopped', kinds['bgpd_stopped'].fault(world, {'device': leaf}), '%s: bgpd is not running' % leaf))
    host = hosts[-1]
    rail = model(host)['rails'][0]['interface']
    items.append(('host_mtu', kinds['port_mtu'].fault(world, {'device': host, 'port': rail}),
                  '%s %s has MTU 1500, the design %d' % (host, rail, model(host)['mtu'])))
    leaf = pick(2)
    item = vlan(leaf)
    target = {'device': leaf, 'vni': item['vni'], 'vlan': item['vlan']}
    items.append(('wrong_route_target', kinds['route_target'].fault(world, target),
                  '%s VNI %d imports and exports route-target 64999:%d where the design has %s' % (
                      leaf, item['vni'], item['vni'], item['route_target'])))
    leaf = pick(3)
    item = vlan(leaf)
    other = 10999 if item['vni'] != 10999 else 10998
    items.append(('wrong_vni', kinds['vni_wrong'].fault(world, {'device': leaf, 'vni': item['vni'], 'vlan': item['vlan']}),
                  '%s carries VNI %d on vxlan%d where VNI %d (VLAN %d, %s) belongs' % (
                      leaf, other, item['vni'], item['vni'], item['vlan'], item['name'])))
    last = uplinks(leaf)[-1]
    items.append(('fabric_link_mtu', kinds['port_mtu'].fault(world, {'device': leaf, 'port': last['name']}),
                  '%s %s has MTU 1500, the design %d' % (leaf, last['name'], last['mtu'])))
    leaf = pick(0)
    port = host_ports(leaf)[0]['name']
    items.append(('host_port_down', kinds['port_down'].fault(world, {'device': leaf, 'port': port}),
                  '%s %s is admin down' % (leaf, port)))
    spine = spines[-1]
    items.append(('spine_bgpd_stopped', kinds['bgpd_stopped'].fault(world, {'device': spine}),
                  '%s: bgpd is not running' % spine))
    leaf = pick(1)
    ports = host_ports(leaf)
    items.append(('cables_swapped', kinds['cables_swapped'].fault(world, {'device': leaf, 'ports': [
        ports[0]['name'], ports[1]['name']]}), 'cables swapped: %s %s <-> %s (%s/%s)' % (
            leaf, ports[0]['name'], ports[1]['name'], ports[0]['peer'], ports[1]['peer'])))
    leaf = pick(2)
    items.append(('wrong_local_as', kinds['local_as'].fault(world, {'device': leaf}),
                  '%s runs local AS 65099 where the design has AS %s' % (leaf, model(leaf)['bgp']['asn'])))
    leaf = pick(0)
    items.append(('extra_vni', kinds['vni_extra'].fault(world, {'device': leaf}),
                  '%s carries VNI 99999, which the design does not have' % leaf))
    return items


def pack(faults):
    """First fit: each fault joins the first round whose faults' devices it does not touch."""
    rounds = []
    for fault in faults:
        for members in rounds:
            if not set(fault['scope']) & {device for member in members for device in member['scope']}:
                members.append(fault)
                break
        else:
            rounds.append([fault])
    return rounds


def plan(intent, seed, extra=0, rounds=0, per_round=3, with_regression=True, kinds=None):
    """The scenario's faults: [{name, round, kind, device, cause, drift, title, inject, undo, on, after_inject,
    after_undo, expect_title}]."""
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.lab import lab_names
    from tests.faults import generator
    from tests.faults.world import World

    design = design_from_file(intent)
    world = World(design)
    prefix = lab_names(design)['container_prefix']
    lab_kinds = sorted(name for name, kind in generator.KINDS.items() if kind.lab_ok and name in (kinds or generator.KINDS))
    packed = []
    if with_regression:
        packed = pack([generator.Fault(fault, name=name, expect_title=title)
                       for name, fault, title in regression(world, generator)])
    # drawn faults: first on the devices each regression round leaves free, then rounds of their own
    rng = random.Random(seed)
    drawn = 0
    for members in packed:
        if drawn >= extra:
            break
        taken = {device for member in members for device in member['scope']}
        for fault in generator.generate(world, rng.randrange(2 ** 31), 1, per_round * 3, lab_kinds)[0]:
            if drawn < extra and not set(fault['scope']) & taken:
                members.append(generator.Fault(fault, name='drawn-%s-%s' % (fault['kind'], fault['device'])))
                taken |= set(fault['scope'])
                drawn += 1
    for faults in generator.generate(world, rng.randrange(2 ** 31), rounds, per_round, lab_kinds):
        packed.append([generator.Fault(fault, name='drawn-%s-%s' % (fault['kind'], fault['device'])) for fault in faults])
    out = []
    for number, members in enumerate(packed, 1):
        for fault in members:
            steps = generator.lab_steps(world, fault, prefix + fault['device'])
            out.append(dict(fault, round=number, title=fault.get('expect_title') or fault.title,
                            expect_title=fault.get('expect_title', ''), **steps))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--intent', required=True)
    parser.add_argument('--seed', type=int, default=None, help='default: AIFABRIC_FAULTS_SEED, else the time')
    parser.add_argument('--extra', type=int, default=0, help='drawn faults on the regression rounds\' free devices')
    parser.add_argument('--rounds', type=int, default=0, help='rounds of drawn faults of their own')
    parser.add_argument('--per-round', type=int, default=3)
    parser.add_argument('--no-regression', action='store_true')
    parser.add_argument('--kinds', default='', help='only these kinds (comma separated)')
    args = parser.parse_args(argv)
    _import_path()
    seed = args.seed if args.seed is not None else int(os.environ.get('AIFABRIC_FAULTS_SEED') or time.time())
    print('fault generator seed: %d (replay: AIFABRIC_FAULTS_SEED=%d)' % (seed, seed), file=sys.stderr)
    faults = plan(os.path.join(ROOT, args.intent) if not os.path.isabs(args.intent) else args.intent, seed,
                  args.extra, args.rounds, args.per_round, not args.no_regression,
                  [name for name in args.kinds.split(',') if name] or None)
    json.dump({'seed': seed, 'faults': faults}, sys.stdout)
    return 0


if __name__ == '__main__':
    sys.exit(main())
