# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The staged output writer: atomic switch, manifest, shared device directories and hard-linked files, lock, path
containment."""

import hashlib
import json
import os
import threading
import time

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.output import (
    OutputBusy, OutputError, StagedOutput, check_relative, read_manifest, verify,
)
from tests.unit.utils.files import read_tree

ROOTS = ('configs', 'docs')


def render(dest, files, prune=ROOTS, **options):
    with StagedOutput(str(dest), **options) as output:
        for relative, text in files.items():
            output.put(relative, text)
        return output.finish(roots=ROOTS, prune=prune, meta={'test': True})


def tree(root):
    return {relative: data.decode('utf-8') for relative, data in read_tree(root).items()}


def generations_after_deletion(generations, timeout=30):
    """The generations in `generations` once the detached deleter has removed what the last render left to it (the
    shared store, `shared`, not listed)."""
    deadline = time.monotonic() + timeout
    while any('.' in name for name in os.listdir(generations)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return sorted(name for name in os.listdir(generations) if name != 'store')


FILES = {'configs/leaf1/frr.conf': 'hostname leaf1\n', 'configs/leaf2/frr.conf': 'hostname leaf2\n',
         'docs/index.md': '# lab\n'}


def test_first_render_switches_a_complete_generation_into_place(tmp_path):
    dest = tmp_path / 'lab'
    summary = render(dest, FILES)
    assert summary['changed'] is True and summary['written'] == 3 and summary['generation'] == 'g000001'
    assert os.path.islink(dest) and os.readlink(dest) == os.path.join('.lab.generations', 'g000001')
    assert tree(dest) == dict(FILES, **{'manifest.json': (dest / 'manifest.json').read_text()})
    manifest = read_manifest(str(dest))
    assert manifest['complete'] is True and manifest['meta'] == {'test': True} and set(manifest['files']) == set(FILES)
    assert verify(str(dest)) == []
    again = render(dest, FILES)
    assert (again['changed'], again['written'], again['unchanged'], again['generation']) == (False, 0, 3, None)
    assert os.readlink(dest).endswith('g000001')


def test_unchanged_devices_are_linked_other_files_hard_linked_and_the_previous_generation_kept(tmp_path):
    dest = tmp_path / 'lab'
    render(dest, FILES)
    render(dest, dict(FILES, **{'configs/leaf2/frr.conf': 'hostname leaf2\n!\n'}))
    generations = tmp_path / '.lab.generations'
    assert sorted(os.listdir(generations)) == ['g000001', 'g000002', 'store']
    old, new = generations / 'g000001', generations / 'g000002'
    # An unchanged device's directory is the same directory in both generations (one link each, nothing copied); a
    # changed one is a directory of its own; other files are hard links.
    assert os.readlink(new / 'configs/leaf1') == os.readlink(old / 'configs/leaf1') == \
        '../../store/g000001/configs/leaf1'
    assert os.readlink(new / 'configs/leaf2') == '../../store/g000002/configs/leaf2'
    assert os.stat(old / 'docs/index.md').st_ino == os.stat(new / 'docs/index.md').st_ino
    assert (old / 'configs/leaf2/frr.conf').read_text() == 'hostname leaf2\n'  # readers of g1 see g1, whole
    render(dest, dict(FILES, **{'docs/index.md': '# lab 3\n'}))
    # keep=2: g000001 is renamed away at once and deleted by a detached process, with the device directory only it
    # linked to; the one g000002 and g000003 link to stays.
    assert sorted(name for name in os.listdir(generations) if '.' not in name) == ['g000002', 'g000003', 'store']
    assert generations_after_deletion(generations) == ['g000002', 'g000003']
    assert sorted(os.listdir(generations / 'store' / 'g000001' / 'configs')) == ['leaf1']
    assert verify(str(dest)) == [] and verify(str(new)) == []


def test_prune_and_subsets(tmp_path):
    dest = tmp_path / 'lab'
    render(dest, FILES)
    partial = render(dest, {'configs/leaf1/frr.conf': 'hostname leaf1 v2\n'}, prune=())
    assert (partial['written'], partial['removed']) == (1, [])
    assert tree(dest)['configs/leaf2/frr.conf'] == 'hostname leaf2\n'  # carried over
    assert set(read_manifest(str(dest))['files']) == set(FILES)
    assert verify(str(dest)) == []
    full = render(dest, {'configs/leaf1/frr.conf': 'hostname leaf1 v2\n', 'docs/index.md': '# lab\n'})
    assert full['removed'] == ['configs/leaf2/frr.conf']
    assert 'configs/leaf2/frr.conf' not in tree(dest) and verify(str(dest)) == []


def test_files_outside_the_render_roots_are_kept_but_not_listed(tmp_path):
    dest = tmp_path / 'lab'
    render(dest, FILES)
    (dest / 'validation').mkdir()
    (dest / 'validation' / 'report.json').write_text('{}')
    render(dest, dict(FILES, **{'docs/index.md': '# new\n'}))
    assert (dest / 'validation' / 'report.json').read_text() == '{}'
    assert 'validation/report.json' not in read_manifest(str(dest))['files']


def test_abort_leaves_dest_as_it_was(tmp_path):
    dest = tmp_path / 'lab'
    render(dest, FILES)
    with pytest.raises(RuntimeError):
        with StagedOutput(str(dest)) as output:
            output.put('configs/leaf1/frr.conf', 'half\n')
            raise RuntimeError('render died')
    assert tree(dest)['configs/leaf1/frr.conf'] == 'hostname leaf1\n'
    assert sorted(os.listdir(tmp_path / '.lab.generations')) == ['g000001', 'store']
    assert os.listdir(tmp_path / '.lab.generations' / 'store') == ['g000001']  # the aborted one's directories: gone


def test_a_killed_render_leaves_a_partial_that_the_next_render_removes(tmp_path):
    dest = tmp_path / 'lab'
    render(dest, FILES)
    partial = tmp_path / '.lab.generations' / 'g000002.partial-999999'
    (partial / 'configs' / 'leaf1').mkdir(parents=True)
    (partial / 'configs' / 'leaf1' / 'frr.conf').write_text('')  # what a SIGKILL leaves behind
    assert tree(dest)['configs/leaf1/frr.conf'] == 'hostname leaf1\n' and verify(str(dest)) == []
    render(dest, dict(FILES, **{'docs/index.md': '# next\n'}))
    assert generations_after_deletion(tmp_path / '.lab.generations') == ['g000001', 'g000002']
    assert verify(str(dest)) == []


def test_check_mode_creates_nothing(tmp_path):
    dest = tmp_path / 'new' / 'lab'
    seen = []
    summary = render(dest, FILES, check_mode=True, on_change=lambda relative, old, new: seen.append((relative, old)))
    assert summary['changed'] is True and summary['written'] == 3
    assert seen == [(relative, None) for relative in FILES]
    assert not (tmp_path / 'new').exists()
    render(dest, FILES)
    before = tree(dest)
    check = render(dest, {'configs/leaf1/frr.conf': 'x\n'}, check_mode=True)
    assert check['removed'] == ['configs/leaf2/frr.conf', 'docs/index.md'] and check['written'] == 1
    assert tree(dest) == before and sorted(os.listdir(tmp_path / 'new' / '.lab.generations')) == ['g000001', 'store']


@pytest.mark.parametrize('relative', [
    '../escape', '/etc/passwd', 'configs/../../x', 'configs//x', 'configs/./x', 'configs/x\n', 'configs/\x00x',
    'con\\figs', '', 'configs/' + 'a' * 256, 'configs/\u202ex', 'configs/x\x7f', 'configs/\u200bx',
])
def test_paths_that_leave_the_output_directory_are_refused(tmp_path, relative):
    with pytest.raises(OutputError, match='refusing to write'):
        check_relative(relative)
    with StagedOutput(str(tmp_path / 'lab')) as output:
        with pytest.raises(OutputError, match='refusing to write'):
            output.put(relative, 'x')
    assert not (tmp_path / 'escape').exists() and not (tmp_path / 'x').exists()


def test_symlinks_out_of_the_output_directory_are_refused(tmp_path):
    outside = tmp_path / 'outside'
    outside.mkdir()
    dest = tmp_path / 'lab'
    (dest / 'configs').mkdir(parents=True)
    os.symlink(str(outside), str(dest / 'configs' / 'leaf1'))  # a plain (old) output directory with a planted link
    with StagedOutput(str(dest), take_over=True) as output:
        with pytest.raises(OutputError, match='symlink that leads outside'):
            output.put('configs/leaf1/frr.conf', 'x')
    os.unlink(str(dest / 'configs' / 'leaf1'))
    os.symlink(str(outside / 'f'), str(dest / 'configs' / 'file'))
    with StagedOutput(str(dest), take_over=True) as output:
        output.put('configs/leaf1/frr.conf', 'x')
        with pytest.raises(OutputError, match='not a regular file'):
            output.finish(roots=ROOTS, prune=ROOTS)
    assert os.listdir(outside) == []


def test_old_output_with_a_file_where_a_directory_belongs_is_replaced(tmp_path):
    dest = tmp_path / 'lab'
    (dest / 'configs').mkdir(parents=True)
    (dest / 'configs' / 'leaf1').write_text('an old file, not a directory')
    with StagedOutput(str(dest), take_over=True) as output:
        assert output.put('configs/leaf1/frr.conf', 'x') == 'written'
        output.finish(roots=ROOTS, prune=ROOTS)
    assert (dest / 'configs' / 'leaf1' / 'frr.conf').read_text() == 'x'


def test_a_link_planted_in_the_staging_directory_is_refused(tmp_path):
    outside = tmp_path / 'outside'
    outside.mkdir()
    with StagedOutput(str(tmp_path / 'lab')) as output:
        output.put('configs/leaf1/frr.conf', 'x')
        os.symlink(str(outside), os.path.join(output._staging, 'configs', 'leaf2'))  # pylint: disable=protected-access
        with pytest.raises(OutputError, match='configs/leaf2: it is not a plain directory of the output'):
            output.put('configs/leaf2/frr.conf', 'x')
    assert os.listdir(outside) == [] and not (tmp_path / 'lab').exists()


def test_a_foreign_symlink_as_dest_is_refused(tmp_path):
    (tmp_path / 'elsewhere').mkdir()
    os.symlink(str(tmp_path / 'elsewhere'), str(tmp_path / 'lab'))
    with pytest.raises(OutputError, match='not an output generation'):
        StagedOutput(str(tmp_path / 'lab')).open()
    (tmp_path / 'file').write_text('')
    with pytest.raises(OutputError, match='exists and is not a directory'):
        StagedOutput(str(tmp_path / 'file')).open()


def test_a_plain_directory_named_for_take_over_is_taken_over_keeping_every_file(tmp_path):
    """A plain directory without a manifest (made by hand, or by a version before manifests), taken over because the
    caller named it: nothing in it is known to be the render's, so nothing is removed; identical files are reused."""
    dest = tmp_path / 'lab'
    (dest / 'configs' / 'gone').mkdir(parents=True)
    (dest / 'configs' / 'gone' / 'frr.conf').write_text('old\n')
    (dest / 'configs' / 'leaf1').mkdir()
    (dest / 'configs' / 'leaf1' / 'frr.conf').write_text('hostname leaf1\n')
    (dest / 'notes.txt').write_text('mine\n')
    summary = render(dest, FILES, take_over=True)
    assert summary['removed'] == [] and summary['unchanged'] == 1
    assert os.path.islink(dest)
    assert tree(dest) == dict(FILES, **{'notes.txt': 'mine\n', 'configs/gone/frr.conf': 'old\n',
                                        'manifest.json': (dest / 'manifest.json').read_text()})
    assert set(read_manifest(str(dest))['files']) == set(FILES)
    assert generations_after_deletion(tmp_path / '.lab.generations') == ['g000001']


