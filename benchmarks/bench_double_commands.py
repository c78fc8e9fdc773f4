# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Per-call cost of the SSH doubles' read-only commands (tests/doubles/ssh/cli.py), one process per call.

    env -u PYTHONDONTWRITEBYTECODE python benchmarks/bench_double_commands.py               # this checkout, 30 calls
    env -u PYTHONDONTWRITEBYTECODE python benchmarks/bench_double_commands.py --root /path/to/other/checkout

A validation reads a switch with the commands its gatherer sends; on a double each is a Python process
(`python -S -m tests.doubles.ssh.cli <command>`, what the wrapper on the double's PATH execs) on the same cores as
the controller, where a switch runs a native binary (SONiC's sonic-db-cli is C++, sonic-swss-common) on its own CPU.
For each command: the median wall and CPU (user + system of the process) of `--calls` sequential calls on a
factory-fresh SONiC and NVUE switch (the 64-port switch of tests/doubles/ssh/state.py), with the code of `--root`
(a checkout's tests/ folder: compare two commits). Byte-code is written and reused, as in a double's SSH session.
A command the checkout's double does not have is listed as such. Not part of run_all.py.
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
    ('nvue', ['vtysh', '-c', 'show bgp summary json']),
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
    """(wall s, CPU s, rc) of one call."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, '-S', '-m', 'tests.doubles.ssh.cli'] + argv, env=child_env(root, directory),
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, cwd=directory)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.returncode


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('--root', default=ROOT, help='the checkout whose doubles run (default: this one)')
    parser.add_argument('--calls', type=int, default=30)
    args = parser.parse_args(argv)
    root = os.path.abspath(args.root)
    rows = []
    with tempfile.TemporaryDirectory(prefix='bench-double-commands-') as where:
        states = devices(root, where)
        for kind, command in COMMANDS:
            first = one_call(root, states[kind], command)  # writes the byte-code, as a session's first call does
            if first[2] != 0:
                rows.append({'kind': kind, 'command': ' '.join(command), 'missing': True})
                continue
            calls = [one_call(root, states[kind], command) for _ in range(args.calls)]
            rows.append({'kind': kind, 'command': ' '.join(command),
                         'wall_ms': round(1000 * statistics.median(call[0] for call in calls), 1),
                         'cpu_ms': round(1000 * statistics.median(call[1] for call in calls), 1)})
        bare = [one_call(root, states['sonic'], ['--no-such-command']) for _ in range(args.calls)]
    load = os.getloadavg()
    print('root %s, %d calls each, load %.2f %.2f %.2f, %s' % (root, args.calls, load[0], load[1], load[2],
                                                              time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())))
    print('%-6s %-60s %9s %8s' % ('double', 'command', 'wall ms', 'CPU ms'))
    for row in rows:
        if row.get('missing'):
            print('%-6s %-60s %18s' % (row['kind'], row['command'], 'not in this double'))
        else:
            print('%-6s %-60s %9.1f %8.1f' % (row['kind'], row['command'], row['wall_ms'], row['cpu_ms']))
    print('%-6s %-60s %9.1f %8.1f' % ('', 'the entry point alone (an unknown command)',
                                      1000 * statistics.median(call[0] for call in bare),
                                      1000 * statistics.median(call[1] for call in bare)))
    print(json.dumps({'root': root, 'load': load, 'rows': rows}))
    return 0


if __name__ == '__main__':
    sys.exit(main())
