"""SSH host keys are checked by default: by Ansible with the repository's ansible.cfg (what checkout users run with) and
by the deploy's own SSH sessions, against the SONiC SSH double (a real OpenSSH server)."""

import configparser
import getpass
import os
import subprocess

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import transport
from tests.unit.utils.paths import ROOT


def test_the_repository_ansible_cfg_checks_host_keys():
    config = configparser.ConfigParser()
    config.read(os.path.join(ROOT, 'ansible.cfg'))
    assert config.getboolean('defaults', 'host_key_checking', fallback=True) is True
    ssh_args = config.get('ssh_connection', 'ssh_args', fallback='')
    assert 'StrictHostKeyChecking=no' not in ssh_args and 'UserKnownHostsFile=/dev/null' not in ssh_args


def _settings(double, ssh_key, known_hosts):
    return transport.ShellSettings.from_host_vars('leaf002', {
        'ansible_host': double.host, 'ansible_port': double.port, 'ansible_user': getpass.getuser(),
        'ansible_ssh_private_key_file': ssh_key, 'aifabric_ssh_known_hosts': known_hosts,
        'ansible_command_timeout': 20})


@pytest.mark.parametrize('known', ['right', 'other', 'none'])
def test_the_deploy_session_checks_the_switch_host_key(ssh_double, ssh_key, tmp_path, known):
    double, _connect = ssh_double('leaf002', 'sonic')
    with open(os.path.join(double.state_dir, 'etc', 'ssh_host_ed25519_key.pub'), encoding='utf-8') as handle:
        right = ' '.join(handle.read().split()[:2])
    subprocess.run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-f', str(tmp_path / 'other')], check=True)
    other = ' '.join((tmp_path / 'other.pub').read_text().split()[:2])  # another switch's key
    known_hosts = tmp_path / 'known_hosts'
    known_hosts.write_text({'right': '[%s]:%d %s\n' % (double.host, double.port, right),
                            'other': '[%s]:%d %s\n' % (double.host, double.port, other), 'none': ''}[known])
    settings = _settings(double, ssh_key, str(known_hosts))
    assert settings.host_key_checking  # the default
    if known == 'right':
        with transport.shell_session(settings) as shell:
            assert shell.run('echo ok', 'probe')[1].strip() == 'ok'
        return
    with pytest.raises(transport.TransportError) as refused:
        with transport.shell_session(settings):
            pass
    assert str(refused.value).startswith('leaf002: SSH connection to ')
    message = str(refused.value)
    assert ('does not match' if known == 'other' else 'not found in known_hosts') in message, message
