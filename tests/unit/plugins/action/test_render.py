# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The aifabric.fabric.render action: changed semantics, check mode, diff, prune and failures."""

import importlib
import json
import shutil
import os
import subprocess
from unittest.mock import MagicMock

import pytest
import yaml
from tests.unit.utils.ansible_cli import ansible_cli, ansible_env

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.netbox import FILES as NETBOX_FILES
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.output import read_manifest, verify
from tests.unit.utils.paths import ROOT

pytestmark = pytest.mark.integration  # it starts Ansible's command line tools (make integration runs it)

LAB_INTENT = os.path.join(ROOT, 'fabrics', 'lab.yml')
LAB_SWITCHES = ['leaf001', 'leaf002', 'leaf003', 'leaf004', 'spine001', 'spine002']
LAB_DEVICES = ['gpu0001', 'gpu0002', 'gpu0003', 'gpu0004'] + LAB_SWITCHES
ACTION_MODULE = 'ansible_collections.aifabric.fabric.plugins.action.render'
RENDER_MODULE = 'ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render'  # render_model lives here
FABRIC_DOCS = ['index.md', 'cabling.md', 'cabling.csv', 'addressing.md', 'asn.md', 'devices.md', 'overlay.md',
               'topology.svg']


@pytest.fixture(scope='module')
def action_loader():
    from ansible.plugins.loader import action_loader as loader
    return loader


@pytest.fixture
def run(action_loader):
    from ansible.parsing.dataloader import DataLoader

    def _run(check=False, diff=False, task_vars=None, **args):
        task = MagicMock()
        task.args = args
        task.check_mode = check
        task.diff = diff
        task.async_val = 0
        action = action_loader.get('aifabric.fabric.render', task=task, connection=MagicMock(), play_context=MagicMock(),
                                   loader=DataLoader(), templar=None, shared_loader_obj=None)
        return action.run(task_vars=task_vars or {})
    return _run


@pytest.fixture
def fake_renderer(monkeypatch, action_loader):
    """Every device renders to one small JSON file, so the tests do not depend on the platform renderers."""
    module = importlib.import_module(ACTION_MODULE)

    def render(model, user_hashes=None):
        return {'model.json': json.dumps({'name': model['name'], 'role': model['role']}, sort_keys=True) + '\n'}
    monkeypatch.setattr(importlib.import_module(RENDER_MODULE), 'render_model', render)
    monkeypatch.setattr(module, 'render_fabric', lambda design: {'k8s/%s.yaml' % design.name: 'fabric: %s\n' % design.name})
    return render


def _tree(root):
    """The rendered files under root (through the dest symlink), without the manifest."""
    found = {}
    for directory, _unused, files in os.walk(root, followlinks=True):
        for name in files:
            if directory == str(root) and name == 'manifest.json':
                continue
            path = os.path.join(directory, name)
            with open(path, encoding='utf-8') as handle:
                found[os.path.relpath(path, root)] = handle.read()
    return found


def test_first_run_writes_everything_second_run_changes_nothing(run, fake_renderer, tmp_path):
    dest = tmp_path / 'out'
    first = run(intent=LAB_INTENT, dest=str(dest))
    assert first['changed'] is True
    assert first['devices'] == 10
    expected = {'configs/%s/model.json' % name for name in LAB_DEVICES}
    expected |= {'docs/devices/%s.md' % name for name in LAB_DEVICES}
    expected |= {'docs/%s' % name for name in FABRIC_DOCS}
    expected |= {'k8s/lab.yaml'}  # the fabric's own files, written once
    expected |= {'netbox/bundle.json'} | {'netbox/%s' % item.name for item in NETBOX_FILES}
    assert set(_tree(dest)) == expected
    assert (first['files'], first['written'], first['unchanged'], first['removed']) == (len(expected), len(expected), 0, 0)
    assert first['index'] == str(dest / 'docs' / 'index.md')
    assert first['netbox'] == str(dest / 'netbox')
    assert first['summary']['gpus'] == 8
    assert first['manifest'] == str(dest / 'manifest.json')
    assert verify(str(dest)) == []
    assert set(read_manifest(str(dest))['files']) == expected
    before = {path: os.stat(dest / path).st_mtime_ns for path in expected}

    second = run(intent=LAB_INTENT, dest=str(dest))
    assert second['changed'] is False
    assert (second['written'], second['unchanged'], second['changed_files']) == (0, len(expected), [])
    assert {path: os.stat(dest / path).st_mtime_ns for path in expected} == before  # nothing rewritten


