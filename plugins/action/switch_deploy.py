# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Controller-side implementation of aifabric.fabric.switch_deploy (documented in plugins/modules)."""

from __future__ import annotations

import time

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.aifabric.fabric.plugins.plugin_utils.design_cache import get_design, intent_path, loaded_platforms
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.deploy import contract, fleet
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.deploy.reviewed import NotReviewed, reviewed_files
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.device_text import failed_step, mask_data, shown
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import (
    USERS_VARIABLE, SecretsError, switch_user_hashes)
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms import import_in_controller
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.transport import StepTimeout, TransportError, deadline

import_in_controller('deploy', loaded_platforms())

# The host variables the drivers read (templated here: they may come from Vault or other variables).
CONNECTION_VARIABLES = (
    'ansible_host', 'ansible_port', 'ansible_user', 'ansible_password', 'ansible_ssh_pass',
    'ansible_ssh_private_key_file', 'ansible_private_key_file', 'ansible_command_timeout', 'ansible_httpapi_user',
    'ansible_httpapi_pass', 'ansible_httpapi_port', 'ansible_httpapi_use_ssl', 'ansible_httpapi_validate_certs',
    'ansible_httpapi_ca_path', 'aifabric_ssh_known_hosts', 'aifabric_ssh_host_key_checking')
SECRET_VARIABLES = ('ansible_password', 'ansible_ssh_pass', 'ansible_httpapi_pass')
STEPS = ('push', 'confirm', 'rollback')
# How much of the switch's words a failure quotes, and of a --diff (the running configuration's lines among them).
ERROR_CHARS = 4000
DIFF_CHARS = 500000


