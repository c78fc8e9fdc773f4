"""The fleet of doubles at fabric size: every switch and GPU server of an intent, served by one process per kind.

    python -m tests.doubles.fleetd up     --intent INTENT.yml --state-dir DIR [--ttl 3600] [--network 127.41.0.0/16]
    python -m tests.doubles.fleetd down   --state-dir DIR [--purge]
    python -m tests.doubles.fleetd status --state-dir DIR

`up` renders every device's configuration from the intent, gives each device an address of its own in
`--network` (a loopback range: nothing else is allowed), starts one asyncio server process per kind (EOS: eAPI over
HTTPS, fleetd/eapid.py; SONiC, NVUE and the GPU servers (Linux): SSH, fleetd/sshd.py; each booting its devices
from their rendered files first) and returns once every device listens. It writes DIR/inventory.yml, the Ansible
inventory of the devices with their connection variables, to combine with the intent inventory (`-i INTENT_INV -i
DIR/inventory.yml`). Credentials are made per run and written only to DIR (mode 0600), never printed. Every server
process ends by itself `--ttl` seconds after `up` (the fleet is bounded in time) or at `down`. Platforms without a
fleet double (FRR switches) are listed as skipped.

In pytest: `with FleetD(intent_path, state_dir) as fleet: fleet.endpoints['leaf001']`.
"""

from __future__ import annotations

import argparse
import getpass
import ipaddress
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time

from tests.doubles import rendered
from tests.doubles.fleet import TEST_PASSWORD_HASH, eos_facts, inventory_host, load_design, plan as plan_switches, ssh_facts
from tests.unit.utils.paths import ROOT

NETWORK = '127.41.0.0/16'
TTL = 3600
# kind of device -> the server module that serves it
SERVERS = {'eos': 'tests.doubles.fleetd.eapid', 'sonic': 'tests.doubles.fleetd.sshd', 'nvue': 'tests.doubles.fleetd.sshd',
           'linux': 'tests.doubles.fleetd.sshd'}
STATE = 'fleetd.json'


def _loopback(network):
    net = ipaddress.ip_network(network)
    if not net.subnet_of(ipaddress.ip_network('127.0.0.0/8')):
        raise SystemExit('--network must be a loopback range (inside 127.0.0.0/8), got %s' % network)
    return net


def plan(design):
    """One entry per device: name, kind (eos, sonic, nvue, linux or None) and what its double needs."""
    entries = [dict(entry, role=design.nodes[entry['name']].role) for entry in plan_switches(design)]
    for name in design.device_names() if hasattr(design, 'device_names') else design.nodes:
        if design.nodes[name].role != 'host':
            continue
        model = design.device(name)
        interfaces = [{'name': model.get('bootstrap_interface') or 'eth0', 'address': None, 'mtu': 1500}]
        interfaces += [{'name': rail['interface'], 'address': rail['address'], 'mtu': model['mtu']}
                       for rail in model['rails']]
        lldp = {rail['interface']: {'device': rail['leaf'], 'port': rail['leaf_interface']} for rail in model['rails']}
        entries.append({'name': name, 'kind': 'linux', 'role': 'host', 'platform': 'linux',
                        'linux': {'interfaces': interfaces, 'lldp': lldp}})
    return sorted(entries, key=lambda item: item['name'])


def free_port(address):
    with socket.socket() as sock:
        sock.bind((address, 0))
        return sock.getsockname()[1]


