#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
---
module: switch_deploy
short_description: Push, confirm or roll back the rendered configuration of one switch
version_added: 1.0.0
description:
  - Deploys this switch's rendered files with the deploy driver of its platform, all from the controller, one
    connection per step. Every platform follows the same contract; docs/deploy.md describes it and
    docs/platform-<platform>.md how each network OS is driven (the NOS's own candidate, diff, commit timer and
    rollback commands, over napalm or netmiko).
  - The files are the ones the user reviewed, never a fresh render - the current generation of the fabric's rendered
    output (O(rendered), by default the C(aifabric_output_dir) the P(aifabric.fabric.fabric#inventory) inventory plugin
    sets, as C(playbooks/render.yml) wrote it), each file checked against the sha256 its C(manifest.json) lists. When
    that output is missing, incomplete, altered, or rendered from another version of the intent, the task fails
    before the switch is touched and says to render (and review) again.
  - O(step=push) loads the candidate, diffs it against the running configuration and, when they differ, commits
    it with a confirm timer on the switch, so the switch returns to its previous configuration by itself unless
    O(step=confirm) comes within O(confirm_timeout) seconds. A push the switch refuses leaves it as it was. Before
    committing, a lock-out guard refuses a configuration that would cut the deploy off (the management address,
    the management API or the login user taken away).
  - O(step=confirm) confirms, saves to startup and reads back (the diff must then be empty). O(step=rollback)
    reverts a pending commit at once.
  - Connection settings come from the host's variables, as Ansible's connections take them - C(ansible_host),
    C(ansible_user), C(ansible_password) or C(ansible_ssh_private_key_file), C(ansible_port); for an HTTPS API the
    C(ansible_httpapi_*) variables of ansible.netcommon's httpapi connection; SSH host keys are checked against
    C(aifabric_ssh_known_hosts) (default C(~/.ssh/known_hosts)) unless C(aifabric_ssh_host_key_checking=false).
    A platform's driver may read host variables of its own (SONiC C(aifabric_sonic_commit_path),
    C(aifabric_sonic_commit_timeout); docs/platform-sonic.md).
    Passwords and password hashes (C(aifabric_switch_users)) never appear in results, diffs or errors.
  - With O(devices), in check mode only, one task (run it with C(run_once)) checks every listed switch from the
    controller at once, O(concurrency) switches at a time, each through its platform's driver as the per-host path
    does (preflight, the candidate and its diff, discard), with each switch's connection settings taken from its own
    host variables. A shell switch (SONiC, NVUE, FRR) is reached with one SSH connection whose commands each run on
    an exec channel of their own (no terminal) and whose uploads go over SFTP; EOS over eAPI as on the per-host path.
    Each switch has its own O(timeout); a switch that fails, refuses or stops answering is an error naming it and the
    step, and the other switches go on. The task itself does not fail for them, RV(errors) lists them.
author:
  - aifabric contributors (@aifabric)
