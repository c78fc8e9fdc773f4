# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""NVIDIA Cumulus Linux 5.x: NVUE's CLI over SSH with netmiko (docs/platform-nvue.md).

Only NVUE commands NVIDIA documents (NVUE reference, "Config Commands"): push: `nv config replace <file>` (the
rendered startup.yaml becomes the pending revision), `nv config diff`, `nv config apply -y`; confirm: `nv config
save` (5.8 and earlier; 5.9 and later save on apply). NVUE's own `nv config apply --confirm [time]` rolls back unless
the applied revision is confirmed, but NVIDIA documents no command that confirms it (`--confirm-status` only tells the
time left), so the driver keeps the confirm on the switch itself, as for SONiC: before the apply it saves the applied
configuration (`nv config show -o yaml`) in /etc/aifabric-deploy/before.yaml, installs revert.sh there and arms a
transient systemd timer (`systemd-run --on-active`) that runs it unless the confirm comes in time. The revert
(timer, or rollback() at once) puts the saved configuration back with the same documented commands (`nv config
replace before.yaml`, `nv config apply -y`). Every step that changes or reverts holds flock(1) on the state
directory's lock, and its state file (pending, confirmed, reverting, rolled-back, revert-failed) makes sure a confirm
and a revert never both happen. A candidate that is not applied is dropped with `nv config detach`.
"""

from __future__ import annotations

import json
import time

import yaml

from ...deploy import CONFIRMED, FAILED, DeployError
from ...deploy.contract import PENDING_STATE as PENDING, REVERT_FAILED_STATE as REVERT_FAILED
from ...deploy.contract import TimerShellDriver, address_problems
from ...transport import TransportError, quote

FILE = 'startup.yaml'
MANAGEMENT_PORT = 'eth0'
STATE_DIR = '/etc/aifabric-deploy'
UNIT_PREFIX = 'aifabric-confirm-'
APPLY_TIMEOUT = 600  # s: an `nv config apply` (the driver's and the revert's)
REVERTING = 'reverting'
# revert.sh: run by the confirm timer (systemd-run) or by rollback(); our own script, written to the switch.
REVERT_SCRIPT = r'''#!/bin/sh
# aifabric.fabric NVUE deploy: put back the configuration applied before a deploy that was not confirmed. Run by its
# confirm timer or by the deploy's rollback; reverts only a pending deploy, holding the deploy's lock.
D=%(state_dir)s
exec 9>>"$D/lock"
flock 9
state=$(cat "$D/state" 2>/dev/null)
if [ "$state" != pending ]; then
    echo "aifabric-deploy: nothing to revert (state: ${state:-none})"
    exit 0
fi
echo reverting > "$D/state"
for unit in $(cat "$D/units" 2>/dev/null); do systemctl stop "$unit.timer" >/dev/null 2>&1; done
if nv config replace "$D/before.yaml" && nv config apply -y; then
    echo rolled-back > "$D/state"
    echo "aifabric-deploy: reverted"
    exit 0
fi
echo revert-failed > "$D/state"
echo "aifabric-deploy: the revert failed"
exit 1
''' % {'state_dir': STATE_DIR}


def _set_tree(text):
    """The `set` tree of an NVUE YAML document ([{header}, {set: ...}] or [{set: ...}])."""
    tree = {}
    for item in yaml.safe_load(text) or []:
        if isinstance(item, dict) and isinstance(item.get('set'), dict):
            tree.update(item['set'])
    return tree


class NvueDriver(TimerShellDriver):
    state_dir = STATE_DIR
    platform = 'nvue'
    files = (FILE,)
    device_type = 'cumulus_linux'
    # Cumulus Linux's default account cumulus / cumulus (user guide, "Quick Start Guide": first login)
    default_account = ('cumulus', "cumulus (Cumulus Linux's first login)")

    def prepare(self, files):
        path = '%s/%s' % (self.workdir, FILE)
        self.shell.upload(files[FILE], path, 'upload startup.yaml')
        self.run('nv config replace %s' % quote(path), 'nv config replace')
        return self.run('nv config diff', 'nv config diff')

    def discard(self):
        self.run('nv config detach', 'nv config detach')

    def lockout_problems(self, files):
        candidate = _set_tree(files[FILE])
        problems = []
        address = ((candidate.get('interface') or {}).get(MANAGEMENT_PORT) or {}).get('ip', {}).get('address')
        if not address:
            problems.append('%s would have no address (set management.pool)' % MANAGEMENT_PORT)
        else:
            problems += address_problems(self.settings.host, MANAGEMENT_PORT, list(address))
        ssh = (candidate.get('service') or {}).get('ssh') or {}
        if any(isinstance(body, dict) and body.get('enable', body.get('state')) in ('off', 'disabled', False)
               for body in ssh.values()):
            problems.append('the SSH service would be disabled')
        applied = json.loads(self.run('nv config show -o json', 'nv config show'))
        managed_users = set(((_set_tree(json.dumps(applied)).get('system') or {}).get('aaa') or {}).get('user') or {})
        kept_users = set(((candidate.get('system') or {}).get('aaa') or {}).get('user') or {})
        if self.settings.username in managed_users - kept_users:
            problems.append('the deploy logs in as %s, an NVUE user the configuration would remove (list it in '
                            'management.users)' % self.settings.username)
        return problems

    def _arm(self, seconds):
        """A new confirm timer running revert.sh in `seconds`; returns its unit name."""
        unit = '%s%d' % (UNIT_PREFIX, int(time.time() * 1000))
        self.run('sudo systemd-run --collect --on-active=%ds --unit=%s /bin/sh %s/revert.sh' % (seconds, unit, STATE_DIR),
                 'arm confirm timer (systemd-run)')
        return unit

    def preflight(self):
        current = self._state()
        if current == PENDING:
            raise TransportError(self.device, 'preflight', 'an earlier deploy waits for its confirm (%s/state is '
                                 'pending): it is confirmed or rolled back, or its timer reverts it, first' % STATE_DIR)
        if current == REVERTING:
            raise TransportError(self.device, 'preflight', 'the switch is reverting an earlier deploy right now')
        if current.startswith(REVERT_FAILED):
            raise TransportError(self.device, 'preflight', 'the revert of an earlier deploy failed (%s): check the '
                                 'switch, then remove %s/state' % (current, STATE_DIR))

    def commit(self, confirm_seconds):
        work = quote(self.workdir)
        self.shell.upload(REVERT_SCRIPT, self.workdir + '/revert.sh', 'upload revert.sh')
        self.run('nv config show -o yaml > %s/before.yaml' % work, 'save the applied configuration (nv config show)')
        self.run('sudo mkdir -p %s && sudo cp %s/revert.sh %s/before.yaml %s/' % (STATE_DIR, work, work, STATE_DIR),
                 'install revert.sh')
        # a timer that outlasts the apply; re-armed with the confirm time once it is done
        first = self._arm(confirm_seconds + APPLY_TIMEOUT)
        self.run(self._locked('echo %s > %s/units && echo %s > %s/state' % (first, STATE_DIR, PENDING, STATE_DIR)),
                 'deploy state')
        self.run('nv config apply -y', 'nv config apply', timeout=APPLY_TIMEOUT)
        second = self._arm(confirm_seconds)
        self.run(self._locked('[ "$(cat %s/state)" = %s ] && echo "%s %s" > %s/units && systemctl stop %s.timer'
                              % (STATE_DIR, PENDING, first, second, STATE_DIR, first)), 're-arm confirm timer')

    def confirm(self, files=None):
        self._stop_confirm_timers()
        try:
            self.run('nv config save', 'nv config save')
        except TransportError as error:
            raise DeployError(self.device, error.step, error.message, CONFIRMED) from None

    def rollback(self):
        if self._state() != PENDING:
            return False
        code, output = self.shell.run('sudo timeout -k 10 %d /bin/sh %s/revert.sh' % (APPLY_TIMEOUT, STATE_DIR),
                                      'rollback', check=False, timeout=APPLY_TIMEOUT + 30)
        if code != 0:
            raise DeployError(self.device, 'rollback', 'the revert failed: %s' % ' '.join(output.split())[-600:], FAILED)
        return 'nothing to revert' not in output


DRIVER = NvueDriver
