#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
---
module: perf_gate
short_description: Judge the GPU-side bandwidth tests against the rails' line rate
version_added: 1.0.0
description:
  - Parses the C(ib_write_bw) and C(all_reduce_perf) outputs every GPU server of the play registered after
    M(aifabric.fabric.perf_plan), and compares them with what the rails allow.
  - C(ib_write_bw) - the average bandwidth of the largest message size against the rail's line rate times
    C(efficiency_ib_write_bw) (0.9 by default).
  - C(all_reduce_perf) - the bus bandwidth of the largest sizes (the average over all sizes depends on the size range)
    against the sum of the line rates of the rails one server's ranks use, in GB/s, times C(efficiency_all_reduce)
    (0.8). Wrong results or out-of-bounds values fail it; a run on one server measured NVLink and is not applicable.
  - Writes C(perf.json) and C(perf.md) to O(output_dir). Fails, naming each test below the gate with what was measured
    and what is required, when one is; says "not applicable" with every reason when no test could run.
  - Action plugin on the controller; run it once.
author:
  - aifabric contributors (@aifabric)
options:
  intent:
    description: Path of the fabric intent. Defaults to the C(aifabric_intent) variable.
    type: path
  plan_var:
    description: Variable holding each server's registered M(aifabric.fabric.perf_plan) result.
    type: str
    default: perf_plan
  clients_var:
    description: Variable holding each server's registered loop of C(ib_write_bw) client runs (items from the plan).
    type: str
    default: perf_clients
  nccl_var:
    description: Variable holding the registered C(all_reduce_perf) run of the server that launched it.
    type: str
    default: perf_nccl
  output_dir:
    description:
      - Directory for C(perf.json) and C(perf.md), written as one set (whole or not at all). No report is written when
        omitted. When they cannot be written the verdict is still given and the task fails naming the directory.
      - Refused inside an inventory source and, unless O(allow_system_dir), in a system directory.
    type: path
  allow_system_dir:
    description:
      - Allow O(output_dir) to be a system directory. That is anything under C(/etc), C(/usr), C(/boot), C(/dev),
        C(/proc), C(/sys), C(/run), C(/bin), C(/sbin) or C(/lib*), and the directories that hold everyone's
        directories themselves (C(/), C(/home), C(/var), C(/var/lib), C(/tmp), C(/opt), C(/srv), the user's home, ...).
      - The perf role sets it from the variable C(aifabric_allow_system_dir).
    type: bool
    default: false
  options:
    description: The same options as M(aifabric.fabric.perf_plan) (the efficiencies are read here).
    type: dict
    default: {}
  fail:
    description: Fail when a test is below the gate or could not run.
    type: bool
    default: true
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
  - module: aifabric.fabric.perf_plan
"""

EXAMPLES = r"""
- name: Judge the bandwidth tests and write the report
  aifabric.fabric.perf_gate:
    output_dir: out/lab/perf
  run_once: true
"""

RETURN = r"""
verdict:
  description: PASSED, FAILED or NOT APPLICABLE.
  returned: always
  type: str
results:
  description: One entry per test - host, test, status (pass, fail, not_applicable), measured, required, verdict.
  returned: always
  type: list
  elements: dict
not_applicable:
  description: Why tests did not run, one line each, host then test then reason.
  returned: always
  type: list
  elements: str
report:
  description: Paths of perf.json and perf.md.
  returned: when output_dir is set and the files were written
  type: dict
report_error:
  description: Why the report was not written, naming the directory (the verdict in the message stands).
  returned: when it could not be written
  type: str
"""
