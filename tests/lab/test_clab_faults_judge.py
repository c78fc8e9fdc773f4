# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The clab_faults scenario's round judge (extensions/molecule/clab_faults/includes/round.yml), without a lab.

On the lab every round passes, so the lab alone never shows that the judge can fail. Here the round file runs as the
scenario runs it, with faults that only leave a mark file and a stand-in for playbooks/validate.yml that answers from
those marks with the output and report.json a validation gives: one fault named as it must be (the judge's pass), and
one round for each way a round must fail - validation misses the fault, reports a finding nobody caused, passes with
the fault in place, or fails again after the undo.
"""

import json
import os
import subprocess
import sys

import yaml

from tests.unit.utils.ansible_cli import ansible_cli, ansible_env
from tests.unit.utils.paths import ROOT

ROUND = os.path.join(ROOT, 'extensions', 'molecule', 'clab_faults', 'includes', 'round.yml')

# How the stand-in answers while a fault's mark is there: named (as validation names a fault), missed (fails, names
# nothing), extra (names it and a failure on a device no fault touches), passes (rc 0).
VALIDATE = r'''
import json, os, sys
state, answers = sys.argv[1], json.loads(sys.argv[2])
report_dir = [arg.split('=', 1)[1] for arg in sys.argv[3:] if arg.startswith('validate_report_dir=')][0]
os.makedirs(report_dir, exist_ok=True)
results, causes, lines, blamed = [], [], [], []
for name in sorted(entry[len('injected-'):] for entry in os.listdir(state) if entry.startswith('injected-')):
    answer = answers[name]
    if answer['how'] in ('named', 'extra'):
        results.append({'status': 'fail', 'device': answer['device'], 'check': 'bgp_session', 'subject': 'spine001',
                        'seen': 'bgpd is not running'})
        causes.append({'kind': 'daemon_down', 'devices': [answer['device']], 'title': answer['title'],
                       'headline': answer['title']})
        lines += ['FAIL %s bgp_session [spine001]: expected Established; seen bgpd is not running' % answer['device'],
                  '1. %s' % answer['title']]
        blamed.append(answer['device'])
    if answer['how'] == 'extra':
        results.append({'status': 'fail', 'device': 'spine009', 'check': 'bgp_session', 'subject': 'leaf009',
                        'seen': 'Idle'})
    if answer['how'] == 'missed':
        blamed.append('localhost')
with open(os.path.join(report_dir, 'report.json'), 'w') as handle:
    json.dump({'results': results, 'causes': causes}, handle)
print('\n'.join(lines + ['PLAY RECAP'] + ['%-26s : ok=3    changed=0    unreachable=0    failed=1    skipped=0' % device
                                        for device in blamed]))
sys.exit(2 if blamed else 0)
'''


def _fault(name, round_number, device, state, undone=True):
    title = '%s: bgpd is not running' % device
    return {'name': name, 'title': name, 'round': round_number, 'device': device,
            'inject': ['touch', os.path.join(state, 'injected-' + name)],
            'undo': ['rm', '-f', os.path.join(state, 'injected-' + name)] if undone else ['true'],
            'expect': [{'device': device, 'check': 'bgp_session', 'seen': 'bgpd is not running'}],
            'allowed_checks': ['bgp_session'], 'allowed_devices': [device],
            'cause': {'kind': 'daemon_down', 'device': device, 'title': title}}


def test_the_round_judge_fails_every_round_that_must_fail(tmp_path):
    state = tmp_path / 'state'
    state.mkdir()
    script = tmp_path / 'validate.py'
    script.write_text(VALIDATE)
    hows = [('named', 'named'), ('missed', 'missed'), ('extra', 'extra'), ('passes', 'passes'),
            ('not_recovered', 'named')]
    faults = [_fault(name, index + 1, 'leaf%03d' % (index + 1), str(state), undone=name != 'not_recovered')
              for index, (name, _how) in enumerate(hows)]
    answers = {name: {'how': how, 'device': fault['device'], 'title': fault['cause']['title']}
               for (name, how), fault in zip(hows, faults)}
    validate = [sys.executable, str(script), str(state), json.dumps(answers)]
    outcomes = tmp_path / 'outcomes.json'
    playbook = tmp_path / 'judge.yml'
    playbook.write_text(yaml.safe_dump([{
        'name': 'The rounds of clab_faults against a stand-in validation', 'hosts': 'localhost',
        'gather_facts': False,
        'vars': {'faults': faults, 'faults_detections': [], 'faults_outcomes': [],
                 'faults_report_base': str(tmp_path / 'reports'), 'faults_fault_settle': 0,
                 'faults_validate_argv': validate, 'faults_recover_argv': validate},
        'tasks': [
            {'name': 'Inject, detect and undo the faults, one round at a time',
             'ansible.builtin.include_tasks': ROUND,
             'loop': "{{ faults | map(attribute='round') | unique | sort }}",
             'loop_control': {'loop_var': 'faults_round'}},
            {'name': 'Keep the outcomes', 'ansible.builtin.copy': {
                'content': '{{ faults_outcomes | to_json }}', 'dest': str(outcomes), 'mode': '0644'}}]}]))
    inventory = tmp_path / 'inventory.json'
    inventory.write_text(json.dumps({'all': {
        'hosts': {name: {'ansible_connection': 'local', 'ansible_python_interpreter': sys.executable}
                  for name in ['localhost'] + [fault['device'] for fault in faults]}}}))
    env = ansible_env()
    proc = subprocess.run(ansible_cli('playbook') + ['-i', str(inventory), str(playbook)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    outcome = {item['name']: item for item in json.loads(outcomes.read_text())}
    assert sorted(outcome) == sorted(name for name, _how in hows)

    # the judge can pass: without this the failures below would prove nothing
    assert outcome['named']['detected'] is True and outcome['named']['recovered'] is True, outcome['named']
    missed = outcome['missed']
    assert missed['detected'] is False and missed['named_in_output'] is False
    assert missed['missing'] == ['leaf002 bgp_session  bgpd is not running'], missed
    extra = outcome['extra']
    assert extra['detected'] is False and extra['missing'] == [] and extra['cause_right'] is True, extra
    assert len(extra['round_unexpected']) == 1 and 'spine009' in extra['round_unexpected'][0], extra
    assert outcome['passes']['detected'] is False and outcome['passes']['validate_rc'] == 0, outcome['passes']
    assert outcome['not_recovered']['detected'] is True and outcome['not_recovered']['recovered'] is False
