# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Devices with a shell read from the controller itself over SSH (asyncssh), many at once from one event loop.

The shell batch reader (shell.py) runs a reading through Ansible's connection of a per-host task: one worker process
per device and task. When the controller reads a whole fabric itself (a fleet reading, checks/live.py), each device
gets one SSH connection for all its readings, and a reading is the same batch script the per-host path runs
(shell.py: every command of the reading in one POSIX sh script on /bin/sh's standard input, each under coreutils
timeout(1), outputs framed in base64) on a channel of that connection.

Connection settings are the host's Ansible variables, as Ansible's ssh connection takes them (`SshSettings`):
ansible_host, ansible_port, ansible_user, ansible_ssh_private_key_file (or ansible_private_key_file),
ansible_password (or ansible_ssh_pass), ansible_ssh_timeout / ansible_timeout (connecting, Ansible's default 10 s),
the `-o` options of ansible_ssh_common_args / ansible_ssh_extra_args that decide where and whom to trust
(UserKnownHostsFile, StrictHostKeyChecking, Port, User, IdentityFile, ConnectTimeout) and ansible_host_key_checking
(Ansible's host_key_checking setting when the host does not set it). Host keys are checked against the known_hosts
file (OpenSSH's ~/.ssh/known_hosts unless the arguments name another) unless checking is off. What this reader cannot
do as OpenSSH would (ProxyCommand, ProxyJump, another -o it does not know) is ReadFailed naming the option: such
a host is read through Ansible's own connection (the per-host path).
"""

from __future__ import annotations

import asyncio
import functools
import os
import shlex
from dataclasses import dataclass, field
from typing import Any

from ..transport import TransportError
from .reader import ReadFailed

MAX_CHANNELS = 9  # below OpenSSH's MaxSessions (10): sshd_config(5)
# -o options of ansible_ssh_common_args / _extra_args: those that say where and whom to trust are taken, those that
# only tune OpenSSH's own transport are left to it (they change nothing a reading depends on), the rest is refused.
TAKEN = ('userknownhostsfile', 'stricthostkeychecking', 'port', 'user', 'identityfile', 'connecttimeout')
TUNING = ('serveraliveinterval', 'serveralivecountmax', 'controlmaster', 'controlpersist', 'controlpath',
          'loglevel', 'batchmode', 'compression', 'tcpkeepalive', 'identitiesonly', 'preferredauthentications',
          'kbdinteractiveauthentication', 'passwordauthentication', 'pubkeyauthentication', 'gssapiauthentication',
          'hostkeyalgorithms', 'pubkeyacceptedkeytypes', 'pubkeyacceptedalgorithms', 'connectionattempts',
          'addressfamily', 'globalknownhostsfile', 'hashknownhosts', 'checkhostip', 'forwardagent')
VARIABLES = ('ansible_host', 'ansible_port', 'ansible_user', 'ansible_ssh_private_key_file', 'ansible_private_key_file',
             'ansible_password', 'ansible_ssh_pass', 'ansible_ssh_timeout', 'ansible_timeout', 'ansible_ssh_common_args',
             'ansible_ssh_extra_args', 'ansible_host_key_checking', 'ansible_ssh_host_key_checking',
             'aifabric_ssh_known_hosts', 'aifabric_ssh_host_key_checking', 'ansible_connection')


def _flag(value, default):
    if value is None or value == '':
        return default
    return value if isinstance(value, bool) else str(value).strip().lower() in ('1', 'true', 'yes', 'on')


def ssh_options(device, text) -> dict:
    """{option: value} of the `-o Key=Value` / `-o 'Key Value'` words of ssh arguments (lower-case keys)."""
    try:
        words = shlex.split(text or '')
    except ValueError as error:
        raise ReadFailed(device, 'SSH settings', 'ansible_ssh_common_args cannot be read: %s' % error) from None
    options, index = {}, 0
    while index < len(words):
        word = words[index]
        if word == '-o' and index + 1 < len(words):
            value, index = words[index + 1], index + 2
        elif word.startswith('-o') and len(word) > 2:
            value, index = word[2:], index + 1
        elif word in ('-C', '-q', '-v', '-4', '-6', '-T', '-n'):
            index += 1
            continue
        else:
            raise ReadFailed(device, 'SSH settings', 'ssh argument %r is not one a fleet reading takes (only -o '
                             'options): read this host through its Ansible connection' % word)
        key, _sep, rest = value.replace('=', ' ', 1).partition(' ')
        options[key.strip().lower()] = rest.strip()
    return options


@dataclass(frozen=True)
class SshSettings:
    """How to reach one device's shell over SSH from the controller. The password is kept out of repr()."""

    device: str
    host: str
    username: str | None
    port: int = 22
    password: str | None = field(default=None, repr=False)
    key_file: str | None = None
    known_hosts: str | None = None
    host_key_checking: bool = True
    timeout: int = 10

    @classmethod
    def from_host_vars(cls, device, host_vars, default_host_key_checking=True):
        if host_vars.get('ansible_connection') not in (None, '', 'ssh', 'ansible.builtin.ssh', 'paramiko',
                                                       'paramiko_ssh', 'ansible.builtin.paramiko_ssh'):
            raise ReadFailed(device, 'SSH settings', 'its connection is %s, not SSH' % host_vars['ansible_connection'])
        options = {}
        for name in ('ansible_ssh_common_args', 'ansible_ssh_extra_args'):
            options.update(ssh_options(device, host_vars.get(name)))
        unknown = sorted(set(options) - set(TAKEN) - set(TUNING))
        if unknown:
            raise ReadFailed(device, 'SSH settings', 'ssh option %s is not one a fleet reading takes: read this host '
                             'through its Ansible connection' % ', '.join(unknown))
        try:
            port = int(options.get('port') or host_vars.get('ansible_port') or 22)
            timeout = int(options.get('connecttimeout') or host_vars.get('ansible_ssh_timeout')
                          or host_vars.get('ansible_timeout') or 10)
        except (TypeError, ValueError):
            raise ReadFailed(device, 'SSH settings', 'ansible_port and ansible_ssh_timeout are numbers, got %r and %r'
                             % (host_vars.get('ansible_port'), host_vars.get('ansible_ssh_timeout'))) from None
        checking = _flag(host_vars.get('ansible_ssh_host_key_checking'),
                         _flag(host_vars.get('ansible_host_key_checking'), default_host_key_checking))
        if 'stricthostkeychecking' in options:
            checking = options['stricthostkeychecking'].lower() not in ('no', 'off')
        checking = _flag(host_vars.get('aifabric_ssh_host_key_checking'), checking)
        known_hosts = host_vars.get('aifabric_ssh_known_hosts') or options.get('userknownhostsfile') or None
        password = host_vars.get('ansible_password') or host_vars.get('ansible_ssh_pass')
        return cls(device=device, host=str(host_vars.get('ansible_host') or device),
                   username=str(options.get('user') or host_vars.get('ansible_user') or '') or None, port=port,
                   password=str(password) if password else None,
                   key_file=options.get('identityfile') or host_vars.get('ansible_ssh_private_key_file')
                   or host_vars.get('ansible_private_key_file') or None,
                   known_hosts=os.path.expanduser(known_hosts) if known_hosts else None,
                   host_key_checking=checking, timeout=timeout)


@functools.lru_cache(maxsize=64)
def _known_hosts(path, _stamp):
    import asyncssh  # pylint: disable=import-outside-toplevel
    return asyncssh.read_known_hosts(path)


def known_hosts(path):
    """The parsed known_hosts file, read once while it stays the same (a fleet reading connects to thousands of
    devices listed in one file)."""
    path = os.path.expanduser(path or '~/.ssh/known_hosts')
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError:
        return ()  # no file: every host key is unknown, as OpenSSH finds it
    return _known_hosts(path, stamp)


@functools.lru_cache(maxsize=64)
def _client_key(path, _stamp):
    import asyncssh  # pylint: disable=import-outside-toplevel
    return asyncssh.read_private_key(path)


def _message(error) -> str:
    return ' '.join(str(error).split()) or type(error).__name__


class SshSession:
    """One SSH connection to one device, for all its readings (async context manager)."""

    def __init__(self, settings: SshSettings, parallel=8):
        self.settings = settings
        self.connection: Any = None  # asyncssh.SSHClientConnection once open
        self.channels = asyncio.Semaphore(max(1, min(parallel, MAX_CHANNELS)))

    async def open(self):
        import asyncssh  # pylint: disable=import-outside-toplevel
        settings = self.settings
        keys = None
        if settings.key_file:
            path = os.path.expanduser(settings.key_file)
            try:
                keys = [_client_key(path, os.stat(path).st_mtime_ns)]
            except (OSError, ValueError, asyncssh.KeyImportError) as error:
                raise ReadFailed(settings.device, 'SSH login', 'private key %s cannot be read: %s'
                                 % (settings.key_file, _message(error))) from None
        step = 'SSH connection to %s:%d' % (settings.host, settings.port)
        try:
            self.connection = await asyncio.wait_for(asyncssh.connect(
                settings.host, settings.port, username=settings.username, password=settings.password,
                client_keys=keys, known_hosts=known_hosts(settings.known_hosts) if settings.host_key_checking else None,
                connect_timeout=settings.timeout, login_timeout=settings.timeout, keepalive_interval=15,
                encoding=None), settings.timeout * 2)
        except asyncio.TimeoutError:
            raise TransportError(settings.device, step, 'no answer within %d s' % (settings.timeout * 2)) from None
        except (OSError, asyncssh.Error) as error:
            raise TransportError(settings.device, step, _message(error)) from None
        return self

    async def close(self):
        if self.connection is not None:
            self.connection.close()
            try:
                await asyncio.wait_for(self.connection.wait_closed(), 5)
            except (asyncio.TimeoutError, OSError):
                pass
            self.connection = None

    async def __aenter__(self):
        return await self.open()

    async def __aexit__(self, *_exc):
        await self.close()

    async def run_script(self, script) -> dict:
        """{rc, stdout, stderr} of a POSIX sh script fed to /bin/sh on standard input (as Ansible pipelines a module),
        on a channel of its own. TransportError when the connection fails or closes before the script ends."""
        import asyncssh  # pylint: disable=import-outside-toplevel
        if self.connection is None:
            await self.open()
        async with self.channels:
            try:
                done = await self.connection.run('/bin/sh', input=script.encode('utf-8'), check=False)
            except (OSError, asyncssh.Error) as error:
                raise TransportError(self.settings.device, 'reading its state', _message(error)) from None
        if done.exit_status is None:
            # the channel closed without an exit status: the connection is gone (asyncssh: returncode None)
            raise TransportError(self.settings.device, 'reading its state', 'the connection closed before the '
                                 'reading ended%s' % (' (signal %s)' % done.exit_signal[0] if done.exit_signal else ''))
        return {'rc': done.exit_status, 'stdout': _text(done.stdout), 'stderr': _text(done.stderr)}


def _text(data) -> str:
    if data is None:
        return ''
    return data.decode('utf-8', 'replace') if isinstance(data, (bytes, bytearray)) else str(data)


__all__ = ['SshSettings', 'SshSession', 'known_hosts', 'ssh_options', 'VARIABLES']
