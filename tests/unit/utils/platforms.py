# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Each platform's tests and test data live in a folder named after it: tests/unit/platforms/<name>/ (napalm keeps
each driver's data in a folder of its own the same way). Its `testdata` module says what the platform tests over the
registry take from it, by convention, so nothing central lists a platform:

    SHAPES      [(intent file, golden file of a device's file)]: the golden shapes it renders byte for byte; in the
                golden path, {device} and {file} are filled per switch (tests/unit/golden is the golden root)
    recorded()  [(device model, {state key: output})]: outputs of its gatherer's commands, as its devices print them

A platform kept whole in its test folder (the stub NOS, tests/unit/platforms/stubnos) has its code there too."""

from __future__ import annotations

import importlib
import os

from tests.unit.utils.paths import ROOT

PLATFORM_TESTS = os.path.join(ROOT, 'tests', 'unit', 'platforms')


def folder_of(name) -> str:
    return os.path.join(PLATFORM_TESTS, name)


def platform_data(name):
    """The `testdata` module of platform `name` (AssertionError naming the file a platform without one lacks)."""
    path = os.path.join(folder_of(name), 'testdata.py')
    assert os.path.isfile(path), 'platform %s has no test data: %s (tests/unit/utils/platforms.py)' % (
        name, os.path.relpath(path, ROOT))
    return importlib.import_module('tests.unit.platforms.%s.testdata' % name)
