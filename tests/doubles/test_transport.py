# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""plugins/plugin_utils/fabric/platforms/eos/eapi.py against the EOS eAPI double: napalm's eos driver, unchanged."""

from __future__ import annotations

import asyncio
import socket

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms.eos.eapi import (
    EAPI, EapiSettings, eapi_json, eapi_session)
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.reader import Target
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.transport import TransportError


def _settings(server, password, **overrides):
    host_vars = {'ansible_host': server.host, 'ansible_user': 'admin', 'ansible_password': password,
                 'ansible_httpapi_port': server.port, 'ansible_httpapi_validate_certs': False}
    host_vars.update(overrides)
    return EapiSettings.from_host_vars('leaf001', host_vars)


def test_commands_run_in_one_session_and_a_refused_one_keeps_the_others(eos_double):
    device, server = eos_double('leaf001')
    settings = _settings(server, device.password)
    assert device.password not in repr(settings)
    with eapi_session(settings) as driver:
        version, refused, hostname = eapi_json(driver, settings, ['show version', 'show no-such-thing', 'show hostname'])
    assert version['version'] and hostname['hostname'] == 'leaf001'
    assert 'Invalid input' in refused['errors'][0]


def test_wrong_password_is_one_sentence_without_the_password(eos_double):
    _device, server = eos_double('leaf001')
    with pytest.raises(TransportError) as caught:
        with eapi_session(_settings(server, 'not-the-password-4711')):
            pass
    text = str(caught.value)
    assert text.startswith('leaf001: eAPI connection to https://%s:%d failed: ' % (server.host, server.port))
    assert 'not-the-password-4711' not in text and 'Traceback' not in text


def test_nothing_listening_and_certificate_checks_fail_clearly(eos_double):
    _device, server = eos_double('leaf001')
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        closed_port = probe.getsockname()[1]
    with pytest.raises(TransportError, match='eAPI connection to https://127.0.0.1:%d failed' % closed_port):
        with eapi_session(_settings(server, 'x', ansible_httpapi_port=closed_port, ansible_command_timeout=3)):
            pass
    # the double's certificate is self-signed: with validation on (Ansible's default) the session is refused
    with pytest.raises(TransportError, match='CERTIFICATE_VERIFY_FAILED|certificate verify failed'):
        with eapi_session(_settings(server, 'x', ansible_httpapi_validate_certs=True)):
            pass


@pytest.mark.parametrize('host_vars, message', [
    ({'ansible_host': '127.0.0.1'}, 'no ansible_user / ansible_password set'),
    ({'ansible_user': 'admin', 'ansible_password': 'x', 'ansible_httpapi_port': 'eighty'}, 'must be a port number'),
])
def test_settings_errors_name_the_variable(host_vars, message):
    with pytest.raises(TransportError, match=message):
        EapiSettings.from_host_vars('leaf001', host_vars)


def _target(server, device, **overrides):
    variables = {'ansible_host': server.host, 'ansible_user': 'admin', 'ansible_password': device.password,
                 'ansible_httpapi_port': server.port, 'ansible_httpapi_validate_certs': False}
    variables.update(overrides)
    return Target(device.name, variables)


def test_the_eapi_reader_reads_once_and_keeps_a_refused_command_to_itself(eos_double):
    device, server = eos_double('leaf001')
    target = _target(server, device)
    assert device.password not in repr(target)
    outputs = EAPI.read(target, [('a', 'show hostname'), ('b', 'show no-such-thing'), ('c', 'show hostname')])
    assert outputs['a'] == outputs['c'] and outputs['a']['hostname'] == 'leaf001'
    assert 'Invalid input' in outputs['b']['errors'][0]
    with pytest.raises(TransportError, match='leaf001: eAPI connection .* failed') as refused:
        EAPI.read(_target(server, device, ansible_password='wrong-4711'), [('a', 'show hostname')])
    assert 'wrong-4711' not in str(refused.value)


def test_the_eapi_reader_reads_several_switches_at_once_from_one_event_loop(eos_double):
    """What a fleet reader does: many devices in flight from one process, each its own result or its own error."""
    switches = [eos_double(name) for name in ('leaf001', 'leaf002', 'spine001')]
    targets = [_target(server, device) for device, server in switches]
    targets.append(_target(switches[0][1], switches[0][0], ansible_password='wrong'))

    async def read_all():
        return await asyncio.gather(*(EAPI.read_async(target, [('name', 'show hostname')]) for target in targets),
                                    return_exceptions=True)
    *answers, refused = asyncio.run(read_all())
    assert [answer['name']['hostname'] for answer in answers] == ['leaf001', 'leaf002', 'spine001']
    assert isinstance(refused, TransportError) and refused.device == 'leaf001'
