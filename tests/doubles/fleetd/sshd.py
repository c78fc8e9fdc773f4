"""One asyncio SSH server (asyncssh) for every device of one kind of the fleet, each on its own loopback address.

    python -m tests.doubles.fleetd.sshd --spec SPEC.json

SPEC (written by the launcher, mode 0600): {"kind", "user", "authorized_key", "ttl", "started", "devices": [{"name",
"directory", "address", "port", "facts" (SONiC, NVUE: booted from their rendered files, fleetd/boot.py) or "linux"
(Linux devices: interfaces, LLDP neighbours, files)}]}. Each device gets an SSH host key of its own
(kept in its directory, so a restarted fleet keeps its known_hosts) and listens on its address; a login is by the
run's public key for the run's user. An exec request is the device's: its shell (fleetd/shell.py) over its commands
(fleetd/devices.py). Like OpenSSH's sshd, at most MaxSessions = 10 sessions are open at once on one connection
(sshd_config(5): "MaxSessions ... The default is 10."; OpenSSH refuses the channel open beyond it). The `sftp`
subsystem is served as OpenSSH's sftp-server serves it on SONiC (sonic-buildimage files/build_templates/
sonic_debian_extension.j2 installs openssh-sftp-server with openssh-server) and Cumulus Linux (Debian's OpenSSH; the
per-host deploy's uploads rely on it too: unverified from a public image build): the login user's files, here the
device's /tmp only (its state directory's tmp/, DeviceSFTP), where a deploy's check uploads its candidate. A request for an interactive
shell or a pty is refused: the deploy's check and the readings use exec requests.

Fault knobs (faults.json of the device, tests/doubles/faults.py): `unreachable` closes every connection as it
arrives; `frozen` (fleet) accepts logins and never answers a command, a hung management plane that only a
reader's deadline ends.

The process writes `<spec>.ready` once every device listens (with {name: host public key}), stops on SIGTERM or
SIGINT, and ends by itself `ttl` seconds after it started.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import sys

import asyncssh

from tests.doubles.fleetd.boot import boot
from tests.doubles.fleetd import serving
from tests.doubles.fleetd.devices import Directory, LinuxDevice, VendorDevice, install_request_cache

# The devices' commands run in one thread, one request at a time (they share the process's redirected stdout, its
# environment and the request cache), while the event loop goes on serving the SSH protocol: a real switch's sshd
# answers a handshake whatever its CLI is busy with. Run in the loop, the requests of the kind's other devices held up
# every handshake: 121 of 512 SONiC switches read at once (128 in flight) were not answered within 20 s.
COMMANDS = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix='fleet-commands')
MAX_SESSIONS = 10
LOGIN_GRACE_TIME = 120  # sshd_config(5) LoginGraceTime: "The default is 120 seconds."
STDIN_TIMEOUT = 60  # seconds a request that reads its standard input waits for its end


def host_key(directory):
    """The device's ed25519 host key, made once and kept in its directory."""
    path = os.path.join(directory, 'ssh_host_ed25519_key')
    if os.path.exists(path):
        return asyncssh.read_private_key(path)
    key = asyncssh.generate_private_key('ssh-ed25519')
    os.makedirs(directory, exist_ok=True)
    key.write_private_key(path)
    os.chmod(path, 0o600)
    return key


class DeviceSFTP(asyncssh.SFTPServer):
    """The sftp subsystem of one device: absolute paths under the device's /tmp only (DeviceFiles: its state
    directory's tmp/), anything else refused as permission denied; a frozen device never answers an open."""

    def __init__(self, chan, device, ended):
        super().__init__(chan)
        self.device, self.ended = device, ended

    def map_path(self, path):
        mapped = self.device.files.host_path(path.decode('utf-8', 'surrogateescape'), writable_by_user=True)
        if mapped is None:
            raise asyncssh.SFTPPermissionDenied('%s: permission denied (the fleet double serves /tmp only)'
                                                % path.decode('utf-8', 'replace'))
        os.makedirs(os.path.join(self.device.directory, 'tmp'), exist_ok=True)
        return mapped.encode('utf-8', 'surrogateescape')

    def reverse_map_path(self, path):
        text = path.decode('utf-8', 'surrogateescape')
        tmp = os.path.join(self.device.directory, 'tmp')
        return ('/tmp' + text[len(tmp):]).encode('utf-8', 'surrogateescape') if text.startswith(tmp) else path

    async def open(self, path, pflags, attrs):  # pylint: disable=invalid-overridden-method
        if self.device.frozen():
            await asyncio.Event().wait()  # never answers: the client's deadline ends it
        return super().open(path, pflags, attrs)

    def exit(self):
        self.ended()
        super().exit()


