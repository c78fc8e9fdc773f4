#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
---
module: validate_commands
short_description: Run the read-only state commands of fabric validation on a device, several at a time
version_added: 1.0.0
description:
  - Runs a list of commands (argv, no shell) and returns each one's return code, standard output and error.
  - Used by M(aifabric.fabric.validate_gather), which builds the list from the fabric design
    (vtysh C(show ... json), C(ip -j), C(lldpcli -f json), C(ping), C(cat /etc/nccl.conf)); the commands only read
    state.
  - Commands run in parallel (pings dominate the time), each with a timeout.
  - Never reports a change; runs in check mode too because nothing is modified.
author:
  - aifabric contributors (@aifabric)
options:
  commands:
    description:
      - Commands to run, each with a C(key) naming the result and the C(argv) list.
    type: list
    elements: dict
    required: true
    suboptions:
      key:
        description: Name of the result.
        type: str
        required: true
      argv:
        description: Program and arguments (no shell).
        type: list
        elements: str
        required: true
  parallel:
    description: How many commands run at the same time.
    type: int
    default: 8
  timeout:
    description: Seconds after which a command is stopped and reported with rc -1.
    type: int
    default: 30
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: The commands only read state, so they run in check mode as well.
  diff_mode:
    support: none
  platform:
    platforms: posix
notes:
  - A missing program gives rc 127 and the error in stderr rather than a failure of the task, so that the
    validation report can say which state could not be read.
seealso:
  - module: aifabric.fabric.validate_gather
"""

EXAMPLES = r"""
- name: Read BGP and LLDP state
  aifabric.fabric.validate_commands:
    commands:
      - {key: bgp_summary, argv: [vtysh, -c, show bgp vrf all summary json]}
      - {key: lldp, argv: [lldpcli, -f, json, show, neighbors]}
  register: state
"""

RETURN = r"""
outputs:
  description: Command key to C(cmd), C(rc), C(stdout), C(stderr) and C(seconds).
  returned: always
  type: dict
  sample:
    bgp_summary: {cmd: [vtysh, -c, show bgp vrf all summary json], rc: 0, stdout: '{...}', stderr: '', seconds: 0.1}
"""

import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

from ansible.module_utils.basic import AnsibleModule


def run_one(argv, timeout):
    started = time.monotonic()
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
        rc, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
    except FileNotFoundError as exc:
        rc, stdout, stderr = 127, '', '%s: %s' % (argv[0], exc.strerror)
    except subprocess.TimeoutExpired as exc:
        rc = -1
        stdout = exc.stdout.decode(errors='replace') if isinstance(exc.stdout, bytes) else (exc.stdout or '')
        stderr = 'timed out after %d s' % timeout
    except OSError as exc:
        rc, stdout, stderr = 126, '', '%s: %s' % (argv[0], exc.strerror)
    return {'cmd': list(argv), 'rc': rc, 'stdout': stdout.rstrip('\n'), 'stderr': stderr.rstrip('\n'),
            'seconds': round(time.monotonic() - started, 3)}


def main():
    module = AnsibleModule(
        argument_spec=dict(
            commands=dict(type='list', elements='dict', required=True, options=dict(
                key=dict(type='str', required=True, no_log=False),
                argv=dict(type='list', elements='str', required=True),
            )),
            parallel=dict(type='int', default=8),
            timeout=dict(type='int', default=30),
        ),
        supports_check_mode=True,
    )
    commands = module.params['commands']
    keys = [item['key'] for item in commands]
    if len(set(keys)) != len(keys):
        module.fail_json(msg='command keys must be unique: %s' % ', '.join(sorted({key for key in keys if keys.count(key) > 1})))
    workers = max(1, min(module.params['parallel'], len(commands) or 1))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {item['key']: pool.submit(run_one, item['argv'], module.params['timeout']) for item in commands}
        results = {key: future.result() for key, future in futures.items()}
    module.exit_json(changed=False, outputs=results)


if __name__ == '__main__':
    main()
