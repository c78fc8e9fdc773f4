# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Lossless consistency: switch and host agree on every lossless setting (reference rules C01-C25).

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

from . import ERROR, FAIL, NOT_APPLICABLE, PASS, Result, check
from ..intent import VXLAN_OVERHEAD
from ..platforms import get_platform
from ..state import StateError
from ..state.sources import gatherer_for

SWITCHES = ('leaf', 'spine', 'super_spine')
PHASES = ('design', 'deployed')
LAB_NA = ('%s has no lossless data plane: PFC, ECN, buffers and the PFC watchdog cannot exist in a software lab, so '
          'the design gives these switches no lossless configuration (SONiC, EOS and NVUE switches are checked here)')


# =========================================================================== views
def _profile(ctx):
    return ctx.design.lossless


def switch_side(ctx, model, phase):
    """{'views': {port: view} | None, 'source', 'na': reason | None, 'error': StateError | None, 'issues': []}."""
    key = ('switch_side', model['name'], phase)
    if key in ctx.cache:
        return ctx.cache[key]
    platform = get_platform(model['platform'])
    gatherer = gatherer_for(model)
    side = {'views': None, 'source': None, 'na': None, 'error': None, 'issues': []}
    try:
        if not platform.lossless_dataplane or model.get('qos') is None:
            side['na'] = LAB_NA % platform.title
        elif phase == 'design':
            if gatherer.design_view is None:
                side['na'] = 'the %s gatherer cannot read the rendered configuration' % gatherer.title
            else:
                state = gatherer.design_view(model)
                side.update(views=state['ports'], issues=state['issues'], source=state['source'])
        elif not ctx.state(model['name']).provides('lossless'):
            side['na'] = 'the %s gatherer does not read the lossless configuration' % gatherer.title
        else:
            side['source'] = gatherer.describe('lossless', model)
            state = ctx.state(model['name']).get('lossless')
            side.update(views=state['ports'], issues=state['issues'], source=state['source'])
    except StateError as exc:
        side['error'] = exc
    ctx.cache[key] = side
    return side


# NCCL's NCCL_IB_TC when nothing sets it (NCCL environment variables: "Default is 0").
NCCL_DEFAULT_IB_TC = 0


def _model_host_views(model):
    rnic = model['rnic']
    mapping = {int(dscp): prio for dscp, prio in rnic['dscp_to_priority'].items()}
    # What the applications mark, as rendered: nccl.conf and the RDMA-CM default ToS host_rnic writes.
    marking = [('NCCL_IB_TC (nccl.conf)', model['nccl'].get('NCCL_IB_TC', NCCL_DEFAULT_IB_TC)),
               ('RDMA-CM default ToS', rnic['traffic_class'])]
    return {rail['interface']: {
        'mtu': rnic.get('mtu', model['mtu']), 'trust': rnic['trust'], 'dscp_to_priority': mapping,
        'pfc': sorted(rnic['pfc_priorities']), 'cnp_dscp': rnic['cnp_dscp'], 'cnp_priority': rnic['cnp_priority'],
        'ecn': sorted(rnic.get('ecn_priorities') or []), 'ecn_known': True, 'pause': {'rx': False, 'tx': False},
        'exists': True, 'rdma': True, 'marking': marking, 'marking_error': None,
    } for rail in model['rails']}


def _nccl_marking(ctx, name):
    """(label, NCCL_IB_TC) from the host's /etc/nccl.conf, or a StateError."""
    try:
        conf = ctx.state(name).get('nccl_conf')
    except StateError as exc:
        return exc
    if not conf['present']:
        return ('NCCL_IB_TC (no %s: NCCL default)' % conf['path'], NCCL_DEFAULT_IB_TC)
    value = conf['settings'].get('NCCL_IB_TC')
    if value is None:
        return ('NCCL_IB_TC (not in %s: NCCL default)' % conf['path'], NCCL_DEFAULT_IB_TC)
    try:
        return ('NCCL_IB_TC (%s)' % conf['path'], int(value))
    except ValueError:
        return StateError('nccl_conf', 'NCCL_IB_TC=%r in %s is not a number' % (value, conf['path']))


