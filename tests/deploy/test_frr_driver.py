"""The FRR deploy driver (platforms/frr/deploy.py) through the deploy contract, against a real FRR-on-Linux switch
(tests/deploy/frr_node.py: FRR 8.4, iproute2 and OpenSSH in namespaces of their own), from factory state: check mode,
push + confirm + read back, a second push, rollback, a file FRR refuses, a reload that fails, the confirm timer that
runs out with nobody to confirm, and the lock-out guard."""

import copy
import json
import os
import time

import pytest
import yaml

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.deploy import (
    CONFIRMED, FAILED, PENDING_CONFIRM, REVERTING, ROLLED_BACK, UNCHANGED, WOULD_CHANGE, DeployError)
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.deploy import contract
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_intent
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_device
from tests.deploy.frr_node import FrrNode
from tests.unit.utils.paths import ROOT

LAB = os.path.join(ROOT, 'fabrics', 'lab.yml')
LEAF = 'leaf001'
RELOAD = '/usr/lib/frr/frr-reload.py'


def _files(**timers):
    with open(LAB, encoding='utf-8') as handle:
        intent = yaml.safe_load(handle)
    if timers:
        intent.setdefault('underlay', {})['timers'] = timers
    return render_device(design_from_intent(intent), LEAF)


FILES = _files()
CHANGED = _files(keepalive_s=5, hold_s=15)  # other BGP timers: something to deploy on a confirmed switch


@pytest.fixture
def node(tmp_path):
    ports = len(json.loads(FILES['interfaces.json'])['links']) - 4  # lo, the VLAN's bridge and VXLAN device
    started = FrrNode(LEAF, str(tmp_path / 'node'), ports=max(ports, 4)).start()
    try:
        yield started
    finally:
        started.stop()


def driver(node):
    return contract.driver_for('frr', LEAF, node.host_vars)


def test_check_mode_shows_the_diff_and_changes_nothing(node):
    before = node.state()
    result = contract.push(driver(node), FILES, check_mode=True)
    assert result['outcome'] == WOULD_CHANGE and result['changed']
    for shown in ('+hostname leaf001', '+ip link add br100 type bridge', '+net.ipv4.ip_forward = 1',
                  '+bgpd=yes', '+++ /etc/frr/frr.conf (rendered)'):
        assert shown in result['diff']
    assert node.state() == before


def test_push_confirm_read_back_then_a_second_push_changes_nothing(node):
    pushed = contract.push(driver(node), FILES, confirm_seconds=60)
    assert pushed['outcome'] == PENDING_CONFIRM
    assert contract.confirm(driver(node), FILES) == {'outcome': CONFIRMED, 'changed': True}
    assert 'hostname leaf001' in node.running_config()
    assert node.run('cat /etc/frr/frr.conf')[1] == FILES['frr.conf'], 'the confirm saves the rendered file'
    assert 'link add br100 type bridge' in node.run('cat /etc/aifabric/netdev.d/switch.ip')[1]
    again = contract.push(driver(node), FILES, confirm_seconds=60)
    assert again == {'outcome': UNCHANGED, 'diff': '', 'changed': False}


def test_rollback_puts_back_a_switch_that_ran_nothing(node):
    before = node.state()
    contract.push(driver(node), FILES, confirm_seconds=60)
    assert node.state() != before
    assert contract.rollback(driver(node)) == {'outcome': ROLLED_BACK, 'changed': True}
    assert node.state() == before
    assert contract.rollback(driver(node)) == {'outcome': UNCHANGED, 'changed': False}, 'nothing is pending any more'


def test_rollback_restores_the_running_config_byte_for_byte(node):
    contract.push(driver(node), FILES, confirm_seconds=60)
    contract.confirm(driver(node), FILES)
    before = node.state()
    contract.push(driver(node), CHANGED, confirm_seconds=60)
    assert 'timers 5 15' in node.running_config()
    contract.rollback(driver(node))
    assert node.state() == before


def test_a_file_frr_refuses_leaves_the_switch_as_it_was_and_quotes_frr(node):
    before = node.state()
    broken = dict(FILES, **{'frr.conf': FILES['frr.conf'] + 'router bgpp 65000\n'})
    with pytest.raises(DeployError) as raised:
        contract.push(driver(node), broken, confirm_seconds=60)
    assert raised.value.outcome == FAILED and raised.value.step.startswith('vtysh -C')
    assert '% Unknown command' in raised.value.message and 'router bgpp 65000' in raised.value.message, 'FRR says why'
    assert node.state() == before


def test_a_refused_reload_rolls_back_at_once(node):
    contract.push(driver(node), FILES, confirm_seconds=60)
    contract.confirm(driver(node), FILES)
    before = node.state()
    # The next `frr-reload.py --reload` fails once (the fault of the lab's clab_faults scenario).
    node.run('mv %s %s.real && printf %s > %s && chmod 0755 %s && touch /run/frr/refuse' % (
        RELOAD, RELOAD, "'#!/bin/sh\\nif [ \"$1\" = --reload ] && [ -e /run/frr/refuse ]; then rm -f /run/frr/refuse; "
        "echo refused by the test >&2; exit 1; fi\\nexec /usr/bin/python3 %s.real \"$@\"\\n'" % RELOAD, RELOAD, RELOAD))
    with pytest.raises(DeployError) as raised:
        contract.push(driver(node), CHANGED, confirm_seconds=60)
    assert raised.value.outcome == ROLLED_BACK, raised.value
    assert 'refused by the test' in raised.value.message and 'rolled back' in raised.value.message
    assert node.state() == before


def test_the_switch_reverts_by_itself_when_nobody_confirms(node):
    before = node.state()
    # A timer that outlasts the commit (FRR's start and reload take seconds on a loaded machine): one that runs out
    # during the commit reverts while the reload still runs.
    contract.push(driver(node), FILES, confirm_seconds=20)
    deadline = time.monotonic() + 90
    while node.state() != before and time.monotonic() < deadline:
        time.sleep(1)
    assert node.state() == before, 'the confirm timer put the switch back'
    with pytest.raises(DeployError) as raised:
        contract.confirm(driver(node), FILES)
    assert raised.value.outcome == REVERTING and 'not running' in raised.value.message


def test_the_lockout_guard_refuses_taking_the_address_the_deploy_uses(node):
    contract.push(driver(node), FILES, confirm_seconds=60)
    contract.confirm(driver(node), FILES)
    before = node.state()
    netdev = copy.deepcopy(json.loads(FILES['interfaces.json']))
    netdev['links'].append({'name': 'eth0', 'addresses': ['10.255.255.1/30']})
    with pytest.raises(DeployError) as raised:
        contract.push(driver(node), dict(FILES, **{'interfaces.json': json.dumps(netdev)}), confirm_seconds=60)
    assert raised.value.step == 'lock-out guard' and 'eth0' in raised.value.message
    assert node.state() == before
