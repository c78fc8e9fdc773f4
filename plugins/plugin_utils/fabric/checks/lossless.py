# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Lossless consistency: switch and host agree on every lossless setting (rules C01-C25, docs/validation.md).

Two phases, both reported:
- `design` (pre-deploy): the switch side is the configuration the collection renders for it (config_db.json,
  startup-config, startup.yaml), read back by the platform's own parser (gatherer.design_view); the host side is
  the host model (RNIC QoS, DCQCN, MTU).
- `deployed` (post-deploy): the switch side is the running configuration and operational state the switch
  reports (neutral state key `lossless`: SONiC running CONFIG_DB, EOS running-config + show interfaces, NVUE
  applied configuration + ip link), the host side is what aifabric.fabric.rnic_facts read from the NICs.

Each side is first turned into a *view* with the same fields (state/views.py), so one set of rules judges
every platform; no rule names a platform. State that cannot exist is `not_applicable` with the reason (FRR lab
switches have no PFC/ECN/buffers; containers have no RDMA device); it never passes silently.
"""

from __future__ import annotations

from . import Check, NotApplicable, Subject, failed, register, verdict
from .sides import PHASES, describe_set as _describe_set, host_side, phases, profile as _profile, switch_side
from ..platforms import get_platform
from ..terms import SWITCH_ROLES, VXLAN_OVERHEAD

SWITCHES = SWITCH_ROLES


# =========================================================================== switch port rules
def _expected_mtu_floor(ctx):
    overhead = VXLAN_OVERHEAD if ctx.design.intent['hosts']['attachment'] == 'evpn' else 0
    return ctx.design.lossless['mtu']['host'] + overhead, overhead


def _rule_dscp(ctx, view, item):
    profile = _profile(ctx)
    dscp, tc = profile['roce_dscp'], profile['roce_priority']
    seen_tc = (view['dscp_to_tc'] or {}).get(dscp)
    want = 'DSCP %d -> TC %d (map bound to the port)' % (dscp, tc)
    seen = 'no DSCP map bound' if view['dscp_to_tc'] is None else 'DSCP %d -> TC %s (map %s)' % (dscp, seen_tc, view['dscp_map'])
    trusted = view['trust'] in ('dscp', 'both')
    if not trusted:
        want = 'DSCP trusted, ' + want
        seen = 'trust %s, %s' % (view['trust'] or 'not set', seen)
    return seen_tc == tc and trusted, want, seen


def _rule_pfc(ctx, view, item, platform):
    want_set = sorted(_profile(ctx)['lossless_priorities'])
    ok = view['pfc'] == want_set and len(view['pfc']) <= platform.max_lossless_priorities
    return ok, 'PFC on priorities %s (at most %d on %s)' % (_describe_set(want_set), platform.max_lossless_priorities,
                                                            platform.title), 'PFC on %s' % _describe_set(view['pfc'])


def _rule_chain(ctx, view, item):
    profile = _profile(ctx)
    problems, parts = [], []
    for prio in profile['lossless_priorities']:
        tc = prio
        pg = (view['tc_to_pg'] or {}).get(tc)
        queue = (view['tc_to_queue'] or {}).get(tc)
        pfc_queue = (view['pfc_to_queue'] or {}).get(prio)
        parts.append('TC %d -> PG %s, queue %s; PFC %d -> queue %s' % (tc, pg, queue, prio, pfc_queue))
        if pg is None or pg not in view['pfc']:
            problems.append('PG %s of TC %d is not a PFC priority' % (pg, tc))
        if queue is None or queue != pfc_queue:
            problems.append('queue %s of TC %d differs from the queue %s PAUSE for priority %d stops' % (queue, tc, pfc_queue, prio))
        if view['pfc_to_pg'] is not None and view['pfc_to_pg'].get(prio) not in (None, pg):
            problems.append('PFC %d -> PG %s, not PG %s' % (prio, view['pfc_to_pg'].get(prio), pg))
    return not problems, 'TC -> PG in the PFC set, TC -> queue = PFC priority -> queue', '; '.join(problems or parts)


def _rule_buffers(ctx, view, item):
    profile = _profile(ctx)
    problems, parts = [], []
    room = item.get('headroom')
    for prio in profile['lossless_priorities']:
        pg = (view['tc_to_pg'] or {}).get(prio, prio)
        entry = view['pgs'].get(pg)
        if entry is None:
            problems.append('no lossless ingress buffer for PG %s' % pg)
        elif not entry['dynamic']:
            parts.append('PG %s xoff %s' % (pg, entry['xoff']))
            if room and entry['xoff'] < room['xoff']:
                problems.append('PG %s xoff %d < designed headroom %d (C15)' % (pg, entry['xoff'], room['xoff']))
        else:
            parts.append('PG %s dynamic headroom' % pg)
        queue = (view['tc_to_queue'] or {}).get(prio, prio)
        if view['egress'].get(queue) != 'lossless':
            problems.append('egress queue %s uses %s, not a lossless profile' % (queue, view['egress'].get(queue, 'nothing')))
    cable = view['cable_length_m']
    platform_sized = view['headroom'] == 'platform'
    if (cable is None and not platform_sized) or (cable is not None and cable < item['cable_length_m']):
        problems.append('cable length %s m < cabled %d m (C16)' % (cable, item['cable_length_m']))
    if platform_sized:
        want = 'lossless PG and queue buffers for every no-drop priority (headroom sized by the switch)%s' % (
            ', cable length >= %d m' % item['cable_length_m'] if cable is not None else '')
    else:
        want = 'lossless PG and queue buffers, xoff >= %s, cable length >= %d m' % (
            room['xoff'] if room else 'formula', item['cable_length_m'])
    cable_text = cable if cable is not None else 'not configurable'
    return not problems, want, '; '.join(problems) or ', '.join(parts) + ', cable %s m' % cable_text


def _rule_ecn(ctx, view, item):
    profile = _profile(ctx)
    ecn = item.get('ecn') or profile['ecn']  # per port: the design scales ECN thresholds with the speed
    problems, parts = [], []
    for prio in profile['lossless_priorities']:
        queue = (view['tc_to_queue'] or {}).get(prio, prio)
        wred = (view['queues'].get(queue) or {}).get('wred')
        if not wred:
            problems.append('queue %s has no WRED/ECN profile' % queue)
            continue
        parts.append('queue %s %s %s-%s B' % (queue, wred['ecn'], wred['min_bytes'], wred['max_bytes']))
        if wred['ecn'] in (None, 'ecn_none') or not wred['green_enable']:
            problems.append('queue %s marks no ECN (ecn %s, green %s)' % (queue, wred['ecn'], wred['green_enable']))
        if wred['min_bytes'] is None or wred['max_bytes'] is None or wred['min_bytes'] >= wred['max_bytes']:
            problems.append('queue %s min threshold %s is not below max %s (C09)' % (queue, wred['min_bytes'], wred['max_bytes']))
        elif (wred['min_bytes'], wred['max_bytes']) != (ecn['min_threshold_bytes'], ecn['max_threshold_bytes']):
            problems.append('queue %s thresholds %d-%d B differ from the design %d-%d B' % (
                queue, wred['min_bytes'], wred['max_bytes'], ecn['min_threshold_bytes'], ecn['max_threshold_bytes']))
    want = 'ECN marking on the lossless queues, %d-%d B' % (ecn['min_threshold_bytes'], ecn['max_threshold_bytes'])
    return not problems, want, '; '.join(problems or parts)


def _rule_cnp(ctx, view, item):
    profile = _profile(ctx)
    dscp, prio = profile['cnp_dscp'], profile['cnp_priority']
    problems = []
    seen_tc = (view['dscp_to_tc'] or {}).get(dscp)
    if seen_tc != prio:
        problems.append('DSCP %d -> TC %s' % (dscp, seen_tc))
    if prio in view['pfc']:
        problems.append('CNP priority %d is lossless (PFC on)' % prio)
    queue = (view['tc_to_queue'] or {}).get(prio, prio)
    entry = view['queues'].get(queue) or {}
    sched = entry.get('scheduler')
    if not sched or sched['type'] != 'STRICT':
        problems.append('queue %s scheduler is %s, not strict' % (queue, sched['type'] if sched else 'not set'))
    if entry.get('wred') and entry['wred']['ecn'] not in (None, 'ecn_none'):
        problems.append('queue %s has WRED profile %s (CNPs must not be marked or dropped by WRED)' % (queue, entry['wred'].get('name', 'with ECN')))
    if profile['roce_dscp'] == dscp:
        problems.append('CNP DSCP equals RoCE DSCP %d (C11)' % dscp)
    want = 'DSCP %d -> TC %d, strict-priority queue, not lossless, no WRED' % (dscp, prio)
    seen = '; '.join(problems) or 'DSCP %d -> TC %s, queue %s strict' % (dscp, seen_tc, queue)
    return not problems, want, seen


def _rule_watchdog(ctx, view, item, platform):
    spec = _profile(ctx)['watchdog']
    if not spec['enabled']:
        return True, 'watchdog disabled by design', 'not checked'
    problems = []
    watchdog = view['watchdog']
    if not watchdog or watchdog.get('detection_ms') is None:
        problems.append('no PFC watchdog on the port')
    else:
        if not set(view['pfc']) <= set(view['pfcwd']):
            problems.append('watchdog covers %s, PFC is on %s' % (_describe_set(view['pfcwd']), _describe_set(view['pfc'])))
        rules = platform.watchdog
        poll = view['poll_ms']
        for key, rule in (('detection_ms', rules.detection if rules else None),
                          ('restoration_ms', rules.restoration if rules else None)):
            value = watchdog.get(key)
            problem = rule.problem(value) if rule and value is not None else None
            if problem:
                problems.append('%s %s %s (C13)' % (key, value, problem))
            if poll is not None and value is not None and value < poll:
                problems.append('%s %s is below the poll interval %s ms (C13)' % (key, value, poll))
        if rules and rules.poll_interval and poll is not None and rules.poll_interval.problem(poll):
            problems.append('poll interval %s ms %s (C13)' % (poll, rules.poll_interval.problem(poll)))
        designed = (spec['action'], spec['detection_ms'], spec['restoration_ms'])
        seen = (watchdog.get('action'), watchdog.get('detection_ms'), watchdog.get('restoration_ms'))
        if seen != designed:
            problems.append('action/detection/restoration %s/%s/%s ms differ from the design %s/%s/%s ms' % (seen + designed))
    want = 'watchdog on PFC priorities, %s after %d ms, restore %d ms, poll %d ms' % (
        spec['action'], spec['detection_ms'], spec['restoration_ms'], spec['poll_interval_ms'])
    seen = '; '.join(problems) or '%s after %s ms, restore %s ms, poll %s ms on %s' % (
        watchdog['action'], watchdog['detection_ms'], watchdog['restoration_ms'], view['poll_ms'], _describe_set(view['pfcwd']))
    return not problems, want, seen


def _rule_mtu(ctx, view, item, platform):
    floor, overhead = _expected_mtu_floor(ctx)
    problems = []
    if view['mtu'] != item['mtu']:
        problems.append('MTU %s, designed %d' % (view['mtu'], item['mtu']))
    if view['mtu'] is None or view['mtu'] < floor:
        problems.append('MTU %s < host MTU + %d overhead = %d' % (view['mtu'], overhead, floor))
    if view['mtu'] is not None and view['mtu'] > platform.mtu_max:
        problems.append('MTU %s > %s maximum %d' % (view['mtu'], platform.title, platform.mtu_max))
    if view['lossless_mtu'] is not None and view['mtu'] is not None and view['lossless_mtu'] > view['mtu']:
        problems.append('lossless traffic MTU %s > port MTU %s' % (view['lossless_mtu'], view['mtu']))
    want = 'MTU %d (>= host %d + %d, <= %d)' % (item['mtu'], floor - overhead, overhead, platform.mtu_max)
    return not problems, want, '; '.join(problems) or 'MTU %s' % view['mtu']


SWITCH_RULES = {
    'lossless_dscp_map': (('C01', 'C02'), 'RoCE DSCP mapped to the lossless traffic class', _rule_dscp, False,
                          'DSCP trusted on the port (EOS `qos trust dscp`, NVUE trust l3/both; SONiC: a DSCP map bound) '
                          'and the map sends the RoCE DSCP to the lossless TC',
                          'leaf001 lossless_dscp_map [Ethernet0 [deployed]]: ... seen DSCP 26 -> TC 1 (map AZURE)'),
    'lossless_pfc': (('C03', 'C18'), 'PFC on exactly the lossless priorities', _rule_pfc, True,
                     'PFC on exactly the lossless priorities, no more than the platform allows',
                     'leaf001 lossless_pfc [Ethernet0 [deployed]]: expected PFC on priorities {3} (at most 2 on SONiC '
                     '(CONFIG_DB + FRR)); seen PFC on {3,4}'),
    'lossless_chain': (('C05',), 'TC, priority group and queue chain closes', _rule_chain, False,
                       'TC→PG lands in the PFC set; TC→queue equals the queue that PAUSE for that priority stops; '
                       'PFC→PG agrees',
                       'leaf001 lossless_chain [Ethernet0 [design]]: ... seen queue 4 of TC 3 differs from the queue 3 '
                       'PAUSE for priority 3 stops'),
    'lossless_buffers': (('C06', 'C07', 'C15', 'C16'), 'Lossless buffers and headroom', _rule_buffers, False,
                         'a lossless ingress PG buffer (xoff ≥ the designed headroom, or a dynamic one, or sized by the '
                         'switch) and a lossless egress queue profile; configured cable length ≥ the cabled length',
                         'leaf001 lossless_buffers [Ethernet0 [deployed]]: ... seen PG 3 xoff 20000 < designed headroom '
                         '38912 (C15)'),
    'lossless_ecn': (('C08', 'C09'), 'ECN marking on lossless queues', _rule_ecn, False,
                     'WRED with ECN marking on every lossless queue, min < max, thresholds as designed',
                     'leaf001 lossless_ecn [Ethernet0 [deployed]]: ... seen queue 3 thresholds 1048576-2097152 B differ '
                     'from the design 150000-1500000 B'),
    'lossless_cnp': (('C10', 'C11', 'C20'), 'CNP class strict and not lossless', _rule_cnp, False,
                     'CNP DSCP → CNP TC, whose queue is strict priority, not lossless and has no WRED; CNP DSCP ≠ RoCE '
                     'DSCP', 'leaf001 lossless_cnp [Ethernet0 [deployed]]: ... seen queue 6 scheduler is DWRR, not strict'),
    'lossless_watchdog': (('C12', 'C13'), 'PFC watchdog present with sane timers', _rule_watchdog, True,
                          'PFC watchdog on the port covering every PFC priority; timers within the platform\'s range '
                          'and units (SONiC ms, EOS s in 10 ms steps, NVUE poll × robustness), detection and '
                          'restoration ≥ poll interval, as designed',
                          'leaf001 lossless_watchdog [Ethernet0 [deployed]]: ... seen no PFC watchdog on the port'),
    'lossless_port_mtu': (('C14',), 'Switch port MTU carries host frames plus VXLAN', _rule_mtu, True,
                          'port MTU as designed, ≥ host MTU + VXLAN overhead (50), ≤ platform maximum; lossless traffic '
                          'MTU ≤ port MTU', 'leaf001 lossless_port_mtu [Ethernet0 [design]]: ... seen MTU 1500, designed '
                                            '9100; MTU 1500 < host MTU + 50 overhead = 9050'),
}


class SwitchPortRule(Check):
    """One lossless rule judged on every cabled switch port, in each phase, on the port's view."""

    category = 'lossless'
    roles = SWITCHES
    per = 'switch port, per phase'
    state = ('lossless',)
    inputs = 'the lossless profile and every cabled port of the switch (speed, cable length, headroom, ECN thresholds)'
    failure = 'what the port has against the rule, naming the rule id (C..) where one is broken'
    na_subject = 'all ports'
    na_expected = 'lossless configuration'
    error_subject = 'all ports [{phase}]'

    def __init__(self, check_id, rules, title, func, needs_platform, description, example):
        self.id, self.rules, self.title, self.func_rule, self.needs_platform = check_id, rules, title, func, needs_platform
        self.description, self.example = description, example

    def subjects(self, ctx, model):
        key = ('port_subjects', model['name'])
        if key not in ctx.cache:  # the eight rules judge the same ports: one list of subjects for all of them
            ctx.cache[key] = [Subject('%s [%s]' % (item['name'], phase), 'port in the configuration', port=item['name'],
                                      phase=phase, data=item) for phase in phases(ctx) for item in model['interfaces']]
        return ctx.cache[key]

    def read(self, ctx, model, subject):
        side = switch_side(ctx, model, subject.phase)
        if side['na']:
            raise NotApplicable(side['na'])
        if side['error'] is not None:
            raise side['error'].again()
        return side['views']

    def source(self, ctx, model, subject):
        return '%s: %s' % (subject.phase, switch_side(ctx, model, subject.phase)['source'])

    def judge(self, ctx, model, subject, state):
        view = state.get(subject.data['name'])
        if view is None:
            return failed('port missing')
        args = (ctx, view, subject.data, get_platform(model['platform'])) if self.needs_platform else \
            (ctx, view, subject.data)
        ok, want, seen = self.func_rule(*args)
        return verdict(ok, seen, expected=want)


