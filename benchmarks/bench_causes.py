#!/usr/bin/env python
"""How often the root-cause engine names the right device and kind first, on faults drawn from the design.

    python benchmarks/bench_causes.py                        # 200 rounds x 3 faults on each fabric shape, seed 36
    python benchmarks/bench_causes.py --seed 7 --rounds 500 --per-round 4
    python benchmarks/bench_causes.py --shapes fabrics/lab.yml --kinds vtep_blackhole,marking

Each round draws `--per-round` faults on disjoint devices (tests/faults/generator.py: 26 kinds, any place the design
has for them), simulates what every device then shows (tests/faults/world.py; its agreement with the lab is measured
by benchmarks/lab_faults.py), runs every fabric, data-plane and drift check and the engine (checks/causes.py), and
judges (tests/faults/judge.py): the first cause blaming each fault's device must be of the fault's kind; a device
without a fault must never be blamed; a fault that changes what the deploy manages must show its drift. The target
of issue 36: at least 95 % right first, no healthy device blamed, every drift found.

The FRR shapes are the platform of the lab. The vendor shapes (EOS, SONiC, NVUE) are given apart: their state is
simulated, each leaf's routes printed as its NOS prints them and read back through its parser (tests/doubles/routes.py),
with no lab to measure the simulation against. Prints a table per kind and shape; writes
benchmarks/results/causes.json.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import _common  # noqa: E402  pylint: disable=wrong-import-position

FRR_SHAPES = ['fabrics/lab.yml', 'tests/unit/fixtures/state/captured/intent.yml',
              'tests/unit/fixtures/intents/frr_unnumbered.yml', 'tests/unit/fixtures/intents/frr_vrf.yml',
              'tests/unit/fixtures/intents/frr_routed.yml', 'tests/unit/fixtures/intents/shape2.yml']
VENDOR_SHAPES = ['tests/unit/fixtures/intents/eos_small.yml', 'tests/unit/fixtures/intents/sonic_small.yml',
                 'tests/unit/fixtures/intents/nvue_unnumbered.yml']


def measure(path, seed, rounds, per_round, kinds):
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
    from tests.faults import generator
    from tests.faults.judge import judge, simulate
    from tests.faults.world import World

    design = design_from_file(os.path.join(_common.ROOT, path))
    world = World(design)
    started = time.process_time()
    per_kind = collections.defaultdict(lambda: [0, 0])
    healthy, unplaced, drift, misses = 0, 0, [0, 0], []
    for faults in generator.generate(world, seed, rounds, per_round, kinds):
        _results, found = simulate(design, faults)
        verdict = judge(faults, found)
        healthy += len(verdict['healthy_blamed'])
        unplaced += len(verdict['unplaced'])
        for item in verdict['faults']:
            per_kind[item['fault']['kind']][0] += item['right']
            per_kind[item['fault']['kind']][1] += 1
            if item['drift_found'] is not None:
                drift[0] += item['drift_found']
                drift[1] += 1
            if not item['right']:
                misses.append('%s -> %s' % (item['fault'].title, item['title']))
    right = sum(value[0] for value in per_kind.values())
    total = sum(value[1] for value in per_kind.values())
    return {'shape': path, 'faults': total, 'right': right, 'healthy_blamed': healthy, 'unplaced': unplaced,
            'drift_found': drift,
            'per_kind': dict(per_kind), 'misses': misses[:20], 'cpu_s': round(time.process_time() - started, 1)}


def _percent(right, total):
    return '%.1f %%' % (100.0 * right / total) if total else '-'


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--seed', type=int, default=36)
    parser.add_argument('--rounds', type=int, default=200, help='rounds per fabric shape')
    parser.add_argument('--per-round', type=int, default=3)
    parser.add_argument('--shapes', default='', help='intent paths (comma separated); default: the FRR and vendor shapes')
    parser.add_argument('--kinds', default='')
    parser.add_argument('--out', default=os.path.join(HERE, 'results', 'causes.json'))
    args = parser.parse_args(argv)
    _common.import_path()
    sys.path.insert(0, _common.ROOT)
    kinds = [name for name in args.kinds.split(',') if name] or None
    shapes = [name for name in args.shapes.split(',') if name] or FRR_SHAPES + VENDOR_SHAPES
    print('python benchmarks/bench_causes.py --seed %d --rounds %d --per-round %d%s  (load %s)' % (
        args.seed, args.rounds, args.per_round, ' --kinds %s' % args.kinds if kinds else '',
        ' '.join('%.2f' % value for value in os.getloadavg())), flush=True)
    figures = [measure(path, args.seed, args.rounds, args.per_round, kinds) for path in shapes]
    print('\n| fabric | faults | right first | healthy devices blamed | causes blaming nobody | drift found | CPU s |')
    print('|---|---|---|---|---|---|---|')
    for item in figures:
        print('| %s | %d | %d (%s) | %d | %d | %d of %d | %.1f |' % (
            item['shape'], item['faults'], item['right'], _percent(item['right'], item['faults']),
            item['healthy_blamed'], item['unplaced'], item['drift_found'][0], item['drift_found'][1], item['cpu_s']))
    groups = {'FRR (the lab\'s platform)': [item for item in figures if item['shape'] not in VENDOR_SHAPES],
              'EOS, SONiC, NVUE': [item for item in figures if item['shape'] in VENDOR_SHAPES]}
    summary = {}
    for name, items in groups.items():
        if not items:
            continue
        right, total = sum(item['right'] for item in items), sum(item['faults'] for item in items)
        summary[name] = {'faults': total, 'right': right, 'percent': round(100.0 * right / total, 1) if total else None,
                         'healthy_blamed': sum(item['healthy_blamed'] for item in items),
                         'unplaced': sum(item['unplaced'] for item in items),
                         'drift_found': [sum(item['drift_found'][0] for item in items),
                                         sum(item['drift_found'][1] for item in items)]}
        print('\n%s: %d faults, %d right first (%s), %d healthy devices blamed, %d causes blaming nobody, drift found '
              '%d of %d' % (name, total, right, _percent(right, total), summary[name]['healthy_blamed'],
                            summary[name]['unplaced'], *summary[name]['drift_found']))
    kinds_total = collections.defaultdict(lambda: [0, 0])
    for item in figures:
        for kind, (right, total) in item['per_kind'].items():
            kinds_total[kind][0] += right
            kinds_total[kind][1] += total
    print('\n| kind | faults | right first |')
    print('|---|---|---|')
    for kind, (right, total) in sorted(kinds_total.items()):
        print('| %s | %d | %s |' % (kind, total, _percent(right, total)))
    misses = [miss for item in figures for miss in item['misses']]
    if misses:
        print('\nmisses (first 20):\n  ' + '\n  '.join(misses[:20]))
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, 'w', encoding='utf-8') as handle:
        json.dump({'seed': args.seed, 'rounds': args.rounds, 'per_round': args.per_round, 'summary': summary,
                   'shapes': figures}, handle, indent=1)
    frr = summary.get('FRR (the lab\'s platform)')
    return 0 if not frr or (frr['percent'] >= 95 and not frr['healthy_blamed']) else 1


if __name__ == '__main__':
    sys.exit(main())
