"""Start one device double per switch of an intent (EOS: eAPI over HTTPS; SONiC, NVUE: OpenSSH), stop them all.

    python -m tests.doubles.fleet up   --intent INTENT.yml --state-dir DIR [--fact leaf002.release=202012 ...]
    python -m tests.doubles.fleet down --state-dir DIR [--purge]
    python -m tests.doubles.fleet status --state-dir DIR

`up` starts a supervisor process (all EOS doubles as threads, one sshd per SONiC/NVUE switch, their timers) and
returns once every double answers; it writes DIR/inventory.yml, an Ansible inventory of the switches with their
connection variables, to combine with the intent inventory: `ansible-playbook -i inventories/x -i
DIR/inventory.yml ...`. Credentials are generated per run (a random eAPI password, an SSH key pair), written
only to DIR with mode 0600 and never printed. `up` on a running fleet and `down` on a stopped one do nothing.

In pytest: `with Fleet(design, state_dir) as fleet: fleet.devices['leaf001']` (in-process, same doubles).
Switches of a platform without a double (the lab's FRR) are skipped and listed as such.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The fleet machinery that serves a platform's switches: the eAPI double, or the OpenSSH double of one NOS.
SERVED = ('eos', 'sonic', 'nvue')
READY_TIMEOUT = 30.0
# SHA-512 crypt of a lab-only password (`openssl passwd -6 -salt aifabrictest lab-only-not-a-secret`): what
# aifabric_switch_users gives every user the intent's management.users declares.
TEST_PASSWORD_HASH = '$6$aifabrictest$UjtAzwcExjwnlOwAXJZ/KS1e7NZpbtTn/hrhgnubkYMbMSl5RF6Eogbjz1WHLSkkpBIpvOJZ2cToji9jlCFYi0'


def load_design(intent_path):
    """The fabric design of an intent file, through the collection loader (as the tests and Ansible load it)."""
    from ansible.plugins.loader import init_plugin_loader
    if not any(type(finder).__name__ == '_AnsibleCollectionFinder' for finder in sys.meta_path):
        parts = ROOT.split(os.sep)
        if parts[-3:-2] == ['ansible_collections']:
            collections = os.sep.join(parts[:-3])
        else:
            collections = os.path.join(ROOT, '.ansible', 'collections')
            link = os.path.join(collections, 'ansible_collections', 'aifabric', 'fabric')
            if not os.path.exists(link):
                os.makedirs(os.path.dirname(link), exist_ok=True)
                os.symlink(ROOT, link)
        init_plugin_loader([collections])
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
    return design_from_file(intent_path)


def kinds() -> dict:
    """{platform: fleet kind}, from each platform's test folder (its double/fleet.py FLEET_KIND), never a list here."""
    from tests.unit.utils.platforms import fleet_doubles
    found = fleet_doubles()
    for platform, kind in sorted(found.items()):
        if kind not in SERVED:
            raise ValueError('platform %s: FLEET_KIND %r (its test folder\'s double/) is not served by the fleet; '
                             'allowed: %s' % (platform, kind, ', '.join(SERVED)))
    return found


def plan(design):
    """One entry per switch: name, platform, kind of double (or None), ports, LLDP neighbours, remote VTEPs."""
    switches = [name for name in design.device_names() if design.nodes[name].role != 'host']
    models = {name: design.device(name) for name in switches}
    vteps = {name: model['evpn']['vtep_ip'] for name, model in models.items() if model.get('evpn')}
    vnis = {name: {item['vni'] for item in model['evpn'].get('vlans', [])} for name, model in models.items() if model.get('evpn')}
    vrfs = {name: {vrf['name'] for vrf in model['evpn'].get('vrfs') or []} for name, model in models.items() if model.get('evpn')}
    entries = []
    served = kinds()
    for name in switches:
        model = models[name]
        world = {
            'lldp': {item['name']: {'device': item['peer'], 'port': item['peer_interface']} for item in model['interfaces']},
            'remote_vteps': sorted(ip for other, ip in vteps.items() if other != name) if name in vteps else [],
            # who floods for which VNI: only the VTEPs that carry it (EVPN type-3 routes follow the VNIs)
            'remote_vteps_by_vni': {str(vni): sorted(vteps[other] for other in vteps if other != name and vni in vnis[other])
                                    for vni in vnis.get(name, ())},
            # the other VTEPs of each tenant VRF (routes of its L3VNI: a tunnel to each, EOS `show vxlan vtep`)
            'remote_vteps_by_vrf': {vrf: sorted(vteps[other] for other in vteps if other != name and vrf in vrfs[other])
                                    for vrf in sorted(vrfs.get(name, ()))},
            'vtep_ip': vteps.get(name),
            # the BGP speaker behind each port (the design's neighbour): a session comes up only with it
            'bgp_peers': {item['interface']: {'ip': item.get('ip'), 'asn': item['remote_asn']}
                          for item in (model.get('bgp') or {}).get('neighbors', []) if item.get('interface')},
        }
        entries.append({'name': name, 'platform': model['platform'], 'kind': served.get(model['platform']),
                        'interfaces': [item['name'] for item in model['interfaces']], 'world': world,
                        'management_ip': model.get('management_ip'),
                        'management_address': (model.get('management') or {}).get('address'),
                        'nos_release': model.get('nos_release'),
                        'sonic': sonic_facts(model)})
    return entries


