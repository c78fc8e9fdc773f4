# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every secret form of every platform (test_device_text.FORMS), on every path that shows what a switch printed.

The forms are masked by one function (device_text); these tests hold that each path calls it before anything is shown
or kept, for each form: the fleet and deploy paths on a switch of the form's own platform, the per-host reading on the
captured FRR leaf (validate_gather masks what any platform's reader returns at one place, before it parses):

- validate_gather, one device (Ansible's per-host path): its result, shown at -v and kept in the play's variables;
- validate_gather, a fleet (the controller reads every switch at once): its results, check results among them, whose
  errors quote what a failed command printed;
- validate_gather's failure message when the reading cannot run at all;
- switch_deploy: the --diff of a push, its check-mode would_push, and the message of a failed step.
"""

import asyncio
import contextlib
import json
import os
from unittest.mock import patch

import pytest
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import live
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.deploy import contract
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.device_text import mask_data
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.transport import TransportError
from tests.unit.plugins.action.test_validate import INTENT, _outputs, _shell, make_action
from tests.unit.plugins.plugin_utils.fabric.state.captures import scenario_states
from tests.unit.plugins.plugin_utils.fabric.test_device_text import FORMS
from tests.unit.utils.paths import ROOT

INTENTS = os.path.join(ROOT, 'tests', 'unit', 'fixtures', 'intents')
# A fabric of each platform (the FRR one is the captured fabric the validate tests read).
FABRICS = {'eos': os.path.join(INTENTS, 'eos_small.yml'), 'sonic': os.path.join(INTENTS, 'sonic_small.yml'),
           'nvue': os.path.join(INTENTS, 'nvue_small.yml'), 'frr': INTENT}
CASES = [pytest.param(platform, text, secret, id='%s: %s' % (platform, form))
         for platform, form, text, secret, _kept, _source in FORMS]


@pytest.fixture(scope='module')
def action_loader():
    from ansible.plugins.loader import action_loader as loader
    return loader


def _switch(platform):
    design = design_from_file(FABRICS[platform])
    return design, sorted(name for name, node in design.nodes.items() if node.role != 'host')[0]


def _failed(platform, text):
    """A command that failed printing `text`, as the platform's reader returns it (eAPI: an error object)."""
    if platform == 'eos':
        return {'errors': [text]}
    return {'rc': 1, 'stdout': '', 'stderr': text}


def _no_secret(secret, result):
    written = json.dumps(result)
    assert secret not in written, written[written.find(secret) - 300:written.find(secret) + 100]


@pytest.mark.parametrize('platform, text, secret', CASES)
def test_a_fleet_reading_shows_no_secret_a_failed_command_printed(monkeypatch, platform, text, secret):
    """The controller's fleet reading judged what it read unmasked: a check's error quoted the failed command's
    stderr ("command failed (rc 1): tacacs-server ... key 7 070E...", "eAPI error: ...") in check_results."""
    design, device = _switch(platform)
    reading = live.DeviceReading(design, device, live.Settings(counters=False, rnic=False, settle_timeout=0))
    commands = reading.state_commands

    async def read_async(_self, _target, _commands):
        return {key: _failed(platform, text) for key, _command in commands}

    monkeypatch.setattr(type(reading.gatherer.reader), 'session', lambda self, target: _Session())
    monkeypatch.setattr(type(reading.gatherer), 'read_async', read_async)
    found = asyncio.run(live.read_fleet(design, [device], lambda name, reader: {}, reading.settings, mask_data))
    result = found['devices'][device]
    assert result['check_results'] and any(item['status'] == 'error' for item in result['check_results'])
    _no_secret(secret, result)


class _Session:
    async def __aenter__(self):
        return self

    async def __aexit__(self, *_exc):
        return None


@pytest.mark.parametrize('platform, text, secret', CASES)
def test_one_device_s_reading_shows_no_secret(action_loader, platform, text, secret):
    """validate_gather on one device (the per-host path): what a failed command printed, in its result (-v)."""
    action = make_action(action_loader, 'aifabric.fabric.validate_gather', {})
    outputs = _outputs(scenario_states('healthy'), 'leaf001')
    outputs['bgp_summary'] = {'rc': 1, 'stdout': '', 'stderr': text}
    outputs['interfaces'] = dict(outputs['interfaces'], stderr=text)
    with _shell(action, outputs):
        result = action.run(task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'leaf001'})
    assert any(item['status'] == 'error' for item in result['check_results'])
    _no_secret(secret, result)


@pytest.mark.parametrize('platform, text, secret', CASES)
def test_a_reading_that_cannot_run_names_no_secret(action_loader, platform, text, secret):
    from ansible.errors import AnsibleActionFail
    action = make_action(action_loader, 'aifabric.fabric.validate_gather', {})
    with patch.object(action, '_low_level_execute_command', return_value={'rc': 125, 'stdout': '', 'stderr': text}):
        with pytest.raises(AnsibleActionFail) as failed:
            action.run(task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'leaf001'})
    assert str(failed.value).startswith('leaf001: reading its state failed')
    _no_secret(secret, str(failed.value))