for _check_id, _spec in SWITCH_RULES.items():
    register(SwitchPortRule(_check_id, *_spec))


@register
class LosslessConfig(Check):
    id = 'lossless_config'
    title = 'Switch configuration format and activation'
    category = 'lossless'
    roles = SWITCHES
    per = 'switch, per phase'
    state = ('lossless',)
    rules = ('C22', 'C25')
    inputs = 'the cabled ports of the switch'
    description = ('the configuration in the format its NOS takes (the platform\'s parser reports what breaks it: on SONiC '
                   'the `pfc_enable` pattern, cable lengths in `m`, `Vlan<id>`, WRED names, one port per key), and '
                   'every lossless port listed in the NOS\'s neighbour table (Platform.neighbor_table: SONiC\'s '
                   'DEVICE_NEIGHBOR) where it has one, so its tools treat the port as active')
    failure = ('every format problem the platform\'s parser found, and the lossless ports missing from the neighbour '
               'table')
    example = ('leaf001 lossless_config [configuration [deployed]]: ... seen lossless ports missing from DEVICE_NEIGHBOR: '
               'Ethernet0 (C22)')
    na_subject = 'all ports'
    na_expected = 'valid configuration'

    def subjects(self, ctx, model):
        table = get_platform(model['platform']).neighbor_table
        expected = 'the %s format (C25)%s' % (get_platform(model['platform']).label, ', lossless ports in %s (C22)' % table
                                              if table else '')
        for phase in phases(ctx):
            yield Subject('configuration [%s]' % phase, expected, phase=phase)

    read = SwitchPortRule.read
    source = SwitchPortRule.source

    def judge(self, ctx, model, subject, state):
        side = switch_side(ctx, model, subject.phase)
        problems = list(side['issues'])
        cabled = {item['name'] for item in model['interfaces']}
        inactive = [port for port, view in sorted(state.items()) if view['in_neighbors'] is False and port in cabled]
        if inactive:
            problems.append('lossless ports missing from %s: %s (C22)' % (
                get_platform(model['platform']).neighbor_table, ', '.join(inactive)))
        return verdict(not problems, '; '.join(problems) or 'no format problem')