# The ASIC families SONiC's `show version` reports (sonic_version.yml asic_type), by switch vendor.
ASIC_TYPE = {'nvidia': 'mellanox'}


def sonic_facts(model):
    """What a SONiC double knows of its hardware, from the device model's switch model (or None)."""
    hardware = model.get('hardware') or {}
    return switch_model_facts(hardware['model']) if hardware.get('sonic') else None


def switch_model_facts(name):
    """The SONiC facts of a shipped switch model: platform and HwSKU (`show version`), the HwSKU's port map and native
    port speed, its SKU's buffer pools and profiles (the factory CONFIG_DB, the SONiC double's factory.py)."""
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import switch_models
    switch = switch_models.load_models()[name]
    sonic = switch.section('sonic')
    # the SKU's pg_profile_lookup.ini rows (the Dell models carry them: headroom_lookup; NVIDIA's: the SONiC double's buffers.py)
    xon_offset = sonic['buffers'].get('lossless_pg', {}).get('xon_offset')
    lookup = [[speed * 1000, cable, size, xon, xoff, 0, xon_offset]
              for (speed, cable), (xon, xoff, size) in sorted((switch.headroom_lookup or {}).items())]
    return {'hwsku': sonic['hwsku'], 'platform': sonic['platform'],
            'asic_type': ASIC_TYPE.get(switch.vendor, 'broadcom'), 'asic_family': switch.asic, 'pg_lookup': lookup,
            'port_map': [[port['name'], ','.join(str(lane) for lane in port['lanes']), port['alias']]
                         for port in sonic['ports']],
            'port_speed': switch.lanes * switch.lane_gbps * 1000, 'buffers': sonic['buffers']}


def eos_facts(entry, overrides=None):
    """EosDevice keyword arguments of a planned EOS switch: the release the design renders for, where the operator
    reaches it, and the test's overrides (version, model)."""
    extra = {'version': '%s.0F' % entry['nos_release']} if entry['nos_release'] else {}
    extra.update({key: value for key, value in (overrides or {}).items() if key in ('version', 'model')})
    if entry['management_address']:
        extra['management'] = entry['management_address']  # where the operator reaches it
    return extra


def ssh_facts(entry, tacacs=False, overrides=None):
    """device.json facts of a planned SONiC or NVUE switch (tests/doubles/ssh/state.py init_device)."""
    from tests.doubles.ssh.state import nvue_ports, sonic_ports
    kind = entry['kind']
    defaults = sonic_ports() if kind == 'sonic' else nvue_ports()
    device = {'world': entry['world'], 'ports': sorted(set(defaults) | set(entry['interfaces']))}
    if entry['nos_release']:  # the release the design renders for
        device['release'] = entry['nos_release'] if kind == 'sonic' else '%s.0' % entry['nos_release']
    if kind == 'sonic' and entry['sonic']:
        device.update(entry['sonic'])
        device['ports'] = sorted(set(defaults) | set(entry['interfaces'])
                                 | {name for name, _lanes, _alias in entry['sonic']['port_map']})
    if kind == 'sonic' and tacacs:
        # the TACACS+ key is set out of band before the first deploy (docs/deploy.md)
        device['tacacs_passkey'] = 'double-tacacs-key'
    device.update(overrides or {})
    return device


