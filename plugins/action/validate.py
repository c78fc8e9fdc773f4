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
from ansible_collections.aifabric.fabric.plugins.plugin_utils.destinations import destination_problem, inventory_sources
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.forked import shares_of
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks.gathered import GatheredError, iter_gathered
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import (
    anta_catalog, causes, health, prometheus, report, sides)

GATHERED = ('fabric', 'lossless', 'health', 'anta', 'dataplane', 'drift')
ANTA_CATALOG = 'anta-catalog.yml'


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _VALID_ARGS = frozenset(('intent', 'devices', 'gathered', 'gathered_var', 'fleet_var', 'gathered_files', 'output_dir',
                             'fail', 'checks',
                             'skip_checks', 'ping_peers', 'max_loss_percent', 'failure_lines', 'health_thresholds',
                             'prometheus_file', 'anta_catalog', 'started_at', 'probe_var', 'capture_var', 'drift_var',
                             'drift_fleet_var', 'allow_system_dir', 'processes'))

    def run(self, tmp=None, task_vars=None):
        # millions of acyclic objects (parsed states, results) for a fabric of thousands of devices: no cycle
        # collector passes over them while judging
        with checks.paused_collector():
            return self._judge(tmp, task_vars)

    def _judge(self, tmp, task_vars):
        result = super().run(tmp, task_vars)
        task_vars = task_vars or {}
        args = self.validate_argument_spec(argument_spec={
            'intent': {'type': 'path'},
            'devices': {'type': 'list', 'elements': 'str'},
            'gathered': {'type': 'bool', 'default': True},
            'gathered_var': {'type': 'str', 'default': 'validate_gathered'},
            'fleet_var': {'type': 'str', 'default': 'validate_fleet'},
            'gathered_files': {'type': 'list', 'elements': 'path'},
            'probe_var': {'type': 'str', 'default': 'validate_marking_sent'},
            'capture_var': {'type': 'str', 'default': 'validate_marking_capture'},
            'drift_var': {'type': 'str', 'default': 'validate_drift_state'},
            'drift_fleet_var': {'type': 'str', 'default': 'validate_drift_fleet'},
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
            'started_at': {'type': 'float'},
            'allow_system_dir': {'type': 'bool', 'default': False},
            'processes': {'type': 'int', 'default': 0},
        })[1]
        problems = health.threshold_problems(args['health_thresholds'])
        if args['processes'] < 0:
            problems.append('processes must be 0 (one per CPU core, at most one per %d devices) or a number of judging '
                            'processes, got %d' % (checks.JUDGING_SHARE, args['processes']))
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
        # plain strings: names that come from templates are tagged (ansible-core 2.19), which YAML cannot write
        devices = [str(name) for name in (args['devices'] if args['devices'] is not None
                                          else [name for name in play_hosts if name in design.nodes])]
        unknown = [name for name in devices if name not in design.nodes]
        if unknown:
            raise AnsibleActionFail('Not devices of fabric %s: %s' % (design.name, ', '.join(unknown)))
        known = set(checks.REGISTRY)
        for name in (args['checks'] or []) + args['skip_checks']:
            if name not in known:
                raise AnsibleActionFail('Unknown check %s (checks: %s)' % (name, ', '.join(sorted(known))))
        selected = [name for name in (args['checks'] or sorted(known)) if name not in args['skip_checks']]
        phases, gathered = ('design',), {}
        ctx = checks.Context(design, {}, {'ping_peers': args['ping_peers'], 'max_loss_percent': args['max_loss_percent'],
                                          'devices': devices, 'health': args['health_thresholds']})
        if args['gathered']:
            phases = ('design', 'deployed')
            # The design phase of the lossless checks depends on the design alone: a child process makes it on
            # another core while the devices' readings are taken below (DesignSidesAhead; none for a small fabric).
            lossless = any(checks.REGISTRY[name].category == 'lossless' for name in selected)
            side_names = sides.design_side_names(design, devices) if lossless else []
            # A fleet reading (this host read every device it could from the controller) and the per-host readings of
            # the devices it left to Ansible's own connection. The fleet reading computed the design sides on the CPU
            # its reading left idle.
            fleet_result = task_vars.get(args['fleet_var']) or {}
            ahead = (sides.DesignSidesAhead.saved(fleet_result['design_sides'], intent, side_names)
                     if fleet_result.get('design_sides') and side_names else sides.DesignSidesAhead(intent, side_names))
            try:
                # Each device's state is parsed as it is taken and its raw outputs let go (DeviceState.parse_all), so a
                # fleet's readings are never all held at once.
                files = list(args['gathered_files'] or []) + (
                    [fleet_result['spool']] if fleet_result.get('spool') else [])
                fleet = dict(fleet_result.get('devices') or {})
                args['drift_fleet'] = _fleet_drift(task_vars.get(args['drift_fleet_var']), fleet_result, design)
                try:
                    if files:
                        gathered.update(self._take_files(ctx, files, devices, hostvars, args))
                except GatheredError as error:
                    raise AnsibleActionFail(str(error)) from None
                for name in devices:
                    if name not in gathered:
                        item = fleet.get(name) or (hostvars[name].get(args['gathered_var']) if name in hostvars
                                                   else None) or {}
                        gathered[name] = self._take(ctx, name, item, hostvars, args)
                ahead.install(ctx)
            finally:
                ahead.stop()  # a take that failed leaves the child running: its work is not wanted
        changing = {name: item['convergence'] for name, item in gathered.items()
                    if (item.get('convergence') or {}).get('outcome') == 'changing'}
        ctx.options.update({
            'lossless_phases': phases,
            'read_at': {name: item['read_at'] for name, item in gathered.items() if item.get('read_at')},
            'converging': {name: _still_changing(convergence) for name, convergence in changing.items()},
            'steady': {name: frozenset(convergence.get('steady') or ()) for name, convergence in changing.items()}})
        categories = GATHERED if args['gathered'] else ('lossless',)
        try:
            results = checks.judge(ctx, devices=devices, check_ids=selected, categories=categories,
                                   processes=checks.judge_processes(args['processes'], len(devices)))
        except checks.JudgingError as error:
            raise AnsibleActionFail(str(error)) from None
        found = causes.analyse(ctx, results)
        now = datetime.datetime.now(datetime.timezone.utc)
        # Rounded once: the meta, the timing sentence and the headline give the same figures.
        judged = round(time.monotonic() - started, 2)
        begun = [value for value in [args['started_at']] + [item.get('started_at') for item in gathered.values()] if value]
        run_seconds = round(max(judged, now.timestamp() - min(begun)) if begun else judged, 2)
        meta = {
            'generated_at': now.strftime('%Y-%m-%d %H:%M:%S UTC'),
            'intent': intent,
            'mode': 'gathered state + design' if args['gathered'] else 'design only (pre-deploy, no device contacted)',
            'devices_checked': len(devices),
            'devices_without_state': ', '.join(sorted(name for name in devices if args['gathered'] and not ctx.gathered(name))),
            'check_mode': bool(self._task.check_mode),
            'run_seconds': run_seconds,
            'judging_seconds': judged,
            'timing': _timing(run_seconds, judged, gathered),
            'settling': _settling(gathered),
        }
        built = report.build(design, results, meta, causes=found)
        summary = built['summary']
        result['changed'] = False
        result['summary'] = summary
        written, unwritten = self._write_reports(args, ctx, design, built, results, devices, now, task_vars)
        if written:
            result['report'] = written
        failures = report.failure_lines(results.problems(), limit=args['failure_lines'])
        result['failures'] = failures
        result['causes'] = [cause.headline() for cause in found]
        result['blamed'] = summary['blamed']
        result['devices'] = devices  # judged (the role hands the blamed ones, and one that is not, to a play of theirs)
        result['device_causes'] = {}
        for cause in found:
            for device in cause.devices:
                result['device_causes'].setdefault(device, []).append(cause.headline())
        where = result.get('report', {}).get('markdown')
        headline = ('fabric %s: %s; %d checks run, %d passed, %d failed, %d errors, %d not applicable, %d health findings; '
                    'run %.1f s' % (design.name, _count(len(found), 'cause'), summary['checks_run'], summary['passed'],
                                    summary['failed'], summary['errors'], summary['not_applicable'],
                                    summary['health_findings'], run_seconds))
        lines = []
        if found:
            lines += ['Causes (%d), each with what follows from it:' % len(found)] + report.cause_lines(found)
        if failures:
            lines += ['Failed checks (%d):' % (summary['failed'] + summary['errors'])] + failures
        if where:
            lines.append('report: %s' % where)
        if summary['verdict'] == 'NOTHING CHECKED':
            result['msg'] = ('Validation checked NOTHING for %s: every result is not applicable (see the reasons in the '
                             'report); this is not a pass%s' % (headline, '\nreport: %s' % where if where else ''))
        elif summary['verdict'] == report.NOT_CONVERGED:
            result['msg'] = ('Validation: the fabric had NOT CONVERGED yet for %s (not a verdict on the design: '
                             'validate again, or give it longer with validate_settle_timeout)\n%s' % (headline, '\n'.join(lines)))
        elif summary['failed'] + summary['errors']:
            result['msg'] = 'Validation FAILED for %s\n%s' % (headline, '\n'.join(lines))
        else:
            result['msg'] = 'Validation passed for %s%s' % (headline, '\nreport: %s' % where if where else '')
        if summary['failed'] + summary['errors'] and args['fail']:
            result['failed'] = True
        if unwritten:  # the checks ran: the verdict above stands, and the task fails naming the directory
            result['msg'] += '\nThe reports were not written: %s' % unwritten
            result.update(failed=True, report_error=unwritten)
        return result

    def _write_reports(self, args, ctx, design, built, results, devices, now, task_vars):
        """({kind: path}, problem): report.json, .md, .html, the Prometheus textfile and the ANTA catalog written into
        output_dir as one set, and the copy of the textfile at prometheus_file; or why they could not be (a directory
        refused, a full or read-only file system), said with the directory."""
        if not (args['output_dir'] or args['prometheus_file']):
            return {}, ''
        sources = inventory_sources(task_vars)
        textfile = prometheus.exposition_of(design.name, results, built['summary'], now.timestamp(),
                                            health.counter_links(ctx, devices))
        paths, problems = {}, []
        if args['output_dir']:
            problem = destination_problem(args['output_dir'], 'validation report directory', sources,
                                          args['allow_system_dir'])
            extra = {'aifabric-%s.prom' % design.name: textfile}
            eapi = [name for name in devices if ctx.state(name).provides(anta_catalog.ANTA_KEY)
                    and ctx.model(name)['role'] in anta_catalog.SWITCHES]
            if args['anta_catalog'] and eapi:
                extra[ANTA_CATALOG] = self._catalog(ctx, eapi)
            try:
                if problem:
                    raise report.ReportError(problem)
                written = report.write(design, built, args['output_dir'], extra)
            except report.ReportError as exc:
                problems.append(str(exc))
            else:
                paths = {kind: written[kind] for kind in ('json', 'markdown', 'html')}
                paths['prometheus'] = written['aifabric-%s.prom' % design.name]
                if ANTA_CATALOG in written:
                    paths['anta_catalog'] = written[ANTA_CATALOG]
        if args['prometheus_file']:
            directory, name = os.path.split(os.path.abspath(args['prometheus_file']))
            problem = destination_problem(directory, 'directory of prometheus_file', sources, args['allow_system_dir'])
            try:
                if problem:
                    raise report.ReportError(problem)
                # alone, the textfile is the report's 'prometheus' (as before output_dir wrote one beside the reports)
                paths['prometheus_file' if args['output_dir'] else 'prometheus'] = \
                    report.write_files(directory, {name: textfile})[name]
            except report.ReportError as exc:
                problems.append(str(exc))
        return paths, '; '.join(problems)

    def _take_files(self, ctx, files, devices, hostvars, args) -> dict:
        """_take() of the readings of `devices` in the gathered files, each process of the judging taking a share of
        them (checks.take_in_processes: the parsing is most of a fleet's judging step)."""
        processes = checks.judge_processes(args['processes'], len(devices))

        def take(share):
            return {name: self._take(ctx, name, item, hostvars, args)
                    for name, item in iter_gathered(files, ctx.design.name, only=frozenset(share))}
        if processes == 1:
            return take(devices)
        return checks.take_in_processes(ctx, shares_of(devices, processes), take)

    @staticmethod
    def _take(ctx, name, item, hostvars, args) -> dict:
        """A device's reading into the judging context, parsed at once (its raw outputs let go); returns the reading
        without its state (when it was read, how it settled) for the report."""
        state = dict(item.get('state') or {})
        # The data-plane marking probe: what the host sent, what the switch captured (skipped tasks of devices
        # without a part are left out).
        device_vars = hostvars[name] if name in hostvars else {}
        for key, var in (('marking_probe', args['probe_var']), ('marking_capture', args['capture_var'])):
            registered = item.get(key) or device_vars.get(var)  # a slice's file carries them
            if registered and not registered.get('skipped'):
                state[key] = registered
        # What the deploy would change there: the role's drift tasks in check mode as registered per host, else the
        # switch's result of the fleet check (validate_reader fleet).
        drift = device_vars.get(args['drift_var'])
        if not isinstance(drift, dict) or not drift or drift.get('skipped'):
            drift = (args.get('drift_fleet') or {}).get(name, drift)
        if isinstance(drift, dict) and drift and not drift.get('skipped') and state:
            state['config_drift'] = drift
        ctx.states[name] = checks.DeviceState(name, state)
        ctx.state(name).parse_all()
        return {key: value for key, value in item.items() if key != 'state'}

    @staticmethod
    def _catalog(ctx, names):
        """anta-catalog.yml beside the report, so people can run `anta nrfu` with ANTA's own CLI."""
        import yaml  # pylint: disable=import-outside-toplevel
        header = ('# ANTA catalog of fabric %s, generated from the design by aifabric.fabric.validate.\n'
                  '# Each test runs on its device (filters.tags). Run it yourself with an ANTA inventory of these '
                  'switches:\n#   anta nrfu --catalog %s --inventory anta-inventory.yml table\n'
                  % (ctx.design.name, ANTA_CATALOG))
        # libyaml's emitter where PyYAML has it: the catalog of a fabric's thousand EOS switches is megabytes
        return header + yaml.dump(anta_catalog.fabric_catalog(ctx, sorted(names)), sort_keys=False,
                                  Dumper=getattr(yaml, 'CSafeDumper', yaml.SafeDumper))

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


