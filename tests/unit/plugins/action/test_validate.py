# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""aifabric.fabric.validate_gather (and the shell script it reads a device with), aifabric.fabric.validate, driven by
the captured device state of tests/unit/fixtures/state/captured (no device, no network)."""

import base64
import copy
import json
import os
import shlex
import subprocess
import time
from unittest.mock import MagicMock, patch

import pytest

from tests.unit.plugins.plugin_utils.fabric.state.captures import INTENT, read, read_recorded, scenario_states
from tests.unit.utils.paths import ROOT
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.shell import (
    BATCH_MARK, batch_outputs, command_batch)
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks  # noqa: E402
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file  # noqa: E402

DEVICES = ('gpu0001', 'gpu0002', 'leaf001', 'leaf002', 'spine001')


def read_rnic(name):
    return read('rnic_facts', name + '.json')


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
    task.environment = None
    connection = MagicMock(transport='ssh', has_pipelining=True)
    connection._shell.env_prefix.return_value = ''  # the task sets no environment
    return loader.get(name, task=task, connection=connection, play_context=MagicMock(), loader=DataLoader(),
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
    assert result['failed'] and result['summary']['failed'] == 4
    assert 'gpu0001 interface_mtu [eth1]: expected MTU 9000; seen MTU 1500' in result['msg']
    assert result['failures'][0].startswith('gpu0001 interface_mtu [eth1]') or any(
        line.startswith('gpu0001 interface_mtu [eth1]') for line in result['failures'])
    report = (tmp_path / 'report.md').read_text()
    assert report.index('## Failures (4)') < report.index('## Checks')


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
    task_vars['hostvars']['gpu0001']['aifabric_intent'] = os.path.join(ROOT, 'fabrics', 'lab.yml')
    with pytest.raises(AnsibleActionFail, match='exactly one fabric intent'):
        make_action(action_loader, 'aifabric.fabric.validate', {}).run(task_vars=task_vars)


def _outputs(states, device):
    """The command outputs of `device` in a captured scenario ({key: {rc, stdout, stderr} or text})."""
    return {key: value for key, value in states[device].items() if key != 'rnic'}


class DeviceShell:
    """The device's shell behind the action's _low_level_execute_command: it answers each command batch (the
    script of state/shell.py's command_batch, read from stdin) with the next of `answers` (the last repeats): a scenario's
    outputs by the labels the script runs, or an exception to raise. `scripts` keeps the scripts it was given."""

    def __init__(self, *answers):
        self.answers = answers
        self.scripts = []

    def __call__(self, cmd, sudoable=True, in_data=None, **_kwargs):
        assert in_data is None or isinstance(in_data, bytes), 'a connection takes bytes on standard input'
        self.scripts.append(in_data.decode() if in_data is not None else cmd)
        answer = self.answers[min(len(self.scripts), len(self.answers)) - 1]
        if isinstance(answer, BaseException):
            raise answer
        text = []
        for index, label in enumerate(self.commands(-1)):
            output = answer.get(label)
            output = {'rc': 0, 'stdout': output, 'stderr': ''} if isinstance(output, str) else output or {'rc': 1}
            text += ['%s %d %s' % (BATCH_MARK, index, output.get('rc', 0)),
                     base64.b64encode((output.get('stdout') or '').encode()).decode(), BATCH_MARK + '-stderr',
                     base64.b64encode((output.get('stderr') or '').encode()).decode()]
        return {'rc': 0, 'stdout': '\r\n'.join(text), 'stderr': ''}

    def commands(self, index=0):
        """{label: argv} of the index-th script, in the order it runs them (`run <n> <label> <argv>... &`)."""
        runs = [shlex.split(line) for line in self.scripts[index].splitlines() if line.startswith('run ')]
        return {words[2]: words[3:-1] for words in runs}


def _shell(action, *answers):
    return patch.object(action, '_low_level_execute_command', side_effect=DeviceShell(*answers))


def test_gather_reads_once_and_evaluates_the_device(action_loader):
    action = make_action(action_loader, 'aifabric.fabric.validate_gather', {})
    states = scenario_states('healthy')
    with _shell(action, _outputs(states, 'leaf001')) as shell, patch.object(action, '_execute_module') as module:
        result = action.run(task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'leaf001'})
    assert result['settled'] and result['attempts'] == 1 and result['changed'] is False
    # bfd: the BFD sessions explain a BGP session that BFD took down (issue 24 item 7)
    assert set(result['state']) == {'bgp_summary', 'evpn_vni', 'bgp_evpn_vni', 'evpn_type3', 'interfaces', 'lldp', 'bfd',
                                    'routes'}
    assert set(shell.side_effect.commands()) == set(result['state'])  # one shell script read them all, no module ran
    assert shell.call_count == 1 and shell.call_args.args == ('/bin/sh',) and not module.called


def test_gather_on_a_host_plans_pings_rnic_facts_and_one_counter_reading(action_loader):
    action = make_action(action_loader, 'aifabric.fabric.validate_gather', {'settle_timeout': 0})
    states = scenario_states('healthy')
    rnic = {'ansible_facts': {'aifabric_rnic': {'not_applicable': 'not applicable: no RDMA device', 'interfaces': {},
                                                'devices': {}, 'errors': []}}}
    with _shell(action, _outputs(states, 'gpu0001')) as shell, \
            patch.object(action, '_execute_module', side_effect=[rnic, rnic]) as execute:
        result = action.run(task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'gpu0001'})
    commands = shell.side_effect.commands()
    assert commands['jumbo:eth1:10.100.0.11'] == ['ping', '-n', '-c', '3', '-i', '0.2', '-W', '2', '-I', 'eth1',
                                                  '-M', 'do', '-s', '8972', '10.100.0.11']
    assert commands['ping:eth1:10.100.0.11'][-1] == '10.100.0.11'
    calls = [(call.kwargs['module_name'], call.kwargs['module_args'].get('gather')) for call in execute.call_args_list]
    assert calls == [('aifabric.fabric.rnic_facts', ['devices', 'qos', 'ecn', 'pause', 'traffic_class', 'rdma_cm']),
                     ('aifabric.fabric.rnic_facts', ['devices', 'counters'])]
    state = result['state']
    assert state['rnic']['not_applicable'].startswith('not applicable') and result['settled']
    assert 'counters.2' not in state and set(state['_times']) == {'counters'} and result['platform'] == 'host'


def test_gather_without_counters_reads_no_counter(action_loader):
    """The deploy's health gate judges the fabric checks: `counters: false` leaves the counter reading out."""
    action = make_action(action_loader, 'aifabric.fabric.validate_gather', {'settle_timeout': 0, 'counters': False})
    states = scenario_states('healthy')
    rnic = {'ansible_facts': {'aifabric_rnic': {'not_applicable': 'not applicable: no RDMA device', 'interfaces': {},
                                                'devices': {}, 'errors': []}}}
    with _shell(action, _outputs(states, 'gpu0001')), patch.object(action, '_execute_module', side_effect=[rnic]) as execute:
        result = action.run(task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'gpu0001'})
    calls = [(call.kwargs['module_name'], call.kwargs['module_args'].get('gather')) for call in execute.call_args_list]
    assert calls == [('aifabric.fabric.rnic_facts', ['devices', 'qos', 'ecn', 'pause', 'traffic_class', 'rdma_cm'])]
    assert 'counters' not in result['state'] and '_times' not in result['state'] and result['settled']


