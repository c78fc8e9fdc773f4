# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The first run, told true (issue 38, item 8): README.md says every setup step prints the time of day and the long
ones say every 30 s that they still run. scripts/with-progress.sh does that; every long step of the setup (downloads,
apt, pip, Go) must run through it."""

import os
import re
import subprocess

import pytest

from tests.unit.utils.paths import ROOT

SCRIPT = os.path.join(ROOT, 'scripts', 'with-progress.sh')
STAMP = r'==> \[\d\d:\d\d:\d\d\] '
# A setup command that can take minutes on a fresh machine (network, package installs, building Go).
LONG_STEP = re.compile(r'\b(?:pip install|apt-get (?:install|update)|go build|go mod download|curl\b[^|;]*\s-o)\s')
SETUP = ('Makefile', os.path.join('scripts', 'setup-host.sh'))


def test_a_long_command_says_when_it_starts_that_it_still_runs_and_how_it_ended():
    result = subprocess.run([SCRIPT, 'pip: packages', 'sh', '-c', 'echo out; sleep 2.5; exit 3'], env=dict(
        os.environ, PROGRESS_INTERVAL='1'), capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 3 and result.stdout == 'out\n'
    lines = result.stderr.splitlines()
    assert re.fullmatch(STAMP + 'pip: packages', lines[0]), lines
    # every interval a line with the time running (a loaded machine may skip a second, never go back)
    running = [int(re.fullmatch(STAMP + r'pip: packages: still running \((\d+) s\)', line).group(1)) for line in lines[1:-1]]
    assert running and running == sorted(set(running)), lines
    ended = re.fullmatch(STAMP + r'pip: packages: failed \(exit 3\) after (\d+) s', lines[-1])
    assert ended and int(ended.group(1)) >= max(running, default=0) >= 1, lines


def _logical_lines(path):
    """The lines of a Makefile or shell script with their backslash continuations joined, and their first line."""
    with open(os.path.join(ROOT, path), encoding='utf-8') as handle:
        text = handle.read()
    number, pending, start = 0, '', 0
    for line in text.split('\n'):
        number += 1
        if not pending:
            start = number
        if line.endswith('\\'):
            pending += line[:-1] + ' '
            continue
        yield start, pending + line
        pending = ''


def silent_long_steps(path):
    return [number for number, line in _logical_lines(path)
            if not line.lstrip().startswith('#') and LONG_STEP.search(line.replace('"', ' ').replace("'", ' '))
            and 'with-progress.sh' not in line and not re.search(r'\b(?:log|echo|die|say)\b', line)]


@pytest.mark.parametrize('path', SETUP)
def test_every_long_setup_step_reports_its_progress(path):
    assert silent_long_steps(path) == [], '%s: long setup steps that print nothing while they run' % path


def test_the_scan_finds_a_silent_step(tmp_path, monkeypatch):
    script = tmp_path / 'setup.sh'
    script.write_text('# apt-get install in a comment\n"$HERE/with-progress.sh" "apt-get update" apt-get update -qq\n'
                      'apt-get install -y \\\n  frr\nlog "apt-get install is said"\n.venv/bin/pip install -q x\n')
    monkeypatch.setattr('tests.unit.scripts.test_with_progress.ROOT', str(tmp_path))
    assert silent_long_steps('setup.sh') == [3, 6]
