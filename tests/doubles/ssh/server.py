"""A real OpenSSH server per simulated switch, whose shell is bash with the vendor's commands on PATH.

Each device gets a state directory D and its own `/usr/sbin/sshd` (Debian's openssh-server) on 127.0.0.1:<free
port>, started in a private mount namespace where D/tmp is the device's /tmp, so files a driver uploads to
/tmp on one switch are not seen by another. Login is by public key (a key pair generated per run); every
session runs the device's login script: an interactive bash with the vendor prompt (`admin@leaf001:~$` on
SONiC, `cumulus@leaf001:mgmt:~$` on Cumulus Linux) and D/bin first on PATH, where small wrappers run the
vendor commands implemented in each NOS's double (tests/unit/platforms/<kind>/double/shell.py) against D. A `sudo` wrapper runs
commands without a password (SONiC's admin and NVUE's cumulus users have sudo rights); `sudo -s` opens a root
shell with a `#` prompt, as netmiko's LinuxSSH.enable() expects.

A timer thread per device plays the role of the switch's own timers: NVUE's `nv config apply --confirm`
rollback and jobs scheduled with `systemd-run --on-active=SECONDS` (what a SONiC deploy uses for its
confirm timer), so they fire even when the SSH session that armed them is gone.
"""

from __future__ import annotations

import functools
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SSHD = '/usr/sbin/sshd'
ALIASES = '/run/aifabric-doubles'
SFTP_SERVER = '/usr/lib/openssh/sftp-server'
# Commands each platform puts on PATH (each one a wrapper around tests/doubles/ssh/cli.py).
COMMANDS = {
    'sonic': ('config', 'show', 'sonic-cfggen', 'sonic-db-cli', 'sonic-db-dump', 'vtysh', 'docker', 'systemd-run',
              'systemctl', 'useradd', 'chpasswd', 'getent', 'id'),
    'nvue': ('nv', 'vtysh', 'ip', 'systemd-run', 'systemctl'),
}
PROMPT_USER = {'sonic': 'admin', 'nvue': 'cumulus'}
# Vendor directories inside the switch, bound from its state directory (NVUE: also the directory the deploy keeps
# its confirm state in, so that a reset to the factory state can clear it).
VENDOR_DIRS = {'sonic': (('/etc/sonic', 'etc/sonic'),),
               'nvue': (('/etc/nvue.d', 'etc/nvue.d'), ('/etc/aifabric-deploy', 'etc/aifabric-deploy'))}


def free_port(host='127.0.0.1'):
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def generate_key(path):
    """An ed25519 key pair for this run (`path` and `path.pub`)."""
    if not os.path.exists(path):
        subprocess.run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-C', 'aifabric-double', '-f', path],
                       check=True, stdout=subprocess.DEVNULL)
    return path


@functools.lru_cache(maxsize=None)
def site_packages(python):
    """The site-packages directories of `python`: the commands run it with -S (no site module) and get them
    through PYTHONPATH. site's work is a quarter of a show command's start (the venv's .pth files: setuptools'
    distutils shim, junos-eznc's namespace package, none of which a double needs), and a deploy or a validation
    runs hundreds of commands."""
    found = subprocess.run([python, '-c', 'import json, site; print(json.dumps(site.getsitepackages()))'],
                           check=True, capture_output=True, text=True).stdout
    return tuple(json.loads(found))


