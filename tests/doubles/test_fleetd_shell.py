# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The POSIX shell subset of the fleet's devices (tests/doubles/fleetd/shell.py): what the readings send runs as a
shell runs it, everything else is refused with exit status 2 rather than read as something else."""

from __future__ import annotations

import pytest

from tests.doubles.fleetd.shell import Shell

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.shell import batch_outputs, command_batch


def device(argv, _stdin):
    """A device with two commands: `db` echoes its words, `fail` prints on both streams and exits 3."""
    if argv[0] == 'db':
        return 0, 'v-%s\n' % '-'.join(argv[1:]), ''
    if argv[0] == 'fail':
        return 3, 'partial\n', 'failed\n'
    if argv[0] == 'cat' and argv[1:] == ['/etc/nccl.conf']:
        return 0, 'NCCL_IB_TC=106\n', ''
    return 127, '', 'sh: 1: %s: not found\n' % argv[0]


@pytest.mark.parametrize('request_text, expected', [
    # the SONiC gatherer's loops: command substitution into a variable, quoted expansions
    ("""for n in 'Ethernet0' 'Ethernet4'; do o=$(db HGET "$n"); echo "== $n $o"; db HGETALL "COUNTERS:$o"; done""",
     '== Ethernet0 v-HGET-Ethernet0\nv-HGETALL-COUNTERS:v-HGET-Ethernet0\n'
     '== Ethernet4 v-HGET-Ethernet4\nv-HGETALL-COUNTERS:v-HGET-Ethernet4\n'),
    # the NVUE gatherer's fallback: a group, stderr to /dev/null, ||
    ("""for n in 'swp1'; do echo "== $n"; { fail "$n" 2>/dev/null || db b "$n"; }; done""", '== swp1\npartial\nv-b-swp1\n'),
    ("x='a b'; for w in $x; do echo [$w]; done", '[a]\n[b]\n'),  # field splitting of an unquoted expansion
    ("sh -c 'echo a; exit 3'; echo $?", 'a\n3\n'),
    ('echo a | cat', 'a\n'),
    ('if [ 1 -eq 2 ]; then echo yes; else echo no; fi', 'no\n'),
    ("""f() { echo "$#:$1"; shift; echo "$@"; }; f 'one two' three four""", '3:one two\nthree four\n'),
    ("printf '%s=%d\\n' a 3 b 4", 'a=3\nb=4\n'),
    ('cat /etc/nccl.conf', 'NCCL_IB_TC=106\n'),  # a file of the device
    ('db x &\nwait', 'v-x\n'),  # a background job runs to its end first
])
def test_requests_run_as_a_shell_runs_them(request_text, expected):
    assert Shell(device).run(request_text) == (0, expected, '')


@pytest.mark.parametrize('request_text, what', [
    ('ls *', 'pathname expansion'),
    ('cat <<EOF\nx\nEOF', '<<'),
    ('echo $((1 + 2))', 'arithmetic'),
    ('echo `db x`', '$(...)'),
    ('echo ${x:-y}', 'parameter operators'),
    ('sleep 5', 'sleep 5'),
    ('while true; do :; done', 'while'),
    ('echo "unterminated', 'unterminated'),
])
def test_what_it_does_not_interpret_is_refused_with_exit_status_2(request_text, what):
    rc, _out, err = Shell(device).run(request_text)
    assert rc == 2 and what in err and 'not supported by the fleet double' in err


def test_exit_status_and_unknown_commands():
    shell = Shell(device)
    assert shell.run('fail') == (3, 'partial\n', 'failed\n')
    assert shell.run('nope 1') == (127, '', 'sh: 1: nope: not found\n')
    assert shell.run('fail; echo $?')[1] == 'partial\n3\n'
    assert shell.run('o=$(fail); echo $?')[1] == '3\n'  # an assignment's status is its substitution's


def test_files_only_inside_a_directory_the_request_made():
    rc, _out, err = Shell(device).run('echo x >/etc/passwd')
    assert rc == 2 and 'cannot create /etc/passwd' in err
    assert Shell(device).run('d=$(mktemp -d); echo hi >"$d/f"; cat "$d/f"; base64 <"$d/f"') == (0, 'hi\naGkK\n', '')


def test_the_readings_batch_script_on_standard_input_as_ansible_pipelines_it():
    """The shell reader's script (what the per-host path and the fleet reader send), through `/bin/sh -c '/bin/sh &&
    sleep 0'` as Ansible's ssh connection runs a pipelined command, parsed back by the reader."""
    commands = [('a', ['db', 'x', 'y z']), ('b', ['fail']), ('d', ['nope']),
                ('c', ['sh', '-c', "for n in 'p' 'q'; do echo \"== $n\"; db \"$n\"; done"])]
    shell = Shell(device)
    request = "/bin/sh -c '/bin/sh && sleep 0'"
    assert shell.needs_stdin(request) and not shell.needs_stdin("sh -c 'db x'")
    rc, out, err = shell.run(request, command_batch(commands, 30, 8))
    assert (rc, err) == (0, '')
    outputs = batch_outputs(commands, 30, out)
    assert outputs['a'] == {'cmd': ['db', 'x', 'y z'], 'rc': 0, 'stdout': 'v-x-y z', 'stderr': ''}
    assert outputs['b'] == {'cmd': ['fail'], 'rc': 3, 'stdout': 'partial', 'stderr': 'failed'}
    assert outputs['d']['rc'] == 127
    assert outputs['c']['stdout'] == '== p\nv-p\n== q\nv-q'
    assert shell.files == {} and shell.directories == set()  # trap 'rm -rf "$d"' EXIT ran
