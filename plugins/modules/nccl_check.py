#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
---
module: nccl_check
short_description: Check a host against its NCCL settings (traffic class overrides, GID index, environment)
version_added: 1.0.0
description:
  - Warns where a MLNX_OFED per-device verbs traffic class (C(/sys/class/infiniband/DEV/tc/1/traffic_class))
    would silently override C(NCCL_IB_TC) on every queue pair.
  - Checks that each rail's RDMA device has a RoCE v2 GID for the rail IPv4 address and, when
    C(NCCL_IB_GID_INDEX) is pinned, that the pinned index is that GID.
  - Finds C(NCCL_*) assignments in C(/etc/environment) and C(/etc/profile.d/*.sh) that win over C(/etc/nccl.conf),
    and a C(NCCL_SOCKET_IFNAME) that names an interface the host does not have.
  - Changes nothing. Rails without an RDMA device are reported as not applicable.
author:
  - aifabric contributors (@aifabric)
options:
  nccl:
    description: The NCCL settings (the design's C(nccl) dict).
    type: dict
    required: true
  rails:
    description: Rails in rail order, each with C(interface), C(rdma_device) and C(ip).
    type: list
    elements: dict
    required: true
  root:
    description: Root of the file system to read (for tests and chroots).
    type: path
    default: /
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  platform:
    platforms: posix
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
seealso:
  - module: aifabric.fabric.rnic_facts
"""

EXAMPLES = r"""
- name: Check the host against nccl.conf
  aifabric.fabric.nccl_check:
    nccl: {NCCL_IB_HCA: "=mlx5_0:1,mlx5_1:1", NCCL_IB_TC: 106, NCCL_SOCKET_IFNAME: "=eth0"}
    rails:
      - {interface: ens1f0np0, rdma_device: mlx5_0, ip: 10.100.0.10}
      - {interface: ens2f0np0, rdma_device: mlx5_1, ip: 10.101.0.10}
"""

RETURN = r"""
checks:
  description: Each check with level (ok, warning, not_applicable), check name and message.
  returned: always
  type: list
  elements: dict
summary:
  description: One line per check for the play summary.
  returned: always
  type: list
  elements: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.aifabric.fabric.plugins.module_utils.host_access import HostAccess
from ansible_collections.aifabric.fabric.plugins.module_utils.host_parse import ParseError
from ansible_collections.aifabric.fabric.plugins.module_utils.nccl_checks import (
    environment_overrides, gid_checks, socket_ifname_check, traffic_class_checks,
)
from ansible_collections.aifabric.fabric.plugins.module_utils import rnic_sysfs


def main():
    module = AnsibleModule(
        argument_spec=dict(
            nccl=dict(type='dict', required=True),
            rails=dict(type='list', elements='dict', required=True),
            root=dict(type='path', default='/'),
        ),
        supports_check_mode=True,
    )
    host = HostAccess(module, module.params['root'])
    nccl, rails = module.params['nccl'], module.params['rails']
    devices = set(host.listdir(rnic_sysfs.IB))
    traffic_classes, gid_tables = {}, {}
    errors = []
    for rail in rails:
        dev = rail.get('rdma_device')
        if dev not in devices:
            continue
        try:
            traffic_classes[dev] = rnic_sysfs.read_traffic_class(host, dev)
        except ParseError as exc:
            errors.append(str(exc))
            traffic_classes[dev] = None
        gid_tables[dev] = rnic_sysfs.read_gid_table(host, dev, 1)
    files = {}
    for path in ['/etc/environment'] + ['/etc/profile.d/%s' % name for name in host.listdir('/etc/profile.d')
                                        if name.endswith('.sh')]:
        text = host.read(path)
        if text:
            files[path] = text
    checks = (traffic_class_checks(nccl, rails, traffic_classes) + gid_checks(nccl, rails, gid_tables)
              + environment_overrides(files, nccl) + socket_ifname_check(nccl, host.listdir(rnic_sysfs.NET)))
    for text in errors:
        checks.append({'level': 'warning', 'check': 'parse', 'message': text})
    for item in checks:
        if item['level'] == 'warning':
            module.warn(item['message'])
    summary = ['%s: %s' % (item['level'].upper() if item['level'] == 'warning' else item['level'], item['message'])
               for item in checks]
    module.exit_json(changed=False, checks=checks, summary=summary)


if __name__ == '__main__':
    main()