def test_only_the_changed_file_is_written(run, fake_renderer, tmp_path):
    dest = tmp_path / 'out'
    run(intent=LAB_INTENT, dest=str(dest))
    target = dest / 'configs' / 'leaf002' / 'model.json'
    target.write_text('edited by hand\n')
    untouched = os.stat(dest / 'configs' / 'leaf001' / 'model.json').st_mtime_ns
    result = run(intent=LAB_INTENT, dest=str(dest))
    assert result['changed'] is True
    assert result['written'] == 1
    assert result['changed_files'] == ['configs/leaf002/model.json']
    assert json.loads(target.read_text())['name'] == 'leaf002'
    assert os.stat(dest / 'configs' / 'leaf001' / 'model.json').st_mtime_ns == untouched


def test_check_mode_reports_but_writes_nothing(run, fake_renderer, tmp_path):
    dest = tmp_path / 'out'
    result = run(check=True, intent=LAB_INTENT, dest=str(dest))
    assert result['changed'] is True
    assert result['written'] == result['files'] == 10 * 2 + len(FABRIC_DOCS) + 1 + len(NETBOX_FILES) + 1
    assert 'would write' in result['msg']
    assert not dest.exists()

    run(intent=LAB_INTENT, dest=str(dest))
    (dest / 'configs' / 'spine001' / 'model.json').write_text('drift\n')
    check = run(check=True, intent=LAB_INTENT, dest=str(dest))
    assert (check['changed'], check['written'], check['changed_files']) == (True, 1, ['configs/spine001/model.json'])
    assert (dest / 'configs' / 'spine001' / 'model.json').read_text() == 'drift\n'


def test_diff_shows_what_changed_in_the_changed_files(run, fake_renderer, tmp_path):
    dest = tmp_path / 'out'
    run(intent=LAB_INTENT, dest=str(dest))
    (dest / 'configs' / 'leaf003' / 'model.json').write_text('{"name": "leaf003", "role": "spine"}\n')
    result = run(check=True, diff=True, intent=LAB_INTENT, dest=str(dest))
    assert result['diff'] == [{'prepared': '--- configs/leaf003/model.json\n+++ configs/leaf003/model.json\n'
                                           '@@ role @@\n-"spine"\n+"leaf"\n'}]
    hidden = run(diff=True, intent=LAB_INTENT, dest=str(tmp_path / 'other'), devices=['leaf001'], docs=False,
                 diff_max_files=0)
    assert hidden['diff'] == [{'prepared': '... 1 more changed files (1 distinct changes) not shown (diff_max_files=0)\n'}]


def test_diff_is_bounded_and_shows_a_change_shared_by_many_files_once(run, fake_renderer, tmp_path):
    """A first render: every device's model.json is new and different (its name), every device page too; with 3
    distinct changes shown, each at most 2 lines long, the rest is counted, never silently dropped."""
    result = run(diff=True, intent=LAB_INTENT, dest=str(tmp_path / 'out'), diff_max_files=3, diff_max_lines=2)
    diffs = result['diff']
    assert len(diffs) == 4
    assert diffs[0]['prepared'] == ('--- /dev/null\n+++ configs/gpu0001/model.json\n@@ name (added) @@\n+"gpu0001"\n'
                                    '... 2 more lines of this diff not shown (diff_max_lines=2)\n')
    assert [entry['prepared'].split('\n')[1] for entry in diffs[1:3]] == ['+++ docs/devices/gpu0001.md',
                                                                          '+++ configs/gpu0002/model.json']
    assert diffs[3]['prepared'] == '... %d more changed files (%d distinct changes) not shown (diff_max_files=3)\n' % (
        (result['written'] - 3,) * 2)

    dest = tmp_path / 'same'
    run(intent=LAB_INTENT, dest=str(dest))
    for name in LAB_SWITCHES:  # the same change on every switch: one diff naming them all
        (dest / 'configs' / name / 'model.json').write_text(
            (dest / 'configs' / name / 'model.json').read_text().replace('"role": "', '"role": "x-'))
    same = run(check=True, diff=True, intent=LAB_INTENT, dest=str(dest))['diff']
    leaves = [entry['prepared'] for entry in same if 'leaf' in entry['prepared'].split('\n')[1]]
    assert leaves == ['--- configs/leaf001/model.json (and 3 more with the same change: configs/leaf002/model.json, '
                      'configs/leaf003/model.json, configs/leaf004/model.json)\n+++ configs/leaf001/model.json (and 3 more '
                      'with the same change: configs/leaf002/model.json, configs/leaf003/model.json, '
                      'configs/leaf004/model.json)\n@@ role @@\n-"x-leaf"\n+"leaf"\n']


