# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run `make` targets as CI stages, several at a time, and print each stage's wall time and a table of them.

    scripts/run-stages.py [--jobs N] [--log-dir DIR] [--favour STAGE ...] STAGE[:AFTER[+AFTER...]] ...

Each STAGE is a make target. A stage starts once the stages named after its colon have passed, in the order
given, while fewer than --jobs stages run (the order is the priority: give the longest first). A favoured stage
runs at normal priority and every other one in a cpu cgroup of low weight (where one can be made: root, cgroup v1's
cpu controller) and under `nice -n 19`: the CPU goes to the critical path when it asks (the lab's stage waits on
containers and timers, the others soak up the rest of the CPU). Its output goes
to DIR/STAGE.log; when it ends, one line says how long it took and, for a failure, the end of its log follows.
After a failure no new stage starts; the running ones finish (a lab is never left half torn down) and the run
fails. The closing table lists every stage with its wall and CPU time and the machine's load.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import time

FAILED_LOG_LINES = 120


def clock(seconds: float) -> str:
    minutes, seconds = divmod(int(round(seconds)), 60)
    return '%dm%02ds' % (minutes, seconds) if minutes else '%ds' % seconds


def load() -> str:
    return '%.2f' % os.getloadavg()[0]


BACKGROUND_NICENESS = 19
# cgroup v1's cpu controller (mounted there on machines whose Docker uses the cgroupfs driver). The kernel's
# autogroup scheduling (sched_autogroup_enabled, on by default) weighs sessions, not processes: every SSH session
# and daemon a background test starts is a session of its own and took the CPU from the lab at full weight, nice or
# not (an idempotent converge of the lab beside six `nice -n 19` busy loops: 58 s instead of 29 s). A cgroup holds
# every descendant, new sessions included: with the loops in a cgroup of 64 shares it took 33 s.
CPU_CGROUP = '/sys/fs/cgroup/cpu'
BACKGROUND_SHARES = 256  # against 1024 for the lab's session and 1024 for Docker's containers


def background_cgroup(root: str = CPU_CGROUP):
    """A new cpu cgroup of BACKGROUND_SHARES for the background stages, or None where none can be made."""
    path = os.path.join(root, 'aifabric-stages-%d' % os.getpid())
    try:
        os.mkdir(path)
        with open(os.path.join(path, 'cpu.shares'), 'w', encoding='ascii') as handle:
            handle.write('%d\n' % BACKGROUND_SHARES)
    except OSError:
        with contextlib.suppress(OSError):
            os.rmdir(path)
        return None
    return path


def remove_cgroup(path: str) -> None:
    """Move what is left in the cgroup (a daemon a test leaked) back to its parent, the root cgroup, then remove it."""
    parent_procs = os.path.join(os.path.dirname(path), 'cgroup.procs')
    with contextlib.suppress(OSError):
        with open(os.path.join(path, 'cgroup.procs'), encoding='ascii') as handle:
            for pid in handle.read().split():
                with contextlib.suppress(OSError), open(parent_procs, 'w', encoding='ascii') as out:
                    out.write(pid + '\n')
        os.rmdir(path)


class Stage:
    def __init__(self, spec: str, log_dir: str):
        self.name, after = (spec.split(':', 1) + [''])[:2]
        self.favoured = True
        self.after = [name for name in after.split('+') if name]
        self.log = os.path.join(log_dir, self.name + '.log')
        self.process = None
        self.started = self.wall = None
        self.cpu = 0.0
        self.load_at_start = None
        self.status = 'waiting'

    def start(self, cgroup=None):
        self.load_at_start = load()
        self.started = time.monotonic()
        self.status = 'running'
        with open(self.log, 'wb') as log:
            self.process = subprocess.Popen(self.command(cgroup), stdout=log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL)
        print('== %s: started (load %s%s%s)' % (
            self.name, self.load_at_start, '' if self.favoured else ', nice %d' % BACKGROUND_NICENESS,
            ', cpu shares %d' % BACKGROUND_SHARES if cgroup and not self.favoured else ''), flush=True)

    def command(self, cgroup=None) -> list:
        """`make <stage>`; a background stage's under nice, in its cgroup where it has one."""
        argv = ['make', '--no-print-directory', self.name]
        if self.favoured:
            return argv
        argv = ['nice', '-n', str(BACKGROUND_NICENESS)] + argv
        return in_cgroup(cgroup, argv) if cgroup else argv

    def poll(self) -> bool:
        """True once the stage has ended (its CPU time is that of the make process tree it waited for)."""
        if self.process is None or self.status != 'running':
            return False
        pid, wait_status, usage = os.wait4(self.process.pid, os.WNOHANG)
        if pid == 0:
            return False
        self.process.returncode = os.waitstatus_to_exitcode(wait_status)
        self.wall = time.monotonic() - self.started
        self.cpu = usage.ru_utime + usage.ru_stime
        self.status = 'passed' if self.process.returncode == 0 else 'FAILED (exit %d)' % self.process.returncode
        return True


