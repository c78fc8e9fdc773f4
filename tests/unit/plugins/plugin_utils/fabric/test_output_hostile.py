# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The staged output writer against what an unlucky or hostile user leaves in or around the output directory.

The corpus below (HOSTILE_DESTS) lists output directories that must be refused before anything is written, each with
the words of the error; every case leaves every file where it was. Then: the collection never deletes what it did not
write, a directory named by the user is taken over keeping its files, write errors (EPERM, EROFS, ENOSPC) are one
sentence naming the path, and files that carry password hashes are readable by their owner only.
"""

import json
import os
import subprocess
import sys

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.output import (
    OutputError, StagedOutput, read_manifest, verify)
from tests.unit.utils.files import read_tree
from tests.unit.utils.paths import ROOT

ROOTS = ('configs', 'docs')
FILES = {'configs/leaf1/frr.conf': 'hostname leaf1\n', 'configs/leaf2/frr.conf': 'hostname leaf2\n',
         'docs/index.md': '# lab\n'}


def render(dest, files=None, prune=ROOTS, **options):
    with StagedOutput(str(dest), **options) as output:
        for relative, text in (files or FILES).items():
            output.put(relative, text)
        return output.finish(roots=ROOTS, prune=prune, meta={'test': True})


def _everything(top):
    """Every path under `top` (links not followed) with its content or link target: what must not change."""
    found = {}
    for directory, dirs, files in os.walk(str(top)):
        for name in dirs + files:
            path = os.path.join(directory, name)
            if os.path.islink(path):
                found[path] = 'link -> ' + os.readlink(path)
            elif os.path.isfile(path):
                with open(path, 'rb') as handle:
                    found[path] = handle.read()
            else:
                found[path] = 'dir'
    return found


def _user_files(tmp_path):
    """A directory of the user's own: notes and a router configuration under the names the render uses."""
    dest = tmp_path / 'lab'
    (dest / 'docs').mkdir(parents=True)
    (dest / 'docs' / 'notes.md').write_text('my notes\n')
    (dest / 'configs').mkdir()
    (dest / 'configs' / 'router.cfg').write_text('hostname router\n')
    return dest


def _planted_generations_link(tmp_path):
    victim = tmp_path / 'victim'
    victim.mkdir()
    (victim / 'g000001.partial-1').mkdir()  # what the writer would remove there
    (victim / 'precious.txt').write_text('keep\n')
    os.symlink(str(victim), str(tmp_path / '.lab.generations'))
    return tmp_path / 'lab'


def _generations_file(tmp_path):
    (tmp_path / '.lab.generations').write_text('not a directory\n')
    return tmp_path / 'lab'


def _dangling_generations_link(tmp_path):
    os.symlink(str(tmp_path / 'nowhere'), str(tmp_path / '.lab.generations'))
    return tmp_path / 'lab'


def _generations_link_after_a_render(tmp_path):
    """A complete render, then its generations directory replaced by a link to a look-alike elsewhere."""
    render(tmp_path / 'lab')
    elsewhere = tmp_path / 'elsewhere'
    os.rename(str(tmp_path / '.lab.generations'), str(elsewhere))
    os.symlink(str(elsewhere), str(tmp_path / '.lab.generations'))
    return tmp_path / 'lab'


def _old_plain_output_without_manifest(tmp_path):
    dest = tmp_path / 'lab'
    (dest / 'configs' / 'leaf1').mkdir(parents=True)
    (dest / 'configs' / 'leaf1' / 'frr.conf').write_text('hostname leaf1\n')
    return dest


HOSTILE_DESTS = {
    'user-files': (_user_files, 'no render made'),
    'old-plain-output-without-manifest': (_old_plain_output_without_manifest, 'no render made'),
    'generations-symlink': (_planted_generations_link, 'is a symlink'),
    'generations-dangling-symlink': (_dangling_generations_link, 'is a symlink'),
    'generations-file': (_generations_file, 'is not a directory'),
    'generations-symlink-after-render': (_generations_link_after_a_render, 'is a symlink'),
}


