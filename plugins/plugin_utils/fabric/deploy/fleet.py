# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The deploy's check mode for many switches at once from one controller process (switch_deploy_runner: fleet).

Each switch runs the contract's own check (contract.push with check_mode: preflight -> prepare, the diff -> discard)
through its platform's driver, unchanged: the diff is the driver's, as on the per-host path. What differs is only how
the driver reaches the switch: a shell driver runs each command on an SSH exec channel of its own
(transport.ExecShell: no terminal, no prompt, exit status from SSH, uploads over SFTP) instead of netmiko's
interactive shell, and nothing waits on the main thread's SIGALRM, so `concurrency` switches run at once in a thread
pool. EOS runs napalm over eAPI as on the per-host path.

Every switch has its own deadline (`timeout` seconds from when its turn comes): past it, the switch is an error naming
it and the step it was in, its connection is dropped (a blocked command then fails at once) and the others go on.
A switch whose library still waits (napalm's eAPI request, up to ansible_command_timeout) is let go: its thread ends
when that library's own timeout does, and what it returns then is not used.

Why threads and the drivers as they are, not an asyncio path: docs/deploy.md ("Check mode at fabric size") has the
measurement.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import threading
import time

from . import FAILED, DeployError
from . import contract
from ..transport import TransportError

POLL_S = 0.5  # how often the coordinator looks for switches past their deadline


def _error(device, step, message):
    return {'outcome': FAILED, 'changed': False, 'failed_step': step, 'error': DeployError(device, step, message)}


def _check_one(driver, files):
    """contract.push in check mode on one switch: {'outcome', 'diff', 'changed'} or an error result."""
    try:
        return contract.push(driver, files, check_mode=True)
    except TransportError as error:  # DeployError too: the contract names the step
        return {'outcome': getattr(error, 'outcome', FAILED), 'changed': False, 'failed_step': error.step,
                'error': error}
    except Exception as error:  # pylint: disable=broad-except
        # a driver's bug on one switch must not stop the others: said with the device and the step it was in
        return _error(driver.device, driver.step or 'check', '%s: %s' % (type(error).__name__, error))


def _drop_connection(driver):
    """Close the switch's connection from the coordinator (ExecShell.close: a blocked run or upload fails at once)."""
    shell = getattr(driver, 'shell', None)
    if shell is not None and hasattr(shell, 'close'):
        with contextlib.suppress(Exception):
            shell.close()


def check(switches, concurrency=32, timeout=600, done=None) -> dict:
    """{device: result} for every (device, driver, files) of `switches`; a result is contract.push's in check mode
    ({'outcome': 'would_change' | 'unchanged', 'diff', 'changed'}) or {'outcome': 'failed', 'failed_step', 'error'
    (a TransportError naming the device and the step)}. At most `concurrency` switches at once, each within its own
    `timeout` seconds; `done(device, result)` is called as each one ends (in the coordinator's thread)."""
    results = {}
    started = {}  # device: monotonic time its thread began
    lock = threading.Lock()
    drivers = {}

    def run(device, driver, files):
        with lock:
            started[device] = time.monotonic()
        if isinstance(driver, contract.ShellDriver):
            driver.exec_channels = True
        return _check_one(driver, files)

    pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix='deploy-check')
    try:
        pending = {}
        for device, driver, files in switches:
            drivers[device] = driver
            pending[pool.submit(run, device, driver, files)] = device
        while pending:
            finished, _running = concurrent.futures.wait(pending, timeout=POLL_S,
                                                         return_when=concurrent.futures.FIRST_COMPLETED)
            for future in finished:
                device = pending.pop(future)
                results[device] = future.result()
                if done:
                    done(device, results[device])
            now = time.monotonic()
            with lock:
                late = [(future, device) for future, device in pending.items()
                        if device in started and now - started[device] > timeout]
            for future, device in late:
                del pending[future]
                driver = drivers[device]
                step = driver.step or 'connect'
                results[device] = _error(device, step, 'no answer within %d s (the per-switch deadline, option '
                                         'timeout)' % timeout)
                _drop_connection(driver)
                if done:
                    done(device, results[device])
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    return results


__all__ = ['check']