def _fleet_drift(registered, fleet_result, design) -> dict:
    """{switch: its result} of the fleet check of the deploy (the switch_deploy task with `devices` the validate role
    runs once after a fleet reading), or {} when it did not run. A fleet check that failed as a whole (no result per
    switch) is an error on every switch the fleet read, naming the step and why: never a pass nor a silent skip."""
    if not isinstance(registered, dict) or not registered or registered.get('skipped'):
        return {}
    if isinstance(registered.get('switches'), dict):
        return dict(registered['switches'])
    why = registered.get('msg') or 'no result'
    return {name: {'failed': True, 'outcome': 'failed', 'failed_step': 'check (the fleet check of the deploy)',
                   'msg': '%s: the fleet check of the deploy failed: %s' % (name, why)}
            for name in fleet_result.get('read') or () if name in design.nodes and design.nodes[name].role != 'host'}


def _count(number, word):
    return '%d %s%s' % (number, word, '' if number == 1 else 's')


def _still_changing(convergence):
    return 'still changing after %s s, the deadline; %d readings' % (convergence.get('seconds'), convergence.get('reads', 0))


def _timing(run_seconds, judged, gathered):
    """The run's wall time and where it went: reading and settling (slowest device), then judging."""
    text = '%.1f s wall' % run_seconds
    slowest = max(gathered.items(), key=lambda item: item[1].get('seconds') or 0, default=None)
    if slowest and slowest[1].get('seconds') is not None:
        reads = slowest[1].get('attempts') or 1
        text += ' (reading and settling %.1f s on the slowest device, %s, %d reading%s; judging %.2f s)' % (
            slowest[1]['seconds'], slowest[0], reads, '' if reads == 1 else 's', judged)
    else:
        text += ' (judging %.2f s)' % judged
    return text


def _settling(gathered):
    """How settling ended on the devices: passed, failing the same way (wrong), still changing (not converged)."""
    outcomes = {}
    deadline = None
    for name, item in sorted(gathered.items()):
        convergence = item.get('convergence') or {}
        deadline = convergence.get('deadline', deadline)
        outcomes.setdefault(convergence.get('outcome') or 'not gathered', []).append(name)
    if not outcomes:
        return ''
    words = {'settled': 'checks pass', 'stable': 'failing the same way (wrong, not converging)',
             'changing': 'still changing at the deadline (not converged yet)', 'once': 'read once',
             'unreadable': 'unreadable', 'not gathered': 'not gathered'}
    parts = ['%s: %d%s' % (words.get(outcome, outcome), len(names), ' (%s)' % ', '.join(names[:5]) +
                           (' ...' if len(names) > 5 else '') if outcome != 'settled' else '')
             for outcome, names in sorted(outcomes.items())]
    return 'deadline %s s; %s' % (deadline, '; '.join(parts))
