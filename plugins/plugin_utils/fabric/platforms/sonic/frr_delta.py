# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The change from one FRR configuration to another, as vtysh commands the bgp container applies with `vtysh -f`.

SONiC's bgp container has vtysh but not frr-reload.py (sonic-buildimage rules/docker-fpm-frr.mk installs FRR without
frr-pythontools, the package that holds it: FRR debian/frr-pythontools.install; docs/platform-sonic.md). So the
deploy computes the change itself, from FRR's own `show running-config` and the rendered frr.conf:

- both texts are read as FRR writes them: a line opens a block when the lines after it are indented deeper (`router
  bgp`, `address-family`, `vni`, `route-map`, `vrf`, `bfd`, `profile`); `!`, comments, `exit*`, `end` and `frr version`
  carry no configuration. A block is known by the path of its opening lines; inside a block the order of lines is not
  configuration (FRR prints its own order: a neighbour's `remote-as` before its `peer-group`);
- what the target lacks is removed, deepest first and later blocks before earlier ones (a VRF's BGP instance before
  the default one): a whole block by the `no` form of its opening line where FRR has one, otherwise line by line; a
  line by its `no` form (`no X` for `X`, `X` for `no X`);
- then the whole target is given again, in its own order. FRR takes a line it already runs without change, and what a
  removal took with it (`no neighbor X remote-as` removes the neighbour with all its lines) comes back.

apply(running, target) is that script; equal(running, target) tells whether anything would change; diff() shows
the difference in the `-`/`+` form the other drivers use. The switch's own FRR judges the result: the driver reads
the running configuration back and requires it to equal the target.
"""

from __future__ import annotations

# Opening lines of blocks that FRR removes with `no <line>` (FRR user guide: `no router bgp`, `no vrf`,
# `no route-map`, `no vni` under address-family l2vpn evpn, `no bfd`, `no profile`).
REMOVABLE_BLOCKS = ('router ', 'vrf ', 'route-map ', 'vni ', 'bfd', 'profile ', 'interface ')
BLOCK_ENDS = ('exit', 'exit-vrf', 'exit-address-family', 'exit-vni', 'end')
# vtysh's header of `show running-config`, the release line and comments
NOT_CONFIGURATION = ('!', 'frr version ', 'Building configuration', 'Current configuration')


def _carries_nothing(stripped):
    return not stripped or stripped in BLOCK_ENDS or stripped.startswith(NOT_CONFIGURATION)


def parse(text):
    """{block path (tuple of opening lines): [lines]} in the order of the text; the top level is ()."""
    entries = []
    for raw in text.splitlines():
        stripped = ' '.join(raw.split())
        if not _carries_nothing(stripped):
            entries.append((len(raw) - len(raw.lstrip(' ')), stripped))
    blocks = {(): []}
    stack = []  # (indent, path)
    for index, (indent, line) in enumerate(entries):
        while stack and stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1] if stack else ()
        opens = index + 1 < len(entries) and entries[index + 1][0] > indent
        if opens:  # a block is known by its path, not as a line of its parent
            path = parent + (line,)
            blocks.setdefault(path, [])
            stack.append((indent, path))
        elif line not in blocks.setdefault(parent, []):
            blocks[parent].append(line)
    return blocks


def _negate(line):
    return line[3:] if line.startswith('no ') else 'no ' + line


def _enter(path):
    """The lines that take vtysh into a block from the top level, one indent per level."""
    return [' ' * depth + line for depth, line in enumerate(path)]


def _leave(path):
    return [' ' * depth + 'exit' for depth in reversed(range(len(path)))]


def removals(running, target):
    """[(block path, command)] of the `no` commands that take `running` to what `target` keeps (parsed texts)."""
    whole = set()  # blocks removed by the `no` form of their opening line (not those inside one: they go with it)
    for path in running:
        if path and path not in target and path[-1].startswith(REMOVABLE_BLOCKS) and \
                not any(path[:depth] in whole for depth in range(1, len(path))):
            whole.add(path)
    commands = []
    for path in reversed(list(running)):
        if path in whole:
            commands.append((path[:-1], _negate(path[-1])))
        if any(path[:depth] in whole for depth in range(1, len(path) + 1)):
            continue
        kept = set(target.get(path, ()))
        commands.extend((path, _negate(line)) for line in reversed(running[path]) if line not in kept)
    return commands


def script(running_text, target_text):
    """The vtysh -f script that turns FRR running `running_text` into `target_text` (see the module docstring)."""
    running, target = parse(running_text), parse(target_text)
    lines = []
    for path, command in removals(running, target):
        lines += _enter(path) + [' ' * len(path) + command] + _leave(path)
    lines += target_text.rstrip('\n').splitlines()
    return '\n'.join(lines) + '\n'


def _flat(blocks):
    found = set()
    for path, lines in blocks.items():
        if path:
            found.add((path[:-1], path[-1], True))
        found.update((path, line, False) for line in lines)
    return found


def equal(running_text, target_text):
    return _flat(parse(running_text)) == _flat(parse(target_text))


def diff(running_text, target_text):
    """`-` what FRR runs and the target lacks, `+` what the target adds, one line each with its block path."""
    running, target = _flat(parse(running_text)), _flat(parse(target_text))

    def show(entry):
        path, line, _block = entry
        return ' > '.join(path + (line,))
    removed = sorted(show(entry) for entry in running - target)
    added = sorted(show(entry) for entry in target - running)
    return ''.join('-%s\n' % line for line in removed) + ''.join('+%s\n' % line for line in added)