def in_cgroup(path: str, argv: list) -> list:
    """argv, started by a shell that first enters the cgroup (if it cannot, the stage runs under nice only)."""
    return ['sh', '-c', 'echo $$ > "$1/cgroup.procs" 2>/dev/null; shift; exec "$@"', 'sh', path] + argv


def summary_line(stage: Stage, log_lines: int) -> str:
    """The last line of the stage's log that says what ran (pytest's or ansible-test's closing line)."""
    try:
        with open(stage.log, encoding='utf-8', errors='replace') as handle:
            lines = handle.read().splitlines()
    except OSError:
        return ''
    if stage.status != 'passed':
        return '\n'.join(lines[-log_lines:])
    for line in reversed(lines):
        if any(word in line for word in (' passed', ' failed', 'ansible-doc rendered', 'changed=')):
            return line.strip(' =')
    return lines[-1].strip() if lines else ''


def run(specs, jobs, log_dir, favour=()) -> int:
    os.makedirs(log_dir, exist_ok=True)
    stages = [Stage(spec, log_dir) for spec in specs]
    names = {stage.name for stage in stages}
    if set(favour) - names:
        raise SystemExit('--favour %s: not a stage of this run' % ', '.join(sorted(set(favour) - names)))
    for stage in stages:
        stage.favoured = not favour or stage.name in favour
    for stage in stages:
        unknown = set(stage.after) - names
        if unknown:
            raise SystemExit('stage %s waits for %s, which is not a stage of this run' % (stage.name, ', '.join(unknown)))
    cgroup = background_cgroup() if any(not stage.favoured for stage in stages) else None
    try:
        return _run(stages, jobs, log_dir, cgroup)
    finally:
        if cgroup:
            remove_cgroup(cgroup)


def _run(stages, jobs, log_dir, cgroup) -> int:
    began, load_before = time.monotonic(), load()
    print('== %d stages, at most %d at a time; logs in %s; load %s on %d CPUs'
          % (len(stages), jobs, log_dir, load_before, os.cpu_count()), flush=True)
    failed = False
    while True:
        for stage in stages:
            if stage.poll():
                print('== %s: %s in %s (CPU %s, load %s)' % (
                    stage.name, stage.status, clock(stage.wall), clock(stage.cpu), load()), flush=True)
                text = summary_line(stage, FAILED_LOG_LINES)
                if text:
                    print(('   ' if stage.status == 'passed' else '') + text, flush=True)
                failed = failed or stage.status != 'passed'
        running = [stage for stage in stages if stage.status == 'running']
        passed = {stage.name for stage in stages if stage.status == 'passed'}
        ready = [stage for stage in stages if stage.status == 'waiting' and set(stage.after) <= passed]
        if not failed:
            for stage in ready[:max(0, jobs - len(running))]:
                stage.start(cgroup)
                running.append(stage)
        if not running:
            break
        time.sleep(0.5)
    total = time.monotonic() - began
    print('\n| stage | result | wall | CPU | load at start |\n| --- | --- | --- | --- | --- |')
    for stage in stages:
        status = 'not run' if stage.status == 'waiting' else stage.status
        print('| %s | %s | %s | %s | %s |' % (
            stage.name, status, clock(stage.wall) if stage.wall else '-', clock(stage.cpu) if stage.wall else '-',
            stage.load_at_start or '-'))
    print('| all | %s | %s | | load %s before, %s after |' % ('passed' if not failed else 'FAILED', clock(total),
                                                              load_before, load()))
    # A stage that never started (a failure stopped the run before its turn) did not fail: it is counted apart.
    passed = sum(stage.status == 'passed' for stage in stages)
    not_run = sum(stage.status == 'waiting' for stage in stages)
    print('stages: %d passed, %d failed, %d not run' % (passed, len(stages) - passed - not_run, not_run), flush=True)
    return 1 if failed or passed != len(stages) else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n', maxsplit=1)[0])
    parser.add_argument('--jobs', type=int, default=3, help='stages running at once (default 3)')
    parser.add_argument('--log-dir', default=os.path.join('build', 'stages'), help='where each stage logs')
    parser.add_argument('--favour', action='append', default=[], metavar='STAGE',
                        help='run at normal priority, the others under nice in a low-weight cpu cgroup (default: all at normal)')
    parser.add_argument('stages', nargs='+', metavar='STAGE[:AFTER[+AFTER...]]')
    args = parser.parse_args(argv)
    return run(args.stages, args.jobs, args.log_dir, args.favour)


if __name__ == '__main__':
    sys.exit(main())
