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
