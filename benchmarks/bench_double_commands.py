# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Per-call cost of the SSH doubles' read-only commands (tests/doubles/ssh/cli.py), one process per call.

    env -u PYTHONDONTWRITEBYTECODE python benchmarks/bench_double_commands.py               # this checkout, 30 calls
    env -u PYTHONDONTWRITEBYTECODE python benchmarks/bench_double_commands.py --against /path/to/other/checkout

A validation reads a switch with the commands its gatherer sends; on a double each is a Python process
(`python -S -m tests.doubles.ssh.cli <command>`, what the wrapper on the double's PATH execs) on the same cores as
the controller, where a switch runs a native binary (SONiC's sonic-db-cli is C++, sonic-swss-common) on its own CPU.
For each command: the median and the least CPU (user + system of the process) and the median wall of `--calls`
calls on a factory-fresh SONiC and NVUE switch (the 64-port switch of tests/doubles/ssh/state.py), with this
checkout's doubles and those of each `--against` checkout (another commit's tests/ folder), the checkouts' calls
taking turns so that they share the machine's load. The floor: `python -S -c pass`, the interpreter's own start.
Byte-code is written and reused, as in a double's SSH session. A command a checkout's double does not have is listed
as such. Not part of run_all.py.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COMMANDS = [
    ('sonic', ['sonic-db-cli', 'COUNTERS_DB', 'HGET', 'COUNTERS_PORT_NAME_MAP', 'Ethernet0']),
    ('sonic', ['sonic-db-cli', 'APPL_DB', 'HGETALL', 'PORT_TABLE:Ethernet0']),
    ('sonic', ['sonic-db-dump', '-n', 'COUNTERS_DB', '-k', 'COUNTERS:*']),
    ('sonic', ['sonic-db-dump', '-n', 'APPL_DB', '-k', 'LLDP_ENTRY_TABLE:*']),
    ('sonic', ['show', 'interfaces', 'status']),
    ('sonic', ['sonic-cfggen', '-d', '--print-data']),
    ('sonic', ['vtysh', '-c', 'show bgp summary json']),
    ('nvue', ['nv', 'show', 'interface', '-o', 'json']),
    ('nvue', ['nv', 'config', 'show', '-o', 'json']),
    ('nvue', ['nv', 'show', 'vrf', 'default', 'router', 'bgp', 'neighbor', '-o', 'json']),
]


def child_env(root, directory=None):
    env = {key: value for key, value in os.environ.items() if key != 'PYTHONDONTWRITEBYTECODE'}
    env['PYTHONPATH'] = root
    if directory:
        env['DOUBLE_STATE'] = directory
    return env


def devices(root, where):
    """{kind: state directory} of a factory-fresh SONiC and NVUE switch, made by `root`'s own doubles."""
    found = {}
    for kind in ('sonic', 'nvue'):
        directory = os.path.join(where, kind)
        os.makedirs(directory)
        subprocess.run([sys.executable, '-c', 'import sys; from tests.doubles.ssh import state; '
                        'state.init_device(sys.argv[1], {"name": "sw1", "kind": sys.argv[2]})', directory, kind],
                       env=child_env(root), check=True, cwd=where)
        found[kind] = directory
    return found


def one_call(root, directory, argv):
    """(wall s, CPU s, rc) of one call (`argv` None: the interpreter alone)."""
    command = [sys.executable, '-S'] + (['-m', 'tests.doubles.ssh.cli'] + argv if argv else ['-c', 'pass'])
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, env=child_env(root, directory), stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, check=False, cwd=directory)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.returncode


def summary(calls):
    return {'cpu_ms': round(1000 * statistics.median(call[1] for call in calls), 1),
            'cpu_min_ms': round(1000 * min(call[1] for call in calls), 1),
            'wall_ms': round(1000 * statistics.median(call[0] for call in calls), 1)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('--against', action='append', default=[], help='another checkout whose doubles to time')
    parser.add_argument('--calls', type=int, default=30)
    args = parser.parse_args(argv)
    roots = [ROOT] + [os.path.abspath(root) for root in args.against]
    rows = []
    with tempfile.TemporaryDirectory(prefix='bench-double-commands-') as where:
        states = {root: devices(root, os.path.join(where, str(index))) for index, root in enumerate(roots)}
        for kind, command in [('', None)] + COMMANDS:
            row = {'kind': kind, 'command': ' '.join(command) if command else 'python -S -c pass (the floor)'}
            calls: dict = {}
            for root in roots:  # the first call writes the byte-code, as a session's first call does
                if one_call(root, states[root][kind or 'sonic'], command)[2] == 0:
                    calls[root] = []
            for _call in range(args.calls):
                for root in calls:
                    calls[root].append(one_call(root, states[root][kind or 'sonic'], command))
            row['by_root'] = {root: summary(calls[root]) if root in calls else None for root in roots}
            rows.append(row)
    load = os.getloadavg()
    when = time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())
    print('%d calls each, load %.2f %.2f %.2f, %s' % (args.calls, load[0], load[1], load[2], when))
    for index, root in enumerate(roots):
        print('[%d] %s' % (index, root))
    print('%-6s %-58s' % ('double', 'command') + ''.join(' %27s' % ('[%d] CPU med/min, wall ms' % index)
                                                         for index in range(len(roots))))
    for row in rows:
        cells = ''.join(' %27s' % ('%.1f / %.1f, %.1f' % (item['cpu_ms'], item['cpu_min_ms'], item['wall_ms'])
                                   if item else 'not in this double') for item in row['by_root'].values())
        print('%-6s %-58s' % (row['kind'], row['command'][:58]) + cells)
    print(json.dumps({'load': load, 'rows': rows}))
    return 0


if __name__ == '__main__':
    sys.exit(main())