def test_verify_finds_tampering(tmp_path):
    dest = tmp_path / 'lab'
    render(dest, FILES)
    (dest / 'configs' / 'leaf1' / 'frr.conf').write_text('edited\n')
    os.unlink(str(dest / 'docs' / 'index.md'))
    assert verify(str(dest)) == ['configs/leaf1/frr.conf does not match its sha256', 'docs/index.md is missing']
    assert verify(str(tmp_path / 'nothing')) == ['%s has no readable manifest.json' % (tmp_path / 'nothing')]


def test_a_second_render_fails_clearly_after_the_lock_timeout(tmp_path):
    dest = tmp_path / 'lab'
    with StagedOutput(str(dest)) as first:
        first.put('configs/leaf1/frr.conf', 'one\n')
        started = time.monotonic()
        with pytest.raises(OutputBusy) as busy:
            StagedOutput(str(dest), lock_timeout=0.5).open()
        assert 0.4 < time.monotonic() - started < 30  # waited, then gave up (the upper bound only guards a hang)
        message = str(busy.value)
        assert 'another render into %s is running (pid %d on ' % (dest, os.getpid()) in message
        assert 'waited 0.5 s' in message
        first.finish(roots=ROOTS, prune=ROOTS)
    assert verify(str(dest)) == []