def test_no_diff_when_nothing_changed(run, fake_renderer, tmp_path):
    run(intent=LAB_INTENT, dest=str(tmp_path / 'out'))
    result = run(diff=True, intent=LAB_INTENT, dest=str(tmp_path / 'out'))
    assert result['changed'] is False
    assert 'diff' not in result


def test_devices_subset(run, fake_renderer, tmp_path):
    dest = tmp_path / 'out'
    result = run(intent=LAB_INTENT, dest=str(dest), devices=['spine002', 'gpu0003'], docs=False)
    assert result['devices'] == 2
    assert set(_tree(dest)) == {'configs/spine002/model.json', 'configs/gpu0003/model.json'}
    assert result['index'] is None
    assert result['netbox'] is None  # the bundle is about the whole fabric: whole-fabric renders write it


def test_stats_publishes_the_counts_of_a_successful_render_for_the_whole_run(run, fake_renderer, tmp_path):
    """stats: the custom stats playbooks/render.yml publishes (AWX job artifacts), as set_stats would: aggregated, so
    the fabrics of a loop add up to one dictionary; never without the option, never for a failed render (Ansible
    ignores them then: the playbook's rescue publishes that one)."""
    dest = tmp_path / 'out'
    assert 'ansible_stats' not in run(intent=LAB_INTENT, dest=str(dest), devices=['spine002'], docs=False)
    result = run(intent=LAB_INTENT, dest=str(dest), docs=True, stats=True)
    assert result['ansible_stats'] == {'per_host': False, 'aggregate': True, 'data': {'aifabric_render': {'lab': {
        'devices': len(LAB_DEVICES), 'files': result['files'], 'written': result['files'] - 1,
        'unchanged': 1, 'removed': 0, 'failed': False, 'dest': str(dest),  # spine002's file was there already
        'index': str(dest / 'docs' / 'index.md'), 'netbox': str(dest / 'netbox'), 'msg': result['msg']}}}}
    assert result['files'] > len(LAB_DEVICES) and 'rendered 10 device(s)' in result['msg']


def test_netbox_bundle_off_status_and_kept(run, fake_renderer, tmp_path):
    dest = tmp_path / 'out'
    result = run(intent=LAB_INTENT, dest=str(dest), docs=False, netbox=False)
    assert result['netbox'] is None and not (dest / 'netbox').exists()
    result = run(intent=LAB_INTENT, dest=str(dest), docs=False, netbox_status='active')
    assert result['netbox'] == str(dest / 'netbox')
    devices = (dest / 'netbox' / '13-devices.csv').read_text().splitlines()
    assert {line.split(',')[5] for line in devices[1:]} == {'active'}
    assert 'netbox/13-devices.csv' in read_manifest(str(dest))['files'] and verify(str(dest)) == []
    run(intent=LAB_INTENT, dest=str(dest), docs=False, netbox=False)  # off: what an earlier render wrote stays
    assert (dest / 'netbox' / '13-devices.csv').read_text().splitlines() == devices
    from ansible.errors import AnsibleActionFail
    with pytest.raises(AnsibleActionFail, match='netbox_status.*planned, active'):
        run(intent=LAB_INTENT, dest=str(dest), netbox_status='running')


