# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A deploy pushes the generation the user reviewed: the device's files as the manifest lists them, only while the
intent is the one they were rendered from; missing, incomplete, altered or stale output is refused with what to do."""

import os

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.deploy.reviewed import (
    NotReviewed, render_meta, reviewed_files)
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.output import StagedOutput, read_manifest

ROOTS = ('configs', 'docs')
NAMES = ('frr.conf', 'interfaces.json')


def files_of(device, text='v1'):
    return {'configs/%s/%s' % (device, name): '%s %s %s\n' % (device, name, text) for name in NAMES}


def render(dest, intent, devices, text='v1', all_devices=()):
    """A render of `devices` from `intent`, as the render action records it."""
    with StagedOutput(str(dest)) as output:
        for device in devices:
            for relative, content in files_of(device, text).items():
                output.put(relative, content)
        previous = read_manifest(os.path.realpath(str(dest))) if os.path.isdir(str(dest)) else None
        return output.finish(roots=ROOTS, prune=() if all_devices else ROOTS,
                             meta=dict(render_meta(str(intent), devices, all_devices, previous), fabric='lab'))


@pytest.fixture
def intent(tmp_path):
    path = tmp_path / 'intent.yml'
    path.write_text('name: lab\n')
    return path


def test_the_reviewed_files_of_a_device(tmp_path, intent):
    dest = tmp_path / 'out' / 'lab'
    render(dest, intent, ['leaf001', 'leaf002'])
    assert reviewed_files(str(dest), 'leaf001', NAMES, str(intent)) == {
        name: 'leaf001 %s v1\n' % name for name in NAMES}


def test_no_rendered_output_is_refused(tmp_path, intent):
    with pytest.raises(NotReviewed, match=r'holds no rendered output .*render the fabric \(playbooks/render.yml\)'):
        reviewed_files(str(tmp_path / 'out' / 'lab'), 'leaf001', NAMES, str(intent))
    with pytest.raises(NotReviewed, match='no output directory of the fabric is known'):
        reviewed_files('', 'leaf001', NAMES, str(intent))


def test_an_intent_changed_since_the_render_is_refused(tmp_path, intent):
    dest = tmp_path / 'out' / 'lab'
    render(dest, intent, ['leaf001'])
    intent.write_text('name: lab\n# other timers\n')
    with pytest.raises(NotReviewed, match='has changed since leaf001 was rendered'):
        reviewed_files(str(dest), 'leaf001', NAMES, str(intent))


def test_a_render_that_changes_no_file_still_records_the_new_intent(tmp_path, intent):
    dest = tmp_path / 'out' / 'lab'
    render(dest, intent, ['leaf001'])
    intent.write_text('name: lab\n# a comment: the files stay the same\n')
    summary = render(dest, intent, ['leaf001'])
    assert summary['changed'] is False and summary['generation'] == 'g000002', 'a new generation, nothing written'
    assert reviewed_files(str(dest), 'leaf001', NAMES, str(intent))['frr.conf'] == 'leaf001 frr.conf v1\n'
    again = render(dest, intent, ['leaf001'])
    assert again['generation'] is None, 'the same render again makes no generation'


def test_an_altered_file_is_refused(tmp_path, intent):
    dest = tmp_path / 'out' / 'lab'
    render(dest, intent, ['leaf001'])
    path = os.path.join(os.path.realpath(str(dest)), 'configs', 'leaf001', 'frr.conf')
    with open(path, 'a', encoding='utf-8') as handle:
        handle.write('router bgp 1\n')
    with pytest.raises(NotReviewed, match='configs/leaf001/frr.conf in .* differs from what was rendered'):
        reviewed_files(str(dest), 'leaf001', NAMES, str(intent))


def test_a_device_the_render_left_out_is_refused(tmp_path, intent):
    dest = tmp_path / 'out' / 'lab'
    render(dest, intent, ['leaf001'])
    with pytest.raises(NotReviewed, match='configs/leaf002/frr.conf is not in the rendered output'):
        reviewed_files(str(dest), 'leaf002', NAMES, str(intent))


def test_a_render_of_some_devices_keeps_what_the_others_were_rendered_from(tmp_path, intent):
    dest = tmp_path / 'out' / 'lab'
    fabric = ['leaf001', 'leaf002']
    render(dest, intent, fabric)
    intent.write_text('name: lab\n# leaf002 changes\n')
    render(dest, intent, ['leaf002'], text='v2', all_devices=fabric)
    assert reviewed_files(str(dest), 'leaf002', NAMES, str(intent))['frr.conf'] == 'leaf002 frr.conf v2\n'
    with pytest.raises(NotReviewed, match='has changed since leaf001 was rendered'):
        reviewed_files(str(dest), 'leaf001', NAMES, str(intent))


def test_an_optional_file_is_read_where_the_render_made_it(tmp_path, intent):
    """SONiC's local-users.json exists only where the intent lists users: read with the others when rendered, and
    its absence is no error."""
    dest = tmp_path / 'out' / 'lab'
    render(dest, intent, ['leaf001'])
    assert set(reviewed_files(str(dest), 'leaf001', NAMES[:1], str(intent), optional=NAMES[1:])) == set(NAMES)
    assert set(reviewed_files(str(dest), 'leaf001', NAMES, str(intent), optional=('local-users.json',))) == set(NAMES)
