# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
name: output_dir
short_description: An output directory as an absolute path, refused inside an inventory directory
version_added: 1.0.0
description:
  - Returns the directory as an absolute path. A relative path is taken relative to the controller's current
    directory, as Ansible does for other paths given on the command line. Symbolic links are left as they are
    (an output directory may itself be a link, to the latest complete render); they are followed only to compare.
  - Fails when the directory is empty or lies inside a directory used as an inventory source. Ansible reads every
    file under such a directory as inventory on the next run, so rendered configurations, reports or a lab's
    inventory there would break that inventory or add hosts to it.
  - When the inventory source is a file (AWX allows one), fails for the file's directory and the C(group_vars) and
    C(host_vars) next to it, which Ansible reads with it. Fails too for a directory that holds an inventory source,
    since a render taking it over would move the inventory away.
  - Fails inside an installed collection (a directory C(ansible_collections/<namespace>/<name>) with the
    C(MANIFEST.json) and C(FILES.json) of C(ansible-galaxy collection install)), which files written there would
    change, and whose next upgrade would delete them.
  - Fails for a system directory, through symbolic links, unless O(allow_system=true). That is anything under
    C(/etc), C(/usr), C(/boot), C(/dev), C(/proc), C(/sys), C(/run), C(/bin), C(/sbin) or C(/lib*), and the directories
    that hold everyone's directories themselves (C(/), C(/home), C(/var), C(/var/lib), C(/tmp), C(/opt), C(/srv), the
    user's home, ...). An AWX survey may expose the output directory as free text.
  - The inventory sources are those of the running Ansible command, read from its command line as plain text. Do not
    pass the magic variable C(ansible_inventory_sources), since ansible-core 2.19 and later template its text, so an
    inventory directory named C(p{{ lookup('pipe', ...) }}q) would run its command.
  - The validate playbook, the performance gate and the lab use it on every directory they write to, and their actions
    check the same again; the render action makes the same checks itself.
author:
  - aifabric contributors (@aifabric)
positional: inventory_sources
options:
  _input:
    description: The output directory.
    type: path
    required: true
  inventory_sources:
    description:
      - The inventory sources to compare with. Leave it out, so that those of the running command are used.
    type: list
    elements: str
  allow_system:
    description: Allow a system directory (the user says so explicitly).
    type: bool
    default: false
  what:
    description: What the directory is for, used in the error message.
    type: str
    default: output directory
"""

EXAMPLES = r"""
- name: Render into the fabric's output directory, never into the inventory
  aifabric.fabric.render:
    dest: "{{ aifabric_output_dir | aifabric.fabric.output_dir(what='render directory') }}"
  run_once: true
"""

RETURN = r"""
_value:
  description: The absolute path of the directory.
  type: path
"""

import os

from ansible.errors import AnsibleFilterError

from ansible_collections.aifabric.fabric.plugins.plugin_utils import destinations


def output_dir(path, inventory_sources=None, what='output directory', allow_system=False):
    if not isinstance(path, str) or not path.strip():
        raise AnsibleFilterError('The %s is not set (got %r): give a directory path.' % (what, path))
    absolute = os.path.abspath(os.path.expanduser(path))
    sources = destinations.inventory_sources() if inventory_sources is None else list(inventory_sources)
    problem = destinations.destination_problem(absolute, what, sources, allow_system=allow_system)
    if problem:
        raise AnsibleFilterError(problem)
    return absolute


class FilterModule:
    def filters(self):
        return {'output_dir': output_dir}
