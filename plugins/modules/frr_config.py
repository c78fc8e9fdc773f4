#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
---
module: frr_config
short_description: Load a complete FRR configuration into running FRR with a diff-based reload, and persist it
version_added: 1.0.0
description:
  - Checks the configuration with C(vtysh -C) first (nothing is touched when FRR rejects it), then asks
    FRR's own C(frr-reload.py --test) which lines differ from the running configuration.
  - When nothing differs and the saved file already holds the configuration, nothing is changed.
  - Otherwise saves the running configuration, applies only the differences with C(frr-reload.py --reload),
    reads the running configuration back and compares again. When the reload fails or does not converge,
    the saved configuration is reloaded (rollback) and the task fails.
  - Writes the configuration to O(path) (integrated C(frr.conf)) so FRR starts with it.
author:
  - aifabric contributors (@aifabric)
options:
  config:
    description:
      - The complete FRR configuration (integrated C(frr.conf) text), for example the file rendered by
        M(aifabric.fabric.device_info) for an C(frr) switch.
    type: str
    required: true
  path:
    description:
      - The integrated configuration file FRR loads at start.
    type: path
    default: /etc/frr/frr.conf
  reload_script:
    description:
      - FRR's reload tool (Debian package C(frr-pythontools)).
    type: path
    default: /usr/lib/frr/frr-reload.py
extends_documentation_fragment:
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
  - FRR running on the managed node, with C(vtysh) and C(frr-reload.py) (Debian C(frr), C(frr-pythontools))
  - C(service integrated-vtysh-config) in the configuration
seealso:
  - module: aifabric.fabric.linux_netdev
"""

EXAMPLES = r"""
- name: Push the rendered FRR configuration
  aifabric.fabric.frr_config:
    config: "{{ device.files['frr.conf'] }}"
"""

RETURN = r"""
lines_to_delete:
  description: Running configuration lines that the reload removes (or would remove in check mode).
  returned: always
  type: list
  elements: str
lines_to_add:
  description: Configuration lines that the reload adds (or would add in check mode).
  returned: always
  type: list
  elements: str
persisted:
  description: Whether O(path) was (or would be) rewritten.
  returned: always
  type: bool
rolled_back:
  description: Whether a failed reload was rolled back to the previous running configuration.
  returned: on failure after a reload
  type: bool
"""

import grp
import os
import pwd
import tempfile

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.aifabric.fabric.plugins.module_utils.files import write_atomic
from ansible_collections.aifabric.fabric.plugins.module_utils.frr_reload import parse_reload_test


def running_config(module):
    rc, out, err = module.run_command(['vtysh', '-c', 'show running-config'])
    if rc != 0:
        module.fail_json(msg='cannot read the FRR running configuration (is FRR running?): %s' % (err.strip() or out.strip()))
    lines = out.splitlines()
    # Drop the "Building configuration..." / "Current configuration:" banner.
    while lines and not lines[0].startswith('!') and not lines[0].startswith('frr '):
        lines.pop(0)
    return '\n'.join(lines) + '\n'


def read_text(path):
    try:
        with open(path, encoding='utf-8') as handle:
            return handle.read()
    except OSError:
        return ''


def write_temp(text, directory=None, suffix='.conf'):
    handle, path = tempfile.mkstemp(prefix='aifabric-frr-', suffix=suffix, dir=directory)
    with os.fdopen(handle, 'w', encoding='utf-8') as stream:
        stream.write(text)
    os.chmod(path, 0o644)
    return path


def reload_test(module, script, path):
    rc, out, err = module.run_command([script, '--test', path])
    if rc != 0:
        module.fail_json(msg='%s --test failed: %s' % (script, (err or out).strip()[-2000:]))
    return parse_reload_test(out)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            config=dict(type='str', required=True),
            path=dict(type='path', default='/etc/frr/frr.conf'),
            reload_script=dict(type='path', default='/usr/lib/frr/frr-reload.py'),
        ),
        supports_check_mode=True,
    )
    config = module.params['config']
    if not config.endswith('\n'):
        config += '\n'
    script = module.params['reload_script']
    path = module.params['path']
    if not os.path.exists(script):
        module.fail_json(msg='%s not found: install FRR\'s python tools (Debian package frr-pythontools)' % script)
    if 'service integrated-vtysh-config' not in config:
        module.fail_json(msg='the configuration must contain "service integrated-vtysh-config" (one frr.conf for all daemons)')

    candidate = write_temp(config)
    backup = None
    try:
        rc, out, err = module.run_command(['vtysh', '-C', '-f', candidate])
        if rc != 0:
            module.fail_json(msg='FRR rejects the configuration (vtysh -C): %s' % (out + err).strip()[-2000:])
        rc, out, err = module.run_command(['vtysh', '-c', 'show version'])
        if rc != 0:
            if module.check_mode:
                # A first run in check mode: FRR is not started yet, so everything would be added.
                module.warn('FRR is not running: cannot compare with a running configuration')
                lines = [line for line in config.splitlines() if line.strip() and line.strip() != '!']
                module.exit_json(changed=True, lines_to_delete=[], lines_to_add=lines, persisted=True)
            module.fail_json(msg='FRR is not running (vtysh cannot reach its daemons): %s' % (err or out).strip())
        to_delete, to_add = reload_test(module, script, candidate)
        saved = read_text(path)
        persisted = saved != config
        result = dict(changed=bool(to_delete or to_add) or persisted, lines_to_delete=to_delete,
                      lines_to_add=to_add, persisted=persisted)
        if module._diff:
            prepared = ''.join('-%s\n' % line for line in to_delete) + ''.join('+%s\n' % line for line in to_add)
            result['diff'] = [{'prepared': prepared}] if prepared else []
            if persisted:
                result['diff'].append({'before': saved, 'after': config, 'before_header': path, 'after_header': path})
        if module.check_mode or not result['changed']:
            module.exit_json(**result)

        if to_delete or to_add:
            backup = write_temp(running_config(module))
            rc, out, err = module.run_command([script, '--reload', candidate])
            remaining = reload_test(module, script, candidate) if rc == 0 else None
            if rc != 0 or remaining[0] or remaining[1]:
                why = ('reload failed: %s' % (err or out).strip()[-2000:]) if rc != 0 else \
                    'running configuration still differs after the reload: -%s +%s' % (remaining[0], remaining[1])
                rrc, rout, rerr = module.run_command([script, '--reload', backup])
                result['rolled_back'] = rrc == 0
                module.fail_json(msg='FRR %s; %s' % (why, 'rolled back to the previous running configuration'
                                                     if rrc == 0 else 'ROLLBACK FAILED: %s' % (rerr or rout).strip()[-500:]),
                                 **result)
            # frr-reload.py saves the running configuration ("write") into frr.conf; keep the rendered text there.
            persisted = read_text(path) != config
            result['persisted'] = result['persisted'] or persisted
        if persisted:
            write_atomic(module, path, config)
            # FRR reads its configuration as user frr; keep Debian's ownership and mode.
            if _user_exists('frr'):
                module.set_owner_if_different(path, 'frr', False)
            if _group_exists('frr'):
                module.set_group_if_different(path, 'frr', False)
            module.set_mode_if_different(path, '0640', False)
        module.exit_json(**result)
    finally:
        for temp in (candidate, backup):
            if temp and os.path.exists(temp):
                os.unlink(temp)


def _user_exists(name):
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


def _group_exists(name):
    try:
        grp.getgrnam(name)
        return True
    except KeyError:
        return False


if __name__ == '__main__':
    main()
