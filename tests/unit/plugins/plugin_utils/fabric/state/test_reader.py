# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The reader seam (state/reader.py): a gatherer reads through the reader it owns; the shell batch reader runs one
script through the connection it is given (here a real /bin/sh), a device's failures stay that device's, and many
devices are read at once from threads or one event loop."""

import asyncio
import os
import subprocess
import threading

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.gatherer import Gatherer, Source
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.reader import ReadFailed, Reader, Target
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.shell import SHELL
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.transport import TransportError


class LocalShell:
    """A Connection to this machine: the script through a real /bin/sh on standard input, as Ansible pipelines it."""

    name = 'local'

    def __init__(self, modules=None, device=''):
        self.scripts = []
        self.modules = modules or {}
        self.env = dict(os.environ, DEVICE=device)  # what tells one device's shell from another's here

    def run_script(self, script):
        self.scripts.append(script)
        proc = subprocess.run(['/bin/sh'], input=script, capture_output=True, text=True, timeout=60, check=False,
                              env=self.env)
        return {'rc': proc.returncode, 'stdout': proc.stdout, 'stderr': proc.stderr}

    def run_module(self, name, args):
        return self.modules[name](args)


def test_the_shell_reader_runs_one_script_and_keeps_each_command_apart():
    connection = LocalShell(modules={'aifabric.fabric.rnic_facts': lambda args: {'parts': args['gather']}})
    outputs = SHELL.read(Target('gpu0001', connection=connection), [
        ('echo', ['echo', 'hello']),
        ('fails', ['sh', '-c', 'echo nope >&2; exit 3']),
        ('rnic', {'module': 'aifabric.fabric.rnic_facts', 'args': {'gather': ['devices']}}),
    ])
    assert len(connection.scripts) == 1, 'one script for every argv command of the reading'
    assert outputs['echo'] == {'cmd': ['echo', 'hello'], 'rc': 0, 'stdout': 'hello', 'stderr': ''}
    assert outputs['fails']['rc'] == 3 and outputs['fails']['stderr'] == 'nope', 'a failed command is its output alone'
    assert outputs['rnic'] == {'parts': ['devices']}


def test_the_shell_reader_fails_the_reading_it_cannot_run():
    class Broken(LocalShell):
        def run_script(self, script):
            return {'rc': 125, 'stdout': '', 'stderr': 'mktemp: failed to create directory via template'}
    with pytest.raises(ReadFailed, match='leaf001: reading its state failed: the script exited with rc 125: mktemp'):
        SHELL.read(Target('leaf001', connection=Broken()), [('a', ['true'])])
    with pytest.raises(ReadFailed, match='leaf001: .* none was given'):
        SHELL.read(Target('leaf001'), [('a', ['true'])])
    assert issubclass(ReadFailed, TransportError), 'callers that only know TransportError still catch it'


def test_a_gatherer_reads_through_its_reader_and_regroups_by_key():
    class Echo(Reader):
        """Answers each command with itself; a key may read several commands (a list of them)."""

        name = 'echo'
        calls = []

        def read(self, target, commands):
            self.calls.append(list(commands))
            return {label: {'said': command, 'to': target.device} for label, command in commands}

    reader = Echo()
    gatherer = Gatherer('echo', 'Echo NOS', (
        Source('one', 'show one', lambda output: output),
        Source('two', ['show a', 'show b'], lambda output: output),
        Source('keyed', lambda model, options: options.get('extra'), lambda output: output, keyed=True),
    ), reader=reader)
    commands = gatherer.commands({'role': 'leaf'}, {'extra': ['show x', {'cmd': 'show y', 'revision': 2}]})
    raw = gatherer.read(Target('leaf001'), commands)
    assert len(Echo.calls) == 1, 'the whole reading is one call of the reader'
    assert raw['one'] == {'said': 'show one', 'to': 'leaf001'}
    assert [item['said'] for item in raw['two']] == ['show a', 'show b']
    assert set(raw['keyed']) == {'show x|', 'show y|2'}
    assert gatherer.describe('two', {'role': 'leaf'}) == 'show a; show b'


def test_many_devices_at_once_from_threads_and_from_an_event_loop():
    """A reader keeps nothing of a device between calls: a fleet reads many devices at once through one reader."""
    devices = ['leaf%03d' % index for index in range(1, 13)]
    gatherer = Gatherer('shell', 'Shell', (Source('name', ['sh', '-c', 'printf %s "$DEVICE"'], lambda output: output),),
                        reader=SHELL)

    def target(device):
        return Target(device, connection=LocalShell(device=device))

    results = {}
    threads = [threading.Thread(target=lambda name=name: results.update(
        {name: gatherer.read(target(name), gatherer.commands({'role': 'leaf'}))})) for name in devices]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert {name: raw['name']['stdout'] for name, raw in results.items()} == {name: name for name in devices}

    async def read_all():
        return await asyncio.gather(*(gatherer.read_async(target(name), gatherer.commands({'role': 'leaf'}))
                                      for name in devices))
    assert [raw['name']['stdout'] for raw in asyncio.run(read_all())] == devices