# =========================================================================== host <-> leaf link rules
def _host_dscp(ctx, host, port, item):
    """All 64 DSCPs: the NIC's priority of each equals the leaf's traffic class of it (priority p = TC p), and
    the RoCE DSCP is on the lossless priority."""
    profile = _profile(ctx)
    dscp, prio = profile['roce_dscp'], profile['roce_priority']
    nic_map = host['dscp_to_priority'] or {}
    leaf_map = port['dscp_to_tc'] or {}
    differ = [code for code in range(64) if nic_map.get(code) != leaf_map.get(code)]
    ok = host['trust'] == 'dscp' and nic_map.get(dscp) == prio and leaf_map.get(dscp) == prio and not differ
    want = ('NIC trust dscp with the leaf\'s map on all 64 DSCPs (NIC priority = leaf traffic class), '
            'DSCP %d -> %d on both' % (dscp, prio))
    shown = ', '.join('DSCP %d: NIC %s, leaf %s' % (code, nic_map.get(code), leaf_map.get(code)) for code in differ[:8])
    seen = 'NIC trust %s, DSCP %d -> priority %s, leaf TC %s; %s' % (
        host['trust'], dscp, nic_map.get(dscp), leaf_map.get(dscp),
        '%d DSCPs differ (%s%s)' % (len(differ), shown, ', ...' if len(differ) > 8 else '') if differ
        else 'the 64 DSCPs agree')
    return ok, want, seen


