# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The platform-neutral lossless view of a switch port: what every platform's parser produces, what the
lossless rules (checks/lossless.py) judge.

Fields (None: the platform does not expose it):
- mtu                     port MTU
- trust                   'dscp', 'cos', 'both' or None (no trust setting: classification follows the bound DSCP map)
- dscp_to_tc, dscp_map    {dscp: tc} in effect on the port and the name of the map it comes from
- pfc, pfcwd              priorities with PFC enabled / covered by the PFC watchdog
- watchdog                {action, detection_ms, restoration_ms} or None; poll_ms: watchdog poll interval
- tc_to_pg, tc_to_queue, pfc_to_queue, pfc_to_pg   {int: int} maps (None where the platform fixes them)
- queues                  {queue: {scheduler: {type, weight} | None, wred: {ecn, green_enable, min_bytes, max_bytes,
                           probability} | None}}
- pgs                     {pg: {dynamic: True} | {dynamic: False, xoff, xon, size, name}}: lossless ingress buffers
- egress                  {queue: 'lossless' | profile}: egress buffer of each queue
- cable_length_m          configured cable length (headroom input)
- headroom                'configured' (profiles in the configuration) or 'platform' (the NOS sizes headroom
                           itself for every no-drop priority, without explicit thresholds)
- in_neighbors            port listed among the switch's declared neighbours (rule C22); None where the NOS has none
- lossless_mtu            the lossless traffic pattern's MTU the headroom is sized for; None where the NOS has none
"""

from __future__ import annotations

from typing import Any, cast

from .schema import Lossless, PortView

FIELDS = ('mtu', 'trust', 'dscp_to_tc', 'dscp_map', 'pfc', 'pfcwd', 'watchdog', 'poll_ms', 'tc_to_pg', 'tc_to_queue',
          'pfc_to_queue', 'pfc_to_pg', 'queues', 'pgs', 'egress', 'cable_length_m', 'headroom', 'in_neighbors',
          'lossless_mtu')


def port_view(**fields) -> PortView:
    """A view with every field present (defaults: nothing configured)."""
    unknown = set(fields) - set(FIELDS)
    if unknown:
        raise ValueError('unknown view fields: %s' % ', '.join(sorted(unknown)))
    view: dict[str, Any] = {
        'mtu': None, 'trust': None, 'dscp_to_tc': None, 'dscp_map': None, 'pfc': [], 'pfcwd': [], 'watchdog': None,
        'poll_ms': None, 'tc_to_pg': None, 'tc_to_queue': None, 'pfc_to_queue': None, 'pfc_to_pg': None,
        'queues': {}, 'pgs': {}, 'egress': {}, 'cable_length_m': None, 'headroom': 'configured',
        'in_neighbors': None, 'lossless_mtu': None}
    view.update(fields)
    return cast(PortView, view)  # every field, of the names FIELDS allows (held at run time by Gatherer.parse)


def identity(values) -> dict:
    """{v: v}: the fixed priority = TC = PG = queue mapping of platforms without these maps."""
    return {value: value for value in values}


def lossless_state(ports: dict[str, PortView], source: str, issues=()) -> Lossless:
    """The neutral `lossless` state of a switch: {'ports': {port: view}, 'source': ..., 'issues': [...]}, its views
    shared with every equal view parsed before (`shared_view`)."""
    return {'ports': {name: shared_view(view) for name, view in ports.items()}, 'source': source, 'issues': list(issues)}


# Equal views are one object. A fabric's switches of a tier run one QoS configuration (the design's), so the views of
# thousands of ports, read back from the running switches and from the rendered files, are a handful of distinct
# maps, held once instead of once per port (half a MB per 64-port switch). Views are never changed once made: checks
# only read them. Keyed by repr(), which tells apart what == does not (1, 1.0, True; a map's order).
_SHARED: dict = {}
SHARED_LIMIT = 100000  # distinct parts kept; past it the table starts again (hostile devices: every value distinct)


def shared_view(view: PortView) -> PortView:
    """The view, its dict and list fields replaced by the equal ones of views made before, or the equal view itself."""
    if len(_SHARED) > SHARED_LIMIT:
        _SHARED.clear()
    fields = {}
    for field, value in view.items():
        if isinstance(value, (dict, list)):
            value = _SHARED.setdefault(repr(value), value)
        fields[field] = value
    key = ('view',) + tuple((field, id(value) if isinstance(value, (dict, list)) else repr(value))
                            for field, value in fields.items())
    return _SHARED.setdefault(key, cast(PortView, fields))


def route_table(routes: list) -> list:
    """The neutral routes of one table, each distinct list of next hops one object: a leaf's routes to the other VTEPs
    share their ECMP group (on a 16k-GPU fabric, 512 routes over the same 32 uplinks: 16,000 next hops read, 32
    kept). Routes are never changed once parsed."""
    groups: dict = {}
    for route in routes:
        try:
            key = tuple((hop['gateway'], hop['dev']) for hop in route['nexthops'])
        except (TypeError, KeyError):  # not a list of next hops: the type check after parsing says so
            continue
        route['nexthops'] = groups.setdefault(key, route['nexthops'])
    return routes


__all__ = ['port_view', 'identity', 'lossless_state', 'shared_view', 'route_table', 'FIELDS']
