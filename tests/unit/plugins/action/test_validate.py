# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""aifabric.fabric.validate_gather, aifabric.fabric.validate and the validate_commands module, driven by the
captured device state of tests/unit/fixtures/state/captured (no device, no network)."""

import json
import os
import sys
from unittest.mock import MagicMock, patch

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
sys.path.insert(0, ROOT)

from tests.unit.plugins.plugin_utils.fabric.state.captures import INTENT, scenario_states  # noqa: E402

DEVICES = ('gpu0001', 'gpu0002', 'leaf001', 'leaf002', 'spine001')


@pytest.fixture(scope='module')
def action_loader():
    from ansible.plugins.loader import action_loader as loader
    return loader


def make_action(loader, name, args, check=False):
    from ansible.parsing.dataloader import DataLoader
    task = MagicMock()
    task.args = args
    task.check_mode = check
    task.diff = False
    task.async_val = 0
    return loader.get(name, task=task, connection=MagicMock(), play_context=MagicMock(), loader=DataLoader(),
                      templar=None, shared_loader_obj=None)


def gathered_vars(scenario, devices=DEVICES):
    states = scenario_states(scenario)
    hostvars = {name: {'aifabric_intent': INTENT, 'validate_gathered': {'state': states.get(name, {})}}
                for name in devices}
    return {'hostvars': hostvars, 'ansible_play_hosts_all': list(devices), 'inventory_hostname': devices[0]}


def test_healthy_state_passes_and_writes_the_reports(action_loader, tmp_path):
    action = make_action(action_loader, 'aifabric.fabric.validate', {'output_dir': str(tmp_path)})
    result = action.run(task_vars=gathered_vars('healthy'))
    assert not result.get('failed') and result['changed'] is False
    summary = result['summary']
    assert summary['ok'] and summary['failed'] == 0 and summary['passed'] == summary['checks_run'] > 0
    assert summary['not_applicable'] > 0  # FRR capture fabric: every lossless check is not applicable
    report = json.loads((tmp_path / 'report.json').read_text())
    assert report['summary'] == summary and report['fabric'] == 'capture'
    text = (tmp_path / 'report.md').read_text()
    assert text.startswith('# Validation of fabric capture: PASSED') and '## Not applicable' in text
    assert '<svg' in (tmp_path / 'report.html').read_text()
    assert 'passed' in result['msg']


def test_fault_fails_the_task_naming_device_check_expected_and_seen(action_loader, tmp_path):
    action = make_action(action_loader, 'aifabric.fabric.validate', {'output_dir': str(tmp_path)})
    result = action.run(task_vars=gathered_vars('host_mtu_1500'))
    assert result['failed'] and result['summary']['failed'] == 3
    assert 'gpu0001 interface_mtu [eth1]: expected MTU 9000; seen MTU 1500' in result['msg']
    assert result['failures'][0].startswith('gpu0001 interface_mtu [eth1]') or any(
        line.startswith('gpu0001 interface_mtu [eth1]') for line in result['failures'])
    report = (tmp_path / 'report.md').read_text()
    assert report.index('## Failures (3)') < report.index('## Checks')


def test_fail_false_reports_without_failing(action_loader):
    action = make_action(action_loader, 'aifabric.fabric.validate', {'fail': False})
    result = action.run(task_vars=gathered_vars('wrong_route_target'))
    assert not result.get('failed') and not result['summary']['ok'] and 'report' not in result
    assert any('leaf001 evpn_route_target [VNI 10100]' in line for line in result['failures'])


def test_device_without_state_is_an_error(action_loader):
    task_vars = gathered_vars('healthy')
    task_vars['hostvars']['spine001'] = {'aifabric_intent': INTENT}
    result = make_action(action_loader, 'aifabric.fabric.validate', {}).run(task_vars=task_vars)
    assert result['failed'] and result['summary']['errors'] > 0 and 'ERROR spine001' in result['msg']


def test_design_only_mode_and_check_selection(action_loader):
    action = make_action(action_loader, 'aifabric.fabric.validate', {'gathered': False}, check=True)
    result = action.run(task_vars=gathered_vars('healthy'))
    assert result['summary']['checks_run'] == 0 and result['summary']['not_applicable'] > 0
    action = make_action(action_loader, 'aifabric.fabric.validate', {'checks': ['bgp_session']})
    result = action.run(task_vars=gathered_vars('link_down'))
    assert result['failed'] and all(' bgp_session [' in line for line in result['failures'])


def test_bad_arguments(action_loader):
    from ansible.errors import AnsibleActionFail
    with pytest.raises(AnsibleActionFail, match='Unknown check nope'):
        make_action(action_loader, 'aifabric.fabric.validate', {'checks': ['nope']}).run(task_vars=gathered_vars('healthy'))
    with pytest.raises(AnsibleActionFail, match='Not devices of fabric capture'):
        make_action(action_loader, 'aifabric.fabric.validate', {'devices': ['leaf999']}).run(task_vars=gathered_vars('healthy'))
    task_vars = gathered_vars('healthy')
    task_vars['hostvars']['gpu0001']['aifabric_intent'] = os.path.join(ROOT, 'inventories', 'lab', 'intent.yml')
    with pytest.raises(AnsibleActionFail, match='exactly one fabric intent'):
        make_action(action_loader, 'aifabric.fabric.validate', {}).run(task_vars=task_vars)


def _module_outputs(states, device):
    """What validate_commands returns for `device`, from a captured scenario."""
    return {'changed': False, 'outputs': {key: value for key, value in states[device].items() if key != 'rnic'}}


def test_gather_reads_once_and_evaluates_the_device(action_loader):
    action = make_action(action_loader, 'aifabric.fabric.validate_gather', {})
    states = scenario_states('healthy')
    with patch.object(action, '_execute_module', return_value=_module_outputs(states, 'leaf001')) as execute:
        result = action.run(task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'leaf001'})
    assert result['settled'] and result['attempts'] == 1 and result['changed'] is False
    assert set(result['state']) == {'bgp_summary', 'evpn_vni', 'bgp_evpn_vni', 'evpn_type3', 'interfaces', 'lldp'}
    commands = execute.call_args.kwargs['module_args']['commands']
    assert {item['key'] for item in commands} == set(result['state'])
    assert execute.call_args.kwargs['module_name'] == 'aifabric.fabric.validate_commands'


def test_gather_on_a_host_plans_pings_and_rnic_facts(action_loader):
    action = make_action(action_loader, 'aifabric.fabric.validate_gather', {'settle_timeout': 0})
    states = scenario_states('healthy')
    rnic = {'ansible_facts': {'aifabric_rnic': {'not_applicable': 'not applicable: no RDMA device', 'interfaces': {},
                                                'devices': {}, 'errors': []}}}
    with patch.object(action, '_execute_module', side_effect=[_module_outputs(states, 'gpu0001'), rnic]) as execute:
        result = action.run(task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'gpu0001'})
    commands = {item['key']: item['argv'] for item in execute.call_args_list[0].kwargs['module_args']['commands']}
    assert commands['jumbo:eth1:10.100.0.11'] == ['ping', '-n', '-c', '3', '-i', '0.2', '-W', '2', '-I', 'eth1',
                                                  '-M', 'do', '-s', '8972', '10.100.0.11']
    assert commands['ping:eth1:10.100.0.11'][-1] == '10.100.0.11'
    assert execute.call_args_list[1].kwargs['module_name'] == 'aifabric.fabric.rnic_facts'
    assert result['state']['rnic']['not_applicable'].startswith('not applicable') and result['settled']


def test_gather_settles_until_the_device_checks_pass(action_loader):
    action = make_action(action_loader, 'aifabric.fabric.validate_gather', {'settle_timeout': 60, 'settle_interval': 1})
    broken, healthy = scenario_states('link_down'), scenario_states('healthy')
    answers = [_module_outputs(broken, 'leaf001'), _module_outputs(broken, 'leaf001'), _module_outputs(healthy, 'leaf001')]
    with patch.object(action, '_execute_module', side_effect=answers), patch('time.sleep') as sleep:
        result = action.run(task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'leaf001'})
    assert result['attempts'] == 3 and result['settled'] and sleep.call_count == 2


def test_gather_gives_up_after_the_settle_timeout(action_loader):
    action = make_action(action_loader, 'aifabric.fabric.validate_gather', {'settle_timeout': 0})
    broken = scenario_states('link_down')
    with patch.object(action, '_execute_module', return_value=_module_outputs(broken, 'leaf001')):
        result = action.run(task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'leaf001'})
    assert result['attempts'] == 1 and not result['settled'] and result['summary']['fail'] > 0


def test_gather_reports_a_failed_read(action_loader):
    from ansible.errors import AnsibleActionFail
    action = make_action(action_loader, 'aifabric.fabric.validate_gather', {})
    with patch.object(action, '_execute_module', return_value={'failed': True, 'msg': 'python3 not found'}):
        with pytest.raises(AnsibleActionFail, match='python3 not found'):
            action.run(task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'leaf001'})
    with pytest.raises(AnsibleActionFail, match='not a device of fabric capture'):
        make_action(action_loader, 'aifabric.fabric.validate_gather', {}).run(
            task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'leaf042'})


# --------------------------------------------------------------------------- validate_commands module
def run_commands_module(args):
    from ansible.module_utils import basic
    from tests.unit.utils.module_args import patch_module_args
    from ansible_collections.aifabric.fabric.plugins.modules import validate_commands

    class Done(Exception):
        pass

    outcome = {}

    def finish(_module, **kwargs):
        outcome.update(kwargs)
        raise Done()

    with patch_module_args(args), patch.object(basic.AnsibleModule, 'exit_json', finish), \
            patch.object(basic.AnsibleModule, 'fail_json', lambda _module, **kwargs: finish(_module, failed=True, **kwargs)):
        with pytest.raises(Done):
            validate_commands.main()
    return outcome


def test_validate_commands_runs_read_only_commands_in_parallel(action_loader):
    result = run_commands_module({'commands': [
        {'key': 'echo', 'argv': ['sh', '-c', 'echo out; echo err >&2; exit 3']},
        {'key': 'missing', 'argv': ['/nonexistent/tool']},
        {'key': 'slow', 'argv': ['sleep', '5']},
    ], 'timeout': 1, '_ansible_check_mode': True})
    outputs = result['outputs']
    assert result['changed'] is False
    assert (outputs['echo']['rc'], outputs['echo']['stdout'], outputs['echo']['stderr']) == (3, 'out', 'err')
    assert outputs['missing']['rc'] == 127 and 'No such file' in outputs['missing']['stderr']
    assert outputs['slow']['rc'] == -1 and 'timed out' in outputs['slow']['stderr']


def test_validate_commands_rejects_duplicate_keys(action_loader):
    result = run_commands_module({'commands': [{'key': 'a', 'argv': ['true']}, {'key': 'a', 'argv': ['true']}]})
    assert result['failed'] and 'unique' in result['msg']
