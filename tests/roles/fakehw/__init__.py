# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Build a fake GPU server root (sysfs, procfs, configfs, debugfs files) plus stub tools for the tests.

`build_host(root, ...)` creates <root>/sys, <root>/proc, ... with the files the modules read, and
<root>/fakebin/<tool> symlinks to stub.py for the tools the host "has". Modules get root=<root> and
bin_path=[<root>/fakebin], so the real module and role code runs, and only the hardware is fake.
"""

import json
import os
import stat

STUB = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'stub.py')
FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                        'unit', 'fixtures', 'host')

IB_CORE_LINE = ('ib_core 544768 8 rdma_cm,ib_ipoib,iw_cm,ib_umad,rdma_ucm,ib_uverbs,mlx5_ib,ib_cm, '
                'Live 0x0000000000000000 (OE)')


def _write(root, path, text):
    full = os.path.join(root, path.lstrip('/'))
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, 'w', encoding='utf-8') as handle:
        handle.write(text)


def _link(root, path, target):
    full = os.path.join(root, path.lstrip('/'))
    os.makedirs(os.path.dirname(full), exist_ok=True)
    os.symlink(target, full)


def _gid_hex(ip):
    parts = [int(part) for part in ip.split('.')]
    return '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' % tuple(parts)


def build_host(root, rails, nic='ofed', gpu=None, systemd=False, tools=None, mtu=9000, pause_on=True,
               kernel='6.8.0-45-generic', cmdline='BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro iommu=pt intel_iommu=on',
               qos=None, extra_outputs=None):
    """Create the fake host.

    rails: [(netdev, rdma_device, pci, ipv4)] in rail order.
    nic: 'ofed' (mlx5 with MLNX_OFED sysfs + mlnx_qos), 'inbox' (upstream mlx5, iproute2 dcb), 'none' (veth).
    gpu: None or {'version', 'flavor', 'peermem': 'loaded'|'absent', 'modprobe': 'ok'|<modprobe fixture>,
         'peer_api': bool, 'legacy': bool, 'topo': fixture, 'query': fixture}.
    qos: initial {'trust': 'pcp'|'dscp', 'pfc': [8]} (default: fresh NIC, trust pcp, PFC off).
    """
    os.makedirs(os.path.join(root, 'fakehw'), exist_ok=True)
    state = {'netdevs': {}, 'outputs': dict(extra_outputs or {}), 'modprobe': {}, 'link_toggles': 0}
    qos = qos or {'trust': 'pcp', 'pfc': [0] * 8}
    _write(root, '/proc/sys/kernel/osrelease', kernel + '\n')
    _write(root, '/proc/cmdline', cmdline + '\n')
    _write(root, '/etc/hostname', os.path.basename(root) + '\n')
    os.makedirs(os.path.join(root, 'usr/local/sbin'), exist_ok=True)
    os.makedirs(os.path.join(root, 'etc/systemd/system'), exist_ok=True)
    os.makedirs(os.path.join(root, 'etc/modules-load.d'), exist_ok=True)
    os.makedirs(os.path.join(root, 'sys/class/infiniband'), exist_ok=True)
    if systemd:
        os.makedirs(os.path.join(root, 'run/systemd/system'), exist_ok=True)
    modules = []
    # The management / NCCL bootstrap interface (a plain virtual netdev).
    _write(root, '/sys/class/net/eth0/mtu', '1500\n')
    _write(root, '/sys/class/net/eth0/operstate', 'up\n')
    for netdev, rdma, pci, ipv4 in rails:
        base = '/sys/class/net/%s' % netdev
        _write(root, base + '/mtu', '%d\n' % mtu)
        _write(root, base + '/operstate', 'up\n')
        entry = {'rdma_device': None, 'dcb': False, 'stats_fixture': 'ethtool/stats_veth.txt'}
        if nic == 'none':
            _write(root, base + '/speed', '10000\n')
            state['netdevs'][netdev] = entry
            continue
        device = '/sys/devices/pci0000:00/%s' % pci
        _write(root, base + '/speed', '400000\n')
        _link(root, base + '/device', os.path.join(root, device.lstrip('/')))
        _link(root, device + '/driver', '../../../bus/pci/drivers/mlx5_core')
        os.makedirs(os.path.join(root, device.lstrip('/'), 'infiniband', rdma), exist_ok=True)
        ib = '/sys/class/infiniband/%s' % rdma
        _write(root, ib + '/ports/1/state', '4: ACTIVE\n')
        _write(root, ib + '/ports/1/link_layer', 'Ethernet\n')
        _write(root, ib + '/ports/1/rate', '400 Gb/sec (4X NDR)\n')
        gids = [('fe80:0000:0000:0000:0ac0:ebff:fe40:%04x' % (0x8df2 + len(state['netdevs'])), 'IB/RoCE v1'),
                ('fe80:0000:0000:0000:0ac0:ebff:fe40:%04x' % (0x8df2 + len(state['netdevs'])), 'RoCE v2'),
                (_gid_hex(ipv4), 'IB/RoCE v1'), (_gid_hex(ipv4), 'RoCE v2')]
        for index in range(8):
            gid, kind = gids[index] if index < len(gids) else ('0000:' * 7 + '0000', None)
            _write(root, ib + '/ports/1/gids/%d' % index, gid + '\n')
            if kind:
                _write(root, ib + '/ports/1/gid_attrs/types/%d' % index, kind + '\n')
                _write(root, ib + '/ports/1/gid_attrs/ndevs/%d' % index, netdev + '\n')
        for name, value in (('np_cnp_sent', 1203), ('np_ecn_marked_roce_packets', 1388), ('rp_cnp_handled', 1175),
                            ('rp_cnp_ignored', 0), ('out_of_sequence', 0), ('packet_seq_err', 0),
                            ('local_ack_timeout_err', 0)):
            _write(root, ib + '/ports/1/hw_counters/%s' % name, '%d\n' % value)
        entry.update(rdma_device=rdma, dcb=True, stats_fixture='ethtool/stats_mlx5_cx7_pfc3.txt',
                     pause={'rx': pause_on, 'tx': pause_on},
                     qos={'pfc': list(qos['pfc']),
                          'dscp2prio': {str(dscp): dscp >> 3 for dscp in range(64)} if qos['trust'] == 'dscp' else {}})
        state['netdevs'][netdev] = entry
        if nic == 'ofed':
            for side in ('roce_rp', 'roce_np'):
                for prio in range(8):
                    _write(root, base + '/ecn/%s/enable/%d' % (side, prio), '0\n')
            _write(root, base + '/ecn/roce_np/cnp_dscp', '48\n')
            _write(root, base + '/ecn/roce_np/cnp_802p_prio', '6\n')
            _write(root, base + '/ecn/roce_np/min_time_between_cnps', '4\n')
            _write(root, ib + '/tc/1/traffic_class', '')
        else:
            cc = '/sys/kernel/debug/mlx5/%s/cc_params' % pci
            for name, value in (('np_cnp_dscp', 48), ('np_cnp_prio', 6), ('np_cnp_prio_mode', 1),
                                ('np_min_time_between_cnps', 4), ('rp_max_rate', 0)):
                _write(root, cc + '/' + name, '%d\n' % value)
        _write(root, '/sys/kernel/config/rdma_cm/%s/ports/1/default_roce_tos' % rdma, '0\n')
        _write(root, '/sys/kernel/config/rdma_cm/%s/ports/1/default_roce_mode' % rdma, 'RoCE v2\n')
    if nic != 'none':
        modules.append(IB_CORE_LINE)
        modules.append('mlx5_ib 466944 0 - Live 0x0000000000000000 (OE)')
        modules.append('mlx5_core 2392064 1 mlx5_ib, Live 0x0000000000000000 (OE)')
        os.makedirs(os.path.join(root, 'sys/module/ib_core'), exist_ok=True)
    kallsyms = '0000000000000000 T _stext\n'
    if gpu:
        _write(root, '/sys/module/nvidia/version', gpu.get('version', '550.54.15') + '\n')
        _write(root, '/proc/driver/nvidia/version', open(os.path.join(
            FIXTURES, 'nvidia_version', 'open_550.txt' if gpu.get('flavor', 'open') == 'open' else 'proprietary_535.txt'),
            encoding='utf-8').read())
        for index, bus in enumerate(gpu.get('pci', ['0000:1a:00.0', '0000:3a:00.0'])):
            _write(root, '/sys/bus/pci/devices/%s/vendor' % bus, '0x10de\n')
            _write(root, '/sys/bus/pci/devices/%s/class' % bus, '0x030200\n')
        modules.insert(0, 'nvidia 56655872 12 nvidia_uvm,nvidia_modeset, Live 0x0000000000000000 (POE)')
        if gpu.get('peer_api', nic == 'ofed'):
            kallsyms += open(os.path.join(FIXTURES, 'kallsyms', 'ofed_peer_api.txt'), encoding='utf-8').read()
        if gpu.get('legacy'):
            modules.insert(0, 'nv_peer_mem 16384 0 - Live 0x0000000000000000 (OE)')
            os.makedirs(os.path.join(root, 'sys/module/nv_peer_mem'), exist_ok=True)
        if gpu.get('peermem') == 'loaded':
            modules.insert(0, 'nvidia_peermem 16384 0 - Live 0x0000000000000000 (POE)')
            modules = [line.replace('ib_core 544768 8 rdma_cm,', 'ib_core 544768 9 nvidia_peermem,rdma_cm,')
                       for line in modules]
            _write(root, '/sys/module/nvidia_peermem/version', gpu.get('peermem_version', gpu.get('version', '550.54.15'))
                   + '\n')
            _write(root, '/sys/kernel/mm/memory_peers/nv_mem/version', '1.0-0\n')
        state['modprobe']['nvidia-peermem'] = gpu.get('modprobe', 'ok')
        state['outputs'].update({
            'nvidia-smi --query-gpu=*': gpu.get('query', 'nvidia_smi/query_h100.csv'),
            'nvidia-smi topo -m': gpu.get('topo', 'nvidia_smi/topo_h100_hgx_r550.txt'),
            'dmesg': gpu.get('dmesg', 'dmesg/unrelated.txt'),
            'modinfo -F license nvidia': 'nvidia_version/license_open.txt',
            'lspci -vvv': gpu.get('lspci', 'lspci/acs_disabled.txt'),
        })
        os.makedirs(os.path.join(root, 'usr/lib/x86_64-linux-gnu'), exist_ok=True)
        _write(root, '/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.%d.0' % gpu.get('rdma_core', 50), '')
        for group, kind in enumerate(gpu.get('iommu_groups', ['identity', 'identity'])):
            _write(root, '/sys/kernel/iommu_groups/%d/type' % group, kind + '\n')
    _write(root, '/proc/kallsyms', kallsyms)
    _write(root, '/proc/modules', '\n'.join(modules) + ('\n' if modules else ''))
    if nic != 'none':
        state['outputs']['ibv_devinfo'] = 'ibv_devinfo/cx7_roce_two_devices.txt'
    if tools is None:
        tools = {'ofed': ['mlnx_qos', 'ethtool', 'rdma', 'ibv_devinfo', 'ip'],
                 'inbox': ['dcb', 'ethtool', 'rdma', 'ibv_devinfo', 'ip'],
                 'none': ['ethtool', 'ip']}[nic]
        if gpu:
            tools = tools + ['nvidia-smi', 'modprobe', 'dmesg', 'modinfo', 'lspci']
        if systemd:
            tools = tools + ['systemctl']
    bindir = os.path.join(root, 'fakebin')
    os.makedirs(bindir, exist_ok=True)
    for tool in tools:
        os.symlink(STUB, os.path.join(bindir, tool))
    mode = os.stat(STUB).st_mode
    if not mode & stat.S_IXUSR:
        os.chmod(STUB, mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    with open(os.path.join(root, 'fakehw', 'state.json'), 'w', encoding='utf-8') as handle:
        json.dump(state, handle, indent=1, sort_keys=True)
    return bindir


def state(root):
    with open(os.path.join(root, 'fakehw', 'state.json'), encoding='utf-8') as handle:
        return json.load(handle)


def update_nic(root, netdev, port_buffer=None, cable_len=None, refuse_cable=None):
    """Change the emulated mlx5 state of one NIC: whether the driver manages its port buffer (mlx5 reports a cable
    length only then), its current cable length (7 m after a driver load), and a NIC that keeps its length."""
    current = state(root)
    nic = current['netdevs'][netdev]
    for key, value in (('port_buffer', port_buffer), ('refuse_cable', refuse_cable)):
        if value is not None:
            nic[key] = value
    if cable_len is not None:
        nic['qos']['cable_len'] = cable_len
    with open(os.path.join(root, 'fakehw', 'state.json'), 'w', encoding='utf-8') as handle:
        json.dump(current, handle, indent=1, sort_keys=True)


def calls(root, tool=None):
    path = os.path.join(root, 'fakehw', 'calls.log')
    if not os.path.exists(path):
        return []
    with open(path, encoding='utf-8') as handle:
        entries = [json.loads(line) for line in handle if line.strip()]
    return [entry for entry in entries if tool is None or entry[0] == tool]


def read(root, path):
    with open(os.path.join(root, path.lstrip('/')), encoding='utf-8') as handle:
        return handle.read()


def snapshot(root):
    """Every file under root (except the stub bookkeeping) -> content, to prove check mode writes nothing."""
    result = {}
    for directory, _unused, files in os.walk(root):
        if os.path.relpath(directory, root).split(os.sep)[0] in ('fakehw', 'fakebin'):
            continue
        for name in files:
            path = os.path.join(directory, name)
            if os.path.islink(path):
                continue
            with open(path, 'rb') as handle:
                result[os.path.relpath(path, root)] = handle.read()
    return result
