# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
name: render_targets
short_description: The fabrics a render of this run renders, with their intent, directory and devices
version_added: 1.0.0
description:
  - Returns one item per fabric to render, in the order of the inventory's C(fabric_<name>) groups, for the render
    task of the render playbook to loop over. Fails, naming what to set, when there is nothing to render or nowhere to
    write it.
  - Without O(intent), the fabrics are the C(fabric_<name>) groups of the inventory that have hosts. Each fabric's
    intent and output directory are the C(aifabric_intent) and C(aifabric_output_dir) of the group's first host,
    which the P(aifabric.fabric.fabric#inventory) inventory plugin sets.
  - With C(--limit) (read from the command line Ansible parsed, as P(aifabric.fabric.limit#lookup) does, never from the
    templated C(ansible_limit)) and without O(devices), only the fabrics with a host in the play, and of each only
    those hosts. Without a limit, every host of the fabric's group, which is the whole fabric, or the slice in an AWX
    job slice (whose inventory holds only its hosts).
  - The directory is not checked here; M(aifabric.fabric.render) refuses a system or inventory directory itself, as
    the P(aifabric.fabric.output_dir#filter) filter does, so that a refused directory fails only its own fabric.
  - An empty text or list, or null, is the same as leaving an option out (AWX survey answers).
author:
  - aifabric contributors (@aifabric)
options:
  intent:
    description:
      - Intent file to render instead of the inventory's fabrics (one item, labelled with the file's name). A relative
        path is relative to the current directory. Then O(out) or O(dest) is required.
    type: str
  out:
    description: Base directory; each fabric's output directory is C(<out>/<fabric name>).
    type: str
  dest:
    description: Exact output directory; only when there is one fabric to render.
    type: str
  devices:
    description:
      - Names of the devices to render (all fabrics), as a list or as one text of names separated by commas or
        white space. Default is the play's hosts of each fabric, as described above.
    type: raw
"""

EXAMPLES = r"""
- name: Render each fabric of the inventory (the hosts the limit names, if any) into <base>/<fabric name>
  aifabric.fabric.render:
    intent: "{{ item.intent }}"
    out: "{{ item.directory }}"
    devices: "{{ item.devices if item.devices is not none else groups[item.group] }}"
  loop: "{{ query('aifabric.fabric.render_targets', out='/srv/fabric') }}"
  loop_control:
    label: "{{ item.fabric }}"
  run_once: true
"""

RETURN = r"""
_list:
  description: One dictionary per fabric to render.
  type: list
  elements: dict
  contains:
    fabric:
      description: The fabric's name (the file name of O(intent) with O(intent)).
      type: str
    intent:
      description: Path of the fabric's intent file.
      type: path
    directory:
      description:
        - The output directory (O(dest) or the inventory's C(aifabric_output_dir)), or the base directory O(out) when
          RV(_list[].by_base), as given (not yet checked or made absolute).
      type: path
    by_base:
      description:
        - Whether RV(_list[].directory) is the base directory O(out), to which the render adds the fabric's name.
      type: bool
    group:
      description: The fabric's inventory group C(fabric_<name>); null with O(intent).
      type: str
    devices:
      description:
        - The devices to render, O(devices) or the fabric's hosts that the limit names; null for every host of
          RV(_list[].group) (the whole fabric, or an AWX job slice's hosts of it), or with O(intent) every device.
        - Named apart from the group so that a loop item, printed with a failed render, stays short.
      type: list
      elements: str
"""

import os  # noqa: E402  pylint: disable=wrong-import-position
import re  # noqa: E402  pylint: disable=wrong-import-position

from ansible.errors import AnsibleLookupError  # noqa: E402  pylint: disable=wrong-import-position
from ansible.plugins.lookup import LookupBase  # noqa: E402  pylint: disable=wrong-import-position

from ansible_collections.aifabric.fabric.plugins.plugin_utils import command_line  # noqa: E402  pylint: disable=wrong-import-position

FABRIC_GROUP = 'fabric_'
DEVICE_NAMES = re.compile(r'[^,\s]+')


def device_list(devices) -> list:
    """The devices option as a list: a text is names separated by commas or white space; unset is []."""
    if not devices:
        return []
    if isinstance(devices, str):
        return DEVICE_NAMES.findall(devices)
    return list(devices) if isinstance(devices, (list, tuple)) else devices


def render_targets(groups, play_hosts, host_var, limit='', intent='', out='', dest='', devices=None) -> list:
    """The fabrics to render, as documented in RETURN. `groups` maps group names to their hosts, `play_hosts` are the
    play's hosts (the limit's), `host_var(host, name)` reads a host's variable, `limit` is the run's --limit."""
    intent, out, dest = intent or '', out or '', dest or ''
    wanted = device_list(devices) or None
    by_limit = bool(limit) and not wanted and not intent
    fabric_groups = [name for name in groups if name.startswith(FABRIC_GROUP)]
    if intent:
        found = [{'fabric': os.path.basename(intent), 'intent': os.path.realpath(intent), 'directory': '',
                  'group': None, 'devices': wanted}]
    else:
        found = []
        in_play = set(play_hosts)
        for group in fabric_groups:
            hosts = groups[group] or []
            named = [host for host in hosts if host in in_play] if by_limit else wanted
            if hosts and named != []:
                first = hosts[0]  # the inventory plugin sets both on every host of the fabric
                found.append({'fabric': group[len(FABRIC_GROUP):], 'intent': host_var(first, 'aifabric_intent'),
                              'directory': host_var(first, 'aifabric_output_dir') or '', 'group': group,
                              'devices': named})
    if by_limit and not found:
        raise AnsibleLookupError(
            "The limit '%s' names no device of fabric %s: name devices or groups of the fabric (--limit "
            "leaf001,spine001 or --limit rail_0), set aifabric_render_devices (a list, or one text of names), or run "
            "without --limit to render every device." % (
                limit, ', '.join(name[len(FABRIC_GROUP):] for name in fabric_groups)))
    if not found:
        raise AnsibleLookupError(
            'No fabric to render: the inventory has no fabric (no fabric_<name> group). Use an inventory '
            'configuration of the aifabric.fabric.fabric inventory plugin (for example -i inventories/lab): a file '
            'whose name ends in fabric.yml and whose first line is "plugin: aifabric.fabric.fabric" (with Ansible\'s '
            'default settings an empty one, or one without that line, is read as an empty inventory), or set '
            'aifabric_render_intent to an intent file.')
    if dest and len(found) != 1:
        raise AnsibleLookupError(
            'aifabric_render_dest names one directory but the inventory has %d fabrics (%s); set aifabric_render_out '
            '(one subdirectory per fabric) or aifabric_render_intent instead.' % (
                len(found), ', '.join(target['fabric'] for target in found)))
    if not dest and not out and not all(target['directory'] for target in found):
        raise AnsibleLookupError(
            'No output directory: an intent rendered without its inventory needs aifabric_render_out (base directory, '
            'one subdirectory per fabric) or aifabric_render_dest (exact directory).')
    for target in found:
        target['by_base'] = not dest and bool(out)
        target['directory'] = out if target['by_base'] else dest or target['directory']
    return found


class LookupModule(LookupBase):

    def run(self, terms, variables=None, **kwargs):
        self.set_options(var_options=variables, direct=kwargs)
        variables = variables or {}
        hostvars = variables.get('hostvars') or {}
        return render_targets(variables.get('groups') or {}, variables.get('ansible_play_hosts_all') or [],
                              lambda host, name: hostvars[host].get(name), limit=command_line.limit(),
                              **{option: self.get_option(option) for option in ('intent', 'out', 'dest', 'devices')})
