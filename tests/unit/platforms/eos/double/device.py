"""The state and CLI of one simulated EOS switch, as eAPI's runCmds sees it.

Modelled on Arista's documentation of eAPI (JSON-RPC 2.0 `runCmds`, one CLI context per request, the error
object with per-command `data`) and of configuration sessions (`configure session`, `rollback clean-config`,
`show session-config diffs`, `commit`, `commit timer`, `abort`, `configure replace`): see tests/doubles/README.md.
"""

from __future__ import annotations

import os
import re
import threading
import time

from tests.unit.platforms.eos.double import show
from tests.unit.platforms.eos.double.config import CommandRejected, Config, unified_diff
from tests.doubles.faults import Faults, committed

DEFAULT_VERSION = '4.31.2F'
DEFAULT_MODEL = 'DCS-7060X6-64PE'
# Front-panel ports of a 64 x 800G OSFP switch, each breakable into 8 lanes (EthernetN/1..N/8).
DEFAULT_PORTS = tuple('Ethernet%d/%d' % (port, lane) for port in range(1, 65) for lane in range(1, 9)) + \
    tuple('Ethernet%d' % port for port in (65, 66))
# The address/length the deploy reaches a switch at, on Management1 of its factory configuration.
DEFAULT_MANAGEMENT = '192.0.2.10/24'
TIMER = re.compile(r'^(\d{1,2}):(\d{2}):(\d{2})$')


class EapiError(Exception):
    """eAPI's JSON-RPC error object: code, message and `data` (results up to and including the failed command)."""

    def __init__(self, code, message, data):
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


class _Failed(Exception):
    def __init__(self, code, reason, errors):
        super().__init__(reason)
        self.code, self.reason, self.errors = code, reason, errors


def _invalid(message):
    return _Failed(1002, 'invalid command', [message])


def _could_not(message):
    return _Failed(1000, 'could not run command', [message])


class Session:
    def __init__(self, config):
        self.config = config
        self.state = 'pending'
        self.commit_by = None
        self.prior = None
        self.timer = None


