# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The waits of the suite are sized for the machine they run on: a deadline stretches with its load."""

import os
import time

from tests.unit.utils import waiting


def test_a_deadline_stretches_with_the_load(monkeypatch):
    monkeypatch.setattr(os, 'cpu_count', lambda: 2)
    monkeypatch.setattr(os, 'getloadavg', lambda: (0.3, 0.3, 0.3))
    assert waiting.stretch() == 1.0
    monkeypatch.setattr(os, 'getloadavg', lambda: (18.0, 15.0, 9.0))  # the load 15-20 on two CPUs
    assert waiting.stretch() == 9.0
    now = time.time()
    assert 15 * 9 <= waiting.patient(15) - now < 15 * 9 + 1
    monkeypatch.setattr(os, 'getloadavg', lambda: (400.0, 0, 0))
    assert waiting.stretch() == waiting.MAX_STRETCH


def test_wait_for_returns_as_soon_as_the_event_happens():
    started = time.time()
    calls = []
    assert waiting.wait_for(lambda: calls.append(1) or len(calls) >= 3, started + 60, interval=0.01)
    assert time.time() - started < 5 and len(calls) == 3
    assert waiting.wait_for(lambda: False, time.time() + 0.05, interval=0.01) is False