def descendants(pid):
    """Every live process below `pid` (read from /proc), deepest first."""
    children = {}
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % entry, encoding='utf-8') as handle:
                fields = handle.read().rsplit(')', 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
    found, stack = [], [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return list(reversed(found))


class SshDouble:
    """One simulated switch reachable over SSH. `kind` is 'sonic' or 'nvue'."""

    def __init__(self, name, kind, state_dir, public_key, host='127.0.0.1', port=0, device=None, python=None, root=None):
        if kind not in COMMANDS:
            raise ValueError('kind must be one of %s' % ', '.join(COMMANDS))
        if not os.path.exists(SSHD):
            raise RuntimeError('%s not found: install Debian openssh-server (make setup)' % SSHD)
        if os.geteuid() != 0:
            raise RuntimeError('SSH doubles run as root: each switch gets its own mount namespace (private /tmp)')
        self.name, self.kind, self.state_dir = name, kind, os.path.abspath(state_dir)
        self.public_key, self.host = public_key, host
        self.port = port or free_port(host)
        self.device = dict(device or {})
        # Inside the device's mount namespace its state directory is also reachable here (its /tmp is D/tmp).
        self.inside = os.path.join(ALIASES, '%s-%d' % (name, self.port))
        # The machine's /tmp, still reachable inside the switch once D/tmp hides it: a checkout, a venv or an
        # interpreter that lives under /tmp is run through this alias.
        self.host_tmp = self.inside + '-host-tmp'
        self.python = self.visible(python or sys.executable)
        self.root = self.visible(root or ROOT)
        self.python_path = os.pathsep.join([self.root] + [self.visible(folder) for folder in site_packages(python or sys.executable)])
        self.process = None
        self._stop = threading.Event()
        self._timer_thread = None

    def visible(self, path):
        """`path` as the switch's processes see it (anything under the machine's /tmp through the alias)."""
        path = os.path.abspath(path)
        if path == '/tmp' or path.startswith('/tmp/'):
            return self.host_tmp + path[len('/tmp'):]
        return path

    # -- files --------------------------------------------------------------------------------------------
    def _write(self, relative, text, mode=0o644):
        path = os.path.join(self.state_dir, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w', encoding='utf-8') as handle:
            handle.write(text)
        os.chmod(path, mode)
        return path

    def prepare(self):
        from tests.doubles.ssh import state
        directory = self.state_dir
        inside = self.inside
        for sub in ('bin', 'tmp', 'home', 'etc', 'jobs'):
            os.makedirs(os.path.join(directory, sub), exist_ok=True)
        os.chmod(os.path.join(directory, 'tmp'), 0o1777)
        key = os.path.join(directory, 'etc', 'ssh_host_ed25519_key')
        if not os.path.exists(key):
            subprocess.run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-f', key], check=True, stdout=subprocess.DEVNULL)
        self._write('etc/authorized_keys', self.public_key.strip() + '\n', 0o600)
        device = {'name': self.name, 'kind': self.kind}
        device.update(self.device)
        state.init_device(directory, device)
        env = {'DOUBLE_STATE': inside, 'DOUBLE_KIND': self.kind, 'DOUBLE_PYTHON': self.python,
               'PYTHONPATH': self.python_path, 'HOME': os.path.join(inside, 'home'),
               'PATH': '%s:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' % os.path.join(inside, 'bin')}
        exports = ''.join('export %s=%s\n' % (key, shlex.quote(value)) for key, value in sorted(env.items()))
        user = PROMPT_USER[self.kind]
        site = ':mgmt' if self.kind == 'nvue' else ''
        prompt = shlex.quote('%s@%s%s:~$ ' % (user, self.name, site))
        root_prompt = shlex.quote('root@%s%s:/home/%s# ' % (self.name, site, user))
        self._write('etc/bashrc', exports + 'export DOUBLE_PRIVILEGED=0\ncd "$HOME"\nunset HISTFILE\nPS1=%s\n' % prompt)
        self._write('etc/bashrc-root', exports + 'export DOUBLE_PRIVILEGED=1\nunset HISTFILE\nPS1=%s\n' % root_prompt)
        # fault knob `unreachable` (tests/doubles/faults.py): the management plane answers nothing, every session ends
        unreachable = 'grep -q \'"unreachable": true\' %s 2>/dev/null && exit 255\n' % shlex.quote(
            os.path.join(inside, 'faults.json'))
        # the management interface restarting (SONiC `config reload`, a management VRF change): until the time in
        # outage_until, no new session
        outage = shlex.quote(os.path.join(inside, 'outage_until'))
        unreachable += '[ -f %s ] && [ "$(date +%%s)" -lt "$(cat %s)" ] && exit 255\n' % (outage, outage)
        self._write('bin/.login', '#!/bin/bash\n' + unreachable + exports + 'export DOUBLE_PRIVILEGED=0\ncd "$HOME"\n'
                    'if [ -n "$SSH_ORIGINAL_COMMAND" ]; then exec /bin/bash -c "$SSH_ORIGINAL_COMMAND"; fi\n'
                    'exec /bin/bash --noprofile --rcfile %s -i\n' % shlex.quote(os.path.join(inside, 'etc', 'bashrc')), 0o755)
        self._write('bin/sudo', '#!/bin/bash\n# Passwordless sudo, like the vendor admin users.\n'
                    'export DOUBLE_PRIVILEGED=1\nwhile [[ "$1" == -* && "$1" != "-s" && "$1" != "-i" ]]; do shift; done\n'
                    'if [[ "$1" == "-s" || "$1" == "-i" ]] && [ $# -eq 1 ]; then\n'
                    '  exec /bin/bash --noprofile --rcfile %s -i\nfi\n'
                    '[[ "$1" == "-s" || "$1" == "-i" ]] && shift\nexec "$@"\n'
                    % shlex.quote(os.path.join(inside, 'etc', 'bashrc-root')), 0o755)
        for command in COMMANDS[self.kind]:
            self._write('bin/%s' % command, '#!/bin/bash\nexec "$DOUBLE_PYTHON" -S -m tests.doubles.ssh.cli %s "$@"\n'
                        % shlex.quote(command), 0o755)
        self._write('etc/sshd_config', '\n'.join([
            'Port %d' % self.port, 'ListenAddress %s' % self.host,
            'HostKey %s' % os.path.join(inside, 'etc', 'ssh_host_ed25519_key'),
            'PidFile %s' % os.path.join(inside, 'sshd.pid'),
            'AuthorizedKeysFile %s' % os.path.join(inside, 'etc', 'authorized_keys'),
            'PubkeyAuthentication yes', 'PasswordAuthentication no', 'KbdInteractiveAuthentication no',
            'PermitRootLogin prohibit-password', 'StrictModes no', 'UsePAM no', 'PrintMotd no', 'PrintLastLog no',
            'ForceCommand %s' % os.path.join(inside, 'bin', '.login'),
            # sshd runs the ForceCommand through the login user's shell, which reads that user's ~/.bashrc on this
            # machine (pyenv init and the like): the switch's sessions have the switch's home instead.
            'SetEnv HOME=%s' % os.path.join(inside, 'home'),
            'Subsystem sftp %s' % SFTP_SERVER, 'LogLevel ERROR', 'MaxStartups 50', 'ClientAliveInterval 0', '',
        ]))

    # -- life cycle ----------------------------------------------------------------------------------------
    def start(self, timeout=10.0):
        self.prepare()
        os.makedirs(self.inside, exist_ok=True)
        os.makedirs(self.host_tmp, exist_ok=True)
        os.makedirs('/run/sshd', mode=0o755, exist_ok=True)  # sshd's privilege separation directory (Debian's tmpfiles.d)
        for sub in ('etc-upper', 'etc-work'):
            os.makedirs(os.path.join(self.state_dir, sub), exist_ok=True)
        quoted = {key: shlex.quote(value) for key, value in {
            'state': self.state_dir, 'inside': self.inside, 'host_tmp': self.host_tmp,
            'tmp': os.path.join(self.state_dir, 'tmp'),
            'upper': os.path.join(self.inside, 'etc-upper'), 'work': os.path.join(self.inside, 'etc-work'),
            'config': os.path.join(self.inside, 'etc', 'sshd_config')}.items()}
        # The switch's own view (paths through the aliases: once D/tmp is /tmp, whatever lives under the machine's
        # /tmp is hidden): D at its alias, the machine's /tmp at its alias, D/tmp as /tmp, a copy-on-write /etc (what
        # a deploy writes under /etc stays in D/etc-upper) and the vendor's directories from D (SONiC: /etc/sonic).
        mounts = [item.format(**quoted) for item in (
            'mount --bind {state} {inside}', 'mount --bind /tmp {host_tmp}', 'mount --bind {tmp} /tmp',
            'mount -t overlay overlay -o lowerdir=/etc,upperdir={upper},workdir={work} /etc')]
        for inside_path, relative in VENDOR_DIRS[self.kind]:
            os.makedirs(os.path.join(self.state_dir, relative), exist_ok=True)
            mounts.append('mkdir -p %s && mount --bind %s %s' % (
                inside_path, shlex.quote(os.path.join(self.inside, relative)), inside_path))
        script = ' && '.join(mounts) + ' && exec %s -D -e -f %s' % (SSHD, quoted['config'])
        log = open(os.path.join(self.state_dir, 'sshd.log'), 'ab')  # pylint: disable=consider-using-with
        self.process = subprocess.Popen(['unshare', '--mount', '--propagation', 'private', '/bin/sh', '-c', script],
                                        stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True)
        log.close()
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.process.poll() is not None:
                with open(os.path.join(self.state_dir, 'sshd.log'), encoding='utf-8', errors='replace') as handle:
                    reason = handle.read()[-2000:]
                self.stop()  # leaves no mount alias behind
                raise RuntimeError('sshd for %s exited: %s' % (self.name, reason))
            try:
                with socket.create_connection((self.host, self.port), timeout=0.5) as sock:
                    if sock.recv(4).startswith(b'SSH-'):
                        break
            except OSError:
                time.sleep(0.05)
        else:
            self.stop()
            raise RuntimeError('sshd for %s did not answer on %s:%d' % (self.name, self.host, self.port))
        self._stop.clear()
        self._timer_thread = threading.Thread(target=self._timers, name='timers-%s' % self.name, daemon=True)
        self._timer_thread.start()
        with open(os.path.join(self.state_dir, 'endpoint.json'), 'w', encoding='utf-8') as handle:
            json.dump({'host': self.host, 'port': self.port, 'pid': self.process.pid}, handle)
        return self

    def _timers(self):
        from tests.doubles.ssh import state
        while not self._stop.wait(0.1):
            try:
                state.run_due_timers(self.state_dir, self.inside, self.process.pid if self.process else None,
                                     python=self.python, python_path=self.python_path)
            except Exception as exc:  # pylint: disable=broad-exception-caught
                with open(os.path.join(self.state_dir, 'timers.log'), 'a', encoding='utf-8') as handle:
                    handle.write('%s: %r\n' % (time.ctime(), exc))

    def drop_sessions(self):
        """Cut every open SSH session (the listener stays): a lost management connection."""
        if self.process is None:
            return
        for pid in descendants(self.process.pid):
            if _command(pid).startswith('sshd: ') and '[listener]' not in _command(pid):
                _kill(pid)

    def halt_timers(self):
        self._stop.set()

    def stop(self):
        self._stop.set()
        if self._timer_thread:
            self._timer_thread.join(timeout=2)
        if self.process is None:
            return
        # Everything that runs in the switch's mount namespace is the switch's: sessions, and jobs a deploy
        # detached with setsid/nohup (reparented to init, so not descendants of sshd any more).
        victims = same_namespace(self.process.pid) + descendants(self.process.pid) + [self.process.pid]
        for pid in victims:
            _kill(pid)
        _wait_dead(victims)
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self.process = None
        for alias in (self.inside, self.host_tmp, ALIASES):
            try:
                os.rmdir(alias)
            except OSError:
                pass  # other doubles still use the folder


def same_namespace(pid):
    """Processes (other than `pid`) in the mount namespace of `pid`."""
    try:
        mine = os.readlink('/proc/%d/ns/mnt' % pid)
    except OSError:
        return []
    found = []
    for entry in os.listdir('/proc'):
        if entry.isdigit() and int(entry) != pid:
            try:
                if os.readlink('/proc/%s/ns/mnt' % entry) == mine:
                    found.append(int(entry))
            except OSError:
                continue
    return found


def _command(pid):
    try:
        with open('/proc/%d/cmdline' % pid, 'rb') as handle:
            return handle.read().replace(b'\0', b' ').decode(errors='replace')
    except OSError:
        return ''


def _kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _running(pid):
    """True while `pid` exists and is not a zombie (SIGKILL takes effect when the process is next scheduled)."""
    try:
        with open('/proc/%d/stat' % pid, encoding='utf-8') as handle:
            return handle.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except (FileNotFoundError, ProcessLookupError):
        return False


def _wait_dead(pids, timeout=5.0):
    deadline = time.monotonic() + timeout
    while any(_running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.02)


def remove(state_dir):
    shutil.rmtree(state_dir, ignore_errors=True)
