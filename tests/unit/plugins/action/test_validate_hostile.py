# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One switch's output never stops a fabric's validation, never reaches a person raw, never leaks a secret.

aifabric.fabric.validate on the captured healthy fabric, one device's output made hostile: a lone surrogate, escape
sequences, a forged line, markup, ten megabytes in an LLDP name; an output its parser trips over. The result is that
device's failure or error naming the device and the command, every other device is judged as before, the task message
and the reports hold only visible text, and the report set is written whole. A report directory that cannot be written
keeps the verdict and names the directory. validate_gather returns no secret of a running configuration.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
from tests.unit.plugins.action.test_validate import INTENT, _outputs, _shell, gathered_vars, make_action
from tests.unit.plugins.plugin_utils.fabric.state.test_hostile_outputs import _mutate_tree
from tests.unit.plugins.plugin_utils.fabric.state.captures import scenario_states
from tests.unit.utils.paths import ROOT

INVISIBLE = re.compile(r'[^\x20-\x7e\n]')  # what no message or report line may hold (the report's own newlines aside)


@pytest.fixture(scope='module')
def action_loader():
    from ansible.plugins.loader import action_loader as loader
    return loader


def _lldp_named(name, device='leaf001'):
    """The healthy scenario's hostvars, `device`'s first LLDP neighbour renamed `name` (lldpcli keys chassis by name)."""
    task_vars = gathered_vars('healthy')
    state = task_vars['hostvars'][device]['validate_gathered']['state']
    data = json.loads(state['lldp']['stdout'])
    neighbour = data['lldp']['interface'][0]
    port = next(iter(neighbour))
    chassis = neighbour[port]['chassis']
    neighbour[port]['chassis'] = {name: chassis[next(iter(chassis))]}
    state['lldp'] = dict(state['lldp'], stdout=json.dumps(data))
    return task_vars, port


def _validate(action_loader, task_vars, output_dir=None, **args):
    if output_dir:
        args['output_dir'] = str(output_dir)
    return make_action(action_loader, 'aifabric.fabric.validate', args).run(task_vars=task_vars)


def _texts(result):
    """Everything of the result a person reads: the message, each failure and cause line, the device causes."""
    return [result['msg']] + result['failures'] + result['causes'] + [
        line for lines in result['device_causes'].values() for line in lines]


HOSTILE_NAME = 'spine\udcff001\x1b]0;owned\x07\x1b[2J\r\nERROR forged line \u202e<script>alert(1)</script> l\u0430b'


def test_a_hostile_lldp_name_fails_its_device_only_and_the_reports_are_written_visible(action_loader, tmp_path):
    """The issue's lone surrogate (`spine\\udcff001`, what a JSON writer prints for an undecodable byte) failed the
    whole validation with "surrogates not allowed", leaving report.json beside an empty report.md.tmp."""
    task_vars, port = _lldp_named(HOSTILE_NAME)
    result = _validate(action_loader, task_vars, tmp_path)
    assert result['failed'] and result['summary']['verdict'] == 'FAILED'
    lldp = [line for line in result['failures'] if ' lldp_neighbor [' in line]
    assert lldp and all(line.startswith('leaf001 lldp_neighbor [%s]' % port) for line in lldp), lldp
    assert 'spine\\udcff001\\x1b]0;owned\\x07\\x1b[2J\\r\\nERROR forged line \\u202e' in lldp[0]
    for text in _texts(result):
        assert not INVISIBLE.search(text), repr(text)
    assert result['msg'].count('\n') == len(result['msg'].splitlines()) - 1
    assert not any(line.startswith('ERROR forged line') for line in result['msg'].splitlines())
    report = json.loads((tmp_path / 'report.json').read_text(encoding='utf-8'))
    judged = {item['device'] for item in report['results'] if item['status'] == 'pass'}
    assert {'gpu0001', 'gpu0002', 'leaf002', 'spine001'} <= judged  # every other device is judged
    assert any(HOSTILE_NAME in item['seen'] for item in report['results'])  # machines get the device's value whole
    markdown = (tmp_path / 'report.md').read_text(encoding='utf-8')
    page = (tmp_path / 'report.html').read_text(encoding='utf-8')
    for text in (markdown, page):
        assert not INVISIBLE.search(text), INVISIBLE.search(text)
        assert '<script>' not in text and '&lt;script&gt;' in text
    assert sorted(os.listdir(tmp_path)) == ['aifabric-capture.prom', 'report.html', 'report.json', 'report.md']


def test_a_ten_megabyte_name_stays_whole_in_report_json_only(action_loader, tmp_path):
    """Megabytes of a device value went into every report (42 MB report.json, 31 MB report.md and report.html)."""
    huge = 'spine' + 'x' * (10 * 1024 * 1024)
    task_vars, _port = _lldp_named(huge)
    result = _validate(action_loader, task_vars, tmp_path)
    assert result['failed'] and len(result['msg']) < 20000
    sizes = {name: os.path.getsize(tmp_path / name) for name in ('report.json', 'report.md', 'report.html')}
    assert sizes['report.md'] < 200000 and sizes['report.html'] < 300000, sizes
    assert len(huge) < sizes['report.json'] < 2.5 * len(huge), sizes  # the whole value, not copied in every line
    assert huge in (tmp_path / 'report.json').read_text()


