# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Issue 39 item 4: which device double serves a platform's switches is found in the platform's own test folder
(tests/unit/platforms/<name>/double/fleet.py FLEET_KIND), not in a list of the fleet's."""

import os

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import platforms
from tests.doubles import fleet
from tests.unit.utils.paths import ROOT
from tests.unit.utils.platforms import PlatformTests, fleet_doubles, platform_tests

MIXED = os.path.join(ROOT, 'tests', 'doubles', 'fixtures', 'mixed.yml')


def _folder(tmp_path, name, text, package=False):
    """A platform's test folder whose double is `text`: a module (double.py) or the double's package (double/)."""
    folder = tmp_path / name
    folder.mkdir()
    if text is not None and package:
        (folder / 'double').mkdir()
        (folder / 'double' / '__init__.py').write_text('')
        (folder / 'double' / 'fleet.py').write_text(text)
    elif text is not None:
        (folder / 'double.py').write_text(text)
    return PlatformTests(name, str(folder), True)


def test_a_platform_folder_declares_its_double(tmp_path):
    """A new NOS gets a fleet double by its folder alone; a folder without a double, or whose double names no
    fleet kind, gets none."""
    found = [_folder(tmp_path, 'newnos', "FLEET_KIND = 'nvue'\n", package=True), _folder(tmp_path, 'bare', None),
             _folder(tmp_path, 'modnos', "FLEET_KIND = 'sonic'\n"), _folder(tmp_path, 'ownswitch', 'class Switch:\n    pass\n')]
    assert fleet_doubles(found) == {'newnos': 'nvue', 'modnos': 'sonic'}


def test_every_switch_model_platform_has_a_fleet_double_and_the_plan_takes_it():
    """Every platform of real switch hardware brings a double (the live validation runs on each), the fleet's plan
    gives each switch its platform's, and a platform without one (the lab's FRR, the stub NOS) is skipped."""
    doubles = fleet_doubles()
    hardware = {name for name in platforms.platform_names() if platforms.get_platform(name).uses_models}
    assert hardware <= set(doubles), 'no tests/unit/platforms/<name>/double/ FLEET_KIND: %s' % sorted(hardware - set(doubles))
    assert not {tests.name for tests in platform_tests() if not tests.shipped} & set(doubles)
    for entry in fleet.plan(fleet.load_design(MIXED)):
        assert entry['kind'] == doubles.get(entry['platform'])


def test_a_kind_the_fleet_does_not_serve_is_refused_naming_it(monkeypatch):
    monkeypatch.setattr('tests.unit.utils.platforms.fleet_doubles', lambda: {'newnos': 'telnet'})
    with pytest.raises(ValueError, match=r"platform newnos: FLEET_KIND 'telnet' .*allowed: eos, sonic, nvue"):
        fleet.kinds()
