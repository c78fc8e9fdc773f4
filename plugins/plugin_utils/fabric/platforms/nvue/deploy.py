# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""NVIDIA Cumulus Linux 5.x: NVUE's CLI over SSH with netmiko (docs/platform-nvue.md).

push: `nv config replace <file>` (the rendered startup.yaml becomes the pending revision), `nv config diff`,
`nv config apply -y --confirm <minutes>` (NVUE rolls back to the previous applied revision unless confirmed in time;
the NVUE reference gives the time as a bare number of minutes, "--confirm 60 requires you to confirm within one
hour", so the confirm time is rounded up to whole minutes). confirm: `nv config apply --confirm-yes`, `nv config
save`. rollback: `nv config apply --confirm-no`. `--confirm-status` (documented) tells whether a revision waits;
`--confirm-yes` and `--confirm-no` are not in NVIDIA's reference [unverified: they are the options the NAPALM
Cumulus community driver uses]: if a switch refused them, the confirm fails and the switch reverts at its timer.
A candidate that is not applied is dropped with `nv config detach`.
"""

from __future__ import annotations

import contextlib
import json

import yaml

from ...deploy.contract import ShellDriver, address_problems
from ...transport import TransportError, quote

FILE = 'startup.yaml'
MANAGEMENT_PORT = 'eth0'


def _set_tree(text):
    """The `set` tree of an NVUE YAML document ([{header}, {set: ...}] or [{set: ...}])."""
    tree = {}
    for item in yaml.safe_load(text) or []:
        if isinstance(item, dict) and isinstance(item.get('set'), dict):
            tree.update(item['set'])
    return tree


class NvueDriver(ShellDriver):
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

    def commit(self, confirm_seconds):
        try:
            minutes = max(1, -(-confirm_seconds // 60))  # whole minutes, rounded up
            self.run('nv config apply -y --confirm %d' % minutes, 'nv config apply --confirm', timeout=600)
        except TransportError:
            with contextlib.suppress(TransportError):
                self.discard()  # a refused apply leaves the revision pending: drop it
            raise

    def _pending_confirm(self):
        return 'No pending confirmation' not in self.run('nv config apply --confirm-status', 'confirm status')

    def confirm(self, files=None):
        if not self._pending_confirm():
            raise TransportError(self.device, 'confirm', 'no revision is pending confirmation: the confirm timer ran '
                                 'out and NVUE rolled back to the previous revision')
        self.run('nv config apply --confirm-yes', 'nv config apply --confirm-yes')
        self.run('nv config save', 'nv config save')

    def rollback(self):
        if not self._pending_confirm():
            return False
        self.run('nv config apply --confirm-no', 'nv config apply --confirm-no')
        return True


DRIVER = NvueDriver
