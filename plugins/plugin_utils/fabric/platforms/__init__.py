# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Switch platforms: one folder per network OS, found here. Nothing outside the folders names a platform.

A folder `platforms/<name>/` is a platform when its `__init__.py` defines `PLATFORM = Platform(name='<name>', ...)`:
what the NOS is (limits, watchdog rules, releases, port naming, management) as data. Beside it, by convention:

    render.py      render(model, env) -> {file name: text}: the device model in the NOS's own shape
    templates/     its Jinja2 templates, named '<name>/<file>' in the shared environment (render.environment); a long
                   file's template only includes templates/sections/<section>.j2, one per configuration section
    deploy.py      DRIVER: a deploy.contract.Driver (push / confirm / rollback with a confirm timer on the switch)
    state.py       GATHERER: a state.gatherer.Gatherer whose parsers give the neutral state (state/schema.py)
    lab.py         KINDS: the lab.LabKind of each containerlab kind in Platform.lab_kinds (none: no lab.py)
    docs           docs/platform-<name>.md of the collection, or README.md in the folder

The registry is this package's folder: every package folder in it is looked at once per process. add_folder() makes it
look in another folder as well (nothing in the collection does: tests point it at a fixture platform) and refresh()
forgets what was found. The contract every folder honours is
tested over the registry (tests/unit/plugins/plugin_utils/fabric/platforms/test_contract.py).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import importlib.util
import os
import pkgutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass

PARTS = ('render', 'deploy', 'state', 'lab')
COLLECTION = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), *['..'] * 4))


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


@dataclass(frozen=True)
class ModelSection:
    """A platform's own section of a switch model file (hardware/<model>.yml, keyed by the platform's name), for the
    data only that NOS has of the box (SONiC: the HWSKU's port map and buffer objects). Every model that runs the
    platform has it."""

    schema: str  # its JSON Schema, a YAML file in the platform's folder
    read: object  # read(section, model_data) -> the section as the platform uses it; ValueError naming what is wrong
    title: str  # what it holds, for messages ('HWSKU ports and buffers')


