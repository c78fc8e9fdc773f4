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
