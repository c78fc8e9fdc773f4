#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
---
module: rnic_facts
short_description: Gather RDMA NIC facts for lossless RoCE (devices, ports, GIDs, QoS, DCQCN, counters)
version_added: 1.0.0
description:
  - RDMA devices with their netdevs and ports (link layer, state, physical state, active and max MTU, speed)
    from C(rdma -j link show) and C(ibv_devinfo), falling back to sysfs.
  - The RoCE v2 GID table per port from sysfs (index, GID, type, netdev, IPv4) and the index NCCL would pick
    for each rail IPv4 address.
  - QoS state per netdev with C(mlnx_qos) or iproute2 C(dcb) (trust, PFC mask, DSCP map), DCQCN sysfs state
    (MLNX_OFED C(ecn) files or upstream mlx5 debugfs), the MLNX_OFED verbs traffic class, RDMA-CM defaults,
    global pause, and the PFC/ECN/CNP/drop counters from C(ethtool -S) and the RDMA C(hw_counters).
  - A host without RDMA devices gets RV(ansible_facts.aifabric_rnic.not_applicable) set to the reason.
  - Output that a parser cannot read is reported in RV(ansible_facts.aifabric_rnic.errors) with the tool and
    the offending line, never as a traceback; O(strict=true) turns those into a failure.
author:
  - aifabric contributors (@aifabric)
options:
  interfaces:
    description: Netdevs to report QoS and counters for. Default is every netdev that carries an RDMA device.
    type: list
    elements: str
  gather:
    description: Parts to gather.
    type: list
    elements: str
    choices: [devices, gids, qos, ecn, counters, pause, traffic_class, rdma_cm]
    default: [devices, gids, qos, ecn, counters, pause, traffic_class, rdma_cm]
  strict:
    description: Fail when any tool output cannot be parsed.
    type: bool
    default: false
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  facts:
    support: full
  platform:
    platforms: posix
extends_documentation_fragment:
  - aifabric.fabric.host_access
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.facts
seealso:
  - module: aifabric.fabric.rnic_qos
"""

EXAMPLES = r"""
- name: Gather RDMA NIC facts
  aifabric.fabric.rnic_facts:

- name: Only the GID tables and verbs traffic classes of two rails
  aifabric.fabric.rnic_facts:
    interfaces: [ens1f0np0, ens2f0np0]
    gather: [devices, gids, traffic_class]

- name: Show the RoCE v2 GID NCCL would use on rail 0
  ansible.builtin.debug:
    var: ansible_facts.aifabric_rnic.devices.mlx5_0.ports[0].roce_v2_ipv4_gids
"""

RETURN = r"""
ansible_facts:
  description: Facts.
  returned: always
  type: dict
  contains:
    aifabric_rnic:
      description: RDMA NIC facts.
      type: dict
      contains:
        not_applicable:
          description: Why there is nothing to report (no RDMA device), else null.
          type: str
        devices:
          description: RDMA device name to transport, firmware, vendor part, netdevs and ports (with GIDs and hw counters).
          type: dict
        interfaces:
          description:
            - Netdev name to driver, PCI address, MTU, RDMA devices, qos, ecn, counters and pause state.
            - C(qos.cable_length_m) is the cable length the NIC sizes its receive headroom for (C(mlnx_qos) C(Cable
              len), C(dcb pfc) C(delay)); null when the NIC reports none (its firmware owns the port buffer).
          type: dict
        tools:
          description: Tool name to path (null when missing).
          type: dict
        errors:
          description: Tool failures and unparseable output, one sentence each.
          type: list
          elements: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.aifabric.fabric.plugins.module_utils.host_access import HOST_ACCESS_OPTIONS, host_access
from ansible_collections.aifabric.fabric.plugins.module_utils.host_parse import ParseError
from ansible_collections.aifabric.fabric.plugins.module_utils.rnic_parsers import (
    dcb_trust, lossless_counters, parse_dcb_app, parse_dcb_pfc, parse_ethtool_pause, parse_ethtool_stats,
    parse_ibv_devinfo, parse_mlnx_qos, parse_rdma_link, roce_active_mtu, roce_v2_ipv4_gids,
)
from ansible_collections.aifabric.fabric.plugins.module_utils.rnic_qos_plan import mask_text
from ansible_collections.aifabric.fabric.plugins.module_utils import rnic_sysfs

