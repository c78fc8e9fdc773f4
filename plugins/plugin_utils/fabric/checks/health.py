# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Lossless health from counters, on both ends of every link: rates between two readings taken
`validate_health_interval` seconds apart (state/counters.py), judged against thresholds (HEALTH_DEFAULTS,
overridden by the role's `validate_health_thresholds`).

Each finding says where the problem starts and which end to look at, e.g. "gpu0005 eth2 (rail 2) sends pause frames
at 1200/s on priority 3 into leaf003 Ethernet20; the PFC watchdog tripped there". A Result is attributed to the
device where the problem starts. Health rules are checks too: category `health`, each with a failing and a
passing test.
"""

from __future__ import annotations

from typing import Any

from . import Check, NotApplicable, StateError, Subject, failed, passed, register
from .catalog import link_subject, uplinks
from .sides import no_lossless_dataplane, phases
from ..platforms import get_platform
from ..state.counters import indexed
from ..state.gatherer import COUNTERS, SECOND
from ..terms import ROLES, SWITCH_ROLES

ALL = ROLES
HOSTS = ('host',)
HEALTH_DEFAULTS: dict[str, Any] = {
    # PFC pause frames one end sends per second on one priority. 400G: a port paused without pause is ~12,000/s.
    'pause_rate_max': 1000,
    # PFC watchdog storms detected during the interval (and a queue in storm state at the second reading).
    'watchdog_storms_max': 0,
    # Packets (or bytes) dropped per second on a lossless queue or priority group: must be 0.
    'lossless_drops_max': 0,
    # Below this many ECN-marked packets or CNPs per second the congestion loop counts as idle.
    'ecn_marks_min': 1,
    'cnp_min': 1,
    # RDMA transport errors per second on a GPU server rail (mlx5 hw_counters and ethtool -S rx_discards_phy).
    'rdma_errors_max': {'out_of_sequence': 0, 'packet_seq_err': 0, 'implied_nak_seq_err': 0,
                        'local_ack_timeout_err': 0, 'rx_discards_phy': 0},
}


def threshold_problems(given) -> list:
    """Sentences naming every unknown key or bad value of validate_health_thresholds (empty: usable)."""
    problems = []
    if not isinstance(given, dict):
        return ['validate_health_thresholds must be a mapping, got %s' % type(given).__name__]
    for key, value in given.items():
        if key not in HEALTH_DEFAULTS:
            problems.append('validate_health_thresholds.%s is not a threshold (allowed: %s)'
                            % (key, ', '.join(sorted(HEALTH_DEFAULTS))))
        elif key == 'rdma_errors_max':
            if not isinstance(value, dict):
                problems.append('validate_health_thresholds.rdma_errors_max must be a mapping of counter: rate')
                continue
            for name, rate in value.items():
                if name not in HEALTH_DEFAULTS[key]:
                    problems.append('validate_health_thresholds.rdma_errors_max.%s is not an RDMA error counter '
                                    '(allowed: %s)' % (name, ', '.join(sorted(HEALTH_DEFAULTS[key]))))
                elif isinstance(rate, bool) or not isinstance(rate, (int, float)) or rate < 0:
                    problems.append('validate_health_thresholds.rdma_errors_max.%s must be a number >= 0, got %r'
                                    % (name, rate))
        elif isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            problems.append('validate_health_thresholds.%s must be a number >= 0 (per second), got %r' % (key, value))
    return problems


def counter_links(ctx, names):
    """(device, port, peer, peer_port, counts, rates) of every cabled port of `names` whose counters were read
    (counts of the last reading; rates None with a single reading), for the Prometheus textfile: yielded device by
    device, so a fleet's counters are never all unpacked at once."""
    for name in names:
        state = ctx.state(name)
        if not state.provides(COUNTERS) or not state.has(COUNTERS):
            continue
        try:
            counts = state.get(COUNTERS + SECOND if state.has(COUNTERS + SECOND) else COUNTERS)
        except StateError:
            continue
        status, rates = device_rates(ctx, name)
        model = ctx.model(name)
        ports = ([(rail['interface'], rail['leaf'], rail['leaf_interface']) for rail in model['rails']]
                 if model['role'] == 'host' else
                 [(item['name'], item['peer'], item['peer_interface']) for item in model['interfaces']])
        for port, peer, peer_port in ports:
            if port in counts.get('ports', {}):
                yield (name, port, peer, peer_port, counts['ports'][port],
                       rates['ports'].get(port) if status == 'ok' else None)


def thresholds(ctx) -> dict:
    values: dict[str, Any] = dict(HEALTH_DEFAULTS)
    given = ctx.options.get('health') or {}
    for key, value in given.items():
        if key == 'rdma_errors_max':
            values[key] = dict(HEALTH_DEFAULTS[key], **(value or {}))
        elif value is not None:
            values[key] = value
    return values


# =========================================================================== reading the rates
def device_rates(ctx, device):
    """('ok', rates) | ('na', reason) | ('error', StateError) for one device, judged once per run; the rates stay the
    device's (DeviceState.rates: packed between uses, not held here for every device of a fleet)."""
    key = ('health_rates', device)
    if key not in ctx.cache:
        ctx.cache[key] = _rates_outcome(ctx.state(device))
    status, detail = ctx.cache[key]
    return (status, ctx.state(device).rates(COUNTERS)) if status == 'ok' else (status, detail)


def _rates_outcome(state):
    if not state.provides(COUNTERS):
        return 'na', 'the %s gatherer reads no counters' % state.gatherer.title
    if not state.has(COUNTERS) and state.raw and not state.raw.get('_error'):
        return 'na', 'counters not read (validate_gather reads them unless validate_rnic is false on GPU servers)'
    try:
        if state.has(COUNTERS) and not state.has(COUNTERS + SECOND):
            reason = state.get(COUNTERS).get('not_applicable')
            return 'na', reason or 'counter rates not measured: one reading only (validate_health_interval is 0)'
        rates = state.rates(COUNTERS)
    except StateError as exc:
        return 'error', exc.with_traceback(None)
    return ('na', rates['not_applicable']) if rates.get('not_applicable') else ('ok', None)


def _lossless(ctx):
    profile = ctx.design.lossless
    return sorted(profile['lossless_priorities'])


def _queues(ctx, device, priorities):
    qos = ctx.model(device).get('qos') or {}
    mapping = {int(key): int(value) for key, value in (qos.get('tc_to_queue') or {}).items()}
    return sorted({mapping.get(prio, prio) for prio in priorities})


def _label(ctx, device, port):
    """'gpu0005 eth2 (rail 2)' for a GPU server rail, 'leaf003 Ethernet20' for a switch port."""
    model = ctx.model(device)
    if model['role'] == 'host':
        rail = next((item['rail'] for item in model['rails'] if item['interface'] == port), None)
        return '%s %s (rail %s)' % (device, port, rail)
    return '%s %s' % (device, port)


def _sum(values, indexes=None):
    values = indexed(values) if isinstance(values, dict) else {}
    picked = [value for index, value in values.items() if (indexes is None or index in indexes)
              and isinstance(value, (int, float))]
    return sum(picked) if picked else None


def _per_s(value):
    return '%.0f/s' % value if value >= 10 or value == int(value) else '%.2f/s' % value


class LinkHealth(Check):
    """A health rule on every link of a device, from its lower end: the counter rates of both ends."""

    category = 'health'
    roles: tuple[str, ...] = ALL
    per = 'link (both ends)'
    state = ('counters',)
    peers = True
    inputs = 'the cabling plan, the lossless priorities and their queues, validate_health_thresholds'
    na_subject = 'all links'
    na_expected = 'counter rates of both ends'

    def subjects(self, ctx, model):
        for port, peer, peer_port, _mtu in uplinks(model):
            yield Subject(link_subject(port, peer, peer_port), 'counter rates of both ends', port=port,
                          data=((model['name'], port), (peer, peer_port)))

    def read(self, ctx, model, subject):
        ends = []
        for device, interface in subject.data:
            status, value = device_rates(ctx, device)
            if status == 'na':
                raise NotApplicable(value, source=device)
            if status == 'error':
                error = StateError('%s (%s)' % (value.source, device), value.message)
                # whose state it was (the far end's, read for the link): an unreadable far end explains it
                error.device = getattr(value, 'device', None) or device
                error.whole_device = getattr(value, 'whole_device', False)
                raise error
            ends.append((device, interface, value['ports'].get(interface) or {}, value['seconds']))
        return ends

    def source(self, ctx, model, subject):
        return 'counter rates'


def _stormed(ctx, device, port_rates):
    queues = _queues(ctx, device, _lossless(ctx))
    flags = indexed(port_rates.get('wd_stormed') or {})
    storms = _sum(port_rates.get('wd_storms'), queues) or 0
    return any(flags.get(queue) for queue in queues) or storms > 0


# =========================================================================== rules
@register
class LosslessWatchdogState(Check):
    id = 'lossless_watchdog_state'
    title = 'PFC watchdog running and not tripped'
    category = 'lossless'
    roles = SWITCH_ROLES
    per = 'switch port'
    state = ('counters',)
    rules = ('C12',)
    inputs = 'the cabled ports of the switch, its lossless priorities and their queues'
    description = ('the PFC watchdog reports state for the lossless queues (it runs) and none is in storm state at the '
                   'first counter reading')
    failure = 'no watchdog state (not running), or the queue in storm state and the peer whose pause frames caused it'
    example = ('leaf001 lossless_watchdog_state [Ethernet0]: expected watchdog running on the lossless queues, not in '
               'storm state; seen queue 3 in storm state (0 storms counted); pause frames come from gpu0001 eth1')
    na_subject = error_subject = 'all ports'
    na_expected = 'watchdog running on the lossless queues, not in storm state'

    def subjects(self, ctx, model):
        if 'deployed' not in phases(ctx):
            return  # reads the running switch only
        for item in model['interfaces']:
            yield Subject(item['name'], self.na_expected, port=item['name'], phase='deployed', data=item)

    def read(self, ctx, model, subject):
        platform = get_platform(model['platform'])
        state = ctx.state(model['name'])
        if not platform.lossless_dataplane or not model.get('qos'):
            raise NotApplicable(no_lossless_dataplane(state.gatherer.title))
        if not state.provides(COUNTERS):
            raise NotApplicable('the %s gatherer reads no counters' % state.gatherer.title)
        return state.get(COUNTERS)

    def judge(self, ctx, model, subject, state):
        item = subject.data
        queues = _queues(ctx, model['name'], _lossless(ctx))
        values = state['ports'].get(item['name']) or {}
        flags = indexed(values.get('wd_stormed') or {})
        storms = indexed(values.get('wd_storms') or {})
        known = [queue for queue in queues if queue in flags or queue in storms]
        stormed = [queue for queue in queues if flags.get(queue)]
        if not known:
            return failed('no watchdog state for queue %s: the PFC watchdog is not running' % ','.join(map(str, queues)))
        if stormed:
            return failed('queue %s in storm state (%s storms counted); pause frames come from %s %s' % (
                ','.join(map(str, stormed)), sum(storms.get(queue) or 0 for queue in stormed), item['peer'],
                item['peer_interface']))
        counted = sum(storms.get(queue) or 0 for queue in known)
        return passed('queue %s operational, %s storms counted' % (','.join(map(str, known)), counted))


@register
class HealthPfcPause(LinkHealth):
    id = 'health_pfc_pause'
    title = 'No PFC pause storm on any link'
    description = ('pause frames each end of a link sends per second, per priority (EOS: per port), stay below '
                   '`pause_rate_max` (1000/s; a 400G port paused without pause takes ~12,000/s); pause frames on a '
                   'priority that is not lossless fail at any rate')
    failure = ('the end that sends them, the end they stop and whether its watchdog tripped; when the receiver counts '
               'far fewer, that PFC may be off there')
    example = ('gpu0005 health_pfc_pause [eth2 <-> leaf003 Ethernet20]: ... seen gpu0005 eth2 (rail 2) sends pause '
               'frames at 1200/s on priority 3 into leaf003 Ethernet20; the PFC watchdog tripped there')

    def judge(self, ctx, model, subject, state):
        limits = thresholds(ctx)
        lossless = set(_lossless(ctx))
        ends = state  # [(device, port, its rates, seconds)] of both ends
        findings, seen = [], []
        for (sender, port, rates, _s), (receiver, peer_port, peer_rates, _p) in ((ends[0], ends[1]), (ends[1], ends[0])):
            per_prio = indexed(rates.get('pfc_tx') or {})
            if not per_prio and rates.get('pfc_tx_total') is not None:
                per_prio = {'all': rates['pfc_tx_total']}
            for prio, rate in sorted(per_prio.items(), key=lambda item: str(item[0])):
                if rate is None:
                    continue
                seen.append('%s -> %s %s on %s' % (_label(ctx, sender, port), receiver, _per_s(rate),
                                                   'priority %s' % prio if prio != 'all' else 'all priorities'))
                wrong_prio = prio != 'all' and prio not in lossless and rate > 0
                if rate > limits['pause_rate_max'] or wrong_prio:
                    text = '%s sends pause frames at %s on %s into %s' % (
                        _label(ctx, sender, port), _per_s(rate),
                        'priority %s' % prio if prio != 'all' else 'all priorities', _label(ctx, receiver, peer_port))
                    if wrong_prio:
                        text += ' (priority %s is not lossless: PFC is enabled on a lossy class there)' % prio
                    if ctx.model(receiver)['role'] != 'host' and _stormed(ctx, receiver, peer_rates):
                        text += '; the PFC watchdog tripped there'
                    received = indexed(peer_rates.get('pfc_rx') or {}).get(prio) if prio != 'all' else \
                        peer_rates.get('pfc_rx_total')
                    if received is not None and rate > 0 and received < rate / 2:
                        text += '; %s counts only %s received (PFC off on that priority there?)' % (
                            receiver, _per_s(received))
                    findings.append((sender, text))
        if findings:
            device = findings[0][0]
            return failed('; '.join(text for _d, text in findings), device=device,
                          expected='at most %s pause frames per priority, none on lossy priorities' % _per_s(
                              limits['pause_rate_max']),
                          message='look at %s: its receive path cannot keep up' % device)
        return passed('; '.join(seen) or 'no pause counters',
                      expected='at most %s pause frames per priority' % _per_s(limits['pause_rate_max']))


@register
class HealthPfcWatchdog(LinkHealth):
    id = 'health_pfc_watchdog'
    title = 'No PFC watchdog storm on any lossless queue'
    description = ('no PFC watchdog storm on a lossless queue of a switch end during the interval (`watchdog_storms_max` '
                   '0), no queue in storm state, and watchdog state at all (it runs)')
    failure = 'the port and queue, the storms in the interval, and the peer whose pause frames caused them'
    example = ('leaf003 health_pfc_watchdog [eth2 <-> leaf003 Ethernet20]: ... seen leaf003 Ethernet20 PFC watchdog '
               'tripped on queue 3 (3 storms in 10 s, in storm now); the pause frames come from gpu0005 eth2 (rail 2) at '
               '1200/s')

    def judge(self, ctx, model, subject, state):
        limits = thresholds(ctx)
        lossless = _lossless(ctx)
        ends = state  # [(device, port, its rates, seconds)] of both ends
        findings, seen = [], []
        for (device, port, rates, seconds), (peer, peer_port, peer_rates, _p) in ((ends[0], ends[1]), (ends[1], ends[0])):
            if ctx.model(device)['role'] == 'host':
                continue
            queues = _queues(ctx, device, lossless)
            storms = indexed(rates.get('wd_storms') or {})
            flags = indexed(rates.get('wd_stormed') or {})
            if not any(queue in storms or queue in flags for queue in queues):
                findings.append((device, '%s reports no PFC watchdog state for lossless queue %s: the watchdog is not '
                                         'running there' % (_label(ctx, device, port), ','.join(map(str, queues)))))
                continue
            for queue in queues:
                count = (storms.get(queue) or 0) * seconds
                seen.append('%s queue %d: %d storms' % (_label(ctx, device, port), queue, round(count)))
                if count > limits['watchdog_storms_max'] or flags.get(queue):
                    pause = indexed(peer_rates.get('pfc_tx') or {}).get(queue, peer_rates.get('pfc_tx_total'))
                    text = '%s PFC watchdog tripped on queue %d (%d storms in %g s%s)' % (
                        _label(ctx, device, port), queue, round(count), seconds, ', in storm now' if flags.get(queue) else '')
                    if pause:
                        text += '; the pause frames come from %s at %s' % (_label(ctx, peer, peer_port), _per_s(pause))
                    findings.append((device, text))
        want = 'no watchdog storm on the lossless queues'
        if findings:
            return failed('; '.join(text for _d, text in findings), device=findings[0][0], expected=want)
        return passed('; '.join(seen) or 'no switch end', expected=want)


def _drops(ctx, device, rates):
    """[(what, rate)] of drops on the lossless class at one end."""
    lossless = _lossless(ctx)
    if ctx.model(device)['role'] == 'host':
        value = _sum(rates.get('prio_discards'), lossless)
        return [('priority %s discards' % ','.join(map(str, lossless)), value)] if value is not None else []
    queues = _queues(ctx, device, lossless)
    found = []
    for metric, what in (('queue_dropped', 'packets dropped from lossless queue'),
                         ('queue_dropped_bytes', 'bytes dropped from lossless queue'),
                         ('pg_dropped', 'packets dropped at ingress priority group'),
                         ('pg_dropped_bytes', 'bytes dropped at ingress priority group')):
        indexes = lossless if metric.startswith('pg') else queues
        value = _sum(rates.get(metric), indexes)
        if value is not None:
            found.append(('%s %s' % (what, ','.join(map(str, indexes))), value))
    return found


@register
class HealthLosslessDrops(LinkHealth):
    id = 'health_lossless_drops'
    title = 'No drops on the lossless class'
    description = ('no drops on a lossless egress queue or ingress priority group of a switch end, and no discards of '
                   'the lossless priority on a GPU server NIC (`lossless_drops_max` 0)')
    failure = 'the end that drops, what it drops and how fast, towards which peer'
    example = ('spine001 health_lossless_drops [Ethernet8 <-> spine001 Ethernet0]: ... seen spine001 Ethernet0: packets '
               'dropped from lossless queue 3 35/s (towards/from leaf001 Ethernet8): PFC is not holding the lossless class')

    def judge(self, ctx, model, subject, state):
        limits = thresholds(ctx)
        ends = state  # [(device, port, its rates, seconds)] of both ends
        findings, seen = [], []
        for (device, port, rates, _s), (peer, peer_port, _r, _p) in ((ends[0], ends[1]), (ends[1], ends[0])):
            for what, rate in _drops(ctx, device, rates):
                seen.append('%s %s %s' % (_label(ctx, device, port), what, _per_s(rate)))
                if rate > limits['lossless_drops_max']:
                    findings.append((device, '%s: %s %s (towards/from %s): PFC is not holding the lossless class' % (
                        _label(ctx, device, port), what, _per_s(rate), _label(ctx, peer, peer_port))))
        if findings:
            return failed('; '.join(text for _d, text in findings), device=findings[0][0],
                          expected='no drop on the lossless class (at most %s)' % _per_s(limits['lossless_drops_max']),
                          message='look at %s: PFC priorities, the watchdog action and the buffers there' % findings[0][0])
        return passed('; '.join(seen) or 'no drop counters', expected='no drop on the lossless class')


def _marks_towards(ctx, leaf, leaf_port, leaf_rates):
    queues = _queues(ctx, leaf, _lossless(ctx))
    value = _sum(leaf_rates.get('queue_ecn_marked'), queues)
    return value if value is not None else leaf_rates.get('ecn_marked_total')


def _fabric_cnp(ctx):
    """(CNPs sent, CNPs handled) per second over every GPU server rail with rates, computed once."""
    if 'fabric_cnp' not in ctx.cache:
        sent = handled = 0
        found = False
        for device in ctx.design.device_names('host'):
            status, rates = device_rates(ctx, device)
            if status != 'ok':
                continue
            for values in rates['ports'].values():
                if values.get('np_cnp_sent') is not None and values.get('rp_cnp_handled') is not None:
                    found = True
                    sent += values['np_cnp_sent']
                    handled += values['rp_cnp_handled']
        ctx.cache['fabric_cnp'] = (sent, handled) if found else None
    return ctx.cache['fabric_cnp']


def _fabric_switch_marks(ctx):
    """ECN-marked packets per second over every switch port reporting them (None when none reports), once."""
    if 'fabric_marks' not in ctx.cache:
        total, found = 0, False
        for device in ctx.design.device_names():
            if ctx.model(device)['role'] == 'host':
                continue
            status, rates = device_rates(ctx, device)
            if status != 'ok':
                continue
            for port, values in rates['ports'].items():
                marks = _marks_towards(ctx, device, port, values)
                if marks is not None:
                    found, total = True, total + marks
        ctx.cache['fabric_marks'] = total if found else None
    return ctx.cache['fabric_marks']


class RailHealth(LinkHealth):
    """A health rule on every GPU server rail: the NIC end and its leaf port."""

    roles = HOSTS
    per = 'GPU server rail'


@register
class HealthEcnCnp(RailHealth):
    id = 'health_ecn_cnp'
    title = 'ECN marks answered by CNPs that reach the senders'
    description = ('ECN-marked packets reach the rail (NIC or leaf port count ≥ `ecn_marks_min`, 1/s) and the NIC sends '
                   'CNPs (≥ `cnp_min`, 1/s); CNPs sent anywhere are handled by some GPU server\'s reaction point (they '
                   'reach the senders)')
    failure = 'the rail that receives marks and sends no CNP (its DCQCN notification point is off), or which CNP class to look at on the switches'
    example = ('gpu0001 health_ecn_cnp [eth1 <-> leaf001 Ethernet0]: ... seen gpu0001 eth1 (rail 0) receives ECN-marked '
               'packets at 500/s (leaf001 Ethernet0 marks them) but sends no CNP: its DCQCN notification point is off')

    def judge(self, ctx, model, subject, state):
        limits = thresholds(ctx)
        fabric = _fabric_cnp(ctx)
        (host, port, rates, _s), (leaf, leaf_port, leaf_rates, _p) = state
        nic_marks = rates.get('np_ecn_marked_roce_packets')
        leaf_marks = _marks_towards(ctx, leaf, leaf_port, leaf_rates)
        sent = rates.get('np_cnp_sent')
        if sent is None:
            raise NotApplicable('%s has no RDMA congestion counters (np_cnp_sent)' % port)
        marks = max(value for value in (nic_marks, leaf_marks, 0) if value is not None)
        want = 'CNPs answer ECN marks and reach the senders'
        if marks >= limits['ecn_marks_min'] and sent < limits['cnp_min']:
            return failed('%s receives ECN-marked packets at %s (%s %s marks them) but sends no CNP: its DCQCN '
                          'notification point is off (ecn/roce_np/enable/%s), so the senders never slow down'
                          % (_label(ctx, host, port), _per_s(marks), leaf, leaf_port, ','.join(map(str, _lossless(ctx)))),
                          expected=want, message='look at %s %s' % (host, port))
        if sent >= limits['cnp_min'] and fabric is not None and fabric[1] < limits['cnp_min']:
            return failed('%s sends CNPs at %s but no GPU server handles any (rp_cnp_handled %s over the fabric): the CNPs '
                          'are lost on the way back to the senders' % (_label(ctx, host, port), _per_s(sent), _per_s(fabric[1])),
                          expected=want, message='look at the CNP class on the switches (DSCP %d -> TC %d, strict '
                          'priority, no WRED)' % (ctx.design.lossless['cnp_dscp'], ctx.design.lossless['cnp_priority']))
        return passed('ECN marks in %s (NIC %s, %s %s %s), CNPs sent %s' % (
            _per_s(marks), _per_s(nic_marks) if nic_marks is not None else 'n/a', leaf, leaf_port,
            _per_s(leaf_marks) if leaf_marks is not None else 'n/a', _per_s(sent)), expected=want)


@register
class HealthCnpEcn(RailHealth):
    id = 'health_cnp_ecn'
    title = 'No CNPs without ECN marks'
    description = ('a rail that sends CNPs received ECN-marked packets (its NIC or its leaf port counted them); a rail '
                   'whose reaction point handles CNPs sees some switch in the fabric mark ECN')
    failure = 'which leaf port\'s ECN counters to look at'
    example = ('gpu0002 health_cnp_ecn [eth1 <-> leaf001 Ethernet4]: ... seen gpu0002 eth1 (rail 0) sends CNPs at 300/s '
               'but neither its NIC nor leaf001 Ethernet4 counted an ECN-marked packet')

    def judge(self, ctx, model, subject, state):
        limits = thresholds(ctx)
        switch_marks = _fabric_switch_marks(ctx)
        (host, port, rates, _s), (leaf, leaf_port, leaf_rates, _p) = state
        sent, handled = rates.get('np_cnp_sent'), rates.get('rp_cnp_handled')
        if sent is None or handled is None:
            raise NotApplicable('%s has no RDMA congestion counters (np_cnp_sent, rp_cnp_handled)' % port)
        nic_marks = rates.get('np_ecn_marked_roce_packets') or 0
        leaf_marks = _marks_towards(ctx, leaf, leaf_port, leaf_rates)
        want = 'CNPs only for ECN-marked packets'
        if sent >= limits['cnp_min'] and nic_marks < limits['ecn_marks_min'] and not leaf_marks:
            return failed('%s sends CNPs at %s but neither its NIC nor %s %s counted an ECN-marked packet'
                          % (_label(ctx, host, port), _per_s(sent), leaf, leaf_port), expected=want,
                          message='look at %s %s: ECN counters off (enable them) or marks from an unexpected hop'
                          % (leaf, leaf_port))
        if handled >= limits['cnp_min'] and switch_marks is not None and switch_marks < limits['ecn_marks_min']:
            return failed('%s slows down for CNPs at %s while no switch port marked ECN (%s over the fabric)'
                          % (_label(ctx, host, port), _per_s(handled), _per_s(switch_marks)), expected=want,
                          message='look at the NICs sending CNPs (np_cnp_sent) and the switches\' ECN counters')
        return passed('CNPs sent %s, handled %s; ECN marks NIC %s, %s %s %s' % (
            _per_s(sent), _per_s(handled), _per_s(nic_marks), leaf, leaf_port,
            _per_s(leaf_marks) if leaf_marks is not None else 'n/a'), expected=want)


@register
class HealthRdmaErrors(RailHealth):
    id = 'health_rdma_errors'
    title = 'No RDMA transport errors on GPU server rails'
    description = ('`out_of_sequence`, `packet_seq_err`, `implied_nak_seq_err`, `local_ack_timeout_err`, '
                   '`rx_discards_phy` grow no faster than `rdma_errors_max` (0 each): on a lossless fabric they mean drops')
    failure = 'the counters and their rates, and that packets are lost between the server and its leaf port'
    example = ('gpu0004 health_rdma_errors [eth1 <-> leaf003 Ethernet4]: ... seen gpu0004 eth1 (rail 0): '
               'local_ack_timeout_err 0.10/s (max 0/s), out_of_sequence 2/s (max 0/s)')

    def judge(self, ctx, model, subject, state):
        limits = thresholds(ctx)['rdma_errors_max']
        (host, port, rates, _s), (leaf, leaf_port, _r, _p) = state
        present = {name: rates[name] for name in limits if rates.get(name) is not None}
        if not present:
            raise NotApplicable('%s has no RDMA error counters' % port)
        over = ['%s %s (max %s)' % (name, _per_s(value), _per_s(limits[name])) for name, value in sorted(present.items())
                if value > limits[name]]
        want = 'RDMA error counters within %s' % ', '.join('%s %s' % (name, _per_s(value))
                                                           for name, value in sorted(limits.items()))
        if over:
            return failed('%s: %s' % (_label(ctx, host, port), ', '.join(over)), expected=want,
                          message='packets are lost between %s and %s %s: look at that leaf port\'s drops and PFC state'
                          % (host, leaf, leaf_port))
        return passed(', '.join('%s %s' % (name, _per_s(value)) for name, value in sorted(present.items())), expected=want)


__all__ = ['HEALTH_DEFAULTS', 'thresholds', 'threshold_problems', 'device_rates', 'counter_links']
