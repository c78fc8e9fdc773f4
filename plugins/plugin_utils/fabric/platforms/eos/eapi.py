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
from typing import Any

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
        unique = _unique(commands)
        with eapi_session(settings) as driver:
            answers = eapi_json(driver, settings, unique)
        return {label: answers[unique.index(command)] for label, command in commands}

    def session(self, target: Target):
        """The switch's eAPI over one kept-alive HTTPS connection, for all its readings (EapiAsyncSession)."""
        return EapiAsyncSession(EapiSettings.from_host_vars(target.device, target.variables))

    async def read_async(self, target: Target, commands) -> dict:
        """read() from an event loop: through `target.connection` (an EapiAsyncSession from session()), or a session
        opened for this reading."""
        unique = _unique(commands)
        if isinstance(target.connection, EapiAsyncSession):
            answers = await target.connection.run(unique)
        else:
            async with self.session(target) as session:
                answers = await session.run(unique)
        return {label: answers[unique.index(command)] for label, command in commands}


def _unique(commands) -> list:
    """Each command once, in order (a command several keys read runs once)."""
    unique: list = []
    for _label, command in commands:
        if command not in unique:
            unique.append(command)
    return unique


class EapiAsyncSession:
    """One switch's eAPI from an event loop (ANTA's asynceapi client on httpx: one HTTPS connection kept alive for all
    the readings of the switch), for a fleet reading. An async context manager."""

    def __init__(self, settings: EapiSettings):
        self.settings = settings
        self.device: Any = None  # asynceapi.Device once entered

    async def __aenter__(self):
        from asynceapi import Device  # pylint: disable=import-outside-toplevel
        settings = self.settings
        verify = False
        if settings.use_ssl and settings.validate_certs:
            verify = ssl.create_default_context(cafile=settings.ca_file)
        self.device = Device(host=settings.host, username=settings.username, password=settings.password,
                             proto='https' if settings.use_ssl else 'http',
                             port=settings.port or (443 if settings.use_ssl else 80), verify=verify,
                             timeout=settings.timeout)
        return self

    async def __aexit__(self, *_exc):
        if self.device is not None:
            await self.device.aclose()
            self.device = None

    async def run(self, commands) -> list:
        """eapi_json()'s answer: the JSON result of each command, {'errors': [...]} for one the switch refused. One
        runCmds request (after `enable`, as pyeapi sends it); eAPI stops at a refused command, so the commands after
        it go in a request of their own."""
        import httpx  # pylint: disable=import-outside-toplevel
        from asynceapi.errors import EapiCommandError  # pylint: disable=import-outside-toplevel
        settings, pending, outputs = self.settings, list(commands), []
        while pending:
            try:
                answers = await self.device.cli(commands=[{'cmd': 'enable'}] + pending, ofmt='json', version=1)
                return outputs + list(answers[1:])
            except EapiCommandError as error:
                if not error.passed:  # `enable` itself refused: nothing can run
                    raise TransportError(settings.device, 'eAPI runCmds', safe_message(error.errmsg, settings)) from None
                outputs += list(error.passed[1:]) + [{'errors': [safe_message(item, settings) for item in error.errors]}]
                pending = list(error.not_exec)
            except httpx.HTTPStatusError as error:
                raise TransportError(settings.device, 'eAPI runCmds', 'HTTP %d: %s' % (
                    error.response.status_code, safe_message(error.response.text.strip()[:200] or
                                                             error.response.reason_phrase, settings))) from None
            except (httpx.HTTPError, OSError, ValueError) as error:
                raise TransportError(settings.device, 'eAPI connection to %s' % settings.endpoint(),
                                     safe_message(error, settings) or type(error).__name__) from None
        return outputs


EAPI = EapiReader()

__all__ = ['EAPI', 'EapiReader', 'EapiSettings', 'EapiAsyncSession', 'eapi_session', 'eapi_json', 'VARIABLES']
