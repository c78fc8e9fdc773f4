# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Ctrl-C while playbooks/render.yml writes the 1,024-GPU pod ends the run as Ansible's own does ("User interrupted
execution", never a silent exit 130), with the previous output in place. Apart from test_render_interrupted.py because
the message is ansible-core's: `make units` runs this file on every supported release (CORE_UNIT_TESTS), not that one.
"""

import os
import signal
import subprocess

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.output import verify
from tests.unit.plugins.action.test_render_interrupted import (
    EXCEPTION_NAME, _bfd_lines, _command, _env, _inventory, _render, _while_writing)
from tests.unit.utils.paths import ROOT

pytestmark = pytest.mark.integration  # it starts Ansible's command line tools (make integration runs it)


def test_ctrl_c_while_the_render_writes_says_so_and_keeps_the_previous_output(tmp_path):
    """A terminal's Ctrl-C is SIGINT to the foreground process group: the run names the interruption, fails, and the
    previous complete output stays what dest shows."""
    dest = tmp_path / 'out' / 'pod1k'
    generations = tmp_path / 'out' / '.pod1k.generations'
    assert _render(_inventory(tmp_path, 'before'), dest).returncode == 0
    changed = _inventory(tmp_path, 'after', bfd=False)
    for _attempt in range(3):  # the render writes for about a second: catch it then
        process = subprocess.Popen(_command(changed, dest), cwd=ROOT, env=_env(tmp_path / 'ansible-local'),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        interrupted = _while_writing(process, generations, lambda: os.killpg(process.pid, signal.SIGINT))
        out, err = process.communicate(timeout=120)
        if interrupted:
            break
    assert interrupted, 'the render finished before it could be interrupted'
    assert process.returncode > 0, 'exit %s, no message: %r' % (process.returncode, err[-500:])
    assert 'User interrupted execution' in err, out[-2000:] + err[-2000:]
    assert not EXCEPTION_NAME.search(out + err.replace('User interrupted execution', '')), err[-2000:]
    assert os.readlink(dest).endswith('g000001') and verify(str(dest)) == [] and _bfd_lines(dest) > 0
    again = _render(changed, dest)
    assert again.returncode == 0 and _bfd_lines(dest) == 0, again.stdout + again.stderr