class NotReviewedFail(AnsibleActionFail):
    """No reviewed generation to push (nothing rendered, or rendered from another intent)."""


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(('intent', 'step', 'confirm_timeout', 'timeout', 'rendered', 'devices', 'concurrency'))
    _requires_connection = False

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        task_vars = task_vars or {}
        _unused, args = self.validate_argument_spec(argument_spec={
            'intent': {'type': 'path'},
            'step': {'type': 'str', 'default': 'push', 'choices': list(STEPS)},
            'confirm_timeout': {'type': 'int', 'default': 300},
            'timeout': {'type': 'int', 'default': 600},
            'rendered': {'type': 'path'},
            'devices': {'type': 'list', 'elements': 'str'},
            'concurrency': {'type': 'int', 'default': 32},
        })
        if args['timeout'] < 1:
            raise AnsibleActionFail('timeout must be a number of seconds (1 or more), got %d' % args['timeout'])
        if not 30 <= args['confirm_timeout'] <= 86400:
            raise AnsibleActionFail('confirm_timeout must be between 30 and 86400 seconds, got %d'
                                    % args['confirm_timeout'])
        intent = intent_path(args['intent'], task_vars)
        design = get_design(intent)
        declared = design.intent['management']['users']
        try:  # only to mask them: the rendered files already hold the hashes
            hashes = switch_user_hashes(declared, self._templar.template(task_vars.get(USERS_VARIABLE))
                                        if declared else None)
        except SecretsError:
            hashes = {}
        if args['devices'] is not None:
            result.update(self._fleet(design, intent, args, hashes, task_vars))
            return result
        device = task_vars.get('inventory_hostname')
        if device not in design.nodes or design.nodes[device].role == 'host':
            raise AnsibleActionFail('%s is not a switch of fabric %s' % (device, design.name))
        platform = design.nodes[device].platform
        host_vars = self._host_vars(platform, task_vars)
        secrets = [str(host_vars.get(name) or '') for name in SECRET_VARIABLES]
        result.update(device=device, platform=platform, step=args['step'])
        try:
            driver = contract.driver_for(platform, device, host_vars)
            account = driver.default_account
            if args['step'] == 'push' and account and account[0] not in {user['name'] for user in declared}:
                raise AnsibleActionFail('%s: management.users does not list %s, the account every %s switch comes '
                                        'with: it would keep its vendor default password %s. List it (with its hash '
                                        'in %s). Nothing was pushed.' % (device, account[0], platform,
                                                                         account[1], USERS_VARIABLE))
            output_dir = args['rendered'] or self._templar.template(task_vars.get('aifabric_output_dir') or '')
            with deadline(args['timeout'], device, args['step']):  # whatever the switch or the library waits for
                outcome = self._step(driver, args, (output_dir, intent), hashes, secrets, result)
        except StepTimeout as error:  # the whole step's deadline: where the contract was tells the switch's state
            step = driver.step or args['step']
            result.update(failed=True, changed=False, outcome=driver.outcome_if_stopped, failed_step=step,
                          msg='%s: %s failed: %s (the deadline of the %s step, option timeout)'
                          % (device, step, shown(error.message, ERROR_CHARS, hashes=hashes, secrets=secrets),
                             args['step']))
            return result
        except TransportError as error:
            result.update(failed=True, changed=False, outcome=getattr(error, 'outcome', 'failed'),
                          failed_step=error.step, msg=failed_step(error, ERROR_CHARS, hashes=hashes, secrets=secrets))
            return result
        except NotReviewedFail as error:  # said as data too: validation's drift check is then not applicable
            result.update(failed=True, changed=False, not_reviewed=True, msg=error.message)
            return result
        result.update(mask_data(outcome, hashes, secrets))
        return result

    def _host_vars(self, platform, variables):
        """The host variables its platform's driver reads, templated (they may come from Vault or other variables)."""
        names = CONNECTION_VARIABLES + getattr(contract.driver_class(platform), 'host_variables', ())
        return {name: self._templar.template(variables[name]) for name in names if variables.get(name) is not None}

    def _fleet(self, design, intent, args, hashes, task_vars):
        """Check mode of every switch of `devices` from this controller at once (deploy/fleet.py): per switch its
        outcome, its diff (would_push) or its error naming it and the step; the diffs under --diff, each naming its
        switch."""
        if not self._task.check_mode:
            raise AnsibleActionFail('devices (every switch at once from the controller) is for check mode only: run '
                                    'with --check; a push goes switch by switch with its confirm timer and batches')
        if args['step'] != 'push':
            raise AnsibleActionFail('devices takes step push (the check of the push), got step %s' % args['step'])
        if args['concurrency'] < 1:
            raise AnsibleActionFail('concurrency must be 1 or more switches at once, got %d' % args['concurrency'])
        unknown = [name for name in args['devices'] if name not in design.nodes or design.nodes[name].role == 'host']
        if unknown:
            raise AnsibleActionFail('Not switches of fabric %s: %s' % (design.name, ', '.join(unknown)))
        hostvars = task_vars.get('hostvars') or {}
        output_dir = args['rendered'] or self._templar.template(task_vars.get('aifabric_output_dir') or '')
        declared_names = {user['name'] for user in design.intent['management']['users']}
        started, cpu = time.monotonic(), time.process_time()
        switches, switch_results, secrets = [], {}, {}
        for name in args['devices']:
            platform = design.nodes[name].platform
            host_vars = self._host_vars(platform, hostvars[name] if name in hostvars else {})
            secrets[name] = [str(host_vars.get(item) or '') for item in SECRET_VARIABLES]
            try:
                driver = contract.driver_for(platform, name, host_vars)
                account = driver.default_account
                if account and account[0] not in declared_names:  # as the per-host push refuses it
                    raise contract.DeployError(name, 'vendor default account', 'management.users does not list %s, '
                                               'the account every %s switch comes with: it would keep its vendor '
                                               'default password %s. List it (with its hash in %s)'
                                               % (account[0], platform, account[1], USERS_VARIABLE))
                files = reviewed_files(output_dir, name, driver.files, intent, driver.optional_files)
            except TransportError as error:
                switch_results[name] = {'outcome': 'failed', 'changed': False, 'failed': True,
                                        'failed_step': error.step,
                                        'msg': failed_step(error, ERROR_CHARS, hashes=hashes, secrets=secrets[name])}
                continue
            except NotReviewed as exc:
                switch_results[name] = {'outcome': 'failed', 'changed': False, 'failed': True, 'not_reviewed': True,
                                        'failed_step': 'reviewed files', 'msg': '%s: %s. Nothing was checked.'
                                        % (name, exc)}
                continue
            switches.append((name, driver, files))
        for name, found in fleet.check(switches, args['concurrency'], args['timeout']).items():
            if 'error' in found:
                switch_results[name] = {'outcome': found['outcome'], 'changed': False, 'failed': True,
                                        'failed_step': found['error'].step,
                                        'msg': failed_step(found['error'], ERROR_CHARS, hashes=hashes,
                                                           secrets=secrets[name])}
                continue
            diff = shown(found['diff'], DIFF_CHARS, lines=True, hashes=hashes, secrets=secrets[name])
            switch_results[name] = {'outcome': found['outcome'], 'changed': found['changed'], 'would_push': diff}
        ordered = {name: switch_results[name] for name in args['devices']}
        by_outcome = {}
        for name, found in ordered.items():
            by_outcome.setdefault(found['outcome'], []).append(name)
        result = {'changed': any(found['changed'] for found in ordered.values()), 'switches': ordered,
                  'outcomes': {name: found['outcome'] for name, found in ordered.items()},
                  'errors': [found['msg'] for found in ordered.values() if 'msg' in found],
                  'would_change': by_outcome.get('would_change', []), 'unchanged': by_outcome.get('unchanged', []),
                  'not_checked': by_outcome.get('failed', []),
                  'fleet': {'switches': len(ordered), 'concurrency': args['concurrency'],
                            'seconds': round(time.monotonic() - started, 1),
                            'cpu_seconds': round(time.process_time() - cpu, 1)}}
        if self._task.diff:
            result['diff'] = [{'prepared': '# %s\n%s' % (name, found['would_push'])} for name, found in ordered.items()
                              if found.get('would_push', '').strip()]
        return result

    def _step(self, driver, args, reviewed, hashes, secrets, result):
        """The contract's step on the switch; its outcome. `reviewed` is (output directory, intent): push and confirm
        send the generation the user rendered and reviewed there, never a fresh render."""
        device = driver.device
        if args['step'] == 'push':
            try:
                files = reviewed_files(reviewed[0], device, driver.files, reviewed[1], driver.optional_files)
            except NotReviewed as exc:
                raise NotReviewedFail('%s: %s. Nothing was pushed.' % (device, exc)) from None
            outcome = contract.push(driver, files, check_mode=self._task.check_mode,
                                    confirm_seconds=args['confirm_timeout'])
            diff = shown(outcome.pop('diff'), DIFF_CHARS, lines=True, hashes=hashes, secrets=secrets)
            if self._task.diff and diff.strip():
                result['diff'] = {'prepared': diff}
            if self._task.check_mode:  # what the push would change, also without --diff (validation's drift check)
                outcome['would_push'] = diff
            return outcome
        if self._task.check_mode:
            return {'outcome': 'unchanged', 'changed': False}  # nothing was pushed in check mode
        if args['step'] == 'confirm':
            try:
                files = reviewed_files(reviewed[0], device, driver.files, reviewed[1], driver.optional_files)
            except NotReviewed as exc:
                raise contract.DeployError(device, 'confirm', '%s; not confirmed: the switch reverts by itself when '
                                           'its confirm timer runs out' % exc, contract.REVERTING) from None
            return contract.confirm(driver, files)
        return contract.rollback(driver)