def _write(path, text, mode=0o644):
    """Write `text` unless the file holds it already (a device's rendered files feed its boot digest)."""
    try:
        with open(path, encoding='utf-8') as handle:
            if handle.read() == text:
                return
    except FileNotFoundError:
        pass
    os.makedirs(os.path.dirname(path), exist_ok=True)
    descriptor = os.open(path + '.tmp', os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(descriptor, 'w', encoding='utf-8') as handle:
        handle.write(text)
    os.replace(path + '.tmp', path)


class FleetD:
    """The fleet of one intent: start() / stop(), or a context manager."""

    def __init__(self, intent, state_dir, network=NETWORK, ttl=TTL, tacacs_key=True, design=None):
        self.intent = os.path.abspath(intent)
        self.state_dir = os.path.abspath(state_dir)
        self.network = _loopback(network)
        self.ttl = ttl
        self.design = design
        self.tacacs_key = tacacs_key
        self.endpoints = {}
        self.processes = {}
        self.skipped = []

    def device_dir(self, name):
        return os.path.join(self.state_dir, 'devices', name)

    def credentials(self):
        secret_dir = os.path.join(self.state_dir, 'secrets')
        os.makedirs(secret_dir, mode=0o700, exist_ok=True)
        password_file = os.path.join(secret_dir, 'eapi-password')
        if not os.path.exists(password_file):
            _write(password_file, secrets.token_urlsafe(24), 0o600)
        with open(password_file, encoding='utf-8') as handle:
            password = handle.read().strip()
        from tests.doubles.ssh.server import generate_key  # pylint: disable=import-outside-toplevel
        key = generate_key(os.path.join(secret_dir, 'id_ed25519'))
        return password, key

    # -- up -----------------------------------------------------------------------------------------------------
    def start(self, timeout=None):
        if self.running():
            raise RuntimeError('a fleet runs in %s already (down first)' % self.state_dir)
        design = self.design or load_design(self.intent)
        users = {user['name']: TEST_PASSWORD_HASH for user in design.intent['management']['users']}
        tacacs = self.tacacs_key and bool(design.intent['management'].get('tacacs_servers'))
        entries = plan(design)
        password, key = self.credentials()
        with open(key + '.pub', encoding='utf-8') as handle:
            public_key = handle.read().strip()
        hosts = iter(self.network.hosts())
        by_kind = {}
        for entry in entries:
            if entry['kind'] is None:
                self.skipped.append(entry['name'])
                continue
            address = str(next(hosts))
            by_kind.setdefault(entry['kind'], []).append((entry, address))
        started = time.time()
        specs = {}
        for kind, items in sorted(by_kind.items()):
            port = free_port(items[0][1])
            devices = []
            for entry, address in items:
                name, directory = entry['name'], self.device_dir(entry['name'])
                os.makedirs(directory, exist_ok=True)
                item = {'name': name, 'directory': directory, 'address': address, 'port': port}
                files = rendered.render(design, name)
                if kind == 'eos':
                    _write(os.path.join(directory, 'startup-config'), files['startup-config.cfg'])
                    item.update(eos_facts(entry), world=entry['world'], ports=entry['interfaces'])
                elif kind == 'sonic':
                    _write(os.path.join(directory, 'rendered', 'config_db.json'), files['config_db.json'])
                    _write(os.path.join(directory, 'rendered', 'frr.conf'), files['frr.conf'])
                    if 'local-users.json' in files:
                        _write(os.path.join(directory, 'rendered', 'local-users.json'), files['local-users.json'])
                    item['facts'] = ssh_facts(entry, tacacs)
                elif kind == 'nvue':
                    _write(os.path.join(directory, 'rendered', 'startup.yaml'), files['startup.yaml'])
                    item['facts'] = ssh_facts(entry, tacacs)
                else:
                    item['linux'] = dict(entry['linux'], files={'/etc/nccl.conf': files['nccl.conf']})
                devices.append(item)
                self.endpoints[name] = {'host': address, 'port': port, 'kind': kind}
            spec = {'kind': kind, 'ttl': self.ttl, 'started': started, 'devices': devices}
            if kind == 'eos':
                spec.update(username='admin', password=password)
            else:
                spec.update(user=getpass.getuser(), authorized_key=public_key)
            specs[kind] = spec
        self._users = users
        try:
            for kind, spec in specs.items():
                path = os.path.join(self.state_dir, 'spec-%s.json' % kind)
                for stale in (path + '.ready',):
                    if os.path.exists(stale):
                        os.remove(stale)
                _write(path, json.dumps(spec), 0o600)
                log = open(os.path.join(self.state_dir, 'server-%s.log' % kind), 'ab')  # pylint: disable=consider-using-with
                env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get('PYTHONPATH', ''))
                self.processes[kind] = subprocess.Popen(
                    [sys.executable, '-m', SERVERS[kind], '--spec', path], cwd=ROOT, env=env, stdout=log, stderr=log,
                    stdin=subprocess.DEVNULL, start_new_session=True)
                log.close()
            self._save()
            deadline = time.time() + (timeout or 60 + 0.2 * len(self.endpoints))
            ready = {}
            while len(ready) < len(specs):
                for kind in specs:
                    path = os.path.join(self.state_dir, 'spec-%s.json.ready' % kind)
                    if kind not in ready and os.path.exists(path):
                        with open(path, encoding='utf-8') as handle:
                            ready[kind] = json.load(handle)
                    elif kind not in ready and self.processes[kind].poll() is not None:
                        raise RuntimeError('the %s server of the fleet exited: %s' % (kind, self._log_tail(kind)))
                if time.time() > deadline:
                    raise RuntimeError('the fleet did not listen within %.0f s: %s' % (
                        deadline - started, ', '.join(sorted(set(specs) - set(ready)))))
                time.sleep(0.1)
            self.write_inventory(password, key, ready)
        except BaseException:
            self.stop()
            raise
        return self

    def _log_tail(self, kind):
        with open(os.path.join(self.state_dir, 'server-%s.log' % kind), encoding='utf-8', errors='replace') as handle:
            return handle.read()[-2000:]

    def _save(self):
        _write(os.path.join(self.state_dir, STATE), json.dumps({
            'intent': self.intent, 'pids': {kind: process.pid for kind, process in self.processes.items()},
            'devices': self.endpoints, 'skipped': self.skipped, 'ttl': self.ttl}, indent=1, sort_keys=True))

    def write_inventory(self, password, key, ready):
        known_hosts = os.path.join(self.state_dir, 'known_hosts')
        lines = []
        for _kind, info in sorted(ready.items()):
            for name, (algorithm, data) in sorted((info.get('host_keys') or {}).items()):
                endpoint = self.endpoints[name]
                lines.append('[%s]:%d %s %s\n' % (endpoint['host'], endpoint['port'], algorithm, data))
        _write(known_hosts, ''.join(lines))
        hosts = {}
        for name, endpoint in sorted(self.endpoints.items()):
            hosts[name] = inventory_host(endpoint, password, key, known_hosts)
        import yaml  # pylint: disable=import-outside-toplevel
        text = ('# Fleet doubles of this run (tests/doubles/fleetd); secrets inside: do not share.\n'
                + yaml.safe_dump({'all': {'hosts': hosts, 'vars': {'aifabric_switch_users': self._users}}},
                                 sort_keys=True))
        _write(os.path.join(self.state_dir, 'inventory.yml'), text, 0o600)

    # -- down ---------------------------------------------------------------------------------------------------
    def running(self):
        return bool(_live_pids(self.state_dir))

    def serving(self):
        """Every server of the fleet this directory started runs (one stopping is not a fleet to measure against)."""
        live = _live_pids(self.state_dir)
        return bool(live) and len(live) == len(_started_pids(self.state_dir))

    def stop(self):
        for process in self.processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes.values():
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.processes = {}
        down(self.state_dir, quiet=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *_exc):
        self.stop()