def _facts_host_views(parsed, nccl):
    views = {}
    for name, data in parsed['interfaces'].items():
        ecn = None
        if data['ecn_rp_priorities'] is not None:
            ecn = sorted(set(data['ecn_rp_priorities']) & set(data['ecn_np_priorities'] or []))
        marking = [] if isinstance(nccl, StateError) else [nccl]
        if data['rdma_cm_tos'] is not None:
            marking.append(('RDMA-CM default ToS', data['rdma_cm_tos']))
        if data['traffic_class'] is not None:
            # MLNX_OFED's global verbs traffic class replaces what every application asks for, NCCL_IB_TC included.
            marking.append(('verbs traffic class (overrides NCCL_IB_TC)', data['traffic_class']))
        views[name] = {
            'mtu': data['mtu'], 'trust': data['trust'], 'dscp_to_priority': data['dscp_to_priority'],
            'pfc': data['pfc_priorities'], 'cnp_dscp': data['cnp_dscp'], 'cnp_priority': data['cnp_priority'],
            'ecn': ecn, 'ecn_known': ecn is not None, 'pause': data['pause'], 'exists': data['exists'],
            'rdma': bool(data['rdma_devices']), 'qos_tool': data['qos_tool'],
            'marking': marking, 'marking_error': nccl if isinstance(nccl, StateError) else None,
        }
    return views


def host_side(ctx, model, phase):
    key = ('host_side', model['name'], phase)
    if key in ctx.cache:
        return ctx.cache[key]
    side = {'views': None, 'source': None, 'na': None, 'error': None}
    if phase == 'design':
        side['source'] = 'host model'
        side['views'] = _model_host_views(model)
    else:
        side['source'] = 'rnic_facts'
        try:
            parsed = ctx.state(model['name']).get('rnic')
            if parsed['not_applicable']:
                side['na'] = parsed['not_applicable']
            else:
                side['views'] = _facts_host_views(parsed, _nccl_marking(ctx, model['name']))
        except StateError as exc:
            side['error'] = exc
    ctx.cache[key] = side
    return side


def _phases(ctx):
    return tuple(ctx.options.get('lossless_phases', PHASES))


def _describe_set(values):
    return '{%s}' % ','.join(str(value) for value in values) if values is not None else 'unknown'


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
    'lossless_dscp_map': (('C01', 'C02'), 'RoCE DSCP mapped to the lossless traffic class', _rule_dscp, False),
    'lossless_pfc': (('C03', 'C18'), 'PFC on exactly the lossless priorities', _rule_pfc, True),
    'lossless_chain': (('C05',), 'TC, priority group and queue chain closes', _rule_chain, False),
    'lossless_buffers': (('C06', 'C07', 'C15', 'C16'), 'Lossless buffers and headroom', _rule_buffers, False),
    'lossless_ecn': (('C08', 'C09'), 'ECN marking on lossless queues', _rule_ecn, False),
    'lossless_cnp': (('C10', 'C11', 'C20'), 'CNP class strict and not lossless', _rule_cnp, False),
    'lossless_watchdog': (('C12', 'C13'), 'PFC watchdog present with sane timers', _rule_watchdog, True),
    'lossless_port_mtu': (('C14',), 'Switch port MTU carries host frames plus VXLAN', _rule_mtu, True),
}


