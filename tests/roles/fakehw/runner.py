# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run an Ansible module's main() in-process with given args; return its exit_json/fail_json result."""

from unittest import mock

from ansible.module_utils import basic
from tests.unit.utils.module_args import patch_module_args


class ModuleExit(Exception):
    def __init__(self, result, failed):
        super().__init__(result.get('msg', ''))
        self.result = result
        self.failed = failed


def _exit(self, **kwargs):
    kwargs.setdefault('changed', False)
    raise ModuleExit(kwargs, False)


def _fail(self, msg, **kwargs):
    kwargs['msg'] = msg
    kwargs['failed'] = True
    raise ModuleExit(kwargs, True)


def run_module(main, args, check_mode=False, diff=False):
    """Result dict of the module; result['failed'] is True when it called fail_json."""
    args = dict(args)
    if check_mode:
        args['_ansible_check_mode'] = True
    if diff:
        args['_ansible_diff'] = True
    warnings = []
    with patch_module_args(args), \
            mock.patch.object(basic.AnsibleModule, 'exit_json', _exit), \
            mock.patch.object(basic.AnsibleModule, 'fail_json', _fail), \
            mock.patch.object(basic.AnsibleModule, 'warn', lambda self, text: warnings.append(text)):
        try:
            main()
        except ModuleExit as exc:
            result = exc.result
            result['warnings'] = warnings
            return result
    raise AssertionError('module returned without exit_json/fail_json')
