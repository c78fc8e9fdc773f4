# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How a gatherer's commands reach a device and come back: the reader.

A gatherer owns its reader as a deploy driver owns its session (Gatherer(..., reader=...)): the POSIX-shell batch
reader (state/shell.py) for devices with a shell, a platform's own reader in its folder (EOS: eAPI,
platforms/eos/eapi.py). The caller never asks which one it has:

    reader.read(target, [(label, command), ...])  -> {label: output}
    await reader.read_async(target, [...])        -> the same, for an asyncio caller

`target` is one device's connection settings (Target). Each command is one of what `reader.split()` gives for a
state key; `label` names it in the result (and, for whoever reads a device's log, in what is sent). An output is
the command's result in the reader's own form (shell: {cmd, rc, stdout, stderr}; eAPI: the JSON object): a command
that fails alone is an output that says so (rc not 0, eAPI's {'errors': [...]}, no result: rc None with the reason)
and its parser turns it into a StateError naming the command, while the device's other commands are still read. A
device that cannot be read at all raises TransportError (unreachable, refused login, no answer): the reading is
then unreadable as a whole. ReadFailed (a TransportError too) says the reading cannot work on this device at all
(no shell to run it, a connection that cannot carry it): reading again will not help.

A reader holds no state of a device between calls: everything of one device is in its Target, so one reader serves
many devices at once, from threads (read()) or from an event loop (read_async(); a reader that speaks asyncio
natively overrides it, the others run read() in a worker thread); `reader.session(target)` gives a connection the
caller may keep for all the readings of one device (a fleet reading's connection reuse). A bound on a reading's
wall-clock time is the caller's (transport.deadline in the main thread; the libraries' own timeouts, from the target's variables, in
threads).
"""

from __future__ import annotations

import asyncio
import contextlib
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..transport import TransportError

Command = Any  # what a reader sends: an argv list, an eAPI command, a module call ({module, args}) ...
Output = Any  # what came back for one command, in the reader's form
Labelled = Sequence[tuple[str, Command]]  # (label, command) pairs


class ReadFailed(TransportError):
    """The reading cannot run on this device at all (no shell, a connection that cannot carry a script)."""


class Connection(Protocol):
    """A connection to the device that the caller already holds (Ansible's connection of the task)."""

    name: str

    def run_script(self, script: str) -> dict:
        """{rc, stdout, stderr} of a POSIX sh script fed to /bin/sh on standard input."""

    def run_module(self, name: str, args: dict) -> Any:
        """The result of an Ansible module run on the device."""


@dataclass(frozen=True)
class Target:
    """One device to read: its name, its connection variables (as Ansible gives them: ansible_host, ansible_user,
    ..., templated; kept out of repr()), a connection the caller already holds, if any, and how the reading may load
    the device (each command's own timeout, commands run at once)."""

    device: str
    variables: Mapping[str, Any] = field(default_factory=dict, repr=False)
    connection: Connection | None = None
    command_timeout: int = 30
    parallel: int = 8


class Reader:
    """The interface every reader implements (see the module docstring)."""

    name = ''  # how messages and docs name it: 'shell', 'eapi'
    # The host variables it reads from a Target (the callers template these, and only these, for it).
    variables: tuple = ()

    def split(self, command) -> list:
        """The individual commands that one state key's `command` stands for, in order."""
        return [command] if self.one(command) else list(command)

    def one(self, command) -> bool:
        """Whether `command` is one command (its output comes alone) rather than a list of them (their outputs come
        as a list, in order)."""
        return isinstance(command, (str, dict))

    def describe(self, command) -> str:
        """One individual command as people read it (reports: 'show bgp summary vrf all')."""
        return command if isinstance(command, str) else shlex.join(str(word) for word in command)

    def read(self, target: Target, commands: Labelled) -> dict:
        """{label: output} of every command, read from the device `target` names."""
        raise NotImplementedError

    async def read_async(self, target: Target, commands: Labelled) -> dict:
        """read() for an asyncio caller: the blocking read() in a worker thread unless the reader overrides it."""
        return await asyncio.to_thread(self.read, target, commands)

    def session(self, target: Target):
        """An async context manager giving a connection to the device that the caller keeps for all the readings of
        the device and passes as `Target.connection` (a fleet reading: one connection per device, not per reading);
        None where the reader has none of its own (its readings open and close what they use)."""
        return contextlib.nullcontext()


__all__ = ['Reader', 'Target', 'Connection', 'ReadFailed', 'Command', 'Output']