TOOLS = ('rdma', 'ibv_devinfo', 'mlnx_qos', 'dcb', 'ethtool')


class Gatherer:
    def __init__(self, module, host, parts):
        self.module = module
        self.host = host
        self.parts = set(parts)
        self.errors = []
        self.tools = {tool: host.which(tool) for tool in TOOLS}
        # The kernel's RDMA core registers this class; without it there is no RDMA device and iproute2's `rdma`,
        # installed on most servers, can only fail ("Failed to open NETLINK_RDMA socket"): no device, not an error.
        self.rdma_core = host.isdir(rnic_sysfs.IB)

    def run(self, argv, parser):
        rc, out, err = self.host.run(argv)
        if rc != 0:
            self.errors.append('%s failed (rc %d): %s' % (' '.join(argv), rc, (err or out).strip()[:200]))
            return None
        try:
            return parser(out)
        except ParseError as exc:
            self.errors.append(str(exc))
            return None

    # ------------------------------------------------------------------ devices
    def devices(self):
        devices = {}
        links = None
        if self.tools['rdma'] and self.rdma_core:
            links = self.run(['rdma', '-j', 'link', 'show'], parse_rdma_link)
        names = sorted({item['ifname'] for item in links or []} | set(self.host.listdir(rnic_sysfs.IB)))
        for name in names:
            devices[name] = {'name': name, 'netdevs': [], 'ports': []}
        for item in links or []:
            device = devices[item['ifname']]
            device['ports'].append({'port': item['port'], 'state': item['state'],
                                    'physical_state': item['physical_state'], 'netdev': item['netdev']})
            if item['netdev'] and item['netdev'] not in device['netdevs']:
                device['netdevs'].append(item['netdev'])
        if self.tools['ibv_devinfo'] and names and 'devices' in self.parts:
            for info in self.run(['ibv_devinfo'], parse_ibv_devinfo) or []:
                device = devices.setdefault(info['hca_id'], {'name': info['hca_id'], 'netdevs': [], 'ports': []})
                for key in ('transport', 'fw_ver', 'node_guid', 'vendor_id', 'vendor_part_id', 'board_id'):
                    device[key] = info.get(key)
                for port_info in info['ports']:
                    port = self._port(device, port_info['port'])
                    for key in ('link_layer', 'active_mtu', 'max_mtu'):
                        port[key] = port_info.get(key)
                    port['verbs_state'] = port_info.get('state')
        for name, device in devices.items():
            for port_number in rnic_sysfs.rdma_device_ports(self.host, name):
                port = self._port(device, port_number)
                base = '%s/%s/ports/%d' % (rnic_sysfs.IB, name, port_number)
                if port.get('link_layer') is None:
                    port['link_layer'] = (self.host.read(base + '/link_layer') or '').strip() or None
                if port.get('state') is None:
                    state = (self.host.read(base + '/state') or '').strip()
                    port['state'] = state.split(':')[-1].strip() if state else None
                port['rate'] = (self.host.read(base + '/rate') or '').strip() or None
                if 'gids' in self.parts:
                    port['gids'] = rnic_sysfs.read_gid_table(self.host, name, port_number)
                    port['roce_v2_ipv4_gids'] = [{'index': row['index'], 'ipv4': row['ipv4'], 'ndev': row['ndev']}
                                                 for row in roce_v2_ipv4_gids(port['gids'])]
                if 'counters' in self.parts:
                    port['hw_counters'] = rnic_sysfs.read_hw_counters(self.host, name, port_number)
            if not device['netdevs']:
                for port in device['ports']:
                    for row in port.get('gids') or []:
                        if row['ndev'] and row['ndev'] not in device['netdevs']:
                            device['netdevs'].append(row['ndev'])
            if 'traffic_class' in self.parts:
                device['traffic_class'] = rnic_sysfs.read_traffic_class(self.host, name)
            if 'rdma_cm' in self.parts:
                try:
                    device['rdma_cm'] = rnic_sysfs.read_rdma_cm(self.host, name)
                except ParseError as exc:
                    self.errors.append(str(exc))
        return devices

    @staticmethod
    def _port(device, number):
        for port in device['ports']:
            if port['port'] == number:
                return port
        port = {'port': number, 'state': None, 'physical_state': None, 'netdev': None}
        device['ports'].append(port)
        return port

    # ------------------------------------------------------------------ netdevs
    def interface(self, name):
        info = rnic_sysfs.netdev_info(self.host, name)
        if not info['exists']:
            return info
        if info.get('mtu'):
            info['roce_active_mtu'] = roce_active_mtu(info['mtu'])
        rdma = bool(info['rdma_devices'])
        if 'qos' in self.parts:
            info['qos'] = self.qos(name) if rdma else None
        if 'ecn' in self.parts and rdma:
            ecn = rnic_sysfs.read_ecn(self.host, name)
            if not ecn['available']:
                ecn['cc_debugfs'] = rnic_sysfs.read_cc_debugfs(self.host, info.get('pci'))
            info['ecn'] = ecn
        if 'counters' in self.parts and self.tools['ethtool']:
            stats = self.run(['ethtool', '-S', name], parse_ethtool_stats)
            info['counters'] = lossless_counters(stats) if stats is not None else None
        if 'pause' in self.parts and self.tools['ethtool'] and rdma:
            info['pause'] = self.run(['ethtool', '-a', name], parse_ethtool_pause)
        return info

    def qos(self, name):
        if self.tools['mlnx_qos']:
            state = self.run(['mlnx_qos', '-i', name], parse_mlnx_qos)
            if state is None:
                return None
            return {'tool': 'mlnx_qos', 'trust': state['trust'], 'pfc': mask_text(state['pfc']),
                    'pfc_priorities': [prio for prio, bit in enumerate(state['pfc']) if bit],
                    'dscp2prio': state['dscp2prio'], 'dcbx': state['dcbx'], 'cable_len': state['cable_len'],
                    'cable_length_m': state['cable_len'] or None,
                    'prio_tc': state['prio_tc'], 'tcs': state['tcs'], 'lldpad_warning': state['lldpad_warning']}
        if self.tools['dcb']:
            pfc = self.run(['dcb', '-j', 'pfc', 'show', 'dev', name], parse_dcb_pfc)
            app = self.run(['dcb', '-j', 'app', 'show', 'dev', name], parse_dcb_app)
            if pfc is None or app is None:
                return None
            return {'tool': 'dcb', 'trust': dcb_trust(app), 'pfc': mask_text(pfc['pfc']),
                    'pfc_priorities': [prio for prio, bit in enumerate(pfc['pfc']) if bit],
                    'dscp2prio': app['dscp_prio'], 'delay': pfc['delay'], 'cable_length_m': pfc['delay'] or None}
        self.errors.append('QoS of %s not read: neither mlnx_qos nor dcb is installed' % name)
        return None


