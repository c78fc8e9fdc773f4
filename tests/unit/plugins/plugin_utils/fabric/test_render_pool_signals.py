# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The render pool ends under the SIGTERM/SIGINT handler that Ansible's task worker installs.

ansible-core's WorkerProcess.run() sets WorkerProcess._term as the handler of both signals; processes forked from the
task worker (the render pool's) inherit it. There `self.pid` is None, so the handler raises TypeError instead of
exiting, and Pool.terminate() left a pool worker alive, blocked on the task queue, with Pool.__exit__ joining it
forever. The trials run in a session of their own with ansible-core's real handler installed, rendering to the end
and stopping half-way, many times: every trial must end.
"""

import os
import signal
import subprocess
import sys

import pytest

from tests.unit.utils.paths import ROOT

TRIALS = 40
DEADLINE = 60  # seconds for every trial together; one trial takes about 0.1 s

TRIAL_SCRIPT = r'''
import os, signal, sys, types
sys.path.insert(0, sys.argv[1])
import tests.conftest  # the collection loader
from ansible.executor.process.worker import WorkerProcess
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import render
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file

# What WorkerProcess.run() installs, bound to a worker seen from a process it did not start (pid None).
handler = types.MethodType(WorkerProcess._term, types.SimpleNamespace(pid=None))
signal.signal(signal.SIGTERM, handler)
signal.signal(signal.SIGINT, handler)
render.PARALLEL_MIN_DEVICES = 1
render.CHUNK = 2
design = design_from_file(os.path.join(sys.argv[1], 'fabrics', 'lab.yml'))
names = list(design.nodes)
for trial in range(int(sys.argv[2])):
    if trial % 3 == 2:  # stopped half-way: the consumer leaves, the pool is terminated
        items = render.render_into(design, names, None, workers=4)
        next(items)
        items.close()
        print(trial, 'stopped', flush=True)
    else:
        count = sum(1 for _item in render.render_devices(design, names, workers=4))
        print(trial, count, flush=True)
'''


def test_the_render_pool_ends_under_ansibles_worker_signal_handler():
    process = subprocess.Popen(  # pylint: disable=consider-using-with
        [sys.executable, '-c', TRIAL_SCRIPT, ROOT, str(TRIALS)], cwd=ROOT, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = process.communicate(timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # the trials and every pool worker left behind
        out, err = process.communicate()
        pytest.fail('the render pool hung after %d of %d trials; last lines: %s'
                    % (len(out.splitlines()), TRIALS, out.splitlines()[-2:]))
    assert process.returncode == 0, err
    lines = out.splitlines()
    assert len(lines) == TRIALS
    assert all(line.endswith(' stopped') or line.endswith(' 10') for line in lines), lines
    assert 'Traceback' not in err, err  # no worker died of the inherited handler either