def test_gather_reads_the_counters_twice_health_interval_apart(action_loader):
    action = make_action(action_loader, 'aifabric.fabric.validate_gather', {'health_interval': 7, 'rnic': True})
    states = scenario_states('healthy')
    first, second = json.loads(read_rnic('ofed_lossless')), json.loads(read_rnic('ofed_lossless'))
    second['interfaces']['eth1']['counters']['per_priority']['3']['tx_pause'] += 7000
    answers = [{'ansible_facts': {'aifabric_rnic': first}}, {'ansible_facts': {'aifabric_rnic': first}},
               {'ansible_facts': {'aifabric_rnic': second}}]
    clock = iter([1000.0, 1000.5, 1007.0])
    with _shell(action, _outputs(states, 'gpu0001')), patch.object(action, '_execute_module', side_effect=answers), \
            patch('time.sleep') as sleep, \
            patch('time.time', side_effect=lambda: next(clock)):
        result = action.run(task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'gpu0001'})
    assert sleep.call_args.args[0] == pytest.approx(6.5)
    state = result['state']
    assert state['_times'] == {'counters': 1000.0, 'counters.2': 1007.0}
    assert state['counters'] is first and state['counters.2'] is second


def test_gather_reads_the_state_inside_the_counters_window(action_loader):
    """The first counter reading comes with the device's first reading, so a server that settles at once waits only
    what is left of the interval after its state was read (DeviceReading.counts_first)."""
    action = make_action(action_loader, 'aifabric.fabric.validate_gather', {'health_interval': 7, 'rnic': True})
    states = scenario_states('healthy')
    facts = {'ansible_facts': {'aifabric_rnic': json.loads(read_rnic('ofed_lossless'))}}
    clock = iter([1000.0, 1004.0, 1007.0])
    with _shell(action, _outputs(states, 'gpu0001')), \
            patch.object(action, '_execute_module', side_effect=[facts, facts, facts]) as execute, \
            patch('time.sleep') as sleep, patch('time.time', side_effect=lambda: next(clock)):
        result = action.run(task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'gpu0001'})
    gathered = [call.kwargs['module_args'].get('gather') for call in execute.call_args_list]
    assert gathered[0] == gathered[2] != gathered[1]  # counters, the state (with the NIC's facts), counters again
    assert sleep.call_args.args[0] == pytest.approx(3.0)  # 7 s from the first count, 4 of them spent reading
    assert result['state']['_times'] == {'counters': 1000.0, 'counters.2': 1007.0}


def test_gather_does_not_wait_on_a_server_without_rdma(action_loader):
    action = make_action(action_loader, 'aifabric.fabric.validate_gather', {'health_interval': 30})
    none = {'ansible_facts': {'aifabric_rnic': {'not_applicable': 'not applicable: no RDMA device', 'interfaces': {},
                                                'devices': {}, 'errors': []}}}
    states = scenario_states('healthy')
    with _shell(action, _outputs(states, 'gpu0001')), patch.object(action, '_execute_module', side_effect=[none, none]), \
            patch('time.sleep') as sleep:
        result = action.run(task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'gpu0001'})
    assert not sleep.called and 'counters.2' not in result['state'] and result['state']['counters'] == none[
        'ansible_facts']['aifabric_rnic']


def test_gather_refuses_a_negative_health_interval(action_loader):
    from ansible.errors import AnsibleActionFail
    with pytest.raises(AnsibleActionFail, match='health_interval must be 0'):
        make_action(action_loader, 'aifabric.fabric.validate_gather', {'health_interval': -1}).run(
            task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'gpu0001'})


@pytest.mark.parametrize('option, value, words', [
    ('processes', -1, 'processes must be 0 (one per CPU core, at most one per 256 devices) or a number of reader '
                      'processes, got -1'),
    ('concurrency', 0, 'concurrency must be 1 or more devices in flight, got 0')])
def test_gather_refuses_a_fleet_setting_out_of_range_naming_it(action_loader, option, value, words):
    from ansible.errors import AnsibleActionFail
    with pytest.raises(AnsibleActionFail) as refused:
        make_action(action_loader, 'aifabric.fabric.validate_gather', {option: value, 'devices': ['leaf001']}).run(
            task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'leaf001'})
    assert str(refused.value) == words


