# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Community SONiC (202205 and later): netmiko over SSH to the switch's shell (docs/platform-sonic.md).

CONFIG_DB: the rendered tables go into the running CONFIG_DB (`sonic-cfggen -d --print-data`) as
platforms/sonic.deploy_target says (the tables it owns replaced, ports and metadata merged, tables the renderer
never writes such as FEATURE or SNMP kept). The result goes through the generic
config updater: `config checkpoint`, `config replace` (validated against SONiC's YANG models, applied as a patch),
`config rollback <checkpoint>`. FRR (split-unified mode: /etc/sonic/frr is /etc/frr in the bgp container):
`frr-reload.py --test` for the diff, `--reload` to apply. The confirm timer is a transient systemd timer
(`systemd-run --on-active`) that rolls CONFIG_DB back to the checkpoint and reloads the saved FRR config; confirm
stops it and saves (`config save -y`, the rendered frr.conf as /etc/sonic/frr/frr.conf). Releases before 202205
have no `config replace`/checkpoints: preflight refuses them.
"""

from __future__ import annotations

import difflib
import json
import re

from ansible_collections.aifabric.fabric.plugins.module_utils.frr_reload import parse_reload_test
from ...deploy.contract import ShellDriver, address_problems
from ...transport import TransportError, quote
from .render import MERGED_TABLES, REPLACED_TABLES, deploy_target

DEPLOYED_TABLES = MERGED_TABLES | REPLACED_TABLES

GCU_SINCE = 202205
CHECKPOINT = 'aifabric-before-deploy'
TIMER_UNIT = 'aifabric-confirm'
FRR_DIR = '/etc/sonic/frr'            # /etc/frr inside the bgp container
FRR_CANDIDATE = 'aifabric-candidate.conf'
FRR_BEFORE = 'aifabric-before.conf'
FRR_RELOAD = '/usr/lib/frr/frr-reload.py'
RELEASE = re.compile(r'SONiC Software Version: SONiC\.(?:[A-Za-z_-]*\.)?(\d{6})')


def config_db_diff(running, target):
    """Unified diff of the tables a deploy writes, one JSON line per row (what `config replace` will change)."""
    def lines(document):
        return ['%s|%s %s' % (table, key, json.dumps(document[table][key], sort_keys=True))
                for table in sorted(document) if table in DEPLOYED_TABLES for key in sorted(document[table])]
    return ''.join(line + '\n' for line in difflib.unified_diff(
        lines(running), lines(target), 'CONFIG_DB (running)', 'CONFIG_DB (rendered)', lineterm=''))


class SonicDriver(ShellDriver):
    platform = 'sonic'
    files = ('config_db.json', 'frr.conf')
    device_type = 'linux'

    def preflight(self):
        version = self.run('show version', 'show version')
        match = RELEASE.search(version)
        if not match:
            raise TransportError(self.device, 'preflight', 'cannot read the SONiC release from `show version`')
        if int(match.group(1)) < GCU_SINCE:
            raise TransportError(self.device, 'preflight', 'SONiC %s has no generic config updater (`config replace`, '
                                 '`config checkpoint`/`rollback`, from 202205 on): deploying would need `config '
                                 'reload`, which restarts every service; upgrade the switch' % match.group(1))

    def _frr(self, command):
        return 'sudo docker exec bgp %s' % command

    def prepare(self, files):
        running = json.loads(self.run('sonic-cfggen -d --print-data', 'read CONFIG_DB'))
        target = deploy_target(running, json.loads(files['config_db.json']))
        self.shell.upload(json.dumps(target, indent=2, sort_keys=True) + '\n', self.workdir + '/target.json',
                          'upload CONFIG_DB')
        self.shell.upload(files['frr.conf'], self.workdir + '/frr.conf', 'upload frr.conf')
        self.run('sudo cp %s/frr.conf %s/%s' % (quote(self.workdir), FRR_DIR, FRR_CANDIDATE), 'stage frr.conf')
        frr_test = self.run(self._frr('%s --test /etc/frr/%s' % (FRR_RELOAD, FRR_CANDIDATE)), 'frr-reload.py --test')
        delete, add = parse_reload_test(frr_test)
        frr_diff = ''.join('-%s\n' % line for line in delete) + ''.join('+%s\n' % line for line in add)
        return config_db_diff(running, target) + ('--- FRR (running)\n+++ FRR (rendered)\n' + frr_diff if frr_diff else '')

    def discard(self):
        self.run('sudo rm -f %s/%s' % (FRR_DIR, FRR_CANDIDATE), 'discard candidate')

    def lockout_problems(self, files):
        rendered = json.loads(files['config_db.json'])
        if not rendered.get('MGMT_INTERFACE'):
            return ['the rendered CONFIG_DB has no MGMT_INTERFACE (eth0 would lose its address: set management.pool)']
        addresses = [key.split('|', 1)[1] for key in rendered['MGMT_INTERFACE'] if '|' in key]
        return address_problems(self.settings.host, 'eth0', addresses)

    def commit(self, confirm_seconds):
        self.run('sudo config checkpoint %s' % CHECKPOINT, 'config checkpoint')
        before = self.run(self._frr("vtysh -c 'show running-config'"), 'save FRR running config')
        before = ''.join(line + '\n' for line in before.splitlines()
                         if not line.startswith(('Building configuration', 'Current configuration'))).lstrip('\n')
        self.shell.upload(before, self.workdir + '/before.conf', 'save FRR running config')
        self.run('sudo cp %s/before.conf %s/%s' % (quote(self.workdir), FRR_DIR, FRR_BEFORE), 'save FRR running config')
        revert = 'config rollback %s; docker exec bgp %s --reload /etc/frr/%s' % (CHECKPOINT, FRR_RELOAD, FRR_BEFORE)
        self.run('sudo systemctl stop %s.timer 2>/dev/null; sudo systemd-run --on-active=%ds --unit=%s /bin/sh -c %s'
                 % (TIMER_UNIT, confirm_seconds, TIMER_UNIT, quote(revert)), 'arm confirm timer (systemd-run)')
        self.run('sudo config replace %s/target.json' % quote(self.workdir), 'config replace', timeout=600)
        self.run(self._frr('%s --reload /etc/frr/%s' % (FRR_RELOAD, FRR_CANDIDATE)), 'frr-reload.py --reload',
                 timeout=300)

    def _timer_active(self):
        code, _out = self.shell.run('systemctl is-active %s.timer' % TIMER_UNIT, 'confirm timer state', check=False)
        return code == 0

    def confirm(self):
        if not self._timer_active():
            raise TransportError(self.device, 'confirm', 'the confirm timer %s is not running: it ran out and rolled the '
                                 'switch back, or nothing was pushed' % TIMER_UNIT)
        self.run('sudo systemctl stop %s.timer' % TIMER_UNIT, 'stop confirm timer')
        self.run('sudo config save -y', 'config save')
        self.run('sudo cp %s/%s %s/frr.conf' % (FRR_DIR, FRR_CANDIDATE, FRR_DIR), 'save frr.conf')

    def rollback(self):
        if not self._timer_active():
            return False
        self.run('sudo systemctl stop %s.timer' % TIMER_UNIT, 'stop confirm timer')
        self.run('sudo config rollback %s' % CHECKPOINT, 'config rollback', timeout=600)
        self.run(self._frr('%s --reload /etc/frr/%s' % (FRR_RELOAD, FRR_BEFORE)), 'frr-reload.py --reload (before)',
                 timeout=300)
        return True


DRIVER = SonicDriver
