# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Load the captured device outputs of tests/unit/fixtures/state/captured as gathered state.

Each scenario directory holds one directory per device with the files the capture script wrote: the
command's stdout, plus <file>.rc / <file>.stderr when the command failed. Ping files hold the command
result as Ansible registers it (cmd, rc, stdout, stderr).
"""

import json
import os

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', '..', 'fixtures', 'state')
FIXTURES = os.path.normpath(FIXTURES)
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(FIXTURES))))
CAPTURED = os.path.join(FIXTURES, 'captured')
INTENT = os.path.join(CAPTURED, 'intent.yml')
FILE_KEYS = {
    'bgp_vrf_all_summary.json': 'bgp_summary',
    'evpn_vni.json': 'evpn_vni',
    'bgp_evpn_vni.json': 'bgp_evpn_vni',
    'bgp_evpn_route_type_multicast.json': 'evpn_type3',
    'lldp_neighbors.json': 'lldp',
    'ip_addr.json': 'interfaces',
}


def read(*parts):
    with open(os.path.join(FIXTURES, *parts), encoding='utf-8') as handle:
        return handle.read()


def command_result(path):
    """{'rc', 'stdout', 'stderr'} of a captured command (path relative to captured/)."""
    full = os.path.join(CAPTURED, path)
    with open(full, encoding='utf-8') as handle:
        stdout = handle.read()
    rc, stderr = 0, ''
    if os.path.exists(full + '.rc'):
        with open(full + '.rc', encoding='utf-8') as handle:
            rc = int(handle.read().strip())
    if os.path.exists(full + '.stderr'):
        with open(full + '.stderr', encoding='utf-8') as handle:
            stderr = handle.read()
    return {'rc': rc, 'stdout': stdout, 'stderr': stderr}


def ping_result(path):
    with open(os.path.join(CAPTURED, path), encoding='utf-8') as handle:
        return json.load(handle)


def scenario_states(scenario, interface='eth1'):
    """{device: {source key: raw result}} of one captured scenario."""
    base = os.path.join(CAPTURED, scenario)
    states = {}
    for device in sorted(os.listdir(base)):
        raw = {}
        for name in sorted(os.listdir(os.path.join(base, device))):
            if name.endswith(('.rc', '.stderr')):
                continue
            relative = os.path.join(scenario, device, name)
            if name in FILE_KEYS:
                raw[FILE_KEYS[name]] = command_result(relative)
            elif name.startswith('ping_jumbo_'):
                raw['jumbo:%s:%s' % (interface, name[len('ping_jumbo_'):-len('.json')])] = ping_result(relative)
            elif name.startswith('ping_'):
                raw['ping:%s:%s' % (interface, name[len('ping_'):-len('.json')])] = ping_result(relative)
        states[device] = raw
    return states
