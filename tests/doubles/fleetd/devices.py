"""What one device of the fleet answers to an SSH exec request: its shell (fleetd/shell.py) over its commands.

- SONiC and NVUE switches run the single SSH doubles' commands (tests/doubles/ssh: `tests.doubles.ssh.cli`, the
  entry point of the wrappers on a single double's PATH) in this process against the device's state directory,
  with their output captured instead of written by a process of their own: the same code, so the same vendor
  rules and output shapes.
- Linux devices (GPU servers) answer iproute2 (`ip -j [-d] addr|link show`), lldpd (`lldpcli -f json show
  neighbors`), iputils `ping` and `cat` of their files, in the shapes recorded from Debian bookworm's iproute2 6.1,
  lldpd 1.0.16 and iputils 20221126 (tests/unit/fixtures/state/captured). Their interfaces, addresses, MTUs and LLDP
  neighbours come from the design (the fleet's plan); a ping is answered when the target is a rail address of a
  device of the fleet whose interface and the pinging one are up, and the payload fits both MTUs.

A device's fault knobs are its state directory's faults.json (tests/doubles/faults.py), read again when it changes.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import ipaddress
import json
import os
import posixpath
import secrets
import shutil
import subprocess
import threading

from tests.doubles.faults import Faults
from tests.doubles.fleetd.shell import Shell

# The vendor commands on a single SSH double's PATH (tests/doubles/ssh/server.py COMMANDS); `sudo` strips itself.
VENDOR_COMMANDS = {
    'sonic': ('config', 'show', 'sonic-cfggen', 'sonic-db-cli', 'sonic-db-dump', 'vtysh', 'docker', 'systemd-run',
              'systemctl', 'useradd', 'chpasswd', 'getent', 'id'),
    'nvue': ('nv', 'vtysh', 'ip', 'systemd-run', 'systemctl'),
}


# coreutils a deploy's check runs on a switch's files (DeviceFiles): its work directory and the deploy's state
FILE_COMMANDS = ('mktemp', 'rm', 'cat')
# Tools of the switch's image that are not the vendor's own, run as the real program: jq is on every SONiC host
# (sonic-buildimage build_debian.sh installs it); the SONiC reader cuts its COUNTERS_DB dump with it.
IMAGE_TOOLS = {'sonic': ('jq',), 'nvue': ()}


class RequestCache:
    """Values computed once per exec request. A single double's command is a process of its own that reads the
    device's files and derives its state on every call; a reading calls several (SONiC's `sonic-db-dump` per table,
    NVUE's `nv show` per port: redis and a daemon on a real switch). Within one request the fleet reads each file and
    derives each view once (the request takes milliseconds: what it shows is the state of one moment either way); a
    file written during the request is read again. The values are the thread's that runs the request (fleetd/sshd.py
    runs the requests in a thread of their own; what its event loop reads meanwhile is read as it is)."""

    def __init__(self):
        self._local = threading.local()

    @property
    def values(self):
        return getattr(self._local, 'values', None)

    @values.setter
    def values(self, values):
        self._local.values = values

    def wrap(self, function, key):
        """`function` memoised within a request on key(*args, **kwargs)."""
        def cached(*args, **kwargs):
            if self.values is None:
                return function(*args, **kwargs)
            index = (function.__qualname__, key(*args, **kwargs))
            if index not in self.values:
                self.values[index] = function(*args, **kwargs)
            return self.values[index]
        cached.__wrapped__ = function
        return cached

    def forget(self, path):
        if self.values:
            for index in [index for index in self.values if index[1] == path]:
                del self.values[index]

    @contextlib.contextmanager
    def request(self):
        self.values = {}
        try:
            yield
        finally:
            self.values = None


CACHE = RequestCache()


def install_request_cache():
    """Route the single doubles' file reads and their costliest derived views through the per-request cache (in the
    fleet's server processes only): state.read_json per file, SONiC's databases per device, NVUE's interface view
    per device and configuration tree."""
    # pylint: disable=import-outside-toplevel
    from tests.unit.platforms.sonic.double import shell as sonic
    from tests.unit.platforms.nvue.double import shell as nvue
    from tests.doubles.ssh import state as ssh_state
    if hasattr(ssh_state.read_json, '__wrapped__'):
        return
    write_json = ssh_state.write_json

    def written(file_path, *args, **kwargs):
        CACHE.forget(file_path)
        return write_json(file_path, *args, **kwargs)
    ssh_state.write_json = written
    ssh_state.read_json = CACHE.wrap(ssh_state.read_json, lambda file_path, default=None: file_path)
    # one database or all of them (a sonic-db-cli or sonic-db-dump call builds only the one it reads)
    sonic.databases = CACHE.wrap(sonic.databases, lambda directory, faults, only=None: (directory, only))
    nvue._interfaces = CACHE.wrap(nvue._interfaces, lambda directory, faults, tree: (directory, id(tree)))  # pylint: disable=protected-access


class Device:
    """One device: its name, kind, state directory, faults and shell."""

    kind = ''

    def __init__(self, name, directory):
        self.name, self.directory = name, directory
        self.faults = Faults(directory)
        self.shell = Shell(self.command)

    def reachable(self):
        return not self.faults.get('unreachable')

    def frozen(self):
        """Fault knob `frozen` (fleet): logins succeed, no command ever answers (a hung management plane)."""
        return bool(self.faults.get('frozen'))

    def run(self, request, stdin=''):
        """(rc, stdout, stderr) of one exec request."""
        with CACHE.request():
            return self.shell.run(request, stdin)

    def command(self, argv, stdin):
        raise NotImplementedError


class DeviceFiles:
    """The files of one switch that a deploy's check touches, inside the device's state directory only, as the
    single SSH double binds them into the switch's mount namespace (tests/doubles/ssh/server.py: the device's /tmp
    is D/tmp, the vendor's directories are D's, VENDOR_DIRS). A path outside them is not the fleet's: reading it finds
    nothing, writing it is refused. /tmp is everyone's (mode 1777); the vendor's directories are root's, so removing
    there takes sudo."""

    def __init__(self, kind, directory):
        from tests.doubles.ssh.server import VENDOR_DIRS  # pylint: disable=import-outside-toplevel
        self.mounts = [('/tmp', os.path.join(directory, 'tmp'))] + [
            (inside, os.path.join(directory, relative)) for inside, relative in VENDOR_DIRS.get(kind, ())]

    def host_path(self, path, writable_by_user=False):
        """Where the switch's absolute `path` lives on this machine (None: not in the fleet's part of the switch)."""
        if not path.startswith('/'):
            return None
        normal = posixpath.normpath(path)
        for inside, outside in self.mounts[:1] if writable_by_user else self.mounts:
            if normal == inside or normal.startswith(inside + '/'):
                return outside + normal[len(inside):]
        return None

    def map_arguments(self, argv):
        """The vendor command's arguments with the switch's paths as this machine has them (a single double's
        command opens them in the switch's mount namespace)."""
        return [argv[0]] + [self.host_path(word) or word if word.startswith('/') else word for word in argv[1:]]

    def run(self, argv, privileged):
        return {'mktemp': self.mktemp, 'rm': self.rm, 'cat': self.cat}[argv[0]](argv[1:], privileged)

    def mktemp(self, args, _privileged):
        """coreutils mktemp [-d] TEMPLATE (its trailing X's made random), under the switch's /tmp."""
        directory = '-d' in args
        words = [word for word in args if word != '-d']
        if len(words) != 1 or words[0].startswith('-') or not words[0].endswith('XXX'):
            return 1, '', 'mktemp: the fleet double takes `mktemp [-d] /tmp/NAME.XXXXXX` only\n'
        stem = words[0].rstrip('X')
        for _attempt in range(100):
            inside = stem + secrets.token_hex(8)[:len(words[0]) - len(stem)]
            outside = self.host_path(inside, writable_by_user=True)
            if outside is None:
                return 1, '', "mktemp: failed to create %s via template '%s': Permission denied\n" % (
                    'directory' if directory else 'file', words[0])
            os.makedirs(os.path.dirname(outside), exist_ok=True)
            try:
                if directory:
                    os.mkdir(outside, 0o700)
                else:
                    os.close(os.open(outside, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
            except FileExistsError:
                continue
            return 0, inside + '\n', ''
        return 1, '', "mktemp: failed to create file via template '%s': File exists\n" % words[0]

    def rm(self, args, privileged):
        """coreutils rm [-f] [-r]: inside the switch's /tmp, and the vendor's directories with sudo."""
        flags = ''.join(word[1:] for word in args if word.startswith('-'))
        rc, err = 0, []
        for path in [word for word in args if not word.startswith('-')]:
            outside = self.host_path(path, writable_by_user=not privileged)
            if outside is None or not os.path.lexists(outside):
                if outside is None and self.host_path(path) is not None:
                    err.append("rm: cannot remove '%s': Permission denied\n" % path)
                    rc = 1
                elif 'f' not in flags:
                    err.append("rm: cannot remove '%s': No such file or directory\n" % path)
                    rc = 1
                continue
            if os.path.isdir(outside) and not os.path.islink(outside):
                if 'r' not in flags and 'R' not in flags:
                    err.append("rm: cannot remove '%s': Is a directory\n" % path)
                    rc = 1
                    continue
                shutil.rmtree(outside)
            else:
                os.unlink(outside)
        return rc, '', ''.join(err)

    def cat(self, args, _privileged):
        out, err, rc = [], [], 0
        for path in args:
            outside = self.host_path(path)
            try:
                if outside is None:
                    raise FileNotFoundError(path)
                with open(outside, encoding='utf-8', errors='surrogateescape') as handle:
                    out.append(handle.read())
            except IsADirectoryError:
                err.append('cat: %s: Is a directory\n' % path)
                rc = 1
            except OSError:
                err.append('cat: %s: No such file or directory\n' % path)
                rc = 1
        return rc, ''.join(out), ''.join(err)


class VendorDevice(Device):
    """A SONiC or NVUE switch: the single SSH double's commands, in this process."""

    def __init__(self, name, kind, directory):
        super().__init__(name, directory)
        self.kind = kind
        self.files = DeviceFiles(kind, directory)

    def command(self, argv, stdin, host_paths=False):
        """(rc, stdout, stderr) of one command of the switch; its paths are the switch's, mapped into its state
        directory (DeviceFiles), unless `host_paths` (the fleet's own boot, with this machine's paths)."""
        from tests.doubles.ssh import cli  # pylint: disable=import-outside-toplevel
        privileged = '0'
        if argv[0] == 'sudo':  # passwordless, like the vendor's admin users (the single double's wrapper)
            argv = argv[1:]
            while argv and argv[0].startswith('-'):
                argv = argv[1:]
            privileged = '1'
            if not argv:
                return 1, '', 'usage: sudo command\n'
        if not host_paths:
            if argv[0] in FILE_COMMANDS:
                return self.files.run(argv, privileged == '1')
            argv = self.files.map_arguments(argv)
        if argv[0] in IMAGE_TOOLS[self.kind]:
            ran = subprocess.run(argv, input=stdin, capture_output=True, text=True, check=False)
            return ran.returncode, ran.stdout, ran.stderr
        if argv[0] not in VENDOR_COMMANDS[self.kind]:
            return 127, '', '%s: command not found\n' % argv[0]
        if argv[0] == 'docker' and argv[1:2] == ['exec'] and not any(word in ('vtysh',) for word in argv[2:]):
            return 1, '', 'docker exec: only the bgp container\'s vtysh runs in the fleet double\n'
        out, err = io.StringIO(), io.StringIO()
        saved = {name: os.environ.get(name) for name in ('DOUBLE_STATE', 'DOUBLE_PRIVILEGED')}
        os.environ.update(DOUBLE_STATE=self.directory, DOUBLE_PRIVILEGED=privileged)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _stdin(stdin):
                try:
                    rc = cli.main(argv)
                except SystemExit as stop:
                    rc = stop.code if isinstance(stop.code, int) else 1
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
        return rc or 0, out.getvalue(), err.getvalue()


@contextlib.contextmanager
def _stdin(text):
    import sys  # pylint: disable=import-outside-toplevel
    saved = sys.stdin
    sys.stdin = io.StringIO(text)
    try:
        yield
    finally:
        sys.stdin = saved


# -- Linux (GPU servers) ----------------------------------------------------------------------------------------------
def mac_address(name, interface):
    """A stable locally administered MAC for an interface (what a device shows; nothing checks it)."""
    digest = hashlib.sha256(('%s/%s' % (name, interface)).encode()).digest()
    return ':'.join('%02x' % byte for byte in (bytes([digest[0] & 0xfe | 0x02]) + digest[1:6]))


class Directory:
    """Where each rail address of the fleet lives, for pings: {address: (device, interface)}."""

    def __init__(self):
        self.addresses = {}
        self.devices = {}

    def add(self, device):
        self.devices[device.name] = device
        for interface in device.interfaces:
            if interface.get('address'):
                self.addresses[interface['address'].split('/')[0]] = (device.name, interface['name'])


class LinuxDevice(Device):
    """A GPU server: Debian's iproute2, lldpd and iputils over its design (see the module docstring)."""

    kind = 'linux'

    def __init__(self, name, directory, spec, directory_of_addresses):
        super().__init__(name, directory)
        self.interfaces = spec['interfaces']  # [{name, address (CIDR) | None, mtu}]
        self.lldp = spec.get('lldp') or {}  # {interface: {device, port, management}}
        self.files = spec.get('files') or {}  # {path: text}
        self.peers = directory_of_addresses
        self._by_name = {item['name']: item for item in self.interfaces}

    # state
    def link_up(self, interface):
        return interface in self._by_name and interface not in (self.faults.get('interfaces_down') or [])

    def mtu(self, interface):
        return int((self.faults.get('mtu') or {}).get(interface, self._by_name[interface]['mtu']))

    def command(self, argv, stdin):
        if argv[0] == 'sudo':
            argv = [word for word in argv[1:] if not word.startswith('-')] or ['sudo']
        handler = {'ip': self.ip, 'lldpcli': self.lldpcli, 'ping': self.ping, 'cat': self.cat}.get(argv[0])
        if handler is None:
            return 127, '', 'sh: 1: %s: not found\n' % argv[0]
        return handler(argv[1:])

    def cat(self, args):
        out, err, rc = [], [], 0
        for path in args:
            if path in self.files:
                out.append(self.files[path])
            else:
                err.append('cat: %s: No such file or directory\n' % path)
                rc = 1
        return rc, ''.join(out), ''.join(err)

    def ip(self, args):
        words = [word for word in args if word not in ('-j', '-json', '-d', '-details')]
        json_out = '-j' in args or '-json' in args
        if not json_out or words[:1] not in (['addr'], ['address'], ['a'], ['link'], ['l']) or words[1:] not in ([], ['show']):
            return 1, '', 'the fleet double answers `ip -j [-d] addr|link show` only\n'
        with_addresses = words[0] not in ('link', 'l')
        entries = [{'ifindex': 1, 'ifname': 'lo', 'flags': ['LOOPBACK', 'UP', 'LOWER_UP'], 'mtu': 65536, 'qdisc': 'noqueue',
                    'operstate': 'UNKNOWN', 'group': 'default', 'txqlen': 1000, 'link_type': 'loopback',
                    'address': '00:00:00:00:00:00', 'broadcast': '00:00:00:00:00:00'}]
        if with_addresses:
            entries[0]['addr_info'] = [{'family': 'inet', 'local': '127.0.0.1', 'prefixlen': 8, 'scope': 'host',
                                        'label': 'lo', 'valid_life_time': 4294967295, 'preferred_life_time': 4294967295}]
        for index, item in enumerate(self.interfaces, start=2):
            up = self.link_up(item['name'])
            entry = {'ifindex': index, 'ifname': item['name'],
                     'flags': ['BROADCAST', 'MULTICAST', 'UP'] + (['LOWER_UP'] if up else []) if item['name'] not in (
                         self.faults.get('admin_down') or []) else ['BROADCAST', 'MULTICAST'],
                     'mtu': self.mtu(item['name']), 'qdisc': 'mq', 'operstate': 'UP' if up else 'DOWN',
                     'group': 'default', 'txqlen': 1000, 'link_type': 'ether',
                     'address': mac_address(self.name, item['name']), 'broadcast': 'ff:ff:ff:ff:ff:ff'}
            if with_addresses:
                entry['addr_info'] = []
                if item.get('address'):
                    address, prefix = item['address'].split('/')
                    entry['addr_info'].append({'family': 'inet', 'local': address, 'prefixlen': int(prefix),
                                               'scope': 'global', 'label': item['name'],
                                               'valid_life_time': 4294967295, 'preferred_life_time': 4294967295})
            entries.append(entry)
        return 0, json.dumps(entries, separators=(',', ':')) + '\n', ''

    def lldpcli(self, args):
        if args[:2] != ['-f', 'json'] or args[2:] not in (['show', 'neighbors'], ['show', 'neighbors', 'details']):
            return 1, '', 'the fleet double answers `lldpcli -f json show neighbors` only\n'
        seen = []
        for interface, neighbour in sorted(self.lldp.items()):
            if not self.link_up(interface):
                continue
            seen.append({interface: {
                'via': 'LLDP', 'rid': str(len(seen) + 1), 'age': '0 day, 00:10:43',
                'chassis': {neighbour['device']: {
                    'id': {'type': 'mac', 'value': mac_address(neighbour['device'], 'chassis')},
                    'descr': neighbour.get('description', ''),
                    **({'mgmt-ip': neighbour['management']} if neighbour.get('management') else {}),
                    'capability': [{'type': 'Bridge', 'enabled': True}, {'type': 'Router', 'enabled': True}]}},
                # switches send the interface name as port ID (lldpd: ifname)
                'port': {'id': {'type': 'ifname', 'value': neighbour['port']}, 'descr': neighbour['port'],
                         'ttl': '120'}}})
        # lldpd 1.0.x: an object for one neighbour, a list of one-key objects for several, {} for none
        body = {} if not seen else {'interface': seen[0] if len(seen) == 1 else seen}
        return 0, json.dumps({'lldp': body}, indent=2) + '\n', ''

    def ping(self, args):
        """iputils ping -n -c N -i I -W W [-I IF] [-M do -s SIZE] ADDRESS."""
        options, target, index = {}, None, 0
        while index < len(args):
            word = args[index]
            if word in ('-c', '-i', '-W', '-I', '-M', '-s'):
                if index + 1 >= len(args):
                    return 2, '', 'ping: option requires an argument -- \'%s\'\n' % word[1]
                options[word] = args[index + 1]
                index += 2
            elif word in ('-n', '-q'):
                index += 1
            elif word.startswith('-'):
                return 2, '', 'ping: invalid option -- \'%s\'\n' % word.lstrip('-')[:1]
            else:
                target = word
                index += 1
        try:
            ipaddress.IPv4Address(target or '')
        except ValueError:
            return 2, '', 'ping: %s: Name or service not known\n' % target
        count = int(options.get('-c', 3))
        size = int(options.get('-s', 56))
        interface = options.get('-I') or next((item['name'] for item in self.interfaces if item.get('address')), None)
        if interface not in self._by_name:
            return 2, '', 'ping: SO_BINDTODEVICE %s: No such device\n' % interface
        own = (self._by_name[interface].get('address') or '0.0.0.0/0').split('/')[0]
        header = 'PING %s (%s) %d(%d) bytes of data.\n' % (target, target, size, size + 28)
        dont_fragment = options.get('-M') == 'do'
        if dont_fragment and size + 28 > self.mtu(interface):
            lines = ['ping: local error: message too long, mtu=%d\n' % self.mtu(interface)] * count
            footer = '\n--- %s ping statistics ---\n%d packets transmitted, 0 received, +%d errors, 100%% packet loss, ' \
                     'time %dms\n' % (target, count, count, (count - 1) * 200)
            return 1, header + ''.join(lines) + footer, ''
        peer = self.peers.addresses.get(target)
        device = self.peers.devices.get(peer[0]) if peer else None
        answers = (self.link_up(interface) and device is not None and device.reachable() and device.link_up(peer[1])
                   and not (dont_fragment and size + 28 > device.mtu(peer[1])))
        if not answers:
            lines = ''.join('From %s icmp_seq=%d Destination Host Unreachable\n' % (own, seq) for seq in range(1, count + 1))
            footer = '\n--- %s ping statistics ---\n%d packets transmitted, 0 received, +%d errors, 100%% packet loss, ' \
                     'time %dms\npipe %d\n' % (target, count, count, (count - 1) * 200 + 9, count)
            return 1, header + lines + footer, ''
        lines = ''.join('%d bytes from %s: icmp_seq=%d ttl=64 time=0.120 ms\n' % (size + 8, target, seq)
                        for seq in range(1, count + 1))
        footer = '\n--- %s ping statistics ---\n%d packets transmitted, %d received, 0%% packet loss, time %dms\n' \
                 'rtt min/avg/max/mdev = 0.117/0.119/0.121/0.001 ms\n' % (target, count, count, (count - 1) * 200 + 10)
        return 0, header + lines + footer, ''


__all__ = ['Device', 'DeviceFiles', 'VendorDevice', 'LinuxDevice', 'Directory', 'install_request_cache', 'VENDOR_COMMANDS']
