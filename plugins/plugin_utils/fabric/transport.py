# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What every controller-side connection to a device shares: TransportError (one sentence naming the device, the step
and the device's own error text, never a password), deadline() and the switch shells over SSH.

Switch shells (SONiC, Cumulus, FRR on Linux) are reached over SSH with netmiko (`linux` / `cumulus_linux`), files go
over SFTP on the same connection; the host's Ansible variables give the settings (ShellSettings). A platform with a
protocol of its own keeps it in its folder (EOS's eAPI: platforms/eos/eapi.py); how a device's state is read is its
gatherer's reader (state/reader.py).

Nothing waits for ever on a switch that stops answering (a frozen sshd whose TCP port still accepts): connecting,
logging in, each command and each upload have a timeout (the host's `ansible_command_timeout`, 30 s by default), and
deadline() bounds any step in wall-clock time whatever the library underneath waits for.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import threading
import time
from dataclasses import dataclass, field


class TransportError(Exception):
    """A device could not be reached or refused a command."""

    def __init__(self, device, step, message):
        self.device = device
        self.step = step
        self.message = message
        super().__init__('%s: %s failed: %s' % (device, step, message))


class StepTimeout(TransportError):
    """A step did not end within its deadline (the device stopped answering)."""

    def __init__(self, device, step, seconds):
        self.seconds = seconds
        super().__init__(device, step, 'no answer within %g s' % seconds)


class _Expired(BaseException):
    """Raised by a deadline's alarm. Not an Exception, so that the `except Exception` of a library waiting on the
    device does not swallow it; deadline() turns it into StepTimeout."""


REFIRE_SECONDS = 1.0  # after expiring, the alarm fires again until the block has left (a cleanup that waits too)


@contextlib.contextmanager
def deadline(seconds, device, step):
    """Bound the block by `seconds` of wall-clock time: StepTimeout(device, step) when they run out, whatever the block
    waits for (a socket, a lock, an ssh process).

    SIGALRM based, so only in the main thread (the action plugins' thread); elsewhere, or with seconds <= 0, the block
    runs with the libraries' own timeouts only. Deadlines nest: an outer one, or Ansible's task `timeout`, still fires
    on time."""
    if not seconds or seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return
    expired = _Expired()
    outer_delay, outer_interval = signal.getitimer(signal.ITIMER_REAL)
    outer_at = time.monotonic() + outer_delay if outer_delay else None

    def alarm(signum, frame):
        if outer_at is not None and time.monotonic() >= outer_at and callable(outer_handler):
            outer_handler(signum, frame)  # the outer deadline ran out first: its exception, not ours
        raise expired

    outer_handler = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, min(seconds, outer_delay) if outer_delay else seconds, REFIRE_SECONDS)
    try:
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, outer_handler)
            if outer_at is not None:
                signal.setitimer(signal.ITIMER_REAL, max(outer_at - time.monotonic(), 0.001), outer_interval)
    except _Expired as error:
        if error is not expired:
            raise
        raise StepTimeout(device, step, seconds) from None


def safe_message(error, settings) -> str:
    """The library's message without the password (pyeapi quotes URLs and, on some errors, its arguments)."""
    text = ' '.join(str(error).split()) or type(error).__name__
    return text.replace(settings.password, '********') if settings.password else text


class CommandFailed(TransportError):
    """A shell command ran on the device and exited non-zero (or the session was cut while it ran)."""

    def __init__(self, device, step, message, output=''):
        self.output = output
        super().__init__(device, step, message)


def _flag(host_vars, name, default):
    value = host_vars.get(name, default)
    return value if isinstance(value, bool) else str(value).strip().lower() in ('1', 'true', 'yes', 'on')