class DeviceServer(asyncssh.SSHServer):
    """One connection to one device."""

    def __init__(self, device, user, authorized):
        self.device, self.user, self.authorized = device, user, authorized
        self.sessions = 0
        self.connection = None

    def connection_made(self, conn):
        self.connection = conn
        if not self.device.reachable():
            conn.abort()  # fault knob unreachable: the management plane answers nothing

    def begin_auth(self, username):
        return True

    def public_key_auth_supported(self):
        return True

    def validate_public_key(self, username, key):
        return username == self.user and key.public_data == self.authorized.public_data

    def session_requested(self):
        if self.sessions >= MAX_SESSIONS:
            raise asyncssh.ChannelOpenError(asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, 'open failed')
        self.sessions += 1
        return True

    def session_ended(self):
        self.sessions -= 1


def sftp_handler(device):
    """The sftp subsystem factory of one device (its session counts towards MaxSessions until it ends)."""
    def start(chan):
        server = chan.get_connection().get_owner()
        ended = []

        def end():
            if not ended:
                ended.append(True)
                server.session_ended()
        return DeviceSFTP(chan, device, end)
    return start


def session_handler(device):
    """The process factory of one device: run the exec request, or hang when the device is frozen."""
    async def handle(process):
        server = process.get_extra_info('connection').get_owner()
        try:
            if device.frozen():
                await process.channel.wait_closed()  # never answers: the reader's deadline ends it
                return
            command = process.command
            if command is None or process.subsystem:
                process.stderr.write('fleet double %s: exec requests only\n' % device.name)
                process.exit(1)
                return
            stdin = ''
            if device.shell.needs_stdin(command):  # a script on standard input (a reading's batch, Ansible's)
                stdin = await asyncio.wait_for(process.stdin.read(), STDIN_TIMEOUT)
            rc, out, err = await asyncio.get_running_loop().run_in_executor(COMMANDS, device.run, command, stdin)
            if out:
                process.stdout.write(out)
            if err:
                process.stderr.write(err)
            process.exit(rc & 0xff)
        except (asyncssh.Error, ConnectionError, BrokenPipeError):
            pass  # the client went away
        finally:
            server.session_ended()
    return handle


async def serve(spec, spec_path):
    install_request_cache()
    os.environ['DOUBLE_PRIVILEGED'] = '0'
    authorized = asyncssh.import_public_key(spec['authorized_key'])
    addresses = Directory()
    devices, listeners, public = [], [], {}
    for item in spec['devices']:
        if item.get('linux') is not None:
            device = LinuxDevice(item['name'], item['directory'], item['linux'], addresses)
            addresses.add(device)
        else:
            boot(spec['kind'], item['name'], item['directory'], item['facts'])
            device = VendorDevice(item['name'], spec['kind'], item['directory'])
        devices.append((device, item))
    for device, item in devices:
        key = host_key(os.path.join(item['directory'], 'ssh'))
        public[device.name] = key.export_public_key('openssh').decode().split()[:2]
        listeners.append(await asyncssh.listen(
            item['address'], item['port'], server_factory=lambda device=device: DeviceServer(device, spec['user'], authorized),
            server_host_keys=[key], process_factory=session_handler(device), encoding='utf-8', allow_pty=False,
            sftp_factory=None if item.get('linux') is not None else sftp_handler(device),
            allow_scp=False, agent_forwarding=False, x11_forwarding=False, login_timeout=LOGIN_GRACE_TIME, reuse_address=True,
            backlog=128))
    await serving.announce_then_serve(spec, spec_path, host_keys=public)
    for listener in listeners:
        listener.close()
    for listener in listeners:
        await listener.wait_closed()


def main(argv=None):
    return serving.main(serve, __doc__.split('\n', maxsplit=1)[0], argv)


if __name__ == '__main__':
    sys.exit(main())
