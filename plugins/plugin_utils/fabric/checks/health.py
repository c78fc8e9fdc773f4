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

from . import ERROR, FAIL, NOT_APPLICABLE, PASS, Result, check
from .links import link_subject, uplinks
from .lossless import LAB_NA
from ..platforms import get_platform
from ..state import StateError
from ..state.counters import indexed
from ..state.gatherer import COUNTERS, SECOND

ALL = ('leaf', 'spine', 'super_spine', 'host')
HOSTS = ('host',)
HEALTH_DEFAULTS = {
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
    """[(device, port, peer, peer_port, counts, rates)] of every cabled port of `names` whose counters were read
    (counts of the last reading; rates None with a single reading), for the Prometheus textfile."""
    rows = []
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
                rows.append((name, port, peer, peer_port, counts['ports'][port],
                             rates['ports'].get(port) if status == 'ok' else None))
    return rows


def thresholds(ctx) -> dict:
    values = dict(HEALTH_DEFAULTS)
    given = ctx.options.get('health') or {}
    for key, value in given.items():
        if key == 'rdma_errors_max':
            values[key] = dict(HEALTH_DEFAULTS[key], **(value or {}))
        elif value is not None:
            values[key] = value
    return values


# =========================================================================== reading the rates
def device_rates(ctx, device):
    """('ok', rates) | ('na', reason) | ('error', StateError) for one device, computed once per run."""
    key = ('health_rates', device)
    if key not in ctx.cache:
        state = ctx.state(device)
        if not state.provides(COUNTERS):
            outcome = ('na', 'the %s gatherer reads no counters' % state.gatherer.title)
        elif not state.has(COUNTERS) and state.raw and not state.raw.get('_error'):
            outcome = ('na', 'counters not read (validate_gather reads them unless validate_rnic is false on GPU servers)')
        elif state.has(COUNTERS) and not state.has(COUNTERS + SECOND):
            try:
                reason = state.get(COUNTERS).get('not_applicable')
                outcome = ('na', reason or 'counter rates not measured: one reading only (validate_health_interval is 0)')
            except StateError as exc:
                outcome = ('error', exc)
        else:
            try:
                rates = state.rates(COUNTERS)
                outcome = ('na', rates['not_applicable']) if rates.get('not_applicable') else ('ok', rates)
            except StateError as exc:
                outcome = ('error', exc)
        ctx.cache[key] = outcome
    return ctx.cache[key]


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


def _links(ctx, model, check_id, category='health'):
    """[(subject, ends, None) | (subject, None, Result)] with ends [(device, port, rates of that port)]."""
    name = model['name']
    out = []
    for port, peer, peer_port, _mtu in uplinks(model):
        subject = link_subject(model, port, peer, peer_port)
        ends, problem = [], None
        for device, interface in ((name, port), (peer, peer_port)):
            status, value = device_rates(ctx, device)
            if status == 'na':
                problem = Result(name, check_id, subject, NOT_APPLICABLE, 'counter rates of both ends', '-',
                                 'not applicable: %s' % value, category=category, source=device)
                break
            if status == 'error':
                problem = Result(name, check_id, subject, ERROR, 'counter rates of both ends', value.message,
                                 'state: %s (%s)' % (value.source, device), category=category, source=value.source)
                break
            ends.append((device, interface, value['ports'].get(interface) or {}, value['seconds']))
        out.append((subject, None if problem else ends, problem))
    return out


def _collapse(results, model=None):
    """Not-applicable results once per reason and device (a fabric of EOS switches would repeat them per link);
    every other result names its link by the lower end ('device port')."""
    ports = {link_subject(model, port, peer, peer_port): '%s %s' % (model['name'], port)
             for port, peer, peer_port, _mtu in uplinks(model)} if model else {}
    seen, kept = set(), []
    for result in results:
        if result.subject in ports:
            result.link = ports[result.subject]
        if result.status == NOT_APPLICABLE:
            if (result.device, result.check, result.message) in seen:
                continue
            seen.add((result.device, result.check, result.message))
            result.subject = 'all links'
        kept.append(result)
    return kept


def _stormed(ctx, device, port_rates):
    queues = _queues(ctx, device, _lossless(ctx))
    flags = indexed(port_rates.get('wd_stormed') or {})
    storms = _sum(port_rates.get('wd_storms'), queues) or 0
    return any(flags.get(queue) for queue in queues) or storms > 0


# =========================================================================== rules
@check('lossless_watchdog_state', 'PFC watchdog running and not tripped', 'lossless', ('leaf', 'spine', 'super_spine'),
       ('counters',), rules=('C12',),
       description='Every cabled switch port reports PFC watchdog state for its lossless queues (the watchdog runs) '
                   'and none is in storm state at the first counter reading.')
def lossless_watchdog_state(ctx, model):
    name = model['name']
    if 'deployed' not in tuple(ctx.options.get('lossless_phases', ('design', 'deployed'))):
        return []  # reads the running switch only
    state = ctx.state(name)
    want = 'watchdog running on the lossless queues, not in storm state'
    platform = get_platform(model['platform'])
    if not platform.lossless_dataplane or not model.get('qos'):
        return [Result(name, 'lossless_watchdog_state', 'all ports', NOT_APPLICABLE, want, '-',
                       'not applicable: %s' % LAB_NA % platform.title, rule='C12', category='lossless',
                       source='deployed')]
    if not state.provides(COUNTERS):
        return [Result(name, 'lossless_watchdog_state', 'all ports', NOT_APPLICABLE, want, '-',
                       'not applicable: the %s gatherer reads no counters' % state.gatherer.title, rule='C12',
                       category='lossless')]
    try:
        counters = state.get(COUNTERS)
    except StateError as exc:
        return [Result(name, 'lossless_watchdog_state', 'all ports', ERROR, want, exc.message, 'state: %s' % exc.source,
                       rule='C12', category='lossless', source=exc.source)]
    queues = _queues(ctx, name, _lossless(ctx))
    results = []
    for item in model['interfaces']:
        values = counters['ports'].get(item['name']) or {}
        flags = indexed(values.get('wd_stormed') or {})
        storms = indexed(values.get('wd_storms') or {})
        known = [queue for queue in queues if queue in flags or queue in storms]
        stormed = [queue for queue in queues if flags.get(queue)]
        if not known:
            status, seen = FAIL, 'no watchdog state for queue %s: the PFC watchdog is not running' % ','.join(map(str, queues))
        elif stormed:
            status, seen = FAIL, 'queue %s in storm state (%s storms counted); pause frames come from %s %s' % (
                ','.join(map(str, stormed)), sum(storms.get(queue) or 0 for queue in stormed), item['peer'],
                item['peer_interface'])
        else:
            status, seen = PASS, 'queue %s operational, %s storms counted' % (
                ','.join(map(str, known)), sum(storms.get(queue) or 0 for queue in known))
        results.append(Result(name, 'lossless_watchdog_state', item['name'], status, want, seen, rule='C12',
                              category='lossless', source=state.describe(COUNTERS)))
    return results


@check('health_pfc_pause', 'No PFC pause storm on any link', 'health', ALL, ('counters',),
       description='Pause frames each end of a link sends per second, per priority (EOS: per port), stay below '
                   'validate_health_thresholds.pause_rate_max; pause frames on a priority that is not lossless fail '
                   'at any rate. The finding names the end that sends them, the end they stop and its watchdog.', peers=True)
def health_pfc_pause(ctx, model):
    limits = thresholds(ctx)
    lossless = set(_lossless(ctx))
    results = []
    for subject, ends, problem in _links(ctx, model, 'health_pfc_pause'):
        if problem:
            results.append(problem)
            continue
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
            results.append(Result(device, 'health_pfc_pause', subject, FAIL,
                                  'at most %s pause frames per priority, none on lossy priorities'
                                  % _per_s(limits['pause_rate_max']), '; '.join(text for _d, text in findings),
                                  'look at %s: its receive path cannot keep up' % device, category='health',
                                  source='counter rates'))
        else:
            results.append(Result(model['name'], 'health_pfc_pause', subject, PASS,
                                  'at most %s pause frames per priority' % _per_s(limits['pause_rate_max']),
                                  '; '.join(seen) or 'no pause counters', category='health', source='counter rates'))
    return _collapse(results, model)


@check('health_pfc_watchdog', 'No PFC watchdog storm on any lossless queue', 'health', ALL, ('counters',),
       description='No PFC watchdog storm was detected on a lossless queue of a switch port during the interval, and '
                   'none is in storm state; the finding names the peer whose pause frames caused it.', peers=True)
def health_pfc_watchdog(ctx, model):
    limits = thresholds(ctx)
    lossless = _lossless(ctx)
    results = []
    for subject, ends, problem in _links(ctx, model, 'health_pfc_watchdog'):
        if problem:
            results.append(problem)
            continue
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
        if findings:
            results.append(Result(findings[0][0], 'health_pfc_watchdog', subject, FAIL,
                                  'no watchdog storm on the lossless queues', '; '.join(text for _d, text in findings),
                                  category='health', source='counter rates'))
        else:
            results.append(Result(model['name'], 'health_pfc_watchdog', subject, PASS,
                                  'no watchdog storm on the lossless queues', '; '.join(seen) or 'no switch end',
                                  category='health', source='counter rates'))
    return _collapse(results, model)


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


@check('health_lossless_drops', 'No drops on the lossless class', 'health', ALL, ('counters',),
       description='Drops on a lossless egress queue or ingress priority group of a switch port, and per-priority '
                   'discards of the lossless priority on a GPU server NIC, stay at 0 per second.', peers=True)
def health_lossless_drops(ctx, model):
    limits = thresholds(ctx)
    results = []
    for subject, ends, problem in _links(ctx, model, 'health_lossless_drops'):
        if problem:
            results.append(problem)
            continue
        findings, seen = [], []
        for (device, port, rates, _s), (peer, peer_port, _r, _p) in ((ends[0], ends[1]), (ends[1], ends[0])):
            for what, rate in _drops(ctx, device, rates):
                seen.append('%s %s %s' % (_label(ctx, device, port), what, _per_s(rate)))
                if rate > limits['lossless_drops_max']:
                    findings.append((device, '%s: %s %s (towards/from %s): PFC is not holding the lossless class' % (
                        _label(ctx, device, port), what, _per_s(rate), _label(ctx, peer, peer_port))))
        if findings:
            results.append(Result(findings[0][0], 'health_lossless_drops', subject, FAIL,
                                  'no drop on the lossless class (at most %s)' % _per_s(limits['lossless_drops_max']),
                                  '; '.join(text for _d, text in findings),
                                  'look at %s: PFC priorities, the watchdog action and the buffers there' % findings[0][0],
                                  category='health', source='counter rates'))
        else:
            results.append(Result(model['name'], 'health_lossless_drops', subject, PASS, 'no drop on the lossless class',
                                  '; '.join(seen) or 'no drop counters', category='health', source='counter rates'))
    return _collapse(results, model)


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


def _rail_ends(ctx, model, check_id):
    for subject, ends, problem in _links(ctx, model, check_id):
        if problem:
            yield subject, None, None, problem
        else:
            yield subject, ends[0], ends[1], None


@check('health_ecn_cnp', 'ECN marks answered by CNPs that reach the senders', 'health', HOSTS, ('counters',),
       description='When ECN-marked RoCE packets reach a GPU server rail (its NIC counts them, or its leaf port marks '
                   'them) the NIC sends CNPs (DCQCN notification point); and CNPs sent anywhere are handled by some '
                   'reaction point (rp_cnp_handled), i.e. they reach the senders.', peers=True)
def health_ecn_cnp(ctx, model):
    limits = thresholds(ctx)
    results = []
    fabric = _fabric_cnp(ctx)
    for subject, host_end, leaf_end, problem in _rail_ends(ctx, model, 'health_ecn_cnp'):
        if problem:
            results.append(problem)
            continue
        host, port, rates, _s = host_end
        leaf, leaf_port, leaf_rates, _p = leaf_end
        nic_marks = rates.get('np_ecn_marked_roce_packets')
        leaf_marks = _marks_towards(ctx, leaf, leaf_port, leaf_rates)
        sent = rates.get('np_cnp_sent')
        if sent is None:
            results.append(Result(host, 'health_ecn_cnp', subject, NOT_APPLICABLE, 'CNP counters', '-',
                                  'not applicable: %s has no RDMA congestion counters (np_cnp_sent)' % port,
                                  category='health'))
            continue
        marks = max(value for value in (nic_marks, leaf_marks, 0) if value is not None)
        seen = 'ECN marks in %s (NIC %s, %s %s %s), CNPs sent %s' % (
            _per_s(marks), _per_s(nic_marks) if nic_marks is not None else 'n/a', leaf, leaf_port,
            _per_s(leaf_marks) if leaf_marks is not None else 'n/a', _per_s(sent))
        want = 'CNPs answer ECN marks and reach the senders'
        if marks >= limits['ecn_marks_min'] and sent < limits['cnp_min']:
            results.append(Result(host, 'health_ecn_cnp', subject, FAIL, want,
                                  '%s receives ECN-marked packets at %s (%s %s marks them) but sends no CNP: its DCQCN '
                                  'notification point is off (ecn/roce_np/enable/%s), so the senders never slow down'
                                  % (_label(ctx, host, port), _per_s(marks), leaf, leaf_port,
                                     ','.join(map(str, _lossless(ctx)))),
                                  'look at %s %s' % (host, port), category='health', source='counter rates'))
        elif sent >= limits['cnp_min'] and fabric is not None and fabric[1] < limits['cnp_min']:
            results.append(Result(host, 'health_ecn_cnp', subject, FAIL, want,
                                  '%s sends CNPs at %s but no GPU server handles any (rp_cnp_handled %s over the fabric): '
                                  'the CNPs are lost on the way back to the senders' % (
                                      _label(ctx, host, port), _per_s(sent), _per_s(fabric[1])),
                                  'look at the CNP class on the switches (DSCP %d -> TC %d, strict priority, no WRED)'
                                  % (ctx.design.lossless['cnp_dscp'], ctx.design.lossless['cnp_priority']),
                                  category='health', source='counter rates'))
        else:
            results.append(Result(host, 'health_ecn_cnp', subject, PASS, want, seen, category='health',
                                  source='counter rates'))
    return _collapse(results, model)


@check('health_cnp_ecn', 'No CNPs without ECN marks', 'health', HOSTS, ('counters',),
       description='A GPU server rail that sends CNPs received ECN-marked packets (its NIC or its leaf port counted '
                   'them); a rail whose reaction point handles CNPs sees some switch in the fabric mark ECN.', peers=True)
def health_cnp_ecn(ctx, model):
    limits = thresholds(ctx)
    results = []
    switch_marks = _fabric_switch_marks(ctx)
    for subject, host_end, leaf_end, problem in _rail_ends(ctx, model, 'health_cnp_ecn'):
        if problem:
            results.append(problem)
            continue
        host, port, rates, _s = host_end
        leaf, leaf_port, leaf_rates, _p = leaf_end
        sent, handled = rates.get('np_cnp_sent'), rates.get('rp_cnp_handled')
        if sent is None or handled is None:
            results.append(Result(host, 'health_cnp_ecn', subject, NOT_APPLICABLE, 'CNP counters', '-',
                                  'not applicable: %s has no RDMA congestion counters (np_cnp_sent, rp_cnp_handled)'
                                  % port, category='health'))
            continue
        nic_marks = rates.get('np_ecn_marked_roce_packets') or 0
        leaf_marks = _marks_towards(ctx, leaf, leaf_port, leaf_rates)
        want = 'CNPs only for ECN-marked packets'
        if sent >= limits['cnp_min'] and nic_marks < limits['ecn_marks_min'] and not leaf_marks:
            results.append(Result(host, 'health_cnp_ecn', subject, FAIL, want,
                                  '%s sends CNPs at %s but neither its NIC nor %s %s counted an ECN-marked packet'
                                  % (_label(ctx, host, port), _per_s(sent), leaf, leaf_port),
                                  'look at %s %s: ECN counters off (enable them) or marks from an unexpected hop'
                                  % (leaf, leaf_port), category='health', source='counter rates'))
        elif handled >= limits['cnp_min'] and switch_marks is not None and switch_marks < limits['ecn_marks_min']:
            results.append(Result(host, 'health_cnp_ecn', subject, FAIL, want,
                                  '%s slows down for CNPs at %s while no switch port marked ECN (%s over the fabric)'
                                  % (_label(ctx, host, port), _per_s(handled), _per_s(switch_marks)),
                                  'look at the NICs sending CNPs (np_cnp_sent) and the switches\' ECN counters',
                                  category='health', source='counter rates'))
        else:
            results.append(Result(host, 'health_cnp_ecn', subject, PASS, want, 'CNPs sent %s, handled %s; ECN marks '
                                  'NIC %s, %s %s %s' % (_per_s(sent), _per_s(handled), _per_s(nic_marks), leaf, leaf_port,
                                                        _per_s(leaf_marks) if leaf_marks is not None else 'n/a'),
                                  category='health', source='counter rates'))
    return _collapse(results, model)


@check('health_rdma_errors', 'No RDMA transport errors on GPU server rails', 'health', HOSTS, ('counters',),
       description='RDMA transport error counters of each rail NIC (out_of_sequence, packet_seq_err, '
                   'implied_nak_seq_err, local_ack_timeout_err, rx_discards_phy) grow no faster than '
                   'validate_health_thresholds.rdma_errors_max (0 by default): on a lossless fabric they mean drops.', peers=True)
def health_rdma_errors(ctx, model):
    limits = thresholds(ctx)['rdma_errors_max']
    results = []
    for subject, host_end, leaf_end, problem in _rail_ends(ctx, model, 'health_rdma_errors'):
        if problem:
            results.append(problem)
            continue
        host, port, rates, _s = host_end
        leaf, leaf_port, _r, _p = leaf_end
        present = {name: rates[name] for name in limits if rates.get(name) is not None}
        if not present:
            results.append(Result(host, 'health_rdma_errors', subject, NOT_APPLICABLE, 'RDMA error counters', '-',
                                  'not applicable: %s has no RDMA error counters' % port, category='health'))
            continue
        over = ['%s %s (max %s)' % (name, _per_s(value), _per_s(limits[name])) for name, value in sorted(present.items())
                if value > limits[name]]
        within = ['%s %s' % (name, _per_s(value)) for name, value in sorted(limits.items())]
        want = 'RDMA error counters within %s' % ', '.join(within)
        if over:
            results.append(Result(host, 'health_rdma_errors', subject, FAIL, want,
                                  '%s: %s' % (_label(ctx, host, port), ', '.join(over)),
                                  'packets are lost between %s and %s %s: look at that leaf port\'s drops and PFC state'
                                  % (host, leaf, leaf_port), category='health', source='counter rates'))
        else:
            results.append(Result(host, 'health_rdma_errors', subject, PASS, want, ', '.join(
                '%s %s' % (name, _per_s(value)) for name, value in sorted(present.items())), category='health',
                source='counter rates'))
    return _collapse(results, model)


__all__ = ['HEALTH_DEFAULTS', 'thresholds', 'threshold_problems', 'device_rates', 'counter_links']
