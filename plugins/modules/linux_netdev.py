#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
---
module: linux_netdev
short_description: Apply a declarative Linux network state (links, bridges, VXLAN, addresses, routes, rules) with iproute2
version_added: 1.0.0
description:
  - Reads the current state with C(ip -j), compares it with the desired state and runs only the iproute2
    commands that close the difference, so a second run changes nothing.
  - Creates C(bridge), C(vxlan) and C(vrf) links; every other listed link must already exist (physical
    ports, C(lo)). A listed link gets exactly the listed master (none when omitted) and, when
    its C(addresses) key is given, exactly those global addresses; link-local and host-scope
    addresses (C(127.0.0.1), C(fe80::/64)) are never touched.
  - Routes in tables other than C(main), C(local) and C(default) are owned by the state, as are rules that
    point to such a table; anything else there is removed. Routes in C(main) are only added or replaced.
  - After applying, the state is read back and compared again; the task fails if it did not converge.
  - With O(persist=true) it writes an C(ip -force -batch) file that rebuilds the state at boot
    (the aifabric lab node init and the C(aifabric-netdev) systemd unit replay every C(*.ip) file of
    C(/etc/aifabric/netdev.d)); the unit's text comes back as RV(boot_unit) for the roles to install.
author:
  - aifabric contributors (@aifabric)
options:
  config:
    description:
      - The desired state, for example a rendered C(interfaces.json) (docs/platform-frr.md), or the rail
        state the M(aifabric.fabric.host_network) role builds. Keys C(links), C(routes), C(rules);
        a C(sysctl) key is accepted and ignored (see M(aifabric.fabric.linux_sysctl)).
      - Every problem in it is reported at once before anything is changed.
    type: dict
    required: true
  purge:
    description:
      - Also delete C(bridge), C(vxlan) and C(vrf) links that the state does not list.
    type: bool
    default: false
  persist:
    description:
      - Write O(persist_path) so that the state survives a restart of the machine.
    type: bool
    default: true
  persist_path:
    description:
      - The C(ip -batch) file written when O(persist=true). Use one file per role.
      - It is taken relative to O(root); C(ip) is looked up in O(bin_path) when given.
    type: path
    default: /etc/aifabric/netdev.d/aifabric.ip
extends_documentation_fragment:
  - aifabric.fabric.host_access
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
  platform:
    platforms: posix
    support: full
requirements:
  - iproute2 with JSON output (C(ip -j), iproute2 4.14 or later) on the managed node
notes:
  - Needs root (or CAP_NET_ADMIN) on the managed node.
  - VRF devices need kernel support (C(CONFIG_NET_VRF)); the containerlab lab kernel has none.
seealso:
  - module: aifabric.fabric.linux_sysctl
"""

EXAMPLES = r"""
- name: Apply the rendered interfaces.json of an FRR switch
  aifabric.fabric.linux_netdev:
    config: "{{ device.files['interfaces.json'] | ansible.builtin.from_json }}"
    purge: true
    persist_path: /etc/aifabric/netdev.d/switch.ip

- name: One rail of a GPU server, with policy routing
  aifabric.fabric.linux_netdev:
    config:
      links:
        - {name: eth1, mtu: 9000, state: up, addresses: [10.100.0.10/24]}
      routes:
        - {to: 10.100.0.0/24, dev: eth1, src: 10.100.0.10, table: 100, scope: link}
      rules:
        - {from: 10.100.0.10/32, table: 100, priority: 1000}
    persist_path: /etc/aifabric/netdev.d/rails.ip
"""

RETURN = r"""
commands:
  description: iproute2 commands run (or that would run in check mode), without the leading C(ip).
  returned: always
  type: list
  elements: str
  sample: ["link add br100 type bridge stp_state 0", "link set dev eth1 master br100"]
before:
  description: The managed part of the state before the task, in the shape of the desired state.
  returned: always
  type: dict
after:
  description: The managed part of the state after the task (predicted in check mode).
  returned: always
  type: dict
persisted:
  description: Whether the boot file was (or would be) rewritten.
  returned: always
  type: bool
boot_unit:
  description:
    - The systemd unit (C(aifabric-netdev.service), text) that replays every C(*.ip) file of C(/etc/aifabric/netdev.d)
      at boot; the roles install it where systemd runs.
  returned: when O(persist=true)
  type: str