def _host_pfc(ctx, host, port, item):
    want_set = sorted(_profile(ctx)['lossless_priorities'])
    pause = host.get('pause') or {}
    pause_on = bool(pause.get('rx') or pause.get('tx'))
    ok = host['pfc'] == want_set and port['pfc'] == want_set and not pause_on
    want = 'PFC %s on NIC and leaf port, global pause off' % _describe_set(want_set)
    seen = 'NIC PFC %s, leaf PFC %s, NIC global pause %s' % (_describe_set(host['pfc']), _describe_set(port['pfc']),
                                                             'on' if pause_on else 'off')
    return ok, want, seen


def _host_cnp(ctx, host, port, item):
    profile = _profile(ctx)
    dscp, prio = profile['cnp_dscp'], profile['cnp_priority']
    leaf_tc = (port['dscp_to_tc'] or {}).get(dscp)
    ok = host['cnp_dscp'] == dscp and host['cnp_priority'] == prio and leaf_tc == prio and prio not in (host['pfc'] or [])
    want = 'NIC sends CNPs with DSCP %d priority %d; leaf DSCP %d -> TC %d' % (dscp, prio, dscp, prio)
    seen = 'NIC CNP DSCP %s priority %s; leaf DSCP %d -> TC %s' % (host['cnp_dscp'], host['cnp_priority'], dscp, leaf_tc)
    return ok, want, seen


