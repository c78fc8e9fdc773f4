# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Arista EOS: napalm's `eos` driver over eAPI, EOS configuration sessions (docs/platform-eos.md).

push: `configure session aifabric_<n>` + `rollback clean-config` + the rendered lines (napalm
load_replace_candidate), `show session-config diffs` (compare_config), `configure session ... commit timer
HH:MM:SS` (commit_config(revert_in=...)). confirm: a second `commit` of the pending session + `write memory`
(confirm_commit). rollback: `configure session ... abort` of the pending session (napalm rollback).
napalm's close() aborts the driver's open session, so after a timed commit the driver lets go of it: the pending
session lives on the switch until confirm, rollback or the timer.
"""

from __future__ import annotations

import contextlib
import re
import time

from ...deploy.contract import Driver, address_problems
from ...transport import EapiSettings, TransportError, eapi_session

SESSION_PREFIX = 'aifabric_'
FILE = 'startup-config.cfg'


class EosDriver(Driver):
    platform = 'eos'
    files = (FILE,)

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
        self.napalm.config_session = '%s%d' % (SESSION_PREFIX, int(time.time() * 1000) % 10 ** 9)
        self._call('load candidate (configure session)', 'load_replace_candidate', config=files[FILE])
        return self._call('session diff', 'compare_config') or ''

    def discard(self):
        self._call('abort session', 'discard_config')

    def lockout_problems(self, files):
        text = files[FILE]
        problems = []
        block = re.search(r'^management api http-commands\n((?:[ !].*\n)*)', text, re.M)
        if not block or not re.search(r'^   no shutdown$', block.group(1), re.M):
            problems.append('eAPI would be shut down (no `management api http-commands` with `no shutdown`)')
        interface = re.search(r'^interface Management1\n((?:   .*\n)*)', text, re.M)
        problems += address_problems(self.settings.host, 'Management1', re.findall(
            r'^   ip address (\S+)$', interface.group(1), re.M) if interface else [])
        users = set(re.findall(r'^username (\S+) ', text, re.M))
        if self.settings.username not in users:
            problems.append('the deploy logs in as %s, but the configuration has no `username %s` (a replace removes '
                            'the account: list it in management.users)' % (self.settings.username, self.settings.username))
        return problems

    def commit(self, confirm_seconds):
        self._call('commit timer', 'commit_config', revert_in=confirm_seconds)
        self.napalm.config_session = None  # pending on the switch now: close() must not abort it

    def _pending(self):
        pending = self._call('show configuration sessions', '_get_pending_commits')
        return sorted(name for name in pending if name.startswith(SESSION_PREFIX))

    def confirm(self):
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
