# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reading a live device until it settles, and a whole fabric at once.

`DeviceReading` is what reading one device takes and what it gives the validate action: its gatherer and commands
(from the design), the settling rules (read again every `settle_interval` s until its own checks pass, fail the same
way for `settle_stable` s, or `settle_timeout` runs out), the counter readings (two, `health_interval` s apart, for
rates) and the result. It holds no connection: the caller reads.

- One device per Ansible task (aifabric.fabric.validate_gather on each host): the action reads through the task's
  connection and sleeps between readings (`DeviceReading.after()` says how long).
- A fleet reading (`read_fleet()`): the controller reads every device of a list from one event loop, each through its
  platform's reader with a connection of the controller's own kept for all its readings (`reader.session()`: one
  SSH connection, or one HTTPS connection to eAPI), at most `concurrency` devices in flight. Each reading of a device
  has its own wall-clock deadline (`timeout`): a device that stops answering is unreadable in that reading, its
  error names it, and the other devices go on. What a reader cannot do from the controller (an Ansible module, a
  connection other than SSH) is ReadFailed: that device is left to the per-host path and listed as such.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import datetime
import functools
import json
import os
import re
import time

from .. import checks
from ..state import StateError
from ..state.gatherer import COUNTERS, SECOND, TIMES, UNREADABLE
from ..state.reader import ReadFailed, Target
from ..state.sources import gatherer_for
from ..forked import forked, processes_for
from ..transport import TransportError
from . import anta_catalog, catalog
from .gathered import GatheredWriter

COMMAND_TIMEOUT = 30  # seconds each command may take on the device
# Connections a fleet reading makes at once. A key exchange (SSH) or TLS handshake (eAPI) costs the controller CPU
# between its round trips, in the one event loop: hundreds begun together each wait on all the others and end past
# their deadline, so healthy devices read as unreadable (a reading of the 16k fabric's 3,328 doubles on 2 cores with
# 256 in flight: 552 devices "SSH connection ... failed: no answer within 20 s"). A connection's deadline starts
# when its turn comes. Too few at once caps the reading instead: a handshake is a dozen round trips, each waiting on
# two busy event loops (the device's, this one's), about 2 s at fabric scale whatever its CPU, so 16 at once in each
# of two processes connected 16 devices a second and the 3,328 devices waited 9 s each for their turn (2026-12-03).
HANDSHAKES = 64


def wall_clock() -> float:
    """Unix time of a reading, for the report (the counter readings keep their own time.time() stamps)."""
    return datetime.datetime.now(datetime.timezone.utc).timestamp()


def prints(open_results) -> dict:
    """{result key: what is wrong with it, as a comparable value}: each failing result with the facts it observed, as
    parsed state (a must_pass key stands for itself). Never their words: an error's text may carry a time stamp
    (lldpcli's "2026-12-02T01:10:45 [WARN/control] unable to connect..."), a ping's the kernel's ARP state of the
    moment."""
    return {item if isinstance(item, str) else item.key(): item if isinstance(item, str) else item.fingerprint()
            for item in open_results}


def fingerprint(open_results):
    """What is wrong with a device, as one comparable value (prints() of all its open results)."""
    return _as_one(prints(open_results))


def _as_one(wrong) -> tuple:
    return tuple(sorted(wrong.values(), key=repr))


def named_devices(item, names, peers) -> set:
    """The devices of the design a result names: its own, the peers its subject or link mentions, and the peer of
    an interface of the device it names (`peers`: {interface: peer} from the design)."""
    words = set(re.split(r'[\s:,;()\[\]]+', '%s %s' % (item.subject, item.link or '')))
    return ({item.device} | words | {peers[word] for word in words if word in peers}) & names