@dataclass(frozen=True)
class SecretForms:
    """How a NOS prints its secrets in what is read from it (running configuration, its databases, its diffs), so
    that device_text.mask() hides them wherever that text goes. Each form comes from the vendor's documented syntax.

    lines:  regular expressions over one line of its configuration text; the group named `secret` is the secret
            (`tacacs-server key 7 (?P<secret>\\S+)`); a leading `^\\s*` and a trailing `\\s*$` also match the line as
            other text carries it (a diff's -/+ line, a line a message quotes: device_text.LINE_START)
    fields: keys of its structured configuration (JSON, YAML) whose value is a secret (`passkey`, `secret`)
    names:  keys whose entries are named by a secret (SNMP communities: `SNMP_COMMUNITY`, `readonly-community`)
    words:  the words without which no line pattern matches (a quick test before the patterns run)
    """

    lines: tuple = ()
    fields: tuple = ()
    names: tuple = ()
    words: tuple = ()


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
    # The short name in messages ('SONiC takes ...').
    label: str = ''
    # Real switch hardware: port names, lanes, breakout and FEC come from a shipped switch model
    # (switch_models.py) named the NOS's way; lab platforms number their ports port_prefix + N.
    uses_models: bool = False
    # How the NOS names a (breakout) port of a model: port_naming(model, cage, subport, lanes, mode) ->
    # {name, parent, lane_ids, alias} (switch_models.physical_port).
    port_naming: object = None
    # NOS releases the renderer writes for (intent topology.nos_release), oldest first, and the default one.
    releases: tuple = ()
    default_release: str | None = None
    # The buffer objects of the switch's SKU when the NOS renders them from the model's SKU data: sku_buffers(model) ->
    # (sku, where it comes from), or None when the model has no such data (the switch cannot be designed then).
    # sku['pools'] is {pool name: {type: ingress|egress, mode, size[, xoff]}} and sku['ingress_lossless_pool'] and
    # sku['egress_lossless_pool'] name the pools the design sizes for the headroom (design/lossless.py sku_pools);
    # the rest is the renderer's. None: the NOS sizes its pools itself.
    sku_buffers: object = None
    # Buffer the NOS keeps out of the shared pools beside the lossless headroom, for a SKU with independent headroom:
    # buffer_reserves(model, asic, port_lanes, lossy_pgs_per_port, lossless_ports) -> (bytes, what they are), where
    # port_lanes lists the lane count of every port that is up (used or not). None: nothing is reserved.
    buffer_reserves: object = None
    # What the device model says of the switch beyond its model (hardware_facts(model) -> {key: value}).
    hardware_facts: object = None
    # Its own section of the switch model files, when it keeps data there (ModelSection; read through
    # SwitchModel.section(name)).
    model_section: ModelSection | None = None
    # VRF names: the longest the NOS takes as the intent writes them (a Linux interface name holds 15 characters), and
    # the names it keeps for itself beside `default` and its management VRF (the intent schema takes every platform's).
    vrf_name_max: int = 15
    reserved_vrf_names: tuple = ()
    # The table where the NOS lists each port's neighbour, which makes the port active for the NOS's own tools (rule
    # C22 of the lossless checks); None where it has none.
    neighbor_table: str | None = None
    # The data plane lives in the Linux kernel, not in an ASIC: the overlay is bridge and VXLAN netdevs the gatherer
    # reads, and transit traffic passes the kernel, so a capture on a port sees it (the data-plane marking probe; an
    # ASIC-forwarding switch shows its CPU only what is addressed to it).
    kernel_dataplane: bool = False
    # Can turn on adaptive routing where the switch model has it.
    adaptive_routing: bool = False
    # A strict-priority egress queue is served only above every round-robin one (a round-robin queue makes every lower
    # queue round-robin too): the CNP class, the one strict class, takes the highest queue, which no lossless priority
    # may then hold.
    strict_queue_on_top: bool = False
    # Renders management.allowed_sources as an access list on its SSH and API services.
    management_acl: bool = False
    # The out-of-band management port and the VRF it lives in when management.vrf is on.
    management_interface: str = 'eth0'
    management_vrf: str = 'mgmt'
    # Its logical interfaces as the NOS names them (the NetBox export records them by these names): the router-ID
    # loopback, the VTEP's source (the same name when one loopback holds both addresses) and the SVI of a routed
    # network ('{vlan}' stands for its VLAN ID); svi_address: that SVI holds an address of its own beside the anycast
    # gateway (NVUE's VRR). The contract test checks them against what render.py writes.
    loopback_interface: str = 'lo'
    vtep_interface: str = 'lo'
    svi_interface: str = 'vlan{vlan}'
    svi_address: bool = False
    # containerlab kinds a lab twin can run this platform as (lab.py KINDS beside it), the default first.
    lab_kinds: tuple = ()
    # The Python packages its deploy driver and its gatherer (with the checks that read what it gathers) import:
    # the action plugins import them in the controller before Ansible forks a worker per host and task
    # (import_in_controller).
    deploy_libraries: tuple = ()
    state_libraries: tuple = ()
    # How it prints secrets (device_text masks them in everything read from it, wherever it is shown).
    secrets: SecretForms = SecretForms()
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

    def docs_page(self) -> str:
        """Its page: README.md in its folder, else docs/platform-<name>.md of the collection."""
        own = os.path.join(self.folder, 'README.md')
        return own if os.path.isfile(own) else os.path.join(COLLECTION, 'docs', 'platform-%s.md' % self.name)


def sequential_ports(prefix):
    """Port naming of a lab platform without switch models is prefix + N; this is its counterpart for a model."""
    def naming(model, cage, subport, lanes, mode):
        return {'name': '%s%d' % (prefix, cage) if mode.ports == 1 else '%s%d.%d' % (prefix, cage, subport),
                'parent': '%s%d' % (prefix, cage)}
    return naming


