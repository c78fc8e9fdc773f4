# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""render_devices: worker processes give the serial render's items, in the same order, to the byte."""

import os

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import render
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))))
POD1K = os.path.join(ROOT, 'inventories', 'pod1k', 'intent.yml')


def test_two_workers_render_what_one_renders(monkeypatch):
    design = design_from_file(POD1K)
    names = list(design.nodes)
    serial = list(render.render_devices(design, names, workers=1, pages=True))
    monkeypatch.setattr(render, 'PARALLEL_MIN_DEVICES', 1)
    monkeypatch.setattr(render, 'CHUNK', 7)  # many chunks, so that their order matters
    started = []
    real_pool = render.multiprocessing.get_context('fork').Pool

    def pool(workers):
        started.append(workers)
        return real_pool(workers)
    monkeypatch.setattr(render.multiprocessing.get_context('fork'), 'Pool', pool, raising=False)
    parallel = list(render.render_devices(design, names, workers=2, pages=True))
    assert started == [2]  # the worker processes did the rendering
    assert [item['name'] for item in parallel] == names
    assert parallel == serial
    assert all(item['files'] and item['page'] for item in parallel)


def test_a_failing_device_is_reported_from_a_worker_and_the_others_still_render(monkeypatch):
    design = design_from_file(POD1K)
    names = list(design.nodes)
    victim = names[len(names) // 2]
    original = render.render_model

    def exploding(model, user_hashes=None):
        if model['name'] == victim:
            raise ValueError('template exploded')
        return original(model)
    monkeypatch.setattr(render, 'render_model', exploding)
    monkeypatch.setattr(render, 'PARALLEL_MIN_DEVICES', 1)
    items = {item['name']: item for item in render.render_devices(design, names, workers=2)}
    assert items[victim]['error'] == 'ValueError: template exploded' and items[victim]['files'] is None
    assert all(item['files'] for name, item in items.items() if name != victim)
