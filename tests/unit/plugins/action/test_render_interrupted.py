# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""playbooks/render.yml on the 1,024-GPU pod (inventories/pod1k), killed half-way, interrupted and run twice at once.

A render killed with SIGKILL leaves the previous complete output in place (dest still points at it and its manifest
verifies); the next render cleans up and completes. (Ctrl-C while it writes: test_render_ctrl_c.py, which `make units`
runs on every release, since the message is Ansible's.) Two renders into one directory never mix: one waits for the
other's lock (or fails clearly when it may not wait), and the result is one complete, verified generation.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import time

import pytest

from tests.unit.utils.ansible_cli import ansible_cli, ansible_env

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.output import StagedOutput, read_manifest, verify
from tests.unit.utils.paths import ROOT

pytestmark = pytest.mark.integration  # it starts Ansible's command line tools (make integration runs it)

POD_INTENT = os.path.join(ROOT, 'fabrics', 'pod1k.yml')
EXCEPTION_NAME = re.compile(r'\b[A-Z][A-Za-z]*(?:Error|Exception)\b|Traceback')


def _inventory(tmp_path, name, bfd=True):
    inventory = tmp_path / name
    inventory.mkdir()
    (inventory / 'fabric.yml').write_text('plugin: aifabric.fabric.fabric\nintent: intent.yml\n')
    with open(POD_INTENT, encoding='utf-8') as handle:
        text = handle.read()
    if bfd:  # BGP timers every leaf renders (SONiC renders no BFD: no bfdd beside bgpcfgd), the generations' mark
        assert '  bfd: true\n' in text
        text = text.replace('  bfd: true\n', '  bfd: true\n  timers: {keepalive_s: 5, hold_s: 15}\n')
    (inventory / 'intent.yml').write_text(text)
    return inventory


def _command(inventory, dest, *args):
    return ansible_cli('playbook') + ['-i', str(inventory), os.path.join(ROOT, 'playbooks', 'render.yml'),
                                      '-e', json.dumps({'aifabric_render_dest': str(dest)}), *args]


def _env(local_temp=None):
    """The environment of a render; `local_temp`: Ansible's own temporary directory (a killed run cannot remove it)."""
    return ansible_env(ANSIBLE_LOCAL_TEMP=local_temp or None)


def _render(inventory, dest, *args):
    return subprocess.run(_command(inventory, dest, *args), cwd=ROOT, env=_env(), capture_output=True, text=True,
                          timeout=300, check=False)


def _bfd_lines(dest):
    with open(os.path.join(str(dest), 'configs', 'leaf001', 'frr.conf'), encoding='utf-8') as handle:
        return sum(1 for line in handle if ' timers 5 15' in line)


def _partials(generations):
    # (A partial the next render renamed to .trash-... is on its way out: a detached process deletes it.)
    return [name for name in os.listdir(generations) if '.partial' in name and '.trash' not in name] \
        if os.path.isdir(generations) else []


def _count_files(directory):
    return sum(len(names) for _unused, _dirs, names in os.walk(directory, followlinks=True))  # device directories


def test_render_killed_mid_way_leaves_the_previous_output_intact(tmp_path):
    dest = tmp_path / 'out' / 'pod1k'
    generations = tmp_path / 'out' / '.pod1k.generations'
    first = _render(_inventory(tmp_path, 'before'), dest)
    assert first.returncode == 0, first.stdout + first.stderr
    assert verify(str(dest)) == [] and os.readlink(dest).endswith('g000001')
    files = len(read_manifest(str(dest))['files'])
    assert files > 700 and _bfd_lines(dest) > 0

    changed = _inventory(tmp_path, 'after', bfd=False)
    killed_at = None
    for _attempt in range(3):  # the render takes about a second: catch it while it writes
        process = subprocess.Popen(_command(changed, dest), cwd=ROOT, env=_env(tmp_path / 'ansible-local'),
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 120
        while process.poll() is None and time.monotonic() < deadline:
            partial = _partials(generations)
            if partial and _count_files(generations / partial[0]) >= 20:
                # The render runs in an Ansible worker, which is in a session of its own (WorkerProcess._detach):
                # kill it by the pid its lock file names, then the ansible-playbook process group.
                with open(tmp_path / 'out' / '.pod1k.lock', encoding='utf-8') as handle:
                    worker = int(handle.read().split()[1])
                os.kill(worker, signal.SIGKILL)
                os.killpg(process.pid, signal.SIGKILL)
                killed_at = _count_files(generations / partial[0])
                break
            time.sleep(0.002)
        process.wait(60)
        if killed_at:
            break
        shutil.rmtree(str(tmp_path / 'out'))
        assert _render(_inventory(tmp_path, 'again%d' % _attempt), dest).returncode == 0
    assert killed_at, 'the render finished before it could be killed'
    time.sleep(0.5)  # anything still running would show up below

    # The previous complete output is what dest shows, whole and verified; the half-written generation is aside.
    assert os.readlink(dest).endswith('g000001')
    assert verify(str(dest)) == []
    assert len(read_manifest(str(dest))['files']) == files and _bfd_lines(dest) > 0
    partial = _partials(generations)
    assert len(partial) == 1 and _count_files(generations / partial[0]) < files
    assert not os.path.exists(generations / partial[0] / 'manifest.json')

    again = _render(changed, dest)
    assert again.returncode == 0, again.stdout + again.stderr
    assert verify(str(dest)) == [] and _bfd_lines(dest) == 0
    assert _partials(generations) == [] and os.readlink(dest).endswith('g000002')


def _while_writing(process, generations, then):
    """Call `then()` once the render of `process` has written part of its new generation; True when it did."""
    deadline = time.monotonic() + 120
    while process.poll() is None and time.monotonic() < deadline:
        partial = _partials(generations)
        if partial and _count_files(generations / partial[0]) >= 20:
            then()
            return True
        time.sleep(0.002)
    return False


def test_two_renders_into_one_directory_wait_for_each_other(tmp_path):
    dest = tmp_path / 'out' / 'pod1k'
    inventories = [_inventory(tmp_path, 'with-bfd'), _inventory(tmp_path, 'without-bfd', bfd=False)]
    processes = [subprocess.Popen(_command(inventory, dest), cwd=ROOT, env=_env(), stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True) for inventory in inventories]
    outputs = [process.communicate(timeout=300)[0] for process in processes]
    for process, output in zip(processes, outputs):
        assert process.returncode == 0, output
        assert not EXCEPTION_NAME.search(output), output
    # Both completed one after the other: two generations, and dest is exactly the last one, verified.
    assert sorted(os.listdir(tmp_path / 'out' / '.pod1k.generations')) == ['g000001', 'g000002', 'store']
    assert verify(str(dest)) == []
    generations = tmp_path / 'out' / '.pod1k.generations'
    made_by = {}
    for generation in ('g000001', 'g000002'):
        intent = read_manifest(str(generations / generation))['meta']['intent']
        made_by[generation] = os.path.basename(os.path.dirname(intent))
        # Each generation is wholly one intent's output: its BFD lines match the intent that made it.
        assert (_bfd_lines(generations / generation) > 0) == (made_by[generation] == 'with-bfd')
    assert sorted(made_by.values()) == ['with-bfd', 'without-bfd']
    assert read_manifest(str(dest))['meta']['intent'].endswith('/%s/intent.yml' % made_by['g000002'])


def test_a_render_that_may_not_wait_fails_clearly(tmp_path):
    dest = tmp_path / 'out' / 'pod1k'
    inventory = _inventory(tmp_path, 'pod')
    with StagedOutput(str(dest)) as holder:  # another render, in the middle of its work
        holder.put('configs/other/file', 'x\n')
        started = time.monotonic()
        result = _render(inventory, dest, '-e', 'aifabric_render_lock_timeout=1')
        assert time.monotonic() - started < 60
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert 'another render into %s is running (pid %d' % (dest, os.getpid()) in output
    assert 'waited 1 s' in output and not EXCEPTION_NAME.search(output)
    assert not os.path.lexists(dest)
