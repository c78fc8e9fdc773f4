# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Controller side of aifabric.fabric.perf_plan (documented in plugins/modules/perf_plan.py)."""

from __future__ import annotations

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.aifabric.fabric.plugins.plugin_utils.design_cache import get_design, intent_path
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import perf


def facts_of(registered, name):
    """The facts a registered aifabric.fabric.*_facts result carries ({} when the module did not run)."""
    if not isinstance(registered, dict) or registered.get('skipped'):
        return {}
    if registered.get('failed'):
        return {'not_applicable': 'not applicable: %s failed: %s' % (name, registered.get('msg', 'no message'))}
    return (registered.get('ansible_facts') or {}).get(name) or registered.get(name) or {}


def tools_of(registered):
    """{program: found} from a registered ansible.builtin.stat loop over [{name, path}]."""
    found = {}
    for item in (registered or {}).get('results') or []:
        program = (item.get('item') or {}).get('name')
        if program:
            found[program] = bool((item.get('stat') or {}).get('exists')) and bool((item.get('stat') or {}).get('executable'))
    return found


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _VALID_ARGS = frozenset(('intent', 'gpu_var', 'rnic_var', 'tools_var', 'options'))

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        task_vars = task_vars or {}
        args = self.validate_argument_spec(argument_spec={
            'intent': {'type': 'path'},
            'gpu_var': {'type': 'str', 'default': 'perf_gpu'},
            'rnic_var': {'type': 'str', 'default': 'perf_rnic'},
            'tools_var': {'type': 'str', 'default': 'perf_tools'},
            'options': {'type': 'dict', 'default': {}},
        })[1]
        intent = intent_path(args['intent'], task_vars)
        design = get_design(intent)
        me = task_vars.get('inventory_hostname')
        hostvars = task_vars.get('hostvars', {})
        hosts = [name for name in task_vars.get('ansible_play_hosts_all') or [me]
                 if name in design.nodes and design.device(name)['role'] == 'host']
        if me not in hosts:
            raise AnsibleActionFail('%s is not a GPU server of fabric %s' % (me, design.name))
        unknown = set(args['options']) - set(perf.PERF_DEFAULTS)
        if unknown:
            allowed = ', '.join(sorted(perf.PERF_DEFAULTS))
            raise AnsibleActionFail('Unknown perf option(s) %s (allowed: %s)' % (', '.join(sorted(unknown)), allowed))
        readiness = {}
        for name in hosts:
            # This host's own registered results are in task_vars; another's are read key by key: copying a host's
            # hostvars whole templates each of them, ansible_inventory_sources among them (the text of -i).
            values = task_vars if name == me else hostvars.get(name, {})
            readiness[name] = perf.host_readiness(design.device(name), facts_of(values.get(args['gpu_var']), 'aifabric_gpu'),
                                                  facts_of(values.get(args['rnic_var']), 'aifabric_rnic'),
                                                  tools_of(values.get(args['tools_var'])))
        options = dict(args['options'])
        options['addresses'] = {name: hostvars.get(name, {}).get('ansible_host', name) for name in hosts}
        planned = perf.plan(design, readiness, options)[me]
        result.update(changed=False, fabric=design.name, **planned)
        runs = len(planned['servers']) + len(planned['clients']) + (1 if planned['nccl'] else 0)
        result['msg'] = ('%s: %d ib_write_bw server(s), %d client(s)%s' % (
            me, len(planned['servers']), len(planned['clients']), ', launches all_reduce_perf' if planned['nccl'] else '')
            if runs else '%s runs no test: %s' % (me, '; '.join(planned['not_applicable']) or 'no peer on its rails'))
        return result