@pytest.mark.parametrize('case', sorted(HOSTILE_DESTS))
def test_a_hostile_output_directory_is_refused_and_nothing_moves(tmp_path, case):
    make, words = HOSTILE_DESTS[case]
    dest = make(tmp_path)
    before = _everything(tmp_path)
    before.pop(str(tmp_path / '.lab.lock'), None)  # the lock file is the writer's own
    with pytest.raises(OutputError) as caught:
        render(dest)
    assert words in str(caught.value), str(caught.value)
    assert str(tmp_path) in str(caught.value)  # the path is named
    after = _everything(tmp_path)
    after.pop(str(tmp_path / '.lab.lock'), None)  # the lock file is the writer's own
    assert after == before


def test_user_files_are_refused_with_the_way_to_ask_for_them(tmp_path):
    dest = _user_files(tmp_path)
    with pytest.raises(OutputError) as caught:
        render(dest)
    message = str(caught.value)
    assert 'take_over' in message and 'docs/notes.md' in message or 'configs/router.cfg' in message, message


def test_a_directory_taken_over_by_name_keeps_every_file_of_its_owner(tmp_path):
    dest = _user_files(tmp_path)
    summary = render(dest, take_over=True)
    assert summary['removed'] == []
    tree = read_tree(dest)
    assert tree['docs/notes.md'] == b'my notes\n' and tree['configs/router.cfg'] == b'hostname router\n'
    manifest = read_manifest(str(dest))
    assert set(manifest['files']) == set(FILES)  # the user's files are carried, never listed as the render's
    # Later whole renders prune what the collection wrote and no longer produces, never the user's files.
    render(dest, {'configs/leaf1/frr.conf': 'hostname leaf1\n', 'docs/index.md': '# lab\n'})
    tree = read_tree(dest)
    assert 'configs/leaf2/frr.conf' not in tree
    assert tree['docs/notes.md'] == b'my notes\n' and tree['configs/router.cfg'] == b'hostname router\n'
    assert verify(str(dest)) == []


def test_files_added_to_a_render_by_hand_are_never_pruned(tmp_path):
    dest = tmp_path / 'lab'
    render(dest)
    (dest / 'configs' / 'leaf1' / 'local-notes.txt').write_text('mine\n')  # into the current generation
    summary = render(dest, {'configs/leaf1/frr.conf': 'hostname leaf1\n', 'docs/index.md': '# lab\n'})
    assert summary['removed'] == ['configs/leaf2/frr.conf']
    assert (dest / 'configs' / 'leaf1' / 'local-notes.txt').read_text() == 'mine\n'


def test_an_empty_directory_and_an_earlier_plain_render_are_used_as_they_are(tmp_path):
    (tmp_path / 'empty').mkdir()
    assert render(tmp_path / 'empty')['written'] == 3
    render(tmp_path / 'lab')
    copy = tmp_path / 'copy'  # a complete render copied as a plain directory (cp -r): its manifest says so
    subprocess.run(['cp', '-rL', str(tmp_path / 'lab'), str(copy)], check=True)
    summary = render(copy, {'configs/leaf1/frr.conf': 'hostname leaf1\n', 'docs/index.md': '# lab\n'})
    assert summary['removed'] == ['configs/leaf2/frr.conf'] and os.path.islink(copy)


# ------------------------------------------------------------------ write errors
def _immutable(path):
    subprocess.run(['chattr', '+i', str(path)], check=True)


def _mutable(path):
    subprocess.run(['chattr', '-i', str(path)], check=False)


def test_a_write_refused_by_the_file_system_names_the_path_and_changes_nothing(tmp_path):
    """EPERM (an immutable directory: root is refused too): OutputError naming the directory, no traceback."""
    dest = tmp_path / 'out' / 'lab'
    render(dest)
    before = read_tree(dest)
    generations = tmp_path / 'out' / '.lab.generations'
    _immutable(generations)
    try:
        with pytest.raises(OutputError) as caught:
            render(dest, dict(FILES, **{'docs/index.md': '# changed\n'}))
    finally:
        _mutable(generations)
    message = str(caught.value)
    assert str(generations) in message and 'Operation not permitted' in message, message
    assert read_tree(dest) == before and verify(str(dest)) == []