def _host_ecn(ctx, host, port, item):
    want_set = sorted(_profile(ctx)['lossless_priorities'])
    queue_ok = all(((port['queues'].get((port['tc_to_queue'] or {}).get(prio, prio)) or {}).get('wred') or {}).get('ecn')
                   not in (None, 'ecn_none') for prio in want_set)
    if not host['ecn_known']:
        return (queue_ok, 'DCQCN on priorities %s, leaf marks ECN on them' % _describe_set(want_set),
                'NIC DCQCN state not exposed by the driver (inbox mlx5: on by default), leaf marking %s'
                % ('on' if queue_ok else 'off'))
    ok = set(want_set) <= set(host['ecn']) and queue_ok
    return ok, 'DCQCN (RP and NP) on priorities %s, leaf marks ECN on them' % _describe_set(want_set), \
        'NIC DCQCN on %s, leaf marking %s' % (_describe_set(host['ecn']), 'on' if queue_ok else 'off')


def _host_mtu(ctx, host, port, item):
    floor, overhead = _expected_mtu_floor(ctx)
    designed = ctx.design.lossless['mtu']['host']
    ok = host['mtu'] == designed and port['mtu'] is not None and host['mtu'] is not None and host['mtu'] + overhead <= port['mtu']
    return ok, 'NIC MTU %d, + %d overhead <= leaf port MTU' % (designed, overhead), \
        'NIC MTU %s, leaf port MTU %s' % (host['mtu'], port['mtu'])


