"""The bgp container's FRR, for real: Debian's FRR daemons load, change and print the configuration.

A SONiC switch runs FRR in its bgp container (docker-fpm-frr): supervisord starts zebra (with the FPM data-plane
module), staticd and bgpd (sonic-buildimage dockers/docker-fpm-frr/frr/supervisord/supervisord.conf.common.j2), loads
/etc/frr/frr.conf with `vtysh -b` in the unified modes (program vtysh_b) or lets each daemon read its own file in the
separated and split modes (docker_init.sh), and changes it with vtysh. The double does exactly that with the FRR the
machine has (Debian's 8.4; the image builds 10.5.4, rules/frr.mk): for every command that loads or changes FRR's
configuration, it starts those three daemons in a network, UTS, mount and PID namespace of their own (only a loopback:
no BGP session can leave it, bgpd does not even listen, `-p 0`; they end with the namespace), boots them from the stored configuration, runs the
vtysh command, prints `show running-config` and stops them. What FRR accepts, refuses, adds or removes is FRR's own;
the double keeps only the text FRR printed (D/frr/running.conf) between commands.

    result = run(directory, 'leaf001', boot=('replay', running_text), vtysh_conf=..., actions=[['-f', '/etc/frr/x.conf']])
    result.running, result.outputs  # FRR's running configuration, [(exit code, output)] per action

Boots: ('integrated', frr.conf text) as the container starts in split-unified and unified mode (`vtysh -b`);
('separated', {file name: text}) as it starts in separated and split mode (each daemon reads its own file);
('replay', running configuration) for a command on a running container: the daemons get back what they ran before
(the text FRR printed, fed to `vtysh -f`; replaying FRR's own output gives the same running configuration).

Not modelled: anything FRR does with its neighbours (the double's show commands derive BGP and EVPN state from the
configuration, tests/doubles/ssh/frr.py); the release difference (8.4 here, 10.5.4 in the image: commands FRR 10 added
or renamed are refused here and would be taken there).
"""

from __future__ import annotations

import collections
import os
import shlex
import shutil
import subprocess
import tempfile

FRR_BIN = '/usr/lib/frr'
VTYSH = '/usr/bin/vtysh'  # FRR's own: on a switch's PATH `vtysh` is the double's command (SONiC's host wrapper)
# The programs of supervisord.conf.common.j2 that hold configuration (mgmtd exists from FRR 9 on; 8.4 has none).
DAEMONS = ('zebra', 'bgpd', 'staticd')
# zebra's data plane module: SONiC loads its own dplane_fpm_sonic (FRR 10 with SONiC's patches); FRR's dplane_fpm_nl
# is the module that takes the same `fpm address` commands in 8.4.
DAEMON_ARGS = {'zebra': ['-M', 'dplane_fpm_nl'], 'bgpd': ['-p', '0'], 'staticd': []}
SEPARATED_FILES = {'zebra': 'zebra.conf', 'bgpd': 'bgpd.conf', 'staticd': 'staticd.conf'}
HEADER = ('Building configuration...', 'Current configuration:')
START_TIMEOUT_S = 10

Result = collections.namedtuple('Result', 'running outputs')


class FrrFailed(RuntimeError):
    """FRR's daemons did not start (the machine lacks FRR, or a daemon refused to run)."""


def body(show_running):
    """`show running-config` without vtysh's two header lines."""
    lines = show_running.splitlines()
    while lines and (not lines[0].strip() or lines[0].strip() in HEADER):
        lines.pop(0)
    return '\n'.join(lines) + '\n' if lines else ''


def _script(work, hostname, mode, actions):  # pylint: disable=too-many-locals
    run = '/run/frr'  # a tmpfs of this namespace only: FRR's default socket and pid directory
    lines = ['set -u', 'exec 2>>%s/daemons.log' % work,
             'mount -t tmpfs -o mode=0755 tmpfs %s && chown frr:frr %s' % (run, run),
             # the daemons' crash-log directories: the namespace's own, nothing left on the machine
             'mkdir -p /var/tmp/frr && mount -t tmpfs -o mode=0755 tmpfs /var/tmp/frr && chown frr:frr /var/tmp/frr',
             'hostname %s' % shlex.quote(hostname), 'ip link set lo up',
             # SONiC's host forwards (sysctl); FRR prints `no ip forwarding` otherwise
             'sysctl -q -w net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1',
             'cp %s/boot/* %s/ 2>/dev/null' % (work, run), 'chown frr:frr %s/*.conf 2>/dev/null' % run]
    for daemon in DAEMONS:
        config = '%s/%s' % (run, SEPARATED_FILES[daemon]) if mode == 'separated' else '/dev/null'
        if mode == 'separated':
            lines.append('[ -f %s ] || : > %s' % (config, config))
        lines.append(' '.join([FRR_BIN + '/' + daemon, '-d', '-A', '127.0.0.1', '-P', '0', '-i',
                               '%s/%s.pid' % (run, daemon), '-f', config] + DAEMON_ARGS[daemon]))
    sockets = ' && '.join('[ -S %s/%s.vty ]' % (run, daemon) for daemon in DAEMONS)
    lines += ['n=0; until %s; do n=$((n+1)); [ $n -gt %d ] && { echo daemons did not start; exit 3; }; sleep 0.02; done'
              % (sockets, START_TIMEOUT_S * 50)]
    if mode == 'integrated':
        lines.append('%s --config_dir %s -b >%s/boot.out 2>&1' % (VTYSH, run, work))
    elif mode == 'replay':
        lines.append('%s --config_dir %s -f %s/boot/running.conf >%s/boot.out 2>&1' % (VTYSH, run, work, work))
    for index, argv in enumerate(actions):
        lines.append('%s --config_dir %s %s >%s/action%d.out 2>&1; echo $? >%s/action%d.rc'
                     % (VTYSH, run, ' '.join(shlex.quote(arg) for arg in argv), work, index, work, index))
    lines.append("%s --config_dir %s -c 'show running-config' >%s/running.out" % (VTYSH, run, work))
    return '\n'.join(lines) + '\n'


def run(directory, hostname, boot, vtysh_conf='service integrated-vtysh-config\n', actions=()):
    """Start FRR from `boot` (see above) with the container's /etc/frr/vtysh.conf, run each vtysh argument list of
    `actions` in turn, return FRR's running configuration and each action's (exit code, output)."""
    if not os.path.exists(os.path.join(FRR_BIN, 'zebra')) or not os.path.exists(VTYSH):
        raise FrrFailed('FRR is not installed on this machine (Debian frr: scripts/setup-host.sh installs it)')
    mode, files = boot
    if mode == 'integrated':
        files = {'frr.conf': files}
    elif mode == 'replay':
        files = {'running.conf': files}
    files = dict(files, **{'vtysh.conf': vtysh_conf})
    base = os.path.join(directory, 'frr')
    os.makedirs(base, exist_ok=True)
    work = tempfile.mkdtemp(prefix='daemons-', dir=base)
    try:
        os.makedirs(os.path.join(work, 'boot'))
        for name, text in files.items():
            with open(os.path.join(work, 'boot', name), 'w', encoding='utf-8') as handle:
                handle.write(text)
        # no terminal, no pager: a command of an SSH session has both
        # a PID namespace of their own: the daemons end with the script (its init), whatever happens to it
        done = subprocess.run(['unshare', '--net', '--uts', '--mount', '--pid', '--fork', '--kill-child',
                               '--mount-proc', 'sh', '-c',
                               _script(work, hostname, mode, actions)], stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=60, check=False,
                              env=dict(os.environ, VTYSH_PAGER='cat', PAGER='cat'), start_new_session=True)
        if done.returncode != 0 or not os.path.exists(os.path.join(work, 'running.out')):
            with open(os.path.join(work, 'daemons.log'), encoding='utf-8', errors='replace') as handle:
                log = handle.read()
            raise FrrFailed('FRR did not run (%d): %s %s' % (done.returncode, done.stdout.strip(), log[-800:]))
        outputs = []
        for index in range(len(actions)):
            with open(os.path.join(work, 'action%d.out' % index), encoding='utf-8', errors='replace') as handle:
                output = handle.read()
            with open(os.path.join(work, 'action%d.rc' % index), encoding='utf-8') as handle:
                outputs.append((int(handle.read().strip() or 1), output))
        with open(os.path.join(work, 'running.out'), encoding='utf-8') as handle:
            return Result(body(handle.read()), outputs)
    finally:
        shutil.rmtree(work, ignore_errors=True)
