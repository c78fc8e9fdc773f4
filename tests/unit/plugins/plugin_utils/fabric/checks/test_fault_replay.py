# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Root cause on faults drawn from the design (tests/faults/generator.py), replayed through the checks and the engine
without a lab: the simulated fabric (tests/faults/world.py) shows, in the neutral state the checks read, what each
device would show with the faults in place. For every fault, the first cause that blames its device must be of the
fault's kind; a device without a fault is never blamed; a fault that changes what the deploy manages is found as
drift. The lab's own captures of the same kinds replay in test_lab_captures.py."""

import os

import pytest
from hypothesis import HealthCheck, given, note, settings, strategies as st

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file

from tests.faults import generator
from tests.faults.judge import judge, simulate
from tests.faults.world import World
from tests.unit.utils.paths import ROOT as REPO

LAB = 'fabrics/lab.yml'
SHAPES = ['fabrics/lab.yml', 'tests/unit/fixtures/state/captured/intent.yml',
          'tests/unit/fixtures/intents/frr_unnumbered.yml', 'tests/unit/fixtures/intents/frr_vrf.yml',
          'tests/unit/fixtures/intents/shape2.yml']
DESIGNS = {}


def design(path):
    if path not in DESIGNS:
        DESIGNS[path] = design_from_file('%s/%s' % (REPO, path))
    return DESIGNS[path]


def check(path, faults):
    _results, found = simulate(design(path), faults)
    verdict = judge(faults, found)
    wrong = [(item['fault'].title, item['named'], item['title']) for item in verdict['faults']
             if not item['right'] or item['drift_found'] is False]
    assert not wrong and not verdict['healthy_blamed'] and not verdict['unplaced'], (
        wrong, verdict['healthy_blamed'], [cause.headline() for cause in found])
    return found


@pytest.mark.parametrize('path', SHAPES)
def test_a_healthy_fabric_has_no_cause(path):
    results, found = simulate(design(path), [])
    assert found == [] and results and not [item.line() for item in results if item.status in ('fail', 'error')]


@pytest.mark.parametrize('kind', sorted(generator.KINDS))
def test_every_kind_on_every_place_of_the_lab(kind):
    """Each kind of fault alone, wherever the lab's design has a place for it."""
    world = World(design(LAB))
    places = [target for target in generator.KINDS[kind].places(world) if generator.KINDS[kind].fits(world, target['device'])]
    assert places, 'the lab has no place for %s' % kind
    for target in places:
        check(LAB, [generator.KINDS[kind].fault(world, target)])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2 ** 31 - 1), shape=st.sampled_from(SHAPES))
def test_rounds_of_faults_on_disjoint_devices(seed, shape):
    """Several faults at once, drawn with a seed (printed by hypothesis when it fails: replay with generate(seed))."""
    world = World(design(shape))
    [faults] = generator.generate(world, seed, 1, 3)
    note('seed %d on %s: %s' % (seed, shape, '; '.join(fault.title for fault in faults)))
    check(shape, faults)


# --------------------------------------------------------------------------- the faults of issue 36, by name
def _fault(kind, **target):
    world = World(design(LAB))
    return generator.KINDS[kind].fault(world, target)


def test_a_bgp_neighbour_shut_on_a_spine_blames_the_spine():
    found = check(LAB, [_fault('session_shutdown', device='spine001', key='10.0.0.1', peer='leaf001')])
    assert found[0].devices == ['spine001'] and found[0].title.startswith(
        'spine001 has BGP neighbour 10.0.0.1 (leaf001 eth1) shut down in its configuration')
    assert {item.device for item in found[0].consequences} == {'leaf001'}  # the leaf's Active end folds under it


def test_a_changed_vtep_address_blames_its_leaf_not_a_remote_one():
    [cause] = check(LAB, [_fault('vtep_address', device='leaf003', other='198.19.0.3')])
    assert cause.devices == ['leaf003'] and cause.kind == 'vtep_address'
    assert {item.device for item in cause.consequences} >= {'leaf001'}  # its flood list lost the design's VTEP


def test_a_blackhole_route_for_a_remote_vtep_blames_the_leaf_holding_it():
    [cause] = check(LAB, [_fault('vtep_blackhole', device='leaf001', remote='leaf003', vtep='10.254.16.3')])
    assert cause.devices == ['leaf001'] and cause.kind == 'route'
    assert {item.device for item in cause.consequences} >= {'gpu0001', 'gpu0003'}  # the servers' pings fold under it


def test_a_vxlan_device_without_tos_inherit_blames_the_leaf_not_the_probing_server():
    [cause] = check(LAB, [_fault('marking', device='leaf001', vni=10100, vlan=100)])
    assert cause.devices == ['leaf001']
    assert {item.check for item in cause.results} >= {'vxlan_device', 'dataplane_marking'}