def test_prune_removes_only_what_the_render_wrote_and_no_longer_produces(run, fake_renderer, monkeypatch, tmp_path):
    dest = tmp_path / 'out'
    module = importlib.import_module(RENDER_MODULE)

    def with_old_file(model, user_hashes=None):
        files = fake_renderer(model)
        if model['name'] == 'leaf002':
            files['old.conf'] = 'a file the next version no longer renders\n'
        return files
    monkeypatch.setattr(module, 'render_model', with_old_file)
    run(intent=LAB_INTENT, dest=str(dest))
    monkeypatch.setattr(module, 'render_model', fake_renderer)
    (dest / 'configs' / 'leaf999').mkdir()  # the user's own files, in the render's directories and beside them
    (dest / 'configs' / 'leaf999' / 'model.json').write_text('mine\n')
    (dest / 'docs' / 'notes.md').write_text('mine\n')
    (dest / 'notes.txt').write_text('mine\n')

    partial = run(intent=LAB_INTENT, dest=str(dest), devices=['leaf001'])
    assert partial['removed'] == 0 and (dest / 'configs' / 'leaf002' / 'old.conf').exists()

    check = run(check=True, diff=True, intent=LAB_INTENT, dest=str(dest))
    assert (check['changed'], check['removed']) == (True, 1)
    assert (dest / 'configs' / 'leaf002' / 'old.conf').exists()
    assert {'prepared': 'configs/leaf002/old.conf: removed (no longer produced by the intent)\n'} in check['diff']

    result = run(intent=LAB_INTENT, dest=str(dest))
    assert (result['changed'], result['removed']) == (True, 1)
    assert result['changed_files'] == ['docs/devices/leaf002.md']  # its page lists the device's files
    assert not (dest / 'configs' / 'leaf002' / 'old.conf').exists()
    for mine in ('configs/leaf999/model.json', 'docs/notes.md', 'notes.txt'):
        assert (dest / mine).read_text() == 'mine\n'
    assert run(intent=LAB_INTENT, dest=str(dest), prune=False)['changed'] is False


def test_failed_render_changes_nothing(run, fake_renderer, action_loader, monkeypatch, tmp_path):
    """A render that fails for some devices never replaces the previous complete output (nor prunes it)."""
    dest = tmp_path / 'out'
    run(intent=LAB_INTENT, dest=str(dest))
    before = _tree(dest)
    (dest / 'configs' / 'old').mkdir()
    (dest / 'configs' / 'old' / 'keep.txt').write_text('x')
    module = importlib.import_module(RENDER_MODULE)

    def render(model, user_hashes=None):
        if model['role'] == 'host':
            raise ModuleNotFoundError("No module named 'x.hosts'", name='ansible_collections.x.fabric.hosts')
        if model['name'] == 'leaf004':
            raise ValueError('template exploded')
        return {'model.json': 'new ' + model['name'] + '\n'}
    monkeypatch.setattr(module, 'render_model', render)
    result = run(intent=LAB_INTENT, dest=str(dest), stats=True)
    assert result['failed'] is True and result['changed'] is False and 'ansible_stats' not in result
    assert result['devices'] == 5
    assert result['render_errors'] == [
        'no renderer for GPU servers (hosts.py) yet: 4 device(s) not rendered (gpu0001, gpu0002, gpu0003, gpu0004)',
        'leaf004: ValueError: template exploded']
    assert 'rendering failed; nothing was changed in %s (the previous output stays)' % dest in result['msg']
    assert _tree(dest) == dict(before, **{'configs/old/keep.txt': 'x'})
    assert verify(str(dest)) == []
    assert not [name for name in os.listdir(tmp_path / '.out.generations') if 'partial' in name]


def test_intent_from_inventory_variable(run, fake_renderer, tmp_path):
    result = run(task_vars={'aifabric_intent': LAB_INTENT}, dest=str(tmp_path), devices=['leaf001'], docs=False)
    assert (result['fabric'], result['devices']) == ('lab', 1)


