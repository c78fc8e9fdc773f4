# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet reading's scheduling (checks/live.py read_fleet): what it does with many devices at once, whatever the
transport. The readers against real device doubles are tests/doubles/test_fleetd.py."""

from __future__ import annotations

import asyncio
import time

from tests.unit.plugins.plugin_utils.fabric.state.captures import INTENT
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import live
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.gatherer import UNREADABLE
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.transport import TransportError

KEY_EXCHANGE_STEPS = 4  # round trips of a handshake, each followed by controller CPU (key exchange, signatures)
KEY_EXCHANGE_CPU = 0.005  # seconds of the controller's CPU per step, in the event loop


class Handshake:
    """A connection whose making costs the controller CPU between round trips, as asyncssh's key exchange or a TLS
    handshake does: the event loop is busy (time.sleep, not asyncio.sleep) for the other devices too."""

    made = 0

    async def __aenter__(self):
        for _step in range(KEY_EXCHANGE_STEPS):
            await asyncio.sleep(0)  # the device's answer
            time.sleep(KEY_EXCHANGE_CPU)
        Handshake.made += 1
        return self

    async def __aexit__(self, *_exc):
        return None


def test_healthy_devices_connected_all_at_once_are_not_read_as_unreadable(monkeypatch):
    """Many connections begun at once share the controller's CPU: each handshake ends only when nearly all have, past
    a deadline that a single one meets by far (the 16k fabric's fault-free fleet read 552 devices as unreadable,
    "SSH connection ... failed: no answer within 20 s"). A connection's deadline counts from its turn."""
    design = design_from_file(INTENT)
    devices = sorted(design.nodes)
    gatherers = [live.DeviceReading(design, name, live.Settings()).gatherer for name in devices]
    for reader in {type(gatherer.reader) for gatherer in gatherers}:
        monkeypatch.setattr(reader, 'session', lambda self, target: Handshake())
    for gatherer in {type(gatherer) for gatherer in gatherers}:
        monkeypatch.setattr(gatherer, 'read_async', _read_nothing)
    # The deadline from what one handshake takes on this machine now (a loaded machine stretches every step): a
    # connection that shares the event loop with the others of its turn meets it four times over, and all the
    # connections together take far longer than it.
    alone = 0.0
    for _sample in range(5):
        started = time.monotonic()
        asyncio.run(Handshake().__aenter__())
        alone = max(alone, time.monotonic() - started)
    settings = live.Settings(timeout=max(1.0, 4 * live.HANDSHAKES * alone), counters=False, rnic=False)
    repeat = int(3 * settings.timeout / (alone * len(devices))) + 1  # each device many times over, as at fabric size
    assert len(devices) * repeat * alone > 2 * settings.timeout  # begun all at once, the last would miss it
    Handshake.made = 0
    unreadable = []

    def sink(device, result):
        if UNREADABLE in result['state']:
            unreadable.append((device, result['state'][UNREADABLE]))

    found = asyncio.run(live.read_fleet(design, devices * repeat, lambda name, reader: {}, settings, lambda raw: raw,
                                        concurrency=256, sink=sink))
    assert not found['per_host']
    assert not unreadable, (len(unreadable), unreadable[:3])
    assert Handshake.made == len(devices) * repeat


async def _read_nothing(self, target, commands):  # pylint: disable=unused-argument
    return {}


class RefusedOnce:
    """Connections made one after another, each taking a little wall time; the one tried `failing`-th fails (a double
    busy serving the others), every other is made."""

    tried = 0

    def __init__(self, failing):
        self.failing = failing

    async def __aenter__(self):
        await asyncio.sleep(0.05)
        RefusedOnce.tried += 1
        if RefusedOnce.tried == self.failing:
            raise TransportError('device', 'connect', 'no answer within 20 s')
        return self

    async def __aexit__(self, *_exc):
        return None


