# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Compute the fabric design once per controller process and share it with every task.

The inventory plugin loads the design in ansible-playbook's main process; task workers are forked from
it and inherit the cache, so a whole-fabric run computes the design once, not once per host.
"""

from __future__ import annotations

import os

from ansible.errors import AnsibleActionFail, AnsibleError

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import FabricDesign, design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.errors import IntentError

_CACHE = {}


def intent_path(option, task_vars) -> str:
    """The intent file of a task: its intent option, else the host's aifabric_intent (set by the inventory plugin)."""
    path = option or (task_vars or {}).get('aifabric_intent')
    if not path:
        raise AnsibleActionFail('No intent: set the intent option or the aifabric_intent variable '
                                '(the aifabric.fabric.fabric inventory plugin sets it on every device).')
    return path


def get_design(intent_path: str) -> FabricDesign:
    """The design of the intent file at `intent_path`; bad intent becomes an AnsibleError listing every problem."""
    path = os.path.realpath(intent_path)
    try:
        stat = os.stat(path)
    except OSError as exc:
        raise AnsibleError('aifabric intent file %s cannot be read: %s' % (intent_path, exc.strerror)) from None
    key = (path, stat.st_mtime_ns, stat.st_size)
    design = _CACHE.get(key)
    if design is None:
        try:
            design = design_from_file(path)
        except IntentError as exc:
            raise AnsibleError('%s\n(intent file: %s)' % (exc.report(), path)) from None
        _CACHE.clear()
        _CACHE[key] = design
    return design


def loaded_platforms():
    """The platforms of the switches of the design this process has computed (the inventory plugin computes it in
    ansible-playbook's main process, before any task), or None when it has computed none."""
    for design in _CACHE.values():
        return {node.platform for node in design.switches()}
    return None
