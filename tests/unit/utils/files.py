# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reading a rendered output tree back, for tests that compare two renders file for file."""

from __future__ import annotations

import os


def read_tree(root) -> dict:
    """Relative path -> bytes of every file under `root`, through the links to the device directories that the
    generations share (what a reader of the output sees)."""
    found = {}
    for directory, _unused, names in os.walk(root, followlinks=True):
        for name in names:
            path = os.path.join(directory, name)
            with open(path, 'rb') as handle:
                found[os.path.relpath(path, root)] = handle.read()
    return found
