"""A switch whose TCP port answers but whose sshd is frozen (what `docker pause` does to a lab switch): every
connection, command, upload, gather and deploy step ends within its deadline as an error naming the device and the
step, and the test finishes in seconds.

The switch is the SONiC SSH double (a real OpenSSH server), frozen with SIGSTOP on every process of it after the
login succeeded: the kernel still accepts and acknowledges, nothing answers.
"""

import getpass
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.doubles.fleet import TEST_PASSWORD_HASH, load_design
from tests.doubles.ssh.server import descendants
from tests.unit.utils.ansible_cli import ansible_cli, ansible_env

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import transport
from tests.unit.utils.paths import ROOT

MIXED = os.path.join(ROOT, 'tests', 'doubles', 'fixtures', 'mixed.yml')
SONIC_SWITCH = 'leaf002'  # a SONiC switch of the mixed fabric
GUARD = 60  # seconds after which the test itself gives up: the code under test hangs
# The same for the playbook, whose own work (ansible-playbook's start, a render, module runs) comes on top of the two
# 4 s deadlines: 13 s alone on a quiet machine, over 60 s in a CI run where a dozen busy processes shared two CPUs.
PLAYBOOK_GUARD = 120
TIMEOUT = 4  # ansible_command_timeout: connecting may take 3 x, an upload 3 x, a command its own timeout


def _freeze(double):
    """SIGSTOP every process of the double (its sshd listener and the sessions): the port accepts, nothing speaks."""
    pids = descendants(double.process.pid) + [double.process.pid]
    for pid in pids:
        try:
            os.kill(pid, signal.SIGSTOP)
        except ProcessLookupError:
            pass  # a session process that ended after it was listed: nothing left to freeze
    return pids


def _thaw(pids):
    for pid in pids:
        try:
            os.kill(pid, signal.SIGCONT)
        except ProcessLookupError:
            pass


def _known_hosts(double, directory):
    """A known_hosts file with the double's host key: host keys are checked, as on a production network."""
    with open(os.path.join(double.state_dir, 'etc', 'ssh_host_ed25519_key.pub'), encoding='utf-8') as handle:
        key = ' '.join(handle.read().split()[:2])
    path = os.path.join(str(directory), 'known_hosts')
    with open(path, 'w', encoding='utf-8') as handle:
        handle.write('[%s]:%d %s\n' % (double.host, double.port, key))
    return path


def _host_vars(double, ssh_key, known_hosts, timeout):
    return {'ansible_host': double.host, 'ansible_port': double.port, 'ansible_user': getpass.getuser(),
            'ansible_ssh_private_key_file': ssh_key,
            'aifabric_ssh_known_hosts': known_hosts, 'ansible_command_timeout': timeout}


class _Hung(BaseException):  # not caught by the `except Exception` of the code under test
    pass


@pytest.fixture(name='guard')
def fixture_guard():
    """Fail (instead of hanging for ever) when the code under test does not end within GUARD seconds. The code under
    test may set deadlines of its own inside this one."""
    def hung(_signum, _frame):
        raise _Hung('still waiting after %d s: the frozen switch hangs the caller' % GUARD)
    previous = signal.signal(signal.SIGALRM, hung)
    signal.setitimer(signal.ITIMER_REAL, GUARD)
    yield
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, previous)


def test_commands_and_uploads_on_a_frozen_switch_end_within_the_command_timeout(ssh_double, ssh_key, tmp_path, guard):
    double, _connect = ssh_double(SONIC_SWITCH, 'sonic')
    settings = transport.ShellSettings.from_host_vars(
        SONIC_SWITCH, _host_vars(double, ssh_key, _known_hosts(double, tmp_path), timeout=TIMEOUT))
    assert settings.host_key_checking
    with transport.shell_session(settings) as shell:
        assert shell.run('echo ready', 'probe')[1].strip() == 'ready'
        frozen = _freeze(double)
        try:
            started = time.monotonic()
            with pytest.raises(transport.TransportError) as upload:
                shell.upload('hello\n', '/tmp/aifabric-frozen.txt', 'upload the candidate')
            assert time.monotonic() - started < 3 * TIMEOUT + 3
            assert str(upload.value).startswith('%s: upload the candidate failed: ' % SONIC_SWITCH)
            started = time.monotonic()
            with pytest.raises(transport.TransportError) as command:
                shell.run('show version', 'show version', timeout=TIMEOUT)
            assert time.monotonic() - started < TIMEOUT + 3
            assert str(command.value).startswith('%s: show version failed: ' % SONIC_SWITCH)
        finally:
            _thaw(frozen)


def test_a_new_session_to_a_frozen_switch_ends_within_the_connect_timeout(ssh_double, ssh_key, tmp_path, guard):
    double, _connect = ssh_double(SONIC_SWITCH, 'sonic')
    settings = transport.ShellSettings.from_host_vars(
        SONIC_SWITCH, _host_vars(double, ssh_key, _known_hosts(double, tmp_path), timeout=TIMEOUT))
    frozen = _freeze(double)
    try:
        started = time.monotonic()
        with pytest.raises(transport.TransportError) as connect:
            with transport.shell_session(settings):
                pass
        assert time.monotonic() - started < 3 * TIMEOUT + 3
        assert str(connect.value).startswith('%s: SSH connection to ' % SONIC_SWITCH)
    finally:
        _thaw(frozen)


