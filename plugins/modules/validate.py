#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
---
module: validate
short_description: Check a fabric against its design and write the validation report
version_added: 1.0.0
description:
  - Runs every check of the collection over the devices of the play, on the controller, once.
  - Fabric checks read the state M(aifabric.fabric.validate_gather) registered on each device. BGP sessions
    Established (counted from the design), EVPN L2VNIs and route-targets, the type-3 route of every remote VTEP
    imported, LLDP neighbours against the cabling plan, interfaces up with the designed MTU and addresses, host
    reachability on each rail and jumbo frames end to end.
  - Lossless checks (rules C01-C25, docs/validation.md) compare switch and host on every host-leaf link
    and every switch port. This covers DSCP to priority, PFC priorities, the CNP class, ECN, the PFC watchdog and
    its timers, buffers and headroom, and the MTU ordering including the VXLAN overhead. They run twice. The
    C(design) phase reads the rendered configuration (with each platform's own parser) and the host model. The
    C(deployed) phase reads the running configuration the switch reports (with the same parser) and the RDMA NIC
    facts. State a platform or the lab cannot have is reported as
    not applicable, with the reason.
  - Both ends of every link are compared through the cabling plan (C(link_mtu), C(link_lossless)), and the counters
    read twice by M(aifabric.fabric.validate_gather) give rates that the health rules judge on both ends of every
    link (PFC pause storms, PFC watchdog storms, drops on the lossless class, ECN marks and CNPs, RDMA transport
    errors); each finding says where the problem starts and which end to look at.
  - On the switches read over eAPI, ANTA's own tests, catalogued from the design, run through ANTA's library on the
    eAPI outputs the gatherer read (check C(anta)); the catalog is also written as C(anta-catalog.yml) for C(anta nrfu).
  - Groups the failures into causes through the design's dependency graph - each failure's facts name what it
    shows (a port, the configuration of one end of a BGP session, a VNI, a route to a VTEP, a ping...), a failure
    whose dependencies hold is a cause and everything depending on it folds under it. A cause on one device's own
    state (a port admin down, a neighbour shut down, a daemon that is not running, a route the design does not
    have, a configuration that differs from what the deploy pushes) blames that device; one the state read cannot
    place names its suspects and blames none. The message, the reports and the returned values lead with the causes;
    the flat list of failures follows.
  - Reports configuration drift - what the deploy would change on a device (O(drift_var)) - as a finding.
  - Writes C(report.json), C(report.md) and C(report.html) (causes first, then health findings and failures, expected
    against seen) to O(output_dir), and the verdicts and counters as a Prometheus textfile. At fabric scale the passes
    in C(report.json) are aggregated per check and device group; every failure stays in full. The verdict is PASSED
    only when checks ran and none failed; NOTHING CHECKED when nothing could be checked, NOT CONVERGED when every
    failure sits on a device still changing at its settle deadline - neither is a pass. Fails when a check failed or
    could not read its state, naming the device, the check and what was expected against what was seen.
  - Action plugin on the controller; no device is contacted.
author:
  - aifabric contributors (@aifabric)
options:
  intent:
    description:
      - Path of the fabric intent. Defaults to the C(aifabric_intent) of the play hosts (one fabric per run).
    type: path
  devices:
    description: Devices to check. Defaults to the play hosts that belong to the fabric.
    type: list
    elements: str
  gathered:
    description:
      - Whether device state was gathered. V(false) runs the design checks only (pre-deploy).
    type: bool
    default: true
  gathered_var:
    description: Name of the variable each device registered the result of M(aifabric.fabric.validate_gather) in.
    type: str
    default: validate_gathered
  gathered_files:
    description:
      - Files of gathered state to judge (M(aifabric.fabric.validate_gather) with
        O(aifabric.fabric.validate_gather#module:spool)), or directories whose C(*.json) files are read - the judging
        step of a sliced run joins every slice's readings this way. A device found in two files is an error.
    type: list
    elements: path
  fleet_var:
    description:
      - Name of the variable this host registered a fleet reading in (M(aifabric.fabric.validate_gather) with
        O(aifabric.fabric.validate_gather#module:devices)). A device it read is judged on that reading; the others on
        what they registered in O(gathered_var).
    type: str
    default: validate_fleet
  probe_var:
    description:
      - Name of the variable a GPU server registered its M(aifabric.fabric.dscp_probe) result in (the data-plane
        marking probe of the M(aifabric.fabric.validate) role). Absent or skipped means the probe did not run there.
    type: str
    default: validate_marking_sent
  capture_var:
    description:
      - Name of the variable a switch registered the C(async_status) of its M(aifabric.fabric.dscp_capture) job in.
    type: str
    default: validate_marking_capture
  drift_var:
    description:
      - Name of the variable holding what the deploy would change on a device (the C(aifabric.fabric.validate) role's
        drift tasks in check mode - M(aifabric.fabric.switch_deploy) on a switch, the host_network role's
        M(aifabric.fabric.linux_netdev) and M(aifabric.fabric.linux_sysctl) results on a GPU server). Absent means
        drift was not read there.
    type: str
    default: validate_drift_state
  drift_fleet_var:
    description:
      - Name of the variable holding the fleet check of the deploy (M(aifabric.fabric.switch_deploy) with
        O(aifabric.fabric.switch_deploy#module:devices) in check mode, run once from the controller after a fleet
        reading). Each switch's result there (C(switches)) is its drift where O(drift_var) holds none. A fleet check
        that failed as a whole is an error on every switch the fleet read.
    type: str
    default: validate_drift_fleet
  output_dir:
    description:
      - Directory for the reports. No report is written when omitted.
      - The reports (C(report.json), C(report.md), C(report.html), the Prometheus textfile, the ANTA catalog) are
        written as one set, whole or not at all. When they cannot be written (a full or read-only file system, a
        directory refused) the verdict is still given and the task fails naming the directory and the reason.
      - Refused inside an inventory source and, unless O(allow_system_dir), in a system directory.
    type: path
  allow_system_dir:
    description:
      - Allow O(output_dir) and the directory of O(prometheus_file) to be system directories. That is anything under
        C(/etc), C(/usr), C(/boot), C(/dev), C(/proc), C(/sys), C(/run), C(/bin), C(/sbin) or C(/lib*), and the
        directories that hold everyone's directories themselves (C(/), C(/home), C(/var), C(/var/lib), C(/tmp),
        C(/opt), C(/srv), the user's home, ...).
      - The validate role sets it from the variable C(aifabric_allow_system_dir).
    type: bool
    default: false
  processes:
    description:
      - The processes the checks run in, forked from the task's own after the devices' readings are taken. Each judges
        a run of devices that follow each other and sends its results back, so the results and their order are those
        of one process. One process is one core, and at fabric scale the checks wait on it.
      - V(0) picks one per CPU core of the controller, at most one per 256 devices. V(1) judges in the task's own
        process.
    type: int
    default: 0
  fail:
    description: Fail the task when any check failed or errored.
    type: bool
    default: true
  checks:
    description: Only run these checks (ids as in the report). Default is every check.
    type: list
    elements: str
  skip_checks:
    description: Checks not to run.
    type: list
    elements: str
    default: []
  ping_peers:
    description: Must equal the O(aifabric.fabric.validate_gather#module:ping_peers) used to gather.
    type: int
    default: 0
  max_loss_percent:
    description: Largest ping loss, in percent, that still counts as reachable.
    type: int
    default: 34
  failure_lines:
    description: How many failures the task message lists (all of them are in the report).
    type: int
    default: 40
  health_thresholds:
    description:
      - Thresholds of the counter health rules, overriding the defaults (per second) - C(pause_rate_max) (1000),
        C(watchdog_storms_max) (0), C(lossless_drops_max) (0), C(ecn_marks_min) (1), C(cnp_min) (1) and
        C(rdma_errors_max), a mapping of C(out_of_sequence), C(packet_seq_err), C(implied_nak_seq_err),
        C(local_ack_timeout_err), C(rx_discards_phy) to a rate (all 0).
      - An unknown key or a negative value fails the task before anything is judged.
    type: dict
    default: {}
  prometheus_file:
    description:
      - Also write the Prometheus text-exposition file (verdicts and lossless counters) to this path, for
        node_exporter's textfile collector (its file name must end in C(.prom)). It is always written beside the
        report as C(aifabric-<fabric>.prom) when O(output_dir) is set.
    type: path
  anta_catalog:
    description: Write the ANTA catalog of the switches read over eAPI (C(anta-catalog.yml)) to O(output_dir).
    type: bool
    default: true
  started_at:
    description:
      - Unix time the validation run started (the role sets it), for the run's wall time in the report. Without it
        the earliest start of M(aifabric.fabric.validate_gather) on the devices is used.
    type: float
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: The report is written in check mode too; it describes the devices and changes none of them.
  diff_mode:
    support: none
  platform:
    platforms: all
seealso:
  - module: aifabric.fabric.validate_gather
"""

EXAMPLES = r"""
- name: Check the fabric and write the report (run once, after validate_gather on every device)
  aifabric.fabric.validate:
    output_dir: "{{ aifabric_output_dir }}/validation"
  run_once: true

# devices defaults to the play's hosts: in a play on localhost, name the devices (here those of the intent
# inventory -i inventories/pod1k), or the check has nothing to check.
- name: Pre-deploy consistency of the design alone (no device contacted)
  aifabric.fabric.validate:
    intent: fabrics/pod1k.yml
    devices: "{{ groups['fabric_pod1k'] }}"
    gathered: false
    output_dir: out/pod1k/validation
  run_once: true
  delegate_to: localhost
"""

RETURN = r"""
devices:
  description: The devices judged.
  returned: always
  type: list
  elements: str
summary:
  description:
    - Counts - causes, checks_run, passed, failed, errors, not_applicable, health_findings, results, devices - the
      C(verdict) (PASSED, FAILED, NOT CONVERGED or NOTHING CHECKED), C(ok) (true only when checks ran and none
      failed), C(blamed) (the devices the causes are on), C(passes_aggregated) and C(unread_aggregated) (the devices
      that could not be read at all whose errors the report counts, not lists, past the size it lists every result).
  returned: always
  type: dict
causes:
  description: One line per cause, most explanatory first - C(leaf001 eth3 is admin down -> 11 consequences).
  returned: always
  type: list
  elements: str
blamed:
  description: The devices the causes are on, in cause order.
  returned: always
  type: list
  elements: str
device_causes:
  description: The causes of each blamed device (what the role fails that device with).
  returned: always
  type: dict
failures:
  description: "One line per failed or errored result: C(device check [subject]: expected ...; seen ...)."
  returned: always
  type: list
  elements: str
report:
  description:
    - Paths of the written files (json, markdown, html, prometheus, prometheus_file, and anta_catalog when switches
      read over eAPI were checked).
  returned: when output_dir or prometheus_file is set and the files were written
  type: dict
report_error:
  description: Why the reports were not written, naming the directory (the verdict in the message stands).
  returned: when they could not be written
  type: str
"""
