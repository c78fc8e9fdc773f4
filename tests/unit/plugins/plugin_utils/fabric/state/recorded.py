# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Recorded outputs of every platform's gatherer commands, per platform: [(device model, {state key: output})].

FRR: what real FRR 8.4, lldpd and iproute2 printed on the capture fabric (fixtures/state/captured), and the data-plane
marking probe as the validate role registers it (captured/probe: aifabric.fabric.dscp_probe and dscp_capture run on
this kernel across a VXLAN device with the capture fabric's addresses). GPU servers: the same, their /etc/nccl.conf
as host_nccl installs the rendered one, and rnic_facts of the fake-hardware hosts. EOS, NVUE and
SONiC: the outputs in the vendors' shapes of fixtures/state/<platform> (their README says which are confirmed); the
SONiC switch's BGP and EVPN keys are its FRR's (the bgp container), so the FRR captures stand in for them. A
platform without recorded outputs here fails the gatherer tests that run over the registry.
"""

import json
import os

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_model
from tests.unit.plugins.plugin_utils.fabric.state.captures import FIXTURES, INTENT, eos_raw, nvue_raw, scenario_states
from tests.unit.plugins.plugin_utils.fabric.state.captures import sonic_raw

INTENTS = os.path.join(FIXTURES, '..', 'intents')
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


def _frr():
    design = design_from_file(INTENT)
    states = scenario_states('healthy')
    return [(design.device(name), dict(raw, bfd=bfd_output(design.device(name)), **probe_outputs(name)))
            for name, raw in states.items() if design.nodes[name].role != 'host']


def _eos():
    design = design_from_file(os.path.join(INTENTS, 'eos_small.yml'))
    return [(design.device(name), eos_raw(design.device(name))) for name in ('leaf001', 'leaf003', 'spine001')]


def _nvue():
    design = design_from_file(os.path.join(INTENTS, 'nvue_small.yml'))
    return [(design.device(name), nvue_raw(design.device(name))) for name in ('leaf001', 'leaf003', 'spine001')]


def _sonic():
    design = design_from_file(os.path.join(FIXTURES, 'intents', 'sonic_lossless.yml'))
    vtysh = scenario_states('healthy')
    found = []
    for name, frr_device in (('leaf001', 'leaf001'), ('spine001', 'spine001')):
        model = design.device(name)
        raw = sonic_raw(model, json.loads(render_model(model)['config_db.json']))
        raw.update((key, value) for key, value in vtysh[frr_device].items() if key in FRR_KEYS)
        found.append((model, raw))
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


RECORDED = {'frr': _frr, 'eos': _eos, 'nvue': _nvue, 'sonic': _sonic, 'host': _host}


def recorded(platform):
    """[(model, raw outputs)] of `platform` ('host' for GPU servers)."""
    return RECORDED[platform]()