@dataclass(frozen=True)
class ShellSettings:
    """How to reach one switch's shell over SSH. The password is kept out of repr()."""

    device: str
    host: str
    username: str
    password: str | None = field(default=None, repr=False)
    port: int = 22
    key_file: str | None = None
    known_hosts: str | None = None
    host_key_checking: bool = True
    timeout: int = 30

    @classmethod
    def from_host_vars(cls, device, host_vars):
        """ansible_host, ansible_port, ansible_user, ansible_password or ansible_ssh_private_key_file (as Ansible's
        ssh connection takes them); aifabric_ssh_known_hosts (default ~/.ssh/known_hosts) and
        aifabric_ssh_host_key_checking (default true: an unknown or changed host key is refused)."""
        username = host_vars.get('ansible_user')
        password = host_vars.get('ansible_password') or host_vars.get('ansible_ssh_pass')
        key_file = host_vars.get('ansible_ssh_private_key_file') or host_vars.get('ansible_private_key_file')
        if not username:
            raise TransportError(device, 'SSH login', 'no ansible_user set for this host')
        if not password and not key_file:
            raise TransportError(device, 'SSH login', 'neither ansible_password nor ansible_ssh_private_key_file is '
                                 'set for this host')
        try:
            port = int(host_vars.get('ansible_port') or 22)
        except (TypeError, ValueError):
            raise TransportError(device, 'SSH settings', 'ansible_port must be a port number, got %r'
                                 % (host_vars.get('ansible_port'),)) from None
        return cls(device=device, host=str(host_vars.get('ansible_host') or device), username=str(username),
                   password=str(password) if password else None, port=port, key_file=key_file or None,
                   known_hosts=host_vars.get('aifabric_ssh_known_hosts') or None,
                   host_key_checking=_flag(host_vars, 'aifabric_ssh_host_key_checking', True),
                   timeout=int(host_vars.get('ansible_command_timeout') or 30))


# Connecting waits for the TCP connection, the SSH banner (or TLS handshake) and the login, each up to the timeout.
CONNECT_TIMEOUTS = 3
RC_MARKER = re.compile(r'__aifabric_rc=(\d+)')
BEGIN_MARKER = '__aifabric_begin'


class Shell:
    """Commands on a switch's shell through an open netmiko connection, each with its exit code.

    netmiko's send_command waits for a prompt and, when the switch cuts the session (a commit that takes the
    management address away), only gives up at its read timeout; this reads until the command's own exit-code
    marker and fails at once on a closed channel."""

    def __init__(self, connection, settings):
        self.connection = connection
        self.settings = settings
        self.broken = None  # why the session cannot be used any more (a command timed out, the session was lost)

    def run(self, command, step, timeout=120, check=True):
        """(exit code, output) of `command` run by the login shell; CommandFailed when check and it fails, or at once
        when an earlier command left the session unusable."""
        if self.broken:
            raise CommandFailed(self.settings.device, step, 'not run: %s' % self.broken)
        try:
            with deadline(timeout + 1, self.settings.device, step):  # the loop's own check, unless a write blocks
                code, output = self._run(command, step, timeout)
        except TransportError as error:  # lost, or no answer: the command's fate is unknown, its output would come next
            self.broken = 'the session became unusable during %s (%s)' % (step, error.message)
            raise
        if check and code != 0:
            raise CommandFailed(self.settings.device, step, _last_lines(output) or 'exit code %d' % code, output)
        return code, output

    def _run(self, command, step, timeout):
        # The markers are split in the command line so that the shell's echo of it never matches them.
        wrapped = "printf '%%s\\n' '__aifabric''_begin'; %s; echo \"__aifabric_\"\"rc=$?\"\n" % command
        try:
            self.connection.write_channel(wrapped)
        except Exception as error:  # paramiko / socket errors: the session is gone
            raise CommandFailed(self.settings.device, step, 'the SSH session was lost (%s)'
                                % safe_message(error, self.settings)) from None
        buffer = ''
        expires = time.monotonic() + timeout
        while True:
            try:
                chunk = self.connection.read_channel()
            except Exception as error:
                raise CommandFailed(self.settings.device, step, 'the SSH session was lost (%s)'
                                    % safe_message(error, self.settings), buffer) from None
            buffer += chunk
            match = RC_MARKER.search(buffer)
            if match:
                break
            channel = self.connection.remote_conn
            if not chunk and (channel is None or channel.closed or channel.exit_status_ready()):
                raise CommandFailed(self.settings.device, step, 'the switch closed the SSH session', buffer)
            if time.monotonic() > expires:
                raise CommandFailed(self.settings.device, step, 'no answer within %d s' % timeout, buffer)
            if not chunk:
                time.sleep(0.02)
        output = buffer[:match.start()].replace('\r', '')
        begin = output.find(BEGIN_MARKER + '\n')
        output = output[begin + len(BEGIN_MARKER) + 1:] if begin >= 0 else output
        return int(match.group(1)), output

    def upload(self, text, remote_path, step):
        """Write `text` to `remote_path` on the switch over SFTP (on the netmiko connection's transport)."""
        import paramiko  # pylint: disable=import-outside-toplevel
        if self.broken:
            raise CommandFailed(self.settings.device, step, 'not run: %s' % self.broken)
        timeout = self.settings.timeout
        try:
            # paramiko waits up to an hour for a channel and for ever for the sftp subsystem: bounded here.
            with deadline(CONNECT_TIMEOUTS * timeout, self.settings.device, step):
                channel = self.connection.remote_conn.get_transport().open_session(timeout=timeout)
                channel.settimeout(timeout)
                channel.invoke_subsystem('sftp')
                sftp = paramiko.SFTPClient(channel)
                try:
                    with sftp.open(remote_path, 'w') as handle:
                        handle.write(text.encode('utf-8'))
                finally:
                    sftp.close()
        except StepTimeout as error:
            self.broken = 'the session became unusable during %s (%s)' % (step, error.message)
            raise
        except Exception as error:
            raise CommandFailed(self.settings.device, step, 'SFTP upload to %s failed: %s'
                                % (remote_path, safe_message(error, self.settings))) from None


