# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Switch platforms: one folder per network OS, found here. Nothing outside the folders names a platform.

A folder `platforms/<name>/` is a platform when its `__init__.py` defines `PLATFORM = Platform(name='<name>', ...)`:
what the NOS is (limits, watchdog rules, releases, port naming, management) as data. Beside it, by convention:

    render.py      render(model, env) -> {file name: text}: the device model in the NOS's own shape
    templates/     its Jinja2 templates, named '<name>/<file>' in the shared environment (render.environment)
    deploy.py      DRIVER: a deploy.contract.Driver (push / confirm / rollback with a confirm timer on the switch)
    state.py       GATHERER: a state.gatherer.Gatherer whose parsers give the neutral state (state/schema.py)
    lab.py         KINDS: the lab.LabKind of each containerlab kind in Platform.lab_kinds (none: no lab.py)

The registry is this package's `__path__`: every package folder on it is looked at once per process (`refresh()`
forgets what was found, e.g. after a test put another folder on the path). The contract every folder honours is
tested over the registry (tests/unit/plugins/plugin_utils/fabric/platforms/test_contract.py).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import os
import pkgutil
from collections.abc import Mapping
from dataclasses import dataclass

PARTS = ('render', 'deploy', 'state', 'lab')


class PlatformError(ValueError):
    """A platform folder that breaks the registry's rules (a bug in shipped data, caught by the contract test)."""


@dataclass(frozen=True)
class TimerRule:
    """Allowed values of one watchdog timer, in milliseconds."""

    minimum: int
    maximum: int
    step: int = 1

    def problem(self, value_ms: int):
        if not self.minimum <= value_ms <= self.maximum:
            return 'must be between %d and %d ms' % (self.minimum, self.maximum)
        if value_ms % self.step:
            return 'must be a multiple of %d ms' % self.step
        return None


@dataclass(frozen=True)
class WatchdogRules:
    detection: TimerRule | None
    restoration: TimerRule | None
    poll_interval: TimerRule | None
    actions: tuple
    robustness_max: int | None = None  # detection = poll_interval x robustness (NOSes that set only these two)
    unit: str = 'ms'


@dataclass(frozen=True, kw_only=True)
class Platform:
    name: str
    title: str
    # Where the platform is listed among the others (schema enums, error messages, docs): lower first.
    rank: int = 50
    port_prefix: str
    lossless_dataplane: bool
    max_lossless_priorities: int
    mtu_max: int
    watchdog: WatchdogRules | None
    config_files: tuple = ()
    # Real switch hardware: port names, lanes, breakout and FEC come from a shipped switch model
    # (switch_models.py) named the NOS's way; lab platforms number their ports port_prefix + N.
    uses_models: bool = False
    # How the NOS names a (breakout) port: sonic_lanes = the HWSKU port map's Ethernet<first lane>;
    # slot_lane = Ethernet<port>/<first lane>; split_suffix = swp<port>[s<sub-port>]; sequential = prefix + N.
    port_naming: str = 'sequential'
    # NOS releases the renderer writes for (intent topology.nos_release), oldest first, and the default one.
    releases: tuple = ()
    default_release: str | None = None
    # Renders the switch's buffer objects from the model's HWSKU data (model.sonic['buffers']).
    uses_sku_buffers: bool = False
    # Can turn on adaptive routing where the switch model has it.
    adaptive_routing: bool = False
    # The out-of-band management port and the VRF it lives in when management.vrf is on.
    management_interface: str = 'eth0'
    management_vrf: str = 'mgmt'
    # containerlab kinds a lab twin can run this platform as (lab.py KINDS beside it), the default first.
    lab_kinds: tuple = ()
    # The Linux kernel forwards transit traffic, so a capture on a port sees it (the data-plane marking probe);
    # an ASIC-forwarding switch shows its CPU only what is addressed to it.
    kernel_forwarding: bool = False
    # Filled in by the registry: the Python package of the folder and the folder itself.
    package: str = ''
    folder: str = ''

    def part(self, name: str):
        """The module `name` of the platform's folder (one of PARTS)."""
        return importlib.import_module('%s.%s' % (self.package, name))

    def has_part(self, name: str) -> bool:
        return os.path.isfile(os.path.join(self.folder, name + '.py'))

    @property
    def templates(self) -> str:
        return os.path.join(self.folder, 'templates')


def _found(module_name, folder_name):
    module = importlib.import_module(module_name)
    platform = getattr(module, 'PLATFORM', None)
    if platform is None:
        return None
    if not isinstance(platform, Platform):
        raise PlatformError('%s: PLATFORM is a %s, not a Platform' % (module_name, type(platform).__name__))
    if platform.name != folder_name:
        raise PlatformError('%s: PLATFORM.name %r must be the folder name %r' % (module_name, platform.name, folder_name))
    return dataclasses.replace(platform, package=module.__name__, folder=os.path.dirname(os.path.abspath(module.__file__)))


@functools.lru_cache(maxsize=1)
def _registry() -> dict:
    found = {}
    for info in pkgutil.iter_modules(__path__):
        if not info.ispkg or info.name in found:
            continue
        platform = _found('%s.%s' % (__name__, info.name), info.name)
        if platform is not None:
            found[platform.name] = platform
    return dict(sorted(found.items(), key=lambda item: (item[1].rank, item[0])))


def registered() -> dict:
    """{name: Platform}: the same dict until refresh(), so callers may cache what they build from it by identity."""
    return _registry()


def refresh():
    """Forget the platforms found so far: the next lookup looks at the folders on `__path__` again."""
    _registry.cache_clear()


class _Registry(Mapping):
    """{name: Platform} of every platform folder, in listing order; looked up on first use."""

    def __getitem__(self, name):
        return _registry()[name]

    def __iter__(self):
        return iter(_registry())

    def __len__(self):
        return len(_registry())

    def __repr__(self):
        return 'PLATFORMS(%s)' % ', '.join(_registry())


PLATFORMS = _Registry()


def get_platform(name: str) -> Platform:
    return PLATFORMS[name]


def platform_names() -> list:
    return list(PLATFORMS)


__all__ = ['Platform', 'PlatformError', 'TimerRule', 'WatchdogRules', 'PLATFORMS', 'PARTS', 'get_platform',
           'platform_names', 'refresh', 'registered']