def open_results(results, must_pass, deployed=None, names=frozenset(), peers=None):
    """What keeps the device from settling: every failed or errored check; with `must_pass`, those of them (and any
    of them no longer reported at all); with `deployed` (the devices whose configuration is in place), also every
    failed or errored check about the device itself or its deployed direct neighbours (its own sessions, interfaces
    and VNIs), passed before or not. A check that names a device further away (a remote VTEP) also depends on the
    switches between them, which may not be deployed yet: it counts only through `must_pass`."""
    problems = [item for item in results if item.status in (checks.FAIL, checks.ERROR)]
    if must_pass is None and deployed is None:
        return problems
    passed = {item.key() for item in results if item.status == checks.PASS}
    wanted = set(must_pass or ()) - passed
    if deployed is not None:
        neighbours = set(deployed) & set((peers or {}).values())
        wanted |= {item.key() for item in problems
                   if named_devices(item, names, peers or {}) <= neighbours | {item.device}}
    return sorted(wanted)


@dataclasses.dataclass(frozen=True)
class Settings:
    """How devices are read (validate_gather's options)."""

    settle_timeout: int = 0
    settle_interval: int = 5
    settle_stable: int = 0
    ping_peers: int = 0
    rnic: bool = True
    parallel: int = 8
    max_loss_percent: int = 34
    health_interval: int = 0
    counters: bool = True
    must_pass: tuple | None = None
    timeout: int = 120
    deployed: tuple | None = None


@functools.lru_cache(maxsize=8)
def node_names(design) -> frozenset:
    """The design's device names (made once per design: a fleet reading judges thousands of devices on it)."""
    return frozenset(design.nodes)


def options_of(settings: Settings) -> dict:
    return {'ping_peers': settings.ping_peers, 'max_loss_percent': settings.max_loss_percent}


def base_context(design, settings: Settings):
    """The design's context a fleet reading shares between its devices, with its fabric-wide maps made up front."""
    ctx = checks.Context(design, {}, options_of(settings))
    catalog.rail_members(ctx)
    catalog.rail_order(ctx)
    catalog.vni_vteps(ctx)
    ctx.links()
    return ctx


