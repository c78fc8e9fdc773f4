# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet reader's SSH settings (state/ssh.py) come from a host's Ansible variables as Ansible's ssh connection
takes them, and what it cannot honour as OpenSSH would is refused (ReadFailed: the per-host path reads that host)."""

from __future__ import annotations

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.reader import ReadFailed
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.ssh import SshSettings, ssh_options


def test_ansible_defaults():
    settings = SshSettings.from_host_vars('leaf001', {'ansible_host': '192.0.2.1', 'ansible_user': 'admin'})
    assert (settings.host, settings.port, settings.username, settings.timeout) == ('192.0.2.1', 22, 'admin', 10)
    assert settings.host_key_checking and settings.known_hosts is None and settings.key_file is None
    # no ansible_host: the inventory name, as Ansible connects to it
    assert SshSettings.from_host_vars('leaf001', {}).host == 'leaf001'


def test_the_variables_ansible_takes():
    settings = SshSettings.from_host_vars('leaf001', {
        'ansible_host': '192.0.2.1', 'ansible_port': '2222', 'ansible_user': 'admin', 'ansible_ssh_pass': 's3cret',
        'ansible_private_key_file': '~/.ssh/id_ed25519', 'ansible_timeout': 7})
    assert (settings.port, settings.password, settings.key_file, settings.timeout) == (2222, 's3cret', '~/.ssh/id_ed25519', 7)
    assert 's3cret' not in repr(settings)


@pytest.mark.parametrize('args, checking, known', [
    ('-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null', False, '/dev/null'),
    ('-o "StrictHostKeyChecking yes" -o UserKnownHostsFile=/tmp/kh', True, '/tmp/kh'),
    ('-C -o ControlMaster=auto -o ControlPersist=60s -o ServerAliveInterval=10', True, None),
])
def test_the_trust_options_of_ssh_common_args(args, checking, known):
    settings = SshSettings.from_host_vars('leaf001', {'ansible_ssh_common_args': args})
    assert (settings.host_key_checking, settings.known_hosts) == (checking, known)


def test_host_key_checking_precedence():
    assert not SshSettings.from_host_vars('x', {'ansible_host_key_checking': False}).host_key_checking
    assert not SshSettings.from_host_vars('x', {}, default_host_key_checking=False).host_key_checking
    # the collection's own variable has the last word, as for the deploy's sessions
    assert SshSettings.from_host_vars('x', {'ansible_ssh_common_args': '-o StrictHostKeyChecking=no',
                                            'aifabric_ssh_host_key_checking': True}).host_key_checking
    # -o in the arguments wins over the host variable, as OpenSSH applies its command line last
    assert SshSettings.from_host_vars('x', {'ansible_host_key_checking': True,
                                            'ansible_ssh_extra_args': '-o StrictHostKeyChecking=no'}).host_key_checking is False
    # -o Port and -o User name the endpoint as they would for OpenSSH
    settings = SshSettings.from_host_vars('x', {'ansible_port': 22, 'ansible_ssh_extra_args': '-o Port=2200 -o User=ops'})
    assert (settings.port, settings.username) == (2200, 'ops')


@pytest.mark.parametrize('variables, named', [
    ({'ansible_ssh_common_args': '-o ProxyJump=bastion.example.net'}, 'proxyjump'),
    ({'ansible_ssh_common_args': '-o ProxyCommand="ssh -W %h:%p bastion"'}, 'proxycommand'),
    ({'ansible_ssh_extra_args': '-J bastion'}, "'-J'"),
    ({'ansible_connection': 'community.docker.docker'}, 'community.docker.docker'),
    ({'ansible_connection': 'ansible.netcommon.network_cli'}, 'network_cli'),
    ({'ansible_port': 'twenty-two'}, 'ansible_port'),
    ({'ansible_ssh_common_args': '-o "unterminated'}, 'cannot be read'),
])
def test_what_the_fleet_reader_cannot_take_as_openssh_would_is_left_to_the_per_host_path(variables, named):
    with pytest.raises(ReadFailed) as raised:
        SshSettings.from_host_vars('gpu0001', variables)
    assert raised.value.device == 'gpu0001' and named in str(raised.value)


def test_ssh_options_forms():
    assert ssh_options('x', "-o A=1 -oB=2 -o 'C 3' -C") == {'a': '1', 'b': '2', 'c': '3'}
