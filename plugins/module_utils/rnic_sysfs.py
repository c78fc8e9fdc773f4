# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read RDMA NIC state from sysfs, debugfs and configfs through HostAccess (fake-root aware).

Paths (docs/hosts.md): /sys/class/net/IF/{device,device/driver,device/infiniband,mtu,operstate,speed};
MLNX_OFED mlx5 /sys/class/net/IF/ecn/roce_{rp,np}/... ; upstream mlx5 debugfs
/sys/kernel/debug/mlx5/BDF/cc_params/np_cnp_{dscp,prio}; /sys/class/infiniband/DEV/ports/P/{gids,gid_attrs,
hw_counters}; MLNX_OFED /sys/class/infiniband/DEV/tc/P/traffic_class; RDMA-CM configfs
/sys/kernel/config/rdma_cm/DEV/ports/P/default_roce_{tos,mode}.
"""

from __future__ import annotations

from ansible_collections.aifabric.fabric.plugins.module_utils.host_parse import ParseError
from ansible_collections.aifabric.fabric.plugins.module_utils.rnic_parsers import (
    gid_entry, parse_roce_mode, parse_sysfs_int, parse_traffic_class,
)

NET = '/sys/class/net'
IB = '/sys/class/infiniband'
CONFIGFS = '/sys/kernel/config'
RDMA_CM = '/sys/kernel/config/rdma_cm'
MLX5_DRIVERS = ('mlx5_core',)


def netdev_info(host, ifname):
    """What sysfs says about a netdev: driver, PCI address, RDMA devices, MTU, state, speed."""
    base = '%s/%s' % (NET, ifname)
    if not host.exists(base):
        return {'name': ifname, 'exists': False}
    mtu = parse_sysfs_int('mtu', host.read(base + '/mtu'))
    speed = host.read(base + '/speed')
    try:
        speed = parse_sysfs_int('speed', speed)
    except ParseError:
        speed = None
    info = {
        'name': ifname, 'exists': True,
        'driver': host.link_name(base + '/device/driver'),
        'pci': host.link_name(base + '/device') if host.exists(base + '/device') else None,
        'mtu': mtu,
        'operstate': (host.read(base + '/operstate') or '').strip() or None,
        'speed_mbps': speed if speed and speed > 0 else None,
        'rdma_devices': rdma_devices_of_netdev(host, ifname),
        'ecn_sysfs': host.isdir(base + '/ecn'),
    }
    return info


def rdma_devices_of_netdev(host, ifname):
    """RDMA devices bound to a netdev: the PCI function's infiniband/ dir, else GID ndevs (rxe, bonds)."""
    names = host.listdir('%s/%s/device/infiniband' % (NET, ifname))
    if names:
        return names
    found = []
    for dev in host.listdir(IB):
        for port in host.listdir('%s/%s/ports' % (IB, dev)):
            ndevs = '%s/%s/ports/%s/gid_attrs/ndevs' % (IB, dev, port)
            for index in host.listdir(ndevs)[:4]:
                if (host.read('%s/%s' % (ndevs, index)) or '').strip() == ifname:
                    found.append(dev)
                    break
            if dev in found:
                break
    return found


def rdma_device_ports(host, dev):
    return [int(port) for port in host.listdir('%s/%s/ports' % (IB, dev)) if port.isdigit()]


def read_gid_table(host, dev, port):
    """Populated GIDs of DEV/PORT from sysfs, as rows of rnic_parsers.gid_entry (empty slots skipped)."""
    base = '%s/%s/ports/%s' % (IB, dev, port)
    rows = []
    indexes = sorted(int(name) for name in host.listdir(base + '/gids') if name.isdigit())
    for index in indexes:
        gid = host.read('%s/gids/%d' % (base, index))
        # types/N of an empty or namespace-hidden slot returns EINVAL: read() gives None, row is skipped.
        row = gid_entry(index, gid, host.read('%s/gid_attrs/types/%d' % (base, index)),
                        host.read('%s/gid_attrs/ndevs/%d' % (base, index)))
        if row is not None and row['type'] is not None:
            rows.append(row)
    return rows


