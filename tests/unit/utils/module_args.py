"""Run a module's main() in-process with given arguments, on every ansible-core release CI tests.

ansible-core 2.19 added ansible.module_utils.testing.patch_module_args; 2.17 and 2.18 read the arguments from
ansible.module_utils.basic._ANSIBLE_ARGS, which is what this fallback sets.
"""

import contextlib
import json
from unittest import mock

__all__ = ['patch_module_args']

try:
    from ansible.module_utils.testing import patch_module_args
except ImportError:  # ansible-core < 2.19
    from ansible.module_utils import basic

    @contextlib.contextmanager
    def patch_module_args(args=None):
        payload = json.dumps({'ANSIBLE_MODULE_ARGS': dict(args or {})}).encode('utf-8')
        with mock.patch.object(basic, '_ANSIBLE_ARGS', payload):
            yield