class EosDevice:
    """One EOS switch: running/startup config, flash files, config sessions, commit timer, derived state."""

    def __init__(self, name, username, password, state_dir=None, version=DEFAULT_VERSION, model=DEFAULT_MODEL,
                 ports=DEFAULT_PORTS, initial_config=None, world=None, lockout=True, management=DEFAULT_MANAGEMENT):
        self.name, self.username, self.password = name, username, password
        # the address/length the deploy reaches the switch at (on Management1 unless the configuration moves it)
        self.management = management
        self.state_dir = state_dir
        self.version, self.model, self.ports = version, model, set(ports)
        self.world = world or {}  # what the double cannot derive alone: LLDP neighbours, remote VTEPs
        self.lockout = lockout
        self.faults = Faults(state_dir)
        self.lock = threading.RLock()
        self.booted = time.time()
        self.sessions = {}
        self.flash = {}
        self.dark = False  # management connection dropped after a commit (fault knob)
        self.running = Config.parse(initial_config or default_config(name, management))
        self.startup = self.running.render()
        self.first_seen = {}
        self._changed()

    # -- state helpers ------------------------------------------------------------------------------------
    def uptime(self):
        return time.time() - self.booted

    def reachable(self):
        if self.faults.get('unreachable') or self.dark:
            return False
        return not self.lockout or api_reachable(self.running, self.management)

    def running_text(self):
        header = ('! Command: show running-config\n! device: %s (%s, EOS-%s)\n!\n! boot system flash:/EOS.swi\n!\n'
                  % (self.name, self.model, self.version))
        return header + self.running.render()

    def _changed(self):
        """After every change of the running config: BGP sessions (re)start, files for out-of-process tests."""
        now = time.time()
        current = show.bgp_peer_keys(self.running)
        self.first_seen = {key: self.first_seen.get(key, now) for key in current}
        if self.state_dir:
            os.makedirs(self.state_dir, exist_ok=True)
            for filename, text in (('running-config', self.running_text()), ('startup-config', self.startup)):
                tmp = os.path.join(self.state_dir, filename + '.tmp')
                with open(tmp, 'w', encoding='utf-8') as handle:
                    handle.write(text)
                os.replace(tmp, os.path.join(self.state_dir, filename))

    def _set_running(self, config):
        self.running = config
        self._changed()

    # -- eAPI -------------------------------------------------------------------------------------------
    def run_cmds(self, cmds, fmt='json'):
        """Run one runCmds request. Returns the result list or raises EapiError."""
        context = {'privileged': False, 'editor': None, 'session': None}
        results = []
        with self.lock:
            for index, item in enumerate(cmds):
                command = item.get('cmd', '') if isinstance(item, dict) else item
                command = ' '.join(str(command).split())
                try:
                    results.append(self._one(context, command, fmt, item))
                except _Failed as failure:
                    message = "CLI command %d of %d '%s' failed: %s" % (index + 1, len(cmds), command, failure.reason)
                    raise EapiError(failure.code, message, results + [{'errors': failure.errors}]) from None
        return results

    def _ok(self, fmt, output=''):
        return {'output': output} if fmt == 'text' else {}

    def _one(self, context, command, fmt, item):
        words = command.split()
        if not words:
            return self._ok(fmt)
        if words == ['enable']:
            context['privileged'] = True
            return self._ok(fmt)
        if words[0] == 'show':
            return self._show(context, command, fmt)
        if context['editor'] is not None:
            return self._config_line(context, command, fmt)
        return self._exec(context, words, fmt, item)

    def _need_privileges(self, context):
        if not context['privileged']:
            raise _invalid('Invalid input (privileged mode required)')

    def _exec(self, context, words, fmt, item):
        if words[0] in ('configure', 'config') and len(words) <= 2 and words[1:] in ([], ['terminal']):
            self._need_privileges(context)
            context['editor'], context['session'] = self.running.editor(), None
            return self._ok(fmt)
        if words[:2] == ['configure', 'session'] and len(words) >= 3:
            self._need_privileges(context)
            return self._session_command(context, words[2], words[3:], fmt)
        if words[:2] == ['configure', 'replace'] and len(words) in (3, 4):
            self._need_privileges(context)
            self._configure_replace(words[2])
            return self._ok(fmt)
        if words[0] == 'copy' and len(words) == 3:
            self._need_privileges(context)
            return self._copy(words[1], words[2], fmt)
        if words in (['write'], ['write', 'memory']):
            self._need_privileges(context)
            self.startup = self.running.render()
            self._changed()
            return self._ok(fmt, 'Copy completed successfully.\n')
        raise _invalid("Invalid input (at token 0: '%s')" % words[0])

    def _session_command(self, context, name, rest, fmt):
        if not rest:
            session = self.sessions.get(name)
            if session is not None and session.state == 'pendingCommitTimer':
                raise _could_not('Session %s has a pending commit timer: commit or abort it first' % name)
            if session is None or session.state != 'pending':
                session = self.sessions[name] = Session(self.running.copy())
            context['editor'], context['session'] = session.config.editor(), name
            return self._ok(fmt)
        if rest == ['commit']:
            self._commit(name)
        elif rest == ['abort']:
            self._abort(name)
        elif len(rest) == 3 and rest[:2] == ['commit', 'timer'] and TIMER.match(rest[2]):
            hours, minutes, secs = (int(part) for part in TIMER.match(rest[2]).groups())
            self._commit_timer(name, hours * 3600 + minutes * 60 + secs)
        else:
            raise _invalid("Invalid input (at token 3: '%s')" % rest[0])
        return self._ok(fmt)

    def _config_line(self, context, command, fmt):
        words = command.split()
        session = context['session']
        if words == ['end']:
            context['editor'] = context['session'] = None
            return self._ok(fmt)
        if session and words == ['rollback', 'clean-config']:
            self.sessions[session].config = Config()
            context['editor'] = self.sessions[session].config.editor()
            return self._ok(fmt)
        if session and words in (['commit'], ['abort']):
            self._commit(session) if words == ['commit'] else self._abort(session)
            context['editor'] = context['session'] = None
            return self._ok(fmt)
        for pattern in self.faults.get('reject_lines') or []:
            if re.search(pattern, command):
                raise _invalid("Invalid input (at token 0: '%s')" % words[0])
        if words[0] == 'interface' and len(words) == 2 and words[1].startswith('Ethernet') and words[1] not in self.ports:
            raise _invalid("Invalid input (at token 1: '%s')" % words[1])
        try:
            context['editor'].apply(command)
        except CommandRejected as exc:
            raise _invalid(exc.error) from None
        if session is None:
            self._changed()  # plain `configure`: every line takes effect at once
        return self._ok(fmt)

    def _commit(self, name):
        session = self.sessions.get(name)
        if session is None:
            raise _could_not('Session %s does not exist' % name)
        if session.state == 'pendingCommitTimer':
            session.timer.cancel()  # confirmation: the timer will not revert
            session.state, session.prior, session.commit_by = 'completed', None, None
            return
        if session.state != 'pending':
            raise _could_not('Session %s is %s' % (name, session.state))
        self._no_other_pending_timer(name)
        session.state = 'completed'
        self._set_running(session.config.copy())

    def _no_other_pending_timer(self, name):
        for other, session in self.sessions.items():
            if other != name and session.state == 'pendingCommitTimer':
                raise _could_not('Cannot commit session %s: session %s has a pending commit timer' % (name, other))

    def _commit_timer(self, name, seconds):
        session = self.sessions.get(name)
        if session is None or session.state != 'pending':
            raise _could_not('Session %s does not exist or is not pending' % name)
        if seconds < 1:
            raise _invalid('Invalid input (commit timer must be at least 00:00:01)')
        self._no_other_pending_timer(name)
        session.prior = self.running.copy()
        session.state = 'pendingCommitTimer'
        session.commit_by = self.uptime() + seconds
        session.timer = threading.Timer(seconds, self._expire, [name])
        session.timer.daemon = True
        session.timer.start()
        if self.state_dir:
            committed(self.state_dir)
        self._set_running(session.config.copy())
        if self.faults.get('drop_after_commit'):
            self.dark = True

    def _expire(self, name):
        """The commit timer ran out unconfirmed: EOS restores the configuration from before the commit."""
        with self.lock:
            session = self.sessions.get(name)
            if session is None or session.state != 'pendingCommitTimer':
                return
            self._revert(session)

    def _revert(self, session):
        session.state, session.commit_by = 'aborted', None
        self._set_running(session.prior)
        session.prior = None
        self.dark = False

    def _abort(self, name):
        session = self.sessions.get(name)
        if session is None:
            raise _could_not('Session %s does not exist' % name)
        if session.state == 'pendingCommitTimer':
            session.timer.cancel()
            self._revert(session)
            return
        if session.state == 'pending':
            del self.sessions[name]

    def _configure_replace(self, source):
        text = self._read_url(source)
        try:
            config = Config.parse(text)
        except CommandRejected as exc:
            raise _could_not(exc.error) from None
        self._set_running(config)

    def _read_url(self, url):
        if url in ('startup-config', 'flash:startup-config'):
            return self.startup
        if url in ('running-config', 'system:running-config'):
            return self.running.render()
        if url.startswith('flash:') and url[6:] in self.flash:
            return self.flash[url[6:]]
        raise _could_not('File %s does not exist' % url)

    def _copy(self, source, target, fmt):
        text = self._read_url(source)
        if target in ('startup-config', 'flash:startup-config'):
            self.startup = text
            self._changed()
        elif target.startswith('flash:') and re.match(r'^[A-Za-z0-9_.-]+$', target[6:]):
            self.flash[target[6:]] = text
        else:
            raise _invalid("Invalid input (at token 2: '%s')" % target)
        return self._ok(fmt, 'Copy completed successfully.\n')

    # -- show -------------------------------------------------------------------------------------------
    def _show(self, context, command, fmt):
        words = command.split()
        text_only = {
            ('show', 'running-config'): self.running_text,
            ('show', 'startup-config'): lambda: self.startup,
        }
        if tuple(words) in text_only:
            self._need_privileges(context)
            output = text_only[tuple(words)]()
            if fmt == 'text':
                return {'output': output}
            return show.running_config_json(self.running)
        if words[:3] == ['show', 'session-config', 'named'] and len(words) in (4, 5):
            self._need_privileges(context)
            session = self.sessions.get(words[3])
            if session is None:
                raise _could_not('Session %s does not exist' % words[3])
            if len(words) == 5 and words[4] != 'diffs':
                raise _invalid("Invalid input (at token 4: '%s')" % words[4])
            if len(words) == 5:
                output = unified_diff(self.running.render(), session.config.render(), words[3])
            else:
                output = session.config.render()
            if fmt != 'text':
                raise _Failed(1003, 'unconverted command', ['This command is not available in JSON format'])
            return {'output': output}
        handler = show.HANDLERS.get(' '.join(words))
        if handler is None:
            raise _invalid("Invalid input (at token %d: '%s')" % (min(len(words) - 1, 1), words[min(len(words) - 1, 1)]))
        data = handler(self)
        if fmt == 'text':
            output = show.as_text(' '.join(words), data)
            if output is None:
                raise _Failed(1003, 'not modelled', ['The double renders this command in JSON format only'])
            return {'output': output}
        return data


