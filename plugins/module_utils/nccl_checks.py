# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""NCCL settings against the host: pure checks (stdlib only, run inside the nccl_check module).

- A MLNX_OFED verbs traffic_class (/sys/class/infiniband/DEV/tc/1/traffic_class) is applied to every RoCE QP
  and silently overrides NCCL_IB_TC.
- NCCL_IB_GID_INDEX, when pinned, must point at the RoCE v2 GID of the rail's IPv4 address on every rail;
  unpinned, NCCL (>= 2.21) picks that GID itself, which needs the address to be on the netdev.
- NCCL reads NCCL_* from the environment first, so an exported NCCL_IB_TC or NCCL_IB_HCA in /etc/environment
  or /etc/profile.d wins over /etc/nccl.conf.
"""

from __future__ import annotations

import re

from ansible_collections.aifabric.fabric.plugins.module_utils.rnic_parsers import roce_v2_ipv4_gids

_EXPORT = re.compile(r'^\s*(?:export\s+)?(NCCL_[A-Z0-9_]+)=(.*)$')


def check(level, name, message):
    return {'level': level, 'check': name, 'message': message}


def traffic_class_checks(nccl, rails, traffic_classes):
    """traffic_classes: {rdma_device: parsed traffic_class | None (file absent)}."""
    wanted = nccl.get('NCCL_IB_TC')
    results = []
    for rail in rails:
        dev = rail['rdma_device']
        if dev not in traffic_classes:
            results.append(check('not_applicable', 'traffic_class %s' % dev,
                                 'not applicable: no RDMA device %s on this host' % dev))
            continue
        current = traffic_classes[dev]
        if current is None:
            results.append(check('not_applicable', 'traffic_class %s' % dev,
                                 'not applicable: %s has no verbs traffic_class file (inbox mlx5 driver): nothing '
                                 'overrides NCCL_IB_TC' % dev))
        elif current['global'] is None:
            results.append(check('ok', 'traffic_class %s' % dev, '%s: no global verbs traffic class set; NCCL_IB_TC=%s '
                                 'applies' % (dev, wanted)))
        elif wanted is None or int(current['global']) != int(wanted):
            results.append(check('warning', 'traffic_class %s' % dev,
                                 '%s has a global verbs traffic class %d (/sys/class/infiniband/%s/tc/1/traffic_class) '
                                 'that silently overrides NCCL_IB_TC=%s on every QP: clear it (echo tclass=-1 > that '
                                 'file) or set it to %s' % (dev, current['global'], dev, wanted, wanted)))
        else:
            results.append(check('ok', 'traffic_class %s' % dev, '%s: global verbs traffic class %d equals NCCL_IB_TC'
                                 % (dev, current['global'])))
        for rule in (current or {}).get('rules') or []:
            results.append(check('warning', 'traffic_class %s' % dev,
                                 '%s has a per-destination traffic class rule %r that overrides NCCL_IB_TC for '
                                 'matching peers' % (dev, rule)))
    return results


def gid_checks(nccl, rails, gid_tables):
    """gid_tables: {rdma_device: [gid rows of port 1]} (rnic_sysfs.read_gid_table)."""
    pinned = nccl.get('NCCL_IB_GID_INDEX')
    results = []
    for rail in rails:
        dev, ip = rail['rdma_device'], rail.get('ip')
        if dev not in gid_tables:
            results.append(check('not_applicable', 'gid %s' % dev, 'not applicable: no RDMA device %s on this host' % dev))
            continue
        rows = roce_v2_ipv4_gids(gid_tables[dev], ip)
        if not rows:
            results.append(check('warning', 'gid %s' % dev, '%s has no RoCE v2 GID for %s: the rail address is not on '
                                 'its netdev yet, so NCCL cannot use this rail' % (dev, ip)))
            continue
        best = rows[0]['index']
        if pinned is None:
            results.append(check('ok', 'gid %s' % dev, '%s: NCCL picks GID index %d (RoCE v2, %s) automatically'
                                 % (dev, best, ip)))
        elif int(pinned) in [row['index'] for row in rows]:
            results.append(check('ok', 'gid %s' % dev, '%s: pinned NCCL_IB_GID_INDEX=%s is RoCE v2 %s' % (dev, pinned, ip)))
        else:
            results.append(check('warning', 'gid %s' % dev, '%s: pinned NCCL_IB_GID_INDEX=%s is not the RoCE v2 GID of '
                                 '%s (that is index %d); unpin it (hosts.nccl.gid_index: null) or fix the pin'
                                 % (dev, pinned, ip, best)))
    return results


def environment_overrides(files, nccl):
    """NCCL_* assignments in shell/environment files that would win over nccl.conf. files: {path: text}."""
    results = []
    for path, text in sorted(files.items()):
        for raw in (text or '').splitlines():
            match = _EXPORT.match(raw)
            if not match:
                continue
            key, value = match.group(1), match.group(2).strip().strip('"\'')
            if key in nccl and str(nccl[key]) != value:
                results.append(check('warning', 'environment %s' % key,
                                     '%s sets %s=%s, which wins over %s=%s in nccl.conf (NCCL reads the environment '
                                     'first)' % (path, key, value, key, nccl[key])))
    return results


def socket_ifname_check(nccl, existing_netdevs):
    value = str(nccl.get('NCCL_SOCKET_IFNAME') or '')
    if not value:
        return []
    names = [name for name in value.lstrip('^=').split(',') if name]
    exact = value.startswith('=') or value.startswith('^=')
    missing = [name for name in names if (name not in existing_netdevs if exact
                                          else not any(dev.startswith(name) for dev in existing_netdevs))]
    if missing and not value.startswith('^'):
        return [check('warning', 'NCCL_SOCKET_IFNAME', 'NCCL_SOCKET_IFNAME=%s names %s, which this host does not '
                      'have: NCCL bootstrap would fail' % (value, ', '.join(missing)))]
    return [check('ok', 'NCCL_SOCKET_IFNAME', 'bootstrap interface %s present' % ', '.join(names))]