def test_gather_settles_until_the_device_checks_pass(action_loader):
    action = make_action(action_loader, 'aifabric.fabric.validate_gather', {'settle_timeout': 60, 'settle_interval': 1})
    broken, healthy = scenario_states('link_down'), scenario_states('healthy')
    answers = [_outputs(broken, 'leaf001'), _outputs(broken, 'leaf001'), _outputs(healthy, 'leaf001')]
    with _shell(action, *answers), patch('time.sleep') as sleep:
        result = action.run(task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'leaf001'})
    assert result['attempts'] == 3 and result['settled'] and sleep.call_count == 2


def test_gather_gives_up_after_the_settle_timeout(action_loader):
    action = make_action(action_loader, 'aifabric.fabric.validate_gather', {'settle_timeout': 0})
    broken = scenario_states('link_down')
    with _shell(action, _outputs(broken, 'leaf001')):
        result = action.run(task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'leaf001'})
    assert result['attempts'] == 1 and not result['settled'] and result['summary']['fail'] > 0


def test_gather_reports_a_failed_read(action_loader):
    from ansible.errors import AnsibleActionFail
    action = make_action(action_loader, 'aifabric.fabric.validate_gather', {})
    with patch.object(action, '_low_level_execute_command', return_value={
            'rc': 125, 'stdout': '', 'stderr': 'mktemp: failed to create directory via template'}):
        with pytest.raises(AnsibleActionFail, match='leaf001: reading its state failed: the script exited with rc 125: mktemp: failed'):
            action.run(task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'leaf001'})
    with pytest.raises(AnsibleActionFail, match='not a device of fabric capture'):
        make_action(action_loader, 'aifabric.fabric.validate_gather', {}).run(
            task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'leaf042'})


def test_gather_runs_the_script_on_stdin_with_the_task_environment(action_loader):
    """The play's `environment:` reaches the commands as it reaches a module (Ansible's own environment string
    before the interpreter); a connection that cannot take a script on stdin is refused, naming it."""
    from ansible.errors import AnsibleActionFail
    action = make_action(action_loader, 'aifabric.fabric.validate_gather', {'settle_timeout': 0})
    with _shell(action, _outputs(scenario_states('healthy'), 'leaf001')) as shell, \
            patch.object(action, '_compute_environment_string', return_value="PATH='/opt/frr bin:/usr/bin'"):
        action.run(task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'leaf001'})
    assert shell.call_args.args == ("PATH='/opt/frr bin:/usr/bin' /bin/sh",)
    assert shell.call_args.kwargs['in_data'].startswith(b'd=$(mktemp -d)')
    action = make_action(action_loader, 'aifabric.fabric.validate_gather', {})
    action._connection.has_pipelining, action._connection.transport = False, 'ansible.netcommon.network_cli'
    with pytest.raises(AnsibleActionFail, match='leaf001: reading its state failed: connection ansible.netcommon.network_cli cannot pass a script'):
        action.run(task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'leaf001'})


