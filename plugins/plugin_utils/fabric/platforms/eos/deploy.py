# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Arista EOS: napalm's `eos` driver over eAPI, EOS configuration sessions (docs/platform-eos.md).

push: `configure session aifabric_<n>` + `rollback clean-config` + the rendered lines with the switch's eAPI SSL
profile kept (keep_eapi_ssl_profile; napalm load_replace_candidate), `show session-config diffs` (compare_config), `configure session ... commit timer
HH:MM:SS` (commit_config(revert_in=...)). confirm: a second `commit` of the pending session + `write memory`
(confirm_commit). rollback: `configure session ... abort` of the pending session (napalm rollback).
napalm's close() aborts the driver's open session, so after a timed commit the driver lets go of it: the pending
session lives on the switch until confirm, rollback or the timer.
"""

from __future__ import annotations

import contextlib
import ipaddress
import re
import socket
import time

from ...deploy.contract import Driver, address_problems
from ...transport import TransportError
from .eapi import EapiSettings, eapi_session

SESSION_PREFIX = 'aifabric_'
FILE = 'startup-config.cfg'
MANAGEMENT = 'Management1'
# napalm's eos commit_config formats `commit timer` as time.strftime('%H:%M:%S', time.gmtime(revert_in)): 24 hours
# and more wrap around (86400 s would be `commit timer 00:00:00`).
MAX_TIMER = 86399


def _sections(text, kind):
    """(name, body) of every top-level `<kind> <name>` section of an EOS configuration (body: its indented lines)."""
    return [(match.group(1), match.group(2)) for match in
            re.finditer(r'^%s (\S+)\n((?:[ !].*\n)*)' % re.escape(kind), text, re.M)]


def _vrf_of(text, interface):
    body = dict(_sections(text, 'interface')).get(interface, '')
    match = re.search(r'^   vrf (?:forwarding )?(\S+)$', body, re.M)
    return match.group(1) if match else 'default'


def _holder(host, addresses):
    """The interface the file gives the address the deploy uses (None: a host name, or no interface has it)."""
    try:
        reached = ipaddress.ip_address(str(host))
    except ValueError:
        return None
    return next((name for name, items in sorted(addresses.items())
                 if any(ipaddress.ip_interface(item).ip == reached for item in items)), None)


def keep_eapi_ssl_profile(running, candidate):
    """The candidate with the switch's eAPI SSL profile kept: the rendered configuration names no certificate, so a
    full replace (a session from `rollback clean-config`) would drop `protocol https ssl profile <name>` and the
    profile's `management security` block, and eAPI would fall back to its self-signed certificate (EOS User Manual,
    "Command API"; the section shapes of AVD eos_cli_config_gen management-api-http.j2 and management-security.j2).
    A candidate that names its own profile is left as it is."""
    api = re.search(r'^management api http-commands\n((?:[ !].*\n)*)', running, re.M)
    profile = re.search(r'^   protocol https ssl profile (\S+)$', api.group(1), re.M) if api else None
    if not profile or re.search(r'^   protocol https ssl profile ', candidate, re.M):
        return candidate
    name = profile.group(1)
    security = re.search(r'^management security\n((?:[ !].*\n)*)', running, re.M)
    block = re.search(r'^   ssl profile %s\n((?:      .*\n)*)' % re.escape(name), security.group(1), re.M) if security else None
    if not re.search(r'^management api http-commands$', candidate, re.M):
        return candidate
    candidate = re.sub(r'^(management api http-commands\n(?:   protocol https\n)?)',
                       lambda match: match.group(1) + ('' if 'protocol https' in match.group(1) else '   protocol https\n')
                       + '   protocol https ssl profile %s\n' % name, candidate, count=1, flags=re.M)
    if block:
        section = 'management security\n   ssl profile %s\n%s!\n' % (name, block.group(1))
        candidate = re.sub(r'^(management api http-commands$)', lambda match: section + match.group(1), candidate,
                           count=1, flags=re.M)
    return candidate


def _eapi_enabled(text, vrf):
    match = re.search(r'^management api http-commands\n((?:[ !].*\n)*)', text, re.M)
    if not match:
        return False
    body = match.group(1)
    if vrf == 'default':
        return bool(re.search(r'^   no shutdown$', body, re.M))
    block = re.search(r'^   vrf %s\n((?:      .*\n)*)' % re.escape(vrf), body, re.M)
    return bool(block and re.search(r'^      no shutdown$', block.group(1), re.M))


def _eapi_access_group(text, vrf):
    """The standard ACL `management api http-commands` binds to eAPI in `vrf` (`vrf <name>` / `ip access-group <acl>`,
    AVD management-api-http.j2; `vrf default` for the default VRF), or None."""
    match = re.search(r'^management api http-commands\n((?:[ !].*\n)*)', text, re.M)
    block = match and re.search(r'^   vrf %s\n((?:      .*\n)*)' % re.escape(vrf), match.group(1), re.M)
    group = block and re.search(r'^      ip access-group (\S+)$', block.group(1), re.M)
    return group.group(1) if group else None


def acl_permits(text, name, address):
    """Whether the standard ACL `name` of the file permits `address`: its rules in sequence order, the first that
    matches decides (EOS User Manual, "ACLs and Route Maps": an ACL is an ordered set of rules); no rule matching is
    taken as a deny, the implicit deny of IOS-style ACLs: [unverified] for EOS, and the reading that never lets a
    lock-out through. Rules: `<seq> permit|deny <prefix>|host <address>|any`, `<seq> remark ...` (AVD
    standard-access-lists.j2). None when the file has no such ACL."""
    body = dict(_sections(text, 'ip access-list standard')).get(name)
    if body is None:
        return None
    entries = []
    for line in body.splitlines():
        words = line.split()
        if len(words) >= 3 and words[0].isdigit() and words[1] in ('permit', 'deny'):
            target = words[2:]
            network = ('0.0.0.0/0' if target == ['any'] else
                       target[1] + '/32' if target[0] == 'host' and len(target) == 2 else target[0])
            entries.append((int(words[0]), words[1], ipaddress.ip_network(network, strict=False)))
    for _seq, action, network in sorted(entries, key=lambda entry: entry[0]):
        if address in network:
            return action == 'permit'
    return False


def source_address(host, port, host_vars):
    """The address the switch sees the deploy come from: `aifabric_deploy_source_address` when set (a NAT or a jump
    host in between), else the local address the controller's routing table picks towards the switch (a UDP
    connect sends nothing). None when neither is known."""
    override = host_vars.get('aifabric_deploy_source_address')
    if override:
        return ipaddress.ip_address(str(override))
    try:
        family, kind, proto, _name, where = socket.getaddrinfo(host, port, socket.AF_INET, socket.SOCK_DGRAM)[0]
        with socket.socket(family, kind, proto) as probe:
            probe.connect(where)
            return ipaddress.ip_address(probe.getsockname()[0])
    except OSError:
        return None


class EosDriver(Driver):
    platform = 'eos'
    files = (FILE,)
    max_confirm_seconds = MAX_TIMER

    def __init__(self, device, host_vars):
        super().__init__(device, host_vars)
        self.settings = EapiSettings.from_host_vars(device, host_vars)
        self.napalm = None

    @contextlib.contextmanager
    def session(self):
        with eapi_session(self.settings) as napalm:
            self.napalm = napalm
            try:
                yield self
            finally:
                self.napalm = None

    def _call(self, step, method, *args, **kwargs):
        try:
            return getattr(self.napalm, method)(*args, **kwargs)
        except TransportError:
            raise
        except Exception as error:  # napalm and pyeapi errors: the switch's own text, no password
            text = ' '.join(str(error).split()) or type(error).__name__
            if self.settings.password:
                text = text.replace(self.settings.password, '********')
            raise TransportError(self.device, step, text) from None

    def prepare(self, files):
        running = self._call('read running config', 'get_config', retrieve='running')['running']
        self.napalm.config_session = '%s%d' % (SESSION_PREFIX, int(time.time() * 1000) % 10 ** 9)
        self._call('load candidate (configure session)', 'load_replace_candidate',
                   config=keep_eapi_ssl_profile(running, files[FILE]))
        return self._call('session diff', 'compare_config') or ''

    def discard(self):
        self._call('abort session', 'discard_config')

    def lockout_problems(self, files):
        """The address the deploy reaches the switch at must stay on its interface (Management1 unless the file gives
        it to another one), and eAPI must be enabled in the VRF the file puts that interface in (EOS User Manual,
        "Command API": `management api http-commands` / `no shutdown` serves the default VRF, `vrf <name>` / `no
        shutdown` another one): moving Management1 into a VRF without eAPI, or out of the VRF that has it, locks the
        deploy out. An access list on eAPI there must permit the address the deploy comes from."""
        text = files[FILE]
        problems = []
        addresses = {name: re.findall(r'^   ip address (\S+)$', body, re.M) for name, body in _sections(text, 'interface')}
        holder = _holder(self.settings.host, addresses) or MANAGEMENT
        if holder == MANAGEMENT:
            if not addresses.get(MANAGEMENT):
                problems.append('%s would have no address (set management.pool)' % MANAGEMENT)
            problems += address_problems(self.settings.host, MANAGEMENT, addresses.get(MANAGEMENT, []))
        vrf = _vrf_of(text, holder)
        if not _eapi_enabled(text, vrf):
            where = '' if vrf == 'default' else ' under `vrf %s`' % vrf
            problems.append('eAPI would be shut down in VRF %s, where the deploy reaches the switch (`management api '
                            'http-commands` needs `no shutdown`%s)' % (vrf, where))
        problems += self._access_group_problems(text, vrf)
        users = set(re.findall(r'^username (\S+) ', text, re.M))
        if self.settings.username not in users:
            problems.append('the deploy logs in as %s, but the configuration has no `username %s` (a replace removes '
                            'the account: list it in management.users)' % (self.settings.username, self.settings.username))
        return problems

    def _access_group_problems(self, text, vrf):
        """An ACL on eAPI in the VRF the deploy uses (management.allowed_sources) must permit the deploy's own source
        address, or the commit cuts it off (and with it the confirm)."""
        acl = _eapi_access_group(text, vrf)
        if acl is None:
            return []
        source = source_address(self.settings.host, self.settings.port or (443 if self.settings.use_ssl else 80),
                                self.host_vars)
        if source is None:
            return ['eAPI in VRF %s would take connections only from access list %s, and the address the deploy comes '
                    'from is unknown (set aifabric_deploy_source_address)' % (vrf, acl)]
        permitted = acl_permits(text, acl, source)
        if permitted is None:
            return ['eAPI in VRF %s would be bound to access list %s, which the file does not define' % (vrf, acl)]
        if not permitted:
            return ['eAPI in VRF %s would take connections only from access list %s, which does not permit %s, the '
                    'address the deploy comes from (add it to management.allowed_sources, or set '
                    'aifabric_deploy_source_address when a NAT or jump host is in between)' % (vrf, acl, source)]
        return []

    def commit(self, confirm_seconds):
        self._call('commit timer', 'commit_config', revert_in=confirm_seconds)
        self.napalm.config_session = None  # pending on the switch now: close() must not abort it

    def _pending(self):
        pending = self._call('show configuration sessions', '_get_pending_commits')
        return sorted(name for name in pending if name.startswith(SESSION_PREFIX))

    def confirm(self, files=None):
        pending = self._pending()
        if not pending:
            raise TransportError(self.device, 'confirm', 'no pending %s* commit on the switch: its commit timer ran out '
                                 'and EOS reverted it' % SESSION_PREFIX)
        self.napalm.config_session = pending[-1]
        self._call('commit (confirm) + write memory', 'confirm_commit')

    def rollback(self):
        pending = self._pending()
        if not pending:
            return False
        self.napalm.config_session = pending[-1]
        self._call('abort pending session', 'rollback')
        return True


DRIVER = EosDriver