def api_reachable(config, management):
    """Whether eAPI answers at the management address: the interface that holds the address, its VRF, and eAPI
    enabled there (`management api http-commands` with `no shutdown`, HTTPS not turned off, and for a VRF other than
    the default one `vrf <name>` with `no shutdown` inside: AVD management-api-http.j2, EOS User Manual "Command API":
    eAPI is shut down by default)."""
    address = management.split('/')[0]
    holder = None
    for node in config.sections('interface'):
        if any(child.words[:2] == ['ip', 'address'] and len(child.words) == 3 and child.words[2].split('/')[0] == address
               for child in node.children):
            holder = node
    if holder is None:
        return False
    vrf = next((child.words[1] for child in holder.children if child.words[:1] == ['vrf'] and len(child.words) == 2),
               'default')
    section = config.section('management', 'api', 'http-commands')
    if section is None or not _enabled(section):
        return False
    if any(child.words == ['no', 'protocol', 'https'] for child in section.children):
        return False
    if vrf == 'default':
        return True
    return any(_enabled(node) for node in section.find('vrf', vrf))


def _enabled(section):
    node = section.child(('shutdown',))
    return node is not None and node.words == ['no', 'shutdown']


def default_config(name, management=DEFAULT_MANAGEMENT):
    """What a switch runs before the first deploy: hostname, EOS's factory admin account (no password), the
    management address, eAPI enabled in the default VRF."""
    return '\n'.join([
        'hostname %s' % name,
        'username admin privilege 15 role network-admin nopassword',
        'interface Management1',
        '   ip address %s' % management,
        'management api http-commands',
        '   no shutdown',
        'end',
    ]) + '\n'
