# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Community SONiC (202205 and later): netmiko over SSH to the switch's shell (docs/platform-sonic.md).

Two ways to commit, chosen from what the switch runs (choose_path, said in the diff and in the result):

- **load**, for a switch not in service (no BGP session established and never deployed by this collection): the
  whole configuration is loaded as ZTP does, with `config reload -y FILE` (sonic-utilities config/main.py: the file
  must pass the YANG models before anything stops; then every service restarts: the bgp container boots the new
  frr.conf, swss starts buffermgrd with the new buffer model). A factory switch runs no QoS, no buffer pool and no
  PFC_WD table (sonic-buildimage config-setup factory, init_cfg.json.j2), none of which GCU can add.
- **replace**, for a switch in service (day N): the generic config updater (GCU), which changes only what differs:
  `config replace --dry-run` in every push (check mode too), `config checkpoint` + `config replace`, `config
  rollback` to go back. What GCU cannot do (BUFFER_POOL, a PFC_WD table that does not exist yet, another buffer
  model, which buffermgrd only takes at swss start) is refused before anything changes; loading in a maintenance
  window is `aifabric_sonic_commit_path: load`.

FRR: the bgp container runs split-unified (/etc/sonic/frr/frr.conf, `service integrated-vtysh-config`). It has vtysh
but not frr-reload.py (rules/docker-fpm-frr.mk; frr_delta.py), so a day-N change is a vtysh script this driver
computes from FRR's running configuration (frr_delta.script) and the container applies with `vtysh -f`; the script
back to the running configuration is computed at the same time and kept on the switch. A container in another mode
gets frr.conf and a restart once CONFIG_DB says split-unified (docker_init.sh).

Every step that changes or reverts the switch holds flock(1) on /etc/sonic/aifabric-deploy/lock, and a state file
beside it says where the deploy is (pending, confirmed, reverting, rolled-back, revert-failed). The revert is a
script on the switch (revert.sh there), run by a transient systemd timer when the confirm does not come in time, or
at once by rollback() as a transient service of its own (it may cut the SSH session: a reload restarts eth0). It
reverts only a pending deploy, under the lock, so a confirm and a revert never both happen: GCU's `config rollback`
to the checkpoint (or `config reload` of the saved CONFIG_DB), the FRR script back, and when FRR still differs, the
container restarted from the saved configuration; after a load, `config reload` of the CONFIG_DB saved before it.
Each commit is bounded (`aifabric_sonic_commit_timeout`): the switch's `timeout(1)` ends a replace or a load that
runs longer, so it cannot keep the lock from the revert.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import re
import time

from ...deploy import CONFIRMED, FAILED, DeployError
from ...deploy.contract import PENDING_STATE as PENDING, REVERT_FAILED_STATE as REVERT_FAILED
from ...deploy.contract import TimerShellDriver, address_problems
from ...transport import TransportError, quote
from . import frr_delta
from .render import DEPLOYED_TABLES, deploy_target