def test_deadline_bounds_a_step_and_names_the_device_and_the_step(guard):
    started = time.monotonic()
    with pytest.raises(transport.StepTimeout) as timed_out:
        with transport.deadline(0.5, 'leaf001', 'push'):
            time.sleep(30)  # a library call that never returns
    assert time.monotonic() - started < 3
    assert str(timed_out.value) == 'leaf001: push failed: no answer within 0.5 s'
    # A deadline inside another: the outer one still fires on time, the inner one leaves it as it was.
    with pytest.raises(transport.StepTimeout, match='outer'):
        with transport.deadline(1, 'leaf001', 'outer'):
            with transport.deadline(5, 'leaf001', 'inner'):
                pass
            time.sleep(30)
    # A step that swallows the first expiry (a cleanup that catches everything) is interrupted again.
    with pytest.raises(transport.StepTimeout):
        with transport.deadline(0.3, 'leaf001', 'stubborn'):
            try:
                time.sleep(30)
            except transport.StepTimeout:
                pass
            time.sleep(30)


FREEZE = ('import os, signal, sys; sys.path.insert(0, sys.argv[1]); from tests.doubles.ssh.server import descendants; '
          'pid = int(sys.argv[2]); [os.kill(each, signal.SIGSTOP) for each in descendants(pid) + [pid]]')
PLAYBOOK = """
- hosts: {switch}
  gather_facts: false
  vars:
    aifabric_intent: {intent}
  tasks:
    - name: Render what a push sends (a deploy pushes the reviewed generation only)
      aifabric.fabric.render:
        dest: {rendered}
        devices: [{switch}]
      delegate_to: localhost
    - name: Log in once; the ControlMaster stays
      ansible.builtin.raw: echo ready
      changed_when: false
    - name: Freeze the switch (docker pause), its open sessions included
      ansible.builtin.command:
        argv: {freeze}
      delegate_to: localhost
      changed_when: true
    - name: Read the frozen switch
      aifabric.fabric.validate_gather:
        rnic: false
        timeout: 4
      register: gathered
    - name: Push to the frozen switch
      aifabric.fabric.switch_deploy:
        step: push
        timeout: 4
        rendered: {rendered}
      register: pushed
      ignore_errors: true
    - name: Keep the results for the test
      ansible.builtin.copy:
        content: "{{{{ {{'gathered': gathered.state._error | default(''), 'pushed': pushed}} | to_json }}}}"
        dest: {results}
        mode: '0600'
      delegate_to: localhost
"""


def test_gather_and_deploy_steps_on_a_frozen_switch_end_as_errors_naming_the_device_and_step(ssh_double, ssh_key,
                                                                                             tmp_path):
    double, _connect = ssh_double(SONIC_SWITCH, 'sonic')
    known_hosts = _known_hosts(double, tmp_path)
    host_vars = _host_vars(double, ssh_key, known_hosts, timeout=30)
    host_vars.update(ansible_connection='ansible.builtin.ssh', ansible_python_interpreter=sys.executable,
                     ansible_ssh_common_args='-o StrictHostKeyChecking=yes -o UserKnownHostsFile=%s' % known_hosts,
                     aifabric_switch_users={user['name']: TEST_PASSWORD_HASH
                                            for user in load_design(MIXED).intent['management']['users']})
    inventory = tmp_path / 'inventory.yml'
    inventory.write_text(json.dumps({'all': {'hosts': {SONIC_SWITCH: host_vars}}}))
    playbook = tmp_path / 'frozen.yml'
    results_path = tmp_path / 'results.json'
    freeze = [sys.executable, '-c', FREEZE, ROOT, str(double.process.pid)]  # the sessions opened by then too
    playbook.write_text(PLAYBOOK.format(switch=SONIC_SWITCH, intent=MIXED, freeze=json.dumps(freeze),
                                        results=results_path, rendered=tmp_path / 'rendered'))
    env = ansible_env(ANSIBLE_CONTROL_PATH_DIR=tmp_path / 'cp')
    started = time.monotonic()
    process = subprocess.Popen(  # pylint: disable=consider-using-with
        ansible_cli('playbook') + ['-i', str(inventory), str(playbook)], cwd=str(tmp_path), env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        output, _unused = process.communicate(timeout=PLAYBOOK_GUARD)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _unused = process.communicate()
        pytest.fail('validate.yml-style gather on a frozen switch hung for %d s:\n%s' % (PLAYBOOK_GUARD, output[-3000:]))
    finally:
        _thaw(descendants(double.process.pid) + [double.process.pid])
    seconds = time.monotonic() - started
    assert process.returncode == 0, output[-4000:]
    results = json.loads(results_path.read_text())
    assert results['gathered'].startswith('%s: read state failed: no answer within 4 s' % SONIC_SWITCH), results
    pushed = results['pushed']
    assert pushed['failed'] and pushed['outcome'] == 'failed' and pushed['failed_step'] == 'connect', pushed
    assert pushed['msg'].startswith('%s: connect failed: no answer within 4 s' % SONIC_SWITCH), pushed
    assert seconds < PLAYBOOK_GUARD - 10, output
