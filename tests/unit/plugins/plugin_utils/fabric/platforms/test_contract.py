# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The contract of a platform folder, over the registry: every platform has its parts (renderer, deploy driver,
gatherer), renders its golden shapes byte for byte from models of the typed shape, has a gatherer whose output from
recorded device outputs is the typed neutral state, a containerlab kind or says it has none, a docs page, and device
libraries that exist. Its shapes, golden files and recorded outputs are its own test data
(tests/unit/platforms/<name>/, found by convention: tests/unit/utils/platforms.py), for every platform of the registry
and every fixture platform kept whole in a test folder (the stub NOS); a registered platform without them fails.
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
from tests.unit.utils.paths import ROOT
from tests.unit.utils.platforms import discover, platform_folder, platform_tests

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


def golden_files(tests):
    """Every file under the platform's golden/ folder."""
    return {os.path.join(folder, name) for folder, _dirs, names in os.walk(tests.golden()) for name in names}


def check_renders(tests):
    """Every switch of the platform in every shape of its test data renders the platform's files from a model of the
    typed shape, byte for byte the golden file in the platform's own folder where the shape has one. Returns the golden
    files compared."""
    compared = set()
    name, own = tests.name, tests.golden('')
    for intent, layout in tests.data().SHAPES:
        fabric = design(intent)
        for device in fabric.device_names():
            if fabric.nodes[device].role == 'host' or fabric.nodes[device].platform != name:
                continue
            model = fabric.device(device)
            assert model_problems(model) == []
            files = render_model(model)
            assert set(files) == set(get_platform(name).config_files)
            for file_name, text in files.items():
                golden = layout.format(device=device, file=file_name)
                assert golden.startswith(own), 'the golden files of %s are in its folder: %s' % (name, golden)
                if not os.path.exists(golden):  # the golden shape pins some switches of the fabric
                    continue
                with open(golden, encoding='utf-8') as handle:
                    assert text == handle.read(), golden
                compared.add(golden)
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


def check_test_folder(tests):
    """Its folder, its testdata.py and its golden files (tests/unit/utils/platforms.py says what goes there)."""
    where = os.path.relpath(tests.folder, ROOT)
    assert os.path.isdir(tests.folder), 'platform %s has no test folder %s' % (tests.name, where)
    assert os.path.isfile(os.path.join(tests.folder, 'testdata.py')), 'platform %s has no %s/testdata.py' % (tests.name, where)
    assert golden_files(tests), 'platform %s has no golden files in %s/golden' % (tests.name, where)


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


PLATFORMS = platform_tests()  # the registry's and the fixture platforms' test folders (tests/unit/utils/platforms.py)


def ids(tests):
    return tests.name


@pytest.fixture(params=PLATFORMS, ids=ids)
def tests(request):
    """One platform's test folder, with the platform in the registry for the test."""
    with request.param.registered():
        yield request.param


def test_discovery_finds_every_registered_platform_and_the_fixture_ones():
    assert [tests.name for tests in PLATFORMS if tests.shipped] == platform_names()
    assert 'stubnos' in [tests.name for tests in PLATFORMS if not tests.shipped], 'found by the convention alone'


@pytest.mark.parametrize('name', platform_names())
def test_every_registered_platform_has_a_test_folder_with_golden_data(name):
    """A platform the registry has and the tests do not know fails here, never skipped."""
    check_test_folder(platform_folder(name))


def test_the_guard_fails_on_a_platform_without_test_data(tmp_path):
    """Every registered platform is looked for, folder or not: no folder, no testdata.py, no golden files each fail."""
    found = discover(str(tmp_path))
    assert set(found) == set(platform_names())
    tests = found[platform_names()[0]]
    with pytest.raises(AssertionError, match='platform %s has no test folder' % tests.name):
        check_test_folder(tests)
    with pytest.raises(AssertionError, match='platform %s has no test data: ' % tests.name):
        tests.data()
    os.makedirs(tests.golden())
    with pytest.raises(AssertionError, match='platform %s has no .*/testdata.py' % tests.name):
        check_test_folder(tests)
    with open(os.path.join(tests.folder, 'testdata.py'), 'w', encoding='utf-8') as handle:
        handle.write('SHAPES = []\n')
    with pytest.raises(AssertionError, match='platform %s has no golden files' % tests.name):
        check_test_folder(tests)
    with open(tests.golden('leaf001.cfg'), 'w', encoding='utf-8') as handle:
        handle.write('golden\n')
    check_test_folder(tests)
    assert tests.data().SHAPES == [], 'its own testdata.py, read from its folder'


def test_every_platform_has_its_parts(tests):
    check_parts(tests.name)


def test_every_platform_renders_its_golden_shapes(tests):
    """Byte for byte, and every golden file of its folder is one of its shapes' (none left behind unread)."""
    compared = check_renders(tests)
    assert compared, 'no golden shape has a %s switch' % tests.name
    assert compared == golden_files(tests), 'golden files no shape reads'


def test_every_platform_gathers_the_typed_neutral_state(tests):
    check_gathers(tests.name, tests.data().recorded())


def test_every_platform_has_a_lab_kind_or_says_it_has_none(tests):
    check_lab(tests.name)


def test_every_platform_has_a_docs_page(tests):
    check_docs(tests.name)


def test_every_platform_declares_device_libraries_that_exist(tests):
    check_libraries(tests.name)