def _last_lines(output, count=6):
    lines = [line.rstrip() for line in output.splitlines() if line.strip()]
    return ' | '.join(lines[-count:])


def quote(text):
    return shlex.quote(str(text))


@contextlib.contextmanager
def shell_session(settings, device_type='linux'):
    """An open Shell on the switch (netmiko `linux` for SONiC, `cumulus_linux` for NVUE)."""
    from netmiko import ConnectHandler  # pylint: disable=import-outside-toplevel

    known_hosts = os.path.expanduser(settings.known_hosts or '~/.ssh/known_hosts')
    options = {'device_type': device_type, 'host': settings.host, 'port': settings.port, 'username': settings.username,
               'conn_timeout': settings.timeout, 'auth_timeout': settings.timeout, 'banner_timeout': settings.timeout,
               'allow_agent': False, 'fast_cli': False, 'ssh_strict': settings.host_key_checking,
               'system_host_keys': False, 'alt_host_keys': settings.host_key_checking, 'alt_key_file': known_hosts}
    if settings.key_file:
        options.update(use_keys=True, key_file=os.path.expanduser(settings.key_file))
    if settings.password:
        options['password'] = settings.password
    step = 'SSH connection to %s:%d' % (settings.host, settings.port)
    try:
        with deadline(CONNECT_TIMEOUTS * settings.timeout, settings.device, step):
            connection = ConnectHandler(**options)
    except TransportError:
        raise
    except Exception as error:  # netmiko, paramiko and socket errors alike: one sentence, no traceback
        raise TransportError(settings.device, step, safe_message(error, settings)) from None
    shell = Shell(connection, settings)
    try:
        shell.run('export PAGER=cat SYSTEMD_PAGER=cat LANG=C', 'session setup', timeout=settings.timeout)
        yield shell
    finally:
        _close(connection, shell, settings)