GCU_SINCE = 202205
CHECKPOINT = 'aifabric-before-deploy'
STATE_DIR = '/etc/sonic/aifabric-deploy'
LOCK = STATE_DIR + '/lock'
UNIT_PREFIX = 'aifabric-confirm-'
FRR_DIR = '/etc/sonic/frr'            # /etc/frr inside the bgp container
FRR_CANDIDATE = 'aifabric-candidate.conf'
FRR_APPLY = 'aifabric-apply.conf'     # running -> rendered (vtysh -f)
FRR_REVERT = 'aifabric-revert.conf'   # rendered -> running before the push (vtysh -f)
FRR_MODE = 'split-unified'
USERS_FILE = 'local-users.json'
PATHS = ('auto', 'load', 'replace')
COMMIT_TIMEOUT = 420                  # s: a replace or a load, with the services' restart
FRR_TIMEOUT = 300
POLL_S = 2
CONNECT_ATTEMPTS, CONNECT_RETRY_S = 4, 5  # 15 s: an eth0 restart
# config/main.py reload: what it prints when it refuses to start now (exit 1, nothing stopped); it may later
RELOAD_NOT_READY = 'Retry later or use -f|Failed to acquire lock on'
SHOW_HEADER = re.compile(r'\A(?:Building configuration\.\.\.\s*)?(?:Current configuration:\s*)?')
RELEASE = re.compile(r'SONiC Software Version: SONiC\.(?:[A-Za-z_-]*\.)?(\d{6})')
# The states a deploy leaves in STATE_DIR/state; a push starts only from none, confirmed or rolled-back.
REVERTING, ROLLED_BACK_STATE = 'reverting', 'rolled-back'
# revert.sh: run by the confirm timer (systemd-run) or by rollback(); our own script, written to the switch.
REVERT_SCRIPT = r'''#!/bin/sh
# aifabric.fabric SONiC deploy: revert a deploy that was not confirmed. Run by its confirm timer or by the deploy's
# rollback; reverts only a pending deploy, holding the deploy's lock (a confirm holds it too).
D=%(state_dir)s
F=%(frr_dir)s
exec 9>>"$D/lock"
flock 9
state=$(cat "$D/state" 2>/dev/null)
if [ "$state" != pending ]; then
    echo "aifabric-deploy: nothing to revert (state: ${state:-none})"
    exit 0
fi
echo reverting > "$D/state"
rm -f $F/%(frr_candidate)s
for unit in $(cat "$D/units" 2>/dev/null); do systemctl stop "$unit.timer" >/dev/null 2>&1; done
restore_frr_files() {
    rm -f $F/frr.conf $F/bgpd.conf $F/zebra.conf $F/staticd.conf
    cp -p "$D"/frr-files/* $F/ 2>/dev/null
}
failed=
# config reload -f: without it the reload refuses while swss has been up for 2 minutes or less (config/main.py
# _swss_ready), as it is right after the load this reverts, or stopped by a load its bound ended halfway
case "$(cat "$D/path" 2>/dev/null)" in
load)
    # a whole load: the CONFIG_DB and FRR files of before it, and every service restarted with them
    restore_frr_files
    config reload -y -f "$D/before-config_db.json" || failed="CONFIG_DB"
    ;;
*)
    if ! config rollback %(checkpoint)s; then
        echo "aifabric-deploy: config rollback failed, loading the CONFIG_DB of before the push (config reload)"
        config reload -y -f "$D/before-config_db.json" || failed="CONFIG_DB"
    fi
    if [ "$(cat "$D/frr-mode" 2>/dev/null)" = restart ]; then
        restore_frr_files
        systemctl restart bgp || failed="$failed FRR"
    else
        docker exec bgp vtysh -f /etc/frr/%(frr_revert)s >/dev/null 2>&1
        docker exec bgp vtysh -c 'show running-config' | sed '1,/^Current configuration:/d' > "$D/frr-now.conf"
        if ! cmp -s "$D/frr-now.conf" "$D/frr-before.conf"; then
            echo "aifabric-deploy: FRR differs after the script back: restarting the bgp container from it"
            cp "$D/frr-before.conf" $F/frr.conf
            systemctl restart bgp || failed="$failed FRR"
        fi
    fi
    ;;
esac
if [ -n "$failed" ]; then
    echo "revert-failed:$failed" > "$D/state"
    echo "aifabric-deploy: the revert failed ($failed)"
    exit 1
fi
echo rolled-back > "$D/state"
echo "aifabric-deploy: reverted"
''' % {'state_dir': STATE_DIR, 'checkpoint': CHECKPOINT, 'frr_dir': FRR_DIR, 'frr_revert': FRR_REVERT,
       'frr_candidate': FRR_CANDIDATE}
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


def beyond_gcu(running, target):
    """What the generic config updater cannot do to take `running` to `target`, one sentence each (empty: nothing).
    GCU refuses every BUFFER_POOL change and a PFC_WD table added whole (sonic-utilities
    gcu_field_operation_validators.conf.json, field_operation_validators.py rdma_config_update_validator); buffermgrd
    takes DEVICE_METADATA.buffer_model only when swss starts (sonic-buildimage buffermgrd.sh; config/main.py `qos
    reload`: "restarting swss is required")."""
    def pools(config):
        return config.get('BUFFER_POOL') or {}

    def model(config):
        return config.get('DEVICE_METADATA', {}).get('localhost', {}).get('buffer_model')

    problems = []
    if pools(running) != pools(target):
        changed = sorted(set(pools(running)) ^ set(pools(target)) | {
            name for name in set(pools(running)) & set(pools(target)) if pools(running)[name] != pools(target)[name]})
        problems.append('BUFFER_POOL changes (%s): GCU changes no buffer pool' % ', '.join(changed))
    if target.get('PFC_WD') and not running.get('PFC_WD'):
        problems.append('the PFC_WD table is new: GCU adds no whole PFC_WD table')
    if model(running) != model(target):
        problems.append('buffer_model %s -> %s: buffermgrd takes a buffer model only when swss starts'
                        % (model(running), model(target)))
    return problems


