# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Controller side of aifabric.fabric.validate_gather (documented in plugins/modules/validate_gather.py)."""

from __future__ import annotations

import time

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.aifabric.fabric.plugins.plugin_utils.design_cache import get_design
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import catalog
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.sources import commands_for

RNIC_PARTS = ['devices', 'qos', 'ecn', 'pause', 'traffic_class', 'rdma_cm']


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(('intent', 'device', 'settle_timeout', 'settle_interval', 'ping_peers', 'rnic',
                             'parallel', 'max_loss_percent'))

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        task_vars = task_vars or {}
        args = self.validate_argument_spec(argument_spec={
            'intent': {'type': 'path'},
            'device': {'type': 'str'},
            'settle_timeout': {'type': 'int', 'default': 0},
            'settle_interval': {'type': 'int', 'default': 5},
            'ping_peers': {'type': 'int', 'default': 0},
            'rnic': {'type': 'bool', 'default': True},
            'parallel': {'type': 'int', 'default': 8},
            'max_loss_percent': {'type': 'int', 'default': 34},
        })[1]
        intent = args['intent'] or task_vars.get('aifabric_intent')
        if not intent:
            raise AnsibleActionFail('No intent: set the intent option or the aifabric_intent variable '
                                    '(the aifabric.fabric.fabric inventory plugin sets it on every device).')
        design = get_design(intent)
        device = args['device'] or task_vars.get('inventory_hostname')
        if device not in design.nodes:
            raise AnsibleActionFail('%s is not a device of fabric %s' % (device, design.name))
        options = {'ping_peers': args['ping_peers'], 'max_loss_percent': args['max_loss_percent']}
        ctx = checks.Context(design, {}, options)
        model = ctx.model(device)
        commands = commands_for(model, catalog.ping_targets(ctx, model, args['ping_peers']))
        deadline = time.monotonic() + max(args['settle_timeout'], 0)
        started = time.monotonic()
        attempt = 0
        while True:
            attempt += 1
            raw = self._gather(commands, model, args, task_vars)
            ctx = checks.Context(design, {device: raw}, options)
            results = checks.run(ctx, devices=[device], categories=('fabric',))
            open_results = [item for item in results if item.status in (checks.FAIL, checks.ERROR)]
            if not open_results or time.monotonic() + args['settle_interval'] > deadline:
                break
            time.sleep(max(args['settle_interval'], 1))
        counted = checks.summary(results)
        result.update(
            changed=False,
            device=device,
            fabric=design.name,
            state=raw,
            attempts=attempt,
            seconds=round(time.monotonic() - started, 1),
            settled=not open_results,
            summary=counted['counts'],
            check_results=[item.to_dict() for item in results],
        )
        return result

    def _gather(self, commands, model, args, task_vars):
        outcome = self._execute_module(module_name='aifabric.fabric.validate_commands',
                                       module_args={'commands': commands, 'parallel': args['parallel']},
                                       task_vars=task_vars)
        if outcome.get('failed') or outcome.get('unreachable'):
            raise AnsibleActionFail('Reading the state of %s failed: %s' % (model['name'], outcome.get('msg', outcome)))
        raw = dict(outcome.get('outputs') or {})
        if model['role'] == 'host' and args['rnic']:
            facts = self._execute_module(module_name='aifabric.fabric.rnic_facts', module_args={'gather': RNIC_PARTS},
                                         task_vars=task_vars)
            raw['rnic'] = facts if facts.get('failed') else (facts.get('ansible_facts') or {}).get('aifabric_rnic')
        return raw
