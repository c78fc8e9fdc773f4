# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Community SONiC (202205 and later): netmiko over SSH to the switch's shell (docs/platform-sonic.md).

CONFIG_DB: the rendered tables go into the running CONFIG_DB (`sonic-cfggen -d --print-data`) as
platforms/sonic/render.deploy_target says. The result goes through the generic config updater (GCU), which
checks it before anything changes: `config replace --dry-run` in every push (check mode too), then `config
checkpoint` + `config replace`, and `config rollback` to go back (sonic-utilities config/main.py,
generic_config_updater/). FRR: the bgp container must run split-unified (one /etc/sonic/frr/frr.conf, `service
integrated-vtysh-config`), the mode frr-reload.py needs; when it runs another mode, the push writes frr.conf and
restarts the container once the CONFIG_DB says split-unified (sonic-buildimage dockers/docker-fpm-frr/
docker_init.sh); otherwise `frr-reload.py --reload`. Local users (SONiC keeps them as Linux accounts, not in
CONFIG_DB) are set with `chpasswd -e` at the confirm.

Every step that changes or reverts the switch holds flock(1) on /etc/sonic/aifabric-deploy/lock, and a state file
beside it says where the deploy is (pending, confirmed, reverting, rolled-back, revert-failed). The revert is a
script on the switch (revert.sh there) that a transient systemd timer runs when the confirm does not come in time
and that rollback() runs at once: it reverts only a pending deploy, under the lock, so a confirm and a revert
never both happen. The timer first covers the replace (confirm time + the longest replace and FRR step), then is
re-armed with the confirm time once the push is done; each timer has its own unit name and `--collect`
(systemd-run(1): a name still loaded is refused; an elapsed timer stays loaded, systemd.timer(5)
RemainAfterElapse=). A revert that fails (rollback refused, then `config reload` of the saved CONFIG_DB too) is
reported as failed, not as reverting: no timer will do better.
"""

from __future__ import annotations

import difflib
import json
import re
import time

from ansible_collections.aifabric.fabric.plugins.module_utils.frr_reload import parse_reload_test
from ...deploy import CONFIRMED, FAILED, DeployError
from ...deploy.contract import ShellDriver, address_problems
from ...transport import TransportError, quote
from .render import DEPLOYED_TABLES, buffer_pool_shortfall, deploy_target

GCU_SINCE = 202205
CHECKPOINT = 'aifabric-before-deploy'
STATE_DIR = '/etc/sonic/aifabric-deploy'
LOCK = STATE_DIR + '/lock'
UNIT_PREFIX = 'aifabric-confirm-'
FRR_DIR = '/etc/sonic/frr'            # /etc/frr inside the bgp container
FRR_CANDIDATE = 'aifabric-candidate.conf'
FRR_BEFORE = 'aifabric-before.conf'
FRR_RELOAD = '/usr/lib/frr/frr-reload.py'
FRR_MODE = 'split-unified'
USERS_FILE = 'local-users.json'
REPLACE_TIMEOUT = 600
FRR_TIMEOUT = 300
RELEASE = re.compile(r'SONiC Software Version: SONiC\.(?:[A-Za-z_-]*\.)?(\d{6})')
# The states a deploy leaves in STATE_DIR/state; a push starts only from none, confirmed or rolled-back.
PENDING, REVERTING, ROLLED_BACK_STATE, REVERT_FAILED = 'pending', 'reverting', 'rolled-back', 'revert-failed'
# revert.sh: run by the confirm timer (systemd-run) or by rollback(); our own script, written to the switch.
REVERT_SCRIPT = r'''#!/bin/sh
# aifabric.fabric SONiC deploy: revert a deploy that was not confirmed. Run by its confirm timer or by the deploy's
# rollback; reverts only a pending deploy, holding the deploy's lock (a confirm holds it too).
D=%(state_dir)s
exec 9>>"$D/lock"
flock 9
state=$(cat "$D/state" 2>/dev/null)
if [ "$state" != pending ]; then
    echo "aifabric-deploy: nothing to revert (state: ${state:-none})"
    exit 0
fi
echo reverting > "$D/state"
rm -f %(frr_dir)s/%(frr_candidate)s
for unit in $(cat "$D/units" 2>/dev/null); do systemctl stop "$unit.timer" >/dev/null 2>&1; done
failed=
if ! config rollback %(checkpoint)s; then
    echo "aifabric-deploy: config rollback failed, loading the saved CONFIG_DB (config reload)"
    config reload -y || failed="CONFIG_DB"
fi
if [ "$(cat "$D/frr-mode" 2>/dev/null)" = restart ]; then
    rm -f %(frr_dir)s/frr.conf
    cp -p "$D"/frr-files/* %(frr_dir)s/ 2>/dev/null
    systemctl restart bgp || failed="$failed FRR"
else
    docker exec bgp %(frr_reload)s --reload /etc/frr/%(frr_before)s || failed="$failed FRR"
fi
if [ -n "$failed" ]; then
    echo "revert-failed:$failed" > "$D/state"
    echo "aifabric-deploy: the revert failed ($failed)"
    exit 1
fi
echo rolled-back > "$D/state"
echo "aifabric-deploy: reverted"
''' % {'state_dir': STATE_DIR, 'checkpoint': CHECKPOINT, 'frr_dir': FRR_DIR, 'frr_reload': FRR_RELOAD,
       'frr_before': FRR_BEFORE, 'frr_candidate': FRR_CANDIDATE}
# Groups of a local user per role: SONiC's own admin account is in sudo and docker (sonic-buildimage
# build_debian.sh `useradd -G sudo,docker`); an operator gets no group (show commands need none).
USER_GROUPS = {'admin': 'sudo,docker', 'operator': ''}


def config_db_diff(running, target):
    """Unified diff of the tables a deploy writes, one JSON line per row (what `config replace` will change)."""
    def lines(document):
        return ['%s|%s %s' % (table, key, json.dumps(document[table][key], sort_keys=True))
                for table in sorted(document) if table in DEPLOYED_TABLES for key in sorted(document[table])]
    return ''.join(line + '\n' for line in difflib.unified_diff(
        lines(running), lines(target), 'CONFIG_DB (running)', 'CONFIG_DB (rendered)', lineterm=''))


def _model_problems(running, rendered):
    """The rendered CONFIG_DB is for another switch model: platform and HwSKU must be the switch's own."""
    have = running.get('DEVICE_METADATA', {}).get('localhost', {})
    want = rendered.get('DEVICE_METADATA', {}).get('localhost', {})
    return ['the switch is %s %s, the rendered configuration is for %s' % (field, have[field], want[field])
            for field in ('platform', 'hwsku') if have.get(field) and want.get(field) and have[field] != want[field]]


