"""Make this checkout importable as ansible_collections.aifabric.fabric for plain pytest runs."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLLECTIONS = os.path.join(ROOT, '.ansible', 'collections')
LINK = os.path.join(COLLECTIONS, 'ansible_collections', 'aifabric', 'fabric')


def _ensure_collection_link():
    """Inside an ansible_collections tree (ansible-test) nothing is needed; otherwise link the checkout."""
    parts = ROOT.split(os.sep)
    if parts[-3:-2] == ['ansible_collections']:
        return os.sep.join(parts[:-3])
    if not os.path.exists(LINK):
        os.makedirs(os.path.dirname(LINK), exist_ok=True)
        os.symlink(ROOT, LINK)
    return COLLECTIONS


sys.path.insert(0, _ensure_collection_link())
# Shared test helpers import as `tests.unit.utils.<name>`.
if ROOT not in sys.path:
    sys.path.insert(1, ROOT)