def choose_path(requested, in_service, problems):
    """('load' | 'replace', why) for aifabric_sonic_commit_path `requested`, what the switch runs (`in_service`: a
    sentence saying why it carries traffic, or None) and what GCU cannot do (`problems`). Raises ValueError (the
    message says what to change) where neither path is safe."""
    if requested == 'load':
        return 'load', 'aifabric_sonic_commit_path is load (a maintenance window)'
    if requested == 'replace' or in_service:
        if problems:
            raise ValueError('%s%s; the generic config updater cannot: %s. Load the whole configuration in a '
                             'maintenance window (aifabric_sonic_commit_path: load for this switch)'
                             % ('the switch is in service: ' if in_service else '', in_service or
                                'aifabric_sonic_commit_path is replace', '; '.join(problems)))
        return 'replace', ('the switch is in service (%s): only what differs changes' % in_service if in_service
                           else 'aifabric_sonic_commit_path is replace')
    return 'load', 'the switch is not in service (no BGP session established, never deployed): the whole ' \
                   'configuration is loaded'


def _established(summary_text):
    """How many BGP sessions are Established in `show bgp vrf all summary json` (0 when it cannot be read)."""
    try:
        data = json.loads(summary_text)
    except ValueError:
        return 0
    count = 0
    for vrf in data.values() if isinstance(data, dict) else ():
        for family in vrf.values() if isinstance(vrf, dict) else ():
            peers = family.get('peers') if isinstance(family, dict) else None
            count += sum(1 for peer in (peers or {}).values() if isinstance(peer, dict) and peer.get('state') == 'Established')
    return count


def _seconds(host_vars, name, default, device):
    value = host_vars.get(name, default)
    try:
        seconds = int(value)
    except (TypeError, ValueError):
        seconds = None
    if seconds is None or isinstance(value, bool) or not 30 <= seconds <= 86400:
        raise DeployError(device, 'settings', '%s must be a number of seconds from 30 to 86400, got %r' % (name, value))
    return seconds


