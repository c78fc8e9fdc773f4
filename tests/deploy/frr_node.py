"""A real FRR-on-Linux switch for the FRR deploy driver: Debian's FRR 8.4 daemons, iproute2 and OpenSSH, run in a
network and mount namespace of their own (no container image needed, nothing of the host's network touched).

The node gets a private /etc, /var/lib, /root and /usr/lib/frr (overlays of the host's, written under its state directory; root's
shell start-up files its own) and an empty /run/frr and /var/log/frr, a loopback, data ports eth1..ethN (veth pairs whose far ends stay inside
the namespace, down like unplugged ports), and eth0: a veth pair to the host on a private /30 where its sshd listens.
The driver logs in as root with a key made for the node; no systemd runs, so its confirm timer is the detached
`sleep` the driver uses where systemd does not run (as in the lab's containers).

    node = FrrNode('leaf001', state_dir, ports=4).start()
    node.host_vars      # what the inventory gives the deploy: ansible_host, ansible_user, the key, no host key check
    node.run('vtysh -c "show running-config"')   # a command inside the node
    node.stop()
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time

from ansible_collections.aifabric.fabric.plugins.module_utils.linux_netdev import parse_links

SSHD = '/usr/sbin/sshd'
OVERLAID = ('/etc', '/var/lib', '/root', '/usr/lib/frr')  # the host's, with the node's changes on top
# root's own shell start-up files on the node (not the test machine's, whatever they run)
ROOT_FILES = {'.profile': '[ -f ~/.bashrc ] && . ~/.bashrc\n', '.bashrc': "PS1='\\u@\\h:\\w\\$ '\n"}
EMPTY = ('/run/frr', '/var/log/frr')  # FRR's sockets, pid files and logs
_NEXT = [0]


def _namespace_of(pid):
    try:
        return os.readlink('/proc/%d/ns/net' % pid)
    except OSError:
        return None


class FrrNode:
    """One FRR switch in its own namespaces, with its own host name; `index` picks its management /30
    (10.255.<index>.0/30)."""

    def __init__(self, name, state_dir, ports=4, index=None):
        self.name = name
        self.state_dir = os.path.abspath(state_dir)
        self.ports = ports
        _NEXT[0] += 1
        self.index = index if index is not None else (os.getpid() * 7 + _NEXT[0]) % 250 + 1
        self.host_if = 'aifrr%d' % self.index
        self.address = '10.255.%d.2' % self.index
        self.init = None
        self.namespace = None

    # ----------------------------------------------------------------------------------------------- set up
    def _prepare(self):
        shutil.rmtree(self.state_dir, ignore_errors=True)
        for directory in OVERLAID:
            for part in ('upper', 'work'):
                os.makedirs(self._layer(directory, part))
        for name, text in ROOT_FILES.items():
            with open(os.path.join(self._layer('/root', 'upper'), name), 'w', encoding='utf-8') as handle:
                handle.write(text)
        ssh = os.path.join(self.state_dir, 'ssh')
        os.makedirs(ssh, mode=0o700)
        for key in ('host_key', 'client_key'):
            subprocess.run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-f', os.path.join(ssh, key)], check=True)
        shutil.copy(os.path.join(ssh, 'client_key.pub'), os.path.join(ssh, 'authorized_keys'))
        with open(os.path.join(ssh, 'sshd_config'), 'w', encoding='utf-8') as handle:
            handle.write('ListenAddress %s\nHostKey %s/host_key\nAuthorizedKeysFile %s/authorized_keys\n'
                         'PermitRootLogin prohibit-password\nPasswordAuthentication no\nStrictModes no\n'
                         'UsePAM no\nPrintMotd no\nPrintLastLog no\nPidFile %s/sshd.pid\nSubsystem sftp internal-sftp\n'
                         % (self.address, ssh, ssh, ssh))

    def _layer(self, directory, part):
        return os.path.join(self.state_dir, 'layers', directory.strip('/').replace('/', '_'), part)

    def _init_script(self):
        mounts = ''.join('mount -t overlay overlay -o lowerdir=%s,upperdir=%s,workdir=%s %s\n'
                         % (path, self._layer(path, 'upper'), self._layer(path, 'work'), path) for path in OVERLAID)
        mounts += ''.join('mount -t tmpfs -o mode=0755 tmpfs %s && chown frr:frr %s\n' % (path, path) for path in EMPTY)
        ports = ''.join('ip link add eth%d type veth peer name peer%d\n' % (number, number)
                        for number in range(1, self.ports + 1))
        return ('set -e\nmount --make-rprivate /\nhostname %s\n%s'
                'ip link set lo up\n%s'
                'while ! ip link show eth0 >/dev/null 2>&1; do sleep 0.05; done\n'
                'ip address add %s/30 dev eth0\nip link set eth0 up\n'
                'exec %s -D -e -f %s/ssh/sshd_config 2>>%s/sshd.log\n'
                % (self.name, mounts, ports, self.address, SSHD, self.state_dir, self.state_dir))

    def start(self, timeout=20.0):
        self._prepare()
        self.init = subprocess.Popen(['unshare', '--net', '--mount', '--uts', '--fork', '--kill-child', 'sh', '-c',
                                      self._init_script()], start_new_session=True)
        deadline = time.monotonic() + timeout
        child = None
        while child is None and time.monotonic() < deadline:
            child = self._child()
            if child is None:
                time.sleep(0.05)
        if child is None:
            self.stop()
            raise RuntimeError('the FRR node did not start')
        self.namespace = _namespace_of(child)
        subprocess.run(['ip', 'link', 'del', self.host_if], capture_output=True, check=False)
        subprocess.run(['ip', 'link', 'add', self.host_if, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', str(child)],
                       check=True)
        subprocess.run(['ip', 'address', 'add', '10.255.%d.1/30' % self.index, 'dev', self.host_if], check=True)
        subprocess.run(['ip', 'link', 'set', self.host_if, 'up'], check=True)
        while time.monotonic() < deadline:
            if subprocess.run(['ssh'] + self._ssh_options() + ['true'], capture_output=True, check=False).returncode == 0:
                return self
            time.sleep(0.2)
        self.stop()
        raise RuntimeError('sshd of the FRR node did not answer')

    def _child(self):
        """The shell unshare runs in the new namespaces."""
        try:
            children = open('/proc/%d/task/%d/children' % (self.init.pid, self.init.pid), encoding='utf-8').read().split()
        except OSError:
            return None
        for pid in map(int, children):
            if _namespace_of(pid) not in (None, _namespace_of(os.getpid())):
                return pid
        return None

    def _ssh_options(self):
        return ['-i', os.path.join(self.state_dir, 'ssh', 'client_key'), '-o', 'StrictHostKeyChecking=no',
                '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR', '-o', 'BatchMode=yes',
                'root@%s' % self.address]

    # ----------------------------------------------------------------------------------------------- use
    @property
    def host_vars(self):
        return {'ansible_host': self.address, 'ansible_user': 'root',
                'ansible_ssh_private_key_file': os.path.join(self.state_dir, 'ssh', 'client_key'),
                'aifabric_ssh_host_key_checking': False, 'ansible_command_timeout': 30}

    def run(self, command, check=True):
        """(exit code, output) of a shell command on the node, over its SSH server."""
        done = subprocess.run(['ssh'] + self._ssh_options() + [command], capture_output=True, text=True, timeout=120,
                              check=False)
        if check and done.returncode != 0:
            raise RuntimeError('%s failed on the FRR node: %s' % (command, done.stdout + done.stderr))
        return done.returncode, done.stdout

    def running_config(self):
        code, output = self.run("vtysh -c 'show running-config'", check=False)
        return output if code == 0 else None

    def state(self):
        """What the node runs: FRR's running configuration, its daemons, the interface state (as linux_netdev reads it:
        kind, MTU, state, master, MAC, global addresses), the forwarding sysctls, the saved files."""
        return {
            'frr': self.running_config(),
            'daemons': self.run('cat /etc/frr/daemons')[1],
            'links': parse_links(json.loads(self.run('ip -d -j address show')[1])),
            'sysctl': self.run('sysctl -n net.ipv4.ip_forward net.ipv6.conf.all.forwarding')[1],
            'saved': self.run('cat /etc/frr/frr.conf /etc/aifabric/netdev.d/*.ip /etc/sysctl.d/*.conf 2>/dev/null; true')[1],
        }

    # ----------------------------------------------------------------------------------------------- tear down
    def stop(self):
        victims = [int(entry) for entry in os.listdir('/proc') if entry.isdigit()
                   and self.namespace and _namespace_of(int(entry)) == self.namespace]
        for pid in victims:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if self.init is not None:
            try:
                os.killpg(self.init.pid, signal.SIGKILL)
            except OSError:
                pass
            self.init.wait(timeout=10)
        subprocess.run(['ip', 'link', 'del', self.host_if], capture_output=True, check=False)
        shutil.rmtree(self.state_dir, ignore_errors=True)
