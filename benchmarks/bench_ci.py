# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""`make test` of two revisions, each in a clean clone, one after the other on this machine: wall time per stage and
in all, and the machine's load (issue 25: <= 12 minutes on a quiet 2-core machine).

A revision whose `make test` runs scripts/run-stages.py prints its own stage table, which is read back; for an
older one, the targets its `test` rule lists are run one after the other (what its `make test` did) and each is
timed. The newer revision runs first, so that a failure there is known before the long older run.

    python benchmarks/bench_ci.py --before main --after HEAD                 # clones of this repository
    python benchmarks/bench_ci.py --before main --after HEAD --lab-lock /tmp/aifabric-lab.lock
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

STAGE_ROW = re.compile(r'^\| (?P<stage>[a-z-]+) \| (?P<result>[^|]+) \| (?P<wall>[0-9ms-]+) \| (?P<cpu>[0-9ms-]*) \|')


def seconds(text: str) -> float:
    match = re.match(r'^(?:(\d+)m)?(\d+)s$', text.strip())
    return int(match.group(1) or 0) * 60 + int(match.group(2)) if match else float('nan')


def clock(value: float) -> str:
    minutes, rest = divmod(int(round(value)), 60)
    return '%dm%02ds' % (minutes, rest)


def clone(repository: str, revision: str, parent: str) -> str:
    directory = os.path.join(parent, 'ci-%s' % re.sub(r'[^A-Za-z0-9._-]', '_', revision))
    shutil.rmtree(directory, ignore_errors=True)
    subprocess.run(['git', 'clone', '--quiet', repository, directory], check=True)
    commit = subprocess.run(['git', '-C', repository, 'rev-parse', revision], check=True, capture_output=True,
                            text=True).stdout.strip()
    subprocess.run(['git', '-C', directory, 'checkout', '--quiet', commit], check=True)
    return directory


def make(directory: str, target: str, log, lock=None, staged=False) -> tuple:
    """(exit code, wall seconds) of `make TARGET` in the clone, its output appended to log; the lab lock is held
    while a lab can exist (a staged run takes LAB_LOCK for its molecule stage)."""
    argv = ['make', '--no-print-directory', target]
    if lock and staged:
        argv.append('LAB_LOCK=%s' % lock)
    elif lock and target in ('test', 'molecule'):
        argv = ['flock', lock] + argv
    started = time.monotonic()
    code = subprocess.run(argv, cwd=directory, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                          env=dict(os.environ, CI='true'), check=False).returncode
    return code, time.monotonic() - started


def test_targets(directory: str) -> list:
    """The prerequisites of the `test` rule of an older Makefile: what its `make test` ran, in order."""
    with open(os.path.join(directory, 'Makefile'), encoding='utf-8') as handle:
        match = re.search(r'^test:([^#\n]*)', handle.read(), re.M)
    return match.group(1).split() if match else []


def measure(repository: str, revision: str, parent: str, lock) -> dict:
    directory = clone(repository, revision, parent)
    log_path = os.path.join(parent, 'ci-%s.log' % re.sub(r'[^A-Za-z0-9._-]', '_', revision))
    machine_before = _common.machine()
    stages = []
    with open(log_path, 'w', encoding='utf-8') as log:
        with open(os.path.join(directory, 'Makefile'), encoding='utf-8') as handle:
            staged = 'run-stages.py' in handle.read()
        started = time.monotonic()
        if staged:
            code = make(directory, 'test', log, lock, staged=True)[0]
        else:
            code = 0
            for target in test_targets(directory):
                load = os.getloadavg()[0]
                code, wall = make(directory, target, log, lock)
                stages.append({'stage': target, 'result': 'passed' if code == 0 else 'FAILED', 'wall': wall,
                               'load': load})
                print('  %s %s: %s in %s (load %.2f at its start)' % (
                    revision, target, stages[-1]['result'], clock(wall), load), flush=True)
                if code:
                    break
        total = time.monotonic() - started
    if staged:
        with open(log_path, encoding='utf-8') as handle:
            for line in handle:
                row = STAGE_ROW.match(line)
                if row and row.group('stage') not in ('stage', 'all'):
                    stages.append({'stage': row.group('stage'), 'result': row.group('result').strip(),
                                   'wall': seconds(row.group('wall')), 'cpu': row.group('cpu')})
    return {'revision': revision, 'directory': directory, 'log': log_path, 'code': code, 'total': total,
            'stages': stages, 'machine_before': machine_before, 'machine_after': _common.machine(), 'staged': staged}


def report(before: dict, after: dict) -> str:
    lines = ['`make test` in a clean clone, same machine, one run (%s then %s):' % (after['revision'], before['revision']),
             '', '| | %s | %s |' % (before['revision'], after['revision']), '| --- | --- | --- |']
    for run in (before, after):
        run['by_stage'] = {stage['stage']: stage for stage in run['stages']}
    names = [stage['stage'] for stage in before['stages']]
    names += [stage['stage'] for stage in after['stages'] if stage['stage'] not in names]
    for name in names:
        cells = []
        for run in (before, after):
            stage = run['by_stage'].get(name)
            cells.append('%s%s' % (clock(stage['wall']), '' if stage['result'] == 'passed' else ' ' + stage['result'])
                         if stage else '')
        lines.append('| %s | %s |' % (name, ' | '.join(cells)))
    lines.append('| **all (wall)** | **%s**%s | **%s**%s |' % (
        clock(before['total']), '' if before['code'] == 0 else ' FAILED', clock(after['total']),
        '' if after['code'] == 0 else ' FAILED'))
    lines.append('')
    for run in (after, before):
        lines.append('%s: %s before, %s after; log %s' % (
            run['revision'], _common.load_text(run['machine_before']), _common.load_text(run['machine_after']), run['log']))
    lines.append('Stages of %s run %s.' % (after['revision'], 'in parallel (their walls overlap; the total is the '
                                           'run\'s wall)' if after['staged'] else 'one after the other'))
    return '\n'.join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n', maxsplit=1)[0])
    parser.add_argument('--before', default='main', help='the older revision (default main)')
    parser.add_argument('--after', default='HEAD', help='the newer revision (default HEAD)')
    parser.add_argument('--repository', default=_common.ROOT, help='where to clone from (default this checkout)')
    parser.add_argument('--work', help='where the clones go (default a new directory in /var/tmp: the SSH device '
                                       'doubles mount a private /tmp over /tmp, so a clone under /tmp cannot run them)')
    parser.add_argument('--lab-lock', help='flock(1) this file around each make run (machines shared by people)')
    args = parser.parse_args(argv)
    parent = args.work or tempfile.mkdtemp(prefix='aifabric-bench-ci-', dir='/var/tmp')
    os.makedirs(parent, exist_ok=True)
    after = measure(args.repository, args.after, parent, args.lab_lock)
    print('%s: exit %d in %s' % (args.after, after['code'], clock(after['total'])), flush=True)
    before = measure(args.repository, args.before, parent, args.lab_lock)
    print('%s: exit %d in %s' % (args.before, before['code'], clock(before['total'])), flush=True)
    data = {'benchmark': 'ci', 'before': before, 'after': after}
    path = _common.save_result('ci.json', data)
    print(report(before, after))
    print('Results: %s' % path)
    return 0 if after['code'] == 0 and before['code'] == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
