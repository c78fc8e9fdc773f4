# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""scripts/run-stages.py: the background stages' cpu cgroup holds their processes, new sessions included."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'scripts', 'run-stages.py')
spec = importlib.util.spec_from_file_location('run_stages', SCRIPT)
run_stages = importlib.util.module_from_spec(spec)
spec.loader.exec_module(run_stages)


def cpu_cgroup_of(pid):
    """The process's group in the v1 hierarchy that has the cpu controller."""
    with open('/proc/%d/cgroup' % pid, encoding='ascii') as handle:
        for line in handle:
            controllers, path = line.rstrip('\n').split(':', 2)[1:]
            if 'cpu' in controllers.split(','):
                return path
    return None


def test_no_cgroup_where_none_can_be_made(tmp_path):
    assert run_stages.background_cgroup(str(tmp_path / 'no-such-controller')) is None


def test_a_background_stage_runs_under_nice_and_in_its_cgroup_a_favoured_one_as_it_is(tmp_path):
    stage = run_stages.Stage('lint', str(tmp_path))
    assert stage.command() == ['make', '--no-print-directory', 'lint']
    stage.favoured = False
    assert stage.command() == ['nice', '-n', '19', 'make', '--no-print-directory', 'lint']
    assert stage.command('/cg/lint') == ['sh', '-c', 'echo $$ > "$1/cgroup.procs" 2>/dev/null; shift; exec "$@"',
                                         'sh', '/cg/lint', 'nice', '-n', '19', 'make', '--no-print-directory', 'lint']


def test_a_background_session_stays_in_the_cgroup_and_leaves_with_it():
    """On the kernel: needs root and cgroup v1's cpu controller (CI's machine); elsewhere the stages run under nice
    only, and no cgroup is left behind."""
    cgroup = run_stages.background_cgroup()
    if cgroup is None:
        assert not os.path.exists(os.path.join(run_stages.CPU_CGROUP, 'aifabric-stages-%d' % os.getpid()))
        return
    try:
        with open(os.path.join(cgroup, 'cpu.shares'), encoding='ascii') as handle:
            assert int(handle.read()) == run_stages.BACKGROUND_SHARES
        # A new session, as sshd makes one per connection: autogroup would weigh it apart, the cgroup keeps it.
        child = subprocess.Popen(run_stages.in_cgroup(cgroup, [
            sys.executable, '-c', 'import os, time; os.setsid(); time.sleep(30)']))
        try:
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:  # the shell has exec'd python once the command line is python's
                with open('/proc/%d/cmdline' % child.pid, 'rb') as handle:
                    if handle.read().startswith(sys.executable.encode()):
                        break
                time.sleep(0.05)
            assert cpu_cgroup_of(child.pid) == '/' + os.path.basename(cgroup)
            run_stages.remove_cgroup(cgroup)
            assert not os.path.exists(cgroup)
            assert cpu_cgroup_of(child.pid) == '/'
        finally:
            child.kill()
            child.wait()
    finally:
        run_stages.remove_cgroup(cgroup)


def test_a_stage_that_never_started_is_not_counted_as_failed(tmp_path, monkeypatch, capsys):
    """One stage fails: the stages waiting behind it never start. The run fails, and its count says one failure, not
    one per stage that did not run ("10 passed, 2 failed" for one failure)."""
    (tmp_path / 'Makefile').write_text('good:\n\ttrue\nbad:\n\tfalse\nlater:\n\ttrue\n')
    monkeypatch.chdir(tmp_path)
    code = run_stages.run(['good', 'bad:good', 'later:bad'], jobs=1, log_dir=str(tmp_path / 'logs'))
    out = capsys.readouterr().out
    assert code == 1
    assert out.rstrip().splitlines()[-1] == 'stages: 1 passed, 1 failed, 1 not run', out
    assert '| later | not run |' in out and '| bad | FAILED (exit 2) |' in out