# --------------------------------------------------------------------------- the command batch (one shell per reading)
def run_batch(commands, timeout=5, parallel=8):
    """command_batch's script through a real /bin/sh on stdin (as the action runs it), parsed by batch_outputs."""
    started = time.monotonic()
    proc = subprocess.run(['/bin/sh'], input=command_batch(commands, timeout, parallel) + ' && sleep 0',
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    return batch_outputs(commands, timeout, proc.stdout), time.monotonic() - started


def test_command_batch_runs_every_command_in_one_shell_and_keeps_each_output_apart(tmp_path):
    hostile = '$(touch %s/injected); echo x; `id`' % tmp_path
    outputs, _seconds = run_batch([
        ('echo', ['sh', '-c', 'echo out; echo err >&2; exit 3']),
        ('missing', ['/nonexistent/tool']),
        ('slow', ['sleep', '5']),
        ('marker:eth1 10.0.0.1', ['printf', '%s 0\\n\\xff\\n', BATCH_MARK + ' echo']),  # looks like a frame, and not UTF-8
        ('literal', ['echo', hostile, 'a\nb']),
        ('empty', ['true']),
    ], timeout=1)
    assert (outputs['echo']['rc'], outputs['echo']['stdout'], outputs['echo']['stderr']) == (3, 'out', 'err')
    assert outputs['missing']['rc'] == 127 and 'No such file' in outputs['missing']['stderr']
    assert outputs['slow']['rc'] == 124 and outputs['slow']['stderr'] == 'timed out after 1 s'
    assert outputs['marker:eth1 10.0.0.1']['stdout'] == BATCH_MARK + ' echo 0\n\ufffd' and outputs['marker:eth1 10.0.0.1']['rc'] == 0
    assert outputs['literal']['stdout'] == hostile + ' a\nb' and not (tmp_path / 'injected').exists()
    assert outputs['empty'] == {'cmd': ['true'], 'rc': 0, 'stdout': '', 'stderr': ''}
    assert outputs['echo']['cmd'] == ['sh', '-c', 'echo out; echo err >&2; exit 3']


def test_command_batch_runs_at_most_parallel_commands_at_once():
    commands = [('nap%d' % index, ['sleep', '0.4']) for index in range(4)]
    outputs, seconds = run_batch(commands, parallel=2)
    assert seconds >= 0.8 and all(output['rc'] == 0 for output in outputs.values())


def test_command_batch_output_cut_short_names_what_is_missing():
    outputs = batch_outputs([('a', ['true']), ('b', ['true'])], 5, BATCH_MARK + ' 0 0\n\n%s-stderr\n' % BATCH_MARK)
    assert outputs['a']['rc'] == 0
    assert outputs['b'] == {'cmd': ['true'], 'rc': None, 'stdout': '', 'stderr': 'no result (the reading was cut short)'}
    garbled = '\n'.join([BATCH_MARK, BATCH_MARK + ' 0 0', 'b3V0', 'sudo: a warning!', BATCH_MARK + '-stderr', ''])
    assert batch_outputs([('a', ['true'])], 5, garbled)['a'] == {'cmd': ['true'], 'rc': None, 'stdout': '',
                                                                 'stderr': 'garbled result (not base64)'}


# --------------------------------------------------------------------------- reports, textfile, ANTA catalog
def test_reports_prometheus_textfile_and_nothing_checked(action_loader, tmp_path):
    from prometheus_client.parser import text_string_to_metric_families
    action = make_action(action_loader, 'aifabric.fabric.validate', {'output_dir': str(tmp_path)})
    result = action.run(task_vars=gathered_vars('healthy'))
    prom = result['report']['prometheus']
    assert prom == str(tmp_path / 'aifabric-capture.prom')
    names = {family.name for family in text_string_to_metric_families(open(prom, encoding='utf-8').read())}
    assert {'aifabric_validation_ok', 'aifabric_validation_results'} <= names
    assert 'anta_catalog' not in result['report']  # no EOS switch in this fabric
    textfile = tmp_path / 'textfile' / 'aifabric.prom'
    action = make_action(action_loader, 'aifabric.fabric.validate', {'prometheus_file': str(textfile)})
    assert action.run(task_vars=gathered_vars('healthy'))['report'] == {'prometheus': str(textfile)}
    assert textfile.read_text().startswith('# HELP ')
    from ansible.errors import AnsibleActionFail
    with pytest.raises(AnsibleActionFail, match='must end in .prom'):
        make_action(action_loader, 'aifabric.fabric.validate', {'prometheus_file': str(tmp_path / 'x.txt')}).run(
            task_vars=gathered_vars('healthy'))
    # pre-deploy on the FRR capture fabric: nothing can be checked, and the task says so without passing
    action = make_action(action_loader, 'aifabric.fabric.validate', {'gathered': False})
    result = action.run(task_vars=gathered_vars('healthy'))
    assert not result.get('failed') and result['summary']['verdict'] == 'NOTHING CHECKED' and not result['summary']['ok']
    assert result['msg'].startswith('Validation checked NOTHING for fabric capture') and 'this is not a pass' in result['msg']


def test_health_thresholds_are_validated_before_anything_is_judged(action_loader):
    from ansible.errors import AnsibleActionFail
    bad = {'pause_rate_max': -5, 'nonsense': 1, 'rdma_errors_max': {'out_of_sequence': 'x', 'made_up': 0}}
    with pytest.raises(AnsibleActionFail) as raised:
        make_action(action_loader, 'aifabric.fabric.validate', {'health_thresholds': bad}).run(
            task_vars=gathered_vars('healthy'))
    message = str(raised.value)
    for fragment in ('validate_health_thresholds.pause_rate_max must be a number >= 0 (per second), got -5',
                     'validate_health_thresholds.nonsense is not a threshold',
                     "validate_health_thresholds.rdma_errors_max.out_of_sequence must be a number >= 0, got 'x'",
                     'validate_health_thresholds.rdma_errors_max.made_up is not an RDMA error counter'):
        assert fragment in message


def test_judging_processes_out_of_range_are_refused_naming_the_option(action_loader):
    from ansible.errors import AnsibleActionFail
    with pytest.raises(AnsibleActionFail) as refused:
        make_action(action_loader, 'aifabric.fabric.validate', {'processes': -2}).run(task_vars=gathered_vars('healthy'))
    assert str(refused.value) == ('processes must be 0 (one per CPU core, at most one per 256 devices) or a number of '
                                  'judging processes, got -2')


def test_a_run_judged_in_processes_reports_what_one_process_reports(action_loader, tmp_path):
    """The validate action with processes 2 and 1 on the same readings (a fault on one leaf): the same verdict,
    causes, failures and report.json but for its time stamps."""
    found = {}
    for processes in (1, 2):
        out = tmp_path / str(processes)
        result = make_action(action_loader, 'aifabric.fabric.validate', {
            'processes': processes, 'output_dir': str(out), 'fail': False}).run(task_vars=gathered_vars('link_down'))
        with open(out / 'report.json', encoding='utf-8') as handle:
            report = json.load(handle)
        found[processes] = (result['summary'], result['causes'], result['failures'], report['results'],
                            report['summary'])
    assert found[1][0]['failed'] > 0 and found[1][1]
    assert found[2] == found[1]


def test_a_fleet_reading_is_judged_from_its_file_in_processes_with_its_saved_design_sides(
        action_loader, tmp_path, monkeypatch):
    """After a fleet reading (validate_fleet: its spool file, the design sides it saved beside it), the validate
    action takes the readings in 1 or 2 processes and uses the saved sides instead of starting a child of its own:
    the same verdict, causes, failures and report.json as from the per-host readings."""
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import sides
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks.gathered import write_gathered
    monkeypatch.setattr(sides, 'AHEAD_MIN_SWITCHES', 1)
    design = design_from_file(INTENT)
    per_host = gathered_vars('link_down')
    spool = write_gathered(str(tmp_path / 'gathered' / 'leaf001.json'), design.name,
                           {name: per_host['hostvars'][name]['validate_gathered'] for name in DEVICES})
    names = sides.design_side_names(design, list(DEVICES))
    saved = sides.DesignSidesAhead(INTENT, names, nice=True).save(spool + '.sides')
    monkeypatch.setattr(sides, '_CHILD', 'import sys; sys.exit(3)')  # a child the judging step started gives nothing
    installed = []
    install = sides.DesignSidesAhead.install
    monkeypatch.setattr(sides.DesignSidesAhead, 'install', lambda self, ctx: installed.append(install(self, ctx)))
    found = {}
    for run, processes in (('per host', 1), ('fleet', 1), ('fleet', 2)):
        out = tmp_path / ('%s-%d' % (run, processes))
        task_vars = copy.deepcopy(per_host)
        if run == 'fleet':
            for name in DEVICES:
                del task_vars['hostvars'][name]['validate_gathered']
            task_vars['validate_fleet'] = {'spool': spool, 'design_sides': saved}
        result = make_action(action_loader, 'aifabric.fabric.validate', {
            'processes': processes, 'output_dir': str(out), 'fail': False, 'devices': list(DEVICES)}).run(
                task_vars=task_vars)
        with open(out / 'report.json', encoding='utf-8') as handle:
            report = json.load(handle)
        found[(run, processes)] = (result['summary'], result['causes'], result['failures'], report['results'],
                                   report['summary'])
    assert found[('per host', 1)][0]['failed'] > 0 and found[('per host', 1)][1]
    assert found[('fleet', 1)] == found[('per host', 1)] and found[('fleet', 2)] == found[('per host', 1)]
    assert installed == [0, len(names), len(names)]  # the per-host run's own child gave nothing; the fleet's were saved


def test_eos_fabric_gets_anta_results_and_the_catalog_file(action_loader, tmp_path):
    import yaml
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import anta_catalog
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.gatherer import command_key
    from tests.unit.plugins.plugin_utils.fabric.state.captures import FIXTURES, eos_raw
    intent = os.path.join(FIXTURES, '..', 'intents', 'eos_small.yml')
    design = design_from_file(intent)
    ctx = checks.Context(design)
    state = eos_raw(design.device('leaf001'))
    state['anta'] = {command_key(command): json.loads(read_recorded('eos', '4.32', 'leaf001', command['cmd'].replace(' ', '_') + '.json'))
                     for command in anta_catalog.eapi_commands(ctx, ctx.model('leaf001'))}
    task_vars = {'hostvars': {'leaf001': {'aifabric_intent': intent, 'validate_gathered': {'state': state}}},
                 'ansible_play_hosts_all': ['leaf001']}
    action = make_action(action_loader, 'aifabric.fabric.validate',
                         {'output_dir': str(tmp_path), 'checks': ['anta'], 'fail': False})
    result = action.run(task_vars=task_vars)
    assert result['summary']['passed'] == 8 and result['summary']['ok']
    catalog = yaml.safe_load(open(result['report']['anta_catalog'], encoding='utf-8'))
    assert catalog['anta.tests.vxlan'][2]['VerifyVxlanVtep'] == {'vteps': ['10.254.16.3'], 'filters': {'tags': ['leaf001']}}
    assert 'anta nrfu --catalog anta-catalog.yml' in open(result['report']['anta_catalog'], encoding='utf-8').read()


# --------------------------------------------------------------------------- convergence (issue 23 item 15)
class Clock:
    """time.monotonic and time.sleep of a run whose readings take no time."""

    def __init__(self):
        self.now = 1000.0

    def monotonic(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds


def _gather(action_loader, args, answers):
    action = make_action(action_loader, 'aifabric.fabric.validate_gather', args)
    clock = Clock()
    with _shell(action, *answers), patch('time.sleep', clock.sleep), patch('time.monotonic', clock.monotonic):
        return action.run(task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'leaf001'})


def test_gather_stops_once_the_failures_stay_the_same_instead_of_waiting_out_the_deadline(action_loader):
    broken = _outputs(scenario_states('link_down'), 'leaf001')
    result = _gather(action_loader, {'settle_timeout': 60, 'settle_interval': 5, 'settle_stable': 10}, [broken] * 13)
    assert result['attempts'] == 3 and not result['settled']  # read at 0, 5 and 10 s: the same failures for 10 s
    assert result['convergence'] == {'outcome': 'stable', 'deadline': 60, 'reads': 3, 'seconds': 10.0, 'unchanged_for': 10.0,
                                     'steady': []}


def test_settling_compares_facts_not_words():
    """Settling compares what fails, as parsed facts: a ping's "no reply" and "destination host unreachable" are one
    fault seen at two moments of the kernel's ARP state, and lldpcli's error without lldpd carries a time stamp that
    differs at every reading (issue 36: a stopped lldpd read as NOT CONVERGED); a BGP session from Active to Connect
    is a session still moving."""
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks.live import fingerprint as _fingerprint

    def reading(device, change):
        states = copy.deepcopy(scenario_states('healthy'))
        change(states[device])
        ctx = checks.Context(design_from_file(INTENT), states)
        return [item for item in checks.run(ctx, devices=[device], categories=('fabric',), local_only=True)
                if item.status in (checks.FAIL, checks.ERROR)]

    def ping(reason):
        def change(raw):
            raw['jumbo:eth1:10.100.0.11'] = dict(raw['jumbo:eth1:10.100.0.11'], rc=1, stdout=(
                'PING 10.100.0.11 (10.100.0.11) from 10.100.0.10 eth1: 8972(9000) bytes of data.\n%s\n\n--- 10.100.0.11 '
                'ping statistics ---\n3 packets transmitted, 0 received,%s 100%% packet loss, time 2041ms\n') % (
                    reason[0], reason[1]))
        return change

    def lldpd_down(stamp):
        def change(raw):
            raw['lldp'] = {'rc': 1, 'stdout': '', 'stderr': '%s [WARN/control] unable to connect to socket '
                           '/run/lldpd.socket: No such file or directory' % stamp}
        return change

    def bgp(state):
        def change(raw):
            data = json.loads(raw['bgp_summary']['stdout'])
            for afi in data['default'].values():
                for peer in afi['peers'].values():
                    peer['state'] = state
            raw['bgp_summary'] = dict(raw['bgp_summary'], stdout=json.dumps(data))
        return change

    silent = reading('gpu0001', ping(('', '')))
    arp = reading('gpu0001', ping(('From 10.100.0.10 icmp_seq=1 Destination Host Unreachable', ' +3 errors,')))
    assert silent and silent[0].seen != arp[0].seen and _fingerprint(silent) == _fingerprint(arp)
    first, second = reading('leaf001', lldpd_down('2026-12-02T01:10:45')), reading('leaf001', lldpd_down('2026-12-02T01:10:50'))
    assert first and {item.status for item in first} == {checks.FAIL}  # a fact about the device, not an error
    assert _fingerprint(first) == _fingerprint(second)
    assert _fingerprint(reading('leaf001', bgp('Active'))) != _fingerprint(reading('leaf001', bgp('Connect')))


def test_gather_at_the_deadline_tells_still_changing_from_wrong(action_loader):
    states = [_outputs(scenario_states(name), 'leaf001') for name in ('link_down', 'bgpd_stopped')]
    result = _gather(action_loader, {'settle_timeout': 20, 'settle_interval': 5, 'settle_stable': 10}, states * 3)
    assert result['attempts'] == 5 and result['convergence']['outcome'] == 'changing'  # bounded by the deadline
    assert result['convergence']['seconds'] == 20.0
    result = _gather(action_loader, {'settle_timeout': 20, 'settle_interval': 5}, [states[0]] * 5)
    assert result['attempts'] == 5 and result['convergence']['outcome'] == 'stable'
    with pytest.raises(Exception, match='settle_timeout and settle_stable are seconds'):
        _gather(action_loader, {'settle_stable': -1}, [states[0]])


def test_validate_says_not_converged_apart_from_wrong(action_loader):
    task_vars = gathered_vars('link_down')
    task_vars['hostvars']['leaf001']['validate_gathered'].update(
        convergence={'outcome': 'changing', 'seconds': 60.0, 'reads': 13, 'deadline': 60}, seconds=60.0, attempts=13)
    result = make_action(action_loader, 'aifabric.fabric.validate', {}).run(task_vars=task_vars)
    assert result['failed'] and result['summary']['verdict'] == 'NOT CONVERGED' and result['summary']['causes'] == 1
    assert 'NOT CONVERGED' in result['msg'] and 'leaf001 had not converged' in result['msg']
    task_vars['hostvars']['leaf001']['validate_gathered']['convergence']['outcome'] = 'stable'
    result = make_action(action_loader, 'aifabric.fabric.validate', {}).run(task_vars=task_vars)
    assert result['summary']['verdict'] == 'FAILED' and result['causes'] == [
        'leaf001 eth2 is admin down -> 13 consequences (1 BGP session down)']


def test_a_steady_failure_on_a_device_still_changing_is_a_finding_not_convergence(action_loader):
    """A device still changing at its deadline (its BGP sessions come and go) may also hold a failure that every
    reading saw the same (an interface admin down): that one is a cause of its own, and only what changed folds
    under "had not converged" (the lab's vxlan_mtu fault on a leaf whose BFD session flapped under load was named
    not converged)."""
    down = _outputs(scenario_states('link_down'), 'leaf001')
    flapping = dict(down, bgp_summary=_outputs(scenario_states('bgpd_stopped'), 'leaf001')['bgp_summary'])
    gathered = _gather(action_loader, {'settle_timeout': 20, 'settle_interval': 5, 'settle_stable': 10},
                       [down, flapping] * 3)
    assert gathered['convergence']['outcome'] == 'changing'
    assert any(key.startswith('interface_state ') for key in gathered['convergence']['steady'])
    assert not any(key.startswith('bgp_session ') for key in gathered['convergence']['steady'])
    task_vars = gathered_vars('link_down')
    task_vars['hostvars']['leaf001']['validate_gathered'] = dict(gathered, state=scenario_states('link_down')['leaf001'])
    result = make_action(action_loader, 'aifabric.fabric.validate', {}).run(task_vars=task_vars)
    assert result['summary']['verdict'] == 'FAILED', result['msg']
    assert any(cause.startswith('leaf001 eth2 is admin down') for cause in result['causes']), result['causes']


def test_the_message_leads_with_the_causes_and_ends_with_the_report(action_loader, tmp_path):
    result = make_action(action_loader, 'aifabric.fabric.validate', {'output_dir': str(tmp_path)}).run(
        task_vars=gathered_vars('link_down'))
    lines = result['msg'].splitlines()
    assert lines[0].startswith('Validation FAILED for fabric capture: 1 cause; ')
    assert lines[1] == 'Causes (1), each with what follows from it:'
    assert lines[2] == '1. leaf001 eth2 is admin down -> 13 consequences (1 BGP session down)'
    assert lines.index('Failed checks (14):') > 2 and lines[-1] == 'report: %s' % (tmp_path / 'report.md')
    assert result['blamed'] == ['leaf001'] and result['device_causes'] == {'leaf001': [lines[2][3:]]}
    meta = json.loads((tmp_path / 'report.json').read_text())['meta']
    assert meta['run_seconds'] >= meta['judging_seconds'] and meta['timing'].startswith('%.1f s wall' % meta['run_seconds'])


def test_gather_returns_no_password_hash(action_loader):
    """Raw state is returned (and printed at -v): a running configuration that carries the switch users' hashes (EOS
    `secret sha512`, NVUE `hashed-password`) comes back with the hashes masked."""
    action = make_action(action_loader, 'aifabric.fabric.validate_gather', {})
    outputs = _outputs(scenario_states('healthy'), 'leaf001')
    digest = '$6$unitsalt$' + 'b' * 86
    outputs['interfaces'] = dict(outputs['interfaces'], stderr='username admin secret sha512 %s' % digest)
    with _shell(action, outputs):
        result = action.run(task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'leaf001'})
    text = json.dumps(result)
    assert digest not in text and '$6$' not in text
    assert 'username admin secret sha512 <password hash>' in text