def test_a_second_render_waits_for_the_first(tmp_path):
    dest = tmp_path / 'lab'
    order = []

    def second():
        summary = render(dest, {'configs/leaf1/frr.conf': 'two\n'}, lock_timeout=30)
        order.append(('second', summary['generation']))

    with StagedOutput(str(dest)) as first:
        first.put('configs/leaf1/frr.conf', 'one\n')
        thread = threading.Thread(target=second)
        thread.start()
        time.sleep(0.6)
        assert order == [] and thread.is_alive()  # waiting for the lock
        order.append(('first', first.finish(roots=ROOTS, prune=ROOTS)['generation']))
    thread.join(30)
    assert order == [('first', 'g000001'), ('second', 'g000002')]
    assert tree(dest)['configs/leaf1/frr.conf'] == 'two\n' and verify(str(dest)) == []


def test_leftovers_of_a_kill_between_link_and_rename_are_removed(tmp_path):
    dest = tmp_path / 'lab'
    render(dest, FILES)
    os.symlink('.lab.generations/g000001', str(tmp_path / '.lab.link-999999'))  # killed just before the rename
    render(dest, dict(FILES, **{'docs/index.md': '# v2\n'}))
    assert sorted(name for name in os.listdir(tmp_path) if not name.startswith('.lab.generations')) == ['.lab.lock', 'lab']
    with StagedOutput(str(dest)) as output:
        with pytest.raises(OutputError, match='reserved for the manifest'):
            output.put('manifest.json', '{}')


