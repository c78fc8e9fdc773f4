# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Configuration drift (checks/drift.py): what the deploy would push, read from what the validate role registered (the
switch driver in check mode, the host_network role's modules in check mode), as a finding naming the lines; and how
it joins a device's other cause."""

import copy

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import NotApplicable, causes
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks.drift import parse_drift
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state import StateError

from tests.unit.plugins.plugin_utils.fabric.state.captures import INTENT, scenario_states

# what switch_deploy returned in check mode on the lab's leaf003 with `maximum-paths 1` typed in (FRR 8.4's
# frr-reload.py --test lines, as the driver frames them)
FRR_DIFF = ('--- FRR (running)\n+++ FRR (rendered)\n-router bgp 4200000002\n- address-family ipv4 unicast\n'
            '-  no maximum-paths 1\n+router bgp 4200000002\n+ address-family ipv4 unicast\n+  maximum-paths 2\n')


@pytest.fixture(scope='module')
def design():
    return design_from_file(INTENT)


def run(design, states):
    ctx = checks.Context(design, states)
    results = checks.run(ctx, check_ids={'config_drift'})
    return {item.device: item for item in results}, ctx


def with_drift(states, **registered):
    states = copy.deepcopy(states)
    for name in states:
        states[name]['config_drift'] = registered.get(name) or (
            {'outcome': 'unchanged', 'would_push': '', 'changed': False} if name.startswith(('leaf', 'spine'))
            else {'rails': {'changed': False, 'commands': [], 'persisted': False},
                  'sysctl': {'changed': False, 'changed_keys': [], 'before': {}, 'persisted': False}})
    return states


def test_the_driver_diff_is_read_by_part_and_line():
    parts = parse_drift({'outcome': 'would_change', 'changed': True, 'would_push': FRR_DIFF + (
        '--- interfaces (running)\n+++ interfaces (rendered)\n+ip link set dev eth3 up\n'
        '--- /etc/frr/frr.conf (saved)\n+++ /etc/frr/frr.conf (rendered)\n@@ -1 +1 @@\n-hostname x\n+hostname leaf003\n')})
    assert parts == {'FRR': ['-router bgp 4200000002', '- address-family ipv4 unicast', '-  no maximum-paths 1',
                             '+router bgp 4200000002', '+ address-family ipv4 unicast', '+  maximum-paths 2'],
                     'interfaces': ['+ip link set dev eth3 up'], '/etc/frr/frr.conf': ['-hostname x', '+hostname leaf003']}
    assert parse_drift({'outcome': 'unchanged', 'would_push': ''}) == {}


def test_what_could_not_be_compared_says_why():
    with pytest.raises(NotApplicable, match='no reviewed generation'):
        parse_drift({'failed': True, 'not_reviewed': True, 'msg': 'leaf001: out/lab holds no rendered output'})
    with pytest.raises(StateError, match='ssh: connect'):
        parse_drift({'failed': True, 'msg': 'leaf001: connect: ssh: connect to host ... refused'})
    # as the role registers it per host (failed_when: false turns failed to false): still an error, never a pass
    with pytest.raises(StateError, match='leaf001: connect failed: no answer within 600 s'):
        parse_drift({'failed': False, 'failed_when_result': False, 'changed': False, 'outcome': 'failed',
                     'failed_step': 'connect', 'msg': 'leaf001: connect failed: no answer within 600 s (the deadline '
                                                      'of the push step, option timeout)'})
    with pytest.raises(NotApplicable, match='validate_drift is false'):
        parse_drift({'skipped': True, 'changed': False})
    with pytest.raises(StateError, match='unreachable'):
        parse_drift({'rails': {'unreachable': True, 'msg': 'ssh: connect refused'}, 'sysctl': {'skipped': True}})
    # a host module that failed (the role registers it with ignore_errors: failed stays true): an error naming the
    # module and its message, never a server without drift
    failed = {'failed': True, 'changed': False, 'rc': 127,
              'msg': "The module interpreter '/usr/bin/python3.12' was not found."}
    for part in ('files', 'rails', 'sysctl'):
        raw = {'files': {'changed': False, 'files': [], 'removed': [], 'backend': 'netplan'},
               'rails': {'changed': False, 'commands': []}, 'sysctl': {'changed': False}}
        raw[part] = failed
        with pytest.raises(StateError, match="module interpreter '/usr/bin/python3.12' was not found"):
            parse_drift(raw)


def test_a_host_shows_its_rail_commands_sysctls_and_nccl_settings(design):
    states = with_drift(scenario_states('healthy'), gpu0001={
        'rails': {'changed': True, 'persisted': False, 'commands': ['rule add from 10.100.0.10/32 table 100 priority 1000']},
        'sysctl': {'changed': True, 'persisted': True, 'changed_keys': ['net.ipv4.conf.eth1.arp_ignore'],
                   'before': {'net.ipv4.conf.eth1.arp_ignore': '0'}}})
    states['gpu0001']['nccl_conf'] = {'rc': 0, 'stderr': '', 'stdout': 'NCCL_IB_TC=0\n'}
    found, _ctx = run(design, states)
    item = found['gpu0001']
    assert item.status == checks.FAIL and item.facts['lines'][:3] == [
        'rails: +ip rule add from 10.100.0.10/32 table 100 priority 1000', 'sysctl: -net.ipv4.conf.eth1.arp_ignore = 0',
        'sysctl: +the sysctl.d file of the rails (rewritten)']
    assert 'nccl.conf: -NCCL_IB_TC=0' in item.facts['lines']
    assert found['gpu0002'].status == checks.PASS and found['leaf001'].status == checks.PASS


def test_drift_alone_is_a_cause_and_drift_beside_a_local_cause_joins_it(design):
    states = with_drift(scenario_states('healthy'), leaf002={'outcome': 'would_change', 'would_push': FRR_DIFF})
    ctx = checks.Context(design, states)
    results = checks.run(ctx)
    [cause] = causes.analyse(ctx, results)
    assert (cause.kind, cause.devices) == ('drift', ['leaf002']) and '-  no maximum-paths 1' in ' '.join(cause.drift)
    # the same device also shows the fault in its state (a port shut in its running configuration): one cause
    states = with_drift(scenario_states('link_down'), leaf001={
        'outcome': 'would_change', 'would_push': '--- interfaces (running)\n+++ interfaces (rendered)\n'
                                                 '+ip link set dev eth2 up\n'})
    ctx = checks.Context(design, states)
    [cause] = causes.analyse(ctx, checks.run(ctx))
    assert (cause.kind, cause.devices, cause.drift) == ('admin_down', ['leaf001'], ['interfaces: +ip link set dev eth2 up'])
    assert any('config_drift' == item.check for item in cause.evidence)


def test_no_drift_read_is_not_applicable_never_a_pass(design):
    found, _ctx = run(design, scenario_states('healthy'))
    assert {item.status for item in found.values()} == {checks.NOT_APPLICABLE}
    assert 'validate_drift is false' in found['leaf001'].message