# -- the deploy's health gate: `deployed` and unreadable devices ----------------------------------------------------
@pytest.mark.parametrize('deployed, settled', [(['leaf001'], True), (['leaf001', 'leaf002'], True),
                                               (['leaf001', 'leaf002', 'spine001'], False)])
def test_gate_counts_the_failed_checks_towards_deployed_devices(action_loader, deployed, settled):
    """link_down: leaf001's uplink eth2 to spine001 is down (its session, LLDP and the VTEP of leaf002 behind it
    fail). With nothing passed before (must_pass: []), the gate still fails on the checks about leaf001 and its
    deployed direct neighbours (an interface names its peer in the design): they count once spine001 is deployed.
    leaf002's VTEP is further away: it also needs the spines between them, so deploying leaf002 alone (the leaves
    of a rail in one batch, the spines later) does not make it count."""
    action = make_action(action_loader, 'aifabric.fabric.validate_gather', {'must_pass': [], 'deployed': deployed})
    states = scenario_states('link_down')
    with _shell(action, _outputs(states, 'leaf001')):
        result = action.run(task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'leaf001'})
    assert result['settled'] is settled
    if not settled:
        assert {'bgp_session 10.0.0.0 spine001', 'interface_state eth2', 'lldp_neighbor eth2'} <= set(result['open_checks'])