def inventory_host(endpoint, password, key, known_hosts) -> dict:
    """The Ansible variables that reach one double: eAPI over HTTPS with the admin password (EOS), else SSH with the
    fleet's key, the doubles' host keys checked against the fleet's own known_hosts (Ansible's ssh and the deploy's
    netmiko sessions alike)."""
    if endpoint['kind'] == 'eos':
        return {'ansible_host': endpoint['host'], 'ansible_port': endpoint['port'], 'ansible_user': 'admin',
                'ansible_password': password, 'ansible_httpapi_port': endpoint['port'], 'ansible_httpapi_use_ssl': True,
                'ansible_httpapi_validate_certs': False, 'aifabric_double': 'eos'}
    return {'ansible_host': endpoint['host'], 'ansible_port': endpoint['port'], 'ansible_user': getpass.getuser(),
            'ansible_ssh_private_key_file': key,
            'ansible_ssh_common_args': '-o StrictHostKeyChecking=yes -o UserKnownHostsFile=%s' % known_hosts,
            'aifabric_ssh_host_key_checking': True, 'aifabric_ssh_known_hosts': known_hosts,
            'aifabric_double': endpoint['kind']}


class Fleet:
    """The doubles of one intent, in this process. start() / stop(), or use as a context manager."""

    def __init__(self, design, state_dir, host='127.0.0.1', facts=None):
        """`facts`: {switch: {fact: value}} overrides, e.g. {'leaf002': {'release': '202012'}} (a SONiC without GCU),
        {'leaf001': {'version': '4.30.1F'}} (EOS), {'spine001': {'release': '5.8.0'}} (NVUE without auto-save)."""
        self.entries = plan(design)
        self.users = [user['name'] for user in design.intent['management']['users']]
        self.tacacs = bool(design.intent['management'].get('tacacs_servers'))
        self.facts = facts or {}
        self.state_dir = os.path.abspath(state_dir)
        self.host = host
        self.devices = {}   # name -> EosDevice | SshDouble
        self.servers = {}   # name -> EapiServer (EOS)
        self.endpoints = {}
        self.skipped = [entry['name'] for entry in self.entries if entry['kind'] is None]

    def credentials(self):
        """Per-run secrets, created once per state directory (mode 0600)."""
        secret_dir = os.path.join(self.state_dir, 'secrets')
        os.makedirs(secret_dir, mode=0o700, exist_ok=True)
        password_file = os.path.join(secret_dir, 'eapi-password')
        if not os.path.exists(password_file):
            descriptor = os.open(password_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, 'w') as handle:
                handle.write(secrets.token_urlsafe(24))
        with open(password_file, encoding='utf-8') as handle:
            password = handle.read().strip()
        from tests.doubles.ssh.server import generate_key
        key = generate_key(os.path.join(secret_dir, 'id_ed25519'))
        return password, key

    def start(self):
        from tests.unit.platforms.eos.double.device import DEFAULT_PORTS, EosDevice
        from tests.unit.platforms.eos.double.server import EapiServer
        from tests.doubles.ssh.server import SshDouble
        password, key = self.credentials()
        with open(key + '.pub', encoding='utf-8') as handle:
            public_key = handle.read()
        try:
            for entry in self.entries:
                name, kind = entry['name'], entry['kind']
                directory = os.path.join(self.state_dir, 'devices', name)
                if kind == 'eos':
                    os.makedirs(directory, exist_ok=True)
                    startup = os.path.join(directory, 'startup-config')
                    initial = None
                    if os.path.exists(startup):
                        with open(startup, encoding='utf-8') as handle:
                            initial = handle.read()
                    device = EosDevice(name, 'admin', password, state_dir=directory, world=entry['world'],
                                       ports=sorted(set(DEFAULT_PORTS) | set(entry['interfaces'])), initial_config=initial,
                                       **eos_facts(entry, self.facts.get(name)))
                    server = EapiServer(device, self.host, 0, cert_dir=directory).start()
                    self.devices[name], self.servers[name] = device, server
                    self.endpoints[name] = {'host': server.host, 'port': server.port, 'kind': kind}
                elif kind in ('sonic', 'nvue'):
                    device = ssh_facts(entry, self.tacacs, self.facts.get(name))
                    double = SshDouble(name, kind, directory, public_key, host=self.host, device=device).start()
                    self.devices[name] = double
                    self.endpoints[name] = {'host': double.host, 'port': double.port, 'kind': kind}
        except BaseException:
            self.stop()
            raise
        self.write_inventory(password, key)
        return self

    def write_inventory(self, password, key):
        """DIR/inventory.yml: every switch with the variables a deploy needs to reach its double (mode 0600)."""
        hosts = {}
        known_hosts = os.path.join(self.state_dir, 'known_hosts')
        with open(known_hosts, 'w', encoding='utf-8') as handle:
            for name, endpoint in sorted(self.endpoints.items()):
                if endpoint['kind'] != 'eos':
                    with open(os.path.join(self.state_dir_of(name), 'etc', 'ssh_host_ed25519_key.pub'), encoding='utf-8') as key_file:
                        handle.write('[%s]:%d %s\n' % (endpoint['host'], endpoint['port'], ' '.join(key_file.read().split()[:2])))
        for name, endpoint in sorted(self.endpoints.items()):
            hosts[name] = inventory_host(endpoint, password, key, known_hosts)
        import yaml
        text = ('# Device doubles of this run (tests/doubles/fleet.py); secrets inside: do not share.\n'
                + yaml.safe_dump({'all': {'hosts': hosts, 'vars': {'aifabric_switch_users': self.user_hashes()}}},
                                 sort_keys=True))
        path = os.path.join(self.state_dir, 'inventory.yml')
        descriptor = os.open(path + '.tmp', os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, 'w') as handle:
            handle.write(text)
        os.replace(path + '.tmp', path)
        summary = {'devices': {name: dict(endpoint) for name, endpoint in self.endpoints.items()}, 'skipped': self.skipped}
        with open(os.path.join(self.state_dir, 'fleet.json'), 'w', encoding='utf-8') as handle:
            json.dump(summary, handle, indent=1, sort_keys=True)

    def user_hashes(self):
        """aifabric_switch_users for the intent's management.users (the render needs a hash for each)."""
        return {name: TEST_PASSWORD_HASH for name in self.users}

    def state_dir_of(self, name):
        return os.path.join(self.state_dir, 'devices', name)

    def stop(self):
        for device in self.devices.values():
            if hasattr(device, 'halt_timers'):
                device.halt_timers()  # all timer threads stop together, not one after the other
        for name, server in list(self.servers.items()):
            server.stop()
            del self.servers[name]
        for name, device in list(self.devices.items()):
            if hasattr(device, 'stop'):
                device.stop()
            del self.devices[name]

    def __enter__(self):
        return self.start()

    def __exit__(self, *_exc):
        self.stop()