@pytest.mark.parametrize('umask', [0o022, 0o077, 0o000])
def test_files_are_0644_whatever_the_umask(tmp_path, umask):
    previous = os.umask(umask)
    try:
        render(tmp_path / 'lab', FILES)
    finally:
        os.umask(previous)
    assert {os.stat(tmp_path / 'lab' / relative).st_mode & 0o777 for relative in FILES} == {0o644}


def test_carry_over_keeps_listed_files_without_their_content(tmp_path):
    dest = tmp_path / 'lab'
    render(dest, FILES)
    with StagedOutput(str(dest)) as output:
        output.put('configs/leaf1/frr.conf', 'hostname leaf1 changed\n')
        assert output.carry_over(['docs/index.md']) is True
        summary = output.finish(roots=ROOTS, prune=(), meta={'test': 2})
    assert summary['written'] == 1 and summary['unchanged'] == 1
    assert tree(dest)['docs/index.md'] == FILES['docs/index.md']
    assert read_manifest(str(dest))['files']['docs/index.md'] == read_manifest(
        str(tmp_path / '.lab.generations' / 'g000001'))['files']['docs/index.md']
    assert verify(str(dest)) == []


@pytest.mark.parametrize('case', ['not listed', 'missing', 'a symlink', 'put already', 'no output yet'])
def test_carry_over_refuses_what_it_cannot_carry_and_keeps_none(tmp_path, case):
    dest = tmp_path / 'lab'
    if case != 'no output yet':
        render(dest, FILES)
    current = os.path.realpath(dest)
    wanted = ['configs/leaf2/frr.conf', 'docs/index.md']
    if case == 'not listed':
        (tmp_path / 'user.md').write_text('mine\n')
        os.link(tmp_path / 'user.md', os.path.join(current, 'docs', 'user.md'))  # a file the user keeps there
        wanted.append('docs/user.md')
    elif case == 'missing':
        os.unlink(os.path.join(current, 'docs', 'index.md'))
    elif case == 'a symlink':
        os.unlink(os.path.join(current, 'docs', 'index.md'))
        os.symlink(os.path.join(current, 'configs', 'leaf1', 'frr.conf'), os.path.join(current, 'docs', 'index.md'))
    with StagedOutput(str(dest)) as output:
        if case == 'put already':
            output.put('docs/index.md', '# new\n')
        assert output.carry_over(wanted) is False
        assert 'configs/leaf2/frr.conf' not in output.files and output.unchanged == 0
        output.abort()