"""

import json
import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.aifabric.fabric.plugins.module_utils.files import write_atomic
from ansible_collections.aifabric.fabric.plugins.module_utils.host_access import HOST_ACCESS_OPTIONS, host_access
from ansible_collections.aifabric.fabric.plugins.module_utils.linux_netdev import (
    BOOT_UNIT, StateError, boot_script, desired_view, parse_state, plan, summarize, to_text, validate,
)

READ_COMMANDS = (
    ('addr', ['-d', '-j', 'address', 'show']),
    ('route4', ['-j', '-4', 'route', 'show', 'table', 'all']),
    ('route6', ['-j', '-6', 'route', 'show', 'table', 'all']),
    ('rule4', ['-j', '-4', 'rule', 'show']),
    ('rule6', ['-j', '-6', 'rule', 'show']),
)


def read_state(module, ip):
    raw = {}
    for key, args in READ_COMMANDS:
        rc, out, err = module.run_command([ip] + args)
        if rc != 0:
            if key in ('route6', 'rule6'):  # IPv6 disabled on this machine
                raw[key] = []
                continue
            module.fail_json(msg='ip %s failed: %s' % (' '.join(args), err.strip()))
        try:
            raw[key] = json.loads(out) if out.strip() else []
        except ValueError:
            module.fail_json(msg='ip %s did not return JSON (iproute2 too old?): %s' % (' '.join(args), out[:200]))
    return parse_state(raw['addr'], raw['route4'] + raw['route6'], raw['rule4'] + raw['rule6'])


def boot_file_text(desired):
    header = ['# Written by aifabric.fabric.linux_netdev: rebuilds this state at boot.',
              '# Replay: ip -force -batch <this file>. Do not edit; rerun the playbook instead.']
    return '\n'.join(header + boot_script(desired)) + '\n'


def main():
    module = AnsibleModule(
        argument_spec=dict(
            config=dict(type='dict', required=True),
            purge=dict(type='bool', default=False),
            persist=dict(type='bool', default=True),
            persist_path=dict(type='path', default='/etc/aifabric/netdev.d/aifabric.ip'),
            **HOST_ACCESS_OPTIONS,
        ),
        supports_check_mode=True,
    )
    config = dict(module.params['config'])
    config.pop('sysctl', None)
    try:
        desired = validate(config)
    except StateError as exc:
        module.fail_json(msg='invalid network state: ' + '; '.join(exc.problems), problems=exc.problems)
    host = host_access(module)
    ip = host.which('ip')
    if ip is None:
        module.fail_json(msg='ip (iproute2) not found%s' % (' in %s' % ', '.join(host.bin_path) if host.bin_path else ''))

    current = read_state(module, ip)
    try:
        commands = plan(desired, current, purge=module.params['purge'])
    except StateError as exc:
        module.fail_json(msg='; '.join(exc.problems), problems=exc.problems)
    before = summarize(desired, current)

    persist_path = host.path(module.params['persist_path'])
    persist_text = boot_file_text(desired) if module.params['persist'] else None
    persisted = False
    if persist_text is not None:
        try:
            with open(persist_path, encoding='utf-8') as handle:
                persisted = handle.read() != persist_text
        except OSError:
            persisted = True

    result = dict(changed=bool(commands) or persisted, commands=[' '.join(command) for command in commands],
                  before=before, persisted=persisted)
    if persist_text is not None:
        result['boot_unit'] = BOOT_UNIT
    if module._diff:
        result['diff'] = [{'before': to_text(before), 'after': to_text(desired_view(desired)),
                           'before_header': 'netdev (running)', 'after_header': 'netdev (desired)'}]
        if persisted:
            previous = ''
            if os.path.exists(persist_path):
                with open(persist_path, encoding='utf-8') as handle:
                    previous = handle.read()
            result['diff'].append({'before': previous, 'after': persist_text,
                                   'before_header': persist_path, 'after_header': persist_path})

    if module.check_mode:
        result['after'] = desired_view(desired)
        module.exit_json(**result)

    done = []
    for command in commands:
        rc, out, err = module.run_command([ip] + command)
        if rc != 0:
            module.fail_json(msg='ip %s failed: %s' % (' '.join(command), err.strip() or out.strip()),
                             commands_done=[' '.join(item) for item in done], **result)
        done.append(command)

    if commands:
        current = read_state(module, ip)
        remaining = plan(desired, current, purge=module.params['purge'])
        if remaining:
            module.fail_json(msg='the network state did not converge; still different: %s'
                             % '; '.join(' '.join(command) for command in remaining), **result)
    result['after'] = summarize(desired, current)

    if persisted:
        write_atomic(module, persist_path, persist_text)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
