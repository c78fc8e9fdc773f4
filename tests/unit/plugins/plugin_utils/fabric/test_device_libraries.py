# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The device libraries the deploy and validate action plugins import in the controller: those of the platforms of
the fabric the inventory plugin loaded (design_cache.loaded_platforms), every platform's when it loaded none."""

import os
import types

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils import design_cache
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import platforms
from tests.unit.utils.paths import ROOT

LAB = os.path.join(ROOT, 'fabrics', 'lab.yml')
MIXED = os.path.join(ROOT, 'tests', 'doubles', 'fixtures', 'mixed.yml')


@pytest.fixture(name='imported')
def fixture_imported(monkeypatch):
    """The names import_in_controller imports, in order; napalm is missing."""
    # the registry imports the platform folders through the same importlib and keeps what it found: found first, it
    # is neither emptied for the tests that follow nor counted among the device libraries
    platforms.platform_names()
    names = []

    def import_module(name):
        names.append(name)
        if name == 'napalm':
            raise ImportError('No module named napalm')

    monkeypatch.setattr(platforms, 'importlib', types.SimpleNamespace(import_module=import_module))
    return names


def test_a_lab_of_frr_switches_imports_no_library_to_validate_and_netmiko_to_deploy(imported):
    platforms.import_in_controller('state', {'frr'})
    assert not imported
    platforms.import_in_controller('deploy', {'frr'})
    assert imported == ['netmiko']


def test_each_library_once_and_a_missing_one_left_to_the_step_that_needs_it(imported):
    platforms.import_in_controller('state', set(platforms.platform_names()))
    assert imported == ['napalm', 'anta.catalog', 'anta.device']
    del imported[:]
    platforms.import_in_controller('deploy', set(platforms.platform_names()))
    assert sorted(imported) == ['napalm', 'netmiko']


def test_every_platform_s_libraries_when_no_fabric_is_known(imported):
    platforms.import_in_controller('deploy', None)
    assert sorted(imported) == ['napalm', 'netmiko']


def test_the_platforms_of_the_loaded_fabric(monkeypatch):
    monkeypatch.setattr(design_cache, '_CACHE', {})
    assert design_cache.loaded_platforms() is None
    design_cache.get_design(LAB)
    assert design_cache.loaded_platforms() == {'frr'}
    design_cache.get_design(MIXED)
    assert design_cache.loaded_platforms() == {'eos', 'sonic', 'nvue'}
