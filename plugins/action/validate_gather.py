# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Controller side of aifabric.fabric.validate_gather (documented in plugins/modules/validate_gather.py)."""

from __future__ import annotations

import datetime
import re
import time

from ansible.errors import AnsibleActionFail, AnsibleConnectionFailure
from ansible.plugins.action import ActionBase

from ansible_collections.aifabric.fabric.plugins.plugin_utils.design_cache import get_design, intent_path, loaded_platforms
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import anta_catalog, catalog
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.device_text import mask, mask_data, shown
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state import StateError
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.gatherer import COUNTERS, SECOND, TIMES, UNREADABLE
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.sources import gatherer_for
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms import import_in_controller
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.reader import ReadFailed, Target
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.transport import TransportError, deadline

import_in_controller('state', loaded_platforms())

COMMAND_TIMEOUT = 30  # seconds each command may take on the device


def result_key(item) -> str:
    """`<check> <subject>`: how must_pass names one result."""
    return '%s %s' % (item['check'], item['subject'])


def _wall_clock() -> float:
    """Unix time of a reading, for the report (the counter readings keep their own time.time() stamps)."""
    return datetime.datetime.now(datetime.timezone.utc).timestamp()


def _fingerprint(open_results):
    """What is wrong, as a comparable value: the failing results with the facts they observed, parsed state (or the
    must_pass keys). Never their words: an error's text may carry a time stamp (lldpcli's "2026-12-02T01:10:45
    [WARN/control] unable to connect..."), a ping's the kernel's ARP state of the moment."""
    return tuple(sorted((item if isinstance(item, str) else item.fingerprint() for item in open_results), key=repr))


def named_devices(item, names, peers) -> set:
    """The devices of the design a result names: its own, the peers its subject or link mentions, and the peer of
    an interface of the device it names (`peers`: {interface: peer} from the design)."""
    words = set(re.split(r'[\s:,;()\[\]]+', '%s %s' % (item.subject, item.link or '')))
    return ({item.device} | words | {peers[word] for word in words if word in peers}) & names


