# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Controller side of aifabric.fabric.validate (documented in plugins/modules/validate.py)."""

from __future__ import annotations

import datetime
import os
import time

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.aifabric.fabric.plugins.plugin_utils.design_cache import get_design
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import anta_catalog, health, prometheus, report

GATHERED = ('fabric', 'lossless', 'health', 'anta', 'dataplane')


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _VALID_ARGS = frozenset(('intent', 'devices', 'gathered', 'gathered_var', 'output_dir', 'fail', 'checks',
                             'skip_checks', 'ping_peers', 'max_loss_percent', 'failure_lines', 'health_thresholds',
                             'prometheus_file', 'anta_catalog', 'probe_var', 'capture_var'))

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        task_vars = task_vars or {}
        args = self.validate_argument_spec(argument_spec={
            'intent': {'type': 'path'},
            'devices': {'type': 'list', 'elements': 'str'},
            'gathered': {'type': 'bool', 'default': True},
            'gathered_var': {'type': 'str', 'default': 'validate_gathered'},
            'probe_var': {'type': 'str', 'default': 'validate_marking_sent'},
            'capture_var': {'type': 'str', 'default': 'validate_marking_capture'},
            'output_dir': {'type': 'path'},
            'fail': {'type': 'bool', 'default': True},
            'checks': {'type': 'list', 'elements': 'str'},
            'skip_checks': {'type': 'list', 'elements': 'str', 'default': []},
            'ping_peers': {'type': 'int', 'default': 0},
            'max_loss_percent': {'type': 'int', 'default': 34},
            'failure_lines': {'type': 'int', 'default': 40},
            'health_thresholds': {'type': 'dict', 'default': {}},
            'prometheus_file': {'type': 'path'},
            'anta_catalog': {'type': 'bool', 'default': True},
        })[1]
        problems = health.threshold_problems(args['health_thresholds'])
        if args['prometheus_file'] and not args['prometheus_file'].endswith('.prom'):
            problems.append('prometheus_file %s must end in .prom (the textfile collector reads only *.prom files)'
                            % args['prometheus_file'])
        if problems:
            raise AnsibleActionFail('; '.join(problems))
        started = time.monotonic()
        hostvars = task_vars.get('hostvars', {})
        play_hosts = list(task_vars.get('ansible_play_hosts_all') or [])
        intent = args['intent'] or self._intent_of(play_hosts, hostvars, task_vars)
        design = get_design(intent)
        devices = args['devices'] if args['devices'] is not None else [name for name in play_hosts if name in design.nodes]
        unknown = [name for name in devices if name not in design.nodes]
        if unknown:
            raise AnsibleActionFail('Not devices of fabric %s: %s' % (design.name, ', '.join(unknown)))
        known = set(checks.REGISTRY)
        for name in (args['checks'] or []) + args['skip_checks']:
            if name not in known:
                raise AnsibleActionFail('Unknown check %s (checks: %s)' % (name, ', '.join(sorted(known))))
        selected = [name for name in (args['checks'] or sorted(known)) if name not in args['skip_checks']]
        states, phases = {}, ('design',)
        if args['gathered']:
            phases = ('design', 'deployed')
            for name in devices:
                found = hostvars[name] if name in hostvars else {}
                states[name] = dict((found.get(args['gathered_var']) or {}).get('state') or {})
                # The data-plane marking probe: what the host sent, what the switch captured (skipped tasks
                # of devices without a part are left out).
                for key, var in (('marking_probe', args['probe_var']), ('marking_capture', args['capture_var'])):
                    registered = found.get(var)
                    if registered and not registered.get('skipped'):
                        states[name][key] = registered
        options = {'ping_peers': args['ping_peers'], 'max_loss_percent': args['max_loss_percent'],
                   'lossless_phases': phases, 'devices': devices, 'health': args['health_thresholds']}
        ctx = checks.Context(design, states, options)
        categories = GATHERED if args['gathered'] else ('lossless',)
        results = checks.run(ctx, devices=devices, check_ids=selected, categories=categories)
        now = datetime.datetime.now(datetime.timezone.utc)
        meta = {
            'generated_at': now.strftime('%Y-%m-%d %H:%M:%S UTC'),
            'intent': intent,
            'mode': 'gathered state + design' if args['gathered'] else 'design only (pre-deploy, no device contacted)',
            'devices_checked': len(devices),
            'devices_without_state': ', '.join(sorted(name for name in devices if args['gathered'] and not ctx.gathered(name))),
            'check_mode': bool(self._task.check_mode),
            'seconds': round(time.monotonic() - started, 2),
        }
        built = report.build(design, results, meta)
        summary = built['summary']
        result['changed'] = False
        result['summary'] = summary
        if args['output_dir']:
            result['report'] = report.write(design, built, args['output_dir'])
            eapi = [name for name in devices if ctx.state(name).provides(anta_catalog.ANTA_KEY)
                    and ctx.model(name)['role'] in anta_catalog.SWITCHES]
            if args['anta_catalog'] and eapi:
                result['report']['anta_catalog'] = self._write_catalog(ctx, eapi, args['output_dir'])
        targets = [path for path in (os.path.join(args['output_dir'], 'aifabric-%s.prom' % design.name)
                                     if args['output_dir'] else None, args['prometheus_file']) if path]
        if targets:
            text = prometheus.build(design.name, results, summary, now.timestamp(), health.counter_links(ctx, devices))
            for path in targets:
                result.setdefault('report', {})['prometheus' if path == targets[0] else 'prometheus_file'] = \
                    prometheus.write(path, text)
        failures = report.failure_lines(results, limit=args['failure_lines'])
        result['failures'] = failures
        where = ' (report: %s)' % result['report']['markdown'] if result.get('report', {}).get('markdown') else ''
        headline = ('fabric %s: %d checks run, %d passed, %d failed, %d errors, %d not applicable, %d health findings%s'
                    % (design.name, summary['checks_run'], summary['passed'], summary['failed'], summary['errors'],
                       summary['not_applicable'], summary['health_findings'], where))
        if summary['failed'] + summary['errors'] and args['fail']:
            result['failed'] = True
            result['msg'] = 'Validation FAILED for %s\n%s' % (headline, '\n'.join(failures))
        elif summary['checks_run'] == 0:
            result['msg'] = ('Validation checked NOTHING for %s: every result is not applicable (see the reasons in the '
                             'report); this is not a pass' % headline)
        else:
            result['msg'] = 'Validation %s for %s' % ('passed' if summary['ok'] else 'found problems', headline)
        return result

    @staticmethod
    def _write_catalog(ctx, names, directory):
        """anta-catalog.yml beside the report, so people can run `anta nrfu` with ANTA's own CLI."""
        import yaml  # pylint: disable=import-outside-toplevel
        path = os.path.join(directory, 'anta-catalog.yml')
        header = ('# ANTA catalog of fabric %s, generated from the design by aifabric.fabric.validate.\n'
                  '# Each test runs on its device (filters.tags). Run it yourself with an ANTA inventory of these '
                  'switches:\n#   anta nrfu --catalog %s --inventory anta-inventory.yml table\n'
                  % (ctx.design.name, os.path.basename(path)))
        prometheus.write(path, header + yaml.safe_dump(anta_catalog.fabric_catalog(ctx, sorted(names)), sort_keys=False))
        return path

    @staticmethod
    def _intent_of(play_hosts, hostvars, task_vars):
        intents = sorted({hostvars[name].get('aifabric_intent') for name in play_hosts
                          if name in hostvars and hostvars[name].get('aifabric_intent')})
        if not intents and task_vars.get('aifabric_intent'):
            intents = [task_vars['aifabric_intent']]
        if len(intents) != 1:
            raise AnsibleActionFail('Validation needs exactly one fabric intent; the play hosts give %s. Set the '
                                    'intent option or limit the play to one fabric.' % (intents or 'none'))
        return os.path.realpath(intents[0])
