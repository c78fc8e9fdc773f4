# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Judge what validation said about a round of faults: for each fault, the first cause that blames its device must be
of the fault's kind (and carry the drift lines when the fault changed what the deploy manages); no device without a
fault may be blamed; every failure belongs to a cause."""

from __future__ import annotations

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import causes as engine

from tests.faults import generator
from tests.faults.world import World


def judge(faults, found) -> dict:
    """{'faults': [{fault, right, named, drift_found}], 'healthy_blamed': [...], 'unplaced': [...]}."""
    faulty = {fault['device'] for fault in faults}
    outcomes = []
    for fault in faults:
        first = next((cause for cause in found if fault['device'] in cause.devices), None)
        right = first is not None and first.kind == fault['cause']
        drift = None
        if fault['drift'] is True:
            drift = first is not None and (first.kind == 'drift' or bool(first.drift))
        outcomes.append({'fault': fault, 'right': right, 'named': first.kind if first else None,
                         'title': first.title if first else None, 'drift_found': drift})
    return {'faults': outcomes,
            'healthy_blamed': sorted(set(engine.blamed(found)) - faulty),
            'unplaced': [cause.title for cause in found if not cause.devices]}


def simulate(design, faults, options=None):
    """(results, causes) of validation on the simulated fabric with `faults` in place."""
    world = World(design, options)
    generator.apply(world, faults)
    ctx = checks.Context(design, world.states(), dict(options or {}, lossless_phases=('deployed',)))
    # the fabric's faults: what the world simulates (lossless state and counters are the lossless checks' own tests)
    results = checks.run(ctx, categories=('fabric', 'dataplane', 'drift'))
    return results, engine.analyse(ctx, results)


__all__ = ['judge', 'simulate']