def test_output_a_parser_trips_over_is_that_devices_error_naming_the_command(action_loader, tmp_path):
    """A value no parser foresaw (peers as a list of texts) raised a Python exception that ended the run."""
    task_vars = gathered_vars('healthy')
    state = task_vars['hostvars']['leaf002']['validate_gathered']['state']
    state['bgp_summary'] = dict(state['bgp_summary'], stdout=json.dumps(
        {'default': {'ipv4Unicast': {'peers': ['10.0.0.2', 'TxQ<b>3</b>'], 'as': 4200000001}}}))
    result = _validate(action_loader, task_vars, tmp_path)
    report = json.loads((tmp_path / 'report.json').read_text())
    errors = [item for item in report['results'] if item['status'] == 'error']
    assert errors and {item['device'] for item in errors} == {'leaf002'}, errors
    assert all(item['source'] == "vtysh -c 'show bgp vrf all summary json'" for item in errors), errors
    assert all('read with vtysh' in item['message'] for item in errors)
    assert any(line.startswith('ERROR leaf002 bgp_session') for line in result['failures'])
    sessions = [item for item in report['results'] if item['check'] == 'bgp_session' and item['device'] != 'leaf002']
    assert sessions and all(item['status'] == 'pass' for item in sessions
                            if 'leaf002' not in item['subject']), sessions


def test_reports_that_cannot_be_written_keep_the_verdict_and_name_the_directory(action_loader, tmp_path):
    """A full or read-only report directory lost the verdict ("[Errno 28] No space left on device", no path). Here
    the directory cannot exist (a file is where its parent should be): the same path through the file system."""
    blocker = tmp_path / 'out'
    blocker.write_text('a file, not a directory\n')
    result = _validate(action_loader, gathered_vars('healthy'), blocker / 'validation')
    assert result['failed'] and result['summary']['verdict'] == 'PASSED'
    assert result['msg'].startswith('Validation passed for fabric capture')
    assert 'The reports were not written: cannot write the reports in %s' % (blocker / 'validation') in result['msg']
    assert result['report_error'].startswith('cannot write the reports in') and 'report' not in result


def test_the_report_set_is_whole_or_not_at_all(action_loader, tmp_path):
    """A new run's files never mix with the previous run's: a file that cannot be replaced (a directory is in its
    way) stops the whole set before any file of it is replaced, and no temporary file is left."""
    _validate(action_loader, gathered_vars('healthy'), tmp_path)
    before = {name: (tmp_path / name).read_bytes() for name in ('report.json', 'report.md', 'aifabric-capture.prom')}
    (tmp_path / 'report.html').unlink()
    (tmp_path / 'report.html').mkdir()
    result = _validate(action_loader, gathered_vars('link_down'), tmp_path)
    assert result['failed'] and result['summary']['verdict'] == 'FAILED' and 'report.html' in result['report_error']
    assert {name: (tmp_path / name).read_bytes() for name in before} == before
    assert sorted(os.listdir(tmp_path)) == ['aifabric-capture.prom', 'report.html', 'report.json', 'report.md']


def test_a_write_that_fails_half_way_leaves_the_previous_set(tmp_path):
    """The kernel refuses a write past the file size limit (EFBIG, as a full disk refuses with ENOSPC) on the second
    file of the set: the first file of the set is not replaced either."""
    script = textwrap.dedent('''
        import os, resource, signal, sys
        sys.path.insert(0, %r)
        import tests.conftest  # noqa: F401  the collection's import path
        from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import report
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (100000, 100000))
        try:
            report.write_files(sys.argv[1], {'report.json': 'new\\n', 'report.md': 'x' * 200000})
        except report.ReportError as exc:
            print(exc)
    ''' % ROOT)
    (tmp_path / 'report.json').write_text('old\n')
    (tmp_path / 'report.md').write_text('old\n')
    ran = subprocess.run([sys.executable, '-c', script, str(tmp_path)], capture_output=True, text=True, check=True)
    assert ran.stdout.startswith('cannot write the reports in %s: File too large' % tmp_path), ran.stdout + ran.stderr
    assert (tmp_path / 'report.json').read_text() == 'old\n' and (tmp_path / 'report.md').read_text() == 'old\n'
    assert sorted(os.listdir(tmp_path)) == ['report.json', 'report.md']


def test_a_system_directory_keeps_the_verdict_and_says_so(action_loader):
    target = '/etc/aifabric-validation-%d' % os.getpid()
    try:
        result = _validate(action_loader, gathered_vars('healthy'), target)
        assert not os.path.exists(target)
    finally:
        shutil.rmtree(target, ignore_errors=True)  # where a regression wrote
    assert result['failed'] and result['msg'].startswith('Validation passed')
    assert 'is under /etc, a directory of the operating system' in result['report_error']