class SonicDriver(TimerShellDriver):
    state_dir = STATE_DIR
    platform = 'sonic'
    files = ('config_db.json', 'frr.conf')
    optional_files = (USERS_FILE,)
    device_type = 'linux'
    host_variables = ('aifabric_sonic_commit_path', 'aifabric_sonic_commit_timeout')

    # sonic-buildimage rules/config: DEFAULT_USERNAME = admin, DEFAULT_PASSWORD = YourPaSsWoRd
    default_account = ('admin', 'YourPaSsWoRd (sonic-buildimage rules/config DEFAULT_PASSWORD)')

    def __init__(self, device, host_vars):
        super().__init__(device, host_vars)
        requested = host_vars.get('aifabric_sonic_commit_path', 'auto')
        if requested not in PATHS:
            raise DeployError(device, 'settings', 'aifabric_sonic_commit_path must be one of %s, got %r'
                              % (', '.join(PATHS), requested))
        self.requested = requested
        self.commit_timeout = _seconds(host_vars, 'aifabric_sonic_commit_timeout', COMMIT_TIMEOUT, device)
        self.integrated = True  # set by prepare(): the bgp container already runs split-unified
        self.path = None
        self.frr_running = self.candidate = ''

    # -- helpers ----------------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def session(self):
        """A session, tried again for a while: a switch whose eth0 restarts (a load, a revert's reload, a management
        VRF change) refuses connections for some seconds (config/main.py _restart_services: "lost network for 10
        seconds")."""
        for attempt in range(CONNECT_ATTEMPTS):
            try:
                stack = contextlib.ExitStack()
                stack.enter_context(super().session())
                break
            except TransportError:
                stack.close()
                if attempt + 1 == CONNECT_ATTEMPTS:
                    raise
                time.sleep(CONNECT_RETRY_S)
        with stack, contextlib.ExitStack() as later:
            self._later = later  # the sessions opened again after the switch cut one
            yield self

    def _frr(self, command):
        return 'sudo docker exec bgp %s' % command

    def _integrated(self, running):
        """The bgp container runs split-unified now: CONFIG_DB says so and its vtysh.conf has the integrated
        config (docker_init.sh writes it when the container starts)."""
        mode = running.get('DEVICE_METADATA', {}).get('localhost', {}).get('docker_routing_config_mode')
        code, vtysh = self.shell.run('cat %s/vtysh.conf 2>/dev/null' % FRR_DIR, 'read vtysh.conf', check=False)
        integrated = code == 0 and not any(line.strip() == 'no service integrated-vtysh-config'
                                           for line in vtysh.splitlines())
        return mode == FRR_MODE and integrated

    def _frr_running(self):
        text = self.run(self._frr("vtysh -c 'show running-config'"), 'read FRR running config')
        return SHOW_HEADER.sub('', text.lstrip('\n'), count=1)

    def _in_service(self, confirmed_before):
        """Why the switch carries traffic (None: it does not)."""
        _code, summary = self.shell.run(self._frr("vtysh -c 'show bgp vrf all summary json'"), 'read BGP sessions',
                                        check=False)
        established = _established(summary)
        reasons = (['%d BGP session%s established' % (established, '' if established == 1 else 's')] if established
                   else []) + (['deployed before by this collection'] if confirmed_before else [])
        return ', '.join(reasons) or None

    def _arm(self, seconds):
        """A new confirm timer running revert.sh in `seconds`; returns its unit name."""
        unit = '%s%d' % (UNIT_PREFIX, int(time.time() * 1000))
        self.run('sudo systemd-run --collect --on-active=%ds --unit=%s /bin/sh %s/revert.sh'
                 % (seconds, unit, STATE_DIR), 'arm confirm timer (systemd-run)')
        return unit

    def _reconnect(self, step, until):
        """A new session once the switch answers again (until the monotonic time `until`)."""
        last = None
        while time.monotonic() < until:
            try:
                self.shell = self._later.enter_context(self.open_shell())
                return
            except TransportError as error:
                last = error.message
                time.sleep(POLL_S)
        raise TransportError(self.device, step, 'the switch did not answer again within the bound (%s)' % last)

    def _detached(self, unit, command, step, seconds):
        """Run `command` (a shell command line, as root) as a transient service of the switch, bounded by timeout(1),
        and wait for it across cut sessions; its output and exit code land in STATE_DIR/<unit>.out and .rc."""
        out = '%s/%s' % (STATE_DIR, unit)
        self.run('sudo rm -f %s.out %s.rc && sudo systemd-run --collect --unit=%s sh -c %s' % (out, out, unit, quote(
            '(timeout -k 10 %d sh -c %s) >%s.out 2>&1; echo $? >%s.rc' % (seconds, quote(command), out, out))),
            '%s (systemd-run)' % step)
        until = time.monotonic() + seconds + 60
        while True:
            try:
                code, output = self.shell.run('cat %s.rc 2>/dev/null' % out, step, check=False)
                if code == 0 and output.strip():
                    rc = int(output.strip().splitlines()[-1])
                    text = self.shell.run('cat %s.out' % out, step, check=False)[1]
                    return rc, text
            except TransportError:
                self._reconnect(step, until)
                continue
            if time.monotonic() > until:
                raise TransportError(self.device, step, 'no result within %d s' % (seconds + 60))
            time.sleep(POLL_S)

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
        self.confirmed_before = current == 'confirmed'

    def prepare(self, files):
        running = json.loads(self.run('sonic-cfggen -d --print-data', 'read CONFIG_DB'))
        rendered = json.loads(files['config_db.json'])
        problems = _model_problems(running, rendered)
        if problems:
            raise TransportError(self.device, 'switch model', '; '.join(problems))
        target = deploy_target(running, rendered)
        self.shell.upload(json.dumps(target, indent=2, sort_keys=True) + '\n', self.workdir + '/target.json',
                          'upload CONFIG_DB')
        self.shell.upload(files['frr.conf'], self.workdir + '/frr.conf', 'upload frr.conf')
        self.integrated = self._integrated(running)
        self.frr_running = self._frr_running()
        self.candidate = files['frr.conf']
        diff = config_db_diff(running, target)
        frr_diff = frr_delta.diff(self.frr_running, files['frr.conf'])
        if not diff and not frr_diff:
            self.path = None
            return ''
        try:
            self.path, why = choose_path(self.requested, self._in_service(getattr(self, 'confirmed_before', False)),
                                         beyond_gcu(running, target))
        except ValueError as error:
            raise TransportError(self.device, 'commit path', str(error)) from None
        if diff and self.path == 'replace':
            # GCU's own checks (YANG, field operations, lanes) on the switch, nothing applied
            self.run('sudo config replace --dry-run %s/target.json' % quote(self.workdir), 'config replace --dry-run',
                     timeout=self.commit_timeout)
        if self.path == 'load':
            frr_diff = ('# the whole frr.conf boots with the bgp container the load restarts\n' + frr_diff)
            why += '; the switch checks the file against its YANG models when it loads it, before anything stops'
        elif not self.integrated:
            frr_diff = ('# the bgp container does not run %s: the push writes frr.conf and restarts it\n' % FRR_MODE
                        + frr_diff)
        users = self._users_diff(files)
        header = '# commit path: %s (%s)\n' % ('config reload of the whole configuration' if self.path == 'load'
                                               else 'config replace (generic config updater)', why)
        return (header + diff + ('--- FRR (running)\n+++ FRR (rendered)\n' + frr_diff if frr_diff else '')
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
        self.run('sudo mkdir -p %s && sudo cp %s/revert.sh %s/revert.sh && echo %s | sudo tee %s/path >/dev/null'
                 % (STATE_DIR, work, STATE_DIR, self.path, STATE_DIR), 'install revert.sh')
        # what a revert goes back to: the CONFIG_DB, the FRR files and FRR's running configuration of now
        self.run('sudo sh -c %s' % quote('sonic-cfggen -d --print-data > %s/before-config_db.json' % STATE_DIR),
                 'save the running CONFIG_DB')
        self.run('sudo rm -rf %s/frr-files && sudo mkdir %s/frr-files && for file in %s/*.conf; do case $file in '
                 '*/aifabric-*) ;; *) sudo cp -p "$file" %s/frr-files/;; esac; done'
                 % (STATE_DIR, STATE_DIR, FRR_DIR, STATE_DIR), 'save the FRR files')
        self.shell.upload(self.frr_running, self.workdir + '/frr-before.conf', 'save FRR running config')
        self.run('sudo cp %s/frr-before.conf %s/frr-before.conf && sudo cp %s/frr.conf %s/%s'
                 % (work, STATE_DIR, work, FRR_DIR, FRR_CANDIDATE), 'stage frr.conf')
        if self.path == 'replace':
            self.run('sudo config checkpoint %s' % CHECKPOINT, 'config checkpoint')
        frr_mode = 'reload' if self.integrated and self.path == 'replace' else 'restart'
        self.run('echo %s | sudo tee %s/frr-mode >/dev/null' % (frr_mode, STATE_DIR), 'deploy state')
        # a timer that outlasts the commit and the FRR step; re-armed with the confirm time once they are done
        first = self._arm(confirm_seconds + self.commit_timeout + FRR_TIMEOUT)
        self.run(self._locked('echo %s > %s/units && echo %s > %s/state' % (first, STATE_DIR, PENDING, STATE_DIR)),
                 'deploy state')
        if self.path == 'load':
            self._load(work)
        else:
            self._replace(work, frr_mode)
        second = self._arm(confirm_seconds)
        self.run(self._locked('[ "$(cat %s/state)" = %s ] && echo "%s %s" > %s/units && systemctl stop %s.timer'
                              % (STATE_DIR, PENDING, first, second, STATE_DIR, first)), 're-arm confirm timer')

    def _load(self, work):
        """config reload of the whole target, frr.conf in place for the bgp container it restarts."""
        self.run('sudo cp %s/target.json %s/load-config_db.json && sudo cp %s/frr.conf %s/frr.conf'
                 % (work, STATE_DIR, work, FRR_DIR), 'stage the load')
        # config reload refuses, before it stops anything, while the system starts, while swss has been up for 2
        # minutes or less, or while another reload holds /etc/sonic/reload.lock (config/main.py reload, _swss_ready,
        # try_lock): tried again every 10 s within the bound
        attempt = ('while :; do config reload -y {d}/load-config_db.json >{d}/load.try 2>&1; rc=$?; cat {d}/load.try; '
                   'if [ $rc -eq 1 ] && grep -qE "{again}" {d}/load.try; then sleep 10; else exit $rc; fi; done'
                   .format(d=STATE_DIR, again=RELOAD_NOT_READY))
        code, output = self._detached('aifabric-load-%d' % int(time.time() * 1000), 'flock %s sh -c %s'
                                      % (LOCK, quote(attempt)), 'config reload', self.commit_timeout)
        if code != 0:
            raise TransportError(self.device, 'config reload', ('ran out of its %d s bound (aifabric_sonic_commit_'
                                 'timeout)' % self.commit_timeout) if code == 124 else
                                 ' '.join(output.split())[-600:] or 'exit code %d' % code)

    def _replace(self, work, frr_mode):
        """config replace (detached: a change of the management VRF cuts the session), then FRR."""
        code, output = self._detached('aifabric-replace-%d' % int(time.time() * 1000), 'flock %s config replace %s/'
                                      'target.json' % (LOCK, work), 'config replace', self.commit_timeout)
        if code != 0:
            raise TransportError(self.device, 'config replace', ('ran out of its %d s bound (aifabric_sonic_commit_'
                                 'timeout): ended, so it does not keep the lock' % self.commit_timeout) if code == 124
                                 else ' '.join(output.split())[-600:] or 'exit code %d' % code)
        if frr_mode == 'restart':
            self.run(self._locked('cp %s/%s %s/frr.conf && systemctl restart bgp' % (FRR_DIR, FRR_CANDIDATE, FRR_DIR)),
                     'restart bgp in %s mode' % FRR_MODE, timeout=FRR_TIMEOUT)
        else:
            # FRR as it runs now (bgpcfgd may have changed it with CONFIG_DB), the way there and the way back
            self._stage(FRR_APPLY, frr_delta.script(self._frr_running(), self.candidate))
            self._stage(FRR_REVERT, frr_delta.script(self.candidate, self.frr_running))
            self.run(self._locked('docker exec bgp vtysh -f /etc/frr/%s >/dev/null 2>&1; true' % FRR_APPLY),
                     'vtysh -f (FRR change)', timeout=FRR_TIMEOUT)
            after = self._frr_running()
            if not frr_delta.equal(after, self.candidate):
                raise TransportError(self.device, 'vtysh -f (FRR change)', 'FRR runs other than the rendered frr.conf '
                                     'after the change:\n%s' % frr_delta.diff(after, self.candidate)[:1500])
        # the way back must stay open: GCU checks the rollback to the checkpoint from the new running config
        self.run('sudo config rollback --dry-run %s' % CHECKPOINT, 'config rollback --dry-run',
                 timeout=self.commit_timeout)

    def _stage(self, name, text):
        """`text` as /etc/sonic/frr/`name` (the container's /etc/frr/`name`); the revert script reads FRR_REVERT."""
        self.shell.upload(text, '%s/%s' % (self.workdir, name), 'upload %s' % name)
        self.run('sudo cp %s/%s %s/%s' % (quote(self.workdir), name, FRR_DIR, name), 'stage %s' % name)

    def confirm(self, files=None):
        self._stop_confirm_timers()
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
        code, output = self._detached('aifabric-revert-%d' % int(time.time() * 1000), '/bin/sh %s/revert.sh' % STATE_DIR,
                                      'rollback', self.commit_timeout + FRR_TIMEOUT)
        if code != 0:
            raise DeployError(self.device, 'rollback', 'the revert failed: %s' % ' '.join(output.split())[-600:], FAILED)
        return 'nothing to revert' not in output


DRIVER = SonicDriver
