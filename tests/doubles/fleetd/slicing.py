"""AWX job slicing without an AWX server: the inventory split into N slices as AWX splits it, each slice run by
ansible-runner (what AWX runs a job with) at the same time, then one more job (a workflow's next node) on the whole
inventory.

AWX gives slice k of N (k from 1) the hosts of the job's inventory ordered by name, every N-th from the k-th
(awx/main/models/inventory.py, Inventory.get_sliced_hosts: `hosts[offset::slice_count]` over hosts ordered by
name), with the groups and variables of the inventory, and hands the job the inventory as a script printing its
JSON (what `ansible-inventory --list --export` imported). A slice's job sees only its hosts.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import time


def imported_inventory(command, sources, env, cwd):
    """The inventory as AWX imports it: `ansible-inventory --list --export` of the sources (`command`: how to run
    ansible-inventory)."""
    argv = list(command)
    for source in sources:
        argv += ['-i', source]
    done = subprocess.run(argv + ['--list', '--export'], env=env, cwd=cwd, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def slice_inventory(inventory, number, count):
    """Slice `number` (1..count) of `inventory` (the JSON of ansible-inventory --list)."""
    hostvars = inventory.get('_meta', {}).get('hostvars', {})
    hosts = set(sorted(hostvars)[number - 1::count])
    sliced = {'_meta': {'hostvars': {name: value for name, value in hostvars.items() if name in hosts}}}
    for group, body in inventory.items():
        if group == '_meta':
            continue
        body = dict(body)
        if 'hosts' in body:
            body['hosts'] = [name for name in body['hosts'] if name in hosts]
        sliced[group] = body
    return sliced


def _script(path, data):
    with open(path, 'w', encoding='utf-8') as handle:
        handle.write('#!/usr/bin/env python3\nimport sys\nsys.stdout.write(%r)\n' % json.dumps(data))
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


def run_jobs(playbook, inventories, extravars, work, envvars):
    """ansible-runner jobs of `playbook`, one per inventory, all at once; [(runner, seconds)] in the same order."""
    import ansible_runner  # pylint: disable=import-outside-toplevel
    started, jobs = time.monotonic(), []
    for index, inventory in enumerate(inventories, start=1):
        private = os.path.join(work, 'job%d' % index)
        os.makedirs(os.path.join(private, 'inventory'), exist_ok=True)
        _script(os.path.join(private, 'inventory', 'hosts'), inventory)
        thread, runner = ansible_runner.run_async(
            private_data_dir=private, playbook=playbook, inventory=os.path.join(private, 'inventory', 'hosts'),
            extravars=extravars, envvars=envvars, quiet=True)
        jobs.append((thread, runner))
    done = []
    for thread, runner in jobs:
        thread.join()
        done.append((runner, time.monotonic() - started))
    return done


def stdout_of(runner):
    with open(os.path.join(runner.config.artifact_dir, 'stdout'), encoding='utf-8', errors='replace') as handle:
        return handle.read()


__all__ = ['imported_inventory', 'slice_inventory', 'run_jobs', 'stdout_of']
