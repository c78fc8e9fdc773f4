# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""lldpd neighbours: `lldpcli -f json show neighbors` and the list-stable `lldpcli -f json0 show neighbors`.

Quirks of the `json` format (lldpd 1.0.x, recorded in tests/unit/fixtures/state/captured):
- `lldp.interface` is an object when there is one neighbour and a list of one-key objects when there are
  several; with no neighbour at all `lldp` is an empty object.
- the chassis is keyed by the system name; `mgmt-ip` is a string or a list.
- Linux peers send the MAC address as port ID (`port.id.type: mac`) and the interface name as port
  description; switches usually send the interface name (`ifname`/`local`) as port ID.
`json0` always uses lists and puts names under `name`/`value` keys.
"""

from __future__ import annotations

from . import DaemonDown, StateError, as_list, command_output, load_json, require_mapping
from .gatherer import Source
from .schema import LldpNeighbor

_NAME_ID_TYPES = ('ifname', 'local', 'ifalias')
# What lldpcli prints when no lldpd answers on its control socket (lldpd src/ctl.c, ctl_connect(): "unable to connect
# to socket %s"), with a time stamp before it: lldpd is not running.
_NO_DAEMON = 'unable to connect to socket'


def _value(item):
    """json0 wraps scalars as [{'value': x}]."""
    if isinstance(item, list):
        item = item[0] if item else None
    if isinstance(item, dict):
        return item.get('value')
    return item


def _peer_port(port_id_type, port_id, port_descr):
    """The interface name of the neighbour's port: its port ID when that is a name, else the description."""
    if port_id_type in _NAME_ID_TYPES and port_id:
        return port_id
    return port_descr or port_id


def _neighbor(source, local, data, json0):
    require_mapping(source, data, 'neighbour on %s' % local)
    if json0:
        chassis = as_list(data.get('chassis'))
        chassis = chassis[0] if chassis else {}
        system = _value(chassis.get('name'))
        ident = as_list(chassis.get('id'))
        chassis_id = ident[0].get('value') if ident and isinstance(ident[0], dict) else None
        port = as_list(data.get('port'))
        port = port[0] if port else {}
        port_ident = as_list(port.get('id'))
        port_ident = port_ident[0] if port_ident and isinstance(port_ident[0], dict) else {}
        port_descr = _value(port.get('descr'))
    else:
        chassis = require_mapping(source, data.get('chassis', {}), 'chassis of the neighbour on %s' % local)
        if isinstance(chassis.get('id'), dict):  # the neighbour sends no system name
            system, body = chassis.get('name'), chassis
        elif len(chassis) == 1 and isinstance(next(iter(chassis.values())), dict):
            system, body = next(iter(chassis.items()))
        else:
            raise StateError(source, 'chassis of the neighbour on %s has an unknown shape' % local)
        ident = body.get('id')
        chassis_id = ident.get('value') if isinstance(ident, dict) else None
        port = require_mapping(source, data.get('port', {}), 'port of the neighbour on %s' % local)
        port_ident = port.get('id') if isinstance(port.get('id'), dict) else {}
        port_descr = port.get('descr')
    port_id_type = port_ident.get('type')
    port_id = port_ident.get('value')
    return {
        'interface': local,
        'system_name': system,
        'chassis_id': chassis_id,
        'port_id_type': port_id_type,
        'port_id': port_id,
        'port_descr': port_descr,
        'peer_port': _peer_port(port_id_type, port_id, port_descr),
        'via': data.get('via'),
    }


def parse_lldp_neighbors(result) -> list[LldpNeighbor]:
    """Neighbours as dicts: interface, system_name, chassis_id, port_id_type, port_id, port_descr,
    peer_port (neighbour's interface name), via. Sorted by local interface."""
    source = 'lldpcli show neighbors json'
    if isinstance(result, dict) and result.get('rc') not in (0, None) and _NO_DAEMON in str(result.get('stderr') or ''):
        raise DaemonDown(source, 'lldpd')
    data = require_mapping(source, load_json(source, command_output(source, result)))
    if 'lldp' not in data:
        raise StateError(source, 'no "lldp" key at the top level')
    lldp = data['lldp']
    json0 = isinstance(lldp, list)
    if json0:
        lldp = lldp[0] if lldp else {}
    require_mapping(source, lldp, 'lldp')
    neighbors: list[LldpNeighbor] = []
    for entry in as_list(lldp.get('interface')):
        require_mapping(source, entry, 'an interface entry')
        if json0:
            neighbors.append(_neighbor(source, entry.get('name'), entry, json0=True))
            continue
        for local, data_item in entry.items():
            neighbors.append(_neighbor(source, local, data_item, json0=False))
    neighbors.sort(key=lambda item: (str(item['interface']), str(item['system_name'])))
    return neighbors


SOURCE = Source('lldp', ('lldpcli', '-f', 'json', 'show', 'neighbors'), parse_lldp_neighbors)

__all__ = ['parse_lldp_neighbors', 'SOURCE']
