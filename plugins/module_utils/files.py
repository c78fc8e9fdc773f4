# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Persisting files from modules: write beside the target, then move into place, so a reader never sees half a file."""

from __future__ import annotations

import os
import tempfile


def write_atomic(module, path, text, mode=None):
    """Replace `path` with `text` (creating its directory) through AnsibleModule.atomic_move: with `mode`, the file
    gets that mode; without, an existing file keeps its own and a new one gets the umask's (atomic_move's rule)."""
    directory = os.path.dirname(path)
    if directory and not os.path.isdir(directory):
        os.makedirs(directory, mode=0o755)
    handle, temp = tempfile.mkstemp(dir=directory or None, prefix='.%s.' % os.path.basename(path))
    with os.fdopen(handle, 'w', encoding='utf-8') as stream:
        stream.write(text)
    module.atomic_move(temp, path)
    if mode is not None:
        os.chmod(path, mode)
