# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Rolling deploy batches from the design: no batch takes away redundancy a training job needs.

Leaves go first (a failed leaf costs the least): one rail's leaves per batch, so every server keeps its other
rails; leaves that serve no single rail in two halves. Then the spines in two halves within every pod (each pod
keeps half of its spines; with one spine per pod, half of the pods at a time), then the super-spines the same way
within every plane (one super-spine per plane: half of the planes at a time). Batch numbers start at 1 and have no gaps.
"""

from __future__ import annotations


def _halves(nodes):
    """Two alternating halves (first, third, ... / second, fourth, ...), so neighbours land in different halves."""
    return [nodes[0::2], nodes[1::2]]


def _by(nodes, key):
    groups = {}
    for node in nodes:
        groups.setdefault(key(node), []).append(node)
    return [groups[name] for name in sorted(groups, key=lambda value: (value is None, value))]


def _two_halves(groups):
    """Half of every group per batch; groups of one (one spine per pod, one super-spine per plane): half the groups."""
    if groups and all(len(group) == 1 for group in groups):
        return [[group[0].name for group in half] for half in _halves(groups)]
    halves = [_halves(group) for group in groups]
    return [[node.name for group in halves for node in group[side]] for side in (0, 1)]


def deploy_batches(design) -> list:
    """[[switch name, ...], ...] in deploy order."""
    switches = [node for node in design.nodes.values() if node.role != 'host']
    leaves = [node for node in switches if node.role == 'leaf']
    by_rail = _by([node for node in leaves if node.rail is not None], lambda node: node.rail)
    batches = [[node.name for node in group] for group in by_rail]
    batches += [[node.name for node in half] for half in _halves([node for node in leaves if node.rail is None])]
    batches += _two_halves(_by([node for node in switches if node.role == 'spine'], lambda node: node.pod))
    batches += _two_halves(_by([node for node in switches if node.role == 'super_spine'], lambda node: node.plane))
    return [batch for batch in batches if batch]


def batch_of(design) -> dict:
    """{switch name: batch number (1-based)}."""
    return {name: number for number, batch in enumerate(deploy_batches(design), 1) for name in batch}
