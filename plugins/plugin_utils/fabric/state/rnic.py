# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The lossless view of a GPU server's RDMA NICs, from the facts of aifabric.fabric.rnic_facts.

Input: the `aifabric_rnic` fact (or the whole registered module result). Facts crossed Ansible's JSON
transport, so integer keys (DSCP, priority) arrive as strings; this module turns them back into ints.
Output per netdev: mtu, trust, dscp_to_priority, pfc_priorities, ecn (rp/np priorities enabled or None
when the driver does not expose them), cnp_dscp, cnp_priority, global pause, verbs traffic class,
RDMA-CM ToS and the cable length the NIC sizes its headroom for, with `tool` naming where the QoS came from
(mlnx_qos or iproute2 dcb).
"""

from __future__ import annotations

from . import StateError, require_mapping
from .schema import Rnic

SOURCE = 'aifabric.fabric.rnic_facts'


def _int_map(source, mapping, what):
    result = {}
    for key, value in (mapping or {}).items():
        try:
            result[int(key)] = int(value)
        except (TypeError, ValueError):
            raise StateError(source, '%s has a non-numeric entry %r: %r' % (what, key, value)) from None
    return result


def _enabled(mapping):
    return sorted(prio for prio, value in _int_map(SOURCE, mapping, 'ecn enable').items() if value)


def _interface(name, data, devices):
    require_mapping(SOURCE, data, 'interface %s' % name)
    qos = data.get('qos') or None
    ecn = data.get('ecn') or {}
    view = {
        'interface': name,
        'exists': bool(data.get('exists', True)),
        'mtu': data.get('mtu'),
        'operstate': data.get('operstate'),
        'rdma_devices': list(data.get('rdma_devices') or []),
        'qos_tool': qos.get('tool') if qos else None,
        'trust': qos.get('trust') if qos else None,
        'pfc_priorities': sorted(int(prio) for prio in qos.get('pfc_priorities') or []) if qos else None,
        'dscp_to_priority': _int_map(SOURCE, qos.get('dscp2prio'), 'dscp2prio') if qos else None,
        # 0: the NIC reports no cable length (its firmware owns the port buffer); facts of the tools' own keys too
        'cable_length_m': (qos.get('cable_length_m', qos.get('cable_len', qos.get('delay'))) or None) if qos else None,
        'ecn_rp_priorities': None,
        'ecn_np_priorities': None,
        'cnp_dscp': None,
        'cnp_priority': None,
        'cnp_source': None,
        'pause': data.get('pause'),
        'traffic_class': None,
        'rdma_cm_tos': None,
    }
    if ecn.get('available'):
        view.update(ecn_rp_priorities=_enabled(ecn.get('roce_rp')), ecn_np_priorities=_enabled(ecn.get('roce_np')),
                    cnp_dscp=ecn.get('cnp_dscp'), cnp_priority=ecn.get('cnp_802p_prio'),
                    cnp_source='sysfs ecn/roce_np')
    elif isinstance(ecn.get('cc_debugfs'), dict):
        debugfs = ecn['cc_debugfs']
        view.update(cnp_dscp=debugfs.get('np_cnp_dscp'), cnp_priority=debugfs.get('np_cnp_prio'),
                    cnp_source='debugfs mlx5 cc_params')
    for device_name in view['rdma_devices']:
        device = devices.get(device_name) or {}
        klass = device.get('traffic_class') or {}
        if klass.get('global') is not None:
            view['traffic_class'] = klass['global']
        cm = device.get('rdma_cm') or {}
        if cm.get('present'):
            view['rdma_cm_tos'] = cm.get('tos')
    return view


def parse_rnic_facts(result) -> Rnic:
    """{'not_applicable': reason|None, 'errors': [...], 'interfaces': {netdev: view}}."""
    if isinstance(result, dict) and 'ansible_facts' in result:
        result = (result.get('ansible_facts') or {}).get('aifabric_rnic')
    if isinstance(result, dict) and result.get('skipped'):
        raise StateError(SOURCE, 'not gathered (task skipped)')
    if isinstance(result, dict) and result.get('failed'):
        raise StateError(SOURCE, 'module failed: %s' % result.get('msg', 'no message'))
    if result is None:
        raise StateError(SOURCE, 'no aifabric_rnic facts (module not run)')
    require_mapping(SOURCE, result)
    if 'interfaces' not in result and 'not_applicable' not in result:
        raise StateError(SOURCE, 'neither interfaces nor not_applicable in the facts')
    devices = require_mapping(SOURCE, result.get('devices') or {}, 'devices')
    interfaces = require_mapping(SOURCE, result.get('interfaces') or {}, 'interfaces')
    return {
        'not_applicable': result.get('not_applicable'),
        'errors': list(result.get('errors') or []),
        'interfaces': {name: _interface(name, data, devices) for name, data in interfaces.items()},
    }


__all__ = ['parse_rnic_facts', 'SOURCE']
