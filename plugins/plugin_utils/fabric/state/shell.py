# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The shell batch reader: one reading of a device that has a POSIX shell (SSH to a switch's or a server's shell)
is every command in one sh script run through a connection to the device, no Python on the device and no module
payload to build per reading. Commands are argv lists (quoted word by word: nothing is interpreted twice) or
Ansible module calls ({module, args}: the GPU servers' RDMA NIC facts), which the connection runs as modules."""

from __future__ import annotations

import base64
import binascii

from ..device_text import mask
from ..transport import quote
from . import excerpt, ssh
from .reader import ReadFailed, Reader, Target

BATCH_MARK = '@aifabric-batch'
BATCH_TIMEOUT_RC = 124  # coreutils timeout(1): the command ran out of time


def command_batch(commands, timeout, parallel) -> str:
    """A sh script that runs each (label, argv) of `commands` under timeout(1) (`timeout` seconds, then KILL), at most
    `parallel` at once, and prints per command `BATCH_MARK <n> <rc>`, its stdout in base64, `BATCH_MARK-stderr` and
    its stderr in base64 (outputs of any bytes or size, never mistaken for a marker). Each `run` line names its
    label, for whoever reads the script (-vvv) and for test doubles of a device's shell."""
    lines = ['d=$(mktemp -d) || exit 125', "trap 'rm -rf \"$d\"' EXIT",
             'run() { n=$1; shift 2; timeout -k 2 %d "$@" </dev/null >"$d/$n.o" 2>"$d/$n.e"; echo $? >"$d/$n.r"; }'
             % timeout]
    for index, (label, argv) in enumerate(commands):
        lines.append('run %d %s %s &' % (index, quote(label), ' '.join(quote(arg) for arg in argv)))
        if (index + 1) % max(1, parallel) == 0:
            lines.append('wait')
    lines.append('wait')
    lines.append('for n in $(seq 0 %d); do echo "%s $n $(cat "$d/$n.r")"; base64 <"$d/$n.o"; echo %s-stderr; '
                 'base64 <"$d/$n.e"; done' % (len(commands) - 1, BATCH_MARK, BATCH_MARK))
    return '\n'.join(lines)  # no newline at the end: Ansible appends `&& sleep 0` to a command


def batch_outputs(commands, timeout, text) -> dict:
    """{label: {cmd, rc, stdout, stderr}} from the output of command_batch(commands, ...); a command whose result is
    missing (the script was cut short) or garbled (not base64) has rc None and says so in stderr."""
    found: dict = {}
    current = ''
    # base64 never holds '@': the text splits at the markers, each part a header line and base64 lines
    for part in ('\n' + text).split('\n' + BATCH_MARK)[1:]:
        header, _sep, body = part.partition('\n')
        if header.startswith('-stderr'):
            if current in found:
                found[current]['stderr'] = body
            continue
        fields = header.split()
        if not fields:
            continue
        current = fields[0]
        found[current] = {'rc': int(fields[1]) if fields[1:] and fields[1].isdigit() else None, 'stdout': body,
                          'stderr': ''}
    outputs = {}
    for index, (label, argv) in enumerate(commands):
        item = found.get(str(index))
        if item is None:
            outputs[label] = {'cmd': list(argv), 'rc': None, 'stdout': '', 'stderr': 'no result (the reading was cut short)'}
            continue
        try:
            stdout, stderr = (base64.b64decode(''.join(item[name].split()), validate=True).decode('utf-8', 'replace')
                              .rstrip('\n') for name in ('stdout', 'stderr'))
        except binascii.Error:
            outputs[label] = {'cmd': list(argv), 'rc': None, 'stdout': '', 'stderr': 'garbled result (not base64)'}
            continue
        if item['rc'] == BATCH_TIMEOUT_RC:
            stderr = (stderr + '\n' if stderr else '') + 'timed out after %d s' % timeout
        outputs[label] = {'cmd': list(argv), 'rc': item['rc'], 'stdout': stdout, 'stderr': stderr}
    return outputs


class ShellBatchReader(Reader):
    """argv commands as one command_batch script on the target's connection, module calls one by one on it."""

    name = 'shell'

    def split(self, command) -> list:
        """An argv (a list of words), a module call, or a list of either."""
        if isinstance(command, (str, dict)):
            return [command]
        if command and all(isinstance(word, str) for word in command):
            return [list(command)]  # one argv
        return [item if isinstance(item, (str, dict)) else list(item) for item in command]

    def one(self, command) -> bool:
        return len(self.split(command)) == 1

    def describe(self, command) -> str:
        return command.get('module', '') if isinstance(command, dict) else super().describe(command)

    def read(self, target: Target, commands) -> dict:
        connection = target.connection
        if connection is None:
            raise ReadFailed(target.device, 'reading its state', 'the shell reader runs its script through a '
                             'connection to the device, and none was given')
        outputs = {}
        argv_items, shared = _unique([(label, list(command)) for label, command in commands
                                      if not isinstance(command, dict)])
        if argv_items:
            ran = connection.run_script(command_batch(argv_items, target.command_timeout, target.parallel))
            outputs.update(_script_outputs(target, argv_items, ran))
            outputs.update((label, outputs[source]) for label, source in shared.items())
        for label, command in commands:
            if isinstance(command, dict):
                outputs[label] = connection.run_module(command['module'], command.get('args') or {})
        return outputs

    # -- from the controller itself (a fleet reading: ssh.py) --------------------------------------------------------
    variables = ssh.VARIABLES

    def session(self, target: Target):
        """The controller's own SSH connection to the device (ssh.SshSession), kept for all its readings."""
        return ssh.SshSession(ssh.SshSettings.from_host_vars(target.device, target.variables), target.parallel)

    async def read_async(self, target: Target, commands) -> dict:
        """The same batch script as read(), through the controller's own SSH connection (`target.connection` an
        SshSession from session(), or one opened for this reading when there is none); through Ansible's connection
        of the task in a worker thread otherwise. Module calls need Ansible's: a fleet reading cannot run them
        (ReadFailed)."""
        connection = target.connection
        if connection is not None and not isinstance(connection, ssh.SshSession):
            return await super().read_async(target, commands)
        modules = sorted({command['module'] for _label, command in commands if isinstance(command, dict)})
        if modules:
            raise ReadFailed(target.device, 'reading its state', '%s runs as an Ansible module, which only the '
                             'per-host path runs' % ', '.join(modules))
        unique, shared = _unique([(label, list(argv)) for label, argv in commands])
        script = command_batch(unique, target.command_timeout, target.parallel)
        if connection is None:
            async with self.session(target) as session:
                ran = await session.run_script(script)
        else:
            ran = await connection.run_script(script)
        outputs = _script_outputs(target, unique, ran)
        outputs.update((label, outputs[source]) for label, source in shared.items())
        return outputs


def _unique(commands):
    """[(label, argv)] with each argv once (the first label), and {label: label it shares the output of}: a command
    that several state keys read (SONiC's CONFIG_DB dump) runs once and its output is one object."""
    first, shared, unique = {}, {}, []
    for label, argv in commands:
        key = tuple(argv)
        if key in first:
            shared[label] = first[key]
        else:
            first[key] = label
            unique.append((label, argv))
    return unique, shared


def _script_outputs(target, commands, ran) -> dict:
    """{label: output} of a batch script's run ({rc, stdout, stderr}); ReadFailed when the script itself failed."""
    if ran.get('rc') != 0:
        # Masked while its lines are whole (a secret form is a line's), before the excerpt joins them.
        raise ReadFailed(target.device, 'reading its state', 'the script exited with rc %s: %s' % (
            ran.get('rc'), excerpt(mask(ran.get('stderr') or ran.get('stdout') or 'no output'), 300)))
    return batch_outputs(commands, target.command_timeout, ran.get('stdout') or '')


SHELL = ShellBatchReader()

__all__ = ['SHELL', 'ShellBatchReader', 'BATCH_MARK', 'command_batch', 'batch_outputs']
