"""Run Ansible's command line tools from the interpreter running the tests.

Under `ansible-test units` Ansible comes from PYTHONPATH and there are no console scripts next to the
interpreter, so the tools run as modules (`python -m ansible.cli.playbook`), which works in every environment.
"""

import sys


def ansible_cli(tool):
    """Command prefix for `ansible-<tool>`, e.g. ansible_cli('playbook') + ['site.yml']."""
    return [sys.executable, '-m', 'ansible.cli.%s' % tool]