class ExecShell:
    """Shell's interface (run, upload, broken) over one SSH connection without a terminal: each command is an exec
    channel of its own (the login shell's `-c`, as OpenSSH's sshd runs a command) with its exit status, uploads go
    over one SFTP session on the same connection. Nothing here waits on a prompt or a marker, and nothing needs the
    main thread: every wait is bounded by the channel's timeout, so many switches can run at once in threads (the
    deploy's fleet check, deploy/fleet.py). Standard error is merged into the output, as a terminal merges it."""

    # What shell_session sets up in the interactive session, said in every command (an exec channel starts afresh)
    PREAMBLE = 'export PAGER=cat SYSTEMD_PAGER=cat LANG=C; '

    def __init__(self, client, settings):
        self.client = client
        self.settings = settings
        self.broken = None
        self._sftp = None

    def _lost(self, step, error, output=''):
        self.broken = 'the session became unusable during %s' % step
        return CommandFailed(self.settings.device, step, 'the SSH session was lost (%s)'
                             % safe_message(error, self.settings), output)

    def run(self, command, step, timeout=120, check=True):
        """(exit code, output) of `command`; CommandFailed when check and it fails, or at once when an earlier
        command left the session unusable (as Shell.run)."""
        if self.broken:
            raise CommandFailed(self.settings.device, step, 'not run: %s' % self.broken)
        chunks = []
        try:
            transport = self.client.get_transport()
            if transport is None or not transport.is_active():
                raise OSError('the connection is closed')
            channel = transport.open_session(timeout=self.settings.timeout)
        except Exception as error:  # paramiko / socket errors: the connection is gone
            raise self._lost(step, error) from None
        try:
            channel.settimeout(min(timeout, self.settings.timeout) if timeout else self.settings.timeout)
            channel.set_combine_stderr(True)
            channel.exec_command(self.PREAMBLE + command)
            expires = time.monotonic() + timeout
            while True:
                try:
                    chunk = channel.recv(65536)
                except TimeoutError:  # socket.timeout: nothing for a while; the command may still be running
                    if time.monotonic() > expires:
                        self.broken = 'the session became unusable during %s (no answer within %d s)' % (step, timeout)
                        raise CommandFailed(self.settings.device, step, 'no answer within %d s' % timeout,
                                            b''.join(chunks).decode('utf-8', 'replace')) from None
                    continue
                if not chunk:
                    break
                chunks.append(chunk)
            # paramiko's recv_exit_status() would wait for ever for a status that never comes
            if not channel.status_event.wait(self.settings.timeout):
                raise OSError('the switch closed the channel without an exit status')
            code = channel.exit_status
        except CommandFailed:
            raise
        except Exception as error:
            raise self._lost(step, error, b''.join(chunks).decode('utf-8', 'replace')) from None
        finally:
            channel.close()
        output = b''.join(chunks).decode('utf-8', 'replace').replace('\r', '')
        if code < 0:  # paramiko's -1: the channel closed without an exit status (the command was killed)
            raise CommandFailed(self.settings.device, step, 'the switch gave no exit status', output)
        if check and code != 0:
            raise CommandFailed(self.settings.device, step, _last_lines(output) or 'exit code %d' % code, output)
        return code, output

    def upload(self, text, remote_path, step):
        """Write `text` to `remote_path` over the connection's SFTP session (opened with the first upload)."""
        if self.broken:
            raise CommandFailed(self.settings.device, step, 'not run: %s' % self.broken)
        try:
            if self._sftp is None:
                channel = self.client.get_transport().open_session(timeout=self.settings.timeout)
                channel.settimeout(self.settings.timeout)
                channel.invoke_subsystem('sftp')
                import paramiko  # pylint: disable=import-outside-toplevel
                self._sftp = paramiko.SFTPClient(channel)
            with self._sftp.open(remote_path, 'w') as handle:
                handle.write(text.encode('utf-8'))
        except TimeoutError:
            self.broken = 'the session became unusable during %s (no answer within %d s)' % (
                step, self.settings.timeout)
            raise CommandFailed(self.settings.device, step, 'SFTP upload to %s failed: no answer within %d s'
                                % (remote_path, self.settings.timeout)) from None
        except Exception as error:
            raise CommandFailed(self.settings.device, step, 'SFTP upload to %s failed: %s'
                                % (remote_path, safe_message(error, self.settings))) from None

    def close(self):
        """Drop the connection (from any thread: a blocked run() or upload() then fails at once)."""
        with contextlib.suppress(Exception):
            self.client.close()


