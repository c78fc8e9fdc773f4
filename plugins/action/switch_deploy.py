# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Controller-side implementation of aifabric.fabric.switch_deploy (documented in plugins/modules)."""

from __future__ import annotations

import re

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.aifabric.fabric.plugins.plugin_utils.design_cache import get_design, intent_path
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.deploy import contract
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import (
    USERS_VARIABLE, SecretsError, render_model, switch_user_hashes)
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.transport import TransportError

# The host variables the drivers read (templated here: they may come from Vault or other variables).
CONNECTION_VARIABLES = (
    'ansible_host', 'ansible_port', 'ansible_user', 'ansible_password', 'ansible_ssh_pass',
    'ansible_ssh_private_key_file', 'ansible_private_key_file', 'ansible_command_timeout', 'ansible_httpapi_user',
    'ansible_httpapi_pass', 'ansible_httpapi_port', 'ansible_httpapi_use_ssl', 'ansible_httpapi_validate_certs',
    'ansible_httpapi_ca_path', 'aifabric_ssh_known_hosts', 'aifabric_ssh_host_key_checking')
SECRET_VARIABLES = ('ansible_password', 'ansible_ssh_pass', 'ansible_httpapi_pass')
STEPS = ('push', 'confirm', 'rollback')


# Any crypt(3) hash a switch already holds (`$6$salt$...`, `$y$...`, `$1$...`) is masked as well.
CRYPT_HASH = re.compile(r'\$(?:1|5|6|y|2[aby]?)\$[^\s\'"]+')


def masked(text, hashes, secrets):
    """`text` without password hashes and the login secrets (diffs and switch errors can quote them)."""
    for name, value in hashes.items():
        text = text.replace(value, '<hash of %s.%s>' % (USERS_VARIABLE, name))
    for value in secrets:
        if value:
            text = text.replace(value, '********')
    return CRYPT_HASH.sub('<password hash>', text)


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(('intent', 'step', 'confirm_timeout'))
    _requires_connection = False

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        task_vars = task_vars or {}
        _unused, args = self.validate_argument_spec(argument_spec={
            'intent': {'type': 'path'},
            'step': {'type': 'str', 'default': 'push', 'choices': list(STEPS)},
            'confirm_timeout': {'type': 'int', 'default': 300},
        })
        if not 30 <= args['confirm_timeout'] <= 86400:
            raise AnsibleActionFail('confirm_timeout must be between 30 and 86400 seconds, got %d'
                                    % args['confirm_timeout'])
        intent = intent_path(args['intent'], task_vars)
        design = get_design(intent)
        device = task_vars.get('inventory_hostname')
        if device not in design.nodes or design.nodes[device].role == 'host':
            raise AnsibleActionFail('%s is not a switch of fabric %s' % (device, design.name))
        model = design.device(device)
        host_vars = {name: self._templar.template(task_vars[name]) for name in CONNECTION_VARIABLES
                     if task_vars.get(name) is not None}
        declared = design.intent['management']['users']
        try:
            hashes = switch_user_hashes(declared, self._templar.template(task_vars.get(USERS_VARIABLE))
                                        if declared else None)
        except SecretsError as exc:
            raise AnsibleActionFail('%s: %s. Nothing was pushed.' % (device, exc)) from None
        secrets = [str(host_vars.get(name) or '') for name in SECRET_VARIABLES]
        result.update(device=device, platform=model['platform'], step=args['step'])
        try:
            driver = contract.driver_for(model['platform'], device, host_vars)
            account = driver.default_account
            if args['step'] == 'push' and account and account[0] not in {user['name'] for user in declared}:
                raise AnsibleActionFail('%s: management.users does not list %s, the account every %s switch comes '
                                        'with: it would keep its vendor default password %s. List it (with its hash '
                                        'in %s). Nothing was pushed.' % (device, account[0], model['platform'],
                                                                         account[1], USERS_VARIABLE))
            if args['step'] == 'push':
                files = render_model(model, hashes)
                outcome = contract.push(driver, files, check_mode=self._task.check_mode,
                                        confirm_seconds=args['confirm_timeout'])
                diff = masked(outcome.pop('diff'), hashes, secrets)
                if self._task.diff and diff.strip():
                    result['diff'] = {'prepared': diff}
            elif self._task.check_mode:
                outcome = {'outcome': 'unchanged', 'changed': False}  # nothing was pushed in check mode
            elif args['step'] == 'confirm':
                outcome = contract.confirm(driver, render_model(model, hashes))
            else:
                outcome = contract.rollback(driver)
        except TransportError as error:
            result.update(failed=True, changed=False, outcome=getattr(error, 'outcome', 'failed'),
                          failed_step=error.step, msg=masked(str(error), hashes, secrets))
            return result
        result.update(outcome)
        return result
