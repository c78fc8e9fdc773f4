"""pytest fixtures that start device doubles for one test and stop them after it.

Use them from any test directory by importing them into that directory's conftest.py:

    from tests.doubles.pytest_doubles import doubles_fleet, eos_double, ssh_double, ssh_key  # noqa: F401

- `eos_double(name, **EosDevice kwargs)` -> (device, server); napalm: `optional_args={'port': server.port}`,
  credentials `device.username` / `device.password`.
- `ssh_double(name, 'sonic'|'nvue', **device facts)` -> (double, connect); `connect(device_type=None)` opens a
  netmiko session (default `linux` for SONiC, `cumulus_linux` for NVUE) with the run's key.
- `doubles_fleet(intent_path, facts=None)` -> a started `Fleet` (endpoints, devices, state_dir_of(name)).
"""

import getpass
import secrets

import pytest

from tests.doubles.ssh.server import SshDouble, generate_key
# The doubles' tests import ROOT from here.
from tests.unit.utils.paths import ROOT  # noqa: F401  pylint: disable=unused-import


@pytest.fixture(scope='session')
def ssh_key(tmp_path_factory):
    """A key pair for this test run; the SSH doubles accept only it."""
    return generate_key(str(tmp_path_factory.mktemp('key') / 'id_ed25519'))


@pytest.fixture
def ssh_double(tmp_path, ssh_key):
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


@pytest.fixture
def eos_double(tmp_path):
    from tests.unit.platforms.eos.double.device import EosDevice
    from tests.unit.platforms.eos.double.server import EapiServer
    started = []

    def start(name, **kwargs):
        kwargs.setdefault('state_dir', str(tmp_path / name))
        device = EosDevice(name, 'admin', secrets.token_urlsafe(16), **kwargs)
        server = EapiServer(device, cert_dir=str(tmp_path)).start()
        started.append(server)
        return device, server
    yield start
    for server in started:
        server.stop()


@pytest.fixture
def doubles_fleet(tmp_path):
    from tests.doubles.fleet import Fleet, load_design
    started = []

    def start(intent_path, facts=None):
        fleet = Fleet(load_design(intent_path), str(tmp_path / 'fleet'), facts=facts).start()
        started.append(fleet)
        return fleet
    yield start
    for fleet in started:
        fleet.stop()
