# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""FRR on Linux, the lab switch: its golden shape (the lab intent) and its recorded outputs, what real FRR 8.4,
lldpd and iproute2 printed on the capture fabric (fixtures/state/captured), with bfdd's sessions as bfdd prints them
and the data-plane marking probe as the validate role registers it (tests/unit/utils/platforms.py)."""

import os

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