# ---------------------------------------------------------------- generations sharing device directories (issue 41)
def _fabric(devices, version=0, changed=()):
    """The files of a render of `devices` leaves, those in `changed` at `version`."""
    files = {'docs/index.md': '# lab\n'}
    for index in range(devices):
        name = 'leaf%d' % index
        stamp = version if name in changed else 0
        files['configs/%s/frr.conf' % name] = 'hostname %s\n! %d\n' % (name, stamp)
        files['configs/%s/config_db.json' % name] = '{"name": "%s", "v": %d}\n' % (name, stamp)
        files['docs/devices/%s.md' % name] = '# %s %d\n' % (name, stamp)
    return files


def _only(files, device):
    """The files of `device` alone: what a render of that device (--limit) puts."""
    return {relative: text for relative, text in files.items()
            if relative.split('/')[1] == device or relative.endswith('/%s.md' % device)}


def _links(generation):
    return {name: os.readlink(os.path.join(generation, 'configs', name))
            for name in os.listdir(os.path.join(generation, 'configs'))}


def _store(generations, expected, timeout=30):
    """Every device directory in the shared store, as a generation's link names it, once it is `expected` or the
    timeout is up: the detached deleter may still be removing what no kept generation links to while this lists."""
    store = os.path.join(generations, 'store')
    deadline = time.monotonic() + timeout
    while True:
        found = set()
        for group in os.listdir(store):
            try:
                found |= {'../../store/%s/configs/%s' % (group, name)
                          for name in os.listdir(os.path.join(store, group, 'configs'))}
            except FileNotFoundError:
                continue  # being deleted
        if found == expected or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def test_renders_in_a_row_link_unchanged_devices_and_delete_what_no_kept_generation_links_to(tmp_path):
    dest, generations = tmp_path / 'lab', tmp_path / '.lab.generations'
    render(dest, _fabric(12))
    for version in range(1, 9):
        changed = {'leaf%d' % (version % 3)}  # a few devices change again and again
        summary = render(dest, _only(_fabric(12, version, changed), 'leaf%d' % (version % 3)), prune=())
        assert summary['written'] == 3 and verify(str(dest)) == []
        kept = generations_after_deletion(generations)
        assert len(kept) == 2 and verify(str(generations / kept[0])) == []  # the previous one, whole too
        current, previous = _links(generations / kept[1]), _links(generations / kept[0])
        # The store holds exactly what the kept generations link to: nothing dangles, nothing is left behind.
        expected = set(current.values()) | set(previous.values())
        assert _store(generations, expected) == expected
        assert current[next(iter(changed))] == '../../store/%s/configs/%s' % (kept[1], next(iter(changed)))
        assert current['leaf11'] == '../../store/g000001/configs/leaf11'  # never changed: written once, linked since
    expected = dict(_fabric(12, 8, {'leaf2'}), **_only(_fabric(12, 7, {'leaf1'}), 'leaf1'))
    expected.update(_only(_fabric(12, 6, {'leaf0'}), 'leaf0'))
    assert tree(dest) == dict(expected, **{'manifest.json': (dest / 'manifest.json').read_text()})


