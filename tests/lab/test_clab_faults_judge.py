# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The clab_faults scenario's round judge (extensions/molecule/clab_faults/includes/round.yml), without a lab.

On the lab every round passes, so the lab alone never shows that the judge can fail. Here the round file runs as the
scenario runs it, with faults that only leave a mark file and a stand-in for playbooks/validate.yml that answers from
those marks with the output and report.json a validation gives: one fault named as it must be (the judge's pass), and
one round for each way a round must fail - validation misses the fault, names it with another kind of cause, names it
without its configuration drift, reports a cause it blames nobody for and a failure on a device no fault touched,
passes with the fault in place, or fails again after the undo.
"""

import json
import os
import subprocess
import sys

import yaml

from tests.unit.utils.ansible_cli import ansible_cli, ansible_env
from tests.unit.utils.paths import ROOT

ROUND = os.path.join(ROOT, 'extensions', 'molecule', 'clab_faults', 'includes', 'round.yml')

# How the stand-in answers while a fault's mark is there: named (as validation names a fault: first cause of the
# fault's kind on its device, with the drift lines), missed (fails, names nothing), extra (names it, and a cause no
# device is blamed for plus a failure on a device no fault touches), wrong_kind (blames the device with another kind
# of cause), drift_missed (the right cause without the configuration lines), passes (rc 0).
VALIDATE = r'''
import json, os, sys
state, answers = sys.argv[1], json.loads(sys.argv[2])
report_dir = [arg.split('=', 1)[1] for arg in sys.argv[3:] if arg.startswith('validate_report_dir=')][0]
os.makedirs(report_dir, exist_ok=True)
results, causes, lines, blamed = [], [], [], []
for name in sorted(entry[len('injected-'):] for entry in os.listdir(state) if entry.startswith('injected-')):
    answer = answers[name]
    how = answer['how']
    if how in ('named', 'extra', 'wrong_kind', 'drift_missed'):
        causes.append({'kind': 'unreadable' if how == 'wrong_kind' else 'daemon_down', 'devices': [answer['device']],
                       'title': answer['title'], 'headline': answer['title'],
                       'drift': [] if how == 'drift_missed' else ['FRR: +router bgp 65100']})
        results.append({'status': 'fail', 'device': answer['device'], 'check': 'bgp_session', 'subject': 'spine001',
                        'seen': 'bgpd is not running', 'cause': len(causes)})
        lines.append('%d. %s' % (len(causes), json.dumps(answer['title'])[1:-1]))  # as Ansible prints a message
        blamed.append(answer['device'])
    if how == 'extra':
        causes.append({'kind': 'session_down', 'devices': [], 'title': 'a session nothing explains',
                       'headline': 'a session nothing explains', 'drift': []})
        results.append({'status': 'fail', 'device': 'spine009', 'check': 'bgp_session', 'subject': 'leaf009',
                        'seen': 'Idle'})
        blamed.append('spine009')
    if how == 'missed':
        blamed.append('localhost')
with open(os.path.join(report_dir, 'report.json'), 'w') as handle:
    json.dump({'results': results, 'causes': causes}, handle)
print('\n'.join(lines + ['PLAY RECAP'] + ['%-26s : ok=3    changed=0    unreachable=0    failed=1    skipped=0' % device
                                        for device in blamed]))
sys.exit(2 if blamed else 0)
'''


def _fault(name, round_number, device, state, undone=True, title=None):
    title = (title or '%s: bgpd is not running') % device
    return {'name': name, 'title': title, 'round': round_number, 'device': device, 'kind': 'bgpd_stopped',
            'cause': 'daemon_down', 'expect_title': title, 'drift': True, 'on': device,
            'inject': ['touch', os.path.join(state, 'injected-' + name)],
            'undo': ['rm', '-f', os.path.join(state, 'injected-' + name)] if undone else ['true'],
            'after_inject': [], 'after_undo': []}


def test_the_round_judge_fails_every_round_that_must_fail(tmp_path):
    state = tmp_path / 'state'
    state.mkdir()
    script = tmp_path / 'validate.py'
    script.write_text(VALIDATE)
    hows = [('named', 'named'), ('missed', 'missed'), ('extra', 'extra'), ('wrong_kind', 'wrong_kind'),
            ('drift_missed', 'drift_missed'), ('passes', 'passes'), ('quoted', 'named'), ('not_recovered', 'named')]
    # A title with quotes, which Ansible's output shows escaped (an unreachable host's message).
    quoted = '%s could not be read: remote host "192.0.2.8" refused'
    faults = [_fault(name, index + 1, 'leaf%03d' % (index + 1), str(state), undone=name != 'not_recovered',
                     title=quoted if name == 'quoted' else None)
              for index, (name, _how) in enumerate(hows)]
    answers = {name: {'how': how, 'device': fault['device'], 'title': fault['title']}
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
                          capture_output=True, text=True, timeout=900, check=False)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    outcome = {item['name']: item for item in json.loads(outcomes.read_text())}
    assert sorted(outcome) == sorted(name for name, _how in hows)

    # the judge can pass: without this the failures below would prove nothing
    assert outcome['named']['detected'] is True and outcome['named']['recovered'] is True, outcome['named']
    assert outcome['quoted']['detected'] is True, outcome['quoted']
    missed = outcome['missed']
    assert missed['detected'] is False and missed['cause_right'] is False and missed['named'] is None, missed
    extra = outcome['extra']
    assert extra['detected'] is False and extra['cause_right'] is True, extra
    assert extra['round_unplaced'] == ['a session nothing explains', 'bgp_session'], extra
    assert 'spine009' in extra['round_blamed'], extra
    wrong = outcome['wrong_kind']
    assert wrong['detected'] is False and wrong['cause_right'] is False and wrong['named'] == 'unreadable', wrong
    drift = outcome['drift_missed']
    assert drift['detected'] is False and drift['cause_right'] is True and drift['drift_found'] is False, drift
    assert outcome['passes']['detected'] is False and outcome['passes']['validate_rc'] == 0, outcome['passes']
    assert outcome['not_recovered']['detected'] is True and outcome['not_recovered']['recovered'] is False