def _found(module_name, folder_name, folder=None):
    if folder is None:
        module = importlib.import_module(module_name)
    else:  # a folder beyond the shipped ones: imported as a package of its own
        module = sys.modules.get(module_name)
        if module is None:
            spec = importlib.util.spec_from_file_location(module_name, os.path.join(folder, '__init__.py'),
                                                          submodule_search_locations=[folder])
            module = importlib.util.module_from_spec(spec)
            sys.modules[module_name] = module
            spec.loader.exec_module(module)
    platform = getattr(module, 'PLATFORM', None)
    if platform is None:
        return None
    if not isinstance(platform, Platform):
        raise PlatformError('%s: PLATFORM is a %s, not a Platform' % (module_name, type(platform).__name__))
    if platform.name != folder_name:
        raise PlatformError('%s: PLATFORM.name %r must be the folder name %r' % (module_name, platform.name, folder_name))
    return dataclasses.replace(platform, package=module.__name__, folder=os.path.dirname(os.path.abspath(module.__file__)),
                               label=platform.label or platform.name,
                               port_naming=platform.port_naming or sequential_ports(platform.port_prefix))


# Folders of platforms beyond the shipped ones (add_folder). Empty in the collection: tests point the registry at a
# fixture folder this way.
_EXTRA_FOLDERS = []


@functools.lru_cache(maxsize=1)
def _registry() -> dict:
    found = {}
    for info in pkgutil.iter_modules(__path__):
        if info.ispkg:
            platform = _found('%s.%s' % (__name__, info.name), info.name)
            if platform is not None:
                found[platform.name] = platform
    for parent in _EXTRA_FOLDERS:
        for info in pkgutil.iter_modules([parent]):
            if info.ispkg and info.name not in found:
                platform = _found('_aifabric_platform_%s' % info.name, info.name, os.path.join(parent, info.name))
                if platform is not None:
                    found[platform.name] = platform
    return dict(sorted(found.items(), key=lambda item: (item[1].rank, item[0])))


def add_folder(parent):
    """Look for platform folders in `parent` too (each subfolder with an __init__.py defining PLATFORM)."""
    _EXTRA_FOLDERS.append(os.path.abspath(parent))
    refresh()


def remove_folder(parent):
    _EXTRA_FOLDERS.remove(os.path.abspath(parent))
    for name in [name for name in sys.modules if name.startswith('_aifabric_platform_')]:
        del sys.modules[name]
    refresh()


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


def import_in_controller(part, platform_names=None):
    """Import the device libraries of the platforms' `part` ('deploy' or 'state': Platform.deploy_libraries,
    state_libraries) when the action plugin that needs them is loaded, not in each task's worker.

    Ansible's linear and free strategies load a task's action plugin in the controller before they fork one worker
    per host, and each worker inherits the controller's imports. Imported in the worker, napalm (its package imports
    every driver it ships), netmiko and ANTA cost about a second of CPU per host and task; imported in the controller,
    a second per playbook. Only those of `platform_names` (the fabric's) are imported, every platform's when it is
    None: a lab of FRR switches validates without any. A missing library is left to the step that needs it, which
    names it.
    """
    names = [name for platform in PLATFORMS.values() if platform_names is None or platform.name in platform_names
             for name in getattr(platform, part + '_libraries')]
    for name in dict.fromkeys(names):
        try:
            importlib.import_module(name)
        except ImportError:
            pass


__all__ = ['Platform', 'PlatformError', 'SecretForms', 'TimerRule', 'WatchdogRules', 'ModelSection', 'PLATFORMS', 'PARTS',
           'get_platform', 'platform_names', 'refresh', 'registered', 'add_folder', 'remove_folder', 'import_in_controller']
