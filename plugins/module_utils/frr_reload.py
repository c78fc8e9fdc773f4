# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reading FRR's frr-reload.py --test output: shared by the frr_config module (the lab's FRR switches) and the
SONiC deploy driver (FRR in SONiC's bgp container)."""

from __future__ import annotations

# Lines FRR prints but cannot change: the version banner.
IGNORED_PREFIXES = ('frr version',)


def parse_reload_test(output):
    """(lines to delete, lines to add) from `frr-reload.py --test` output."""
    sections = {'delete': [], 'add': []}
    current = None
    lines = output.splitlines()
    for index, line in enumerate(lines):
        if line.startswith('Lines To Delete') and index + 1 < len(lines) and lines[index + 1].startswith('==='):
            current = 'delete'
            continue
        if line.startswith('Lines To Add') and index + 1 < len(lines) and lines[index + 1].startswith('==='):
            current = 'add'
            continue
        if current is None or line.startswith('===') or not line.strip():
            continue
        if line.startswith(IGNORED_PREFIXES):
            continue
        sections[current].append(line.rstrip())
    return sections['delete'], sections['add']