def main():
    parts = ['devices', 'gids', 'qos', 'ecn', 'counters', 'pause', 'traffic_class', 'rdma_cm']
    module = AnsibleModule(
        argument_spec=dict(
            interfaces=dict(type='list', elements='str'),
            gather=dict(type='list', elements='str', choices=parts, default=parts),
            strict=dict(type='bool', default=False),
            **HOST_ACCESS_OPTIONS,
        ),
        supports_check_mode=True,
    )
    host = host_access(module)
    gatherer = Gatherer(module, host, module.params['gather'])
    devices = gatherer.devices()
    wanted = module.params['interfaces']
    if wanted is None:
        wanted = sorted({netdev for device in devices.values() for netdev in device['netdevs']})
    interfaces = {name: gatherer.interface(name) for name in wanted}
    not_applicable = None
    if not devices and not gatherer.rdma_core:
        not_applicable = 'not applicable: no RDMA device on this host (no %s: the kernel\'s RDMA core is not loaded)' % (
            rnic_sysfs.IB)
    elif not devices:
        not_applicable = 'not applicable: no RDMA device on this host (%s is empty%s)' % (
            rnic_sysfs.IB, ', rdma link show lists nothing' if gatherer.tools['rdma'] else ', rdma tool not installed')
    facts = {'not_applicable': not_applicable, 'devices': devices, 'interfaces': interfaces,
             'tools': gatherer.tools, 'errors': gatherer.errors}
    if gatherer.errors and module.params['strict']:
        module.fail_json(msg='; '.join(gatherer.errors), ansible_facts={'aifabric_rnic': facts})
    for text in gatherer.errors:
        module.warn(text)
    module.exit_json(changed=False, ansible_facts={'aifabric_rnic': facts})


if __name__ == '__main__':
    main()