def test_a_render_takes_over_the_links_of_the_generation_it_retires(tmp_path):
    """An inode costs (ext4 without a journal skips every recently freed one for each it allocates): a one-device
    render reuses the links directory of the generation past `keep`, so unchanged devices cost no new inode."""
    dest, generations = tmp_path / 'lab', tmp_path / '.lab.generations'
    render(dest, _fabric(20))
    render(dest, _only(_fabric(20, 1, {'leaf0'}), 'leaf0'), prune=())
    # No generation to retire yet: the links are hard links to the current generation's own, no inode either.
    assert os.lstat(generations / 'g000002' / 'configs' / 'leaf7').st_ino == \
        os.lstat(generations / 'g000001' / 'configs' / 'leaf7').st_ino
    render(dest, _only(_fabric(20, 2, {'leaf0'}), 'leaf0'), prune=())
    first_links = os.lstat(generations / 'g000003' / 'configs' / 'leaf7').st_ino
    render(dest, _only(_fabric(20, 3, {'leaf0'}), 'leaf0'), prune=())
    render(dest, _only(_fabric(20, 4, {'leaf0'}), 'leaf0'), prune=())
    generations_after_deletion(generations)
    # g000005 took over g000003's links (g000003 was past keep when g000005 was made): the same inodes.
    assert os.lstat(generations / 'g000005' / 'configs' / 'leaf7').st_ino == first_links
    assert verify(str(dest)) == [] and verify(str(generations / 'g000004')) == []


def test_a_reader_always_sees_a_whole_generation_while_renders_follow_each_other(tmp_path):
    dest, generations = tmp_path / 'lab', tmp_path / '.lab.generations'
    render(dest, _fabric(30))
    stop, problems, whole = threading.Event(), [], []

    def reader():
        while not stop.is_set():
            try:
                name = os.readlink(dest)  # what a reader resolves once, then reads
            except OSError as exc:
                problems.append('dest does not resolve: %s' % exc)
                continue
            try:
                found = verify(str(tmp_path / name))
            except OSError as exc:  # a file gone under the reader: only a generation retired meanwhile may do that
                found = ['%s' % exc]
            if not found:
                whole.append(name)
            elif os.path.basename(name) in os.listdir(generations):  # not retired (past keep) while it was read
                problems.append('%s: %s' % (name, found[:3]))

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        for version in range(1, 25):
            render(dest, _only(_fabric(30, version, {'leaf%d' % (version % 5)}), 'leaf%d' % (version % 5)), prune=())
    finally:
        stop.set()
        thread.join(60)
    assert problems == [] and len(set(whole)) > 3


def test_a_hand_edit_of_a_linked_device_is_still_found_after_other_renders(tmp_path):
    dest = tmp_path / 'lab'
    render(dest, _fabric(4))
    (dest / 'configs' / 'leaf3' / 'frr.conf').write_text('edited by hand\n')
    render(dest, _only(_fabric(4, 1, {'leaf0'}), 'leaf0'), prune=())
    render(dest, _only(_fabric(4, 2, {'leaf0'}), 'leaf0'), prune=())
    assert verify(str(dest)) == ['configs/leaf3/frr.conf does not match its sha256']
    # Rendering the device again puts back what the render makes.
    render(dest, _fabric(4, 3, {'leaf0'}))
    assert verify(str(dest)) == [] and (dest / 'configs' / 'leaf3' / 'frr.conf').read_text() == 'hostname leaf3\n! 0\n'


def test_a_killed_render_leaves_its_device_directories_to_the_next_render_which_removes_them(tmp_path):
    dest, generations = tmp_path / 'lab', tmp_path / '.lab.generations'
    render(dest, _fabric(3))
    killed = generations / 'store' / 'g000002' / 'configs' / 'leaf0'  # what a SIGKILL mid-render leaves
    killed.mkdir(parents=True)
    (killed / 'frr.conf').write_text('half')
    (generations / 'g000002.partial-999999' / 'configs').mkdir(parents=True)
    os.symlink('../../store/g000002/configs/leaf0', str(generations / 'g000002.partial-999999' / 'configs' / 'leaf0'))
    assert verify(str(dest)) == []
    render(dest, _fabric(3, 1, {'leaf1'}), prune=())
    assert generations_after_deletion(generations) == ['g000001', 'g000002']
    assert (dest / 'configs' / 'leaf0' / 'frr.conf').read_text() == 'hostname leaf0\n! 0\n'
    assert not killed.exists() and verify(str(dest)) == []


