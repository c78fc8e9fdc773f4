# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Controller side of aifabric.fabric.validate_gather (documented in plugins/modules/validate_gather.py)."""

from __future__ import annotations

import asyncio
import hashlib
import resource
import time

from ansible.errors import AnsibleActionFail, AnsibleConnectionFailure
from ansible.plugins.action import ActionBase

from ansible_collections.aifabric.fabric.plugins.plugin_utils.design_cache import get_design, intent_path, loaded_platforms
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import live, sides
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks.gathered import GatheredWriter
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.device_text import failed_step, mask, mask_data
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.gatherer import UNREADABLE
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms import import_in_controller
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.reader import ReadFailed
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.transport import TransportError, deadline

import_in_controller('state', loaded_platforms())


class TaskConnection:
    """The task's Ansible connection to the device, as a state reader takes it (state/reader.py Connection): a script
    on /bin/sh's standard input, as Ansible pipelines a module (no terminal; become and the task's environment apply
    alike), and Ansible modules."""

    def __init__(self, action, device, task_vars):
        self.action = action
        self.device = device
        self.task_vars = task_vars

    @property
    def name(self):
        return self.action._connection.transport

    def run_script(self, script):
        if not self.action._connection.has_pipelining:
            raise ReadFailed(self.device, 'reading its state', 'connection %s cannot pass a script on standard input '
                             '(ssh, paramiko_ssh, local and the container connections can)' % self.name)
        shell = ' '.join(part for part in (self.action._compute_environment_string(), '/bin/sh') if part)
        # Bytes: the connection writes them to the shell's standard input as they are (the local connection of
        # ansible-core 2.19 refuses text there).
        return self.action._low_level_execute_command(shell, in_data=script.encode('utf-8'))

    def run_module(self, name, args):
        """The module's one fact, or its whole result when it failed (the parser reports it)."""
        facts = self.action._execute_module(module_name=name, module_args=args, task_vars=self.task_vars)
        found = facts.get('ansible_facts') or {}
        return facts if facts.get('failed') or len(found) != 1 else next(iter(found.values()))