def _started_pids(state_dir):
    try:
        with open(os.path.join(state_dir, STATE), encoding='utf-8') as handle:
            return json.load(handle).get('pids') or {}
    except (FileNotFoundError, ValueError):
        return {}


def _live_pids(state_dir):
    live = {}
    for kind, pid in _started_pids(state_dir).items():
        try:
            with open('/proc/%d/cmdline' % pid, 'rb') as handle:
                if b'tests.doubles.fleetd' in handle.read():
                    live[kind] = pid  # not a reused number
        except OSError:
            continue
    return live


def down(state_dir, purge=False, quiet=False):
    state_dir = os.path.abspath(state_dir)
    live = _live_pids(state_dir)
    for pid in live.values():
        os.kill(pid, signal.SIGTERM)
    deadline = time.time() + 20
    while live and time.time() < deadline:
        live = _live_pids(state_dir)
        time.sleep(0.05)
    for pid in live.values():
        os.kill(pid, signal.SIGKILL)
    if not quiet:
        print('fleet in %s stopped' % state_dir)
    if purge:
        shutil.rmtree(state_dir, ignore_errors=True)
    return 0


def status(state_dir):
    try:
        with open(os.path.join(state_dir, STATE), encoding='utf-8') as handle:
            summary = json.load(handle)
    except FileNotFoundError:
        print('no fleet in %s' % state_dir)
        return 1
    live = _live_pids(state_dir)
    counts = {}
    for endpoint in summary['devices'].values():
        counts[endpoint['kind']] = counts.get(endpoint['kind'], 0) + 1
    for kind, count in sorted(counts.items()):
        print('%-6s %5d devices  %s' % (kind, count, 'running (pid %d)' % live[kind] if kind in live else 'stopped'))
    if summary['skipped']:
        print('skipped (no fleet double for their platform): %s' % ', '.join(summary['skipped']))
    print('inventory: %s' % os.path.join(state_dir, 'inventory.yml'))
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog='python -m tests.doubles.fleetd', description=__doc__.split('\n\n', maxsplit=1)[0])
    sub = parser.add_subparsers(dest='command', required=True)
    item = sub.add_parser('up')
    item.add_argument('--intent', required=True)
    item.add_argument('--state-dir', required=True)
    item.add_argument('--ttl', type=int, default=TTL, help='seconds after which the fleet stops by itself')
    item.add_argument('--network', default=NETWORK, help='loopback range the devices get their addresses from')
    item = sub.add_parser('down')
    item.add_argument('--state-dir', required=True)
    item.add_argument('--purge', action='store_true', help='also remove the state directory')
    item = sub.add_parser('status')
    item.add_argument('--state-dir', required=True)
    args = parser.parse_args(argv)
    if args.command == 'up':
        if args.ttl < 1:
            raise SystemExit('--ttl must be 1 second or more, got %d' % args.ttl)
        fleet = FleetD(args.intent, args.state_dir, args.network, args.ttl)
        try:
            fleet.start()
        except RuntimeError as error:
            print('fleet failed to start: %s' % error, file=sys.stderr)
            return 1
        fleet.processes = {}  # detached: they outlive this command until --ttl or `down`
        return status(args.state_dir)
    if args.command == 'down':
        return down(args.state_dir, args.purge)
    return status(args.state_dir)


__all__ = ['FleetD', 'plan', 'down', 'status', 'main']