def test_a_failed_render_removes_the_device_directories_it_wrote_and_keeps_the_previous(tmp_path):
    dest, generations = tmp_path / 'lab', tmp_path / '.lab.generations'
    render(dest, _fabric(3))
    with pytest.raises(RuntimeError):
        with StagedOutput(str(dest)) as output:
            output.put('configs/leaf0/frr.conf', 'half\n')
            assert (generations / 'store' / 'g000002' / 'configs' / 'leaf0' / 'frr.conf').exists()
            raise RuntimeError('render died')
    assert os.listdir(generations / 'store') == ['g000001'] and verify(str(dest)) == []
    assert (dest / 'configs' / 'leaf0' / 'frr.conf').read_text() == 'hostname leaf0\n! 0\n'


def _old_layout(dest, files):
    """An output as versions before shared device directories wrote it: real directories of hard links."""
    generation = dest.parent / ('.%s.generations' % dest.name) / 'g000007'
    for relative, text in files.items():
        (generation / relative).parent.mkdir(parents=True, exist_ok=True)
        (generation / relative).write_text(text)
    manifest = {'format': 1, 'complete': True, 'generation': 'g000007', 'created': '2026-11-30T00:00:00Z', 'meta': {},
                'files': {relative: hashlib.sha256(text.encode()).hexdigest() for relative, text in files.items()}}
    (generation / 'manifest.json').write_text(json.dumps(manifest))
    os.symlink(os.path.join(generation.parent.name, 'g000007'), str(dest))


def test_the_first_renders_after_an_upgrade_move_an_older_output_to_shared_directories(tmp_path):
    dest, generations = tmp_path / 'lab', tmp_path / '.lab.generations'
    _old_layout(dest, _fabric(5))
    assert verify(str(dest)) == []
    for version in range(1, 4):  # the older generation becomes the previous one, then is retired and taken over
        summary = render(dest, _fabric(5, version, {'leaf0'}), prune=())
        assert summary['written'] == 3 and verify(str(dest)) == []
        assert os.path.islink(dest / 'configs' / 'leaf4')
        assert (dest / 'configs' / 'leaf4' / 'frr.conf').read_text() == 'hostname leaf4\n! 0\n'
    assert generations_after_deletion(generations) == ['g000009', 'g000010']
    expected = set(_links(generations / 'g000009').values()) | set(_links(generations / 'g000010').values())
    assert _store(generations, expected) == expected


def test_a_link_planted_in_the_shared_store_is_refused_not_followed(tmp_path):
    outside = tmp_path / 'outside'
    outside.mkdir()
    dest, generations = tmp_path / 'lab', tmp_path / '.lab.generations'
    render(dest, _fabric(3))
    planted = generations / 'store' / 'g000001' / 'configs' / 'leaf2'
    os.rename(str(planted), str(tmp_path / 'moved'))
    os.symlink(str(outside), str(planted))
    with pytest.raises(OutputError, match='contains a symlink'):
        render(dest, _only(_fabric(3, 1, {'leaf0'}), 'leaf0'), prune=())
    assert os.readlink(dest).endswith('g000001') and os.listdir(outside) == []
    os.unlink(str(planted))
    os.rename(str(tmp_path / 'moved'), str(planted))
    os.rename(str(generations / 'store'), str(tmp_path / 'store'))
    os.symlink(str(tmp_path / 'store'), str(generations / 'store'))
    with pytest.raises(OutputError, match='store is not a plain directory'):
        render(dest, _only(_fabric(3, 1, {'leaf0'}), 'leaf0'), prune=())