_DRIVER_FOR = contract.driver_for


def _without_default_account(platform, device, host_vars):
    """The platform's own driver (nothing connects: the contract's steps are replaced), its vendor account taken as
    declared (a push refuses a fabric whose management.users leaves the vendor's default password)."""
    driver = _DRIVER_FOR(platform, device, host_vars)
    driver.default_account = None
    return driver


def _deploy(action_loader, platform, check=False, step='push'):
    design, device = _switch(platform)
    action = make_action(action_loader, 'aifabric.fabric.switch_deploy', {'intent': FABRICS[platform], 'step': step,
                                                                          'rendered': '/nonexistent'}, check=check)
    action._task.diff = True  # pylint: disable=protected-access
    action._templar = Templar(loader=DataLoader())  # pylint: disable=protected-access
    module = __import__(type(action).__module__, fromlist=['reviewed_files'])
    stack = contextlib.ExitStack()
    stack.enter_context(patch.object(module, 'reviewed_files', return_value={}))
    stack.enter_context(patch.object(contract, 'driver_for', side_effect=_without_default_account))
    return action, {'inventory_hostname': device, 'aifabric_intent': FABRICS[platform], 'ansible_host': '127.0.0.1',
                    'ansible_user': 'admin', 'ansible_password': 'login-pass'}, stack


def _removed(text):
    """`text` as the removed lines of a unified diff (a form that is a diff's lines already stays as it is)."""
    lines = text.splitlines()
    if len(lines) > 1 and all(line[:1] in '+- ' for line in lines):
        return text.rstrip('\n')
    return '\n'.join('-' + line for line in lines)


@pytest.mark.parametrize('check', [False, True], ids=['push', 'check mode'])
@pytest.mark.parametrize('platform, text, secret', CASES)
def test_a_deploy_diff_shows_no_secret(action_loader, platform, text, secret, check):
    """The diff of the switch's running configuration and the rendered one (--diff, and would_push in check mode)."""
    action, task_vars, stack = _deploy(action_loader, platform, check)
    diff = '--- running\n+++ rendered\n@@ -1,2 +1,2 @@\n%s\n+hostname x\n' % _removed(text)
    with stack, patch.object(contract, 'push', return_value={'outcome': 'pushed', 'changed': True, 'diff': diff}):
        result = action.run(task_vars=task_vars)
    assert not result.get('failed'), result.get('msg')
    assert (result['would_push'] if check else result['diff']['prepared']).startswith('--- running')
    _no_secret(secret, result)


# How a driver's failed step carries what the switch printed: a shell driver's message is the output's last lines
# (transport.CommandFailed), napalm's EOS errors quote the refused command on one line.
SAID = {'as the message': lambda text: text,
        'quoted': lambda text: "CLI command 2 of 9 '%s' failed: invalid command" % ' '.join(text.split())}


# (a document of several lines is never quoted on one line)
SAID_CASES = [pytest.param(platform, text, secret, said, id='%s: %s, %s' % (platform, form, said))
              for platform, form, text, secret, _kept, _source in FORMS for said in sorted(SAID)
              if said != 'quoted' or '\n' not in text.strip()]


@pytest.mark.parametrize('step', ['push', 'confirm', 'rollback'])
@pytest.mark.parametrize('platform, text, secret, said', SAID_CASES)
def test_a_failed_deploy_step_names_no_secret(action_loader, platform, text, secret, said, step):
    """What the switch answered a failed step (its error output, a refused line of the configuration it was sent)."""
    action, task_vars, stack = _deploy(action_loader, platform, step=step)
    error = TransportError(task_vars['inventory_hostname'], step, SAID[said](text))
    with stack, patch.object(contract, step, side_effect=error):
        result = action.run(task_vars=task_vars)
    assert result['failed'] and result['msg'].startswith('%s: %s failed: ' % (task_vars['inventory_hostname'], step))
    _no_secret(secret, result)