def _switch_rule(check_id):
    rules, _title, func, needs_platform = SWITCH_RULES[check_id]
    rule_text = ','.join(rules)

    def run_rule(ctx, model):
        name = model['name']
        platform = get_platform(model['platform'])
        results = []
        for phase in _phases(ctx):
            side = switch_side(ctx, model, phase)
            if side['na']:
                results.append(Result(name, check_id, 'all ports', NOT_APPLICABLE, 'lossless configuration', '-',
                                      'not applicable: %s' % side['na'], rule=rule_text, category='lossless',
                                      source=phase))
                continue
            if side['error'] is not None:
                results.append(Result(name, check_id, 'all ports [%s]' % phase, ERROR, 'lossless configuration',
                                      side['error'].message, 'state: %s' % side['error'].source, rule=rule_text,
                                      category='lossless', source='%s: %s' % (phase, side['source'])))
                continue
            for item in model['interfaces']:
                subject = '%s [%s]' % (item['name'], phase)
                view = side['views'].get(item['name'])
                if view is None:
                    results.append(Result(name, check_id, subject, FAIL, 'port in the configuration', 'port missing',
                                          rule=rule_text, category='lossless', source='%s: %s' % (phase, side['source'])))
                    continue
                args = (ctx, view, item, platform) if needs_platform else (ctx, view, item)
                ok, want, seen = func(*args)
                results.append(Result(name, check_id, subject, PASS if ok else FAIL, want, seen, rule=rule_text,
                                      category='lossless', source='%s: %s' % (phase, side['source'])))
        return _collapse_na(results)

    run_rule.__name__ = check_id
    return run_rule


def _collapse_na(results):
    """One not-applicable Result per (check, subject, reason) for a device, naming every phase it covers."""
    first, kept = {}, []
    for result in results:
        if result.status == NOT_APPLICABLE:
            key = (result.check, result.subject, result.message)
            if key in first:
                if result.source not in first[key].source.split(' and '):
                    first[key].source += ' and %s' % result.source
                continue
            first[key] = result
        kept.append(result)
    return kept


for _check_id, (_rules, _title, _func, _platform) in SWITCH_RULES.items():
    check(_check_id, _title, 'lossless', SWITCHES, ('lossless',), _rules,
          description='%s (%s), per switch port, on the rendered configuration and on the running one.'
                      % (_title, ', '.join(_rules)))(_switch_rule(_check_id))


@check('lossless_config', 'Switch configuration format and activation', 'lossless', SWITCHES, ('lossless',),
       ('C22', 'C25'), description='CONFIG_DB keys and values in the formats SONiC tools accept (C25) and every '
                                   'lossless port listed in DEVICE_NEIGHBOR so SONiC tools treat it as active (C22).')
def lossless_config(ctx, model):
    name = model['name']
    results = []
    for phase in _phases(ctx):
        side = switch_side(ctx, model, phase)
        subject = 'configuration [%s]' % phase
        if side['na'] or side['error'] is not None:
            status = NOT_APPLICABLE if side['na'] else ERROR
            text = ('not applicable: %s' % side['na']) if side['na'] else 'state: %s' % side['error'].source
            results.append(Result(name, 'lossless_config', 'all ports' if side['na'] else subject, status,
                                  'valid configuration', '-' if side['na'] else side['error'].message, text,
                                  rule='C22,C25', category='lossless', source=phase))
            continue
        problems = list(side['issues'])
        inactive = [port for port, view in sorted(side['views'].items())
                    if view['in_neighbors'] is False and port in {item['name'] for item in model['interfaces']}]
        if inactive:
            problems.append('lossless ports missing from DEVICE_NEIGHBOR: %s (C22)' % ', '.join(inactive))
        results.append(Result(name, 'lossless_config', subject, FAIL if problems else PASS,
                              'SONiC formats (C25), lossless ports in DEVICE_NEIGHBOR (C22)',
                              '; '.join(problems) or 'no format problem', rule='C22,C25', category='lossless',
                              source='%s: %s' % (phase, side['source'])))
    return _collapse_na(results)


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
        text = '%s %d = DSCP %d (NIC priority %s, leaf TC %s)' % (label, value, dscp, nic_map.get(dscp),
                                                                   leaf_map.get(dscp))
        parts.append(text)
        if nic_map.get(dscp) != prio or leaf_map.get(dscp) != prio:
            problems.append(text)
    want = ('every marking (NCCL_IB_TC, RDMA-CM ToS, verbs traffic class) on a DSCP the NIC and the leaf put on '
            'lossless priority %d (designed: DSCP %d, traffic class byte %d)'
            % (prio, profile['roce_dscp'], profile['traffic_class_byte']))
    return not problems, want, ('not lossless: ' + '; '.join(problems)) if problems else '; '.join(parts)