def test_a_device_waiting_its_turn_to_connect_keeps_its_own_settling_time(monkeypatch):
    """A device's settling time starts when its first connection has been tried, not while it waits behind the
    fleet's other handshakes: the last of a long queue, whose first connection fails, is read on the next try (the
    16k fleet read a spine as unreadable after one try that came 59 s after it joined the queue)."""
    design = design_from_file(INTENT)
    devices = sorted(design.nodes)
    queue = devices * (150 // len(devices) + 1)  # the queue's handshakes alone outlast the settling time
    gatherers = [live.DeviceReading(design, name, live.Settings()).gatherer for name in devices]
    for reader in {type(gatherer.reader) for gatherer in gatherers}:
        monkeypatch.setattr(reader, 'session', lambda self, target: RefusedOnce(len(queue)))
    for gatherer in {type(gatherer) for gatherer in gatherers}:
        monkeypatch.setattr(gatherer, 'read_async', _read_nothing)
    monkeypatch.setattr(live, 'HANDSHAKES', 1)
    settings = live.Settings(timeout=5, counters=False, rnic=False, settle_timeout=3, settle_interval=1)
    assert len(queue) * 0.05 > 2 * settings.settle_timeout
    outcomes = []
    RefusedOnce.tried = 0
    asyncio.run(live.read_fleet(design, queue, lambda name, reader: {}, settings, lambda raw: raw,
                                concurrency=len(queue), sink=lambda device, result: outcomes.append(
                                    (result['convergence']['outcome'], result['attempts']))))
    assert RefusedOnce.tried == len(queue) + 1  # the failed connection was made again
    assert not [item for item in outcomes if item[0] == 'unreadable'], outcomes


class Refused:
    """A device that cannot be reached: every connection is refused at once. Records who tried, in order."""

    tried: list = []

    def __init__(self, device):
        self.device = device

    async def __aenter__(self):
        Refused.tried.append(self.device)
        raise TransportError(self.device, 'connect', 'connection refused')

    async def __aexit__(self, *_exc):
        return None


def test_unreachable_devices_wait_to_try_again_without_holding_their_place(monkeypatch):
    """A device that could not be read holds nothing while it waits to try again, so it gives up its place among the
    `concurrency` devices in flight: every device has its first try before any has its second, and a fleet of
    unreachable devices is read in about one settling time, not one per `concurrency` devices (the 16k fabric with
    every device down took 725 s at 256 in flight)."""
    design = design_from_file(INTENT)
    devices = sorted(design.nodes)
    gatherers = [live.DeviceReading(design, name, live.Settings()).gatherer for name in devices]
    for reader in {type(gatherer.reader) for gatherer in gatherers}:
        monkeypatch.setattr(reader, 'session', lambda self, target: Refused(target.device))
    settings = live.Settings(timeout=5, counters=False, rnic=False, settle_timeout=2, settle_interval=1)
    Refused.tried = []
    outcomes = {}
    asyncio.run(live.read_fleet(design, devices, lambda name, reader: {}, settings, lambda raw: raw, concurrency=1,
                                sink=lambda device, result: outcomes.update({device: result})))
    assert sorted(outcomes) == devices
    assert {result['convergence']['outcome'] for result in outcomes.values()} == {'unreadable'}
    assert all(result['attempts'] >= 2 and UNREADABLE in result['state'] for result in outcomes.values())
    first_tries = Refused.tried[:len(devices)]
    assert sorted(first_tries) == devices, Refused.tried  # one in flight at a time, yet all tried before any again
    assert len(Refused.tried) == sum(result['attempts'] for result in outcomes.values())


class SlowAfterRefusal:
    """Every reading takes `took` seconds; the first connection of `refused` is refused."""

    tried: dict = {}

    def __init__(self, device, refused):
        self.device, self.refused = device, refused

    async def __aenter__(self):
        tries = SlowAfterRefusal.tried[self.device] = SlowAfterRefusal.tried.get(self.device, 0) + 1
        if self.device == self.refused and tries == 1:
            raise TransportError(self.device, 'connect', 'connection refused')
        return self

    async def __aexit__(self, *_exc):
        return None


def test_a_device_back_from_waiting_to_try_again_goes_before_the_devices_not_begun(monkeypatch):
    """Its settling time runs while it waits: it takes the next place that frees, not the end of the fleet's queue (the
    16k fleet read a leaf whose first connection failed 158 s after its first try, past its 60 s deadline)."""
    from tests.unit.plugins.plugin_utils.fabric.state.captures import scenario_states
    design = design_from_file(INTENT)
    devices = sorted(design.nodes)
    healthy = scenario_states('healthy')  # every other device settles at its first reading
    refused = devices[0]
    took = 0.1
    queue = [refused] + [name for name in devices[1:] for _copy in range(int(10 / took / len(devices)) + 1)]

    async def read_slowly(self, target, commands):  # pylint: disable=unused-argument
        await asyncio.sleep(took)
        return dict(healthy[target.device])

    gatherers = [live.DeviceReading(design, name, live.Settings()).gatherer for name in devices]
    for reader in {type(gatherer.reader) for gatherer in gatherers}:
        monkeypatch.setattr(reader, 'session', lambda self, target: SlowAfterRefusal(target.device, refused))
    for gatherer in {type(gatherer) for gatherer in gatherers}:
        monkeypatch.setattr(gatherer, 'read_async', read_slowly)
    settings = live.Settings(timeout=5, counters=False, rnic=False, settle_timeout=2, settle_interval=1)
    SlowAfterRefusal.tried = {}
    outcomes = {}
    started = time.monotonic()
    asyncio.run(live.read_fleet(design, queue, lambda name, reader: {}, settings, lambda raw: raw, concurrency=2,
                                sink=outcomes.setdefault))
    whole = time.monotonic() - started
    assert whole > 2 * settings.settle_timeout  # the queue outlasts the device's deadline
    result = outcomes[refused]
    assert result['attempts'] == 2 and result['convergence']['outcome'] != 'unreadable'
    assert result['seconds'] < settings.settle_timeout, (result['seconds'], whole)


def test_places_go_to_the_devices_back_from_waiting_first():
    async def scenario():
        places = live.Places(1)
        await places.take()
        order = []

        async def wait(name, back):
            await places.take(back=back)
            order.append(name)
            places.give()

        tasks = [asyncio.create_task(wait('new1', False)), asyncio.create_task(wait('new2', False))]
        await asyncio.sleep(0)
        tasks.append(asyncio.create_task(wait('back', True)))
        cancelled = asyncio.create_task(wait('cancelled', True))
        await asyncio.sleep(0)
        cancelled.cancel()
        await asyncio.sleep(0)
        places.give()
        await asyncio.gather(*tasks)
        assert places.free == 1 and not places.back and not places.new
        return order

    assert asyncio.run(scenario()) == ['back', 'new1', 'new2']


class InFlight:
    """A device read at once on its second try (its first connection refused), counting the devices connected."""

    connected = 0
    most = 0
    tries: dict = {}

    def __init__(self, device):
        self.device = device

    async def __aenter__(self):
        tries = InFlight.tries[self.device] = InFlight.tries.get(self.device, 0) + 1
        if tries == 1:
            raise TransportError(self.device, 'connect', 'connection refused')
        InFlight.connected += 1
        InFlight.most = max(InFlight.most, InFlight.connected)
        await asyncio.sleep(0.01)
        return self

    async def __aexit__(self, *_exc):
        InFlight.connected -= 1


def test_devices_back_from_waiting_still_keep_to_the_fleets_concurrency(monkeypatch):
    """The place given up while waiting is taken again before the next try: no more than `concurrency` devices are
    ever connected at once."""
    from tests.unit.plugins.plugin_utils.fabric.state.captures import scenario_states
    design = design_from_file(INTENT)
    devices = sorted(design.nodes)
    healthy = scenario_states('healthy')  # each device settles at the reading after its refused connection

    async def read_healthy(self, target, commands):  # pylint: disable=unused-argument
        return dict(healthy[target.device])

    gatherers = [live.DeviceReading(design, name, live.Settings()).gatherer for name in devices]
    for reader in {type(gatherer.reader) for gatherer in gatherers}:
        monkeypatch.setattr(reader, 'session', lambda self, target: InFlight(target.device))
    for gatherer in {type(gatherer) for gatherer in gatherers}:
        monkeypatch.setattr(gatherer, 'read_async', read_healthy)
    settings = live.Settings(timeout=5, counters=False, rnic=False, settle_timeout=3, settle_interval=1)
    InFlight.connected, InFlight.most, InFlight.tries = 0, 0, {}
    outcomes = {}
    asyncio.run(live.read_fleet(design, devices * 3, lambda name, reader: {}, settings, lambda raw: raw,
                                concurrency=2, sink=lambda device, result: outcomes.update({device: result})))
    assert sorted(outcomes) == devices and InFlight.most == 2
    assert all(result['convergence']['outcome'] != 'unreadable' for result in outcomes.values())


class CountedDevice:
    """A device read through read_device: every reading takes `took` seconds; its state is the healthy capture's,
    or nothing at all for the first `unsettled` readings (its checks fail, so it is read again). Records each
    reading's kind and when it began."""

    def __init__(self, state, took, unsettled=0):
        self.state, self.took, self.unsettled = state, took, unsettled
        self.log, self.wall = [], []

    async def read_async(self, target, commands):  # pylint: disable=unused-argument
        kind = 'counters' if [key for key, _command in commands] == ['counters'] else 'state'
        self.log.append((kind, time.monotonic()))
        self.wall.append(time.time())  # the clock of the counters' time stamps
        await asyncio.sleep(self.took)
        if kind == 'counters':
            return {'counters': {'rc': 0, 'stdout': '{}', 'stderr': ''}}
        reads = sum(1 for item, _at in self.log if item == 'state')
        return {} if reads <= self.unsettled else dict(self.state)


def _read_counted(monkeypatch, device, settings):
    from tests.unit.plugins.plugin_utils.fabric.state.captures import scenario_states
    design = design_from_file(INTENT)
    reading = live.DeviceReading(design, 'leaf001', settings)
    reading.counter_commands = [('counters', ['true'])]  # the lab's FRR leaf counts nothing: as a switch that does
    monkeypatch.setattr(type(reading.gatherer.reader), 'session', lambda self, target: Handshake())
    monkeypatch.setattr(reading.gatherer, 'read_async', device.read_async)
    device.state = scenario_states('healthy')['leaf001']
    started = time.monotonic()
    result = asyncio.run(live.read_device(reading, {}, lambda raw: raw))
    return result, time.monotonic() - started


def test_a_device_that_settles_at_once_reads_its_state_inside_the_counters_window(monkeypatch):
    """The counters' two readings are `health_interval` apart and the state is read between them: a device that
    settles at its first reading is done in about the interval, not the interval after its reading (a fleet of
    thousands holds each device's place that long)."""
    device = CountedDevice({}, took=0.4)
    settings = live.Settings(health_interval=1, rnic=False, settle_timeout=5, settle_interval=1)
    result, took = _read_counted(monkeypatch, device, settings)
    assert [kind for kind, _at in device.log] == ['counters', 'state', 'counters']
    assert result['convergence']['outcome'] == 'settled'
    window = result['state']['_times']
    assert window['counters.2'] - window['counters'] >= settings.health_interval
    assert device.log[2][1] - device.log[0][1] < settings.health_interval + device.took  # the reading was inside
    assert took < settings.health_interval + 3 * device.took


def test_a_device_that_needs_more_readings_opens_its_counters_window_once_settled(monkeypatch):
    """Read again to settle (its checks failed at first): the counters read with its first reading are dropped and
    the window opens after the reading that settled it, so the rates are those of the settled device."""
    device = CountedDevice({}, took=0.1, unsettled=1)
    settings = live.Settings(health_interval=1, rnic=False, settle_timeout=5, settle_interval=1)
    result, _took = _read_counted(monkeypatch, device, settings)
    kinds = [kind for kind, _at in device.log]
    assert kinds == ['counters', 'state', 'state', 'counters', 'counters'], kinds
    assert result['convergence']['outcome'] == 'settled' and result['attempts'] == 2
    window = result['state']['_times']
    assert window['counters'] >= device.wall[2] and window['counters.2'] - window['counters'] >= settings.health_interval
    assert device.log[4][1] - device.log[3][1] >= settings.health_interval


def test_a_device_without_health_interval_reads_its_counters_once_after_settling(monkeypatch):
    device = CountedDevice({}, took=0.05)
    settings = live.Settings(health_interval=0, rnic=False, settle_timeout=5, settle_interval=1)
    result, _took = _read_counted(monkeypatch, device, settings)
    assert [kind for kind, _at in device.log] == ['state', 'counters']
    assert 'counters.2' not in result['state']


def test_an_unreadable_reading_is_judged_only_when_the_device_is_out_of_time(monkeypatch):
    """While a device that could not be read waits to try again, its checks are not run (each would only say it could
    not be read) and nothing is kept: a fabric of unreachable devices is not judged every settling interval. At its
    deadline they run once, as the reading's result."""
    design = design_from_file(INTENT)
    reading = live.DeviceReading(design, 'leaf001', live.Settings(settle_timeout=10, settle_interval=5))
    ran = []
    run = live.checks.run
    monkeypatch.setattr(live.checks, 'run', lambda *args, **kwargs: ran.append(1) or run(*args, **kwargs))
    clock = [1000.0]
    monkeypatch.setattr(live.time, 'monotonic', lambda: clock[0])
    reading.start_clock()
    unreadable = {UNREADABLE: 'leaf001: SSH connection to 127.0.0.1:22 failed: connection refused'}
    assert reading.after(dict(unreadable)) == 5 and reading.results == [] and reading.open == [] and not ran
    clock[0] += 5
    assert reading.after(dict(unreadable)) == 5 and not ran
    clock[0] += 5.5  # the next try would be past the deadline
    assert reading.after(dict(unreadable)) is None and reading.outcome == 'unreadable' and ran == [1]
    assert reading.results and {item.status for item in reading.results} == {'error'}
    assert reading.result(lambda raw: raw)['summary']['error'] == len(reading.results)
