# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Arista eAPI (JSON-RPC over HTTPS) from the controller, with napalm's `eos` driver, whose pyeapi node runs the
commands. The connection settings come from the host's Ansible variables (the `ansible_httpapi_*` names that
ansible.netcommon's httpapi connection uses, so one inventory serves both)."""

from __future__ import annotations

import contextlib
import ssl
from dataclasses import dataclass, field

from ...state.reader import Reader, Target
from ...transport import CONNECT_TIMEOUTS, TransportError, deadline, safe_message

# The host variables eAPI reads (templated by the caller; EapiSettings.from_host_vars says what each does).
VARIABLES = ('ansible_host', 'ansible_user', 'ansible_password', 'ansible_httpapi_user', 'ansible_httpapi_pass',
             'ansible_httpapi_port', 'ansible_httpapi_use_ssl', 'ansible_httpapi_validate_certs',
             'ansible_httpapi_ca_path', 'ansible_command_timeout')


@dataclass(frozen=True)
class EapiSettings:
    """How to reach one switch's eAPI. The password is kept out of repr()."""

    device: str
    host: str
    username: str
    password: str = field(repr=False)
    port: int | None = None
    use_ssl: bool = True
    validate_certs: bool = True
    ca_file: str | None = None
    timeout: int = 30

    @classmethod
    def from_host_vars(cls, device, host_vars):
        """From a host's (templated) variables: ansible_host, ansible_user, ansible_password, ansible_httpapi_port,
        ansible_httpapi_use_ssl, ansible_httpapi_validate_certs, ansible_httpapi_ca_path (Ansible's defaults:
        HTTPS, certificates validated)."""
        def flag(name, default):
            value = host_vars.get(name, default)
            return value if isinstance(value, bool) else str(value).strip().lower() in ('1', 'true', 'yes', 'on')

        username = host_vars.get('ansible_user') or host_vars.get('ansible_httpapi_user')
        password = host_vars.get('ansible_password') or host_vars.get('ansible_httpapi_pass')
        missing = [name for name, value in (('ansible_user', username), ('ansible_password', password)) if not value]
        if missing:
            raise TransportError(device, 'eAPI login', 'no %s set for this host (eAPI logs in with them)'
                                 % ' / '.join(missing))
        port = host_vars.get('ansible_httpapi_port')
        try:
            port = int(port) if port not in (None, '') else None
        except (TypeError, ValueError):
            raise TransportError(device, 'eAPI settings', 'ansible_httpapi_port must be a port number, got %r'
                                 % (port,)) from None
        return cls(device=device, host=str(host_vars.get('ansible_host') or device), username=str(username),
                   password=str(password), port=port, use_ssl=flag('ansible_httpapi_use_ssl', True),
                   validate_certs=flag('ansible_httpapi_validate_certs', True),
                   ca_file=host_vars.get('ansible_httpapi_ca_path') or None,
                   timeout=int(host_vars.get('ansible_command_timeout') or 30))

    def endpoint(self) -> str:
        return '%s://%s:%s' % ('https' if self.use_ssl else 'http', self.host, self.port or (443 if self.use_ssl else 80))


def _napalm_driver(settings):
    from napalm import get_network_driver  # pylint: disable=import-outside-toplevel
    optional = {'transport': 'https' if settings.use_ssl else 'http'}
    if settings.port:
        optional['port'] = settings.port
    if settings.use_ssl:
        if settings.validate_certs:
            optional['context'] = ssl.create_default_context(cafile=settings.ca_file)
        else:
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE  # the operator asked for it: ansible_httpapi_validate_certs=false
            optional['context'] = context
    return get_network_driver('eos')(settings.host, settings.username, settings.password, timeout=settings.timeout,
                                     optional_args=optional)


@contextlib.contextmanager
def eapi_session(settings):
    """An opened napalm eos driver (napalm opens with `show version`, so a wrong password fails here)."""
    driver = _napalm_driver(settings)
    step = 'eAPI connection to %s' % settings.endpoint()
    try:
        with deadline(CONNECT_TIMEOUTS * settings.timeout, settings.device, step):
            driver.open()
    except TransportError:
        raise
    except Exception as error:  # napalm, pyeapi and socket errors alike: one sentence, no traceback
        raise TransportError(settings.device, step, safe_message(error, settings)) from None
    try:
        yield driver
    finally:
        with contextlib.suppress(Exception):
            driver.close()


def eapi_json(driver, settings, commands) -> list:
    """The JSON result of each command ({'errors': [...]} for a command the switch refused), in order.

    One runCmds request for all of them; eAPI stops at the first refused command, so a refusal is followed by one
    request per command to keep every other result."""
    from pyeapi.eapilib import CommandError  # pylint: disable=import-outside-toplevel
    node = driver.device
    try:
        return list(node.run_commands(list(commands), encoding='json'))
    except CommandError:
        pass
    except Exception as error:  # connection lost, timeout
        raise TransportError(settings.device, 'eAPI runCmds', safe_message(error, settings)) from None
    outputs = []
    for command in commands:
        try:
            outputs.append(node.run_commands([command], encoding='json')[0])
        except CommandError as error:
            outputs.append({'errors': [safe_message(error, settings)]})
        except Exception as error:
            raise TransportError(settings.device, 'eAPI runCmds', safe_message(error, settings)) from None
    return outputs


class EapiReader(Reader):
    """Every command of a reading in one eAPI session from the controller; a command read by several keys runs once.
    A command is an eAPI command ('show interfaces', or {cmd, revision}); a key may read a list of them."""

    name = 'eapi'
    variables = VARIABLES

    def split(self, command) -> list:
        return [command] if self.one(command) else [item if isinstance(item, (str, dict)) else list(item)
                                                    for item in command]

    def describe(self, command) -> str:
        return str(command.get('cmd', '')) if isinstance(command, dict) else str(command)

    def read(self, target: Target, commands) -> dict:
        settings = EapiSettings.from_host_vars(target.device, target.variables)
        unique: list = []
        for _label, command in commands:
            if command not in unique:
                unique.append(command)
        with eapi_session(settings) as driver:
            answers = eapi_json(driver, settings, unique)
        return {label: answers[unique.index(command)] for label, command in commands}


EAPI = EapiReader()

__all__ = ['EAPI', 'EapiReader', 'EapiSettings', 'eapi_session', 'eapi_json', 'VARIABLES']
