# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""GPU server files from the host model: formatting only, every value comes from the design.

Files (name -> where the roles put it):
  nccl.conf                              -> /etc/nccl.conf                           (host_nccl)
  rnic/aifabric-rnic-qos                 -> /usr/local/sbin/aifabric-rnic-qos        (host_rnic)
  rnic/aifabric-rnic-qos@.service        -> /etc/systemd/system/                     (host_rnic)
  gpudirect/aifabric-nvidia-peermem.conf -> /etc/modules-load.d/                     (host_gpudirect, peermem)
                                                                                     (auto: where it falls back)
  host.json                              -> the model, for people and automation
  (fabric level, render_kubernetes) k8s/<fabric>-rail<N>.*.yaml -> kubectl apply -f   (host_k8s_network)

The roles copy these rendered files instead of templating again, so what `render` shows is what lands on a
host. The NCCL and re-apply values are the ones the switches are rendered from (one lossless profile).
"""

from __future__ import annotations

import json
import re

from jinja2 import Environment

from . import jsontext
from .model import HostModel

RNIC_SCRIPT = 'rnic/aifabric-rnic-qos'
RNIC_UNIT = 'rnic/aifabric-rnic-qos@.service'
PEERMEM_CONF = 'gpudirect/aifabric-nvidia-peermem.conf'
NCCL_CONF = 'nccl.conf'
HOST_JSON = 'host.json'
K8S_DIR = 'k8s'

_NCCL_KEY = re.compile(r'^NCCL_[A-Z0-9_]+$')


def nccl_lines(nccl: dict) -> list:
    """KEY=VALUE lines exactly as NCCL reads them: split at the first '=', no quotes, no trimming."""
    lines = []
    for key, value in nccl.items():
        text = str(value)
        if not _NCCL_KEY.match(key):
            raise ValueError('nccl setting %r: NCCL reads only NCCL_* names (upper case, digits, _)' % key)
        if any(char in text for char in '\r\n') or text != text.strip() or (text[:1] in '"\'' and text[-1:] == text[:1]):
            raise ValueError('nccl setting %s=%r: NCCL takes values verbatim, so no newlines, surrounding spaces '
                             'or quotes' % (key, text))
        lines.append('%s=%s' % (key, text))
    return lines


def dscp_map(rnic: dict) -> dict:
    """The NIC's DSCP -> priority map: all 64 code points, the switches' DSCP -> traffic class map."""
    return {int(dscp): int(prio) for dscp, prio in rnic['dscp_to_priority'].items()}


def _ranges(numbers: list) -> str:
    """[0, 1, 2, 5, 7, 8] -> '0-2,5,7-8' (sorted input)."""
    parts, start = [], None
    for index, number in enumerate(numbers):
        if start is None:
            start = number
        if index + 1 == len(numbers) or numbers[index + 1] != number + 1:
            parts.append(str(start) if start == number else '%d-%d' % (start, number))
            start = None
    return ','.join(parts)


def _context(model: HostModel) -> dict:
    rnic = model['rnic']
    mapping = dscp_map(rnic)
    return {
        'model': model,
        'rnic': rnic,
        'rails': model['rails'],
        'pfc_mask_csv': ','.join(str(bit) for bit in rnic['pfc_mask']),
        'pfc_mask_text': ''.join(str(bit) for bit in rnic['pfc_mask']),
        'dcb_pfc': ' '.join('%d:%s' % (prio, 'on' if bit else 'off') for prio, bit in enumerate(rnic['pfc_mask'])),
        'dscp_map': ' '.join('%d:%d' % (dscp, mapping[dscp]) for dscp in sorted(mapping)),
        'dscp_by_priority': [(prio, _ranges([dscp for dscp in sorted(mapping) if mapping[dscp] == prio]))
                             for prio in sorted(set(mapping.values()))],
        'nccl_lines': nccl_lines(model['nccl']),
    }


_JSON_CACHE = {}


def _json(value) -> str:
    """json.dumps(value, indent=2). Indented JSON goes through the pure-Python encoder (about 0.15 ms for a CNI
    config, the same one on every server of a rail), so it is memoised on the compact C-encoded form, which
    differs from the indented one only in whitespace."""
    key = json.dumps(value, sort_keys=False)
    text = _JSON_CACHE.get(key)
    if text is None:
        if len(_JSON_CACHE) >= 4096:
            _JSON_CACHE.clear()
        text = _JSON_CACHE[key] = jsontext.dumps(value, indent=2)
    return text


def render(model: HostModel, env: Environment) -> dict[str, str]:
    context = _context(model)
    files = {
        NCCL_CONF: env.get_template('hosts/nccl.conf.j2').render(context),
        RNIC_SCRIPT: env.get_template('hosts/aifabric-rnic-qos.sh.j2').render(context),
        RNIC_UNIT: env.get_template('hosts/aifabric-rnic-qos@.service.j2').render(context),
        # parts shared by the models of servers with the same NICs (the design's objects): each formatted once
        HOST_JSON: jsontext.dumps(model, indent=2, frozen=(
            model['kubernetes'], model['rnic'], model['nccl'], model['sysctl'])) + '\n',
    }
    if model['gpudirect'] in ('peermem', 'auto'):  # auto: installed where host_gpudirect falls back to peermem
        files[PEERMEM_CONF] = env.get_template('hosts/nvidia-peermem.conf.j2').render(context)
    return files


def render_kubernetes(k8s: dict, fabric: str, env) -> dict:
    """Fabric-level Kubernetes manifests (one set per fabric, not per server): rail networks for training pods."""
    files = {}
    if not k8s.get('enabled'):
        return files
    context = {'fabric': fabric}
    for network in k8s['networks']:
        net = dict(context, k8s=k8s, net=network, cni_config=_json(_cni_config(k8s, network)))
        base = '%s/%s' % (K8S_DIR, network['name'])
        if k8s['mode'] in ('sriov', 'macvlan'):
            files[base + '.network-attachment-definition.yaml'] = \
                env.get_template('hosts/k8s/network-attachment-definition.yaml.j2').render(net)
        if k8s['mode'] in ('sriov', 'sriov_operator'):
            files[base + '.sriov-network-node-policy.yaml'] = \
                env.get_template('hosts/k8s/sriov-network-node-policy.yaml.j2').render(net)
        if k8s['mode'] == 'sriov_operator':
            net['ipam_json'] = json.dumps(_ipam(network), sort_keys=False)
            files[base + '.sriov-network.yaml'] = env.get_template('hosts/k8s/sriov-network.yaml.j2').render(net)
    if k8s['mode'] == 'macvlan':
        files['%s/%s-rdma-shared-device-plugin.configmap.yaml' % (K8S_DIR, fabric)] = \
            env.get_template('hosts/k8s/rdma-shared-device-plugin.yaml.j2').render(
                dict(context, k8s=k8s, plugin_config=_json(_rdma_shared_config(k8s))))
    return files


def _ipam(network: dict) -> dict:
    ipam = {'type': 'whereabouts', 'range': network['subnet'], 'range_start': network['range_start'],
            'range_end': network['range_end']}
    if network['exclude']:
        ipam['exclude'] = list(network['exclude'])
    if network['routes']:
        ipam['routes'] = [{'dst': route['to'], 'gw': route['via']} for route in network['routes']]
    return ipam


def _cni_config(k8s: dict, network: dict) -> dict:
    if k8s['mode'] == 'macvlan':
        return {'cniVersion': '0.3.1', 'name': network['name'], 'type': 'macvlan', 'master': network['interface'],
                'mode': 'bridge', 'mtu': network['mtu'], 'ipam': _ipam(network)}
    return {'cniVersion': '0.3.1', 'name': network['name'], 'type': 'sriov', 'spoofchk': 'off', 'trust': 'on',
            'ipam': _ipam(network)}


def _rdma_shared_config(k8s: dict) -> dict:
    return {'configList': [{'resourceName': network['resource_name'], 'rdmaHcaMax': 63,
                            'selectors': {'ifNames': [network['interface']]}} for network in k8s['networks']]}