HOST_RULES = {
    'host_switch_dscp': (('C01', 'C04'), 'NIC and leaf agree on every DSCP -> priority', _host_dscp),
    'host_switch_pfc': (('C03', 'C19'), 'NIC and leaf agree on PFC priorities', _host_pfc),
    'host_switch_cnp': (('C10', 'C11'), 'NIC and leaf agree on the CNP class', _host_cnp),
    'host_switch_ecn': (('C08',), 'DCQCN on the NIC, ECN marking on the leaf', _host_ecn),
    'host_switch_mtu': (('C14',), 'NIC MTU fits the leaf port MTU', _host_mtu),
    'host_switch_marking': (('C01', 'C04'), 'The applications mark RoCE with a DSCP both ends treat as lossless',
                            _host_marking),
}


def _host_rule(check_id):
    rules, _title, func = HOST_RULES[check_id]
    rule_text = ','.join(rules)

    def run_rule(ctx, model):
        name = model['name']
        results = []
        for phase in _phases(ctx):
            host = host_side(ctx, model, phase)
            for rail in model['rails']:
                leaf = ctx.model(rail['leaf'])
                subject = '%s <-> %s %s [%s]' % (rail['interface'], rail['leaf'], rail['leaf_interface'], phase)
                leaf_side = switch_side(ctx, leaf, phase)
                source = '%s: %s + %s' % (phase, host['source'], leaf_side['source'] or leaf['platform'])
                reason = ('the leaf: %s' % leaf_side['na']) if leaf_side['na'] else host['na']
                if reason:
                    results.append(Result(name, check_id, 'all rails', NOT_APPLICABLE, 'NIC and leaf agree', '-',
                                          'not applicable: %s' % reason, rule=rule_text, category='lossless',
                                          source=phase))
                    continue
                error = host['error'] or leaf_side['error']
                if error is not None:
                    results.append(Result(name, check_id, subject, ERROR, 'NIC and leaf agree', error.message,
                                          'state: %s' % error.source, rule=rule_text, category='lossless', source=source))
                    continue
                view = host['views'].get(rail['interface'])
                port = leaf_side['views'].get(rail['leaf_interface'])
                if view is None or not view['exists'] or not view['rdma']:
                    results.append(Result(name, check_id, subject, FAIL, 'RDMA NIC on the rail', 'no RDMA device on %s'
                                          % rail['interface'], rule=rule_text, category='lossless', source=source))
                    continue
                if port is None:
                    results.append(Result(name, check_id, subject, FAIL, 'leaf port in the configuration',
                                          '%s missing on %s' % (rail['leaf_interface'], rail['leaf']), rule=rule_text,
                                          category='lossless', source=source))
                    continue
                leaf_item = next((item for item in leaf['interfaces'] if item['name'] == rail['leaf_interface']), {})
                try:
                    ok, want, seen = func(ctx, view, port, leaf_item)
                except StateError as exc:
                    results.append(Result(name, check_id, subject, ERROR, 'NIC and leaf agree', exc.message,
                                          'state: %s' % exc.source, rule=rule_text, category='lossless', source=source))
                    continue
                results.append(Result(name, check_id, subject, PASS if ok else FAIL, want, seen, rule=rule_text,
                                      category='lossless', source=source, link='%s %s' % (name, rail['interface'])))
        return _collapse_na(results)

    run_rule.__name__ = check_id
    return run_rule


for _check_id, (_rules, _title, _func) in HOST_RULES.items():
    check(_check_id, _title, 'lossless', ('host',),
          ('rnic', 'nccl_conf', 'lossless') if _func is _host_marking else ('rnic', 'lossless'), _rules,
          description='%s (%s), per host rail and the leaf port it plugs into, on the design and on the '
                      'gathered state.' % (_title, ', '.join(_rules)), peers=True)(_host_rule(_check_id))


__all__ = ['switch_side', 'host_side', 'SWITCH_RULES', 'HOST_RULES', 'PHASES']
