# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The stub NOS's test data, found by the same convention as every platform's (tests/unit/utils/platforms.py): its
golden shape (intent.yml, golden/) and its recorded outputs, read from its double through its own reader."""

import os
import tempfile

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_device
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.reader import Target
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.sources import gatherer_for

from .double import StubSwitch

HERE = os.path.dirname(os.path.abspath(__file__))
INTENT = os.path.join(HERE, 'intent.yml')
SHAPES = [(INTENT, os.path.join(HERE, 'golden', '{device}', '{file}'))]


def deployed(fabric, folder):
    """Every switch of `fabric` as a stub double under `folder`, running its rendered configuration."""
    for name in fabric.device_names():
        if fabric.nodes[name].role != 'host':
            switch = StubSwitch(os.path.join(folder, name))
            switch.load(render_device(fabric, name)['stub.conf'])
            switch.commit(60)
            switch.confirm()


def recorded():
    """What each switch of the stub fabric answers its gatherer, through the stub's reader."""
    fabric = design_from_file(INTENT)
    with tempfile.TemporaryDirectory() as folder:
        deployed(fabric, folder)
        found = []
        for name in fabric.device_names():
            if fabric.nodes[name].role != 'host':
                model = fabric.device(name)
                gatherer = gatherer_for(model)
                found.append((model, gatherer.read(Target(name, {'stub_double': os.path.join(folder, name)}),
                                                   gatherer.commands(model))))
        return found
