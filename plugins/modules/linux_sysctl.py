#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
---
module: linux_sysctl
short_description: Set Linux kernel parameters now and persist them in one sysctl.d file
version_added: 1.0.0
description:
  - Compares every listed kernel parameter with its value under C(/proc/sys), writes only the ones that
    differ, and keeps one C(sysctl.d) file holding exactly the listed parameters, so the values survive
    a reboot. Reports changed only when a value or the file changed.
  - Interface names that contain a dot are written with C(/) in the parameter name, as C(sysctl) does
    (C(net.ipv4.conf.eth1/100.rp_filter) for interface C(eth1.100)).
author:
  - aifabric contributors (@aifabric)
options:
  sysctl:
    description:
      - Parameter name to value. Values are compared as whitespace-separated words.
    type: dict
    required: true
  persist:
    description:
      - Write O(path).
    type: bool
    default: true
  path:
    description:
      - The C(sysctl.d) file that holds these parameters. Use one file per role.
      - Like C(/proc/sys), it is taken relative to O(root).
    type: path
    default: /etc/sysctl.d/90-aifabric.conf
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
notes:
  - Needs root. In a container, C(/proc/sys) must be writable (the aifabric lab node image remounts it;
    C(net.*) parameters belong to the container's own network namespace).
seealso:
  - module: aifabric.fabric.linux_netdev
"""

EXAMPLES = r"""
- name: Rail ARP and reverse-path settings
  aifabric.fabric.linux_sysctl:
    sysctl:
      net.ipv4.conf.all.arp_ignore: 1
      net.ipv4.conf.all.arp_announce: 2
      net.ipv4.conf.eth1.rp_filter: 2
    path: /etc/sysctl.d/90-aifabric-rails.conf
"""

RETURN = r"""
changed_keys:
  description: Parameters whose running value differed (and were set, unless in check mode).
  returned: always
  type: list
  elements: str
before:
  description: Running values before the task.
  returned: always
  type: dict
persisted:
  description: Whether the file was (or would be) rewritten.
  returned: always
  type: bool
"""

import re

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.aifabric.fabric.plugins.module_utils.files import write_atomic
from ansible_collections.aifabric.fabric.plugins.module_utils.host_access import HOST_ACCESS_OPTIONS, host_access

NAME = re.compile(r'[A-Za-z0-9_]+(\.[A-Za-z0-9_/:@-]+)+')  # matched whole (fullmatch): no trailing newline


def proc_path(name):
    """net.ipv4.conf.eth1/100.rp_filter -> /proc/sys/net/ipv4/conf/eth1.100/rp_filter"""
    return '/proc/sys/' + name.translate(str.maketrans('./', '/.'))


def normalize(value):
    if isinstance(value, bool):
        value = int(value)
    return ' '.join(str(value).split())


def file_text(values):
    lines = ['# Written by aifabric.fabric.linux_sysctl. Do not edit; rerun the playbook instead.']
    lines += ['%s = %s' % (name, values[name]) for name in sorted(values)]
    return '\n'.join(lines) + '\n'


def main():
    module = AnsibleModule(
        argument_spec=dict(
            sysctl=dict(type='dict', required=True),
            persist=dict(type='bool', default=True),
            path=dict(type='path', default='/etc/sysctl.d/90-aifabric.conf'),
            **HOST_ACCESS_OPTIONS,
        ),
        supports_check_mode=True,
    )
    host = host_access(module)
    wanted = {}
    problems = []
    for name, value in module.params['sysctl'].items():
        if not NAME.fullmatch(name) or '..' in name:
            problems.append('%s: not a kernel parameter name such as net.ipv4.ip_forward' % name)
        elif value is None or isinstance(value, (dict, list)):
            problems.append('%s: the value must be a number or text' % name)
        else:
            wanted[name] = normalize(value)
    missing = [name for name in wanted if not host.exists(proc_path(name))]
    problems += ['%s: no such kernel parameter here (%s)' % (name, proc_path(name)) for name in sorted(missing)]
    if problems:
        module.fail_json(msg='; '.join(problems), problems=problems)

    before = {}
    for name in sorted(wanted):
        with open(host.path(proc_path(name)), encoding='utf-8') as handle:
            before[name] = normalize(handle.read())
    changed_keys = [name for name in sorted(wanted) if before[name] != wanted[name]]

    path = module.params['path']
    target = host.path(path)
    text = file_text(wanted)
    previous = None
    if module.params['persist']:
        try:
            with open(target, encoding='utf-8') as handle:
                previous = handle.read()
        except OSError:
            previous = ''
    persisted = module.params['persist'] and previous != text

    result = dict(changed=bool(changed_keys) or persisted, changed_keys=changed_keys, before=before, persisted=persisted)
    if module._diff:
        result['diff'] = [{'before': ''.join('%s = %s\n' % (name, before[name]) for name in sorted(before)),
                           'after': ''.join('%s = %s\n' % (name, wanted[name]) for name in sorted(wanted)),
                           'before_header': 'sysctl (running)', 'after_header': 'sysctl (desired)'}]
        if persisted:
            result['diff'].append({'before': previous, 'after': text, 'before_header': path, 'after_header': path})
    if module.check_mode:
        module.exit_json(**result)

    for name in changed_keys:
        try:
            with open(host.path(proc_path(name)), 'w', encoding='utf-8') as handle:
                handle.write(wanted[name])
        except OSError as exc:
            hint = ' (/proc/sys is read-only here: a container needs it remounted read-write)' if exc.errno == 30 else ''
            module.fail_json(msg='cannot set %s to %s: %s%s' % (name, wanted[name], exc.strerror, hint), **result)
    if persisted:
        write_atomic(module, target, text)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