ARGUMENT_SPEC = {
    'intent': {'type': 'path'},
    'device': {'type': 'str'},
    'devices': {'type': 'list', 'elements': 'str'},
    'concurrency': {'type': 'int', 'default': 256},
    'processes': {'type': 'int', 'default': 0},
    'spool': {'type': 'path'},
    'design_sides': {'type': 'bool', 'default': False},
    'settle_timeout': {'type': 'int', 'default': 0},
    'settle_interval': {'type': 'int', 'default': 5},
    'settle_stable': {'type': 'int', 'default': 0},
    'ping_peers': {'type': 'int', 'default': 0},
    'rnic': {'type': 'bool', 'default': True},
    'parallel': {'type': 'int', 'default': 8},
    'max_loss_percent': {'type': 'int', 'default': 34},
    'health_interval': {'type': 'int', 'default': 0},
    'counters': {'type': 'bool', 'default': True},
    'must_pass': {'type': 'list', 'elements': 'str'},
    'timeout': {'type': 'int', 'default': 120},
    'deployed': {'type': 'list', 'elements': 'str'},
}


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(ARGUMENT_SPEC)

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        task_vars = task_vars or {}
        args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)[1]
        intent = intent_path(args['intent'], task_vars)
        if args['settle_stable'] < 0 or args['settle_timeout'] < 0:
            raise AnsibleActionFail('settle_timeout and settle_stable are seconds (0 or more), got %d and %d'
                                    % (args['settle_timeout'], args['settle_stable']))
        if args['timeout'] < 1:
            raise AnsibleActionFail('timeout must be a number of seconds (1 or more), got %d' % args['timeout'])
        if args['health_interval'] < 0:
            raise AnsibleActionFail('health_interval must be 0 (no counter rates) or a number of seconds, got %d'
                                    % args['health_interval'])
        if args['concurrency'] < 1:
            raise AnsibleActionFail('concurrency must be 1 or more devices in flight, got %d' % args['concurrency'])
        if args['processes'] < 0:
            raise AnsibleActionFail('processes must be 0 (one per CPU core, at most one per %d devices) or a number of '
                                    'reader processes, got %d' % (live.FLEET_SHARE, args['processes']))
        if args['parallel'] < 1:
            raise AnsibleActionFail('parallel must be 1 or more commands at once, got %d' % args['parallel'])
        design = get_design(intent)
        settings = live.Settings(**{name: tuple(value) if isinstance(value, list) else value
                                    for name, value in args.items() if name in live.Settings.__dataclass_fields__})
        if args['devices'] is not None:
            result.update(self._fleet(design, dict(args, devices=_in_reading_order(args['devices'])), settings,
                                      task_vars, intent))
            return result
        device = args['device'] or task_vars.get('inventory_hostname')
        if device not in design.nodes:
            raise AnsibleActionFail('%s is not a device of fabric %s' % (device, design.name))
        reading = live.DeviceReading(design, device, settings)
        # The variables its reader reads, templated here: they may come from Vault or other variables.
        variables = {name: self._templar.template(task_vars[name]) for name in reading.gatherer.reader.variables
                     if name in task_vars}
        target = reading.target(variables, TaskConnection(self, device, task_vars))
        raw = None
        if reading.counts_first():
            at = time.time()
            raw = reading.keep_first_count(
                self._read(reading.gatherer, target, reading.counter_commands, args, 'read counters'), at)
        while True:
            wait = reading.after(raw or self._read(reading.gatherer, target, reading.state_commands, args, 'read state'))
            raw = None
            if wait is None:
                break
            time.sleep(wait)
        if reading.wants_counters():
            self._counters(reading, target, args)
        # masked as it was read (_read): no secret reaches -v output, reports or the play's variables
        result.update(reading.result(mask_data))
        return result

    def _fleet(self, design, args, settings, task_vars, intent):
        """Every device of `devices` read from this controller at once (checks/live.py read_fleet): {devices: {name:
        the per-device result}, per_host: {name: why its reading needs the per-host path}, fleet: {figures}}."""
        unknown = [name for name in args['devices'] if name not in design.nodes]
        if unknown:
            raise AnsibleActionFail('Not devices of fabric %s: %s' % (design.name, ', '.join(unknown)))
        hostvars = task_vars.get('hostvars') or {}
        from ansible import constants as C  # pylint: disable=import-outside-toplevel
        checking = C.config.get_config_value('HOST_KEY_CHECKING')

        def variables(name, reader):
            """The connection variables of a device that its reader reads, templated (Vault, other variables), and
            Ansible's host_key_checking setting where the host does not set its own."""
            host = hostvars[name] if name in hostvars else {}
            found = {key: self._templar.template(host[key]) for key in reader.variables if key in host}
            found.setdefault('ansible_host_key_checking', checking)
            return found

        started, cpu, processes = time.monotonic(), _cpu_seconds(), 1
        if args['spool']:
            # the readings go to a file as they come, for the judging step (a fabric's raw state is hundreds of MB: it
            # is neither held whole here nor passed through Ansible's results); a sliced run's judging step joins them
            processes = live.reader_processes(args['processes'], len(args['devices']))
            # the judging step's design phase (sides.py), computed meanwhile on the CPU the reading leaves idle
            ahead = sides.DesignSidesAhead(intent, sides.design_side_names(design, args['devices']) if
                                           args['design_sides'] else [], nice=True)
            try:
                with GatheredWriter(args['spool'], design.name) as spool:
                    fleet = live.read_fleet_split(design, args['devices'], variables, settings, mask_data,
                                                  args['concurrency'], spool, processes)
            except BaseException as error:
                ahead.stop()  # its work is not wanted
                if isinstance(error, live.FleetReadError):
                    raise AnsibleActionFail('The fleet reading failed: %s' % error) from None
                raise
        else:
            fleet = asyncio.run(live.read_fleet(design, args['devices'], variables, settings, mask_data,
                                                args['concurrency']))
        fleet['fleet'] = {'devices': len(args['devices']), 'read': len(fleet['devices']),
                          'per_host': len(fleet['per_host']), 'concurrency': args['concurrency'],
                          'processes': processes, 'seconds': round(time.monotonic() - started, 1),
                          'cpu_seconds': round(_cpu_seconds() - cpu, 1)}
        fleet['read'] = sorted(fleet['devices'])
        fleet['probes'] = {name: item['probe'] for name, item in fleet['devices'].items() if item.get('probe')}
        fleet['changed'] = False
        if args['spool']:
            fleet['spool'] = args['spool']
            del fleet['devices']
            saved = ahead.save(args['spool'] + '.sides')
            if saved:
                fleet['design_sides'] = saved
        return fleet

    def _counters(self, reading, target, args):
        """One reading of the counters, or two `health_interval` seconds apart (rates for the health rules); the first
        is the one read with the device's first reading when it settled there (DeviceReading.counted_first)."""
        counted = reading.counted_first()
        if counted is None:
            first_at = time.time()
            first = self._read(reading.gatherer, target, reading.counter_commands, args, 'read counters').get('counters')
        else:
            first, first_at = counted
        if reading.second_counters(first):
            time.sleep(max(0.0, first_at + args['health_interval'] - time.time()))
            second_at = time.time()
            second = self._read(reading.gatherer, target, reading.counter_commands, args,
                                'read counters again').get('counters')
            reading.add_counters(first, first_at, second, second_at)
        else:
            reading.add_counters(first, first_at)

    def _read(self, gatherer, target, commands, args, step):
        """{key: output} of one reading through the gatherer's reader, within `timeout` seconds (a device that stops
        answering, e.g. a frozen sshd behind a live SSH ControlMaster, is unreadable, not a hang)."""
        try:
            with deadline(args['timeout'], target.device, step):
                # Secrets masked where they enter: running configurations carry keys, passwords, communities, hashes.
                return mask_data(gatherer.read(target, commands))
        except ReadFailed as error:  # reading again would not help: the task fails, naming why (device text shown)
            raise AnsibleActionFail(failed_step(error, 600)) from None
        except TransportError as error:
            return {UNREADABLE: '%s: %s failed: %s' % (error.device, error.step, mask(error.message))}
        except AnsibleConnectionFailure as error:  # unreachable: reported as unreadable, not dropped from the play
            return {UNREADABLE: mask('%s is unreachable: %s' % (target.device, error))}


def _in_reading_order(devices) -> list:
    """`devices` once each, in an order fixed by their names alone (a digest of each): the same from run to run (the
    role's list comes from Ansible's intersect, a set), and the tiers and platforms mixed all along the reading. In the
    design's order the reading would begin with every super-spine at once, then every spine: what devices of one
    kind share (an AAA server, the lab's one server process per platform) would take them all together; on the 16k
    fleet, 107 SONiC leaves were not answered within 20 s."""
    return sorted(dict.fromkeys(devices), key=lambda name: hashlib.blake2b(name.encode('utf-8'), digest_size=8).digest())


def _cpu_seconds() -> float:
    """CPU seconds of this process and of the reader processes it has waited for."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime
