# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""NVIDIA Cumulus Linux (NVUE): its golden shapes and its recorded outputs, `nv show` JSON in the published shapes
(recorded/: recorded/README.md says which are confirmed) (tests/unit/utils/platforms.py)."""

import json
import os

import yaml

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from tests.unit.plugins.plugin_utils.fabric.state.captures import nvue_raw, read_recorded
from tests.unit.utils.paths import FIXTURES

INTENTS = os.path.join(FIXTURES, 'intents')
GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'golden')
SHAPES = [
    (os.path.join(INTENTS, 'nvue_small.yml'), os.path.join(GOLDEN, 'nvue_small', '{device}.yaml')),
    (os.path.join(INTENTS, 'nvue_unnumbered.yml'), os.path.join(GOLDEN, 'nvue_unnumbered', '{device}.yaml')),
    (os.path.join(INTENTS, 'shape2.yml'), os.path.join(GOLDEN, 'shape2', '{device}', '{file}')),
]


def recorded():
    design = design_from_file(os.path.join(INTENTS, 'nvue_small.yml'))
    return [(design.device(name), nvue_raw(design.device(name))) for name in ('leaf001', 'leaf003', 'spine001')]


# vtep_route's test data (test_vendor_vtep_route.py): the kernel's main table of leaf001 (switchd programs it).
ROUTES = os.path.join(INTENTS, 'nvue_small.yml')  # the intent of leaf001, whose routes output the tests read
ROUTES_COMMAND = 'ip -j -4 route show table main'


def routes_output():
    return {'rc': 0, 'stdout': read_recorded('nvue', 'leaf001', 'ip_route.json'), 'stderr': ''}


def with_route(output, vtep, port):
    """The output with the route to `vtep` a blackhole (port None) or sent over `port`."""
    table = [item for item in json.loads(output['stdout']) if item['dst'] != vtep]
    table.append({'type': 'blackhole', 'dst': vtep, 'protocol': 'boot', 'flags': []} if port is None
                 else {'dst': vtep, 'gateway': '192.0.2.1', 'dev': port, 'protocol': 'bgp', 'metric': 20, 'flags': []})
    return dict(output, stdout=json.dumps(table))


# How it writes BFD and the BGP timers on a leaf of the intent defaults (BFD on, 3 x 300 ms; keepalive 3 s, hold 9 s):
# tests/unit/plugins/plugin_utils/fabric/test_convergence.py asks every platform of the registry.
def rendered_bfd(files):
    config = yaml.safe_load(files['startup.yaml'])[0]['set']
    for neighbor in config['vrf']['default']['router']['bgp']['neighbor'].values():
        assert neighbor['bfd'] == {'detect-multiplier': 3, 'enable': True, 'min-rx-interval': 300,
                                   'min-tx-interval': 300}
        assert neighbor['timers'] == {'hold': 9, 'keepalive': 3}