options:
  intent:
    description:
      - Path of the fabric intent. Defaults to the C(aifabric_intent) variable set by the
        P(aifabric.fabric.fabric#inventory) inventory plugin.
    type: path
  step:
    description: What to do on the switch.
    type: str
    choices: [push, confirm, rollback]
    default: push
  confirm_timeout:
    description: Seconds the switch waits for O(step=confirm) before it rolls back by itself (30 to 86400).
    type: int
    default: 300
  timeout:
    description:
      - Seconds the whole step may take on the switch, wall-clock, whatever it waits for. A switch that stops
        answering (a frozen sshd whose port still accepts, a hung eAPI) fails the step at this deadline, naming the
        switch and the step it stopped in; RV(outcome) says what the switch is left in (V(failed) before the commit,
        V(reverting) during or after it, the confirm timer reverts it).
      - Connecting, logging in, each command and each upload also have their own timeout, the host's
        C(ansible_command_timeout) (30 s by default).
    type: int
    default: 600
  rendered:
    description:
      - The fabric's rendered output directory (the C(dest) of M(aifabric.fabric.render)). Defaults to the
        C(aifabric_output_dir) variable set by the P(aifabric.fabric.fabric#inventory) inventory plugin.
    type: path
  devices:
    description:
      - Check every switch of this list from the controller at once instead of the task's host (see the
        description). Only in check mode and with O(step=push); O(timeout) is then each switch's own deadline.
    type: list
    elements: str
  concurrency:
    description: With O(devices), how many switches are checked at once (1 or more).
    type: int
    default: 32
attributes:
  check_mode:
    support: full
    details: O(step=push) diffs and discards the candidate; confirm and rollback do nothing.
  diff_mode:
    support: full
    details: The configuration diff the switch computed (password hashes masked).
  platform:
    platforms: all
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
notes:
  - Runs on the controller; the switch's Ansible connection is not used.
seealso:
  - plugin: aifabric.fabric.fabric
    plugin_type: inventory
"""

EXAMPLES = r"""
- name: Push with a 5 minute confirm timer
  aifabric.fabric.switch_deploy:
    confirm_timeout: 300
  register: pushed

- name: Confirm once the health gate passed
  aifabric.fabric.switch_deploy:
    step: confirm
  when: pushed.outcome == 'pending_confirm'

- name: Diff every switch of the play from the controller at once (check mode)
  aifabric.fabric.switch_deploy:
    devices: "{{ ansible_play_hosts }}"
    concurrency: 32
    timeout: 300
  run_once: true
  check_mode: true
  register: checked
"""

RETURN = r"""
outcome:
  description:
    - What the switch runs now. C(unchanged) (nothing to do), C(would_change) (check mode), C(pending_confirm)
      (committed, timer running), C(confirmed), C(rolled_back), C(reverting) (the session was lost after the
      commit; the switch's timer reverts it), C(failed) (refused before the commit; the switch runs what it ran).
  returned: always
  type: str
  sample: pending_confirm
failed_step:
  description: The step that failed, as the switch or library reported it.
  returned: failed
  type: str
  sample: config replace
device:
  description: The switch.
  returned: always
  type: str
platform:
  description: Its platform (the name of its folder under plugins/plugin_utils/fabric/platforms).
  returned: always
  type: str
step:
  description: The step that ran.
  returned: always
  type: str
would_push:
  description:
    - In check mode, what the push would change on the switch (the diff of its running state against the reviewed
      generation, secrets masked; empty when nothing differs), also without C(--diff). Validation reads it as the
      switch's configuration drift.
  returned: check mode, step push
  type: str
  sample: "--- FRR (running)\n+++ FRR (rendered)\n-router bgp 65100\n- neighbor 10.0.0.1 shutdown\n"
switches:
  description:
    - With O(devices), per switch what its check found - C(outcome) (V(would_change), V(unchanged) or V(failed)),
      C(changed), and C(would_push) (its diff, secrets masked) or C(failed), C(failed_step) and C(msg) (the error
      naming the switch and the step; C(not_reviewed) when no reviewed generation was found), the shape of the per-host
      result, which validation's drift check reads.
  returned: with devices
  type: dict
  sample: {"leaf001": {"outcome": "unchanged", "changed": false, "would_push": ""}}
outcomes:
  description: With O(devices), each switch's outcome.
  returned: with devices
  type: dict
  sample: {"leaf001": "unchanged", "leaf002": "would_change", "spine001": "failed"}
errors:
  description: With O(devices), the error of each switch that could not be checked, naming the switch and the step.
  returned: with devices
  type: list
  elements: str
  sample: ["spine001: connect failed: no answer within 300 s (the per-switch deadline, option timeout)"]
would_change:
  description: With O(devices), the switches whose running configuration differs from the reviewed one.
  returned: with devices
  type: list
  elements: str
unchanged:
  description: With O(devices), the switches that run the reviewed configuration.
  returned: with devices
  type: list
  elements: str
not_checked:
  description: With O(devices), the switches that could not be checked (RV(errors) says why).
  returned: with devices
  type: list
  elements: str
fleet:
  description: With O(devices), the run's figures - switches, concurrency, wall and controller CPU seconds.
  returned: with devices
  type: dict
  sample: {"switches": 1280, "concurrency": 32, "seconds": 212.4, "cpu_seconds": 180.2}
not_reviewed:
  description: True when nothing was pushed because the output directory holds no reviewed generation for this intent.
  returned: when that is why it failed
  type: bool
"""
