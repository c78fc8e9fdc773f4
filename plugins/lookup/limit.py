# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
name: limit
short_description: The run's --limit as plain text, never templated
version_added: 1.0.0
description:
  - Returns the host pattern of the running command's C(--limit) (C(-l)) as data, or O(default) when the run has no
    limit.
  - ansible-core 2.19 and later trust the text of C(--limit) as a template, and so template the magic variable
    C(ansible_limit) when a playbook reads it. A limit that holds a template calling the C(pipe) lookup would run its
    command on the controller. In AWX the limit is a field a user who may only launch a job template can fill in at
    launch. This lookup reads the command line Ansible parsed instead, so the text reaches a template as a value.
  - The render and validate playbooks and the validate role read the limit through it.
author:
  - aifabric contributors (@aifabric)
options:
  default:
    description: What to return when the run has no limit.
    type: str
    default: ''
"""

EXAMPLES = r"""
- name: The hosts the limit names, or every host
  ansible.builtin.debug:
    msg: "{{ query('ansible.builtin.inventory_hostnames', lookup('aifabric.fabric.limit', default='all')) }}"
"""

RETURN = r"""
_raw:
  description: The limit's host pattern as given (one item), or O(default).
  type: list
  elements: str
"""

from ansible.plugins.lookup import LookupBase  # noqa: E402  pylint: disable=wrong-import-position

from ansible_collections.aifabric.fabric.plugins.plugin_utils import command_line  # noqa: E402  pylint: disable=wrong-import-position


class LookupModule(LookupBase):

    def run(self, terms, variables=None, **kwargs):
        self.set_options(var_options=variables, direct=kwargs)
        return [command_line.limit() or self.get_option('default')]
