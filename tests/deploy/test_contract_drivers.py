"""The deploy contract over the registry: every platform's driver, against its double, shows a diff in check mode
and changes nothing, commits with a timer, rolls back to what the switch ran, then pushes, confirms, reads back and
finds nothing left to push. A platform without a double here fails: its driver is proven nowhere else.

Doubles: the EOS, SONiC and NVUE doubles of tests/doubles (the mixed fleet of test_drivers.py) and, for FRR, a real
FRR-on-Linux switch in namespaces of its own (frr_node.py). The stub NOS of tests/unit/platforms runs the
same contract against its own double in tests/unit/platforms/stubnos/test_stubnos.py."""

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.deploy import (
    CONFIRMED, PENDING_CONFIRM, ROLLED_BACK, UNCHANGED, WOULD_CHANGE)
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.deploy import contract
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms import platform_names
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_device
from tests.deploy import test_drivers, test_frr_driver
from tests.deploy.frr_node import FrrNode
from tests.deploy.test_drivers import fleet  # noqa: F401  pylint: disable=unused-import


def _fleet_double(platform, request, tmp_path):
    """A switch of the mixed fleet, back to factory state."""
    started = request.getfixturevalue('fleet')
    name = test_drivers.SWITCH[platform]
    test_drivers._reset(started, name, platform)  # pylint: disable=protected-access
    request.addfinalizer(lambda: test_drivers._reset(started, name, platform))  # pylint: disable=protected-access
    files = render_device(test_drivers.DESIGN, name, test_drivers.USERS)
    return name, started.host_vars[name], files, lambda: test_drivers.running(started, name, platform)


def _frr_double(platform, request, tmp_path):
    node = FrrNode(test_frr_driver.LEAF, str(tmp_path / 'node')).start()
    request.addfinalizer(node.stop)
    return test_frr_driver.LEAF, node.host_vars, test_frr_driver.FILES, node.state


DOUBLES = {'eos': _fleet_double, 'sonic': _fleet_double, 'nvue': _fleet_double, 'frr': _frr_double}


@pytest.mark.parametrize('platform', platform_names())
def test_every_platform_driver_honours_the_deploy_contract_against_its_double(platform, request, tmp_path):
    assert platform in DOUBLES, 'no double proves the %s driver: add one to DOUBLES' % platform
    name, host_vars, files, running = DOUBLES[platform](platform, request, tmp_path)

    def driver():
        return contract.driver_for(platform, name, host_vars)
    before = running()
    checked = contract.push(driver(), files, check_mode=True)
    assert checked['outcome'] == WOULD_CHANGE and checked['diff'].strip() and running() == before
    assert contract.push(driver(), files, confirm_seconds=120)['outcome'] == PENDING_CONFIRM
    assert running() != before
    assert contract.rollback(driver()) == {'outcome': ROLLED_BACK, 'changed': True}
    assert running() == before
    contract.push(driver(), files, confirm_seconds=120)
    assert contract.confirm(driver(), files) == {'outcome': CONFIRMED, 'changed': True}
    again = contract.push(driver(), files, confirm_seconds=120)
    assert again['outcome'] == UNCHANGED and not again['diff'].strip()
