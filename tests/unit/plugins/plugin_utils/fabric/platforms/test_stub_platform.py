# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A new NOS is one folder: the stub NOS (tests/unit/fixtures/platforms/stubnos, never among the shipped platforms)
needs no edit anywhere else to be taken by the intent schema, designed, rendered, deployed against its minimal double
through the deploy contract, gathered into the typed neutral state and checked, and it honours the platform contract
(parts, lab kinds: none, docs page)."""

import copy
import os
import time

import pytest
import yaml

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks, platforms
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.deploy import (
    CONFIRMED, FAILED, PENDING_CONFIRM, REVERTING, ROLLED_BACK, UNCHANGED, WOULD_CHANGE, DeployError)
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.deploy import contract
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_intent
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.errors import IntentError
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.intent import load_schema
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.lab import check_lab as lab_check
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_device
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.reader import Target
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.sources import gatherer_for
from tests.unit.plugins.plugin_utils.fabric.platforms import test_contract

ROOT = test_contract.ROOT
FOLDER = os.path.join(ROOT, 'tests', 'unit', 'fixtures', 'platforms')


@pytest.fixture
def stub():
    """The registry pointed at the fixture folder, for this test only."""
    platforms.add_folder(FOLDER)
    try:
        yield platforms.get_platform('stubnos')
    finally:
        platforms.remove_folder(FOLDER)


def stub_intent(**release):
    with open(test_contract.LAB, encoding='utf-8') as handle:
        intent = yaml.safe_load(handle)
    intent['name'] = 'stubfab'
    intent['topology']['platform'] = {'leaf': 'stubnos', 'spine': 'stubnos', 'super_spine': 'stubnos'}
    if release:
        intent['topology']['nos_release'] = {'stubnos': release['release']}
    return intent


def test_the_shipped_collection_does_not_list_it():
    assert 'stubnos' not in platforms.platform_names()
    assert 'stubnos' not in load_schema()['$defs']['platform']['enum']
    with pytest.raises(IntentError, match=r'topology.platform.leaf.*must be one of: sonic, eos, nvue, frr'):
        design_from_intent(stub_intent())


def test_one_folder_is_a_platform_the_intent_takes(stub):
    assert stub.name in platforms.platform_names() and stub.title == 'Stub NOS (test fixture)'
    assert 'stubnos' in load_schema()['$defs']['platform']['enum']
    fabric = design_from_intent(stub_intent(release='1.1'))
    assert fabric.device('leaf001')['platform'] == 'stubnos' and fabric.device('leaf001')['nos_release'] == '1.1'
    with pytest.raises(IntentError, match=r"topology.nos_release.stubnos: is not a supported Stub NOS "
                                          r"\(test fixture\) release \(supported: 1.0, 1.1\) \(got '2.0'\)"):
        design_from_intent(stub_intent(release='2.0'))


def test_it_honours_the_platform_contract(stub):
    test_contract.check_parts('stubnos')
    test_contract.check_lab('stubnos')
    test_contract.check_docs('stubnos')
    assert not stub.lab_kinds
    with pytest.raises(IntentError, match='no containerlab kind runs stubnos switches'):
        lab_check(design_from_intent(stub_intent()))


def test_it_renders(stub):
    fabric = design_from_intent(stub_intent())
    files = render_device(fabric, 'leaf001')
    assert list(files) == ['stub.conf']
    assert files['stub.conf'].startswith('hostname leaf001\nrelease 1.0\nmanagement eth0 172.31.100.')
    assert 'interface ge3 mtu 9100 address 10.0.0.1/31 peer spine001\n' in files['stub.conf']


def test_it_deploys_through_the_contract_against_its_double(stub, tmp_path):
    fabric = design_from_intent(stub_intent())
    files = render_device(fabric, 'leaf001')
    host_vars = {'stub_double': str(tmp_path / 'leaf001')}

    def driver():
        return contract.driver_for('stubnos', 'leaf001', host_vars)
    switch = stub.part('double').StubSwitch(host_vars['stub_double'])
    before = switch.running
    checked = contract.push(driver(), files, check_mode=True)
    assert checked['outcome'] == WOULD_CHANGE and '+hostname leaf001' in checked['diff'] and switch.running == before
    assert contract.push(driver(), files, confirm_seconds=60)['outcome'] == PENDING_CONFIRM
    assert contract.rollback(driver()) == {'outcome': ROLLED_BACK, 'changed': True} and switch.running == before
    contract.push(driver(), files, confirm_seconds=60)
    assert contract.confirm(driver(), files) == {'outcome': CONFIRMED, 'changed': True}
    assert switch.running == switch.startup == files['stub.conf']
    assert contract.push(driver(), files)['outcome'] == UNCHANGED
    refused = dict(files, **{'stub.conf': files['stub.conf'] + 'bogus line\n'})
    with pytest.raises(DeployError) as raised:
        contract.push(driver(), refused)
    assert raised.value.outcome == FAILED and 'Invalid input: bogus line' in raised.value.message
    changed = render_device(design_from_intent(stub_intent(release='1.1')), 'leaf001')
    contract.push(driver(), changed, confirm_seconds=0.2)
    time.sleep(0.3)
    with pytest.raises(DeployError) as raised:
        contract.confirm(driver(), changed)
    assert raised.value.outcome == REVERTING and switch.running == files['stub.conf'], 'the timer reverted it'


def test_it_is_gathered_into_the_typed_state_and_checked(stub, tmp_path):
    fabric = design_from_intent(stub_intent())
    states = {}
    for name in fabric.device_names():
        if fabric.nodes[name].role == 'host':
            continue
        switch = stub.part('double').StubSwitch(str(tmp_path / name))
        switch.load(render_device(fabric, name)['stub.conf'])
        switch.commit(60)
        switch.confirm()
        gatherer = gatherer_for(fabric.device(name))
        states[name] = gatherer.read(Target(name, {'stub_double': switch.directory}), gatherer.commands(fabric.device(name)))
    test_contract.check_gathers('stubnos', [(fabric.device(name), raw) for name, raw in states.items()])
    results = checks.run(checks.Context(fabric, copy.deepcopy(states)), devices=list(states), categories=('fabric',))
    bgp = [item for item in results if item.check == 'bgp_session']
    assert bgp and all(item.status == checks.PASS for item in bgp)
    assert not [item for item in results if item.status == checks.ERROR], 'no check crashes on the stub\'s state'
