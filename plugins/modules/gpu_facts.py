#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
---
module: gpu_facts
short_description: Gather GPU, driver, GPU to NIC affinity and GPUDirect RDMA facts
version_added: 1.0.0
description:
  - GPUs (index, PCI bus id, name, UUID, memory) and the driver version and flavor (open or proprietary
    kernel modules) from C(nvidia-smi --query-gpu) and C(/proc/driver/nvidia/version).
  - The C(nvidia-smi topo -m) matrix with CPU and NUMA affinity, and per GPU the closest NIC and path type
    (PIX, PXB, PHB, NODE, SYS); with O(rdma_devices) (rail order) it lists where the topology breaks the
    rail-optimized expectation (one NIC at PIX or PXB per GPU, a rail NIC).
  - GPUDirect status - nvidia-peermem loaded and version-matched, registered with ib_core, the PeerDirect API
    present, legacy nv_peer_mem present, persisted in modules-load.d - and DMA-BUF capability.
  - Optional PCIe ACS and IOMMU report.
  - A host without an NVIDIA driver gets RV(ansible_facts.aifabric_gpu.not_applicable) set to the reason.
    Output that cannot be parsed is reported in RV(ansible_facts.aifabric_gpu.errors), never as a traceback.
author:
  - aifabric contributors (@aifabric)
options:
  rdma_devices:
    description: RDMA devices of the rails in rail order, to check GPU to NIC affinity against.
    type: list
    elements: str
    default: []
  check_p2p:
    description: Include the PCIe ACS and IOMMU report.
    type: bool
    default: true
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
  - module: aifabric.fabric.gpudirect
"""

EXAMPLES = r"""
- name: Gather GPU facts and check affinity against the rails
  aifabric.fabric.gpu_facts:
    rdma_devices: [mlx5_0, mlx5_1, mlx5_2, mlx5_3]

- name: Show the NIC closest to each GPU
  ansible.builtin.debug:
    var: ansible_facts.aifabric_gpu.affinity
"""

RETURN = r"""
ansible_facts:
  description: Facts.
  returned: always
  type: dict
  contains:
    aifabric_gpu:
      description: GPU facts.
      type: dict
      contains:
        not_applicable:
          description: Why there is nothing to report (no NVIDIA driver), else null.
          type: str
        driver:
          description: loaded, version and flavor (open or proprietary).
          type: dict
        gpus:
          description: One entry per GPU with index, pci_bus_id, name, uuid, driver_version, memory_total.
          type: list
          elements: dict
        topology:
          description: Parsed nvidia-smi topo -m (gpus, nics, nic_names, columns).
          type: dict
        affinity:
          description: GPU name to closest NICs, path, NCCL path type, NUMA node and gdr_capable.
          type: dict
        affinity_problems:
          description: Where the topology breaks the rail-optimized expectation.
          type: list
          elements: str
        gpudirect:
          description: peermem state and checks, dmabuf capability.
          type: dict
        p2p:
          description: ACS and IOMMU report.
          type: dict
        errors:
          description: Tool failures and unparseable output.
          type: list
          elements: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.aifabric.fabric.plugins.module_utils.host_access import HOST_ACCESS_OPTIONS, host_access
from ansible_collections.aifabric.fabric.plugins.module_utils.host_parse import ParseError
from ansible_collections.aifabric.fabric.plugins.module_utils.gpu_parsers import (
    GPU_QUERY_FIELDS, classify_nvidia_smi_failure, gpu_nic_affinity, parse_nvidia_smi_query,
    parse_nvidia_smi_topo, peermem_checks, rail_affinity_problems,
)
from ansible_collections.aifabric.fabric.plugins.module_utils.gpu_state import (
    gpus_present, read_dmabuf, read_driver, read_p2p, read_peermem_state,
)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            rdma_devices=dict(type='list', elements='str', default=[]),
            check_p2p=dict(type='bool', default=True),
            strict=dict(type='bool', default=False),
            **HOST_ACCESS_OPTIONS,
        ),
        supports_check_mode=True,
    )
    host = host_access(module)
    errors = []
    facts = {'not_applicable': None, 'driver': read_driver(host), 'gpus': [], 'topology': None, 'affinity': {},
             'affinity_problems': [], 'gpudirect': None, 'p2p': None, 'errors': errors,
             'pci_gpus': gpus_present(host)}
    smi = host.which('nvidia-smi')
    if not facts['driver']['loaded'] and not smi:
        facts['not_applicable'] = ('not applicable: no NVIDIA GPU driver on this host (/sys/module/nvidia is absent, '
                                   'nvidia-smi is not installed)')
        if facts['pci_gpus']:
            facts['not_applicable'] = None
            errors.append('NVIDIA GPUs are on the PCI bus (%s) but no NVIDIA driver is loaded'
                          % ', '.join(facts['pci_gpus']))
    if smi:
        rc, out, err = host.run(['nvidia-smi', '--query-gpu=%s' % ','.join(GPU_QUERY_FIELDS),
                                 '--format=csv,noheader,nounits'])
        if rc != 0:
            errors.append('nvidia-smi --query-gpu failed (rc %d): %s'
                          % (rc, classify_nvidia_smi_failure(out + err) or (err or out).strip()[:200]))
        else:
            try:
                facts['gpus'] = parse_nvidia_smi_query(out)
            except ParseError as exc:
                errors.append(str(exc))
        rc, out, err = host.run(['nvidia-smi', 'topo', '-m'])
        if rc != 0:
            errors.append('nvidia-smi topo -m failed (rc %d): %s'
                          % (rc, classify_nvidia_smi_failure(out + err) or (err or out).strip()[:200]))
        else:
            try:
                topology = parse_nvidia_smi_topo(out)
                facts['topology'] = topology
                facts['affinity'] = gpu_nic_affinity(topology)
                facts['affinity_problems'] = rail_affinity_problems(facts['affinity'],
                                                                    module.params['rdma_devices'])
            except ParseError as exc:
                errors.append(str(exc))
    if facts['not_applicable'] is None:
        state = read_peermem_state(host, facts['pci_gpus'] or facts['gpus'])
        facts['gpudirect'] = {'peermem': state, 'checks': peermem_checks(state) if state['peermem_loaded'] else [],
                              'dmabuf': read_dmabuf(host, state)}
        if module.params['check_p2p']:
            facts['p2p'] = read_p2p(host)
    if errors and module.params['strict']:
        module.fail_json(msg='; '.join(errors), ansible_facts={'aifabric_gpu': facts})
    for text in errors:
        module.warn(text)
    module.exit_json(changed=False, ansible_facts={'aifabric_gpu': facts})


if __name__ == '__main__':
    main()
