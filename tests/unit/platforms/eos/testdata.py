# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Arista EOS: its golden shapes and its recorded outputs, eAPI JSON in the published shapes (recorded/:
recorded/README.md says which are confirmed) (tests/unit/utils/platforms.py)."""

import json
import os

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from tests.unit.plugins.plugin_utils.fabric.state.captures import eos_raw, read_recorded
from tests.unit.utils.paths import FIXTURES

INTENTS = os.path.join(FIXTURES, 'intents')
GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'golden')
SHAPES = [
    (os.path.join(INTENTS, 'eos_small.yml'), os.path.join(GOLDEN, 'eos_small', '{device}.cfg')),
    (os.path.join(INTENTS, 'eos_unnumbered.yml'), os.path.join(GOLDEN, 'eos_unnumbered', '{device}.cfg')),
    (os.path.join(INTENTS, 'shape2.yml'), os.path.join(GOLDEN, 'shape2', '{device}', '{file}')),
]


def recorded():
    design = design_from_file(os.path.join(INTENTS, 'eos_small.yml'))
    return [(design.device(name), eos_raw(design.device(name))) for name in ('leaf001', 'leaf003', 'spine001')]


# vtep_route's test data (tests/unit/plugins/plugin_utils/fabric/checks/test_vendor_vtep_route.py takes every
# platform whose testdata has ROUTES): the intent, leaf001's routes output, the command that reads it.
ROUTES = os.path.join(INTENTS, 'eos_small.yml')  # the intent of leaf001, whose routes output the tests read
ROUTES_COMMAND = 'show ip route'


def routes_output():
    """leaf001's `show ip route` as the eAPI reader returns it (one JSON document per command)."""
    return [json.loads(read_recorded('eos', '4.32', 'leaf001', 'show_ip_route.json'))]


def with_route(output, vtep, port):
    """The output with the route to `vtep` a drop route (port None) or sent over `port`."""
    table = output[0]['vrfs']['default']['routes']
    table[vtep + '/32'] = ({'routeType': 'static', 'routeAction': 'drop', 'vias': [], 'hardwareProgrammed': True}
                           if port is None else dict(table[vtep + '/32'], vias=[{'interface': port}]))
    return output


# How it writes BFD and the BGP timers on a leaf of the intent defaults (BFD on, 3 x 300 ms; keepalive 3 s, hold 9 s):
# tests/unit/plugins/plugin_utils/fabric/test_convergence.py asks every platform of the registry.
def rendered_bfd(files):
    text = files['startup-config.cfg']
    assert '   neighbor FABRIC bfd\n' in text and '   neighbor FABRIC timers 3 9\n' in text
    assert 'router bfd\n   interval 300 min-rx 300 multiplier 3 default\n' in text
