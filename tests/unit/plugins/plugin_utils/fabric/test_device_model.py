# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The device model is typed (model.py): every device of every test fabric has every field of its type, and
a model without a field, or with one of another type, is named."""

import copy
import glob
import os

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.model import problems
from tests.unit.utils.paths import ROOT

INTENTS = sorted(glob.glob(os.path.join(ROOT, 'tests', 'unit', 'fixtures', 'intents', '*.yml'))
                 + glob.glob(os.path.join(ROOT, 'tests', 'unit', 'fixtures', 'state', 'intents', '*.yml'))
                 + [os.path.join(ROOT, 'fabrics', 'lab.yml'),
                    os.path.join(ROOT, 'tests', 'doubles', 'fixtures', 'mixed.yml')])


@pytest.mark.parametrize('intent', INTENTS, ids=os.path.basename)
def test_every_device_model_has_its_type(intent):
    design = design_from_file(intent)
    assert {name: problems(design.device(name)) for name in design.device_names()
            if problems(design.device(name))} == {}


def test_a_missing_or_wrong_field_is_named():
    design = design_from_file(os.path.join(ROOT, 'fabrics', 'lab.yml'))
    leaf = copy.deepcopy(design.device('leaf001'))
    del leaf['interfaces'][0]['peer_asn']
    leaf['bgp']['numbered'] = 'yes'
    assert problems(leaf) == ["leaf001.interfaces[0] has no peer_asn (SwitchInterface)",
                              "leaf001.bgp.numbered is 'yes', expected true or false"]
    host = copy.deepcopy(design.device('gpu0001'))
    del host['rails']
    assert problems(host) == ['gpu0001 has no rails (HostModel)']
