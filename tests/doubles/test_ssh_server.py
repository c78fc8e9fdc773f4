"""The SSH doubles run from a checkout anywhere: a switch's private /tmp must not hide the checkout or the
interpreter when they live under the machine's /tmp (a CI workspace, `make units TEST_ROOT=/tmp/...`)."""

import getpass
import os
import shutil
import sys

import pytest
from netmiko import ConnectHandler

from tests.doubles.pytest_doubles import ROOT
from tests.doubles.ssh.server import SshDouble
from tests.unit.utils.waiting import patient, wait_for


def test_a_checkout_and_an_interpreter_under_tmp_still_run_the_switch_commands(tmp_path, ssh_key):
    assert str(tmp_path).startswith('/tmp/'), 'the point of this test: everything below lives under /tmp'
    checkout = tmp_path / 'checkout'
    shutil.copytree(os.path.join(ROOT, 'tests', 'doubles'), checkout / 'tests' / 'doubles',
                    ignore=shutil.ignore_patterns('__pycache__', 'test_*.py'))
    # each NOS's commands live with its platform's tests (tests/unit/platforms/<name>/double/)
    platforms = os.path.join(ROOT, 'tests', 'unit', 'platforms')
    for name in os.listdir(platforms):
        if os.path.isdir(os.path.join(platforms, name, 'double')):
            shutil.copytree(os.path.join(platforms, name, 'double'), checkout / 'tests' / 'unit' / 'platforms' / name / 'double',
                            ignore=shutil.ignore_patterns('__pycache__', 'test_*.py'))
    python = checkout / '.venv' / 'bin' / 'python'
    os.makedirs(python.parent)
    # The wrapper runs inside the switch too, where the machine's /tmp is hidden behind the switch's own: it runs the
    # interpreter binary a venv's python links to (the double gives the venv's packages through PYTHONPATH), never
    # this test process's interpreter by a path that may itself lie under /tmp (a clone under /tmp).
    interpreter = os.path.realpath(sys.executable)
    assert not interpreter.startswith('/tmp/'), 'the interpreter binary itself must live outside /tmp: %s' % interpreter
    python.write_text('#!/bin/sh\nexec %s "$@"\n' % interpreter)
    python.chmod(0o755)
    with open(ssh_key + '.pub', encoding='utf-8') as handle:
        double = SshDouble('leaf001', 'sonic', str(tmp_path / 'leaf001'), handle.read(), python=str(python),
                           root=str(checkout)).start()
    try:
        connection = ConnectHandler(device_type='linux', host=double.host, port=double.port, username=getpass.getuser(),
                                    use_keys=True, key_file=ssh_key, allow_agent=False, timeout=20)
        assert 'SONiC Software Version: SONiC.' in connection.send_command('show version')
        # a timer job runs inside the switch with the same interpreter and checkout
        connection.send_command("sudo systemd-run --on-active=1 --unit=probe sh -c 'show version > /tmp/fired'")
        connection.disconnect()
        fired = tmp_path / 'leaf001' / 'tmp' / 'fired'
        assert wait_for(lambda: fired.exists() and fired.read_text(), patient(15)), 'the timer job ran'
        assert 'SONiC Software Version' in fired.read_text()
    finally:
        double.stop()


def test_the_unreachable_knob_cuts_every_session_until_cleared(ssh_double, ssh_key):
    import subprocess
    from tests.doubles import faults
    double, connect = ssh_double('leaf001', 'nvue')
    argv = ['ssh', '-i', ssh_key, '-p', str(double.port), '-o', 'StrictHostKeyChecking=no', '-o',
            'UserKnownHostsFile=/dev/null', '-o', 'BatchMode=yes', '%s@%s' % (getpass.getuser(), double.host), 'echo up']
    assert subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False).stdout.strip() == 'up'
    faults.write(double.state_dir, unreachable=True)
    down = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    assert down.returncode == 255 and down.stdout == '', 'ssh reports it as unreachable (exit 255), as Ansible reads it'
    with pytest.raises(Exception):  # netmiko: the session closes before any prompt
        connect()
    faults.clear(double.state_dir)
    assert subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False).stdout.strip() == 'up'