def test_argument_errors(run, fake_renderer, tmp_path):
    from ansible.errors import AnsibleActionFail, AnsibleError
    with pytest.raises(AnsibleActionFail, match='No intent'):
        run(dest=str(tmp_path))
    with pytest.raises(AnsibleActionFail, match='are not a device of fabric lab: leaf042, gpu9'):
        run(intent=LAB_INTENT, dest=str(tmp_path), devices=['leaf001', 'leaf042', 'gpu9'])
    (tmp_path / 'file').write_text('')
    with pytest.raises(AnsibleActionFail, match='is not a directory'):
        run(intent=LAB_INTENT, dest=str(tmp_path / 'file'))
    bad = tmp_path / 'bad.yml'
    bad.write_text('name: lab\ntopology: {rail_optimized: {servers: 4, rails: 2, leaf_radix: 1}}\nlossless: {roce_dscp: 99}\n')
    with pytest.raises(AnsibleError) as caught:
        run(intent=str(bad), dest=str(tmp_path / 'x'))
    assert 'Fabric intent has 2 problems' in str(caught.value)
    assert 'topology.rail_optimized.leaf_radix: must be between 2 and 4096' in str(caught.value)
    assert 'lossless.roce_dscp: must be between 0 and 63' in str(caught.value)


def test_real_frr_renderer(run, tmp_path):
    """The lab switches through the real FRR renderer: files per device as the platform declares them."""
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms import get_platform
    dest = tmp_path / 'out'
    result = run(intent=LAB_INTENT, dest=str(dest), devices=LAB_SWITCHES)
    assert result.get('failed') is not True, result.get('msg')
    for name in LAB_SWITCHES:
        assert sorted(os.listdir(dest / 'configs' / name)) == sorted(get_platform('frr').config_files)
    assert 'router bgp 4200000000' in (dest / 'configs' / 'leaf001' / 'frr.conf').read_text()
    assert run(intent=LAB_INTENT, dest=str(dest), devices=LAB_SWITCHES)['changed'] is False


