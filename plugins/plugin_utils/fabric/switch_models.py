# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Switch hardware models as data: one YAML file per model in hardware/, checked against
schema/switch-model.schema.yml when loaded.

A model says what the box is (vendor, ASIC family, the NOSes it runs), what its front panel offers (ports, lanes
per port, native lane rate, the breakout modes exactly as SONiC's platform.json spells them), its lossless headroom
table, and in a section per platform what only that NOS knows of it (SONiC's: the HWSKU's port map and buffer
objects; the platform's Platform.model_section gives its schema and reads it). Port names,
lanes, speeds, breakout and FEC of every rendered port come from here, never from a guess per ASIC.

How a port is carried at a speed (`SwitchModel.mode`): among the breakout modes whose main speed is that speed,
the one that runs it on the model's native lane rate (the way standard optics and NICs run it: 400G on 100G lanes
is 2 x 400G of an 800G cage, on 50G lanes 1 x 400G of 8 lanes); else the mode with most ports that lists the
speed at all. A topology port number p at that speed is cage (p - 1) // ports_per_cage + 1, sub-port
(p - 1) % ports_per_cage.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass

from . import compile_cache
from .asic import asic_names
from .intent_yaml import load_package_yaml
from .platforms import PLATFORMS

MODELS_DIR = os.path.join(os.path.dirname(__file__), 'hardware')
SCHEMA_PATH = os.path.join(os.path.dirname(__file__), 'schema', 'switch-model.schema.yml')
# SONiC platform.json breakout mode: <ports>x<speed>G[(<lanes used>)][[<other speeds>]], e.g. 2x400G[200G,100G],
# 2x100G(4)[40G] (two 100G ports on 4 of the cage's lanes).
MODE_PATTERN = re.compile(r'^(?P<ports>[1-9][0-9]*)x(?P<speed>[0-9]+)G(\((?P<lanes>[0-9]+)\))?'
                          r'(\[(?P<others>[0-9]+G(,[0-9]+G)*)\])?$')
# Forward error correction by lane rate: Reed-Solomon for PAM4 lanes (50G and up, where IEEE 802.3 makes RS-FEC
# mandatory) and for 25G NRZ lanes (100GBASE-SR4/CR4 and 25G use RS-528); none on 10G lanes.
RS_FEC_MIN_LANE_GBPS = 25


class ModelError(ValueError):
    """A model file that breaks the schema or its own rules (a bug in shipped data, caught by unit tests)."""


@dataclass(frozen=True)
class BreakoutMode:
    text: str  # exactly as platform.json spells it (SONiC BREAKOUT_CFG.brkout_mode)
    ports: int  # ports per cage
    speed_gbps: int  # main speed
    lanes_per_port: int | None  # None where the mode does not say (parse_mode); the model's lanes / ports
    other_speeds: tuple

    def carries(self, speed_gbps: int) -> bool:
        return speed_gbps == self.speed_gbps or speed_gbps in self.other_speeds


@dataclass(frozen=True, eq=False)
class SwitchModel:
    name: str
    title: str
    vendor: str
    asic: str
    nos: tuple
    port_count: int
    lanes: int
    lane_gbps: int
    breakout: tuple
    sections: dict  # {platform: its section, as the platform read it} (Platform.model_section)
    headroom_lookup: dict | None  # (speed_gbps, cable_m) -> (xon, xoff, size)
    vxlan_dscp_propagation: bool
    vxlan_ecn_propagation: bool
    adaptive_routing: bool
    default_for: tuple
    source: str
    manufacturer: str = ''  # the maker's own spelling (NVIDIA); the vendor when the model names none
    product: str = ''       # the datasheet's model number (SN5600); the model's name when it names none
    form_factor: str | None = None  # the front-panel cage (osfp, qsfpdd, ...), None when the model does not say
    rack_units: int | None = None   # height, None when the model does not say

    def section(self, platform: str):
        """The platform's own section of the model (None: the model has none)."""
        return self.sections.get(platform)

    def mode(self, speed_gbps: int):
        """The breakout mode that carries `speed_gbps`, or None when the model cannot run that speed."""
        return _mode(self, speed_gbps)

    def _choose_mode(self, speed_gbps: int):
        native = [mode for mode in self.breakout if mode.speed_gbps == speed_gbps]
        for mode in native:
            if mode.lanes_per_port * self.lane_gbps == speed_gbps:
                return mode
        candidates = native or [mode for mode in self.breakout if mode.carries(speed_gbps)]
        if not candidates:
            return None
        return max(candidates, key=lambda mode: (mode.ports, -self.breakout.index(mode)))

    def speeds(self) -> list:
        return sorted({speed for mode in self.breakout for speed in (mode.speed_gbps,) + mode.other_speeds})

    def ports_at(self, speed_gbps: int) -> int:
        """How many ports of `speed_gbps` the front panel offers (0 if it cannot run the speed)."""
        mode = self.mode(speed_gbps)
        return self.port_count * mode.ports if mode else 0

    def fec(self, speed_gbps: int, lanes: int) -> str:
        return 'rs' if speed_gbps / max(lanes, 1) >= RS_FEC_MIN_LANE_GBPS else 'none'


@functools.lru_cache(maxsize=256)
def _mode(model: SwitchModel, speed_gbps: int):
    return model._choose_mode(speed_gbps)  # pylint: disable=protected-access


def parse_mode(text: str) -> BreakoutMode:
    match = MODE_PATTERN.match(text)
    if not match:
        raise ModelError('breakout mode %r is not <ports>x<speed>G[(<lanes>)][[<speeds>]]' % text)
    ports = int(match.group('ports'))
    others = tuple(int(item[:-1]) for item in match.group('others').split(',')) if match.group('others') else ()
    lanes = int(match.group('lanes')) if match.group('lanes') else None
    return BreakoutMode(text, ports, int(match.group('speed')), lanes, others)


def _model_from_data(data: dict, path: str) -> SwitchModel:
    ports = data['ports']
    modes = []
    for text in ports['breakout']:
        mode = parse_mode(text)
        used = mode.lanes_per_port or ports['lanes']
        if used > ports['lanes'] or used % mode.ports:
            raise ModelError('%s: breakout mode %s uses %d lanes on a %d-lane port' % (path, text, used, ports['lanes']))
        modes.append(BreakoutMode(text, mode.ports, mode.speed_gbps, used // mode.ports, mode.other_speeds))
    sections = _sections(data, path)
    lookup = None
    if data.get('headroom_lookup'):
        lookup = {(row[0], row[1]): (row[2], row[3], row[4]) for row in data['headroom_lookup']}
    return SwitchModel(
        name=data['name'], title=data['title'], vendor=data['vendor'], asic=data['asic'], nos=tuple(data['nos']),
        port_count=ports['count'], lanes=ports['lanes'], lane_gbps=ports['lane_gbps'], breakout=tuple(modes),
        sections=sections, headroom_lookup=lookup,
        vxlan_dscp_propagation=bool(data.get('vxlan', {}).get('dscp_propagation', False)),
        vxlan_ecn_propagation=bool(data.get('vxlan', {}).get('ecn_propagation', False)),
        adaptive_routing=bool(data.get('adaptive_routing', False)),
        default_for=tuple(data.get('default_for', ())),
        source=os.path.basename(path),
        manufacturer=data.get('manufacturer', data['vendor']), product=data.get('product', data['name']),
        form_factor=ports.get('form_factor'), rack_units=data.get('rack_units'))


def _sections(data: dict, path: str) -> dict:
    """{platform: its section as it reads it} of the platforms that keep a section in models; a model that runs
    such a platform must have it."""
    sections = {}
    for name, platform in PLATFORMS.items():
        spec = platform.model_section
        if spec is None:
            continue
        if data.get(name) is None:
            if name in data['nos']:
                raise ModelError('%s: runs %s but has no %s section (%s)' % (path, name, name, spec.title))
            continue
        try:
            sections[name] = spec.read(data[name], data)
        except ValueError as error:
            raise ModelError('%s: %s' % (path, error)) from None
    return sections


@functools.lru_cache(maxsize=1)
def _schema_validator():
    import jsonschema
    schema = model_schema()
    return jsonschema.validators.validator_for(schema)(schema)


def model_schema() -> dict:
    """The switch model schema with the NOSes a model may name (the platforms that use switch models), the ASIC
    families (asic.py) and each platform's own section."""
    schema = load_package_yaml(SCHEMA_PATH)
    runs = [name for name, platform in PLATFORMS.items() if platform.uses_models]
    for key in ('nos', 'default_for'):
        schema['properties'][key]['items']['enum'] = runs
    schema['properties']['asic']['enum'] = asic_names()
    for name, path in _section_schemas().items():
        schema['properties'][name] = load_package_yaml(path)
    return schema


def _section_schemas() -> dict:
    return {name: os.path.join(platform.folder, platform.model_section.schema)
            for name, platform in PLATFORMS.items() if platform.model_section is not None}


@functools.lru_cache(maxsize=1)
def load_models() -> dict:
    """Every shipped model by name, validated against the model schema (once per user for the same files: the
    verdict is kept in compile_cache, which spares a fresh process importing jsonschema)."""
    models = {}
    entries = sorted(entry for entry in os.listdir(MODELS_DIR) if entry.endswith('.yml'))
    schemas = [SCHEMA_PATH] + sorted(_section_schemas().values())
    digest = compile_cache.files_digest(schemas + [os.path.join(MODELS_DIR, entry) for entry in entries], 'jsonschema')
    checked = compile_cache.known_valid('switch-models', digest)
    for entry in entries:
        path = os.path.join(MODELS_DIR, entry)
        data = load_package_yaml(path)
        errors = [] if checked else sorted(_schema_validator().iter_errors(data), key=lambda error: list(error.absolute_path))
        if errors:
            raise ModelError('%s: %s at %s' % (entry, errors[0].message, list(errors[0].absolute_path)))
        if data['name'] + '.yml' != entry:
            raise ModelError('%s: name %s must match the file name' % (entry, data['name']))
        models[data['name']] = _model_from_data(data, path)
    if not checked:
        compile_cache.note_valid('switch-models', digest)
    return models


def model_names() -> list:
    return sorted(load_models())


def get_model(name: str) -> SwitchModel:
    return load_models()[name]


@functools.lru_cache(maxsize=None)
def default_model(platform: str, asic: str | None):
    """The model a role gets when the intent names none: the shipped model that says it is the default for that
    NOS (data: `default_for`), else the first by name; of the intent's ASIC when it names one."""
    candidates = [model for model in load_models().values()
                  if platform in model.nos and (asic is None or model.asic == asic)]
    candidates.sort(key=lambda model: (platform not in model.default_for, model.name))
    return candidates[0] if candidates else None


# ----------------------------------------------------------------------------------------------- port naming
def cage_of(port: int, mode: BreakoutMode) -> tuple:
    """(cage, sub-port) of topology port number `port` (1-based) carried in `mode`."""
    return (port - 1) // mode.ports + 1, (port - 1) % mode.ports


def first_port_on_cage(cage: int, mode: BreakoutMode) -> int:
    """Topology port number of the first sub-port of `cage` in `mode`."""
    return (cage - 1) * mode.ports + 1


_PHYSICAL_PORTS = {}


def physical_port(naming, model: SwitchModel, port: int, speed_gbps: int) -> dict:
    """Name, lanes, alias, breakout and FEC of topology port `port` at `speed_gbps` on `model`, named the way
    the NOS names it (`naming` is the platform's port_naming: see _physical_port); None when the port lies beyond
    the model's cages. The same dict for the same port of every switch of a model: read it, never change it."""
    key = (naming, id(model), port, speed_gbps)
    entry = _PHYSICAL_PORTS.get(key)
    if entry is None or entry[0] is not model:  # the model is kept in the entry, so its id is not reused
        entry = _PHYSICAL_PORTS[key] = (model, _physical_port(naming, model, port, speed_gbps))
    return entry[1]


def port_cage(model: SwitchModel, port: int, speed_gbps: int) -> int:
    """Front-panel cage of topology port `port` at `speed_gbps` (may exceed the model's port count)."""
    return cage_of(port, model.mode(speed_gbps))[0]


def _physical_port(naming, model, port, speed_gbps):
    """The port's cage, sub-port, lanes, FEC and breakout from the model, and what the NOS calls it:
    naming(model, cage, subport, lanes, mode) -> {name, parent, lane_ids, alias} (platforms/<name>/__init__.py)."""
    if port_cage(model, port, speed_gbps) > model.port_count:
        return None
    mode = model.mode(speed_gbps)
    cage, sub = cage_of(port, mode)
    lanes = mode.lanes_per_port
    info = {'cage': cage, 'subport': sub, 'lanes': lanes, 'fec': model.fec(speed_gbps, lanes),
            'breakout': mode.text, 'split': mode.ports > 1, 'lane_ids': None, 'alias': None, 'parent': None}
    info.update(naming(model, cage, sub, lanes, mode))
    return info
