# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Controller side of aifabric.fabric.perf_gate (documented in plugins/modules/perf_gate.py)."""

from __future__ import annotations

import datetime
import json

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.aifabric.fabric.plugins.plugin_utils.design_cache import get_design, intent_path
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import perf
from ansible_collections.aifabric.fabric.plugins.plugin_utils.destinations import destination_problem, inventory_sources
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import report


def _runs(registered):
    """[(item, result)] of a registered loop, skipped items left out."""
    return [(item.get('item') or {}, item) for item in (registered or {}).get('results') or [] if not item.get('skipped')]


def markdown(fabric, gated, meta) -> str:
    lines = ['# Performance gate of fabric %s: %s' % (fabric, gated['verdict']), '']
    lines += ['- %s: %s' % (key.replace('_', ' '), value) for key, value in sorted(meta.items())] + ['']
    if gated['results']:
        lines += ['| host | test | status | measured | required | verdict |', '|---|---|---|---|---|---|']
        lines += ['| %s |' % ' | '.join(str(item.get(key, '-')).replace('|', '\\|') for key in
                                        ('host', 'test', 'status', 'measured', 'required', 'verdict'))
                  for item in gated['results']]
        lines.append('')
    if gated['not_applicable']:
        lines += ['## Not run', ''] + ['- %s' % reason for reason in gated['not_applicable']] + ['']
    return '\n'.join(lines)


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _VALID_ARGS = frozenset(('intent', 'plan_var', 'clients_var', 'nccl_var', 'output_dir', 'options', 'fail',
                             'allow_system_dir'))

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        task_vars = task_vars or {}
        args = self.validate_argument_spec(argument_spec={
            'intent': {'type': 'path'},
            'plan_var': {'type': 'str', 'default': 'perf_plan'},
            'clients_var': {'type': 'str', 'default': 'perf_clients'},
            'nccl_var': {'type': 'str', 'default': 'perf_nccl'},
            'output_dir': {'type': 'path'},
            'options': {'type': 'dict', 'default': {}},
            'fail': {'type': 'bool', 'default': True},
            'allow_system_dir': {'type': 'bool', 'default': False},
        })[1]
        intent = intent_path(args['intent'], task_vars)
        design = get_design(intent)
        hostvars = task_vars.get('hostvars', {})
        planned, outputs = {}, {}
        for name in task_vars.get('ansible_play_hosts_all') or []:
            values = hostvars.get(name, {})
            plan = values.get(args['plan_var'])
            if name not in design.nodes or not isinstance(plan, dict) or 'clients' not in plan:
                continue
            planned[name] = {key: plan.get(key) or ([] if key != 'nccl' else None)
                             for key in ('servers', 'clients', 'nccl', 'not_applicable')}
            clients = [dict(rail=item['rail'], rc=run.get('rc'), stdout=run.get('stdout'),
                            stderr=run.get('stderr') or run.get('msg'))
                       for item, run in _runs(values.get(args['clients_var']))]
            nccl = values.get(args['nccl_var'])
            outputs[name] = {'clients': clients,
                             'nccl': nccl if isinstance(nccl, dict) and not nccl.get('skipped') and plan.get('nccl') else None}
        if not planned:
            raise AnsibleActionFail('No GPU server of the play has a plan (%s): run aifabric.fabric.perf_plan first'
                                    % args['plan_var'])
        gated = perf.gate(design, planned, outputs, args['options'])
        meta = {'generated_at': datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M:%S UTC'),
                'servers': len(planned), 'efficiency_ib_write_bw': perf.options_with_defaults(args['options'])[
                    'efficiency_ib_write_bw'],
                'efficiency_all_reduce': perf.options_with_defaults(args['options'])['efficiency_all_reduce']}
        result.update(changed=False, verdict=gated['verdict'], results=gated['results'],
                      not_applicable=gated['not_applicable'])
        unwritten = ''
        if args['output_dir']:
            unwritten = destination_problem(args['output_dir'], 'performance report directory',
                                            inventory_sources(task_vars), args['allow_system_dir'])
            try:
                if unwritten:
                    raise report.ReportError(unwritten)
                written = report.write_files(args['output_dir'], {
                    'perf.json': json.dumps(dict(gated, fabric=design.name, meta=meta), indent=1) + '\n',
                    'perf.md': markdown(design.name, gated, meta)})
            except report.ReportError as exc:
                unwritten = str(exc)
            else:
                result['report'] = {'json': written['perf.json'], 'markdown': written['perf.md']}
        bad = [item for item in gated['results'] if item['status'] == 'fail']
        headline = 'Performance gate of fabric %s: %s (%d tests, %d below the gate)' % (
            design.name, gated['verdict'], len(gated['results']), len(bad))
        if gated['verdict'] == 'NOT APPLICABLE':
            result['msg'] = '%s; not applicable: %s' % (headline, '; '.join(gated['not_applicable']) or 'nothing ran')
        elif bad and args['fail']:
            result['failed'] = True
            lines = ['%s %s: %s' % (item['host'], item['test'], item['verdict']) for item in bad]
            result['msg'] = '%s\n%s' % (headline, '\n'.join(lines))
        else:
            result['msg'] = headline
        if unwritten:  # the gate ran: its verdict stands, and the task fails naming the directory
            result['msg'] += '\nThe performance report was not written: %s' % unwritten
            result.update(failed=True, report_error=unwritten)
        return result