class DeviceReading:
    """One device's reading and settling (see the module docstring)."""

    def __init__(self, design, device, settings: Settings, base=None):
        """`base`: the design's context (checks.Context without states) of the fleet this device is read with: its
        models and fabric-wide maps are made once for the fleet (base_context())."""
        self.design, self.device, self.settings = design, device, settings
        self.options = options_of(settings)
        ctx = self.base = base if base is not None else checks.Context(design, {}, self.options)
        self.model = ctx.model(device)
        self.gatherer = gatherer_for(self.model)
        self.probe = catalog.probe_duties(ctx, self.model)
        plan = {'pings': catalog.ping_targets(ctx, self.model, settings.ping_peers), 'rnic': settings.rnic}
        if self.gatherer.provides(anta_catalog.ANTA_KEY) and self.model['role'] in anta_catalog.SWITCHES:
            plan['anta'] = anta_catalog.eapi_commands(ctx, self.model)  # the outputs ANTA's tests read, same connection
        commands = self.gatherer.commands(self.model, plan)
        self.state_commands = [(key, command) for key, command in commands if key != COUNTERS]
        self.counter_commands = [(key, command) for key, command in commands if key == COUNTERS and settings.counters]
        self.peers = {item['name']: item['peer'] for item in self.model.get('interfaces') or [] if item.get('peer')}
        self.attempt, self.same_since, self.fingerprint, self.outcome = 0, None, None, 'once'
        self.first_count = None  # (output, time) of the counters read with the first reading (counts_first)
        self.prints, self.steady = {}, []  # each open result's fingerprint; those unchanged since the last reading
        self.raw, self.results, self.open, self.read_at = {}, [], [], None
        self.start_clock()

    def start_clock(self):
        """The device's settling time starts now (a fleet reading starts it when the device's first connection has
        been tried, not while it waits its turn among the fleet's: that wait is not the device's)."""
        self.started_at, self.started = wall_clock(), time.monotonic()
        self.deadline = self.started + self.settings.settle_timeout
        self.now = self.started

    def target(self, variables, connection=None) -> Target:
        return Target(self.device, variables, connection, COMMAND_TIMEOUT, self.settings.parallel)

    def after(self, raw):
        """Take one reading of the state; None when the device is done (settled, stable, unreadable or out of time),
        else the seconds to wait before reading again."""
        settings = self.settings
        self.attempt += 1
        self.raw = raw
        self.read_at, self.now = wall_clock(), time.monotonic()
        wait = max(settings.settle_interval, 1)
        if raw.get(UNREADABLE) and self.now + settings.settle_interval <= self.deadline:
            # read again until the time is up (a switch busy applying a push, a dropped session); nothing to judge
            # meanwhile (each check would say the device could not be read), and nothing kept while it waits
            self.results, self.open = [], []
            return wait
        ctx = checks.Context(self.design, {self.device: raw}, self.options, shared=self.base)
        self.results = checks.run(ctx, devices=[self.device], categories=('fabric',), local_only=True)
        self.open = open_results(self.results, settings.must_pass, settings.deployed, node_names(self.design),
                                 self.peers)
        if raw.get(UNREADABLE):
            self.outcome = 'unreadable'
            return None
        if not self.open:
            self.outcome = 'settled'
            return None
        now_wrong = prints(self.open)
        current = _as_one(now_wrong)
        if current != self.fingerprint:
            self.fingerprint, self.same_since = current, self.now
        # A device still changing at its deadline may also hold a failure that did not change (a wrong MTU beside a
        # flapping BFD session): that one is a finding, not convergence (the judging step keeps it apart).
        self.steady = sorted(key for key, value in now_wrong.items() if self.prints.get(key) == value)
        self.prints = now_wrong
        if settings.settle_stable and self.attempt > 1 and self.now - self.same_since >= settings.settle_stable:
            self.outcome = 'stable'  # failing the same way for settle_stable seconds: wrong, not converging
            return None
        if self.now + settings.settle_interval > self.deadline:
            # at the deadline: still changing since the last read, or never judged stable (one read only)
            changing = self.now - self.same_since < settings.settle_interval
            self.outcome = 'once' if self.attempt == 1 else ('changing' if changing else 'stable')
            return None
        return wait

    def counts_first(self) -> bool:
        """Whether the counters are read now, with the device's first reading: the window of the rates (two readings
        `health_interval` s apart) then spans that reading instead of following it, and a device that settles at
        once waits only what is left of the interval. A device that needs more readings drops that first count and
        opens the window once settled (the rates are those of the settled device)."""
        return self.attempt == 0 and bool(self.counter_commands) and self.settings.health_interval > 0

    def keep_first_count(self, counted, at):
        """Keep the counters read with the first reading (at `at`); returns what the reading of the state is when the
        device did not answer them (it is not read a second time to find out), else None."""
        self.first_count = (counted.get(COUNTERS), at)
        return counted if UNREADABLE in counted else None

    def counted_first(self) -> tuple | None:
        """(output, time) of the first count when it opens the counters' window, that is when the device settled at
        the reading it came with; None when the window opens now."""
        kept = self.first_count
        return kept if self.attempt == 1 and kept is not None and kept[0] is not None else None

    def wants_counters(self) -> bool:
        return bool(self.counter_commands) and not self.raw.get(UNREADABLE)

    def second_counters(self, first) -> bool:
        """Whether the counters are read again (rates): a health interval is set and the device has something to
        count (a server without RDMA NIC has not)."""
        if self.settings.health_interval <= 0:
            return False
        try:
            return not bool(self.gatherer.parse(COUNTERS, first).get('not_applicable'))
        except StateError:
            return True  # unreadable: read again anyway, the checks report the error

    def add_counters(self, first, first_at, second=None, second_at=None):
        self.raw[COUNTERS] = first
        times = {COUNTERS: first_at}
        if second_at is not None:
            self.raw[COUNTERS + SECOND] = second
            times[COUNTERS + SECOND] = second_at
        self.raw[TIMES] = times

    def result(self, mask, judged=True) -> dict:
        """What validate_gather returns for the device (`mask`: hides password hashes in the raw state); without
        `judged`, only what the judging step takes (a fleet reading's spool): not this reading's own check results."""
        now = self.now
        found = {
            'changed': False, 'device': self.device, 'fabric': self.design.name, 'platform': self.gatherer.platform,
            'state': mask(self.raw),  # running configurations carry the users' password hashes (shown at -v)
            'attempts': self.attempt, 'seconds': round(time.monotonic() - self.started, 1),
            'started_at': self.started_at, 'read_at': self.read_at, 'settled': self.outcome == 'settled',
            'convergence': {'outcome': self.outcome, 'deadline': self.settings.settle_timeout, 'reads': self.attempt,
                            'seconds': round(now - self.started, 1),
                            'unchanged_for': round(now - self.same_since, 1) if self.same_since is not None else None,
                            # the failures ('<check> <subject>') the last two readings saw the same
                            'steady': self.steady if self.outcome == 'changing' else []},
            # This device's part in the data-plane marking probe the validate role runs next (send or capture).
            'probe': self.probe,
        }
        if judged:
            found.update({
                'passed': sorted(item.key() for item in self.results if item.status == checks.PASS),
                'open_checks': [item if isinstance(item, str) else item.key() for item in self.open],
                'summary': checks.summary(self.results)['counts'],
                'check_results': [item.to_dict() for item in self.results],
            })
        return found


