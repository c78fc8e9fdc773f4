# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""playbooks/render.yml and playbooks/validate.yml of this checkout: where they write (the inventory's output
directory, whatever the current directory, PWD unset) and the custom stats they publish. Runs on every
ansible-core release `make units` tests."""

import json
import os
import re
import shutil
import subprocess

import pytest
from tests.unit.utils.ansible_cli import ansible_cli, ansible_env
from tests.unit.utils.paths import ROOT

pytestmark = pytest.mark.integration  # it starts Ansible's command line tools (make integration runs it)


def _playbook(name, inventory, cwd, *extra):
    env = ansible_env(ANSIBLE_SHOW_CUSTOM_STATS='1', PWD=None)
    return subprocess.run(ansible_cli('playbook') + ['-i', str(inventory), os.path.join(ROOT, 'playbooks', name)] + list(extra),
                          cwd=str(cwd), env=env, capture_output=True, text=True, timeout=300, check=False)


def _custom_stats(stdout):
    """The custom stats block ansible-playbook prints at the end (show_custom_stats): {'aifabric_...': {...}}."""
    match = re.search(r'CUSTOM STATS: \*+\s+RUN: (\{.*\})\s*$', stdout, re.S)
    assert match, stdout[-2000:]
    return json.loads(match.group(1))


@pytest.fixture
def lab_project(tmp_path):
    """A copy of inventories/lab and fabrics/lab.yml in <project>, and an empty current directory elsewhere."""
    inventory = tmp_path / 'project' / 'inventories' / 'lab'
    shutil.copytree(os.path.join(ROOT, 'inventories', 'lab'), inventory)
    shutil.copytree(os.path.join(ROOT, 'fabrics'), tmp_path / 'project' / 'fabrics')
    elsewhere = tmp_path / 'elsewhere'
    elsewhere.mkdir()
    return inventory, tmp_path / 'project' / 'out' / 'lab', elsewhere


def test_render_writes_under_the_inventory_output_dir_and_publishes_counts(lab_project):
    inventory, out, elsewhere = lab_project
    result = _playbook('render.yml', inventory, elsewhere, '-e', '{"aifabric_render_devices": "leaf001, spine001",'
                                                                 ' "aifabric_render_out": "", "aifabric_render_docs": "false"}')
    assert result.returncode == 0, result.stdout + result.stderr
    assert sorted(os.listdir(out / 'configs')) == ['leaf001', 'spine001'] and os.listdir(elsewhere) == []
    published = _custom_stats(result.stdout)['aifabric_render']['lab']
    assert (published['devices'], published['dest'], published['failed'], published['index']) == (2, str(out), False, None)
    assert published['written'] == published['files'] == len(os.listdir(out / 'configs' / 'leaf001')) * 2


def test_failed_render_still_publishes_its_failure(lab_project):
    inventory, out, elsewhere = lab_project
    result = _playbook('render.yml', inventory, elsewhere, '-e', '{"aifabric_render_devices": ["leaf001", "leaf042"]}')
    assert result.returncode != 0
    published = _custom_stats(result.stdout)['aifabric_render']['lab']
    assert published['failed'] is True and 'leaf042' in published['msg']
    assert not out.exists()


def test_the_stats_of_two_fabrics_add_up_whether_they_render_or_one_fails(tmp_path):
    """Two fabrics in one inventory: a render that succeeds publishes both (the render task's own stats, aggregated);
    when one fabric fails (its directory is refused), the rescue publishes both, and the run fails with its message."""
    inventory = tmp_path / 'inventory'
    inventory.mkdir()
    shutil.copy(os.path.join(ROOT, 'fabrics', 'lab.yml'), inventory / 'intent.yml')
    (inventory / 'fabric.yml').write_text('plugin: aifabric.fabric.fabric\nintent: intent.yml\noutput_dir: %s\n'
                                          % (tmp_path / 'out'))
    (inventory / 'other.yml').write_text(
        'name: other\ntopology: {rail_optimized: {servers: 2, rails: 1, leaf_radix: 4}, naming: {host: "o{n}", '
        'leaf: "oleaf{n}", spine: "ospine{n}"}}\n'
        'overlay: {networks: [{name: r0, vlan: 100, subnet: 10.9.0.0/24, rails: [0]}]}\n')
    (inventory / 'other.fabric.yml').write_text('plugin: aifabric.fabric.fabric\nintent: other.yml\noutput_dir: /etc\n')
    base = tmp_path / 'base'
    rendered = _playbook('render.yml', inventory, tmp_path, '-e', json.dumps({
        'aifabric_render_out': str(base), 'aifabric_render_docs': False}))
    assert rendered.returncode == 0, rendered.stdout + rendered.stderr
    assert re.search(r'ok=1 +changed=1 +unreachable=0 +failed=0 +skipped=0 +rescued=0', rendered.stdout), \
        rendered.stdout  # one task
    published = _custom_stats(rendered.stdout)['aifabric_render']
    assert {name: (stats['devices'], stats['dest'], stats['failed']) for name, stats in published.items()} == {
        'lab': (10, str(base / 'lab'), False), 'other': (5, str(base / 'other'), False)}
    failed = _playbook('render.yml', inventory, tmp_path, '-e', json.dumps({'aifabric_render_docs': False}))
    assert failed.returncode != 0 and 'rescued=1' in failed.stdout
    published = _custom_stats(failed.stdout)['aifabric_render']
    assert (published['lab']['failed'], published['lab']['dest']) == (False, str(tmp_path / 'out' / 'lab'))
    refused = 'The render directory of fabric other /etc/other is under /etc, a directory of the operating system'
    assert published['other']['failed'] is True and refused in published['other']['msg']
    assert ' '.join(failed.stdout.split()).count(refused) >= 2  # the render task's and the run's last failure
    assert os.listdir(tmp_path / 'out' / 'lab' / 'configs') and not os.path.exists('/etc/other')


def test_intent_without_inventory_needs_an_output_directory(lab_project):
    """aifabric_render_intent alone: no inventory names a directory, and the current directory is never the default."""
    _inventory, out, elsewhere = lab_project
    result = _playbook('render.yml', 'localhost,', elsewhere, '-e', json.dumps({
        'aifabric_render_intent': os.path.join(ROOT, 'fabrics', 'lab.yml'), 'aifabric_render_out': ''}))
    assert result.returncode != 0
    assert ('No output directory: an intent rendered without its inventory needs aifabric_render_out (base directory, '
            'one subdirectory per fabric) or aifabric_render_dest (exact directory).') in ' '.join(result.stdout.split())
    assert os.listdir(elsewhere) == [] and not out.exists()


def test_design_validation_reports_under_the_inventory_output_dir_and_publishes_the_summary(lab_project):
    """The FRR lab before deploy: every check is not applicable. NOTHING CHECKED is not a pass: the run fails (exit
    code 2, so `validate && deploy` stops), and still writes the report and publishes the summary."""
    inventory, out, elsewhere = lab_project
    result = _playbook('validate.yml', inventory, elsewhere, '-e', '{"validate_gather": "false", "validate_out": "",'
                                                                   ' "validate_checks": "", "validate_skip_checks": ""}')
    assert result.returncode == 2, result.stdout + result.stderr
    with open(out / 'validation' / 'report.json', encoding='utf-8') as handle:
        report = json.load(handle)
    assert report['summary']['verdict'] == 'NOTHING CHECKED'
    published = _custom_stats(result.stdout)['aifabric_validate']['lab']
    assert {key: published[key] for key in report['summary']} == report['summary']
    assert published['report'] == str(out / 'validation' / 'report.json') and published['failures'] == []
    assert os.listdir(elsewhere) == []
    # a summary, not a line per device: the design-only run never iterates over the hosts
    assert not re.search(r'^(skipping|ok): \[(leaf|spine|gpu)0*[2-9]', result.stdout, re.M), result.stdout
    # the failure names both reports (issue 38: the HTML one, with the fabric picture, was named only on a pass)
    failed = re.findall(r'^fatal: \[(\w+)\]: FAILED! => .*NOTHING CHECKED.*\(report: (\S+); with the fabric picture: '
                        r'(\S+)\)', result.stdout, re.M)
    assert failed == [('leaf001', str(out / 'validation' / 'report.md'), str(out / 'validation' / 'report.html'))]
    assert (out / 'validation' / 'report.html').is_file()
    play = result.stdout.split('PLAY RECAP', 1)[0]
    assert play.rstrip().endswith('with the fabric picture: %s)"}' % (out / 'validation' / 'report.html'))  # paths last


def test_validate_out_survey_answer_and_check_list_text(lab_project, tmp_path):
    inventory, out, elsewhere = lab_project
    result = _playbook('validate.yml', inventory, elsewhere, '-e', json.dumps({
        'validate_gather': 'false', 'validate_out': str(tmp_path / 'reports'), 'validate_checks': 'lossless_pfc, lossless_ecn',
        'validate_fail': False}))  # the FRR lab: nothing to check, and a report anyway
    assert result.returncode == 0, result.stdout + result.stderr
    with open(tmp_path / 'reports' / 'lab' / 'validation' / 'report.json', encoding='utf-8') as handle:
        report = json.load(handle)
    assert sorted({result['check'] for result in report['results']}) == ['lossless_ecn', 'lossless_pfc']
    assert not out.exists()
