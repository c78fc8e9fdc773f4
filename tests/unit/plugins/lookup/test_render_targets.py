# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The aifabric.fabric.render_targets lookup: which fabrics playbooks/render.yml renders, with which intent, directory
and devices, and the problems it stops on (their messages name what to set)."""

import os

import pytest
from hypothesis import given, strategies as st

from ansible import context
from ansible.errors import AnsibleLookupError
from ansible.plugins.loader import lookup_loader
from ansible_collections.aifabric.fabric.plugins.lookup.render_targets import device_list, render_targets

LAB_HOSTS = ['leaf001', 'leaf002', 'spine001', 'gpu0001']
OTHER_HOSTS = ['oleaf1', 'o1']
HOST_VARS = {host: {'aifabric_intent': '/p/fabrics/%s.yml' % fabric, 'aifabric_output_dir': '/p/out/%s' % fabric}
             for fabric, hosts in (('lab', LAB_HOSTS), ('other', OTHER_HOSTS)) for host in hosts}


def _groups(*fabrics):
    groups = {'all': [], 'ungrouped': [], 'leaf': ['leaf001', 'leaf002', 'oleaf1'], 'fabric_empty': []}
    groups.update(('fabric_' + name, hosts) for name, hosts in (('lab', LAB_HOSTS), ('other', OTHER_HOSTS))
                  if name in fabrics)
    return groups


def _targets(groups, play_hosts=('localhost',), limit='', **options):
    return render_targets(groups, list(play_hosts), lambda host, name: HOST_VARS[host].get(name), limit=limit,
                          **options)


def _problem(*args, **kwargs):
    with pytest.raises(AnsibleLookupError) as caught:
        _targets(*args, **kwargs)
    return str(caught.value)


def test_every_fabric_group_with_hosts_is_rendered_whole_into_its_inventory_directory():
    assert _targets(_groups('lab', 'other')) == [
        {'fabric': 'lab', 'intent': '/p/fabrics/lab.yml', 'directory': '/p/out/lab', 'by_base': False,
         'group': 'fabric_lab', 'devices': None},
        {'fabric': 'other', 'intent': '/p/fabrics/other.yml', 'directory': '/p/out/other', 'by_base': False,
         'group': 'fabric_other', 'devices': None}]


def test_dest_wins_over_out_and_out_over_the_inventory_directory():
    assert [(item['directory'], item['by_base']) for item in _targets(_groups('lab', 'other'), out='/base')] == \
        [('/base', True), ('/base', True)]
    (item,) = _targets(_groups('lab'), out='/base', dest='/exact')
    assert (item['directory'], item['by_base']) == ('/exact', False)


def test_a_limit_renders_the_hosts_it_names_of_the_fabrics_it_names():
    (item,) = _targets(_groups('lab', 'other'), play_hosts=['spine001', 'leaf001'], limit='leaf001,spine001')
    assert (item['fabric'], item['devices']) == ('lab', ['leaf001', 'spine001'])  # the fabric's order
    both = _targets(_groups('lab', 'other'), play_hosts=['leaf001', 'oleaf1'], limit='leaf')
    assert [(item['fabric'], item['devices']) for item in both] == [('lab', ['leaf001']), ('other', ['oleaf1'])]


def test_a_device_list_wins_over_the_limit_and_goes_to_every_fabric():
    items = _targets(_groups('lab', 'other'), play_hosts=['leaf001'], limit='leaf001', devices='spine001, o1')
    assert [(item['fabric'], item['devices']) for item in items] == [('lab', ['spine001', 'o1']),
                                                                     ('other', ['spine001', 'o1'])]


@given(st.lists(st.text(st.characters(blacklist_categories=['Z', 'C'], blacklist_characters=','), min_size=1),
                max_size=8), st.lists(st.sampled_from([',', ' ', ', ', '\n', '\t', ' ,\n']), min_size=8, max_size=8))
def test_a_device_text_is_names_between_commas_or_white_space(names, separators):
    """A survey answer: one text of names, any separators, the same names as the list."""
    text = ''.join(name + separator for name, separator in zip(names, separators))
    assert device_list(text) == device_list(names) == names


@pytest.mark.parametrize('unset', ['', None, []])
def test_an_empty_survey_answer_is_unset(unset):
    (item,) = _targets(_groups('lab'), intent=unset, out=unset, dest=unset, devices=unset)
    assert (item['directory'], item['by_base'], item['devices']) == ('/p/out/lab', False, None)


def test_an_intent_is_rendered_instead_of_the_inventory_fabrics(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / 'pod.yml').write_text('name: pod\n')
    (item,) = _targets(_groups('lab'), play_hosts=['leaf001'], limit='leaf001', intent='pod.yml', out='/base')
    assert item == {'fabric': 'pod.yml', 'intent': str(tmp_path / 'pod.yml'), 'directory': '/base', 'by_base': True,
                    'group': None, 'devices': None}


def test_a_limit_that_names_no_device_of_a_fabric():
    message = _problem(_groups('lab', 'other'), play_hosts=['router1'], limit='router1')
    assert message == ("The limit 'router1' names no device of fabric empty, lab, other: name devices or groups of the "
                       "fabric (--limit leaf001,spine001 or --limit rail_0), set aifabric_render_devices (a list, or "
                       "one text of names), or run without --limit to render every device.")
    # a device list or an intent says what to render: the limit then only picks the play's host
    assert _targets(_groups('lab'), play_hosts=['router1'], limit='router1', devices=['leaf001'])[0]['devices'] == \
        ['leaf001']


def test_no_fabric():
    message = _problem({'all': [], 'ungrouped': ['localhost'], 'fabric_empty': []})
    assert message.startswith('No fabric to render: the inventory has no fabric (no fabric_<name> group). Use an '
                              'inventory configuration of the aifabric.fabric.fabric inventory plugin')
    assert 'whose first line is "plugin: aifabric.fabric.fabric"' in message and 'aifabric_render_intent' in message


def test_one_dest_for_two_fabrics():
    assert _problem(_groups('lab', 'other'), dest='/exact') == (
        'aifabric_render_dest names one directory but the inventory has 2 fabrics (lab, other); set '
        'aifabric_render_out (one subdirectory per fabric) or aifabric_render_intent instead.')
    assert len(_targets(_groups('lab', 'other'), play_hosts=['o1'], limit='o1', dest='/exact')) == 1


def test_no_output_directory():
    message = ('No output directory: an intent rendered without its inventory needs aifabric_render_out (base '
               'directory, one subdirectory per fabric) or aifabric_render_dest (exact directory).')
    assert _problem(_groups('lab'), intent='fabrics/lab.yml') == message

    def other_without_directory(host, name):  # a fabric whose inventory names no output directory
        return None if host in OTHER_HOSTS and name == 'aifabric_output_dir' else HOST_VARS[host][name]
    with pytest.raises(AnsibleLookupError, match='^No output directory: '):
        render_targets(_groups('lab', 'other'), [], other_without_directory)
    assert len(render_targets(_groups('lab', 'other'), [], other_without_directory, out='/base')) == 2


@pytest.mark.parametrize('subset, devices', [(None, None), ('leaf00*', ['leaf001', 'leaf002'])])
def test_the_plugin_reads_the_limit_from_the_command_line_and_the_hosts_from_the_task_variables(
        monkeypatch, subset, devices):
    """The limit as Ansible parsed it (context.CLIARGS), never the templated ansible_limit (which it never reads)."""
    monkeypatch.setattr(context, 'CLIARGS', {'subset': subset})
    variables = {'groups': _groups('lab'), 'ansible_play_hosts_all': ['leaf001', 'leaf002'],
                 'hostvars': HOST_VARS, 'ansible_limit': "{{ lookup('pipe', 'touch /tmp/never') }}"}
    (item,) = lookup_loader.get('aifabric.fabric.render_targets').run([], variables=variables, out='', dest=None)
    assert (item['fabric'], item['intent'], item['directory'], item['devices']) == (
        'lab', '/p/fabrics/lab.yml', '/p/out/lab', devices)
    assert not os.path.exists('/tmp/never')