def read_ecn(host, ifname):
    """MLNX_OFED per-priority DCQCN switches and CNP marking; {'available': False} on inbox mlx5."""
    base = '%s/%s/ecn' % (NET, ifname)
    if not host.isdir(base):
        return {'available': False}
    result = {'available': True}
    for side in ('roce_rp', 'roce_np'):
        enabled = {}
        for prio in range(8):
            value = parse_sysfs_int('ecn enable', host.read('%s/%s/enable/%d' % (base, side, prio)))
            if value is not None:
                enabled[prio] = value
        result[side] = enabled
    for name in ('cnp_dscp', 'cnp_802p_prio', 'min_time_between_cnps'):
        result[name] = parse_sysfs_int(name, host.read('%s/roce_np/%s' % (base, name)))
    return result


def ecn_paths(ifname, side, prio):
    return '%s/%s/ecn/%s/enable/%d' % (NET, ifname, side, prio)


def cnp_paths(ifname):
    return {'cnp_dscp': '%s/%s/ecn/roce_np/cnp_dscp' % (NET, ifname),
            'cnp_priority': '%s/%s/ecn/roce_np/cnp_802p_prio' % (NET, ifname)}


def cc_debugfs_dir(pci):
    return '/sys/kernel/debug/mlx5/%s/cc_params' % pci


def read_cc_debugfs(host, pci):
    """Upstream mlx5 congestion-control debugfs (np_cnp_dscp, np_cnp_prio, ...); None when absent."""
    if not pci:
        return None
    base = cc_debugfs_dir(pci)
    if not host.isdir(base):
        return None
    values = {}
    for name in host.listdir(base):
        try:
            values[name] = parse_sysfs_int(name, host.read('%s/%s' % (base, name)))
        except ParseError:
            values[name] = None
    return values


def read_traffic_class(host, dev, port=1):
    """MLNX_OFED verbs traffic_class override; None when the file does not exist (inbox driver)."""
    path = '%s/%s/tc/%d/traffic_class' % (IB, dev, port)
    if not host.exists(path):
        return None
    return parse_traffic_class(host.read(path, ''))


def traffic_class_path(dev, port=1):
    return '%s/%s/tc/%d/traffic_class' % (IB, dev, port)


def rdma_cm_port_dir(dev, port=1):
    return '%s/%s/ports/%d' % (RDMA_CM, dev, port)


def read_rdma_cm(host, dev, port=1):
    """RDMA-CM defaults from configfs; {'available': False, 'reason': ...} when configfs/rdma_cm is absent."""
    if not host.isdir(CONFIGFS):
        return {'available': False, 'reason': 'configfs is not mounted at /sys/kernel/config'}
    if not host.isdir(RDMA_CM):
        return {'available': False, 'reason': 'rdma_cm is not loaded or has no configfs support '
                                              '(/sys/kernel/config/rdma_cm missing; modprobe rdma_cm)'}
    base = rdma_cm_port_dir(dev, port)
    if not host.isdir(base):
        return {'available': True, 'present': False, 'tos': None, 'mode': None}
    tos = parse_sysfs_int('default_roce_tos', host.read(base + '/default_roce_tos'))
    mode_text = host.read(base + '/default_roce_mode')
    mode = parse_roce_mode(mode_text) if mode_text and mode_text.strip() else None
    return {'available': True, 'present': True, 'tos': tos, 'mode': mode}


def read_hw_counters(host, dev, port):
    base = '%s/%s/ports/%s/hw_counters' % (IB, dev, port)
    counters = {}
    for name in host.listdir(base):
        try:
            value = parse_sysfs_int(name, host.read('%s/%s' % (base, name)))
        except ParseError:
            continue
        if value is not None:
            counters[name] = value
    return counters
