"""HTTPS eAPI endpoint (`POST /command-api`, JSON-RPC 2.0 `runCmds`, HTTP basic auth) for EOS doubles.

In a test:    server = EapiServer(EosDevice('leaf1', 'admin', secret)); server.start(); ... server.stop()
By hand:      python -m tests.unit.platforms.eos.double.server --spec SPEC.json   (what tests/doubles/fleet.py runs)
SPEC.json is a list of {"name", "state_dir", "username", "password", "host", "port", "world"} (mode 0600);
each device writes `<state_dir>/endpoint.json` ({"host", "port"}) once it listens.
"""

from __future__ import annotations

import argparse
import base64
import datetime
import hmac
import json
import os
import signal
import ssl
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.unit.platforms.eos.double.device import EapiError, EosDevice


def self_signed_certificate(directory, hostname='eos-double'):
    """A fresh key and self-signed certificate, like the one EOS generates for eAPI at first boot."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hostname)])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=2)).sign(key, hashes.SHA256()))
    cert_path, key_path = os.path.join(directory, 'eapi.crt'), os.path.join(directory, 'eapi.key')
    with open(key_path, 'wb') as handle:
        handle.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    os.chmod(key_path, 0o600)
    with open(cert_path, 'wb') as handle:
        handle.write(cert.public_bytes(serialization.Encoding.PEM))
    return cert_path, key_path


def authorized(device, header):
    """HTTP basic auth against the switch's credentials."""
    if not header.startswith('Basic '):
        return False
    try:
        user, _sep, password = base64.b64decode(header[6:]).decode().partition(':')
    except (ValueError, UnicodeDecodeError):
        return False
    return hmac.compare_digest(user, device.username) and hmac.compare_digest(password, device.password)


def command_api(device, method, path, authorization, raw):
    """One HTTP request to the switch's eAPI: (status, body, content type), or None when the switch answers nothing
    (unreachable: the connection is closed without an answer). Shared by the threaded server below and the fleet's
    asyncio server (tests/doubles/fleetd/eapid.py)."""
    if not device.reachable():
        return None
    if method == 'HEAD':
        if path != '/command-api':
            return 404, '', 'application/json'
        return (200 if authorized(device, authorization) else 401), '', 'application/json'
    if method != 'POST':
        return 405, 'Method Not Allowed', 'text/plain'
    if path != '/command-api':
        return 404, 'Not Found', 'text/plain'
    if not authorized(device, authorization):
        return 401, 'Unable to authenticate user: Bad username/password combination', 'text/plain'
    try:
        request = json.loads(raw)
    except ValueError:
        return 200, json.dumps({'jsonrpc': '2.0', 'id': None,
                                'error': {'code': -32700, 'message': 'Parse error', 'data': []}}), 'application/json'
    request_id = request.get('id') if isinstance(request, dict) else None
    params = (request.get('params') if isinstance(request, dict) else None) or {}
    if not isinstance(request, dict) or request.get('method') != 'runCmds':
        error = {'code': -32601, 'message': 'Method not found', 'data': []}
        return 200, json.dumps({'jsonrpc': '2.0', 'id': request_id, 'error': error}), 'application/json'
    fmt = params.get('format') or 'json'
    if fmt not in ('json', 'text'):
        error = {'code': -32602, 'message': "Invalid params: format must be 'json' or 'text'", 'data': []}
        return 200, json.dumps({'jsonrpc': '2.0', 'id': request_id, 'error': error}), 'application/json'
    try:
        result = device.run_cmds(params.get('cmds') or [], fmt)
        body = {'jsonrpc': '2.0', 'id': request_id, 'result': result}
    except EapiError as exc:
        body = {'jsonrpc': '2.0', 'id': request_id, 'error': {'code': exc.code, 'message': exc.message, 'data': exc.data}}
    except Exception as exc:  # pylint: disable=broad-exception-caught
        # A bug of the double must surface in the test as an error, never as a hung or dropped connection.
        error = {'code': 1000, 'message': 'double internal error: %r' % exc, 'data': []}
        body = {'jsonrpc': '2.0', 'id': request_id, 'error': error}
    return 200, json.dumps(body), 'application/json'


class _Handler(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    server_version = 'double-eapi'

    def log_message(self, format, *args):  # pylint: disable=redefined-builtin
        """Quiet: request lines would only clutter test output."""

    def _answer(self, raw=b''):
        answer = command_api(self.server.device, self.command, self.path, self.headers.get('Authorization', ''), raw)
        if answer is None:  # an unreachable switch: close the connection without an answer
            self.close_connection = True
            try:
                self.connection.shutdown(2)
            except OSError:
                pass
            return
        status, body, content_type = answer
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header('Content-Type', content_type)
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        if self.command != 'HEAD':
            self.wfile.write(data)

    def do_HEAD(self):  # pylint: disable=invalid-name
        self._answer()

    def do_GET(self):  # pylint: disable=invalid-name
        self._answer()

    def do_POST(self):  # pylint: disable=invalid-name
        self._answer(self.rfile.read(int(self.headers.get('Content-Length', 0))))


class EapiServer:
    """One EOS double listening on host:port over HTTPS (port 0: any free port, see .port)."""

    def __init__(self, device, host='127.0.0.1', port=0, cert_dir=None):
        self.device = device
        self._cert_dir = cert_dir or tempfile.mkdtemp(prefix='eapi-cert-')
        cert, key = self_signed_certificate(self._cert_dir, device.name)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        self.httpd = ThreadingHTTPServer((host, port), _Handler)
        self.httpd.daemon_threads = True
        self.httpd.device = device
        self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.host, self.port = self.httpd.server_address[:2]
        self._thread = None

    def start(self):
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={'poll_interval': 0.05},
                                        name='eapi-%s' % self.device.name, daemon=True)
        self._thread.start()
        return self

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()
        for session in self.device.sessions.values():
            if session.timer:
                session.timer.cancel()


def main(argv=None):
    parser = argparse.ArgumentParser(description='Run EOS eAPI doubles (see tests/doubles/README.md).')
    parser.add_argument('--spec', required=True, help='JSON list of devices (name, state_dir, username, password, host, port)')
    args = parser.parse_args(argv)
    with open(args.spec, encoding='utf-8') as handle:
        spec = json.load(handle)
    servers = []
    for item in spec:
        os.makedirs(item['state_dir'], exist_ok=True)
        initial = None
        if os.path.exists(os.path.join(item['state_dir'], 'startup-config')):
            with open(os.path.join(item['state_dir'], 'startup-config'), encoding='utf-8') as handle:
                initial = handle.read()  # a restarted double boots from its saved startup-config
        device = EosDevice(item['name'], item['username'], item['password'], state_dir=item['state_dir'],
                           world=item.get('world'), initial_config=initial, version=item.get('version', '4.31.2F'),
                           **({'management': item['management']} if item.get('management') else {}))
        server = EapiServer(device, item.get('host', '127.0.0.1'), item.get('port', 0), cert_dir=item['state_dir']).start()
        servers.append(server)
        endpoint = os.path.join(item['state_dir'], 'endpoint.json')
        with open(endpoint + '.tmp', 'w', encoding='utf-8') as handle:
            json.dump({'host': server.host, 'port': server.port, 'pid': os.getpid()}, handle)
        os.replace(endpoint + '.tmp', endpoint)
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_args: stopped.set())
    signal.signal(signal.SIGINT, lambda *_args: stopped.set())
    stopped.wait()
    for server in servers:
        server.stop()


if __name__ == '__main__':
    main()