class SonicDriver(ShellDriver):
    platform = 'sonic'
    files = ('config_db.json', 'frr.conf')
    optional_files = (USERS_FILE,)
    device_type = 'linux'

    # sonic-buildimage rules/config: DEFAULT_USERNAME = admin, DEFAULT_PASSWORD = YourPaSsWoRd
    default_account = ('admin', 'YourPaSsWoRd (sonic-buildimage rules/config DEFAULT_PASSWORD)')

    def __init__(self, device, host_vars):
        super().__init__(device, host_vars)
        self.integrated = True  # set by prepare(): the bgp container already runs split-unified

    # -- helpers ----------------------------------------------------------------------------------------------
    def _frr(self, command):
        return 'sudo docker exec bgp %s' % command

    def _locked(self, command):
        """`command` (a shell command line) holding the deploy's lock."""
        return 'sudo flock %s sh -c %s' % (LOCK, quote(command))

    def _state(self):
        code, output = self.shell.run('cat %s/state 2>/dev/null' % STATE_DIR, 'deploy state', check=False)
        return output.strip().splitlines()[-1].strip() if code == 0 and output.strip() else ''

    def _integrated(self, running):
        """The bgp container runs split-unified now: CONFIG_DB says so and its vtysh.conf has the integrated
        config (docker_init.sh writes it when the container starts)."""
        mode = running.get('DEVICE_METADATA', {}).get('localhost', {}).get('docker_routing_config_mode')
        code, vtysh = self.shell.run('cat %s/vtysh.conf 2>/dev/null' % FRR_DIR, 'read vtysh.conf', check=False)
        integrated = code == 0 and not any(line.strip() == 'no service integrated-vtysh-config'
                                           for line in vtysh.splitlines())
        return mode == FRR_MODE and integrated

    def _arm(self, seconds):
        """A new confirm timer running revert.sh in `seconds`; returns its unit name."""
        unit = '%s%d' % (UNIT_PREFIX, int(time.time() * 1000))
        self.run('sudo systemd-run --collect --on-active=%ds --unit=%s /bin/sh %s/revert.sh'
                 % (seconds, unit, STATE_DIR), 'arm confirm timer (systemd-run)')
        return unit

    # -- the contract -----------------------------------------------------------------------------------------
    def preflight(self):
        version = self.run('show version', 'show version')
        match = RELEASE.search(version)
        if not match:
            raise TransportError(self.device, 'preflight', 'cannot read the SONiC release from `show version`')
        if int(match.group(1)) < GCU_SINCE:
            raise TransportError(self.device, 'preflight', 'SONiC %s has no generic config updater (`config replace`, '
                                 '`config checkpoint`/`rollback`, from 202205 on): deploying would need `config '
                                 'reload`, which restarts every service; upgrade the switch' % match.group(1))
        current = self._state()
        if current == PENDING:
            raise TransportError(self.device, 'preflight', 'an earlier deploy waits for its confirm (%s/state is '
                                 'pending): it is confirmed or rolled back, or its timer reverts it, first' % STATE_DIR)
        if current == REVERTING:
            raise TransportError(self.device, 'preflight', 'the switch is reverting an earlier deploy right now')
        if current.startswith(REVERT_FAILED):
            raise TransportError(self.device, 'preflight', 'the revert of an earlier deploy failed (%s): check the '
                                 'switch, then remove %s/state' % (current, STATE_DIR))

    def prepare(self, files):
        running = json.loads(self.run('sonic-cfggen -d --print-data', 'read CONFIG_DB'))
        rendered = json.loads(files['config_db.json'])
        problems = _model_problems(running, rendered)
        if problems:
            raise TransportError(self.device, 'switch model', '; '.join(problems))
        short = buffer_pool_shortfall(running, rendered)
        if short:
            raise TransportError(self.device, 'buffer pools', '%s. SONiC\'s config updater changes no BUFFER_POOL '
                                 '(gcu_field_operation_validators.conf.json): the pools come from the SKU\'s `config '
                                 'qos reload`' % '; '.join(short))
        target = deploy_target(running, rendered)
        self.shell.upload(json.dumps(target, indent=2, sort_keys=True) + '\n', self.workdir + '/target.json',
                          'upload CONFIG_DB')
        diff = config_db_diff(running, target)
        if diff:
            # GCU's own checks (YANG, field operations, lanes) on the switch, nothing applied
            self.run('sudo config replace --dry-run %s/target.json' % quote(self.workdir), 'config replace --dry-run',
                     timeout=REPLACE_TIMEOUT)
        self.shell.upload(files['frr.conf'], self.workdir + '/frr.conf', 'upload frr.conf')
        self.run('sudo cp %s/frr.conf %s/%s' % (quote(self.workdir), FRR_DIR, FRR_CANDIDATE), 'stage frr.conf')
        frr_test = self.run(self._frr('%s --test /etc/frr/%s' % (FRR_RELOAD, FRR_CANDIDATE)), 'frr-reload.py --test')
        delete, add = parse_reload_test(frr_test)
        frr_diff = ''.join('-%s\n' % line for line in delete) + ''.join('+%s\n' % line for line in add)
        self.integrated = self._integrated(running)
        if not self.integrated:
            frr_diff = ('# the bgp container does not run %s: the push writes frr.conf and restarts it\n' % FRR_MODE
                        + frr_diff)
        users = self._users_diff(files)
        return (diff + ('--- FRR (running)\n+++ FRR (rendered)\n' + frr_diff if frr_diff else '')
                + ('--- local users (switch)\n+++ local users (rendered)\n' + users if users else ''))

    def _users_diff(self, files):
        wanted = json.loads(files.get(USERS_FILE) or '{}')
        if not wanted:
            return ''
        code, output = self.shell.run('sudo getent shadow %s' % ' '.join(quote(name) for name in sorted(wanted)),
                                      'read local users', check=False)
        have = {}
        for line in output.splitlines():
            parts = line.strip().split(':')
            if len(parts) > 2 and parts[0] in wanted:
                have[parts[0]] = parts[1]
        if code not in (0, 2):  # getent: 2 = a key was not found
            raise TransportError(self.device, 'read local users', output.strip() or 'getent failed')
        lines = []
        for name in sorted(wanted):
            if name not in have:
                lines.append('+user %s (%s): new account\n' % (name, wanted[name]['role']))
            elif have[name] != wanted[name]['hash']:
                lines.append('~user %s: password changes\n' % name)
        return ''.join(lines)

    def discard(self):
        self.run('sudo rm -f %s/%s' % (FRR_DIR, FRR_CANDIDATE), 'discard candidate')

    def lockout_problems(self, files):
        rendered = json.loads(files['config_db.json'])
        if not rendered.get('MGMT_INTERFACE'):
            return ['the rendered CONFIG_DB has no MGMT_INTERFACE (eth0 would lose its address: set management.pool)']
        addresses = [key.split('|', 1)[1] for key in rendered['MGMT_INTERFACE'] if '|' in key]
        return address_problems(self.settings.host, 'eth0', addresses)

    def commit(self, confirm_seconds):
        work = quote(self.workdir)
        self.shell.upload(REVERT_SCRIPT, self.workdir + '/revert.sh', 'upload revert.sh')
        self.run('sudo mkdir -p %s && sudo cp %s/revert.sh %s/revert.sh' % (STATE_DIR, work, STATE_DIR),
                 'install revert.sh')
        self.run('sudo config checkpoint %s' % CHECKPOINT, 'config checkpoint')
        if self.integrated:
            before = self.run(self._frr("vtysh -c 'show running-config'"), 'save FRR running config')
            before = ''.join(line + '\n' for line in before.splitlines()
                             if not line.startswith(('Building configuration', 'Current configuration'))).lstrip('\n')
            self.shell.upload(before, self.workdir + '/before.conf', 'save FRR running config')
            self.run('sudo cp %s/before.conf %s/%s && echo reload | sudo tee %s/frr-mode >/dev/null'
                     % (work, FRR_DIR, FRR_BEFORE, STATE_DIR), 'save FRR running config')
        else:  # the container's own files come back with the CONFIG_DB's mode when reverting
            self.run('sudo rm -rf %s/frr-files && sudo mkdir %s/frr-files && for file in %s/*.conf; do case $file in '
                     '*/aifabric-*) ;; *) sudo cp -p "$file" %s/frr-files/;; esac; done; echo restart | sudo tee '
                     '%s/frr-mode >/dev/null' % (STATE_DIR, STATE_DIR, FRR_DIR, STATE_DIR, STATE_DIR),
                     'save the FRR files')
        # a timer that outlasts the replace and the FRR step; re-armed with the confirm time once they are done
        first = self._arm(confirm_seconds + REPLACE_TIMEOUT + FRR_TIMEOUT)
        self.run(self._locked('echo %s > %s/units && echo %s > %s/state' % (first, STATE_DIR, PENDING, STATE_DIR)),
                 'deploy state')
        self.run(self._locked('config replace %s/target.json' % work), 'config replace', timeout=REPLACE_TIMEOUT)
        if self.integrated:
            self.run(self._locked('docker exec bgp %s --reload /etc/frr/%s' % (FRR_RELOAD, FRR_CANDIDATE)),
                     'frr-reload.py --reload', timeout=FRR_TIMEOUT)
        else:
            self.run(self._locked('cp %s/%s %s/frr.conf && systemctl restart bgp' % (FRR_DIR, FRR_CANDIDATE, FRR_DIR)),
                     'restart bgp in %s mode' % FRR_MODE, timeout=FRR_TIMEOUT)
        # the way back must stay open: GCU checks the rollback to the checkpoint from the new running config
        self.run('sudo config rollback --dry-run %s' % CHECKPOINT, 'config rollback --dry-run', timeout=REPLACE_TIMEOUT)
        second = self._arm(confirm_seconds)
        self.run(self._locked('[ "$(cat %s/state)" = %s ] && echo "%s %s" > %s/units && systemctl stop %s.timer'
                              % (STATE_DIR, PENDING, first, second, STATE_DIR, first)), 're-arm confirm timer')

    def confirm(self, files=None):
        code, output = self.shell.run(self._locked(
            'state=$(cat %s/state 2>/dev/null); [ "$state" = %s ] || { echo "state: ${state:-none}"; exit 3; }; '
            'echo confirmed > %s/state; for unit in $(cat %s/units); do systemctl stop "$unit.timer"; done'
            % (STATE_DIR, PENDING, STATE_DIR, STATE_DIR)), 'confirm', check=False)
        if code != 0:
            found = output.strip().rsplit('state: ', 1)[-1] if 'state: ' in output else output.strip()
            if found.startswith(REVERT_FAILED):
                raise DeployError(self.device, 'confirm', 'the confirm timer ran out and its revert failed (%s): the '
                                  'switch runs part of the pushed configuration' % found, FAILED)
            raise TransportError(self.device, 'confirm', 'no deploy is pending (state: %s): the confirm timer ran out '
                                 'and rolled the switch back, or nothing was pushed' % found)
        try:
            self.run('sudo config save -y', 'config save')
            self.run('sudo cp %s/%s %s/frr.conf' % (FRR_DIR, FRR_CANDIDATE, FRR_DIR), 'save frr.conf')
            self._apply_users(json.loads((files or {}).get(USERS_FILE) or '{}'))
        except TransportError as error:
            raise DeployError(self.device, error.step, error.message, CONFIRMED) from None

    def _apply_users(self, users):
        """Create the missing local users and set every user's password hash (chpasswd -e)."""
        if not users:
            return
        for name, user in sorted(users.items()):
            groups = USER_GROUPS.get(user['role'], '')
            self.run('id -u %s >/dev/null 2>&1 || sudo useradd -m -s /bin/bash%s %s'
                     % (quote(name), ' -G ' + groups if groups else '', quote(name)), 'create user %s' % name)
        lines = ''.join('%s:%s\n' % (name, user['hash']) for name, user in sorted(users.items()))
        self.shell.upload(lines, self.workdir + '/users', 'upload password hashes')
        self.run('sudo chpasswd -e < %s/users; code=$?; rm -f %s/users; [ $code = 0 ]'
                 % (quote(self.workdir), quote(self.workdir)), 'chpasswd -e')

    def rollback(self):
        if self._state() != PENDING:
            return False
        code, output = self.shell.run('sudo /bin/sh %s/revert.sh' % STATE_DIR, 'rollback', timeout=REPLACE_TIMEOUT + FRR_TIMEOUT,
                                      check=False)
        if code != 0:
            raise DeployError(self.device, 'rollback', 'the revert failed: %s' % ' '.join(output.split())[-600:], FAILED)
        return 'nothing to revert' not in output


DRIVER = SonicDriver