SMALL_DISK = r'''
import sys
sys.path.insert(0, sys.argv[1])
import tests.conftest
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.output import OutputError, StagedOutput
dest = sys.argv[2]
with StagedOutput(dest) as output:
    output.put('configs/leaf1/frr.conf', 'hostname leaf1\n')
    output.finish(roots=['configs'], prune=['configs'])
try:
    with StagedOutput(dest) as output:
        for index in range(400):
            output.put('configs/leaf%d/frr.conf' % index, 'x' * 4000)
        output.finish(roots=['configs'], prune=['configs'])
except OutputError as error:
    print('OutputError: %s' % error)
with open(dest + '/configs/leaf1/frr.conf') as handle:
    print('kept: %r' % handle.read())
'''


READ_ONLY = r'''
import sys
sys.path.insert(0, sys.argv[1])
import tests.conftest
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.output import OutputError, StagedOutput
try:
    StagedOutput(sys.argv[2]).open()
except OutputError as error:
    print('OutputError: %s' % error)
'''


def _on_a_small_disk(tmp_path, mount_options, script):
    """`script` run by Python with (ROOT, <disk>/lab) on a 256 KiB tmpfs mounted at <disk> in a private mount namespace
    (nothing outside the test sees it); (the disk, the finished process)."""
    disk = tmp_path / 'disk'
    disk.mkdir()
    shell = 'mount -t tmpfs -o size=256k%s tmpfs "$1" && exec "$2" -c "$3" "$4" "$1/lab"' % mount_options
    result = subprocess.run(['unshare', '--mount', '--propagation', 'private', 'sh', '-c', shell, 'sh', str(disk),
                             sys.executable, script, ROOT], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0 and 'Traceback' not in result.stderr, result.stderr
    return disk, result.stdout.splitlines()


def test_a_full_disk_names_the_file_and_leaves_the_previous_output(tmp_path):
    disk, lines = _on_a_small_disk(tmp_path, '', SMALL_DISK)
    assert lines[0].startswith('OutputError: cannot write %s/.lab.generations/' % disk), lines
    assert 'No space left on device' in lines[0] and lines[1] == "kept: 'hostname leaf1\\n'", lines


def test_a_read_only_file_system_names_the_directory(tmp_path):
    disk, lines = _on_a_small_disk(tmp_path, ',ro', READ_ONLY)
    assert lines[0].startswith('OutputError: ') and str(disk) in lines[0] and 'Read-only file system' in lines[0], lines


# ------------------------------------------------------------------ secrets on disk
@pytest.mark.parametrize('umask', [0o022, 0o000])
def test_files_marked_private_are_readable_by_their_owner_only(tmp_path, umask):
    previous = os.umask(umask)
    try:
        with StagedOutput(str(tmp_path / 'lab')) as output:
            output.put('configs/leaf1/startup-config.cfg', 'username admin secret sha512 $6$x$y\n', private=True)
            output.put('configs/leaf1/notes.md', 'public\n')
            output.finish(roots=ROOTS)
    finally:
        os.umask(previous)
    assert os.stat(tmp_path / 'lab' / 'configs/leaf1/startup-config.cfg').st_mode & 0o777 == 0o600
    assert os.stat(tmp_path / 'lab' / 'configs/leaf1/notes.md').st_mode & 0o777 == 0o644


def test_an_unchanged_file_that_becomes_private_is_written_again_with_the_private_mode(tmp_path):
    render(tmp_path / 'lab', {'configs/leaf1/a.cfg': 'secret\n'})
    summary = None
    with StagedOutput(str(tmp_path / 'lab')) as output:
        assert output.put('configs/leaf1/a.cfg', 'secret\n', private=True) == 'written'
        summary = output.finish(roots=ROOTS)
    assert summary['changed'] and os.stat(tmp_path / 'lab' / 'configs/leaf1/a.cfg').st_mode & 0o777 == 0o600
    assert json.loads((tmp_path / 'lab' / 'manifest.json').read_text())['files']['configs/leaf1/a.cfg']