# -- a fleet reading --------------------------------------------------------------------------------------------------
async def _read_once(reading, target, commands, step):
    """{key: output} of one reading within the device's deadline; {UNREADABLE: why} when it cannot be read."""
    try:
        return await asyncio.wait_for(reading.gatherer.read_async(target, commands), reading.settings.timeout)
    except asyncio.TimeoutError:
        return {UNREADABLE: '%s: %s failed: no answer within %d s' % (reading.device, step, reading.settings.timeout)}
    except ReadFailed:
        raise
    except TransportError as error:
        return {UNREADABLE: str(error)}


async def _connect(reading, target, handshakes=None):
    """(session, connection, None) or (None, None, why): the controller's own connection to the device, within its
    deadline, which starts once `handshakes` (the connections being made at once) lets it begin. ReadFailed (a
    setting this reader cannot take) goes to the caller."""
    session = reading.gatherer.reader.session(target)
    try:
        async with handshakes or contextlib.nullcontext():
            connection = await asyncio.wait_for(session.__aenter__(), reading.settings.timeout)
    except asyncio.TimeoutError:
        return None, None, '%s: connecting failed: no answer within %d s' % (reading.device, reading.settings.timeout)
    except ReadFailed:
        raise
    except TransportError as error:
        return None, None, str(error)
    return session, connection, None


async def read_device(reading: DeviceReading, variables, mask, handshakes=None, judged=True, place=None):
    """Read one device until it settles, and its counters twice `health_interval` s apart around that (the first
    with its first reading, or once it settled when it needed more), through one connection of the controller's own
    (made again for the next reading when it could not be made or was lost; `handshakes`: a semaphore bounding the
    connections being made at once; `place`: the fleet's Places, one of which the caller holds for this device, given
    up while the device waits to try again after it could not be read)."""
    target = reading.target(variables)
    session = None

    async def read(commands, step):
        # masked as it enters, as the per-host path does: parse errors quote device text (check_results, -v)
        return mask(await _read_once(reading, target, commands, step))

    try:
        while True:
            if session is None:
                session, connection, failure = await _connect(reading, target, handshakes)
                target = dataclasses.replace(target, connection=connection)
                if reading.attempt == 0:
                    reading.start_clock()  # a connection that failed is tried again within the device's own time
            raw = mask({UNREADABLE: failure}) if failure else None
            if raw is None and reading.counts_first():  # a fleet's devices hold their place while they wait
                at = time.time()
                raw = reading.keep_first_count(await read(reading.counter_commands, 'read counters'), at)
            if raw is None:
                raw = await read(reading.state_commands, 'read state')
            if UNREADABLE in raw and session is not None:
                await _close(session)  # a lost or hung connection is not used again
                session = None
            wait = reading.after(raw)
            if wait is None:
                break
            if session is None and place is not None:
                await _wait_away(place, wait)
            else:
                await asyncio.sleep(wait)
        if reading.wants_counters():
            counted = reading.counted_first()
            if counted is None:
                first_at = time.time()
                first = (await read(reading.counter_commands, 'read counters')).get(COUNTERS)
            else:
                first, first_at = counted
            if reading.second_counters(first):
                await asyncio.sleep(max(0.0, first_at + reading.settings.health_interval - time.time()))
                second_at = time.time()
                second = (await read(reading.counter_commands, 'read counters again')).get(COUNTERS)
                reading.add_counters(first, first_at, second, second_at)
            else:
                reading.add_counters(first, first_at)
    finally:
        if session is not None:
            await _close(session)
    return reading.result(_as_read, judged)