def test_a_frozen_spine_is_one_cause_and_no_leaf_fails():
    [cause] = check(LAB, [_fault('frozen', device='spine002')])
    assert cause.devices == ['spine002'] and cause.kind == 'unreadable'
    assert {item.device for item in cause.consequences} >= {'leaf001', 'leaf002', 'leaf003', 'leaf004'}


def test_a_stopped_lldpd_is_a_cause_not_a_fabric_still_converging():
    [cause] = check(LAB, [_fault('lldpd_stopped', device='leaf002')])
    assert cause.title == 'leaf002: lldpd is not running' and cause.devices == ['leaf002']


def test_a_wrong_vxlan_mtu_on_a_leaf_still_changing_at_its_deadline_is_named_not_waited_for():
    """The lab's two misses before the steady failures (docs/validation.md, seeds 1796186541 and 1796197516):
    vxlan_mtu on leaf004 while its sessions kept changing, so leaf004 was still changing at its settle deadline.
    What its last two readings saw the same (its own checks, as validate_gather reads them) is judged as a fact of
    leaf004; only what changed waits for it."""
    fault = _fault('vxlan_mtu', device='leaf004', vni=10101, vlan=101)
    world = World(design(LAB))
    generator.apply(world, [fault])
    own = checks.run(checks.Context(design(LAB), world.states(), {}), devices=['leaf004'], categories=('fabric',),
                     local_only=True)
    steady = frozenset(item.key() for item in own if item.status in (checks.FAIL, checks.ERROR))
    assert steady, 'leaf004 shows nothing wrong by itself'
    converging = {'leaf004': 'still changing after 60 s, the deadline; 12 readings'}
    _results, waited = simulate(design(LAB), [fault], {'converging': converging})
    assert [cause.kind for cause in waited if 'leaf004' in cause.devices][0] == 'not_converged'  # without steady
    _results, found = simulate(design(LAB), [fault], {'converging': converging, 'steady': {'leaf004': steady}})
    verdict = judge([fault], found)
    assert verdict['faults'][0]['right'] and verdict['faults'][0]['drift_found'] and not verdict['healthy_blamed'], [
        cause.headline() for cause in found]


@pytest.mark.parametrize('kind, target, line', [
    ('maximum_paths', {'device': 'leaf003'}, 'FRR: -  no maximum-paths 1'),
    ('host_rule', {'device': 'gpu0003', 'port': 'eth1', 'ip': '10.100.0.12', 'table': 100, 'priority': 1000},
     'rails: +ip rule add from 10.100.0.12/32 table 100 priority 1000'),
])
def test_drift_nothing_else_shows_is_a_cause(kind, target, line):
    [cause] = check(LAB, [_fault(kind, **target)])
    assert (cause.kind, cause.devices) == ('drift', [target['device']]) and line in cause.drift


@pytest.mark.parametrize('shape', ['eos_small.yml', 'sonic_small.yml', 'nvue_unnumbered.yml'])
def test_a_blackhole_route_for_a_remote_vtep_blames_the_vendor_leaf_holding_it(shape):
    """EOS, SONiC and NVUE leaves read their forwarding routes (issue 36): the world prints them as the NOS does and the
    platform's parser reads them back, so the blackhole is the leaf's own cause."""
    path = 'tests/unit/fixtures/intents/' + shape
    world = World(design(path))
    place = generator.KINDS['vtep_blackhole'].places(world)[0]
    _results, found = simulate(design(path), [generator.KINDS['vtep_blackhole'].fault(world, place)])
    assert [(cause.kind, cause.devices) for cause in found] == [('route', [place['device']])]
    assert place['vtep'] in found[0].title


def test_what_the_state_cannot_place_blames_nobody():
    """A route that captures a VTEP on a switch whose gatherer reads no routes (the stub NOS of
    tests/unit/platforms/stubnos): the servers' pings fail and nothing read explains them. The engine names the path's
    devices as suspects and fails none of them: the state cannot tell which is wrong (docs/validation.md, "What the
    engine cannot tell apart")."""
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import platforms
    from tests.unit.utils.platforms import PLATFORM_TESTS
    platforms.add_folder(PLATFORM_TESTS)
    try:
        stub = os.path.relpath(os.path.join(PLATFORM_TESTS, 'stubnos', 'intent.yml'), REPO)
        world = World(design(stub))
        place = generator.KINDS['vtep_blackhole'].places(world)[0]
        _results, found = simulate(design(stub), [generator.KINDS['vtep_blackhole'].fault(world, place)])
    finally:
        platforms.remove_folder(PLATFORM_TESTS)
    assert found and all(cause.devices == [] for cause in found)
    assert all(place['device'] in cause.suspects or place['remote'] in cause.suspects for cause in found)