def _host_marking(ctx, host, port, item):
    """What the applications mark (NCCL_IB_TC, the RDMA-CM default ToS, MLNX_OFED's verbs traffic class) carries a
    DSCP that the NIC and the leaf both put on the lossless priority."""
    if host['marking_error'] is not None:
        raise host['marking_error']
    profile = _profile(ctx)
    prio = profile['roce_priority']
    nic_map = host['dscp_to_priority'] or {}
    leaf_map = port['dscp_to_tc'] or {}
    problems, parts = [], []
    for label, value in host['marking']:
        dscp = value >> 2
        text = '%s %d = DSCP %d (NIC priority %s, leaf TC %s)' % (
            label, value, dscp, nic_map.get(dscp), leaf_map.get(dscp))
        parts.append(text)
        if nic_map.get(dscp) != prio or leaf_map.get(dscp) != prio:
            problems.append(text)
    want = ('every marking (NCCL_IB_TC, RDMA-CM ToS, verbs traffic class) on a DSCP the NIC and the leaf put on '
            'lossless priority %d (designed: DSCP %d, traffic class byte %d)'
            % (prio, profile['roce_dscp'], profile['traffic_class_byte']))
    return not problems, want, ('not lossless: ' + '; '.join(problems)) if problems else '; '.join(parts)


