# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where things are, for every test: the repository (the collection's root) and its usual places."""

from __future__ import annotations

import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
PLAYBOOKS = os.path.join(ROOT, 'playbooks')
INVENTORIES = os.path.join(ROOT, 'inventories')
FABRICS = os.path.join(ROOT, 'fabrics')  # the shipped intents, outside the inventory directories
LAB_INTENT = os.path.join(FABRICS, 'lab.yml')
FIXTURES = os.path.join(ROOT, 'tests', 'unit', 'fixtures')


def repo_path(*parts) -> str:
    """A path inside the repository."""
    return os.path.join(ROOT, *parts)