def _playbook(inventory, *args):
    env = ansible_env()
    return subprocess.run(ansible_cli('playbook') + ['-i', str(inventory),
                                                     os.path.join(ROOT, 'playbooks', 'render.yml'), *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)


def test_render_playbook_changed_then_idempotent(tmp_path):
    """playbooks/render.yml on an inventory made by the plugin: check mode, changed, then idempotent."""
    inventory = tmp_path / 'inventory'
    inventory.mkdir()
    shutil.copy(LAB_INTENT, inventory / 'intent.yml')
    (inventory / 'fabric.yml').write_text('plugin: aifabric.fabric.fabric\nintent: intent.yml\n')
    dest = tmp_path / 'lab'
    extra = json.dumps({'aifabric_render_dest': str(dest), 'aifabric_render_devices': LAB_SWITCHES})
    check = _playbook(inventory, '--check', '-e', extra)
    assert check.returncode == 0, check.stdout + check.stderr
    assert 'changed=1' in check.stdout and not dest.exists()
    first = _playbook(inventory, '-e', extra)
    assert first.returncode == 0, first.stdout + first.stderr
    assert 'changed=1' in first.stdout
    assert 'Fabric README:  %s' % (dest / 'docs' / 'index.md') in first.stdout
    assert 'NetBox import:  (not rendered)' in first.stdout  # some devices: the bundle comes with whole renders
    second = _playbook(inventory, '-e', extra)
    assert second.returncode == 0, second.stdout + second.stderr
    assert 'changed=0' in second.stdout
    assert (dest / 'configs' / 'leaf001' / 'frr.conf').exists()


def test_render_playbook_default_dest_and_explicit_intent(tmp_path):
    """Without an inventory fabric: aifabric_render_intent (relative to the current directory) names the intent."""
    out = tmp_path / 'out'
    extra = json.dumps({'aifabric_render_intent': 'fabrics/lab.yml', 'aifabric_render_out': str(out),
                        'aifabric_render_devices': ['spine001'], 'aifabric_render_docs': False})
    result = _playbook('localhost,', '-e', extra)
    assert result.returncode == 0, result.stdout + result.stderr
    assert sorted(os.listdir(out / 'lab' / 'configs')) == ['spine001']
    assert '(documentation not rendered)' in result.stdout


def test_render_playbook_without_fabric_fails_clearly(tmp_path):
    result = _playbook('localhost,')
    assert result.returncode != 0
    assert 'No fabric to render' in result.stdout


def test_render_playbook_refuses_one_dest_for_two_fabrics(tmp_path):
    inventory = tmp_path / 'inventory'
    inventory.mkdir()
    shutil.copy(LAB_INTENT, inventory / 'intent.yml')
    (inventory / 'fabric.yml').write_text('plugin: aifabric.fabric.fabric\nintent: intent.yml\n')
    (inventory / 'other.yml').write_text(
        'name: other\ntopology: {rail_optimized: {servers: 2, rails: 1, leaf_radix: 4}, naming: {host: "o{n}", '
        'leaf: "oleaf{n}", spine: "ospine{n}"}}\noverlay: {networks: [{name: r0, vlan: 100, subnet: 10.9.0.0/24, rails: [0]}]}\n')
    (inventory / 'other.fabric.yml').write_text('plugin: aifabric.fabric.fabric\nintent: other.yml\n')
    result = _playbook(inventory, '-e', 'aifabric_render_dest=%s' % (tmp_path / 'out'))
    assert result.returncode != 0
    assert 'aifabric_render_dest names one directory but the inventory has 2 fabrics (lab, other)' in result.stdout
    assert not (tmp_path / 'out').exists()


def test_out_names_the_directory_after_the_validated_fabric(run, fake_renderer, tmp_path):
    from ansible.errors import AnsibleActionFail
    result = run(intent=LAB_INTENT, out=str(tmp_path / 'base'), devices=['leaf001'], docs=False)
    assert result['dest'] == str(tmp_path / 'base' / 'lab')
    assert (tmp_path / 'base' / 'lab' / 'configs' / 'leaf001' / 'model.json').exists()
    with pytest.raises(AnsibleActionFail, match='mutually exclusive'):
        run(intent=LAB_INTENT, out=str(tmp_path), dest=str(tmp_path / 'x'))
    with pytest.raises(AnsibleActionFail, match='one of the following is required'):
        run(intent=LAB_INTENT)


def test_diff_and_files_never_show_password_hashes(action_loader, tmp_path):
    """Switch users' hashes: --diff shows which variable they come from, never the hash; the files that carry them are
    readable by their owner only (0600 whatever the umask), the others stay 0644."""
    import yaml
    from tests.unit.plugins.plugin_utils.fabric.test_management import INTENT, USERS
    intent = tmp_path / 'mgmt.yml'
    intent.write_text(yaml.safe_dump(INTENT))
    digest = next(iter(USERS.values()))
    dest = tmp_path / 'out'
    from ansible.parsing.dataloader import DataLoader
    from ansible.template import Templar
    task = MagicMock()
    task.args = {'intent': str(intent), 'dest': str(dest), 'devices': ['leaf001', 'leaf002', 'spine001', 'gpu0001']}
    task.check_mode, task.diff, task.async_val = False, True, 0
    action = action_loader.get('aifabric.fabric.render', task=task, connection=MagicMock(), play_context=MagicMock(),
                               loader=DataLoader(), templar=Templar(loader=DataLoader()), shared_loader_obj=None)
    previous = os.umask(0o022)
    try:
        result = action.run(task_vars={'aifabric_switch_users': USERS})
    finally:
        os.umask(previous)
    assert result.get('failed') is not True, result.get('msg')
    assert digest not in json.dumps(result['diff'])
    assert '<hash of aifabric_switch_users.admin>' in json.dumps(result['diff'])
    modes = {}
    for directory, _unused, files in os.walk(dest, followlinks=True):
        for name in files:
            path = os.path.join(directory, name)
            with open(path, encoding='utf-8') as handle:
                modes[os.path.relpath(path, dest)] = (digest in handle.read(), os.stat(path).st_mode & 0o777)
    assert {mode for carries, mode in modes.values() if carries} == {0o600}, modes
    assert {mode for carries, mode in modes.values() if not carries} == {0o644}, modes
    carrying = sorted(path.rsplit('/', 1)[1] for path, (carries, _mode) in modes.items() if carries)
    assert carrying == ['local-users.json', 'startup-config.cfg', 'startup.yaml'], carrying  # SONiC, EOS, NVUE


@pytest.mark.parametrize('workers', [1, 2])
def test_a_write_error_fails_the_task_naming_the_path(run, fake_renderer, monkeypatch, tmp_path, workers):
    """EPERM while writing (an immutable generations directory; root is refused too), in the task and in its render
    workers: one sentence with the path and the reason, no errno alone, no traceback; the output stays as it was."""
    from ansible.errors import AnsibleActionFail
    monkeypatch.setattr(importlib.import_module(RENDER_MODULE), 'PARALLEL_MIN_DEVICES', 1)
    dest = tmp_path / 'out'
    run(intent=LAB_INTENT, dest=str(dest), docs=False)
    before = _tree(dest)
    generations = tmp_path / '.out.generations'
    monkeypatch.setattr(importlib.import_module(RENDER_MODULE), 'render_model',
                        lambda model, user_hashes=None: {'model.json': 'changed %s\n' % model['name']})
    subprocess.run(['chattr', '+i', str(generations)], check=True)
    try:
        with pytest.raises(AnsibleActionFail) as caught:
            run(intent=LAB_INTENT, dest=str(dest), docs=False, workers=workers)
    finally:
        subprocess.run(['chattr', '-i', str(generations)], check=False)
    message = str(caught.value)
    assert message.startswith('cannot write %s' % generations) and 'Operation not permitted' in message, message
    assert 'Nothing was changed in %s' % dest in message and 'Traceback' not in message
    assert _tree(dest) == before


def test_a_render_of_some_devices_carries_the_docs_over_only_while_what_they_are_made_from_is_the_same(
        run, fake_renderer, monkeypatch, tmp_path):
    docs = importlib.import_module('ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.docs')
    made = []
    documents = docs.fabric_documents

    def counted(design, *args, **kwargs):
        return [(relative, lambda make=make, relative=relative: made.append(relative) or make())
                for relative, make in documents(design, *args, **kwargs)]
    monkeypatch.setattr(docs, 'fabric_documents', counted)
    intent = tmp_path / 'lab.yml'
    shutil.copy(LAB_INTENT, intent)
    dest = tmp_path / 'out'
    run(intent=str(intent), dest=str(dest))
    assert sorted(made) == sorted(FABRIC_DOCS)  # a whole-fabric render makes them
    whole = read_manifest(str(dest))

    del made[:]
    result = run(intent=str(intent), dest=str(dest), devices=['leaf001'])
    assert made == [] and not result.get('failed') and verify(str(dest)) == []
    assert {relative: digest for relative, digest in read_manifest(str(dest))['files'].items()
            if relative.startswith('docs/')} == {relative: digest for relative, digest in whole['files'].items()
                                                 if relative.startswith('docs/')}

    intent.write_text(intent.read_text() + '# edited\n')  # the same intent once read: the docs are the same
    result = run(intent=str(intent), dest=str(dest), devices=['leaf001'])
    assert made == [] and not result.get('failed') and verify(str(dest)) == []

    data = yaml.safe_load(intent.read_text())
    platforms = importlib.import_module('ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms')
    data['topology'].setdefault('devices', {})['leaf001'] = {  # a release: no fabric document shows it
        'nos_release': sorted(platforms.get_platform('frr').releases)[0]}
    intent.write_text(yaml.safe_dump(data, sort_keys=False))
    result = run(intent=str(intent), dest=str(dest), devices=['leaf001'])
    assert made == [] and not result.get('failed') and verify(str(dest)) == []

    data['description'] = 'edited'  # another intent: its docs may differ
    intent.write_text(yaml.safe_dump(data, sort_keys=False))
    result = run(intent=str(intent), dest=str(dest), devices=['leaf001'])
    assert sorted(made) == sorted(FABRIC_DOCS) and verify(str(dest)) == []

    del made[:]
    run(intent=str(intent), dest=str(dest))
    assert sorted(made) == sorted(FABRIC_DOCS)  # a whole-fabric render makes them every time