# -- command line: a supervisor process outlives `up` ---------------------------------------------------------
def _pid_file(state_dir):
    return os.path.join(state_dir, 'fleet.pid')


def _running_pid(state_dir):
    try:
        with open(_pid_file(state_dir), encoding='utf-8') as handle:
            pid = int(handle.read().strip())
        os.kill(pid, 0)
    except (FileNotFoundError, ValueError, ProcessLookupError):
        return None
    with open('/proc/%d/cmdline' % pid, 'rb') as handle:
        if b'tests.doubles.fleet' not in handle.read():
            return None  # a stale pid file whose number was reused
    return pid


def parse_facts(items):
    """['leaf002.release=202012', ...] -> {'leaf002': {'release': '202012'}}."""
    facts = {}
    for item in items or []:
        target, sep, value = item.partition('=')
        name, dot, key = target.partition('.')
        if not sep or not dot or not name or not key:
            raise SystemExit('--fact takes SWITCH.FACT=VALUE, got %r' % item)
        facts.setdefault(name, {})[key] = value
    return facts


def serve(intent, state_dir, facts=None):
    """The supervisor: start the fleet, signal readiness, stop everything on SIGTERM."""
    os.makedirs(state_dir, exist_ok=True)
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_args: stopped.set())
    signal.signal(signal.SIGINT, lambda *_args: stopped.set())
    fleet = Fleet(load_design(intent), state_dir, facts=facts)
    try:
        fleet.start()
    except Exception as exc:  # pylint: disable=broad-exception-caught
        with open(os.path.join(state_dir, 'failed'), 'w', encoding='utf-8') as handle:
            handle.write('%s: %s\n' % (type(exc).__name__, exc))
        return 1
    with open(os.path.join(state_dir, 'ready'), 'w', encoding='utf-8') as handle:
        handle.write('%d\n' % os.getpid())
    stopped.wait()
    fleet.stop()
    for marker in ('ready', 'fleet.pid'):
        try:
            os.remove(os.path.join(state_dir, marker))
        except FileNotFoundError:
            pass
    return 0


