#!/usr/bin/env python
"""Generated faults on the live lab: a campaign longer than CI's clab_faults (`make lab-faults`).

    python benchmarks/lab_faults.py --seed 7 --rounds 6 --per-round 3         # drawn faults only
    python benchmarks/lab_faults.py --seed 7 --rounds 2 --regression           # the regression set first
    python benchmarks/lab_faults.py --seed 7 --rounds 4 --capture tests/unit/fixtures/state/lab_faults

Needs the lab of inventories/lab up and deployed (make lab-up; playbooks/site.yml). Per round: inject the round's
faults (tests/faults/lab.py: the same commands as the scenario), run playbooks/validate.yml as a user runs it, judge
its report (tests/faults/judge.py: the first cause blaming each fault's device is of the fault's kind, the drift is
found, no device without a fault is blamed), compare the failures with what the simulated world predicts for the
same faults (tests/faults/world.py), undo, and require validation to pass again. `--capture DIR` also keeps every
device's raw state of each round (what validate_gather read) for the lab-free replay tests.
Prints one line per fault, the figures, the seed, and writes benchmarks/results/lab_faults.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import _common  # noqa: E402  pylint: disable=wrong-import-position

ROOT = _common.ROOT
INVENTORY = os.path.join(ROOT, 'inventories', 'lab')
INTENT = os.path.join(ROOT, 'fabrics', 'lab.yml')
CAPTURE_PLAY = '''
- name: Read every device's state as validation does, and keep it
  hosts: switches:gpu_servers
  gather_facts: false
  tasks:
    - name: Read the state (once)
      aifabric.fabric.validate_gather:
        settle_timeout: 0
        health_interval: 0
      register: capture_state
    - name: Keep it
      ansible.builtin.copy:
        content: "{{ capture_state.state | to_nice_json }}"
        dest: "{{ capture_dir }}/{{ inventory_hostname }}.json"
        mode: "0644"
      delegate_to: localhost
'''


def run(argv, **kwargs):
    return subprocess.run(argv, capture_output=True, text=True, check=False, **kwargs)


def on_device(step, device, container_of):
    """Run one step of a fault: argv on the device (docker exec into its container), or on this host."""
    if step.get('on', device) == 'localhost':
        return run(step['argv'])
    return run(['docker', 'exec', '-i', container_of(step.get('device', device))] + step['argv'])


def validate(report_dir, settle, extra=()):
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'), ANSIBLE_NOCOLOR='1')
    argv = [os.path.join(os.path.dirname(sys.executable), 'ansible-playbook'), '-i', INVENTORY,
            os.path.join(ROOT, 'playbooks', 'validate.yml'), '-e', 'validate_report_dir=%s' % report_dir,
            '-e', 'validate_settle_timeout=%d' % settle] + list(extra)
    started = time.monotonic()
    done = run(argv, env=env, cwd=ROOT)
    with open(os.path.join(report_dir, 'report.json'), encoding='utf-8') as handle:
        return done, json.load(handle), time.monotonic() - started


def capture(directory):
    os.makedirs(directory, exist_ok=True)
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'))
    with tempfile.NamedTemporaryFile('w', suffix='.yml', delete=False) as handle:
        handle.write(CAPTURE_PLAY)
    try:
        done = run([os.path.join(os.path.dirname(sys.executable), 'ansible-playbook'), '-i', INVENTORY, handle.name,
                    '-e', 'capture_dir=%s' % os.path.abspath(directory)], env=env, cwd=ROOT)
    finally:
        os.unlink(handle.name)
    return done.returncode


def judge_report(faults, report):
    """Per fault: the first cause blaming its device, right or not; the devices blamed that have no fault."""
    faulty = {fault['device'] for fault in faults}
    blamed = report['summary'].get('blamed') or []
    outcomes = []
    for fault in faults:
        first = next((cause for cause in report['causes'] if fault['device'] in cause['devices']), None)
        right = first is not None and first['kind'] == fault['cause'] and (
            not fault.get('expect_title') or first['title'].startswith(fault['expect_title']))
        drift = None if fault['drift'] is not True else bool(first and (first['kind'] == 'drift' or first.get('drift')))
        outcomes.append({'fault': fault['title'], 'kind': fault['kind'], 'device': fault['device'], 'right': right,
                         'named': first['kind'] if first else None, 'title': first['title'] if first else None,
                         'drift_found': drift})
    return outcomes, sorted(set(blamed) - faulty), [cause['title'] for cause in report['causes'] if not cause['devices']]


def simulated(faults):
    """The failures the simulated world predicts for these faults: {(device, check, subject)}."""
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
    from tests.faults.judge import simulate
    design = design_from_file(INTENT)
    results, _found = simulate(design, faults)
    return {(item.device, item.check, item.subject) for item in results if item.status in ('fail', 'error')}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--seed', type=int, default=None)
    parser.add_argument('--rounds', type=int, default=4)
    parser.add_argument('--per-round', type=int, default=3)
    parser.add_argument('--regression', action='store_true', help='the regression set first (its own rounds)')
    parser.add_argument('--kinds', default='')
    parser.add_argument('--settle', type=int, default=60)
    parser.add_argument('--capture', default='', help='keep each round\'s raw state under this directory')
    parser.add_argument('--out', default=os.path.join(HERE, 'results', 'lab_faults.json'))
    args = parser.parse_args(argv)
    _common.import_path()
    sys.path.insert(0, ROOT)
    from tests.faults import lab
    seed = args.seed if args.seed is not None else int(time.time())
    print('seed %d: python benchmarks/lab_faults.py --seed %d --rounds %d --per-round %d%s' % (
        seed, seed, args.rounds, args.per_round, ' --regression' if args.regression else ''), flush=True)
    faults = lab.plan(INTENT, seed, 0, args.rounds, args.per_round, args.regression,
                      [name for name in args.kinds.split(',') if name] or None)

    def container_of(name):
        return 'aifabric-lab-' + name
    rounds = sorted({fault['round'] for fault in faults})
    base = tempfile.mkdtemp(prefix='aifabric-lab-faults-')
    records = []
    if args.capture:
        capture(os.path.join(args.capture, 'healthy'))
    for number in rounds:
        members = [fault for fault in faults if fault['round'] == number]
        print('round %d: %s' % (number, '; '.join(fault['title'] for fault in members)), flush=True)
        try:
            for fault in members:
                done = on_device({'argv': fault['inject'], 'on': fault['on']}, fault['device'], container_of)
                if done.returncode:
                    print('  inject failed: %s: %s' % (fault['title'], done.stderr.strip()[:300]), flush=True)
                for step in fault['after_inject']:
                    on_device(step, step['device'], container_of)
            done, report, seconds = validate(os.path.join(base, 'round%d' % number), args.settle)
            if args.capture:  # after validation settled: the state it judged, not the first seconds after the fault
                capture(os.path.join(args.capture, 'round%d' % number))
            outcomes, healthy, unplaced = judge_report(members, report)
            lab_failures = {(item['device'], item['check'], item['subject']) for item in report['results']
                            if item['status'] in ('fail', 'error')}
            predicted = simulated(members)
        finally:
            for fault in members:
                on_device({'argv': fault['undo'], 'on': fault['on']}, fault['device'], container_of)
                for step in fault['after_undo']:
                    on_device(step, step['device'], container_of)
        recovered, _report, _seconds = validate(os.path.join(base, 'round%d-undone' % number), 180,
                                                ['-e', 'validate_settle_stable=0'])
        for outcome in outcomes:
            verdict = 'RIGHT' if outcome['right'] else 'WRONG'
            print('  %s %-42s first cause: %s' % (verdict, outcome['fault'][:42], outcome['title']), flush=True)
        print('  rc %d in %.0f s; blamed without a fault: %s; causes nobody placed: %s; recovered: %s; the simulated '
              'world predicts %d of the lab\'s %d failures and %d more' % (
                  done.returncode, seconds, healthy or 'none', unplaced or 'none', recovered.returncode == 0,
                  len(lab_failures & predicted), len(lab_failures), len(predicted - lab_failures)), flush=True)
        records.append({'round': number, 'outcomes': outcomes, 'healthy_blamed': healthy, 'unplaced': unplaced,
                        'recovered': recovered.returncode == 0, 'lab_failures': sorted(lab_failures),
                        'predicted': sorted(predicted), 'seconds': round(seconds, 1)})
    outcomes = [item for record in records for item in record['outcomes']]
    right = sum(item['right'] for item in outcomes)
    drift = [item['drift_found'] for item in outcomes if item['drift_found'] is not None]
    summary = {'seed': seed, 'faults': len(outcomes), 'right_first': right,
               'right_percent': round(100.0 * right / max(len(outcomes), 1), 1),
               'healthy_blamed': sum(len(record['healthy_blamed']) for record in records),
               'unplaced': sum(len(record['unplaced']) for record in records),
               'drift_found': '%d/%d' % (sum(drift), len(drift)),
               'recovered': sum(record['recovered'] for record in records), 'rounds': len(records)}
    print(json.dumps(summary))
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, 'w', encoding='utf-8') as handle:
        json.dump({'summary': summary, 'rounds': records}, handle, indent=1)
    return 0 if right == len(outcomes) and not summary['healthy_blamed'] and not summary['unplaced'] else 1


if __name__ == '__main__':
    sys.exit(main())