def _host_cable(ctx, host, port, item):
    """Both ends of the server cable size their PFC headroom for at least its length (C16): the NIC for what the
    leaf sends it (mlx5 takes the cable length from `mlnx_qos --cable_len` / the `dcb pfc` delay and assumes 7 m
    without), the leaf port for what the NIC sends (or the switch sizes it itself)."""
    cabled = item.get('cable_length_m')
    nic, leaf = host.get('cable_length_m'), port['cable_length_m']
    problems = []
    if not host.get('qos_read', True):
        problems.append('NIC QoS not read (neither mlnx_qos nor dcb answered)')
    elif nic is not None and cabled is not None and nic < cabled:
        problems.append('NIC headroom for %d m < cabled %d m' % (nic, cabled))
    if leaf is None and port['headroom'] != 'platform':
        problems.append('leaf port has no cable length')
    elif leaf is not None and cabled is not None and leaf < cabled:
        problems.append('leaf port headroom for %d m < cabled %d m' % (leaf, cabled))
    nic_text = '%s m' % nic if nic is not None else 'none reported (firmware-managed NIC buffer)'
    leaf_text = '%s m' % leaf if leaf is not None else 'sized by the switch'
    prefix = '; '.join(problems) + ': ' if problems else ''
    seen = '%sNIC %s, leaf port %s, cabled %s m' % (prefix, nic_text, leaf_text, cabled)
    return not problems, 'NIC and leaf port headroom for at least the cabled %s m' % cabled, seen


HOST_RULES = {
    'host_switch_dscp': (('C01', 'C04'), 'NIC and leaf agree on every DSCP -> priority', _host_dscp,
                         'NIC trusts DSCP and maps every one of the 64 DSCPs to the priority the leaf maps it to as '
                         'traffic class (the RoCE DSCP on the lossless priority)',
                         'gpu0001 host_switch_dscp [eth1 <-> leaf001 Ethernet0 [deployed]]: ... seen NIC trust dscp, DSCP '
                         '26 -> priority 3, leaf TC 3; 54 DSCPs differ (DSCP 8: NIC 1, leaf 0, DSCP 9: NIC 1, leaf 0, '
                         '...)'),
    'host_switch_pfc': (('C03', 'C19'), 'NIC and leaf agree on PFC priorities', _host_pfc,
                        'NIC and leaf port enable PFC on the same, designed priorities; NIC global pause off',
                        'gpu0001 host_switch_pfc [eth1 <-> leaf001 Ethernet0 [deployed]]: ... seen NIC PFC {4}, leaf PFC '
                        '{3}, NIC global pause on'),
    'host_switch_cnp': (('C10', 'C11'), 'NIC and leaf agree on the CNP class', _host_cnp,
                        'NIC sends CNPs with the designed DSCP and priority; the leaf maps that DSCP to the CNP TC',
                        'gpu0001 host_switch_cnp [eth1 <-> leaf001 Ethernet0 [deployed]]: ... seen NIC CNP DSCP 46 '
                        'priority 5; leaf DSCP 48 -> TC 6'),
    'host_switch_ecn': (('C08',), 'DCQCN on the NIC, ECN marking on the leaf', _host_ecn,
                        'DCQCN (RP and NP) on the lossless priorities and ECN marking on the leaf. The inbox mlx5 driver '
                        'does not expose DCQCN state; the result says so.',
                        'gpu0001 host_switch_ecn [eth1 <-> leaf001 Ethernet0 [deployed]]: ... seen NIC DCQCN on {}, '
                        'leaf marking on'),
    'host_switch_cable': (('C15', 'C16'), 'NIC and leaf size their headroom for the server cable', _host_cable,
                          'the NIC\'s headroom cable length (`mlnx_qos` Cable len, `dcb pfc` delay; mlx5 assumes 7 m) '
                          'and the leaf port\'s are at least the cable length of the design; a NIC that reports none '
                          '(its firmware owns the port buffer) is named as such',
                          'gpu0001 host_switch_cable [eth1 <-> leaf001 Ethernet0 [deployed]]: ... seen NIC headroom for '
                          '7 m < cabled 10 m: NIC 7 m, leaf port 10 m, cabled 10 m'),
    'host_switch_mtu': (('C14',), 'NIC MTU fits the leaf port MTU', _host_mtu,
                        'NIC MTU as designed and, with the VXLAN overhead, within the leaf port MTU',
                        'gpu0001 host_switch_mtu [eth1 <-> leaf001 Ethernet0 [deployed]]: ... seen NIC MTU 1500, leaf port '
                        'MTU 9100'),
}


