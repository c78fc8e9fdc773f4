# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The lab's raw state under drawn faults, kept for lab-free replay (tests/unit/fixtures/state/lab_faults).

`benchmarks/lab_faults.py --capture DIR` keeps what validate_gather read on every device, per round
(`DIR/round<n>/<device>.json`) and on the healthy lab (`DIR/healthy/`). store() keeps of each round only the state
keys whose parsed state differs from the healthy lab's (time stamps, uptimes and message counters left aside; the
whole state of a device that could not be read), with the round's faults, and writes the JSON texts compact (the same
documents, without the indentation FRR prints):

    python -m tests.faults.captures DIR tests/unit/fixtures/state/lab_faults --seed 36 --rounds 8 --per-round 3

load(name) gives {device: raw state} of a stored round (the healthy lab with the round's devices in place) and its
faults.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from tests.unit.utils.paths import FIXTURES as FIXTURES_ROOT

FIXTURES = os.path.join(FIXTURES_ROOT, 'state', 'lab_faults')
VOLATILE = ('uptime_ms', 'prefixes_received', 'prefixes_sent', 'macs', 'down_events', 'up_events', 'uptime_s',
            'downtime_s')


def _compact(value):
    """A command result with its JSON output written compact (the same document)."""
    if isinstance(value, dict) and isinstance(value.get('stdout'), str):
        try:
            value = dict(value, stdout=json.dumps(json.loads(value['stdout']), separators=(',', ':')))
        except ValueError:
            pass
    return value


def _stable(value):
    if isinstance(value, dict):
        return {key: _stable(item) for key, item in value.items() if key not in VOLATILE}
    if isinstance(value, list):
        return sorted((_stable(item) for item in value), key=lambda item: json.dumps(item, sort_keys=True))
    return value


def _parsed(design, name, raw):
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
    state = checks.DeviceState(name, raw)
    ctx = checks.Context(design, {name: state})
    ctx.state(name)
    parsed = {}
    for key in sorted(raw):
        try:
            parsed[key] = _stable(state.get(key))
        except Exception as exc:  # pylint: disable=broad-except  # an unreadable key is part of the state
            parsed[key] = type(exc).__name__ + ': ' + str(getattr(exc, 'message', exc))
    return parsed


def store(capture, out, faults_by_round, design):
    healthy = {name[:-5]: json.load(open(os.path.join(capture, 'healthy', name), encoding='utf-8'))
               for name in sorted(os.listdir(os.path.join(capture, 'healthy')))}
    os.makedirs(os.path.join(out, 'healthy'), exist_ok=True)
    for name, raw in healthy.items():
        with open(os.path.join(out, 'healthy', name + '.json'), 'w', encoding='utf-8') as handle:
            json.dump({key: _compact(value) for key, value in raw.items()}, handle, sort_keys=True)
    base = {name: _parsed(design, name, raw) for name, raw in healthy.items()}
    for number, faults in sorted(faults_by_round.items()):
        directory = os.path.join(capture, 'round%d' % number)
        target = os.path.join(out, 'round%d' % number)
        os.makedirs(target, exist_ok=True)
        kept = []
        for entry in sorted(os.listdir(directory)):
            name = entry[:-5]
            with open(os.path.join(directory, entry), encoding='utf-8') as handle:
                raw = json.load(handle)
            parsed = _parsed(design, name, raw)
            changed = {key: value for key, value in raw.items()
                       if name not in base or parsed.get(key) != base[name].get(key)}
            if set(raw) != set(healthy.get(name, {})):  # unreadable, or keys gone: the whole state
                changed = dict(raw, _whole=True)
            if not changed:
                continue
            kept.append(name)
            with open(os.path.join(target, entry), 'w', encoding='utf-8') as handle:
                json.dump({key: _compact(value) for key, value in changed.items()}, handle, sort_keys=True)
        with open(os.path.join(target, 'faults.json'), 'w', encoding='utf-8') as handle:
            json.dump({'faults': [{key: fault[key] for key in ('kind', 'device', 'target', 'cause', 'drift', 'title')}
                                  for fault in faults], 'devices': kept}, handle, indent=1, sort_keys=True)


def rounds():
    return sorted(name for name in os.listdir(FIXTURES) if name.startswith('round')) if os.path.isdir(FIXTURES) else []


def load_healthy(directory=FIXTURES):
    """{device: raw state} of the healthy lab."""
    states = {}
    for entry in sorted(os.listdir(os.path.join(directory, 'healthy'))):
        with open(os.path.join(directory, 'healthy', entry), encoding='utf-8') as handle:
            states[entry[:-5]] = json.load(handle)
    return states


def load(name, directory=FIXTURES):
    """({device: raw state}, [fault]) of a stored round: the healthy lab with the round's devices in place."""
    states = load_healthy(directory)
    with open(os.path.join(directory, name, 'faults.json'), encoding='utf-8') as handle:
        plan = json.load(handle)
    for device in plan['devices']:  # what differs from the healthy lab: its keys, or the whole state
        with open(os.path.join(directory, name, device + '.json'), encoding='utf-8') as handle:
            changed = json.load(handle)
        if changed.pop('_whole', False):
            states[device] = changed
        else:
            states[device].update(changed)
    return states, plan['faults']


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('capture')
    parser.add_argument('out')
    parser.add_argument('--intent', default='fabrics/lab.yml')
    parser.add_argument('--seed', type=int, required=True)
    parser.add_argument('--rounds', type=int, required=True)
    parser.add_argument('--per-round', type=int, default=3)
    args = parser.parse_args(argv)
    from tests.faults import lab
    lab._import_path()  # pylint: disable=protected-access
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
    faults = lab.plan(args.intent, args.seed, 0, args.rounds, args.per_round, False)
    by_round = {}
    for fault in faults:
        by_round.setdefault(fault['round'], []).append(fault)
    store(args.capture, args.out, by_round, design_from_file(args.intent))
    return 0


if __name__ == '__main__':
    sys.exit(main())