class Places:
    """The places of a fleet reading: at most `count` devices in flight. A device back from waiting to try again
    (_wait_away) takes the next place that frees before any device not begun yet: its settling time runs (behind the
    fleet's queue it would try again long after its deadline)."""

    def __init__(self, count):
        self.free = count
        self.back, self.new = collections.deque(), collections.deque()  # futures of the devices waiting for a place

    async def take(self, back=False):
        if self.free > 0 and not self.back and not self.new:
            self.free -= 1
            return
        waiter = asyncio.get_running_loop().create_future()
        (self.back if back else self.new).append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.give()  # given to this device as it was cancelled: the next one has it
            else:
                with contextlib.suppress(ValueError):  # give() may have passed over it already
                    (self.back if back else self.new).remove(waiter)
            raise

    def give(self):
        for queue in (self.back, self.new):
            while queue:
                waiter = queue.popleft()
                if not waiter.done():
                    waiter.set_result(None)
                    return
        self.free += 1


async def _wait_away(place, seconds):
    """Wait with the device's place in the fleet given up: it holds no connection and nothing it read (it could not
    be read), so a device waiting for its first turn takes it meanwhile (a fabric of unreachable devices would
    otherwise be read `concurrency` at a time, each for its whole settling time). It has the next place that frees
    when it is back (Places)."""
    place.give()
    try:
        await asyncio.sleep(seconds)
    finally:
        await place.take(back=True)


def _as_read(raw):
    return raw  # masked as it was read


async def _close(session):
    try:
        await asyncio.wait_for(session.__aexit__(None, None, None), 10)
    except (asyncio.TimeoutError, OSError, TransportError):
        pass


async def read_fleet(design, devices, variables, settings: Settings, mask, concurrency=256, sink=None, base=None):
    """{'devices': {device: validate_gather's result}, 'per_host': {device: why}} for every device of `devices`, at
    most `concurrency` devices in flight (reading, or waiting to read again); `variables(device, reader)` gives a device's connection variables (those
    its reader reads). A device whose reading needs what only Ansible's per-host path does (an Ansible module, a
    connection the reader cannot make as Ansible would) is left out, under `per_host` with the reason. With `sink`,
    each device's result goes to sink(device, result) as it comes and `devices` keeps only its probe duties. `base`:
    the design's context (base_context()) when the caller made it already."""
    gate = Places(max(1, concurrency))
    handshakes = asyncio.Semaphore(HANDSHAKES)
    found, per_host = {}, {}
    base = base if base is not None else base_context(design, settings)

    async def one(device):
        # a device holds its place while it waits to read again (settling, the health interval): what it read waits
        # with it, so `concurrency` bounds the memory as well as the connections (one that could not be read holds
        # neither: it gives its place up while it waits, _wait_away)
        await gate.take()
        try:
            reading = DeviceReading(design, device, settings, base)
            try:
                result = await read_device(reading, variables(device, reading.gatherer.reader), mask, handshakes,
                                           judged=sink is None, place=gate)
            except ReadFailed as error:
                per_host[device] = error.message
                return
        finally:
            gate.give()
        if sink is None:
            found[device] = result
        else:  # handed on as it comes, then only what the caller needs of it is kept
            sink(device, result)
            found[device] = {'probe': result.get('probe')}

    await asyncio.gather(*(one(device) for device in devices))
    return {'devices': found, 'per_host': per_host}


