"""One asyncio HTTPS server for every EOS switch of the fleet: eAPI (`POST /command-api`, JSON-RPC `runCmds`, HTTP
basic auth) on each switch's own loopback address, answered by the EOS double (tests/unit/platforms/eos/double: EosDevice and
the request handling of eos/server.py, shared).

    python -m tests.doubles.fleetd.eapid --spec SPEC.json

SPEC (written by the launcher, mode 0600): {"username", "password", "ttl", "started", "devices": [{"name",
"directory", "address", "port", "version", "management", "world", "ports"}]}. Each switch boots from the
`startup-config` in its directory (the rendered one the launcher put there). HTTP/1.1 with keep-alive, as EOS's
nginx front end serves eAPI. One self-signed certificate for the whole process (each real switch has its own;
clients that check certificates are given none of these). Fault knobs: `unreachable` closes the connection
without an answer (eos/server.py), `frozen` (fleet) reads the request and never answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import ssl
import sys
import tempfile

from tests.unit.platforms.eos.double import show
from tests.unit.platforms.eos.double.device import DEFAULT_PORTS, EosDevice
from tests.doubles.fleetd import serving
from tests.doubles.fleetd.devices import CACHE
from tests.unit.platforms.eos.double.server import command_api, self_signed_certificate

REASONS = {200: 'OK', 401: 'Unauthorized', 404: 'Not Found', 405: 'Method Not Allowed', 400: 'Bad Request',
           413: 'Payload Too Large'}
MAX_BODY = 16 * 2 ** 20
HEADER_TIMEOUT = 60  # an idle keep-alive connection is closed after this (nginx keepalive_timeout is 75 s)


def boot(item, username, password):
    startup = os.path.join(item['directory'], 'startup-config')
    initial = None
    if os.path.exists(startup):
        with open(startup, encoding='utf-8') as handle:
            initial = handle.read()
    extra = {key: item[key] for key in ('version', 'management') if item.get(key)}
    return EosDevice(item['name'], username, password, state_dir=item['directory'], world=item.get('world') or {},
                     ports=sorted(set(DEFAULT_PORTS) | set(item.get('ports') or ())), initial_config=initial, **extra)


def read_only_cache(body):
    """The interfaces of the running configuration derived once for a request of show commands only (each show command
    of the EOS double derives them anew: a reading sends sixteen); a request that configures derives them as it goes."""
    try:
        commands = (json.loads(body).get('params') or {}).get('cmds') or []
    except (ValueError, AttributeError):
        return contextlib.nullcontext()
    words = [item.get('cmd') if isinstance(item, dict) else item for item in commands]
    if all(isinstance(word, str) and (word == 'enable' or word.startswith('show ')) for word in words):
        return CACHE.request()
    return contextlib.nullcontext()


def connection_handler(device):
    async def handle(reader, writer):
        try:
            while True:
                try:
                    head = await asyncio.wait_for(reader.readuntil(b'\r\n\r\n'), HEADER_TIMEOUT)
                except (asyncio.IncompleteReadError, asyncio.TimeoutError, asyncio.LimitOverrunError, ConnectionError):
                    return
                lines = head.decode('latin-1').split('\r\n')
                try:
                    method, path, _version = lines[0].split(' ', 2)
                except ValueError:
                    return
                headers = {}
                for line in lines[1:]:
                    name, sep, value = line.partition(':')
                    if sep:
                        headers[name.strip().lower()] = value.strip()
                length = int(headers.get('content-length') or 0)
                if length > MAX_BODY:
                    return
                body = await reader.readexactly(length) if length else b''
                if device.faults.get('frozen'):
                    await reader.read()  # never answers: the reader's deadline ends it
                    return
                with read_only_cache(body):
                    answer = command_api(device, method, path, headers.get('authorization', ''), body)
                if answer is None:
                    return  # unreachable: closed without an answer
                status, text, content_type = answer
                data = text.encode() if isinstance(text, str) else text
                close = headers.get('connection', '').lower() == 'close'
                writer.write(('HTTP/1.1 %d %s\r\nServer: double-eapi\r\nContent-Type: %s\r\nContent-Length: %d\r\n%s\r\n'
                              % (status, REASONS.get(status, 'OK'), content_type, len(data),
                                 'Connection: close\r\n' if close else '')).encode('latin-1'))
                if method != 'HEAD':
                    writer.write(data)
                await writer.drain()
                if close:
                    return
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError):
            return
        finally:
            writer.close()
    return handle


async def serve(spec, spec_path):
    if not hasattr(show.interfaces, '__wrapped__'):
        cached = CACHE.wrap(show.interfaces, id)
        show.interfaces = lambda config: dict(cached(config))  # a caller adds Management1 to its copy
    certificates = tempfile.mkdtemp(prefix='fleet-eapi-', dir=os.path.dirname(spec_path))
    cert, key = self_signed_certificate(certificates, 'eos-fleet-double')
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    servers = []
    for item in spec['devices']:
        device = boot(item, spec['username'], spec['password'])
        servers.append(await asyncio.start_server(connection_handler(device), item['address'], item['port'],
                                                  ssl=context, reuse_address=True, backlog=128))
    await serving.announce_then_serve(spec, spec_path)
    for server in servers:
        server.close()


def main(argv=None):
    return serving.main(serve, __doc__.split('\n', maxsplit=1)[0], argv)


if __name__ == '__main__':
    sys.exit(main())
