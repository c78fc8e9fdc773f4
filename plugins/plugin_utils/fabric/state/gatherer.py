# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The gatherer interface every platform implements, and the pieces they share.

A gatherer says which read-only commands read a device's state and turns their outputs into
platform-neutral state that the checks read:

    gatherer.commands(model, options) -> [(key, command)]
    gatherer.parse(key, output)       -> neutral state of `key`

and reads them through its reader (reader.py), which it owns as a deploy driver owns its session:

    gatherer.read(target, commands)   -> {key: output}, one call of the reader for the whole reading

`command` is what the reader sends: an argv list for the shell batch reader (shell.py: the argv lists of a reading
run as one sh script through a connection to the device, SSH to switches and GPU servers), one or several eAPI
commands for EOS's (platforms/eos/eapi.py: JSON-RPC over HTTPS from the controller), whatever a platform's own
reader takes. `output` is the command's result in the reader's form ({rc, stdout, stderr}, the eAPI JSON object);
a key with several commands gets the list of their results.

Keys in COUNTER_KEYS are read twice, `interval` seconds apart; the second reading is stored under
`<key>.2` and the time of each reading under TIMES, so rates can be computed (health rules).
"""

from __future__ import annotations

from typing import Any

from . import StateError
from .reader import Reader, Target
from .schema import problems

SECOND = '.2'
TIMES = '_times'
UNREADABLE = '_error'  # the device could not be read at all: every key fails with this reason
COUNTERS = 'counters'


class Source:
    """One neutral state key: how to read it on a platform and how to parse what was read."""

    def __init__(self, key, command, parse, roles=None, when=None, label=None, keyed=False):
        self.key = key
        self.keyed = keyed  # outputs are kept as {command_key: output} (commands chosen at run time, e.g. ANTA's)
        self.label = label  # how people read the command (default: the command itself)
        self.command = command  # argv | eAPI command(s) | callable(model, options) -> either (or None: skip)
        self.parse = parse
        self.roles = tuple(roles) if roles else None
        self.when = when  # callable(model) -> bool

    def applies(self, model) -> bool:
        if self.roles is not None and model['role'] not in self.roles:
            return False
        return self.when is None or bool(self.when(model))


class Gatherer:
    """A platform's commands and parsers (one instance per platform, registered in sources.py)."""

    def __init__(self, platform, title, sources, *, reader: Reader, extra=None, extra_parser=None, design_view=None):
        self.platform = platform
        self.title = title
        self.reader = reader  # how its commands reach the device (reader.py)
        self.sources = {source.key: source for source in sources}
        self._extra = extra  # callable(model, options) -> [(key, command)] (pings)
        self._extra_parser = extra_parser  # callable(key) -> parser or None
        self.design_view = design_view  # callable({file: text}) -> lossless state of the NOS's rendered files

    @property
    def keyed(self) -> tuple:
        return tuple(key for key, source in self.sources.items() if source.keyed)

    def provides(self, key) -> bool:
        base = key[:-len(SECOND)] if key.endswith(SECOND) else key
        return base in self.sources or bool(self._extra_parser and self._extra_parser(base))

    def commands(self, model, options=None) -> list:
        options = options or {}
        commands = []
        for source in self.sources.values():
            if not source.applies(model):
                continue
            command = source.command(model, options) if callable(source.command) else source.command
            if command:
                commands.append((source.key, command))
        if self._extra:
            commands.extend(self._extra(model, options))
        return commands

    def counter_commands(self, model, options=None) -> list:
        return [(key, command) for key, command in self.commands(model, options) if key == COUNTERS]

    def parser(self, key):
        base = key[:-len(SECOND)] if key.endswith(SECOND) else key
        if base in self.sources:
            return self.sources[base].parse
        return self._extra_parser(base) if self._extra_parser else None

    def parse(self, key, output):
        """The neutral state `key` from what its command(s) printed, checked against the key's type (schema.py)."""
        parser = self.parser(key)
        if parser is None:
            raise StateError(key, 'the %s gatherer does not read this state' % self.title)
        try:
            value = parser(output)
        except StateError:
            raise
        except Exception as exc:  # pylint: disable=broad-exception-caught  # whatever a device prints is its error
            raise StateError(key, 'the %s gatherer cannot read this output: %s' % (
                self.title, ' '.join(str(exc).split())[:300] or 'an unexpected value')) from None
        # Every item, against the key's type (typed.conforms, a checker compiled once per type): a value the device
        # printed where another kind belongs (a text MTU, a list for a counter) stops here, before a check trips on it.
        found = problems(key[:-len(SECOND)] if key.endswith(SECOND) else key, value)
        if found:
            raise StateError(key, 'the %s gatherer gave state of the wrong shape (a value the device printed, or a '
                                  'field the parser left out): %s' % (self.title, '; '.join(found)))
        return value

    def describe(self, key, model) -> str:
        """The command(s) that read `key` on this platform, for reports ('show bgp summary vrf all')."""
        base = key[:-len(SECOND)] if key.endswith(SECOND) else key
        source = self.sources.get(base)
        if source is None:
            return base
        if source.label:
            return source.label
        command = source.command(model, {}) if callable(source.command) else source.command
        return '; '.join(self.reader.describe(item) for item in self.reader.split(command or []))

    def read(self, target: Target, commands) -> dict:
        """{key: output | [outputs] | {command_key: output} (keyed sources)} of `commands` ([(key, command)], from
        commands()), read from `target` in one call of the reader. TransportError when the device cannot be read."""
        items = flatten(self.reader, commands)
        return regroup(items, self.reader.read(target, _labelled(items)), self.keyed)

    async def read_async(self, target: Target, commands) -> dict:
        """read() for an asyncio caller (a fleet reading many devices at once)."""
        items = flatten(self.reader, commands)
        return regroup(items, await self.reader.read_async(target, _labelled(items)), self.keyed)


