# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Start-up time and memory of the device-double fleet (tests/doubles/fleet.py) for a mixed EOS/SONiC/NVUE fabric.

    python benchmarks/bench_doubles.py                 # 8 servers -> 20 switches (6 EOS, 2 SONiC, 12 NVUE), 3 repeats
    python benchmarks/bench_doubles.py --servers 16 --repeat 1

Each pass runs `python -m tests.doubles.fleet up` (wall time until every double answers), sums the resident
memory of the supervisor and every process below it (sshd listeners), runs `down` and checks that nothing is
left listening. Target (issue 7 doubles brief): < 5 s to start about 10 switches (measured here on 20).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET_SECONDS = 5.0


def intent(servers):
    """tests/doubles/fixtures/mixed.yml (EOS and SONiC leaves, NVUE spines) with `servers` GPU servers."""
    with open(os.path.join(ROOT, 'tests', 'doubles', 'fixtures', 'mixed.yml'), encoding='utf-8') as handle:
        data = yaml.safe_load(handle)
    data['topology']['rail_optimized']['servers'] = servers
    return data


def tree_rss(pid):
    """Resident memory (bytes) of `pid` and all its descendants, from /proc."""
    sys.path.insert(0, ROOT)
    from tests.doubles.ssh.server import descendants
    total = 0
    for member in [pid] + descendants(pid):
        try:
            with open('/proc/%d/status' % member, encoding='utf-8') as handle:
                for line in handle:
                    if line.startswith('VmRSS:'):
                        total += int(line.split()[1]) * 1024
        except OSError:
            continue
    return total


def one_pass(intent_path):
    state_dir = tempfile.mkdtemp(prefix='bench-doubles-')
    started = time.time()
    up = subprocess.run([sys.executable, '-m', 'tests.doubles.fleet', 'up', '--intent', intent_path, '--state-dir', state_dir],
                        cwd=ROOT, capture_output=True, text=True, check=True)
    wall = time.time() - started
    with open(os.path.join(state_dir, 'fleet.pid'), encoding='utf-8') as handle:
        pid = int(handle.read())
    with open(os.path.join(state_dir, 'fleet.json'), encoding='utf-8') as handle:
        endpoints = json.load(handle)['devices']
    rss = tree_rss(pid)
    started = time.time()
    subprocess.run([sys.executable, '-m', 'tests.doubles.fleet', 'down', '--state-dir', state_dir, '--purge'],
                   cwd=ROOT, capture_output=True, text=True, check=True)
    down = time.time() - started
    left = []
    for name, item in endpoints.items():
        try:
            with socket.create_connection((item['host'], item['port']), timeout=0.5):
                left.append(name)
        except OSError:
            pass
    kinds = {}
    for item in endpoints.values():
        kinds[item['kind']] = kinds.get(item['kind'], 0) + 1
    return {'up_s': wall, 'down_s': down, 'rss_mib': rss / 2 ** 20, 'switches': len(endpoints), 'kinds': kinds,
            'left_listening': left, 'summary_lines': len(up.stdout.splitlines())}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('--servers', type=int, default=8)
    parser.add_argument('--repeat', type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.NamedTemporaryFile('w', suffix='.yml', delete=False) as handle:
        yaml.safe_dump(intent(args.servers), handle)
        intent_path = handle.name
    load = os.getloadavg()
    passes = [one_pass(intent_path) for _repeat in range(args.repeat)]
    os.remove(intent_path)
    ups = sorted(item['up_s'] for item in passes)
    median = ups[len(ups) // 2]
    print('fleet of %d switches %s: up %.2f s median (%.2f-%.2f), down %.2f s, %.0f MiB resident (supervisor + sshds); '
          'load %.1f -> %.1f; target < %.0f s: %s; left listening after down: %s' % (
              passes[0]['switches'], passes[0]['kinds'], median, ups[0], ups[-1], passes[-1]['down_s'],
              max(item['rss_mib'] for item in passes), load[0], os.getloadavg()[0], TARGET_SECONDS,
              'PASS' if median < TARGET_SECONDS else 'FAIL', sorted({n for item in passes for n in item['left_listening']}) or 'none'))
    return 0 if median < TARGET_SECONDS and not any(item['left_listening'] for item in passes) else 1


if __name__ == '__main__':
    sys.exit(main())