_KNOWN_HOSTS: dict = {}  # (path, mtime, size): paramiko.HostKeys, read once for every connection of the run
_KNOWN_HOSTS_LOCK = threading.Lock()


def known_host_keys(path):
    """The host keys of a known_hosts file, read once while it does not change: paramiko's SSHClient would parse the
    whole file on every connection (a fabric's file has a line per switch: thousands of keys to parse per switch)."""
    import paramiko  # pylint: disable=import-outside-toplevel
    try:
        stat = os.stat(path)
    except OSError:
        return paramiko.HostKeys()
    index = (path, stat.st_mtime_ns, stat.st_size)
    with _KNOWN_HOSTS_LOCK:
        if index not in _KNOWN_HOSTS:
            keys = paramiko.HostKeys()
            keys.load(path)
            _KNOWN_HOSTS.clear()
            _KNOWN_HOSTS[index] = keys
        return _KNOWN_HOSTS[index]


def _checked_against(keys):
    """A paramiko host key policy accepting exactly the keys of `keys` (a known_hosts file read once): an unknown host
    or another key than the one listed is refused, as OpenSSH's StrictHostKeyChecking=yes refuses it."""
    import paramiko  # pylint: disable=import-outside-toplevel

    class KnownHosts(paramiko.MissingHostKeyPolicy):
        def missing_host_key(self, client, hostname, key):
            known = keys.lookup(hostname)
            if known is None or key.get_name() not in known:
                raise paramiko.SSHException('Server %r not found in known_hosts' % hostname)
            if known[key.get_name()] != key:
                raise paramiko.BadHostKeyException(hostname, key, known[key.get_name()])
    return KnownHosts()


@contextlib.contextmanager
def exec_session(settings, device_type='linux'):  # pylint: disable=unused-argument
    """An open ExecShell on the switch: paramiko, with the host key checked against the same known_hosts file and
    setting (aifabric_ssh_host_key_checking) as shell_session. `device_type` is shell_session's, unused: there is no
    prompt to recognise."""
    import paramiko  # pylint: disable=import-outside-toplevel

    client = paramiko.SSHClient()
    known_hosts = os.path.expanduser(settings.known_hosts or '~/.ssh/known_hosts')
    if settings.host_key_checking:
        client.set_missing_host_key_policy(_checked_against(known_host_keys(known_hosts)))
    else:
        client.set_missing_host_key_policy(paramiko.AutoAddPolicy())  # the operator asked for it
    step = 'SSH connection to %s:%d' % (settings.host, settings.port)
    try:
        client.connect(settings.host, port=settings.port, username=settings.username, password=settings.password,
                       key_filename=os.path.expanduser(settings.key_file) if settings.key_file else None,
                       timeout=settings.timeout, banner_timeout=settings.timeout, auth_timeout=settings.timeout,
                       channel_timeout=settings.timeout, allow_agent=False, look_for_keys=False)
    except Exception as error:  # paramiko and socket errors alike: one sentence, no traceback
        client.close()
        raise TransportError(settings.device, step, safe_message(error, settings)) from None
    shell = ExecShell(client, settings)
    try:
        yield shell
    finally:
        shell.close()


def _close(connection, shell, settings):
    """Log out, then drop the connection; from a session that stopped answering, only drop it (a logout would wait)."""
    try:
        if not shell.broken:
            with contextlib.suppress(Exception), deadline(settings.timeout, settings.device, 'log out'):
                connection.disconnect()
    finally:
        with contextlib.suppress(Exception):
            connection.remote_conn.get_transport().close()


__all__ = ['TransportError', 'StepTimeout', 'deadline', 'CommandFailed', 'ShellSettings', 'Shell', 'shell_session',
           'ExecShell', 'exec_session', 'known_host_keys', 'quote']
