# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""FRR on Linux, the lab switch: its golden shape (the lab intent) and its recorded outputs, what real FRR 8.4,
lldpd and iproute2 printed on the capture fabric (fixtures/state/captured), with bfdd's sessions as bfdd prints them
and the data-plane marking probe as the validate role registers it (tests/unit/utils/platforms.py)."""

import os
import re

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from tests.unit.plugins.plugin_utils.fabric.state.captures import INTENT, scenario_states
from tests.unit.plugins.plugin_utils.fabric.state.recorded import bfd_output, probe_outputs
from tests.unit.utils.paths import LAB_INTENT

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'golden')
SHAPES = [(LAB_INTENT, os.path.join(GOLDEN, 'lab', '{device}', '{file}'))]


def recorded():
    design = design_from_file(INTENT)
    states = scenario_states('healthy')
    return [(design.device(name), dict(raw, bfd=bfd_output(design.device(name)), **probe_outputs(name)))
            for name, raw in states.items() if design.nodes[name].role != 'host']


# How it writes BFD and the BGP timers on a leaf of the intent defaults (BFD on, 3 x 300 ms; keepalive 3 s, hold 9 s):
# tests/unit/plugins/plugin_utils/fabric/test_convergence.py asks every platform of the registry.
def rendered_bfd(files):
    text = files['frr.conf']
    assert ' bfd profile FABRIC' in text or 'bfd profile FABRIC' in text
    # bfdd's defaults (3 x 300 ms) are not written: FRR's running-config omits them (the lab read-back).
    assert re.search(r'^bfd\n profile FABRIC\n exit\n', text, re.M), text
    groups = re.findall(r'^ neighbor (\S+) peer-group$', text, re.M)
    assert groups
    for group in groups:
        assert ' neighbor %s bfd profile FABRIC\n' % group in text
        assert ' neighbor %s timers 3 9\n' % group in text