def _labelled(items) -> list:
    return [(item_key, command) for item_key, _key, _index, command in items]


def flatten(reader, commands) -> list:
    """[(item key, key, index or None, command)]: one item per individual command, so a reader can run them
    all in one call; item keys are `<key>` or `<key>#<n>` for keys read with several commands."""
    items: list[tuple[str, str, int | None, Any]] = []
    for key, command in commands:
        parts = reader.split(command)
        if reader.one(command):
            items.append((key, key, None, parts[0]))
        else:
            items.extend(('%s#%d' % (key, index), key, index, part) for index, part in enumerate(parts))
    return items


def command_key(command, revision=None) -> str:
    """'show bgp summary vrf all|1': an eAPI command and its revision, as keys of keyed sources."""
    if isinstance(command, dict):
        command, revision = command.get('cmd'), command.get('revision')
    return '%s|%s' % (command, revision if revision is not None else '')


def regroup(items, outputs, keyed=()) -> dict:
    """{key: output | [outputs] | {command_key: output} (keys in `keyed`)} from the per-item outputs
    ({item key: output}) of a reader."""
    raw = {}
    for item_key, key, index, command in items:
        if key in keyed:
            raw.setdefault(key, {})[command_key(command)] = outputs.get(item_key)
        elif index is None:
            raw[key] = outputs.get(item_key)
        else:
            raw.setdefault(key, []).append(outputs.get(item_key))
    return raw


def results(source, output, count=None) -> list:
    """The results of a key gathered with several commands (eAPI), checked for the expected count."""
    if not isinstance(output, list):
        output = [output]
    if count is not None and len(output) != count:
        raise StateError(source, 'expected %d command outputs, got %d' % (count, len(output)))
    return output


__all__ = ['Gatherer', 'Source', 'SECOND', 'TIMES', 'UNREADABLE', 'COUNTERS', 'results', 'flatten',
           'regroup', 'command_key']
