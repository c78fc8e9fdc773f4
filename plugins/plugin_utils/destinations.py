# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where a run may write: the directories of the render, the reports and the lab, checked the same way everywhere.

The run's inventory sources are read as data, never through the template engine. Ansible's magic variable
`ansible_inventory_sources` holds the text of `-i` (or of ansible.cfg's `inventory`), which ansible-core 2.19 and
later trust as a template: a playbook that reads it runs whatever an inventory directory named
`p{{ lookup('pipe', ...) }}q` says (an AWX inventory source is a directory of an SCM project). Plugins read it here:
an action from its task variables (a plain copy, never templated on access), a filter from the command line Ansible
parsed.
"""

from __future__ import annotations

import os

from ansible import context

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.output import (
    installed_collection_conflict, inventory_conflict, system_directory)

SYSTEM_HINT = 'set allow_system_dir (aifabric_allow_system_dir in the playbooks) to write there on purpose'


def inventory_sources(task_vars=None) -> list:
    """The inventory sources of this run, as plain text (never templated)."""
    sources = (task_vars or {}).get('ansible_inventory_sources')
    if sources is None and context.CLIARGS:
        sources = context.CLIARGS.get('inventory')
    if isinstance(sources, str):
        sources = [sources]
    return [str(source) for source in sources or () if isinstance(source, str)]


def destination_problem(path, what, sources, allow_system=False) -> str:
    """Why generated files must not go to `path` ('' when they may): it is a system directory (unless `allow_system`),
    it lies in or holds an inventory source, or it lies in an installed collection. The sentence names `what` the
    directory is for and the path."""
    absolute = os.path.abspath(os.path.expanduser(path))
    system = '' if allow_system else system_directory(absolute)
    if system:
        return 'The %s %s %s: choose a directory of your own, or %s.' % (what, absolute, system, SYSTEM_HINT)
    conflict = inventory_conflict(absolute, sources)
    if conflict:
        return ('The %s %s %s, so the generated files would break the inventory on the next run. Choose a directory '
                'outside it (output_dir in the aifabric.fabric.fabric inventory configuration, or the variable that sets '
                'this directory).' % (what, absolute, conflict))
    conflict = installed_collection_conflict(absolute)
    if conflict:
        return ('The %s %s %s. Choose a directory outside it (output_dir in the aifabric.fabric.fabric inventory '
                'configuration, or the variable that sets this directory).' % (what, absolute, conflict))
    return ''


__all__ = ['inventory_sources', 'destination_problem', 'SYSTEM_HINT']
