#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
---
module: validate_gather
short_description: Read the state of one fabric device for validation, waiting for it to settle if asked
version_added: 1.0.0
description:
  - Builds the list of read-only commands the device's platform needs from the fabric design, with the gatherer of
    that platform (C(plugins/plugin_utils/fabric/platforms/<platform>/state.py); docs/validation.md lists what each
    reads, for example C(vtysh ... json), C(ip -j -d addr show) and C(lldpcli -f json show neighbors) on a Linux
    switch), plus on GPU servers a ping and a jumbo ping (C(-M do), the largest payload the host MTU
    allows) from each rail NIC to every same-rail peer.
  - The commands of one reading run as one POSIX C(sh) script through the host's Ansible connection (SSH, with
    the play's become settings and environment), one command execution per reading. The device needs a shell and
    C(mktemp), C(timeout), C(seq) and C(base64) (GNU coreutils), not Python. At most O(parallel) commands run at
    once, each with its own timeout of 30 seconds; their outputs come back framed in base64. On GPU servers M(aifabric.fabric.rnic_facts)
    reads the lossless RDMA NIC state. That is the shell reader; a platform whose gatherer has a reader of its own
    is read through it (C(plugins/plugin_utils/fabric/state/reader.py)). EOS's reads eAPI from the controller with
    napalm's driver for it, one session per reading,
    with the host's C(ansible_host), C(ansible_user), C(ansible_password) and C(ansible_httpapi_port),
    C(ansible_httpapi_use_ssl), C(ansible_httpapi_validate_certs), C(ansible_httpapi_ca_path) (HTTPS with
    certificate validation unless told otherwise). A switch that cannot be reached is reported unreadable with the
    reason; the password never appears in results.
  - Reads the lossless counters (PFC frames, queue drops and ECN marks, PFC watchdog, RDMA NIC counters) once, or
    twice O(health_interval) seconds apart so that M(aifabric.fabric.validate) can judge their rates. With an
    interval, the first count comes with the device's first reading (the state is read inside the interval); a
    device that needs more readings to settle counts again once settled, and its interval starts there.
  - Evaluates the device's own fabric checks on what it read. With O(settle_timeout) it reads again every
    O(settle_interval) seconds until those checks pass or the deadline is reached (a freshly deployed fabric needs a
    few seconds for BGP, EVPN and LLDP). With O(settle_stable) it stops as soon as the same checks have failed the
    same way for that many seconds - the device is wrong, not converging, and waiting longer would not change it.
    RV(convergence) tells the two apart (C(stable) against C(changing) at the deadline); the final verdict is given
    by M(aifabric.fabric.validate).
  - Action plugin; nothing on the device is changed, so it runs in check mode as well.
author:
  - aifabric contributors (@aifabric)
