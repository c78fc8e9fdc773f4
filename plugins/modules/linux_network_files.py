#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
---
module: linux_network_files
short_description: Keep a server's interfaces in the configuration of the network service it runs (netplan, systemd-networkd)
version_added: 1.0.0
description:
  - Writes the addresses, MTU, routes and policy-routing rules of existing interfaces (the state of
    M(aifabric.fabric.linux_netdev), without bridges or VXLAN devices) in the format of the service that configures
    the server, and has that service apply them, so that it keeps them across its own reloads and reboots.
  - C(netplan) (a C(netplan) tool and a configuration in C(/etc/netplan), as on Ubuntu) gets
    C(/etc/netplan/60-<name>.yaml) (mode 0600); the file is checked with C(netplan generate) in a scratch root first
    and applied with C(netplan apply) only when it changed.
  - C(networkd) (systemd-networkd running) gets one C(/etc/systemd/network/60-<name>-<interface>.network) file per
    interface, applied with C(networkctl reload) and C(networkctl reconfigure).
  - Files an earlier run wrote that the state no longer needs (an interface that left it, or the files of another
    backend after the server changed its network service) are removed.
  - C(script) is a server where neither runs; M(aifabric.fabric.linux_netdev) applies the state there (the
    M(aifabric.fabric.host_network) role does). If NetworkManager runs, it gets a C(conf.d) file that leaves the
    interfaces to the script (C(unmanaged-devices)).
  - If applying fails, the previous files are put back and applied again, so the server is left as it was.
author:
  - aifabric contributors (@aifabric)
