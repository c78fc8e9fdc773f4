# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Each platform's tests and test data live in a folder named after it, tests/unit/platforms/<name>/, found by
convention (napalm keeps each driver's mocked data in a folder of its own the same way), so nothing central lists a
platform:

    golden/     the golden files of its switches, <shape>/<device>/<file> or <shape>/<device>.<ext> as its SHAPES say
    recorded/   outputs of its gatherer's commands, as its devices print them (where they are files of their own)
    testdata.py what the platform tests over the registry take from it:
        SHAPES      [(intent file, golden file of a device's file)]: the golden shapes it renders byte for byte; in
                    the golden path, {device} and {file} are filled per switch
        recorded()  [(device model, {state key: output})]: outputs of its gatherer's commands

The folders are those of the product's platform registry (plugins/plugin_utils/fabric/platforms: every platform the
collection ships has one), and of every platform kept whole in a test folder (the stub NOS,
tests/unit/platforms/stubnos: its code is there too), found by the registry's own discovery (platforms.add_folder).
Platform-neutral data (intents, invalid intents, GPU server files, fabric documents, the lab's captures) stays in
tests/unit/fixtures and tests/unit/golden."""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.util
import os
from dataclasses import dataclass

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import platforms
from tests.unit.utils.paths import ROOT

PLATFORM_TESTS = os.path.join(ROOT, 'tests', 'unit', 'platforms')
SHIPPED = os.path.dirname(os.path.abspath(platforms.__file__))  # the registry's own folder: the collection's platforms


@dataclass(frozen=True)
class PlatformTests:
    """The test folder of one platform. `shipped`: the collection's registry has it; otherwise the folder is the
    platform itself (a fixture platform), registered only while a test holds registered()."""

    name: str
    folder: str
    shipped: bool

    def golden(self, *parts) -> str:
        return os.path.join(self.folder, 'golden', *parts)

    def recorded(self, *parts) -> str:
        return os.path.join(self.folder, 'recorded', *parts)

    @contextlib.contextmanager
    def registered(self):
        """The registry with this platform in it, for the time of the block."""
        if self.shipped:
            yield platforms.get_platform(self.name)
            return
        parent = os.path.dirname(self.folder)
        platforms.add_folder(parent)
        try:
            yield platforms.get_platform(self.name)
        finally:
            platforms.remove_folder(parent)

    def data(self):
        """Its `testdata` module (AssertionError naming the file a platform without one lacks). A fixture platform's
        is read as a part of its own package: hold registered() around it."""
        path = os.path.join(self.folder, 'testdata.py')
        assert os.path.isfile(path), 'platform %s has no test data: %s (tests/unit/utils/platforms.py)' % (
            self.name, os.path.relpath(path, ROOT))
        if os.path.dirname(self.folder) == PLATFORM_TESTS:
            return importlib.import_module('tests.unit.platforms.%s.testdata' % self.name)
        if not self.shipped:
            return importlib.import_module('%s.testdata' % platforms.get_platform(self.name).package)
        spec = importlib.util.spec_from_file_location('_platform_tests_%s' % self.name, path)  # a folder elsewhere
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module


def fixture_platforms(parent=PLATFORM_TESTS) -> dict:
    """{name: folder} of the platforms kept whole in the folders of `parent`: what the product's registry finds there
    beside the shipped ones (platforms.add_folder, the same discovery)."""
    platforms.add_folder(parent)
    try:
        return {name: platform.folder for name, platform in platforms.registered().items()
                if os.path.dirname(platform.folder) == os.path.abspath(parent)}
    finally:
        platforms.remove_folder(parent)


def discover(parent=PLATFORM_TESTS) -> dict:
    """{name: PlatformTests} of every registered platform (its folder under `parent`, whether it exists or not: the
    guard test fails on a missing one) and of every fixture platform under `parent`, in the registry's order."""
    found = {name: PlatformTests(name, os.path.join(parent, name), True) for name, platform in platforms.registered().items()
             if os.path.dirname(platform.folder) == SHIPPED}
    found.update((name, PlatformTests(name, folder, False)) for name, folder in fixture_platforms(parent).items()
                 if name not in found)
    return found


@functools.lru_cache(maxsize=None)
def _discovered() -> dict:
    return discover()


def platform_tests() -> list:
    """Every platform's test folder (PlatformTests), the registry's and the fixture platforms'; what tests over
    every platform parametrize with."""
    return list(_discovered().values())


def platform_folder(name) -> PlatformTests:
    """The test folder of platform `name` (shipped or fixture)."""
    found = _discovered()
    assert name in found, 'no platform %r in the registry or under %s' % (name, os.path.relpath(PLATFORM_TESTS, ROOT))
    return found[name]


def golden(name, *parts) -> str:
    """A golden file of platform `name`: tests/unit/platforms/<name>/golden/<parts>."""
    return platform_folder(name).golden(*parts)


def recorded(name, *parts) -> str:
    """A recorded output of platform `name`: tests/unit/platforms/<name>/recorded/<parts>."""
    return platform_folder(name).recorded(*parts)


def platform_data(name):
    """The `testdata` module of platform `name`."""
    return platform_folder(name).data()


def fleet_doubles(found=None) -> dict:
    """{platform: fleet kind} of every platform whose test folder's double (`double/fleet.py` of the double's
    package, or `double.py`) sets FLEET_KIND: the machinery of the fleet of device doubles that serves its switches
    (tests/doubles/fleet.py). A platform without one (the lab's FRR; the stub NOS, whose double.py is its own directory
    switch) has no fleet double and the fleet skips its switches. `found`: the PlatformTests to look in (default:
    every platform's)."""
    doubles = {}
    for tests in platform_tests() if found is None else found:
        # a double package says it in double/fleet.py (ansible-test wants a test package's __init__.py empty)
        path, module_name = next(((path, name) for path, name in (
            (os.path.join(tests.folder, 'double', 'fleet.py'), 'double.fleet'),
            (os.path.join(tests.folder, 'double.py'), 'double')) if os.path.isfile(path)), (None, None))
        if path is None:
            continue
        if not tests.shipped:  # a fixture platform's double is a part of its own package
            with tests.registered() as platform:
                module = importlib.import_module('%s.%s' % (platform.package, module_name))
        elif os.path.dirname(tests.folder) == PLATFORM_TESTS:
            module = importlib.import_module('tests.unit.platforms.%s.%s' % (tests.name, module_name))
        else:  # a folder elsewhere
            spec = importlib.util.spec_from_file_location('_platform_double_%s' % tests.name, path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        kind = getattr(module, 'FLEET_KIND', None)
        if kind is not None:
            doubles[tests.name] = kind
    return doubles
