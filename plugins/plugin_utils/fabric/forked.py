# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Shares of one piece of work done in processes forked from this one, each answering on a pipe of its own.

A fleet's reading and its judging each run on one core per process (Python's interpreter lock). Forked, each process
has what this one made before (the design, the parsed state) as it is, without sending it, and sends back only its
answer. Used by the fleet reading (checks/live.py) and the judging step (checks.judge).
"""

from __future__ import annotations

import contextlib
import os
import select
import signal


def processes_for(requested: int, items: int, share: int) -> int:
    """How many processes share `items`: `requested`, or with 0 one per CPU core of this machine, at most one per
    `share` items (never more processes than items, never fewer than one)."""
    if requested > 0:
        return max(1, min(requested, items))
    return max(1, min(os.cpu_count() or 1, items // share))


def shares_of(items, count) -> list:
    """`items` cut into `count` runs that follow each other (a share's results come in the order one process gives)."""
    size, extra = divmod(len(items), count)
    shares, start = [], 0
    for index in range(count):
        end = start + size + (1 if index < extra else 0)
        shares.append(items[start:end])
        start = end
    return shares


def forked(jobs, work):
    """(index, answer) of `work(job)` (bytes) for each of `jobs`, each run in a process forked from this one, yielded
    as each process ends; an empty answer is a process that ended without one (it failed or was killed). When the
    caller stops early (an answer it cannot use, an error), the processes still running are killed at once: they hold
    nothing to clean up, what they made is the caller's to remove."""
    children = {}  # the pipe its answer comes on -> (index, pid)
    try:
        for index, job in enumerate(jobs):
            readable, writable = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: works, answers, and never returns into the caller
                os.close(readable)
                _answer(work, job, writable)
            os.close(writable)
            children[readable] = (index, pid)
        received = {pipe: [] for pipe in children}
        while received:
            for pipe in select.select(list(received), [], [])[0]:
                chunk = os.read(pipe, 1 << 20)
                if chunk:
                    received[pipe].append(chunk)
                    continue
                answer = b''.join(received.pop(pipe))
                os.close(pipe)
                index, pid = children.pop(pipe)
                os.waitpid(pid, 0)
                yield index, answer
    finally:
        for pipe, (_index, pid) in children.items():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.close(pipe)
            with contextlib.suppress(OSError):
                os.waitpid(pid, 0)


def _answer(work, job, writable):
    """A forked process's whole life: its answer written whole, then os._exit (nothing of the parent's, neither
    buffers nor handlers, runs twice). An exception leaves the answer empty: `work` says what went wrong itself."""
    try:
        answer = work(job)
        with os.fdopen(writable, 'wb') as pipe:
            pipe.write(answer)
    finally:
        os._exit(0)  # pylint: disable=protected-access


__all__ = ['forked', 'processes_for', 'shares_of']