options:
  config:
    description:
      - The state, in the shape of the O(aifabric.fabric.linux_netdev#module:config) of M(aifabric.fabric.linux_netdev),
        C(links) (existing interfaces), C(routes) (each with its C(dev)), C(rules) (each C(from) an address of an interface).
    type: dict
    required: true
  backend:
    description:
      - Where the state goes. V(auto) finds out (netplan first, then systemd-networkd, else the script).
    type: str
    choices: [auto, netplan, networkd, script]
    default: auto
  name:
    description:
      - Name part of the files written (C(60-<name>.yaml), C(60-<name>-<interface>.network), C(90-<name>.conf)).
    type: str
    default: aifabric-rails
extends_documentation_fragment:
  - aifabric.fabric.host_access
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: Reports the backend and the files that would change, with their diff; writes and runs nothing.
  diff_mode:
    support: full
  platform:
    platforms: posix
    support: full
notes:
  - Needs root on the managed node.
  - "Formats: the netplan YAML reference (https://netplan.readthedocs.io/en/stable/netplan-yaml/), systemd.network(5),
    NetworkManager.conf(5)."
seealso:
  - module: aifabric.fabric.linux_netdev
"""

EXAMPLES = r"""
- name: Keep the rails in netplan or systemd-networkd where the server runs one
  aifabric.fabric.linux_network_files:
    config:
      links:
        - {name: ens1f0np0, mtu: 9000, state: up, addresses: [10.100.0.10/24]}
      routes:
        - {to: 10.100.0.0/24, dev: ens1f0np0, src: 10.100.0.10, table: 100, scope: link}
      rules:
        - {from: 10.100.0.10/32, table: 100, priority: 1000}
  register: rails
"""

RETURN = r"""
backend:
  description: Where the state went (netplan, networkd or script).
  returned: always
  type: str
  sample: netplan
reason:
  description: Why that backend (what was found on the server, or that it was chosen).
  returned: always
  type: str
files:
  description: The files written (or that would be), with their paths on the server.
  returned: always
  type: list
  elements: str
removed:
  description: Files of an earlier run that no longer belong to the state, removed (or that would be).
  returned: always
  type: list
  elements: str
commands:
  description: Commands run to apply the files (or that would run).
  returned: always
  type: list
  elements: str
"""

import os
import shutil
import tempfile

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.aifabric.fabric.plugins.module_utils.files import write_atomic
from ansible_collections.aifabric.fabric.plugins.module_utils.host_access import (
    HOST_ACCESS_OPTIONS, command_text, host_access)
from ansible_collections.aifabric.fabric.plugins.module_utils.linux_netdev import StateError, validate
from ansible_collections.aifabric.fabric.plugins.module_utils.network_files import (
    NETPLAN, NETWORKD, SCRIPT, StateShapeError, detect, netplan_yaml, network_manager_conf, network_manager_runs,
    networkd_files)

NETPLAN_DIR = '/etc/netplan'
NETWORKD_DIR = '/etc/systemd/network'
NETWORK_MANAGER_DIR = '/etc/NetworkManager/conf.d'


def _read(path):
    try:
        with open(path, encoding='utf-8') as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def _ours(host, name):
    """The files an earlier run of any backend wrote, by their names (a server may have changed its network service)."""
    found = ['%s/%s' % (NETPLAN_DIR, item) for item in host.listdir(NETPLAN_DIR) if item == '60-%s.yaml' % name]
    found += ['%s/%s' % (NETWORKD_DIR, item) for item in host.listdir(NETWORKD_DIR)
              if item.startswith('60-%s-' % name) and item.endswith('.network')]
    found += ['%s/%s' % (NETWORK_MANAGER_DIR, item) for item in host.listdir(NETWORK_MANAGER_DIR)
              if item == '90-%s.conf' % name]
    return found


def _plan(backend, desired, name, host):
    """({server path: (text, mode)}, [server paths of stale files], [apply commands])."""
    commands = []
    if backend == NETPLAN:
        files = {'%s/60-%s.yaml' % (NETPLAN_DIR, name): (netplan_yaml(desired), 0o600)}
        commands = [['netplan', 'generate'], ['netplan', 'apply']]
    elif backend == NETWORKD:
        files = {'%s/%s' % (NETWORKD_DIR, file_name): (text, 0o644)
                 for file_name, text in networkd_files(desired, '60-%s' % name).items()}
        commands = [['networkctl', 'reload'], ['networkctl', 'reconfigure'] + [link['name'] for link in desired['links']]]
    elif network_manager_runs(host):
        files = {'%s/90-%s.conf' % (NETWORK_MANAGER_DIR, name): (network_manager_conf(desired), 0o644)}
        commands = [['nmcli', 'general', 'reload', 'conf']]
    else:
        files = {}
    return files, [path for path in _ours(host, name) if path not in files], commands


def _netplan_refuses(module, host, text):
    """netplan's own verdict on the file alone, in a scratch root (nothing of the server is touched): None or why."""
    scratch = tempfile.mkdtemp(prefix='aifabric-netplan-')
    try:
        os.makedirs(os.path.join(scratch, 'etc', 'netplan'))
        path = os.path.join(scratch, 'etc', 'netplan', 'candidate.yaml')
        with open(path, 'w', encoding='utf-8') as handle:
            handle.write(text)
        os.chmod(path, 0o600)
        rc, out, err = host.run(['netplan', 'generate', '--root-dir', scratch])
        return None if rc == 0 else (err.strip() or out.strip() or 'exit %d' % rc)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _apply(host, commands):
    """Run the commands in order; (True, []) or (False, [the failing command's message])."""
    for argv in commands:
        rc, out, err = host.run(argv)
        if rc != 0:
            return False, ['%s failed (exit %d): %s' % (command_text(argv), rc, (err.strip() or out.strip())[:2000])]
    return True, []


def main():
    module = AnsibleModule(
        argument_spec=dict(
            config=dict(type='dict', required=True),
            backend=dict(type='str', default='auto', choices=['auto', NETPLAN, NETWORKD, SCRIPT]),
            name=dict(type='str', default='aifabric-rails'),
            **HOST_ACCESS_OPTIONS,
        ),
        supports_check_mode=True,
    )
    name = module.params['name']
    if not name or not all(char.isalnum() or char == '-' for char in name) or len(name) > 40:
        module.fail_json(msg='name must be 1-40 letters, digits or "-" (it names files), got %r' % name)
    config = dict(module.params['config'])
    config.pop('sysctl', None)
    try:
        desired = validate(config)
    except StateError as exc:
        module.fail_json(msg='invalid network state: ' + '; '.join(exc.problems), problems=exc.problems)
    host = host_access(module)
    backend, reason = detect(host) if module.params['backend'] == 'auto' else (
        module.params['backend'], 'chosen (backend: %s)' % module.params['backend'])
    try:
        files, stale, commands = _plan(backend, desired, name, host)
    except StateShapeError as exc:
        module.fail_json(msg='%s cannot hold this state: %s' % (backend, exc), backend=backend, reason=reason)

    previous = {path: _read(host.path(path)) for path in list(files) + stale}
    changed_files = [path for path, (text, _mode) in files.items() if previous[path] != text]
    result = dict(backend=backend, reason=reason, files=sorted(files), removed=sorted(stale),
                  commands=[command_text(argv) for argv in commands] if changed_files or stale else [],
                  changed=bool(changed_files or stale))
    if module._diff:
        result['diff'] = [{'before': previous[path] or '', 'after': files[path][0] if path in files else '',
                           'before_header': path if previous[path] is not None else '%s (absent)' % path,
                           'after_header': path if path in files else '%s (removed)' % path}
                          for path in changed_files + stale]
    if not result['changed'] or module.check_mode:
        module.exit_json(**result)

    if backend == NETPLAN:
        for path in changed_files:
            refused = _netplan_refuses(module, host, files[path][0])
            if refused:
                module.fail_json(msg='netplan refuses the rendered %s, nothing was changed: %s' % (path, refused),
                                 **result)
    for path in changed_files:
        write_atomic(module, host.path(path), files[path][0], mode=files[path][1])
    for path in stale:
        os.unlink(host.path(path))
    applied, problems = _apply(host, commands)
    if not applied:
        # Put the server back as it was: the previous files, applied again.
        for path, text in previous.items():
            if text is None:
                if os.path.exists(host.path(path)):
                    os.unlink(host.path(path))
            else:
                write_atomic(module, host.path(path), text, mode=files.get(path, (None, 0o644))[1])
        restored, more = _apply(host, commands)
        module.fail_json(msg='%s; the previous files were put back%s' % (
            problems[0], ' and applied' if restored else ', but applying them failed too: %s' % more[0]), **result)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
