# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The contract of a platform folder, over the registry: every platform has its parts (renderer, deploy driver,
gatherer), renders its golden shapes byte for byte from models of the typed shape, has a gatherer whose output from
recorded device outputs is the typed neutral state, a containerlab kind or says it has none, a docs page, and device
libraries that exist. Its shapes and recorded outputs are its own test data (tests/unit/platforms/<name>/testdata.py,
found by convention: tests/unit/utils/platforms.py).
(Its driver against its double: tests/deploy/test_contract_drivers.py.)"""

import importlib.util
import os

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.deploy.contract import Driver
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.model import problems as model_problems
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.intent import load_schema
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.lab import LabKind
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms import (
    PARTS, get_platform, platform_names)
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_model
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state import schema
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.gatherer import Gatherer
from tests.unit.utils.golden import GOLDEN_ROOT
from tests.unit.utils.platforms import platform_data

_DESIGNS = {}


def design(path):
    if path not in _DESIGNS:
        _DESIGNS[path] = design_from_file(path)
    return _DESIGNS[path]


def check_parts(name):
    platform = get_platform(name)
    assert platform.name == name and os.path.basename(platform.folder) == name
    assert all(platform.has_part(part) for part in PARTS if part != 'lab'), 'render.py, deploy.py, state.py'
    assert callable(platform.part('render').render)
    driver = platform.part('deploy').DRIVER
    assert issubclass(driver, Driver) and driver.platform == name and driver.files
    assert set(driver.files) == set(platform.config_files), 'the driver deploys the files the platform renders'
    gatherer = platform.part('state').GATHERER
    assert isinstance(gatherer, Gatherer) and gatherer.platform == name
    assert platform.default_release in platform.releases
    assert name in load_schema()['$defs']['platform']['enum'], 'the intent schema takes it'
    assert set(load_schema()['properties']['topology']['properties']['nos_release']['properties']) >= {name}


def check_renders(name, shapes):
    """Every switch of `name` in every shape renders the platform's files from a model of the typed shape, byte for
    byte the golden file where the shape has one. Returns the number of files compared."""
    compared = 0
    for intent, layout in shapes:
        fabric = design(intent)
        for device in fabric.device_names():
            if fabric.nodes[device].role == 'host' or fabric.nodes[device].platform != name:
                continue
            model = fabric.device(device)
            assert model_problems(model) == []
            files = render_model(model)
            assert set(files) == set(get_platform(name).config_files)
            for file_name, text in files.items():
                golden = os.path.join(GOLDEN_ROOT, layout.format(device=device, file=file_name))
                if not os.path.exists(golden):  # the golden shape pins some switches of the fabric
                    continue
                with open(golden, encoding='utf-8') as handle:
                    assert text == handle.read(), golden
                compared += 1
    return compared


def check_gathers(name, recorded):
    read = set()
    for model, raw in recorded:
        gatherer = get_platform(name).part('state').GATHERER
        for key, output in raw.items():
            assert schema.problems(key, gatherer.parse(key, output)) == [], (model['name'], key)
            read.add(key)
    neutral = {key for key in get_platform(name).part('state').GATHERER.sources if key in schema.STATE}
    assert neutral and neutral <= read


def check_lab(name):
    platform = get_platform(name)
    if not platform.lab_kinds:
        assert not platform.has_part('lab'), 'a platform without lab kinds says so (lab_kinds=()) and has no lab.py'
        return
    kinds = {kind.name: kind for kind in platform.part('lab').KINDS}
    assert all(isinstance(kind, LabKind) for kind in kinds.values())
    assert set(platform.lab_kinds) == set(kinds), 'Platform.lab_kinds are the kinds lab.py defines'


def check_libraries(name):
    platform = get_platform(name)
    for library in platform.deploy_libraries + platform.state_libraries:
        assert importlib.util.find_spec(library), '%s declares the device library %s, which is not installed' % (name, library)


def check_docs(name):
    page = get_platform(name).docs_page()
    assert os.path.isfile(page), page
    with open(page, encoding='utf-8') as handle:
        assert handle.read().startswith('# ')


@pytest.mark.parametrize('name', platform_names())
def test_every_platform_has_its_parts(name):
    check_parts(name)


@pytest.mark.parametrize('name', platform_names())
def test_every_platform_renders_its_golden_shapes(name):
    assert check_renders(name, platform_data(name).SHAPES) > 0, 'no golden shape has a %s switch' % name


@pytest.mark.parametrize('name', platform_names())
def test_every_platform_gathers_the_typed_neutral_state(name):
    check_gathers(name, platform_data(name).recorded())


@pytest.mark.parametrize('name', platform_names())
def test_every_platform_has_a_lab_kind_or_says_it_has_none(name):
    check_lab(name)


@pytest.mark.parametrize('name', platform_names())
def test_every_platform_has_a_docs_page(name):
    check_docs(name)


@pytest.mark.parametrize('name', platform_names())
def test_every_platform_declares_device_libraries_that_exist(name):
    check_libraries(name)