def test_gate_reads_an_unreachable_device_again_until_the_time_is_up(action_loader):
    """Unreachable on the first reading (Ansible's connection failed): read again, and it settles on the second."""
    from ansible.errors import AnsibleConnectionFailure
    action = make_action(action_loader, 'aifabric.fabric.validate_gather', {'settle_timeout': 30, 'settle_interval': 1})
    states = scenario_states('healthy')
    with _shell(action, AnsibleConnectionFailure('ssh: exit 255'), _outputs(states, 'leaf001')):
        result = action.run(task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'leaf001'})
    assert result['settled'] and result['attempts'] == 2


def test_gate_reports_a_device_that_stays_unreachable_as_unreadable(action_loader):
    from ansible.errors import AnsibleConnectionFailure
    action = make_action(action_loader, 'aifabric.fabric.validate_gather', {'settle_timeout': 0})
    with _shell(action, AnsibleConnectionFailure('ssh: exit 255')):
        result = action.run(task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'leaf001'})
    assert not result['settled'] and 'leaf001 is unreachable' in result['state']['_error']


def _drift_results(action_loader, task_vars, directory):
    """{device: its config_drift result in report.json} of the validate action on these variables."""
    make_action(action_loader, 'aifabric.fabric.validate', {'fail': False, 'output_dir': str(directory)}).run(
        task_vars=task_vars)
    report = json.loads((directory / 'report.json').read_text())
    return {item['device']: item for item in report['results'] if item['check'] == 'config_drift'}