# --------------------------------------------------------------------------- secrets in what is read
SECRETS = {
    'tacacs-server host 10.1.1.1 key 7 070E33455D1D18544541': '070E33455D1D18544541',
    ' neighbor 10.0.0.1 password 7 AQQVlkDOx0u5NfrmOmlqNQ==': 'AQQVlkDOx0u5NfrmOmlqNQ==',
    'snmp-server community s3cretRO ro': 's3cretRO',
    '{"TACPLUS": {"global": {"passkey": "tacKey1"}}, "SNMP_COMMUNITY": {"c0mmun1ty": {"TYPE": "RO"}}}': 'tacKey1',
    'system:\n  aaa:\n    tacacs:\n      server:\n        5:\n          secret: mytacacskey\n': 'mytacacskey',
}


@pytest.mark.parametrize('printed, secret', SECRETS.items(), ids=list(SECRETS.values()))
def test_gather_returns_no_secret_of_what_it_read(action_loader, printed, secret):
    """What validate_gather returns is shown at -v, kept in the play's variables and read by the reports: the secret
    forms of every platform are masked where the output is read."""
    action = make_action(action_loader, 'aifabric.fabric.validate_gather', {})
    outputs = _outputs(scenario_states('healthy'), 'leaf001')
    outputs['interfaces'] = dict(outputs['interfaces'], stderr=printed)
    with _shell(action, outputs):
        result = action.run(task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'leaf001'})
    assert secret not in json.dumps(result) and '<secret>' in result['state']['interfaces']['stderr']
    assert result['summary']['error'] == 0  # the parsed state is the same: only the secret changed


def test_a_failed_read_names_the_device_with_its_stderr_visible_and_masked(action_loader):
    """The shell's own error (the script did not run) reaches the task message: escapes, a forged line and a secret
    the device printed there are not passed on."""
    from unittest.mock import patch
    from ansible.errors import AnsibleActionFail
    action = make_action(action_loader, 'aifabric.fabric.validate_gather', {})
    stderr = '\x1b]0;owned\x07mktemp: failed\r\nERROR forged line\ntacacs-server key 7 070E33455D1D18544541'
    with patch.object(action, '_low_level_execute_command', return_value={'rc': 125, 'stdout': '', 'stderr': stderr}):
        with pytest.raises(AnsibleActionFail) as failed:
            action.run(task_vars={'aifabric_intent': INTENT, 'inventory_hostname': 'leaf001'})
    message = str(failed.value)
    assert message.startswith('leaf001: reading its state failed: the script exited with rc 125: ')
    assert not INVISIBLE.search(message) and '\n' not in message, message
    assert '\\x1b]0;owned\\x07mktemp: failed' in message and '070E33455D1D18544541' not in message, message


# --------------------------------------------------------------------------- ANTA on what an EOS switch printed
def _anta_state():
    """An EOS leaf's gathered state with the outputs of ANTA's commands (recorded on EOS 4.32), as validate_gather
    keeps them: ANTA's tests read them unchanged (the `anta` source is a pass-through, no parser of ours)."""
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import anta_catalog
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.gatherer import command_key
    from tests.unit.plugins.plugin_utils.fabric.state.captures import FIXTURES, eos_raw, read_recorded
    intent = os.path.join(FIXTURES, '..', 'intents', 'eos_small.yml')
    design = design_from_file(intent)
    ctx = checks.Context(design)
    state = eos_raw(design.device('leaf001'))
    state['anta'] = {
        command_key(command): json.loads(read_recorded('eos', '4.32', 'leaf001', command['cmd'].replace(' ', '_') + '.json'))
        for command in anta_catalog.eapi_commands(ctx, ctx.model('leaf001'))}
    return intent, state


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_anta_on_a_mutated_eos_output_gives_results_never_a_crash(action_loader, tmp_path, data):
    """Issue 37 item 2 for the one source no parser of ours reads: ANTA's tests get what the switch printed, mutated
    (a value replaced by a hostile one, a key renamed, an item dropped). The run gives each ANTA test's result on its
    device (passed, failed or an error), never an exception."""
    intent, state = _anta_state()
    key = data.draw(st.sampled_from(sorted(state['anta'])), label='command')
    state['anta'][key] = _mutate_tree(data, state['anta'][key])
    task_vars = {'hostvars': {'leaf001': {'aifabric_intent': intent, 'validate_gathered': {'state': state}}},
                 'ansible_play_hosts_all': ['leaf001']}
    result = _validate(action_loader, task_vars, tmp_path, checks=['anta'], fail=False)
    summary = result['summary']
    assert summary['checks_run'] == summary['passed'] + summary['failed'] + summary['errors'] > 0, summary
    assert all(re.match(r'(?:[A-Z]+ )?leaf001 anta ', text) for text in result['failures']), result['failures']