def up(intent, state_dir, fact_args=()):
    state_dir = os.path.abspath(state_dir)
    parse_facts(fact_args)  # refuse a malformed --fact before starting anything
    if _running_pid(state_dir):
        print('fleet already up in %s' % state_dir)
        return status(state_dir)
    os.makedirs(state_dir, exist_ok=True)
    for marker in ('ready', 'failed'):
        if os.path.exists(os.path.join(state_dir, marker)):
            os.remove(os.path.join(state_dir, marker))
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get('PYTHONPATH', ''))
    with open(os.path.join(state_dir, 'fleet.log'), 'ab') as log:
        command = [sys.executable, '-m', 'tests.doubles.fleet', 'serve', '--intent', os.path.abspath(intent), '--state-dir', state_dir]
        for item in fact_args:
            command += ['--fact', item]
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=log,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
    with open(_pid_file(state_dir), 'w', encoding='utf-8') as handle:
        handle.write('%d\n' % process.pid)
    deadline = time.time() + READY_TIMEOUT
    while time.time() < deadline:
        if os.path.exists(os.path.join(state_dir, 'ready')):
            return status(state_dir)
        if os.path.exists(os.path.join(state_dir, 'failed')) or process.poll() is not None:
            break
        time.sleep(0.05)
    failure = os.path.join(state_dir, 'failed')
    reason = open(failure, encoding='utf-8').read().strip() if os.path.exists(failure) else 'see %s' % os.path.join(state_dir, 'fleet.log')
    down(state_dir)
    print('fleet failed to start: %s' % reason, file=sys.stderr)
    return 1


def down(state_dir, purge=False):
    state_dir = os.path.abspath(state_dir)
    pid = _running_pid(state_dir)
    if pid:
        os.kill(pid, signal.SIGTERM)
        for _attempt in range(200):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        else:
            os.kill(pid, signal.SIGKILL)
        print('fleet in %s stopped' % state_dir)
    else:
        print('no fleet running in %s' % state_dir)
    if os.path.exists(_pid_file(state_dir)):
        os.remove(_pid_file(state_dir))
    if purge:
        shutil.rmtree(state_dir, ignore_errors=True)
    return 0


def status(state_dir):
    try:
        with open(os.path.join(state_dir, 'fleet.json'), encoding='utf-8') as handle:
            summary = json.load(handle)
    except FileNotFoundError:
        print('no fleet in %s' % state_dir)
        return 1
    for name, endpoint in sorted(summary['devices'].items()):
        print('%-12s %-6s %s:%d' % (name, endpoint['kind'], endpoint['host'], endpoint['port']))
    for name in summary['skipped']:
        print('%-12s (no double for its platform: skipped)' % name)
    print('inventory: %s' % os.path.join(state_dir, 'inventory.yml'))
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog='python -m tests.doubles.fleet', description=__doc__.split('\n\n', maxsplit=1)[0])
    sub = parser.add_subparsers(dest='command', required=True)
    for name in ('up', 'serve'):
        item = sub.add_parser(name)
        item.add_argument('--intent', required=True)
        item.add_argument('--state-dir', required=True)
        item.add_argument('--fact', action='append', default=[], metavar='SWITCH.FACT=VALUE',
                          help='device fact override, e.g. leaf002.release=202012 (repeatable)')
    item = sub.add_parser('down')
    item.add_argument('--state-dir', required=True)
    item.add_argument('--purge', action='store_true', help='also remove the state directory')
    item = sub.add_parser('status')
    item.add_argument('--state-dir', required=True)
    args = parser.parse_args(argv)
    if args.command == 'up':
        return up(args.intent, args.state_dir, args.fact)
    if args.command == 'serve':
        return serve(args.intent, args.state_dir, parse_facts(args.fact))
    if args.command == 'down':
        return down(args.state_dir, args.purge)
    return status(args.state_dir)


if __name__ == '__main__':
    sys.exit(main())