# -- a fleet reading in several processes -----------------------------------------------------------------------------
# Devices a reader process takes at least when their number is chosen (processes=0): one event loop keeps 256 devices
# in flight (the default concurrency), and a process of fewer would not pay for itself.
FLEET_SHARE = 256


def reader_processes(requested: int, devices: int) -> int:
    """How many processes read a fleet of `devices`: `requested`, or with 0 one per CPU core of this controller, at
    most one per FLEET_SHARE devices (never more processes than devices)."""
    return processes_for(requested, devices, FLEET_SHARE)


def read_fleet_split(design, devices, variables, settings: Settings, mask, concurrency, spool, processes):
    """read_fleet() with a sink, in `processes` processes forked from this one: each reads its share of the devices
    (every `processes`-th, so each has the fabric's mix of platforms and roles) on an event loop of its own with its
    share of `concurrency`, and writes its readings to a part of `spool` (a GatheredWriter being written), joined to
    it when the process ends. One event loop is one core: at fabric scale it parses, masks and writes every reading
    (the 16k fabric's 3,328 devices, 1.6 GB) and the devices wait on it. Returns what read_fleet returns with a sink.
    A process that fails fails the reading, naming why; the others are stopped and every part is removed."""
    if processes <= 1 or len(devices) <= 1:
        return asyncio.run(read_fleet(design, devices, variables, settings, mask, concurrency, sink=spool.add))
    base = base_context(design, settings)  # made once, before the fork: each process has it as it is
    shares = [devices[index::processes] for index in range(processes)]
    parts = ['%s.part%d' % (spool.temporary, index) for index in range(processes)]
    each = max(1, -(-concurrency // processes))
    found: dict = {'devices': {}, 'per_host': {}}

    def read_share(index):
        return _read_share(design, shares[index], variables, settings, mask, each, base, parts[index])

    try:
        for index, answer in forked(range(processes), read_share):  # as each process ends
            message: dict
            try:
                message = json.loads(answer) if answer else {
                    'error': 'reader process %d ended without an answer (killed?)' % index}
            except ValueError:
                message = {'error': 'reader process %d answered what is not JSON' % index}
            if 'error' in message:
                raise FleetReadError(message['error'])  # the others are stopped: their reading is not wanted
            spool.join(parts[index], message['count'])
            found['devices'].update(message['found']['devices'])
            found['per_host'].update(message['found']['per_host'])
    finally:
        for part in parts:  # a joined part is gone already
            with contextlib.suppress(FileNotFoundError):
                os.remove(part)
    return found


class FleetReadError(RuntimeError):
    """A reader process of a split fleet reading failed (said with why)."""


def _read_share(design, share, variables, settings, mask, concurrency, base, part) -> bytes:
    """A reader process's share read into its part of the spool; its answer, {found, count} or {error}, as JSON."""
    try:
        with GatheredWriter(part, design.name, part=True) as out:
            read = asyncio.run(read_fleet(design, share, variables, settings, mask, concurrency, sink=out.add,
                                          base=base))
        message = {'found': read, 'count': out.count}
    except BaseException as error:  # pylint: disable=broad-exception-caught
        # masked: an error may quote device text
        message = {'error': mask('reader process %d: %s: %s' % (os.getpid(), type(error).__name__, error))}
    return json.dumps(message).encode('utf-8')


__all__ = ['DeviceReading', 'Settings', 'base_context', 'read_device', 'read_fleet', 'read_fleet_split',
           'reader_processes', 'FleetReadError', 'fingerprint', 'prints', 'open_results',
           'named_devices', 'wall_clock', 'COMMAND_TIMEOUT', 'HANDSHAKES']
