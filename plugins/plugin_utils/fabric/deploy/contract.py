# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The deploy contract every platform follows:

    push:     preflight -> load the candidate and diff it against the running config -> (no diff: nothing to do;
              check mode: stop here) -> lock-out guard -> commit with a confirm timer armed on the switch
    confirm:  (after the health gate) confirm, save to startup, read back: the diff must now be empty
    rollback: put the switch back to what it ran before the push, at once

A failure before the commit leaves the switch as it was (the candidate is discarded); a failure after it rolls
back at once, and when the session itself is lost, the timer on the switch reverts it. Every error is a
DeployError naming the device, the step and the switch's own text, with the state the switch is left in.
"""

from __future__ import annotations

import contextlib
import ipaddress

from . import (CONFIRMED, FAILED, PENDING_CONFIRM, REVERTING, ROLLED_BACK, UNCHANGED, WOULD_CHANGE, DeployError)
from ..platforms import registered
from ..transport import ShellSettings, TransportError, exec_session, quote, shell_session

DIFF_SHOWN = 4000  # characters of a read-back diff quoted in an error
# TimerShellDriver: what its state file says while a commit waits for its confirm, and (as a prefix) when a timer's
# revert failed; the platforms' revert scripts write the same words.
PENDING_STATE, REVERT_FAILED_STATE = 'pending', 'revert-failed'


class Driver:
    """What a platform driver implements (one connection per `session()`; state between push and confirm lives on
    the switch: a config session, a checkpoint and timer, a pending revision)."""

    platform: str | None = None
    files: tuple[str, ...] = ()  # the rendered files it deploys, e.g. ('startup-config.cfg',)
    optional_files: tuple[str, ...] = ()  # rendered files it deploys where the design has them (e.g. local users)
    max_confirm_seconds: int | None = None  # the longest confirm timer the switch can hold (None: no bound)
    # (name, what its vendor default password is) of the account a fresh switch has that a deploy only secures when
    # management.users lists it (None: the deployed configuration replaces the switch's accounts)
    default_account: tuple[str, str] | None = None
    # host variables of the platform's own that the driver reads beside the connection ones (e.g. how long a commit
    # may take); the deploy action passes them on, templated
    host_variables: tuple[str, ...] = ()

    def __init__(self, device, host_vars):
        self.device = device
        self.host_vars = host_vars
        # Where the contract is, and what the switch is left in if the step stops there (its deadline ran out).
        self.step = None
        self.outcome_if_stopped = FAILED

    def session(self):
        """Context manager: the open connection (yields self)."""
        raise NotImplementedError

    def preflight(self):
        """Refuse a switch this driver cannot deploy safely (e.g. a release without the needed commands)."""

    def prepare(self, files) -> str:
        """Load `files` as the candidate; return the diff against the running configuration ('' when equal)."""
        raise NotImplementedError

    def discard(self):
        """Drop the loaded candidate; the running configuration is untouched."""
        raise NotImplementedError

    def lockout_problems(self, files) -> list:
        """Why committing `files` would cut the deploy off from the switch (empty list: it would not)."""
        return []

    def commit(self, confirm_seconds):
        """Make the candidate the running configuration, with a timer on the switch that reverts it unless
        confirm() comes within `confirm_seconds`."""
        raise NotImplementedError

    def confirm(self, files):
        """Stop the timer and save the running configuration to startup (`files`: the rendered files, for what a
        platform sets only once the push is confirmed)."""
        raise NotImplementedError

    def rollback(self) -> bool:
        """Revert a pending (unconfirmed) commit now; False when there was none."""
        raise NotImplementedError


class ShellDriver(Driver):
    """A driver on the switch's shell over SSH (netmiko `device_type`), with a work directory for uploads that lives
    as long as the session."""

    device_type = 'linux'

    def __init__(self, device, host_vars):
        super().__init__(device, host_vars)
        self.settings = ShellSettings.from_host_vars(device, host_vars)
        self.shell = None
        self.workdir = None
        # True: each command on an SSH exec channel of its own (transport.ExecShell), not in netmiko's interactive
        # shell; what the deploy's fleet check runs, many switches at once in threads (deploy/fleet.py)
        self.exec_channels = False

    def open_shell(self):
        """Context manager: a new connection to the switch's shell (ExecShell or netmiko's, see exec_channels)."""
        return (exec_session if self.exec_channels else shell_session)(self.settings, self.device_type)

    @contextlib.contextmanager
    def session(self):
        with self.open_shell() as shell:
            # a rollback may open a second session while the first one is still set: restore it afterwards
            previous = self.shell, self.workdir
            self.shell = shell
            try:
                self.workdir = self.run('mktemp -d /tmp/aifabric-deploy.XXXXXX', 'work directory').strip().splitlines()[-1]
                yield self
            finally:
                with contextlib.suppress(TransportError):
                    shell.run('rm -rf %s' % quote(self.workdir), 'clean up', check=False)
                self.shell, self.workdir = previous

    def run(self, command, step, **kwargs):
        """The output of `command`; CommandFailed when it fails (see transport.Shell.run)."""
        return self.shell.run(command, step, **kwargs)[1]


class TimerShellDriver(ShellDriver):
    """A shell driver whose confirm timers are systemd units on the switch: `state_dir` holds the deploy's state
    (PENDING while a commit waits for its confirm, REVERT_FAILED... when a timer's revert failed), the timer units
    to stop on confirm (`units`) and the lock every change of them holds (`lock`)."""

    state_dir = ''

    def _locked(self, command):
        """`command` (a shell command line) holding the deploy's lock."""
        return 'sudo flock %s/lock sh -c %s' % (self.state_dir, quote(command))

    def _state(self):
        code, output = self.shell.run('cat %s/state 2>/dev/null' % self.state_dir, 'deploy state', check=False)
        return output.strip().splitlines()[-1].strip() if code == 0 and output.strip() else ''

    def _stop_confirm_timers(self):
        """Mark the pending commit confirmed and stop its timers, in one step under the lock; a DeployError when a
        timer's revert failed, a TransportError when no commit is pending (the timer ran out first)."""
        code, output = self.shell.run(self._locked(
            'state=$(cat %s/state 2>/dev/null); [ "$state" = %s ] || { echo "state: ${state:-none}"; exit 3; }; '
            'echo confirmed > %s/state; for unit in $(cat %s/units); do systemctl stop "$unit.timer"; done'
            % (self.state_dir, PENDING_STATE, self.state_dir, self.state_dir)), 'confirm', check=False)
        if code == 0:
            return
        found = output.strip().rsplit('state: ', 1)[-1] if 'state: ' in output else output.strip()
        if found.startswith(REVERT_FAILED_STATE):
            raise DeployError(self.device, 'confirm', 'the confirm timer ran out and its revert failed (%s): the '
                              'switch runs part of the pushed configuration' % found, FAILED)
        raise TransportError(self.device, 'confirm', 'no deploy is pending (state: %s): the confirm timer ran out '
                             'and rolled the switch back, or nothing was pushed' % found)


def address_problems(host, interface, addresses) -> list:
    """The switch is reached at `host`; after the commit `interface` has `addresses` (address/length). When `host` is an
    address of the management network the file configures but not the one it gives, the commit would cut the deploy
    off. A host name or an address outside that network (a NAT, a jump host) is not judged."""
    try:
        reached = ipaddress.ip_address(str(host))
    except ValueError:
        return []
    interfaces = [ipaddress.ip_interface(address) for address in addresses]
    if any(item.ip == reached for item in interfaces) or not any(reached in item.network for item in interfaces):
        return []
    return ['the deploy reaches the switch at %s, but the file gives %s %s' % (
        host, interface, ', '.join(str(item) for item in interfaces))]


def driver_class(platform):
    """The DRIVER class of `platform` (platforms/<platform>/deploy.py), or None."""
    found = registered().get(platform)
    return found.part('deploy').DRIVER if found is not None and found.has_part('deploy') else None


def driver_for(platform, device, host_vars) -> Driver:
    """The driver of `platform` (platforms/<platform>/deploy.py, class DRIVER) for one switch."""
    found = registered().get(platform)
    if found is None or not found.has_part('deploy'):
        raise DeployError(device, 'driver', 'aifabric.fabric has no deploy driver for platform %s' % platform)
    return found.part('deploy').DRIVER(device, host_vars)


def _as_deploy_error(error, step, outcome):
    if isinstance(error, DeployError):
        return error
    return DeployError(error.device, error.step or step, error.message, outcome)


def _at(driver, step, outcome=FAILED):
    driver.step, driver.outcome_if_stopped = step, outcome


@contextlib.contextmanager
def _steps(driver, step, outcome=FAILED):
    """Errors of the library or the switch inside become DeployError with `outcome`."""
    _at(driver, step, outcome)
    try:
        yield
    except TransportError as error:
        raise _as_deploy_error(error, step, outcome) from None


def _discarding_on_error(driver, step, method, *args):
    """method(*args); on an error the candidate is dropped first (the running configuration was never touched)."""
    _at(driver, step)
    try:
        return method(*args)
    except TransportError as error:
        with contextlib.suppress(TransportError):
            driver.discard()
        raise _as_deploy_error(error, step, FAILED) from None


def push(driver, files, check_mode=False, confirm_seconds=300) -> dict:
    """{'outcome', 'diff', 'changed'}; DeployError when the push fails (see the module docstring)."""
    if driver.max_confirm_seconds is not None and confirm_seconds > driver.max_confirm_seconds:
        raise DeployError(driver.device, 'confirm timer', 'a %s switch holds a confirm timer of at most %d s, got %d s: '
                          'lower confirm_timeout' % (driver.platform, driver.max_confirm_seconds, confirm_seconds))
    with _steps(driver, 'connect'), driver.session():
        with _steps(driver, 'preflight'):
            driver.preflight()
        diff = _discarding_on_error(driver, 'load candidate', driver.prepare, files)
        if not diff.strip() or check_mode:
            with _steps(driver, 'discard candidate'):
                driver.discard()
            return {'outcome': WOULD_CHANGE if diff.strip() else UNCHANGED, 'diff': diff, 'changed': bool(diff.strip())}
        problems = _discarding_on_error(driver, 'lock-out guard', driver.lockout_problems, files)
        if problems:
            with _steps(driver, 'discard candidate'):
                driver.discard()
            raise DeployError(driver.device, 'lock-out guard', 'refusing to commit a configuration that would cut '
                              'the operator off: %s' % '; '.join(problems))
        _at(driver, 'commit', REVERTING)  # stopped during the commit: the switch's confirm timer reverts it
        try:
            driver.commit(confirm_seconds)
        except DeployError:
            raise
        except TransportError as error:
            raise _after_failed_commit(driver, error, confirm_seconds) from None
        return {'outcome': PENDING_CONFIRM, 'diff': diff, 'changed': True}


def _after_failed_commit(driver, error, confirm_seconds):
    """Roll back at once (on a new session when the switch cut this one); failing that, the switch's timer does."""
    reasons = []
    for attempt in (_same_session, _new_session):
        try:
            reverted = attempt(driver)
        except DeployError as rollback_error:
            if rollback_error.outcome != FAILED:
                reasons.append(rollback_error.message)
                continue
            # the switch tried to revert and could not: no timer will do better
            return DeployError(driver.device, error.step, '%s; the rollback failed: %s' % (
                error.message, rollback_error.message), FAILED)
        except TransportError as rollback_error:
            reasons.append(rollback_error.message)
            continue
        return DeployError(driver.device, error.step, error.message + (' (rolled back)' if reverted else ''),
                           ROLLED_BACK if reverted else FAILED)
    return DeployError(driver.device, error.step, '%s; the rollback failed too (%s): the switch reverts by itself '
                       'when its %d s confirm timer runs out' % (error.message, reasons[-1], confirm_seconds), REVERTING)


def _same_session(driver):
    return driver.rollback()


def _new_session(driver):
    with driver.session():
        return driver.rollback()


def confirm(driver, files) -> dict:
    """Confirm the pending commit, save it, and prove the running configuration is the rendered one."""
    with _steps(driver, 'connect', REVERTING), driver.session():
        with _steps(driver, 'confirm', REVERTING):
            driver.confirm(files)
        with _steps(driver, 'read back', CONFIRMED):
            diff = driver.prepare(files)
            driver.discard()
        if diff.strip():
            raise DeployError(driver.device, 'read back', 'the running configuration differs from the rendered one '
                              'after the confirm:\n%s' % diff[:DIFF_SHOWN], CONFIRMED)
    return {'outcome': CONFIRMED, 'changed': True}


def rollback(driver) -> dict:
    """Revert a pending commit now (a batch whose health gate failed)."""
    with _steps(driver, 'connect', REVERTING), driver.session():
        with _steps(driver, 'rollback', REVERTING):
            reverted = driver.rollback()
    return {'outcome': ROLLED_BACK if reverted else UNCHANGED, 'changed': reverted}