def test_the_fleet_check_of_the_deploy_is_each_switch_drift_and_what_it_could_not_check_is_an_error(action_loader, tmp_path):
    """validate_reader fleet: the switches' drift comes from the one fleet check (validate_drift_fleet: switch_deploy
    with devices), each switch's result as the per-host task registers it; a GPU server's stays its own per host."""
    task_vars = gathered_vars('healthy')
    task_vars['validate_fleet'] = {'read': list(DEVICES), 'devices': {}}
    task_vars['validate_drift_fleet'] = {'changed': False, 'switches': {
        'leaf001': {'outcome': 'would_change', 'changed': True,
                    'would_push': '--- FRR (running)\n+++ FRR (rendered)\n-  maximum-paths 1\n+  maximum-paths 2\n'},
        'leaf002': {'outcome': 'failed', 'changed': False, 'failed': True, 'failed_step': 'connect',
                    'msg': 'leaf002: connect failed: no answer within 10 s (the per-switch deadline, option timeout)'},
        'spine001': {'outcome': 'unchanged', 'changed': False, 'would_push': ''}}}
    task_vars['hostvars']['gpu0001']['validate_drift_state'] = {
        'rails': {'changed': True, 'persisted': False, 'commands': ['link set dev eth1 mtu 9000']},
        'sysctl': {'changed': False, 'changed_keys': [], 'before': {}, 'persisted': False}}
    drift = _drift_results(action_loader, task_vars, tmp_path)
    assert {name: item['status'] for name, item in drift.items()} == {
        'leaf001': 'fail', 'leaf002': 'error', 'spine001': 'pass', 'gpu0001': 'fail', 'gpu0002': 'not_applicable'}
    assert 'maximum-paths 1' in drift['leaf001']['seen']
    assert drift['leaf002']['seen'].startswith('leaf002: connect failed: no answer within 10 s')
    assert 'ip link set dev eth1 mtu 9000' in drift['gpu0001']['seen']


def test_a_fleet_check_that_failed_as_a_whole_is_an_error_on_every_switch_the_fleet_read(action_loader, tmp_path):
    task_vars = gathered_vars('healthy')
    task_vars['validate_fleet'] = {'read': list(DEVICES), 'devices': {}}
    # failed_when: false keeps the run going; the registered result has no switch of its own
    task_vars['validate_drift_fleet'] = {'changed': False, 'failed': False, 'failed_when_result': False,
                                         'msg': 'Not switches of fabric capture: leaf009'}
    drift = _drift_results(action_loader, task_vars, tmp_path / 'whole')
    assert {name: item['status'] for name, item in drift.items() if not name.startswith('gpu')} == {
        'leaf001': 'error', 'leaf002': 'error', 'spine001': 'error'}
    assert 'leaf001: the fleet check of the deploy failed: Not switches of fabric capture: leaf009' in drift[
        'leaf001']['seen']
    # not run at all (validate_drift false, or skipped): no drift read, as per host
    task_vars['validate_drift_fleet'] = {'skipped': True, 'changed': False}
    drift = _drift_results(action_loader, task_vars, tmp_path / 'skipped')
    assert {item['status'] for item in drift.values()} == {'not_applicable'}


