"""Fixtures that start device doubles for a test and stop them after it (see tests/doubles/README.md)."""

import getpass
import os

import pytest

from tests.doubles.ssh.server import SshDouble, generate_key

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GOLDEN = os.path.join(ROOT, 'tests', 'unit', 'golden')


@pytest.fixture(scope='session')
def ssh_key(tmp_path_factory):
    """A key pair for this test run; the doubles accept only it."""
    return generate_key(str(tmp_path_factory.mktemp('key') / 'id_ed25519'))


@pytest.fixture
def ssh_double(tmp_path, ssh_key):
    """start(name, kind, **device facts) -> (double, netmiko connection factory); every double stops after the test."""
    started = []

    def start(name, kind, **device):
        with open(ssh_key + '.pub', encoding='utf-8') as handle:
            double = SshDouble(name, kind, str(tmp_path / name), handle.read(), device=device).start()
        started.append(double)

        def connect(device_type=None):
            from netmiko import ConnectHandler
            return ConnectHandler(device_type=device_type or ('linux' if kind == 'sonic' else 'cumulus_linux'),
                                  host=double.host, port=double.port, username=getpass.getuser(),
                                  use_keys=True, key_file=ssh_key, allow_agent=False, timeout=20)
        return double, connect
    yield start
    for double in started:
        double.stop()
