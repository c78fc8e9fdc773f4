# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Progress of long work over many devices: 'Fabric gpu16k: 1,200/3,328 devices rendered (36 %), 2.1 s'.

A line at most every `interval` seconds, and one at the end when any was shown, so that a render or validation of
thousands of devices is not one silent task while small fabrics stay quiet. `emit` receives each line (the Ansible
action plugins pass Display().display; the Python API a callback of the caller's choice).
"""

from __future__ import annotations

import time


class Progress:

    def __init__(self, total, what, emit, interval=2.0, clock=time.monotonic):
        self.total = total
        self.what = what  # 'Fabric gpu16k: devices rendered'
        self.emit = emit
        self.interval = interval
        self.clock = clock
        self.started = clock()
        self.done = 0
        self.shown = False
        self._next = self.started + interval

    def step(self, count=1):
        self.done += count
        now = self.clock()
        if self.emit is not None and now >= self._next and self.done < self.total:
            self._show(now)
            self._next = now + self.interval

    def finish(self):
        if self.emit is not None and self.shown:
            self._show(self.clock())

    def _show(self, now):
        self.shown = True
        label, _sep, unit = self.what.rpartition(': ')
        percent = 100 * self.done // self.total if self.total else 100
        self.emit('%s: %s/%s %s (%d %%), %.1f s' % (label, format(self.done, ','), format(self.total, ','), unit, percent,
                                                    now - self.started))


__all__ = ['Progress']