class HostRailRule(Check):
    """One lossless rule judged on every GPU server rail against the leaf port it plugs into, in each phase."""

    category = 'lossless'
    roles = ('host',)
    per = 'host rail ↔ leaf port, per phase'
    state: tuple[str, ...] = ('rnic', 'lossless')
    peers = True
    inputs = 'the lossless profile, the host NIC settings of the design and the leaf port of every rail'
    failure = 'the NIC and the leaf port side by side'
    na_subject = 'all rails'
    na_expected = 'NIC and leaf agree'
    source_per_subject = True  # the leaf differs from rail to rail

    def __init__(self, check_id, rules, title, func, description, example):
        self.id, self.rules, self.title, self.func_rule = check_id, rules, title, func
        self.description, self.example = description, example

    def subjects(self, ctx, model):
        for phase in phases(ctx):
            for rail in model['rails']:
                yield Subject('%s <-> %s %s [%s]' % (rail['interface'], rail['leaf'], rail['leaf_interface'], phase),
                              'NIC and leaf agree', port=rail['interface'], phase=phase, data=rail)

    def read(self, ctx, model, subject):
        host = host_side(ctx, model, subject.phase)
        leaf = switch_side(ctx, ctx.model(subject.data['leaf']), subject.phase)
        if leaf['na']:
            raise NotApplicable('the leaf: %s' % leaf['na'])
        if host['na']:
            raise NotApplicable(host['na'])
        if host['error'] is not None or leaf['error'] is not None:
            raise (host['error'] or leaf['error']).again()
        return host, leaf

    def source(self, ctx, model, subject):
        leaf = switch_side(ctx, ctx.model(subject.data['leaf']), subject.phase)
        return '%s: %s + %s' % (subject.phase, host_side(ctx, model, subject.phase)['source'],
                                leaf['source'] or ctx.model(subject.data['leaf'])['platform'])

    def judge(self, ctx, model, subject, state):
        host, leaf_side = state
        rail = subject.data
        view = host['views'].get(rail['interface'])
        port = leaf_side['views'].get(rail['leaf_interface'])
        if view is None or not view['exists'] or not view['rdma']:
            return failed('no RDMA device on %s' % rail['interface'], expected='RDMA NIC on the rail')
        if port is None:
            return failed('%s missing on %s' % (rail['leaf_interface'], rail['leaf']), expected='leaf port in the configuration')
        leaf_item = next((item for item in ctx.model(rail['leaf'])['interfaces'] if item['name'] == rail['leaf_interface']), {})
        ok, want, seen = self.func_rule(ctx, view, port, leaf_item)
        return verdict(ok, seen, expected=want)


for _host_check_id, _host_spec in HOST_RULES.items():
    register(HostRailRule(_host_check_id, *_host_spec))


@register
class HostMarking(HostRailRule):
    """What the applications mark on a GPU server rail against the NIC's and the leaf port's maps."""

    state = ('rnic', 'nccl_conf', 'lossless')
    failure = 'each marking that misses the lossless priority, with its DSCP, NIC priority and leaf traffic class'

    def __init__(self):
        super().__init__(
            'host_switch_marking', ('C01', 'C04'), 'The applications mark RoCE with a DSCP both ends treat as lossless',
            _host_marking,
            'what the applications mark carries a DSCP that the NIC and the leaf both put on the lossless priority: '
            '`NCCL_IB_TC` (design: the rendered `nccl.conf`; deployed: the host\'s `/etc/nccl.conf`, NCCL\'s default 0 '
            'when it is missing or silent), the RDMA-CM default ToS (configfs `default_roce_tos`) and, when '
            'MLNX_OFED\'s global verbs traffic class is set, that class (it replaces every application\'s). NCCL reads '
            'the environment before `nccl.conf`; `aifabric.fabric.nccl_check` (role `host_nccl`) reports an exported '
            '`NCCL_IB_TC` that wins over the file',
            'gpu0001 host_switch_marking [eth1 <-> leaf001 Ethernet0 [deployed]]: ... seen not lossless: NCCL_IB_TC '
            '(/etc/nccl.conf) 98 = DSCP 24 (NIC priority 0, leaf TC 0)')


__all__ = ['SWITCH_RULES', 'HOST_RULES', 'PHASES', 'SwitchPortRule', 'HostRailRule', 'HostMarking']
