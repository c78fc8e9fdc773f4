# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Progress lines: at most one per interval, a final one only when any was shown, nothing for quick work."""

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.progress import Progress


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_one_line_per_interval_and_a_final_line():
    clock, lines = Clock(), []
    progress = Progress(3328, 'Fabric gpu16k: devices rendered', lines.append, interval=2.0, clock=clock)
    for done in range(1, 3329):
        clock.now = 100.0 + done * 0.002  # 2 ms per device: 6.7 s in all
        progress.step()
    progress.finish()
    assert lines[0] == 'Fabric gpu16k: 1,000/3,328 devices rendered (30 %), 2.0 s'
    assert len(lines) == 4 and lines[-1] == 'Fabric gpu16k: 3,328/3,328 devices rendered (100 %), 6.7 s'


def test_quick_work_stays_silent():
    clock, lines = Clock(), []
    progress = Progress(168, 'Fabric pod1k: devices rendered', lines.append, interval=2.0, clock=clock)
    for _done in range(168):
        clock.now += 0.001
        progress.step()
    progress.finish()
    assert lines == []