@pytest.mark.parametrize('scenario', ['healthy', 'host_mtu_1500'])
def test_the_design_phase_made_ahead_judges_the_same(action_loader, tmp_path, monkeypatch, scenario):
    """The lossless design phase made by a child process while the readings are taken (sides.DesignSidesAhead) gives
    the report the judging step gives without it."""
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import sides
    installed = []
    install = sides.DesignSidesAhead.install
    monkeypatch.setattr(sides.DesignSidesAhead, 'install', lambda self, ctx: installed.append(install(self, ctx)) or
                        installed[-1])
    reports = []
    for threshold in (10 ** 6, 1):
        monkeypatch.setattr(sides, 'AHEAD_MIN_SWITCHES', threshold)
        out = tmp_path / str(threshold)
        make_action(action_loader, 'aifabric.fabric.validate', {'output_dir': str(out), 'fail': False}).run(
            task_vars=gathered_vars(scenario))
        report = json.loads((out / 'report.json').read_text())
        reports.append({key: value for key, value in report.items() if key != 'meta'})
    assert installed == [0, 3]  # the capture fabric's 3 switches, given by the child the second time
    assert reports[0] == reports[1]


@pytest.mark.parametrize('seed', range(5))
def test_a_fleet_reading_takes_its_devices_in_one_order_whatever_order_they_come_in(action_loader, seed):
    """The role's list of devices comes from Ansible's intersect (a set: its order changes from run to run): the
    fleet reads them once each, in an order of their names alone, the tiers mixed (not every switch of the top tier
    first)."""
    import random
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import live
    design = design_from_file(INTENT)
    chosen = random.Random(seed).sample(list(design.nodes), k=len(design.nodes) - 2)
    given = chosen + chosen[:3]  # and some twice
    random.Random(seed + 100).shuffle(given)
    seen = []

    async def read_fleet(_design, devices, *_args, **_kwargs):
        seen.append(list(devices))
        return {'devices': {}, 'per_host': {}}

    with patch.object(live, 'read_fleet', read_fleet):
        make_action(action_loader, 'aifabric.fabric.validate_gather', {'devices': given}).run(
            task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'localhost', 'hostvars': {}})
    again = list(dict.fromkeys(given))
    random.Random(seed + 200).shuffle(again)
    with patch.object(live, 'read_fleet', read_fleet):
        make_action(action_loader, 'aifabric.fabric.validate_gather', {'devices': again}).run(
            task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'localhost', 'hostvars': {}})
    assert seen[0] == seen[1] and sorted(seen[0]) == sorted(chosen)


@pytest.mark.parametrize('tiers', [(16, 32, 64, 256), (4, 64, 128, 1024), (256, 512, 512, 2048)])
def test_the_fleets_reading_order_mixes_the_tiers_all_along(tiers):
    """Every tenth of the reading holds devices of every tier of 100 devices or more (and so of every platform such a
    tier has), whatever the names' order: not every super-spine first, then every spine."""
    from ansible_collections.aifabric.fabric.plugins.action.validate_gather import _in_reading_order
    prefixes = ('superspine', 'spine', 'leaf', 'gpu')
    names = ['%s%04d' % (prefix, index) for prefix, count in zip(prefixes, tiers) for index in range(1, count + 1)]
    ordered = _in_reading_order(names)
    assert sorted(ordered) == sorted(names) and _in_reading_order(list(reversed(names))) == ordered
    tenth = len(ordered) // 10
    for start in range(0, 10 * tenth, tenth):
        found = {name.rstrip('0123456789') for name in ordered[start:start + tenth]}
        assert found >= {prefix for prefix, count in zip(prefixes, tiers) if count >= 100}, (start, found)


@pytest.mark.parametrize('error, words', [
    ('FleetReadError', 'The fleet reading failed: reader process 1: OSError: disk full'),
    ('KeyboardInterrupt', None)])
def test_a_fleet_reading_that_fails_stops_the_design_sides_and_says_why(action_loader, tmp_path, error, words):
    """The design sides computed while the fleet is read are not wanted when the reading fails: the child is stopped,
    and a reader process's failure is the task's, named; anything else (an interrupt) goes on as it is."""
    from ansible.errors import AnsibleActionFail
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import live, sides
    stopped = []

    class Ahead:
        def __init__(self, *_args, **_kwargs):
            pass

        def stop(self):
            stopped.append(True)

    def read_fleet_split(*_args, **_kwargs):
        raise live.FleetReadError('reader process 1: OSError: disk full') if error == 'FleetReadError' \
            else KeyboardInterrupt()

    action = make_action(action_loader, 'aifabric.fabric.validate_gather', {
        'devices': ['leaf001', 'spine001'], 'spool': str(tmp_path / 'gathered.json'), 'design_sides': True})
    with patch.object(live, 'read_fleet_split', read_fleet_split), patch.object(sides, 'DesignSidesAhead', Ahead):
        with pytest.raises(AnsibleActionFail if words else KeyboardInterrupt) as raised:
            action.run(task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'localhost', 'hostvars': {}})
    assert stopped == [True]
    if words:
        assert str(raised.value) == words
    assert not os.path.exists(tmp_path / 'gathered.json')