options:
  intent:
    description:
      - Path of the fabric intent. Defaults to the C(aifabric_intent) variable set by the
        P(aifabric.fabric.fabric#inventory) inventory plugin.
    type: path
  device:
    description: Device name in the design. Defaults to C(inventory_hostname).
    type: str
  devices:
    description:
      - Read all these devices from the controller at once (a fleet reading, run once) instead of the one device of
        the task. Each device is read through its platform's reader with one connection of the controller's own
        for all its readings (SSH with asyncssh for the devices with a shell, each command on a channel of its own;
        eAPI over one kept-alive HTTPS connection for EOS), with the host's connection variables as Ansible's ssh
        connection takes them (C(ansible_host), C(ansible_port), C(ansible_user), C(ansible_ssh_private_key_file),
        C(ansible_password), C(ansible_ssh_timeout), the C(-o) options of C(ansible_ssh_common_args) such as
        C(UserKnownHostsFile) and C(StrictHostKeyChecking), C(ansible_host_key_checking)) or the eAPI variables
        above. Each device settles on its own, every reading within O(timeout).
      - A device whose reading needs Ansible's own connection (an Ansible module such as M(aifabric.fabric.rnic_facts)
        with O(rnic), a connection other than SSH, C(ProxyCommand)/C(ProxyJump) or another ssh argument the reader
        cannot take as OpenSSH would) is not read; RV(per_host) names it with the reason, for a per-host task.
    type: list
    elements: str
  concurrency:
    description: With O(devices), the devices read at the same time.
    type: int
    default: 256
  processes:
    description:
      - With O(devices) and O(spool), the processes the controller reads in, forked from the task's own, each its
        share of the devices (every n-th, so each has the fabric's mix) and of O(concurrency) on an event loop of its
        own, writing its readings to a part of O(spool) that is joined to it when the process ends. One event loop is
        one core, and at fabric scale the devices wait on it.
      - V(0) picks one per CPU core of the controller, at most one per 256 devices. Without O(spool) the reading is
        one process.
    type: int
    default: 0
  spool:
    description:
      - With O(devices), write what was read to this file (JSON, mode 0600) instead of returning it - the raw state of
        a large fabric is hundreds of MB - for M(aifabric.fabric.validate)'s
        O(aifabric.fabric.validate#module:gathered_files). RV(devices) is then left out and RV(spool) names the file.
    type: path
  design_sides:
    description:
      - With O(spool), also compute the design phase of the lossless checks (every switch's rendered configuration
        read back) in a child process while the devices are read, on the CPU the reading leaves idle (lowered
        priority), and save it beside O(spool) for the judging step of the same run (RV(design_sides)). It depends
        on the design alone; M(aifabric.fabric.validate) computes it itself when it is not there.
    type: bool
    default: false
  settle_timeout:
    description: Seconds to keep re-reading while this device's checks fail. C(0) reads once.
    type: int
    default: 0
  settle_interval:
    description: Seconds between two reads while settling.
    type: int
    default: 5
  settle_stable:
    description:
      - Stop settling once the failing checks have stayed the same (same checks, same state seen) for this many
        seconds. C(0) waits for the checks to pass until O(settle_timeout).
    type: int
    default: 0
  ping_peers:
    description:
      - Same-rail peers each GPU server pings per rail. C(0) pings every peer; a positive number picks that
        many, spread deterministically over the rail (for large fabrics).
    type: int
    default: 0
  rnic:
    description: Also gather RDMA NIC facts on GPU servers (lossless host state).
    type: bool
    default: true
  parallel:
    description: Commands run at the same time on the device.
    type: int
    default: 8
  max_loss_percent:
    description: Largest ping loss, in percent, that still counts as reachable.
    type: int
    default: 34
  health_interval:
    description:
      - Seconds between the two readings of the counters. C(0) reads them once (no rates; the counter health
        rules then report not applicable).
    type: int
    default: 0
  counters:
    description:
      - Read the lossless counters at all. C(false) skips them (the deploy's health gate judges the fabric checks
        only).
    type: bool
    default: true
  must_pass:
    description:
      - Settle on these results only, each named C(<check> <subject>) as in RV(check_results) (the deploy's health
        gate, where what passed before a push must pass again after it). Without it every fabric check of the device
        counts. An unreadable device never settles; it is read again until O(settle_timeout) is up.
    type: list
    elements: str
  deployed:
    description:
      - The devices whose configuration is in place (the deploy's health gate - switches of this batch and the
        ones before). Every failed fabric check of the device itself or towards its direct neighbours in this list
        (its sessions, interfaces and VNIs) must pass too, not only O(must_pass); a check towards a device not in
        the list (a later batch, a server) or further away (a remote VTEP, which also needs the switches between
        them) counts only through O(must_pass).
    type: list
    elements: str
  timeout:
    description:
      - Seconds one reading of the device may take, wall-clock, whatever it waits for (connecting, logging in,
        every command). A device that does not answer within it (a frozen sshd behind a live SSH ControlMaster, a
        hung eAPI) is reported unreadable, naming the device and the reading (C(read state), C(read counters)),
        instead of holding the play.
      - Each command also has its own timeout on the device (30 seconds, C(timeout) of GNU coreutils), and
        connecting has the connection's own (C(ansible_ssh_timeout), C(ansible_command_timeout) for eAPI).
    type: int
    default: 120
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  platform:
    platforms: posix
seealso:
  - module: aifabric.fabric.validate
  - module: aifabric.fabric.rnic_facts
"""

EXAMPLES = r"""
- name: Read this device's state, waiting up to two minutes for the fabric to converge
  aifabric.fabric.validate_gather:
    settle_timeout: 120
  register: validate_gathered
"""

RETURN = r"""
devices:
  description: With O(devices), the result of each device read (the keys below, per device).
  returned: with O(devices) and without O(spool)
  type: dict
read:
  description: With O(devices), the devices read.
  returned: with O(devices)
  type: list
  elements: str
probes:
  description: With O(devices), the part each device read has in the data-plane marking probe (RV(probe)), for those
    that have one.
  returned: with O(devices)
  type: dict
spool:
  description: With O(spool), the file the readings were written to.
  returned: with O(spool)
  type: str
design_sides:
  description: With O(design_sides), the file (beside O(spool), mode 0600) the design phase of the lossless checks was
    saved to, for M(aifabric.fabric.validate) in the same run; absent when it could not be computed.
  returned: with O(spool) and O(design_sides), when computed
  type: str
per_host:
  description: With O(devices), the devices not read because their reading needs Ansible's own connection, each with
    the reason.
  returned: with O(devices)
  type: dict
fleet:
  description: With O(devices), the figures of the fleet reading - C(devices), C(read), C(per_host), C(concurrency),
    C(processes), C(seconds) (wall) and C(cpu_seconds) (the task's process and its reader processes).
  returned: with O(devices)
  type: dict
state:
  description: Raw gathered state, state key to command result (C(rc), C(stdout), C(stderr)) or eAPI JSON; C(rnic)
    holds the RDMA NIC facts, C(counters) and C(counters.2) the two counter readings, C(_times) when they were taken.
    Input of M(aifabric.fabric.validate).
  returned: without O(devices); with it, per device under RV(devices)
  type: dict
check_results:
  description: This device's fabric check results (device, check, subject, status, expected, seen, message).
  returned: without O(devices); with it, per device under RV(devices)
  type: list
  elements: dict
probe:
  description:
    - This device's part in the data-plane marking probe, null when it has none. C(send) is a list of
      M(aifabric.fabric.dscp_probe) arguments (one per rail the GPU server sends on), C(capture) the
      M(aifabric.fabric.dscp_capture) arguments of a switch that listens on its links to the senders' leaves.
  returned: without O(devices); with it, per device under RV(devices)
  type: dict
  sample: {capture: {interfaces: [eth1], port: 4791, sources: [10.100.0.10], expect: [{source: 10.100.0.10, dscp: 26}]}}
summary:
  description: Number of results per status (pass, fail, error, not_applicable).
  returned: without O(devices); with it, per device under RV(devices)
  type: dict
attempts:
  description: How many times the state was read.
  returned: without O(devices); with it, per device under RV(devices)
  type: int
passed:
  description: The results that passed on the last read, each as C(<check> <subject>) (what O(must_pass) takes).
  returned: without O(devices); with it, per device under RV(devices)
  type: list
  elements: str
open_checks:
  description: What kept the device from settling on the last read, each as C(<check> <subject>).
  returned: without O(devices); with it, per device under RV(devices)
  type: list
  elements: str
settled:
  description: Whether the device was readable and every fabric check of it (or every O(must_pass) result) passed on
    the last read.
  returned: without O(devices); with it, per device under RV(devices)
  type: bool
platform:
  description: The gatherer that read the device (its platform, or host for a GPU server).
  returned: without O(devices); with it, per device under RV(devices)
  type: str
seconds:
  description: Time spent gathering, settling and the counter interval included.
  returned: without O(devices); with it, per device under RV(devices)
  type: float
started_at:
  description: Unix time when gathering started (the report gives the run's wall time from it).
  returned: without O(devices); with it, per device under RV(devices)
  type: float
read_at:
  description: Unix time of the last reading of the state (the two ends of a link are read at different moments).
  returned: without O(devices); with it, per device under RV(devices)
  type: float
convergence:
  description:
    - How settling ended - C(outcome) is C(settled) (the checks pass), C(stable) (failing the same way for
      O(settle_stable) seconds, or on the last two reads at the deadline - wrong, not converging), C(changing)
      (still changing at the deadline - not converged yet), C(once) (one reading) or C(unreadable); with
      C(deadline) (O(settle_timeout)), C(reads), C(seconds) spent and C(unchanged_for) (seconds the failures
      stayed the same).
  returned: without O(devices); with it, per device under RV(devices)
  type: dict
"""
