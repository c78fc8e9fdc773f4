#!/usr/bin/env python
"""One-device change on the 16,384-GPU fabric, end to end through the Python API.

Setup (not timed): the whole fabric is rendered into an output directory with the staged writer, as
`playbooks/render.yml` leaves it. Then one leaf's intent changes (its NOS release, which changes its rendered
configuration) and a fresh process times what a user runs for that change: read + validate the edited intent,
design the fabric, render that one device, and switch the output to a new complete generation (staged writer:
manifest, lock, the other 10,751 files hard-linked). Every round moves the leaf to another release, so every round
writes. Reported with CPU time beside wall time and peak RSS.

    python benchmarks/bench_one_change.py [--platform sonic] [--repeat 3] [--servers 2048]

--playbook times what a user runs instead (issue 41): `ansible-playbook playbooks/render.yml --limit leaf001` with the
fabric's inventory (the inventory plugin designs the fabric; the render writes leaf001's files and the fabric's
documents and switches the output to a new generation), the rounds one right after the other, as changes that follow
each other are, while the generation before the last is being removed. Wall and CPU of ansible-playbook and its
workers, and the slowest round (the tail).

    python benchmarks/bench_one_change.py --playbook [--platform sonic] [--repeat 7]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import sys
import time

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402  pylint: disable=wrong-import-position

TARGET_SECONDS = 2.0
# Each round moves one leaf to the other of two releases, so that every round really changes its configuration: the
# platform's oldest and newest release, from the registry.
RELEASES = {name: _common.release_pair(name) for name in _common.switch_platforms()}


def render_fabric_into(dest, intent_path, devices=None):
    """What the render action does, through the Python API: design, render, stage, switch. Returns counts."""
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.output import StagedOutput
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_into
    design = design_from_file(intent_path)
    names = list(design.nodes) if devices is None else devices
    with StagedOutput(dest).open() as output:
        failed = [item['name'] for item in render_into(design, names, output) if item['error'] or item['missing']]
        if failed:
            raise SystemExit('rendering failed for %s' % ', '.join(failed[:5]))
        summary = output.finish(roots=['configs'], meta={'fabric': design.name}, prune=[] if devices else ['configs'])
    return {'written': summary['written'], 'files': summary['files'], 'devices': len(names)}


def child(args):
    _common.import_path()
    started_wall, started_cpu = time.perf_counter(), time.process_time()
    counts = render_fabric_into(args.dest, args.intent, devices=[args.device])
    usage = resource.getrusage(resource.RUSAGE_SELF)
    result = {'wall': time.perf_counter() - started_wall, 'cpu': time.process_time() - started_cpu,
              'peak_rss': usage.ru_maxrss * 1024}
    result.update(counts)
    _common.emit(result)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n', maxsplit=1)[0])
    parser.add_argument('--platform', default='sonic', choices=sorted(RELEASES))
    parser.add_argument('--repeat', type=int, default=3)
    parser.add_argument('--servers', type=int, default=2048)
    parser.add_argument('--playbook', action='store_true', help='time ansible-playbook render.yml --limit leaf001')
    parser.add_argument('--child', action='store_true', help=argparse.SUPPRESS)
    parser.add_argument('--dest', help=argparse.SUPPRESS)
    parser.add_argument('--intent', help=argparse.SUPPRESS)
    parser.add_argument('--device', help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args)
    data = (run_playbook if args.playbook else run)(args.platform, args.repeat, args.servers)
    print(report(data))
    print('Results: %s' % _common.save_result('one_change_playbook.json' if args.playbook else 'one_change.json', data))
    return 0 if data['pass'] else 1


def report(data) -> str:
    how = 'ansible-playbook render.yml --limit leaf001' if data.get('playbook') else 'one-device change'
    return ('Fabric gpu16k (%d devices, %d files), %s: %s median %.2f s wall (min %.2f, max %.2f)%s; '
            'target <= %.1f s%s: %s' % (data['whole']['devices'], data['whole']['files'], data['platform'], how,
                                        data['median_wall'], data['min_wall'], data['max_wall'],
                                        ', median CPU %.2f s' % data['median_cpu'] if data.get('playbook') else '',
                                        TARGET_SECONDS, ', no round above it' if data.get('playbook') else '',
                                        'PASS' if data['pass'] else 'FAIL'))


def _change_release(intent, intent_path, device, release):
    """Move `device` to `release` in the intent and write it: a change of that device's rendered configuration."""
    intent['topology'].setdefault('devices', {})[device] = {'nos_release': release}
    with open(intent_path, 'w', encoding='utf-8') as handle:
        yaml.safe_dump(intent, handle, sort_keys=False)