def _open_results(results, must_pass, deployed=None, names=frozenset(), peers=None):
    """What keeps the device from settling: every failed or errored check; with `must_pass`, those of them (and any
    of them no longer reported at all); with `deployed` (the devices whose configuration is in place), also every
    failed or errored check about the device itself or its deployed direct neighbours (its own sessions, interfaces
    and VNIs), passed before or not. A check that names a device further away (a remote VTEP) also depends on the
    switches between them, which may not be deployed yet: it counts only through `must_pass`."""
    problems = [item for item in results if item.status in (checks.FAIL, checks.ERROR)]
    if must_pass is None and deployed is None:
        return problems
    passed = {result_key(item.to_dict()) for item in results if item.status == checks.PASS}
    wanted = set(must_pass or ()) - passed
    if deployed is not None:
        neighbours = set(deployed) & set((peers or {}).values())
        wanted |= {result_key(item.to_dict()) for item in problems
                   if named_devices(item, names, peers or {}) <= neighbours | {item.device}}
    return sorted(wanted)


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


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(('intent', 'device', 'settle_timeout', 'settle_interval', 'settle_stable', 'ping_peers',
                             'rnic', 'parallel', 'max_loss_percent', 'health_interval', 'counters', 'must_pass',
                             'timeout', 'deployed'))

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        task_vars = task_vars or {}
        args = self.validate_argument_spec(argument_spec={
            'intent': {'type': 'path'},
            'device': {'type': 'str'},
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
        })[1]
        intent = intent_path(args['intent'], task_vars)
        if args['settle_stable'] < 0 or args['settle_timeout'] < 0:
            raise AnsibleActionFail('settle_timeout and settle_stable are seconds (0 or more), got %d and %d'
                                    % (args['settle_timeout'], args['settle_stable']))
        if args['timeout'] < 1:
            raise AnsibleActionFail('timeout must be a number of seconds (1 or more), got %d' % args['timeout'])
        if args['health_interval'] < 0:
            raise AnsibleActionFail('health_interval must be 0 (no counter rates) or a number of seconds, got %d'
                                    % args['health_interval'])
        design = get_design(intent)
        device = args['device'] or task_vars.get('inventory_hostname')
        if device not in design.nodes:
            raise AnsibleActionFail('%s is not a device of fabric %s' % (device, design.name))
        options = {'ping_peers': args['ping_peers'], 'max_loss_percent': args['max_loss_percent']}
        ctx = checks.Context(design, {}, options)
        model = ctx.model(device)
        gatherer = gatherer_for(model)
        plan = {'pings': catalog.ping_targets(ctx, model, args['ping_peers']), 'rnic': args['rnic']}
        if gatherer.provides(anta_catalog.ANTA_KEY) and model['role'] in anta_catalog.SWITCHES:
            plan['anta'] = anta_catalog.eapi_commands(ctx, model)  # the outputs ANTA's tests read, same connection
        commands = gatherer.commands(model, plan)
        state_commands = [(key, command) for key, command in commands if key != COUNTERS]
        counter_commands = [(key, command) for key, command in commands if key == COUNTERS and args['counters']]
        peers = {item['name']: item['peer'] for item in model.get('interfaces') or [] if item.get('peer')}
        # The variables its reader reads, templated here: they may come from Vault or other variables.
        variables = {name: self._templar.template(task_vars[name]) for name in gatherer.reader.variables
                     if name in task_vars}
        target = Target(device, variables, TaskConnection(self, device, task_vars), COMMAND_TIMEOUT, args['parallel'])
        started_at, started = _wall_clock(), time.monotonic()
        deadline = started + args['settle_timeout']
        attempt, same_since, fingerprint, outcome = 0, None, None, 'once'
        while True:
            attempt += 1
            raw = self._read(gatherer, target, state_commands, args, 'read state')
            read_at, now = _wall_clock(), time.monotonic()
            ctx = checks.Context(design, {device: raw}, options)
            results = checks.run(ctx, devices=[device], categories=('fabric',), local_only=True)
            open_results = _open_results(results, args['must_pass'], args['deployed'], frozenset(design.nodes), peers)
            if raw.get(UNREADABLE):
                # read again until the time is up (a switch busy applying a push, a dropped session)
                if now + args['settle_interval'] > deadline:
                    outcome = 'unreadable'
                    break
                time.sleep(max(args['settle_interval'], 1))
                continue
            if not open_results:
                outcome = 'settled'
                break
            if _fingerprint(open_results) != fingerprint:
                fingerprint, same_since = _fingerprint(open_results), now
            if args['settle_stable'] and attempt > 1 and now - same_since >= args['settle_stable']:
                outcome = 'stable'  # failing the same way for settle_stable seconds: wrong, not converging
                break
            if now + args['settle_interval'] > deadline:
                # at the deadline: still changing since the last read, or never judged stable (one read only)
                outcome = 'once' if attempt == 1 else 'changing' if now - same_since < args['settle_interval'] else 'stable'
                break
            time.sleep(max(args['settle_interval'], 1))
        if counter_commands and not raw.get(UNREADABLE):
            raw.update(self._counters(gatherer, target, counter_commands, args))
        counted = checks.summary(results)
        result.update(
            changed=False,
            device=device,
            fabric=design.name,
            platform=gatherer.platform,
            state=raw,  # masked as it was read (_read): no secret reaches -v output, reports or the play's variables
            attempts=attempt,
            seconds=round(time.monotonic() - started, 1),
            started_at=started_at,
            read_at=read_at,
            settled=outcome == 'settled',
            convergence={'outcome': outcome, 'deadline': args['settle_timeout'], 'reads': attempt,
                         'seconds': round(now - started, 1),
                         'unchanged_for': round(now - same_since, 1) if same_since is not None else None},
            passed=sorted(result_key(item.to_dict()) for item in results if item.status == checks.PASS),
            open_checks=[item if isinstance(item, str) else result_key(item.to_dict()) for item in open_results],
            summary=counted['counts'],
            check_results=[item.to_dict() for item in results],
            # This device's part in the data-plane marking probe the validate role runs next (send or capture).
            probe=catalog.probe_duties(ctx, model),
        )
        return result

    def _counters(self, gatherer, target, commands, args):
        """One reading of the counters, or two `health_interval` seconds apart (rates for the health rules)."""
        first_at = time.time()
        raw = {COUNTERS: self._read(gatherer, target, commands, args, 'read counters').get(COUNTERS)}
        times = {COUNTERS: first_at}
        if args['health_interval'] > 0 and not self._nothing_to_count(gatherer, raw[COUNTERS]):
            time.sleep(max(0.0, first_at + args['health_interval'] - time.time()))
            second_at = time.time()
            raw[COUNTERS + SECOND] = self._read(gatherer, target, commands, args,
                                                'read counters again').get(COUNTERS)
            times[COUNTERS + SECOND] = second_at
        raw[TIMES] = times
        return raw

    @staticmethod
    def _nothing_to_count(gatherer, output):
        """A device that has nothing to count (a server without RDMA NIC) needs no second reading."""
        try:
            return bool(gatherer.parse(COUNTERS, output).get('not_applicable'))
        except StateError:
            return False  # unreadable: read again anyway, the checks report the error

    def _read(self, gatherer, target, commands, args, step):
        """{key: output} of one reading through the gatherer's reader, within `timeout` seconds (a device that stops
        answering, e.g. a frozen sshd behind a live SSH ControlMaster, is unreadable, not a hang)."""
        try:
            with deadline(args['timeout'], target.device, step):
                # Secrets masked where they enter: running configurations carry keys, passwords, communities, hashes.
                return mask_data(gatherer.read(target, commands))
        except ReadFailed as error:  # reading again would not help: the task fails, naming why (device text shown)
            raise AnsibleActionFail(shown(str(error), 600)) from None
        except TransportError as error:
            return {UNREADABLE: mask(str(error))}
        except AnsibleConnectionFailure as error:  # unreachable: reported as unreadable, not dropped from the play
            return {UNREADABLE: mask('%s is unreachable: %s' % (target.device, error))}
