# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""FRR on Linux: netmiko over SSH to the switch's shell, the same deploy contract as every platform
(docs/platform-frr.md).

push: `vtysh -C -f` checks the rendered frr.conf; the diff is FRR's own (`frr-reload.py --test`), the interface plan
(iproute2 commands from interfaces.json against `ip -j` state, the plan of aifabric.fabric.linux_netdev), the
forwarding sysctls, the FRR daemons the file needs, and the files a confirm saves. commit: a checkpoint on the switch
(the running FRR configuration, /etc/frr/frr.conf and daemons, the sysctls, the interface state as a document),
a confirm timer (a transient systemd timer, or a detached `sleep` where systemd does not run, as in the lab's
containers) that runs the checkpoint's revert script, then sysctls, daemons, `ip -batch` and `frr-reload.py
--reload`. confirm: stop the timer, save (frr.conf, the boot file of the interface state, the sysctl.d file).
rollback: stop the timer and run the revert script now.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import re

from ansible_collections.aifabric.fabric.plugins.module_utils import linux_netdev
from ansible_collections.aifabric.fabric.plugins.module_utils.frr_reload import parse_reload_test
from ...deploy.contract import ShellDriver, address_problems
from ...transport import TransportError, quote

FRR_FILE = 'frr.conf'
NETDEV_FILE = 'interfaces.json'
FRR_DIR = '/etc/frr'
FRR_RELOAD = '/usr/lib/frr/frr-reload.py'
FRR_INIT = '/usr/lib/frr/frrinit.sh'
# What a confirm saves: read at boot by FRR, by the boot unit (or the lab node's init) and by systemd-sysctl.
NETDEV_BOOT = '/etc/aifabric/netdev.d/switch.ip'
SYSCTL_FILE = '/etc/sysctl.d/90-aifabric-switch.conf'
# The checkpoint and the pending commit: kept on the switch between the push and the confirm.
STATE = '/var/lib/aifabric/deploy'
TIMER_UNIT = 'aifabric-confirm'
# `ip -j` reads of the interface state, as aifabric.fabric.linux_netdev reads them.
IP_READS = (
    ('addr', 'ip -d -j address show'),
    ('route4', 'ip -j -4 route show table all'),
    ('route6', 'ip -j -6 route show table all'),
    ('rule4', 'ip -j -4 rule show'),
    ('rule6', 'ip -j -6 rule show'),
)
SYSTEMD = '[ -d /run/systemd/system ]'
# Puts the interface state of a checkpoint back (run on the switch by the revert script, without the controller):
# the plan of linux_netdev (copied beside it as netdev.py) from the document to what the switch has now, with purge.
NETDEV_RESTORE = '''import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netdev  # noqa: E402

READS = %s


def read(command):
    done = subprocess.run(command.split(), capture_output=True, text=True, check=False)
    return json.loads(done.stdout) if done.returncode == 0 and done.stdout.strip() else []


raw = {key: read(command) for key, command in READS}
with open(sys.argv[1], encoding='utf-8') as handle:
    wanted = netdev.validate(json.load(handle))
current = netdev.parse_state(raw['addr'], raw['route4'] + raw['route6'], raw['rule4'] + raw['rule6'])
lines = ''.join(' '.join(command) + '\\n' for command in netdev.plan(wanted, current, purge=True))
if lines:
    sys.exit(subprocess.run(['ip', '-force', '-batch', '-'], input=lines, text=True, check=False).returncode)
''' % (IP_READS,)


def frr_control(action):
    """Start, stop or restart FRR with systemd, or with FRR's init script where systemd does not run."""
    return '{ if %s; then systemctl %s frr; else %s %s; fi; }' % (SYSTEMD, action, FRR_INIT, action)


def revert_script():
    """The revert script of a checkpoint: run by the confirm timer when it runs out, or by a rollback."""
    reload_before = '%s --reload %s/running.conf' % (FRR_RELOAD, STATE)
    return '\n'.join([
        '#!/bin/sh',
        '# Written by aifabric.fabric (FRR deploy driver): puts the switch back to the checkpoint of the last commit.',
        'S=%s' % STATE,
        '[ -e "$S/pending" ] || exit 0',
        'rm -f "$S/pending" "$S/timer.pid"',
        'restart=0',
        'cmp -s "$S/daemons" %s/daemons || restart=1' % FRR_DIR,
        'cp -p "$S/daemons" %s/daemons' % FRR_DIR,
        'python3 "$S/netdev_restore.py" "$S/netdev-before.json"',
        'if [ -e "$S/frr-stopped" ]; then %s; else' % frr_control('stop'),
        '  [ "$restart" = 0 ] || %s' % frr_control('restart'),
        '  %s' % reload_before,
        'fi',
        'if [ -e "$S/frr.conf" ]; then cp -p "$S/frr.conf" %s/frr.conf; else rm -f %s/frr.conf; fi' % (FRR_DIR, FRR_DIR),
        '# last: zebra writes the forwarding sysctls itself (ip[v6] forwarding) as it starts, reloads or stops',
        'while read -r setting; do sysctl -q -w "$setting"; done < "$S/sysctl.before"',
        '',
    ])


def needed_daemons(frr_conf) -> list:
    """The FRR daemons a configuration needs besides zebra: bgpd for `router bgp`, bfdd for a `bfd` block."""
    daemons = []
    if re.search(r'^router bgp ', frr_conf, re.M):
        daemons.append('bgpd')
    if re.search(r'^bfd$', frr_conf, re.M):
        daemons.append('bfdd')
    return daemons


def daemons_file(text, daemons) -> str:
    """/etc/frr/daemons with `<daemon>=yes` for each of `daemons` (the rest as it is)."""
    lines = text.splitlines()
    for daemon in daemons:
        line = '%s=yes' % daemon
        positions = [index for index, item in enumerate(lines) if item.startswith(daemon + '=')]
        if positions:
            lines[positions[0]] = line
        else:
            lines.append(line)
    return '\n'.join(lines) + '\n'


def sysctl_text(sysctl) -> str:
    return ''.join('%s = %s\n' % (key, value) for key, value in sorted(sysctl.items()))


def boot_text(desired) -> str:
    return '\n'.join(['# Written by aifabric.fabric (FRR deploy driver): rebuilds the interface state at boot.',
                      '# Replay: ip -force -batch <this file>.'] + linux_netdev.boot_script(desired)) + '\n'


def _unified(before, after, name):
    return ''.join(difflib.unified_diff(before.splitlines(True), after.splitlines(True),
                                        '%s (saved)' % name, '%s (rendered)' % name))


class FrrDriver(ShellDriver):
    platform = 'frr'
    files = (FRR_FILE, NETDEV_FILE)
    device_type = 'linux'

    def __init__(self, device, host_vars):
        super().__init__(device, host_vars)
        self.plan = None

    def _as_root(self, command):
        """`command` (any shell line) as root: as it is for root, through `sudo -n sh -c` for another login."""
        return command if self.settings.username == 'root' else 'sudo -n sh -c %s' % quote(command)

    def _root(self, command, step, **kwargs):
        return self.run(self._as_root(command), step, **kwargs)

    def _read(self, command, step, default=''):
        code, output = self.shell.run(self._as_root(command), step, check=False)
        return output if code == 0 else default

    # ----------------------------------------------------------------------------------------------- push
    def prepare(self, files):
        document = json.loads(files[NETDEV_FILE])
        sysctl = {key: str(value) for key, value in (document.pop('sysctl', None) or {}).items()}
        try:
            desired = linux_netdev.validate(document)
        except linux_netdev.StateError as error:
            raise TransportError(self.device, 'interfaces.json', '; '.join(error.problems)) from None
        candidate = '%s/%s' % (self.workdir, FRR_FILE)
        self.shell.upload(files[FRR_FILE], candidate, 'upload frr.conf')
        self.run('vtysh -C -f %s' % quote(candidate), 'vtysh -C (FRR checks the file)')
        current = self._interface_state()
        try:
            commands = linux_netdev.plan(desired, current, purge=True)
            before = linux_netdev.checkpoint(current, desired)
        except linux_netdev.StateError as error:
            raise TransportError(self.device, 'interface plan', '; '.join(error.problems)) from None
        running_sysctl = self._sysctl(sysctl)
        daemons_now = self._read('cat %s/daemons' % FRR_DIR, 'read FRR daemons')
        daemons = daemons_file(daemons_now, needed_daemons(files[FRR_FILE]))
        frr_running = self.shell.run(self._as_root("vtysh -c 'show version'"), 'FRR running?', check=False)[0] == 0
        if frr_running:
            delete, add = parse_reload_test(self._root('%s --test %s' % (FRR_RELOAD, quote(candidate)),
                                                       'frr-reload.py --test'))
        else:  # nothing runs yet: every line of the file is new
            delete, add = [], [line for line in files[FRR_FILE].splitlines() if line.strip() not in ('', '!')]
        saved = {FRR_DIR + '/frr.conf': files[FRR_FILE], NETDEV_BOOT: boot_text(desired),
                 SYSCTL_FILE: sysctl_text(sysctl)}
        self.plan = {'desired': desired, 'current': current, 'before': before, 'commands': commands,
                     'sysctl': sysctl, 'sysctl_before': running_sysctl, 'daemons': daemons,
                     'daemons_before': daemons_now, 'frr_running': frr_running, 'frr_changes': bool(delete or add),
                     'candidate': candidate, 'saved': saved}
        diff = ''
        if commands:
            diff += '--- interfaces (running)\n+++ interfaces (rendered)\n' + ''.join(
                '+ip %s\n' % ' '.join(command) for command in commands)
        changed_sysctl = {key: value for key, value in sysctl.items() if running_sysctl.get(key) != value}
        if changed_sysctl:
            diff += '--- sysctl (running)\n+++ sysctl (rendered)\n' + ''.join(
                '-%s = %s\n+%s = %s\n' % (key, running_sysctl.get(key), key, value)
                for key, value in sorted(changed_sysctl.items()))
        if daemons != daemons_now:
            diff += _unified(daemons_now, daemons, FRR_DIR + '/daemons')
        if delete or add:
            diff += '--- FRR (running)\n+++ FRR (rendered)\n' + ''.join('-%s\n' % line for line in delete) + ''.join(
                '+%s\n' % line for line in add)
        for path, text in saved.items():
            now = self._read('cat %s' % quote(path), 'read %s' % path)
            if now != text:
                diff += _unified(now, text, path)
        return diff

    def _interface_state(self):
        raw = {}
        for key, command in IP_READS:
            output = self._read(command, key)
            try:
                raw[key] = json.loads(output) if output.strip() else []
            except ValueError:
                raise TransportError(self.device, command, 'not JSON (iproute2 too old?): %s' % output[:200]) from None
        return linux_netdev.parse_state(raw['addr'], raw['route4'] + raw['route6'], raw['rule4'] + raw['rule6'])

    def _sysctl(self, wanted):
        values = {}
        for key in sorted(wanted):
            values[key] = self._read('sysctl -n %s' % quote(key), 'read sysctl').strip() or None
        return values

    def discard(self):
        """Nothing is staged outside the session's work directory, which goes with the session."""
        self.plan = None

    def lockout_problems(self, files):
        """The commit must keep the address the deploy reaches the switch at, on a link that stays up and where it is."""
        current, commands = self.plan['current'], self.plan['commands']
        holder = next((name for name, link in current['links'].items()
                       if any(address.split('/')[0] == str(self.settings.host) for address in link['addresses'])), None)
        if holder is None:
            return []
        problems = []
        for command in commands:
            if command[:3] == ['link', 'del', holder]:
                problems.append('%s (where the deploy reaches the switch at %s) would be deleted' % (holder, self.settings.host))
            elif command[:2] == ['address', 'del'] and command[-1] == holder and command[2].split('/')[0] == str(self.settings.host):
                problems.append('%s would lose %s, the address the deploy reaches the switch at' % (holder, command[2]))
            elif command[:4] == ['link', 'set', 'dev', holder] and command[4:] in (['down'], ['nomaster']) or \
                    command[:4] == ['link', 'set', 'dev', holder] and command[4:5] == ['master']:
                problems.append('%s (where the deploy reaches the switch) would be set %s' % (holder, ' '.join(command[4:])))
        listed = next((link for link in self.plan['desired']['links'] if link['name'] == holder), None)
        if listed is not None and 'addresses' in listed:
            problems += address_problems(self.settings.host, holder, listed['addresses'])
        return problems

    def commit(self, confirm_seconds):
        plan = self.plan
        self._checkpoint()
        self._arm_timer(confirm_seconds)
        for key, value in sorted(plan['sysctl'].items()):
            if plan['sysctl_before'].get(key) != value:
                self._root('sysctl -q -w %s' % quote('%s=%s' % (key, value)), 'sysctl -w')
        restart = plan['daemons'] != plan['daemons_before']
        if restart:
            self._write(FRR_DIR + '/daemons', plan['daemons'], 'enable the FRR daemons')
        if restart or not plan['frr_running']:
            self._root(frr_control('restart' if plan['frr_running'] else 'start'), 'start FRR', timeout=300)
        if plan['commands']:
            batch = '%s/interfaces.batch' % self.workdir
            self.shell.upload(''.join(' '.join(command) + '\n' for command in plan['commands']), batch,
                              'upload interface plan')
            self._root('ip -batch %s' % quote(batch), 'ip -batch (interfaces)')
        if plan['frr_changes'] or restart or not plan['frr_running']:
            self._root('%s --reload %s' % (FRR_RELOAD, quote(plan['candidate'])), 'frr-reload.py --reload', timeout=300)

    def _write(self, path, text, step):
        staged = '%s/%s' % (self.workdir, path.strip('/').replace('/', '_'))
        self.shell.upload(text, staged, step)
        self._root('cp %s %s' % (quote(staged), quote(path)), step)

    def _checkpoint(self):
        """What the revert script puts back, kept in STATE until the confirm or the revert."""
        plan = self.plan
        self._root('rm -rf %s && mkdir -p %s' % (STATE, STATE), 'checkpoint')
        self._root('cp -p %s/daemons %s/daemons' % (FRR_DIR, STATE), 'checkpoint FRR daemons')
        self._root('if [ -e %s/frr.conf ]; then cp -p %s/frr.conf %s/frr.conf; fi' % (FRR_DIR, FRR_DIR, STATE),
                   'checkpoint frr.conf')
        if plan['frr_running']:
            running = self._root("vtysh -c 'show running-config'", 'checkpoint FRR running config')
            running = ''.join(line + '\n' for line in running.splitlines()
                              if not line.startswith(('Building configuration', 'Current configuration'))).lstrip('\n')
            self._write(STATE + '/running.conf', running, 'checkpoint FRR running config')
        else:
            self._root('touch %s/frr-stopped' % STATE, 'checkpoint FRR (stopped)')
        self._write(STATE + '/sysctl.before', ''.join('%s=%s\n' % (key, value) for key, value in
                                                      sorted(plan['sysctl_before'].items()) if value is not None),
                    'checkpoint sysctl')
        self._write(STATE + '/netdev-before.json', json.dumps(plan['before'], indent=1, sort_keys=True) + '\n',
                    'checkpoint interfaces')
        with open(linux_netdev.__file__, encoding='utf-8') as handle:
            self._write(STATE + '/netdev.py', handle.read(), 'checkpoint interfaces')
        self._write(STATE + '/netdev_restore.py', NETDEV_RESTORE, 'checkpoint interfaces')
        self._write(STATE + '/revert.sh', revert_script(), 'checkpoint revert script')
        self._root('cp %s %s/candidate.conf' % (quote(plan['candidate']), STATE), 'keep the candidate')
        for path, text in plan['saved'].items():
            self._write(STATE + '/save' + path.replace('/', '_'), text, 'stage what a confirm saves')
        self._root('touch %s/pending' % STATE, 'checkpoint')

    def _arm_timer(self, confirm_seconds):
        """systemd-run's timer, or a sleeper in a session of its own (so the end of this SSH session does not end it)
        that writes its process id to timer.pid."""
        revert = '/bin/sh %s/revert.sh' % STATE
        sleeper = 'echo $$ > %s/timer.pid; sleep %d && exec %s' % (STATE, confirm_seconds, revert)
        self._root('if %s; then systemctl stop %s.timer 2>/dev/null; systemd-run --on-active=%ds --unit=%s %s; '
                   'else setsid /bin/sh -c %s </dev/null >/dev/null 2>&1 & fi'
                   % (SYSTEMD, TIMER_UNIT, confirm_seconds, TIMER_UNIT, revert, quote(sleeper)), 'arm confirm timer')
        self._root('if ! %s; then for i in 1 2 3 4 5 6 7 8 9 10; do [ -s %s/timer.pid ] && break; sleep 0.1; done; '
                   '[ -s %s/timer.pid ]; fi' % (SYSTEMD, STATE, STATE), 'arm confirm timer')

    # ----------------------------------------------------------------------------------------------- after
    def _timer_active(self):
        code, _output = self.shell.run(self._as_root(
            '[ -e %s/pending ] && if %s; then systemctl is-active -q %s.timer; else kill -0 "$(cat %s/timer.pid)" '
            '2>/dev/null; fi' % (STATE, SYSTEMD, TIMER_UNIT, STATE)), 'confirm timer state', check=False)
        return code == 0

    def _stop_timer(self):
        # The sleeper's sleep first: the shell waiting for it then ends without running the revert.
        self._root('if %s; then systemctl stop %s.timer; else pid=$(cat %s/timer.pid); pkill -P "$pid" sleep; '
                   'kill "$pid" 2>/dev/null; rm -f %s/timer.pid; fi; true' % (SYSTEMD, TIMER_UNIT, STATE, STATE),
                   'stop confirm timer')

    def confirm(self, files):  # pylint: disable=unused-argument
        if not self._timer_active():
            raise TransportError(self.device, 'confirm', 'the confirm timer %s is not running: it ran out and put the '
                                 'switch back, or nothing was pushed' % TIMER_UNIT)
        self._stop_timer()
        for path in (FRR_DIR + '/frr.conf', NETDEV_BOOT, SYSCTL_FILE):
            saved = '%s/save%s' % (STATE, path.replace('/', '_'))
            self._root('mkdir -p %s && cp %s %s' % (quote(path.rsplit('/', 1)[0]), saved, quote(path)), 'save %s' % path)
        self._root('if id frr >/dev/null 2>&1; then chown frr:frr %s/frr.conf; chmod 0640 %s/frr.conf; fi'
                   % (FRR_DIR, FRR_DIR), 'save frr.conf')
        with contextlib.suppress(TransportError):  # the lab's nodes replay the boot file from their own init
            self._install_boot_unit()
        self._root('rm -f %s/pending' % STATE, 'confirm')

    def _install_boot_unit(self):
        code, _output = self.shell.run(SYSTEMD, 'systemd?', check=False)
        if code != 0:
            return
        now = self._read('cat %s' % linux_netdev.BOOT_UNIT_PATH, 'read boot unit')
        if now != linux_netdev.BOOT_UNIT:
            self._write(linux_netdev.BOOT_UNIT_PATH, linux_netdev.BOOT_UNIT, 'install boot unit')
            self._root('systemctl daemon-reload', 'install boot unit')
        self._root('systemctl enable -q aifabric-netdev.service', 'enable boot unit')

    def rollback(self):
        if not self._timer_active():
            return False
        self._stop_timer()
        self._root('/bin/sh %s/revert.sh' % STATE, 'revert to the checkpoint', timeout=600)
        return True


DRIVER = FrrDriver
