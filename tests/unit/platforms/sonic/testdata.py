# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""SONiC: its golden shapes and its recorded outputs, CONFIG_DB and counter outputs in the published
shapes (recorded/: recorded/README.md says which are confirmed); the switch's BGP and EVPN keys are its FRR's (the bgp
container), so the FRR captures stand in for them (tests/unit/utils/platforms.py)."""

import json
import os
import re

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_model
from tests.unit.plugins.plugin_utils.fabric.state.captures import FIXTURES as STATE, scenario_states, sonic_raw
from tests.unit.plugins.plugin_utils.fabric.state.recorded import FRR_KEYS
from tests.unit.utils.paths import FIXTURES

INTENTS = os.path.join(FIXTURES, 'intents')
GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'golden')
RECORDED = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'recorded')
SHAPES = [
    (os.path.join(INTENTS, 'sonic_small.yml'), os.path.join(GOLDEN, 'sonicsmall', '{device}', '{file}')),
    (os.path.join(INTENTS, 'sonic_unnumbered.yml'), os.path.join(GOLDEN, 'sonicunnum', '{device}', '{file}')),
    (os.path.join(INTENTS, 'shape2.yml'), os.path.join(GOLDEN, 'shape2', '{device}', '{file}')),
]


def recorded():
    design = design_from_file(os.path.join(STATE, 'intents', 'sonic_lossless.yml'))
    vtysh = scenario_states('healthy')
    found = []
    for name in ('leaf001', 'spine001'):
        model = design.device(name)
        raw = sonic_raw(model, json.loads(render_model(model)['config_db.json']))
        raw.update((key, value) for key, value in vtysh[name].items() if key in FRR_KEYS)
        if model['role'] == 'leaf':  # `show ip route json` of the bgp container (recorded/README.md)
            with open(os.path.join(RECORDED, name, 'show_ip_route.json'), encoding='utf-8') as handle:
                raw['routes'] = {'rc': 0, 'stdout': handle.read(), 'stderr': ''}
        found.append((model, raw))
    return found


# vtep_route's test data (test_vendor_vtep_route.py): the bgp container's `show ip route json` of leaf001.
ROUTES = os.path.join(STATE, 'intents', 'sonic_lossless.yml')  # the intent of leaf001, whose routes output the tests read
ROUTES_COMMAND = "vtysh -c 'show ip route json'"


def routes_output():
    with open(os.path.join(RECORDED, 'leaf001', 'show_ip_route.json'), encoding='utf-8') as handle:
        return {'rc': 0, 'stdout': handle.read(), 'stderr': ''}


def with_route(output, vtep, port):
    """The output with the route to `vtep` a static blackhole (port None) or a BGP route over `port`."""
    table = json.loads(output['stdout'])
    hop = ({'fib': True, 'unreachable': True, 'blackhole': True} if port is None
           else {'fib': True, 'ip': '192.0.2.1', 'interfaceName': port})
    table[vtep + '/32'] = [{'prefix': vtep + '/32', 'protocol': 'static' if port is None else 'bgp',
                            'selected': True, 'installed': True, 'nexthops': [hop]}]
    return dict(output, stdout=json.dumps(table))


# How it writes BFD and the BGP timers on a leaf of the intent defaults (BFD on, 3 x 300 ms; keepalive 3 s, hold 9 s):
# tests/unit/plugins/plugin_utils/fabric/test_convergence.py asks every platform of the registry.
def rendered_bfd(files):
    # The community bgp container runs no bfdd beside bgpcfgd (sonic-buildimage docker-fpm-frr
    # supervisord.conf.common.j2 starts bfdd only with frr_mgmt_framework_config): FRR would drop every BFD line,
    # so none is written and the BGP timers detect a dead peer (docs/platform-sonic.md).
    text = files['frr.conf']
    assert 'bfd profile' not in text and not re.search(r'^ neighbor \S+ bfd$', text, re.M)
    assert re.findall(r'^ neighbor (\S+) timers 3 9$', text, re.M)