def _render_playbook(inventory, dest, limit=None):
    """(wall, CPU of ansible-playbook and its workers, its output) of render.yml on `inventory` into `dest`."""
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(_common.ROOT, 'ansible.cfg'), ANSIBLE_NOCOLOR='1')
    env.pop('PYTHONDONTWRITEBYTECODE', None)  # the collection's byte-code kept, as make runs it
    argv = [os.path.join(os.path.dirname(sys.executable), 'ansible-playbook'),
            os.path.join(_common.ROOT, 'playbooks', 'render.yml'), '-i', inventory, '-e',
            json.dumps({'aifabric_render_out': dest})] + (['--limit', limit] if limit else [])
    proc, wall, cpu, _peak = _common.measured(argv, env, os.path.dirname(inventory))
    if proc.returncode != 0:
        raise SystemExit('render.yml failed: %s' % proc.stdout[-3000:])
    return wall, cpu, proc.stdout


def run_playbook(platform='sonic', repeat=7, servers=2048, quiet=False):
    """Render the whole fabric once with render.yml, then time `repeat` renders of leaf001 after a change of its
    release each, one right after the other."""
    work = _common.scratch('aifabric-bench-change-play-')
    try:
        intent = _common.gpu16k_intent(platform, servers)
        inventory = os.path.join(work, 'inventory')
        os.makedirs(inventory)
        intent_path = os.path.join(inventory, 'intent.yml')
        with open(os.path.join(inventory, 'fabric.yml'), 'w', encoding='utf-8') as handle:
            handle.write('plugin: aifabric.fabric.fabric\nintent: intent.yml\n')
        with open(intent_path, 'w', encoding='utf-8') as handle:
            yaml.safe_dump(intent, handle, sort_keys=False)
        dest = os.path.join(work, 'out')
        _wall, _cpu, output = _render_playbook(inventory, dest)
        counts = re.search(r'rendered (\d+) device\(s\) into .*?; wrote (\d+) file', output)
        whole = {'devices': int(counts.group(1)), 'files': int(counts.group(2))} if counts else {'devices': 0, 'files': 0}
        _common.settle()
        device, runs = 'leaf001', []
        for index in range(repeat):
            _change_release(intent, intent_path, device, RELEASES[platform][index % len(RELEASES[platform])])
            load = os.getloadavg()[0]
            wall, cpu, output = _render_playbook(inventory, dest, limit=device)
            written = re.search(r'wrote (\d+) file', output)
            runs.append({'wall': wall, 'cpu': cpu, 'load1': load, 'written': int(written.group(1)) if written else None})
            if not quiet:
                print('  render.yml --limit %s: %.2f s wall (%.2f s CPU), %s file(s) written, load %.2f'
                      % (device, wall, cpu, runs[-1]['written'], load))
        walls = sorted(item['wall'] for item in runs)
        cpus = sorted(item['cpu'] for item in runs)
        return {'platform': platform, 'servers': servers, 'playbook': True, 'runs': runs,
                'median_wall': walls[len(walls) // 2], 'min_wall': walls[0], 'max_wall': walls[-1],
                'median_cpu': cpus[len(cpus) // 2], 'pass': walls[-1] <= TARGET_SECONDS, 'whole': whole,
                'machine': _common.machine()}
    finally:
        _common.remove_scratch()


def run(platform='sonic', repeat=3, servers=2048, quiet=False):
    """Render the whole fabric once, then time `repeat` one-device changes, each in a fresh process."""
    _common.import_path()
    work = _common.scratch('aifabric-bench-change-')
    try:
        intent = _common.gpu16k_intent(platform, servers)
        intent_path = os.path.join(work, 'intent.yml')
        with open(intent_path, 'w', encoding='utf-8') as handle:
            yaml.safe_dump(intent, handle, sort_keys=False)
        dest = os.path.join(work, 'out')
        whole = render_fabric_into(dest, intent_path)
        device = 'leaf001'
        runs = []
        for index in range(repeat):
            _change_release(intent, intent_path, device, RELEASES[platform][index % len(RELEASES[platform])])
            load = os.getloadavg()[0]
            result = _common.run_child([os.path.abspath(__file__), '--child', '--dest', dest, '--intent', intent_path,
                                        '--device', device])
            result['load1'] = load
            runs.append(result)
            if not quiet:
                print('  one-device change: %.2f s wall (%.2f s CPU), %d file(s) written, peak RSS %d MiB, load %.2f'
                      % (result['wall'], result['cpu'], result['written'], result['peak_rss'] // 2 ** 20, load))
        walls = sorted(item['wall'] for item in runs)
        median = walls[len(walls) // 2]
        return {'platform': platform, 'servers': servers, 'runs': runs, 'median_wall': median, 'min_wall': walls[0],
                'max_wall': walls[-1], 'pass': median <= TARGET_SECONDS, 'whole': whole, 'machine': _common.machine()}
    finally:
        _common.remove_scratch()


if __name__ == '__main__':
    sys.exit(main())
