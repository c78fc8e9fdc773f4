# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Recorded outputs of gatherer commands: [(device model, {state key: output})]. A platform's are its own test data
(tests/unit/platforms/<platform>/testdata.py, found by convention: tests/unit/utils/platforms.py); a platform without
them fails the gatherer tests that run over the registry. The GPU servers' are here: what real iproute2, lldpd and
ping printed on the capture fabric (fixtures/state/captured), the data-plane marking probe as the validate role
registers it (captured/probe: aifabric.fabric.dscp_probe and dscp_capture run on this kernel across a VXLAN device
with the capture fabric's addresses), their /etc/nccl.conf as host_nccl installs the rendered one, and rnic_facts of
the fake-hardware hosts. bfd_output() and probe_outputs() serve the FRR platform's data too.
"""

import json
import os

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_model
from tests.unit.plugins.plugin_utils.fabric.state.captures import FIXTURES, INTENT, scenario_states
from tests.unit.utils.platforms import platform_data

PROBE = os.path.join(FIXTURES, 'captured', 'probe')
FRR_KEYS = ('bgp_summary', 'evpn_vni', 'bgp_evpn_vni', 'evpn_type3')


def bfd_output(model):
    """`show bfd peers json` + `show bfd peers counters json` of a switch whose BFD sessions are all up, in the shape
    bfdd prints them (FRR bfdd/bfdd_vty.c; not captured: the capture fabric predates the bfd key)."""
    peers = [{'multihop': False, 'peer': item['ip'] or item['interface'], 'status': 'up', 'uptime': 60,
              'diagnostic': 'ok', 'remote-diagnostic': 'ok'} for item in model['bgp']['neighbors']]
    counters = [{'multihop': False, 'peer': peer['peer'], 'session-up': 1, 'session-down': 0} for peer in peers]
    return {'rc': 0, 'stdout': '%s\n%s' % (json.dumps(peers), json.dumps(counters)), 'stderr': ''}


def probe_outputs(device):
    """{marking_probe|marking_capture: registered result} of `device` in the recorded marking probe."""
    folder = os.path.join(PROBE, device)
    found = {}
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else ():
        with open(os.path.join(folder, name), encoding='utf-8') as handle:
            found[name[:-len('.json')]] = json.load(handle)
    return found


def _host():
    design = design_from_file(INTENT)
    states = scenario_states('healthy')
    with open(os.path.join(FIXTURES, 'rnic_facts', 'ofed_lossless.json'), encoding='utf-8') as handle:
        facts = json.load(handle)
    return [(design.device(name), dict(raw, rnic=facts, counters=facts, **probe_outputs(name),
                                       nccl_conf={'rc': 0, 'stdout': render_model(design.device(name))['nccl.conf'],
                                                  'stderr': ''}))
            for name, raw in states.items() if design.nodes[name].role == 'host']


def recorded(platform):
    """[(model, raw outputs)] of `platform` (its test data: tests/unit/platforms/<platform>/testdata.py), or of the
    GPU servers ('host')."""
    return _host() if platform == 'host' else platform_data(platform).recorded()
