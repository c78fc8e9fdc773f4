#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
---
module: perf_plan
short_description: Plan the GPU-side bandwidth tests of a fabric (ib_write_bw per rail, all_reduce_perf)
version_added: 1.0.0
description:
  - Decides, for the GPU server it runs for, which bandwidth tests it runs, from the design and from what every GPU
    server of the play reported (M(aifabric.fabric.gpu_facts), M(aifabric.fabric.rnic_facts) with the C(gids) part,
    and a C(stat) of the test programs).
  - "perftest C(ib_write_bw): on every rail, the servers that can run it pair up in name order, one client to one
    server over the rail addresses, so the RDMA traffic crosses the rail's leaves; each run uses the rail's RDMA
    device and the RoCE v2 GID of its address."
  - nccl-tests C(all_reduce_perf) is launched once, from the first server that can run it, over every server that can
    (option C(nccl_command) in O(options), by default C(mpirun)).
  - A server without GPUs, RDMA devices or the programs runs nothing and says why; M(aifabric.fabric.perf_gate)
    reports it as not applicable.
  - Action plugin on the controller; no device is contacted.
author:
  - aifabric contributors (@aifabric)
options:
  intent:
    description: Path of the fabric intent. Defaults to the C(aifabric_intent) variable.
    type: path
  gpu_var:
    description: Variable holding each server's registered M(aifabric.fabric.gpu_facts) result.
    type: str
    default: perf_gpu
  rnic_var:
    description: Variable holding each server's registered M(aifabric.fabric.rnic_facts) result (parts devices, gids).
    type: str
    default: perf_rnic
  tools_var:
    description: Variable holding each server's registered C(ansible.builtin.stat) loop over C({name, path}) of the programs.
    type: str
    default: perf_tools
  options:
    description:
      - Test settings - C(ib_write_bw) and C(all_reduce_perf) (program paths), C(duration_s) (10), C(qps) (4),
        C(base_port) (18515), C(use_cuda) (false; true runs ib_write_bw from GPU memory, GPU index = rail),
        C(efficiency_ib_write_bw) (0.9), C(efficiency_all_reduce) (0.8) and C(nccl_command), a list of words where
        C({hosts}), C({np}), C({gpus}) and C({all_reduce_perf}) are replaced.
    type: dict
    default: {}
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  platform:
    platforms: all
seealso:
  - module: aifabric.fabric.perf_gate
"""

EXAMPLES = r"""
- name: Plan this server's bandwidth tests
  aifabric.fabric.perf_plan:
    options:
      efficiency_ib_write_bw: 0.9
  register: perf_plan
"""

RETURN = r"""
servers:
  description: ib_write_bw servers this host runs - rail, port, peer and argv.
  returned: always
  type: list
  elements: dict
clients:
  description: ib_write_bw clients this host runs - rail, port, peer, peer_ip, speed_gbps and argv.
  returned: always
  type: list
  elements: dict
nccl:
  description: The all_reduce_perf launch command (argv) when this host launches it, else null.
  returned: always
  type: list
  elements: str
not_applicable:
  description: Why this host does not run a test, one line each, test then reason.
  returned: always
  type: list
  elements: str
"""
