"""Import this checkout as the aifabric.fabric collection, through Ansible's collection loader (as ansible-test does)."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLLECTIONS = os.path.join(ROOT, '.ansible', 'collections')
LINK = os.path.join(COLLECTIONS, 'ansible_collections', 'aifabric', 'fabric')


def _collections_path():
    """Inside an ansible_collections tree (ansible-test) use that tree; otherwise link the checkout."""
    parts = ROOT.split(os.sep)
    if parts[-3:-2] == ['ansible_collections']:
        return os.sep.join(parts[:-3])
    if not os.path.exists(LINK):
        os.makedirs(os.path.dirname(LINK), exist_ok=True)
        os.symlink(ROOT, LINK)
    return COLLECTIONS


def _install_collection_loader(path):
    if any(type(finder).__name__ == '_AnsibleCollectionFinder' for finder in sys.meta_path):
        return  # ansible-test units installed its own (module tests there cannot even import ansible.plugins)
    from ansible.plugins.loader import init_plugin_loader
    init_plugin_loader([path])


_install_collection_loader(_collections_path())
# Shared test helpers import as `tests.unit.utils.<name>`.
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

# Integration tests (`make integration`; `make unit` runs the rest) are declared: everything under these directories
# (device doubles, deploy drivers against them, containerlab, host roles through ansible-playbook, the Galaxy tarball),
# and a test module elsewhere that starts Ansible's command line tools says so itself (`pytestmark =
# pytest.mark.integration`; tests/unit/test_harness.py holds that every such module does).
INTEGRATION_DIRECTORIES = ('doubles', 'deploy', 'lab', 'roles', 'packaging')


def pytest_configure(config):
    # One seed for the run's sampled sweeps (tests/unit/utils/sampling.py), fixed here in the main process: the
    # pytest-xdist workers it starts next inherit it and draw the same cases.
    from tests.unit.utils import sampling
    sampling.run_seed()
    config.addinivalue_line('markers', 'integration: starts ansible-playbook, device doubles or a lab (declared by the '
                                       'test module, or by its directory in tests/conftest.py; `make integration` '
                                       'runs these, `make unit` the others)')
    config.addinivalue_line('markers', 'long_module: the module\'s tests run in order on one slow fixture (a fleet of '
                                       'doubles, a fake server), so the module is one long unit of work for a '
                                       'pytest-xdist worker; such modules are collected first, and `make integration` '
                                       '(--no-loadscope-reorder) hands them out first')


def pytest_report_header(config):  # pylint: disable=unused-argument
    from tests.unit.utils import sampling
    return sampling.describe()


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # pylint: disable=unused-argument
    """The sampling line again at the end: `pytest -q` (make unit, make integration) prints no header."""
    if config.getoption('verbose') < 0:
        from tests.unit.utils import sampling
        terminalreporter.write_line(sampling.describe())


def pytest_collection_modifyitems(config, items):  # pylint: disable=unused-argument
    tests = os.path.join(ROOT, 'tests')
    for item in items:
        if os.path.relpath(str(item.path), tests).split(os.sep)[0] in INTEGRATION_DIRECTORIES:
            item.add_marker('integration')
    # The long modules first (a stable sort keeps the order within each group): a worker that starts one last would
    # run it alone after the others finish (pytest-xdist's default hands out the modules with the most tests first).
    items.sort(key=lambda item: item.get_closest_marker('long_module') is None)


def pytest_collection_finish(session):
    """`ansible-test units` runs each test in a fork of its pytest worker (its ansible_forked plugin): a plugin a
    test loads would be imported again in every fork. Import the collection's plugins of the kinds under test once,
    in the worker, so that every fork inherits them (a module test's run keeps only modules and module_utils)."""
    if not session.config.pluginmanager.has_plugin('ansible_forked'):
        return
    import importlib
    tests = os.path.join(ROOT, 'tests', 'unit', 'plugins')
    kinds = {os.path.relpath(str(item.path), tests).split(os.sep)[0] for item in session.items}
    for kind in sorted(kinds & set(os.listdir(os.path.join(ROOT, 'plugins')))):
        for name in sorted(os.listdir(os.path.join(ROOT, 'plugins', kind))):
            if name.endswith('.py') and name != '__init__.py':
                importlib.import_module('ansible_collections.aifabric.fabric.plugins.%s.%s' % (kind, name[:-3]))
