# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Controller-side implementation of aifabric.fabric.device_info (documented in plugins/modules)."""

from __future__ import annotations

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.aifabric.fabric.plugins.plugin_utils.design_cache import get_design, intent_path
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_fabric, render_model


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(('intent', 'device', 'render'))
    _requires_connection = False

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        task_vars = task_vars or {}
        _unused, args = self.validate_argument_spec(argument_spec={
            'intent': {'type': 'path'},
            'device': {'type': 'str'},
            'render': {'type': 'bool', 'default': True},
        })
        intent = intent_path(args['intent'], task_vars)
        device = args['device'] or task_vars.get('inventory_hostname')
        design = get_design(intent)
        if device not in design.nodes:
            raise AnsibleActionFail('%s is not a device of fabric %s (devices: %s ...)'
                                    % (device, design.name, ', '.join(design.device_names()[:5])))
        model = design.device(device)
        result.update(changed=False, model=model, ansible_facts={'aifabric_device': model})
        if args['render']:
            result['files'] = render_model(model)
            if model['role'] == 'host':
                result['fabric_files'] = render_fabric(design)
        return result
