# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The lossless part of the design: the fabric-wide profile (DSCP -> TC -> PG -> queue, PFC, ECN, scheduler, watchdog),
ECN thresholds per port speed, and the headroom and buffer budget of every switch with a lossless data plane."""

from __future__ import annotations

from ..asic import get_asic
from ..intent import idle_traffic_classes
from ..platforms import get_platform
from ..switch_models import get_model

ROLE_LABEL = {'host': 'GPU server', 'leaf': 'leaf', 'spine': 'spine', 'super_spine': 'super-spine'}
# RoCEv2 UDP destination port, announced with its priority in the LLDP application TLV (IEEE 802.1Qaz).
ROCE_UDP_PORT = 4791
# A SKU's shared pools shrink to make room for headroom down to 1/4 of their default, no further.
MIN_SHRUNK_POOL_DIVISOR = 4
# ECN maximum threshold cap: a tenth of the ASIC buffer, so one marking queue cannot claim the shared buffer before
# it marks (and the egress dynamic threshold still lets the queue reach it).
ECN_MAX_BUFFER_DIVISOR = 10


def traffic_class_byte(dscp: int) -> int:
    """IPv4 ToS / RoCE GRH traffic class for a DSCP with ECT(0) set: 26 -> 106 (doRoCE, lshca)."""
    return (dscp << 2) | 0b10


def build_lossless_profile(intent) -> dict:
    """Fabric-wide DSCP -> TC -> PG -> queue maps, PFC, ECN, scheduler and watchdog, shared by every device."""
    spec = intent['lossless']
    priorities = list(spec['pfc']['priorities'])
    roce_priority = priorities[0]
    cnp = spec['cnp_priority']
    dscp_to_tc = {dscp: spec['default_traffic_class'] for dscp in range(64)}
    dscp_to_tc.update((entry['dscp'], entry['traffic_class']) for entry in spec['dscp_map'])
    dscp_to_tc[spec['roce_dscp']] = roce_priority
    dscp_to_tc[spec['cnp_dscp']] = cnp
    tc_to_pg = {tc: (tc if tc in priorities else 0) for tc in range(8)}
    # The DSCP each traffic class stands for when a VTEP derives the outer VXLAN DSCP from the class (platforms that
    # cannot copy the inner DSCP): RoCE and CNP classes their own DSCP, any other class the first DSCP mapped to it.
    tc_to_dscp = {}
    for dscp in range(64):
        tc_to_dscp.setdefault(dscp_to_tc[dscp], dscp)
    tc_to_dscp[roce_priority] = spec['roce_dscp']
    tc_to_dscp[cnp] = spec['cnp_dscp']
    watchdog = dict(spec['pfc']['watchdog'])
    return {
        'roce_dscp': spec['roce_dscp'],
        'cnp_dscp': spec['cnp_dscp'],
        'lossless_priorities': priorities,
        'roce_priority': roce_priority,
        'cnp_priority': cnp,
        'default_traffic_class': spec['default_traffic_class'],
        'lossy_traffic_classes': [tc for tc in range(8) if tc not in priorities and tc != cnp],
        'traffic_class_byte': traffic_class_byte(spec['roce_dscp']),
        'dscp_to_tc': dscp_to_tc,
        'tc_to_pg': tc_to_pg,
        'tc_to_dscp': dict(sorted(tc_to_dscp.items())),
        'tc_to_queue': {tc: tc for tc in range(8)},
        'pfc_to_queue': {priority: priority for priority in range(8)},
        'pfc_to_pg': {priority: priority for priority in priorities},
        'pfc_mask': [1 if priority in priorities else 0 for priority in range(8)],
        # LLDP application priority TLV: RoCEv2 (UDP 4791) on the RoCE priority, sent on host-facing ports.
        'lldp_app_priorities': [{'protocol': 'udp', 'port': ROCE_UDP_PORT, 'priority': roce_priority}],
        'ecn': dict(spec['ecn']),
        'scheduler': dict(spec['scheduler']),
        'tc_bandwidth_percent': _tc_bandwidth_percent(priorities, spec['default_traffic_class'], spec['scheduler'],
                                                      idle_traffic_classes(spec)),
        'watchdog': watchdog,
        'mtu': dict(spec['mtu']),
        'buffer': dict(spec['buffer']),
    }


def _tc_bandwidth_percent(priorities, default_tc, scheduler, idle) -> dict:
    """DWRR/ETS percent per traffic class: the lossless share split over the lossless TCs (remainder to the
    first), the lossy share to the default TC less 1 % for each class no DSCP maps to. Those idle classes get a
    DWRR share instead of strict priority, so the CNP class is the only strict one and nothing can starve the
    others (intent validation keeps the lossy share above the idle count). ETS percentages sum to 100."""
    share, remainder = divmod(scheduler['lossless_weight_percent'], len(priorities))
    weights = {tc: share + (1 if index < remainder else 0) for index, tc in enumerate(priorities)}
    weights[default_tc] = scheduler['lossy_weight_percent'] - len(idle)
    weights.update((tc, 1) for tc in idle)
    return dict(sorted(weights.items()))


def ecn_thresholds(spec: dict, speed_gbps: int, asic=None) -> dict:
    """ECN thresholds of one port: the intent values at reference_speed_gbps scaled linearly with the port speed
    (the same queueing delay on every port: 150 KB at 100G is 12 us), rounded up to whole ASIC buffer cells and
    the maximum capped at a tenth of the ASIC buffer; or the intent values as given when scale_with_speed is off."""
    low, high = spec['min_threshold_bytes'], spec['max_threshold_bytes']
    if spec['scale_with_speed']:
        low = -(-low * speed_gbps // spec['reference_speed_gbps'])
        high = -(-high * speed_gbps // spec['reference_speed_gbps'])
        if asic is not None:
            cell = asic.cell_bytes
            low, high = -(-low // cell) * cell, -(-high // cell) * cell
            high = min(high, asic.buffer_bytes // ECN_MAX_BUFFER_DIVISOR // cell * cell)
            low = min(low, high // 2)
    return {'min_threshold_bytes': low, 'max_threshold_bytes': high,
            'mark_probability_percent': spec['mark_probability_percent']}


class Buffers:
    """Headroom per lossless priority group and the budget of every switch with a lossless data plane, checked
    against its real pool; the ECN thresholds of its ports."""

    def __init__(self, intent, lossless, switches, issues):
        self.intent = intent
        self.lossless = lossless
        self._ecn_cache = {}
        self._compute_buffers(switches, issues)

    def _compute_buffers(self, switches, issues):
        """Headroom per lossless priority group and the summed budget per switch, checked against the real pool.

        A platform that renders the SKU's buffers (Platform.sku_buffers): the pools are the SKU's own
        (sonic-buildimage device/*/buffers_defaults_t1.j2 of the model), sized for the headroom by sku_pools().
        Independent headroom (Spectrum) reserves each PG's full size outside the shared ingress pools, so the sum of
        sizes must fit what the SKU's total buffer (its egress lossless pool) leaves beside them; a shared headroom
        pool (Broadcom) holds every PG's xoff inside the ingress pool. Other NOSes size pools themselves; the check
        uses the ASIC's datasheet buffer times lossless_pool_percent (a NOS that takes that percent renders it as its
        traffic pool).
        """
        buffer_spec = self.intent['lossless']['buffer']
        mtu = self.intent['lossless']['mtu']['switch']
        priorities = len(self.lossless['lossless_priorities'])
        cache = {}
        self.buffer_budget = {}
        over = {}  # role -> [switch count, worst (excess, name, needed, room)]
        # A switch's budget depends on its hardware and its links' speeds and cable lengths, in port order, only: the
        # switches of a generated fabric come in a few such shapes (about 0.2 s of a 3,328-device design saved).
        by_shape = {}
        for node in switches:
            if not get_platform(node.platform).lossless_dataplane:
                continue
            shape = (node.platform, node.model, node.asic,
                     tuple([(link.speed_gbps, link.cable_length_m) for link in node.links]))
            known = by_shape.get(shape)
            if known is None:
                known = by_shape[shape] = self._switch_budget(node, cache, buffer_spec, mtu, priorities)
            total, budget, room_for_headroom = known
            budget = _own_budget(budget)  # each switch its own dicts, as when each was computed alone
            self.buffer_budget[node.name] = budget
            if total > room_for_headroom:
                entry = over.setdefault(node.role, [0, None])
                entry[0] += 1
                candidate = (total - room_for_headroom, node.name, total, room_for_headroom, budget)
                if entry[1] is None or candidate[:4] > entry[1][:4]:
                    entry[1] = candidate
        self.headroom = cache
        for role, (count, (_unused, name, total, room, budget)) in over.items():
            issues.add('lossless.buffer', self.intent['lossless']['buffer'], over_message(
                count, ROLE_LABEL[role], name, total, room, budget, len(self.lossless['lossless_priorities'])))

    def _switch_budget(self, node, cache, buffer_spec, mtu, priorities):
        """(headroom bytes, budget, bytes left for headroom) of one switch with a lossless data plane; `cache` holds
        the headroom per (model or ASIC, speed, cable length)."""
        asic = get_asic(node.asic)
        model = get_model(node.model) if node.model else None
        lookup = model.headroom_lookup if model else None
        shared = asic.shared_headroom(lookup)
        total = 0
        for link in node.links:
            key = (node.model or node.asic, link.speed_gbps, link.cable_length_m)
            room = cache.get(key)
            if room is None:
                room = cache[key] = asic.headroom(link.speed_gbps, link.cable_length_m, mtu,
                                                  buffer_spec['lossless_mtu'], buffer_spec['small_packet_percent'],
                                                  lookup=lookup, shared_headroom=shared)
            # Shared-headroom ASICs reserve only xoff in the pool; the others reserve the full size.
            total += (room.xoff if shared else room.size) * priorities
        platform = get_platform(node.platform)
        sku, source = (platform.sku_buffers(model) if platform.sku_buffers and model else None) or (None, None)
        budget = {'headroom_bytes': total, 'shared_headroom': shared, 'pool_source': 'asic datasheet',
                  'pools': None, 'sku': None, 'reserved_bytes': 0}
        if sku:
            reserved, what = 0, ''
            if platform.buffer_reserves and not shared:
                reserved, what = platform.buffer_reserves(model, asic, _port_lanes(node, model, asic),
                                                          self._lossy_pgs(), len(node.links))
            pools, note, room_for_headroom = sku_pools(sku, total, shared, buffer_spec['pool_bytes'], reserved)
            pool = pools[sku['ingress_lossless_pool']]['size']
            budget.update(pool_source=source + note, pools=pools, sku=sku, reserved_bytes=reserved,
                          reserved=what, egress_lossless_pool_bytes=pools[sku['egress_lossless_pool']]['size'])
        else:
            pool = buffer_spec['pool_bytes'] or asic.buffer_bytes * buffer_spec['lossless_pool_percent'] // 100
            budget.update(egress_lossless_pool_bytes=asic.buffer_bytes)
            room_for_headroom = pool
        budget.update(pool_bytes=pool, headroom_room_bytes=max(room_for_headroom, 0))
        return total, budget, room_for_headroom

    def _lossy_pgs(self):
        """How many lossy priority groups a port has (every PG the TCs map to that is not lossless)."""
        tc_to_pg = self.lossless['tc_to_pg']
        lossless = set(self.lossless['lossless_priorities'])
        return len({pg for pg in tc_to_pg.values() if pg not in lossless})

    def room(self, node, link):
        """The headroom (xon, xoff, size) of `link`'s lossless PGs on `node`, or None (no lossless data plane)."""
        return self.headroom.get((node.model or node.asic, link.speed_gbps, link.cable_length_m))

    def ecn(self, asic, speed_gbps):
        """ECN thresholds per (ASIC, speed), computed once: every port of that kind shares the same dict."""
        key = (asic, speed_gbps)
        ecn = self._ecn_cache.get(key)
        if ecn is None:
            ecn = self._ecn_cache[key] = ecn_thresholds(self.intent['lossless']['ecn'], speed_gbps,
                                                        get_asic(asic) if asic else None)
        return ecn

    def buffer_model(self, node, interfaces):
        budget = self.buffer_budget.get(node.name)
        if budget is None:
            return None
        profiles = {}
        for item in interfaces:
            room = item['headroom']
            name = 'pg_lossless_%d_%dm_profile' % (item['speed_gbps'] * 1000, item['cable_length_m'])
            item['buffer_profile'] = name
            profiles[name] = dict(room, name=name, speed_gbps=item['speed_gbps'], cable_length_m=item['cable_length_m'])
        return dict(budget, profiles=sorted(profiles.values(), key=lambda profile: profile['name']),
                    asic_buffer_bytes=get_asic(node.asic).buffer_bytes)


def _own_budget(budget):
    """A copy of a switch budget that shares no dict another switch could change (its pools and SKU objects too)."""
    budget = dict(budget)
    if budget['pools'] is not None:
        budget['pools'] = {name: dict(fields) for name, fields in budget['pools'].items()}
    if budget['sku'] is not None:
        budget['sku'] = dict(budget['sku'])
    return budget


def _port_lanes(node, model, asic):
    """The lane count of every port of the switch that is up once deployed, its fabric ports first: the ports of its
    links, then every cage they leave unused (whole: a factory switch has every port up, and the deploy keeps the
    ports it does not use)."""
    used = [asic.lanes(link.speed_gbps) for link in node.links]
    cages = 0
    for lanes in set(used):
        per_cage = max(model.lanes // lanes, 1)
        cages += -(-used.count(lanes) // per_cage)
    return used + [model.lanes] * max(model.port_count - cages, 0)


def over_message(count, role, name, total, room, budget, priorities):
    """Why `name` (the worst of `count` switches of its role) cannot hold its lossless headroom, with the numbers and
    what to change."""
    reserved = budget.get('reserved_bytes') or 0
    where = budget['pool_source'] + ('; SONiC reserves %d B beside them: %s' % (reserved, budget['reserved'])
                                     if reserved else '')
    return ('%d %s(s) need more lossless headroom than the buffer holds; worst %s needs %d bytes (%d lossless '
            'priorit%s) where %d are left (%s). Use fewer lossless priorities, shorter cables, fewer lossless ports '
            'per switch, or a larger lossless_pool_percent or pool_bytes where they apply'
            % (count, role, name, total, priorities, 'y' if priorities == 1 else 'ies', room, where))


def sku_pools(sku, total, shared, pool_bytes, reserved=0):
    """(pools, note for pool_source, bytes left for headroom) of a SKU's pools holding `total` bytes of headroom.
    The pools are the SKU's (sku['pools'], Platform.sku_buffers); an explicit pool_bytes sizes its ingress lossless
    pool (sku['ingress_lossless_pool']).

    Shared headroom (Broadcom SKUs): every PG's xoff sits in the ingress lossless pool's shared headroom pool, which is
    the SKU's own or the design's headroom where that needs more. Independent headroom (Spectrum): the SKU's total
    buffer (its egress lossless pool, sku['egress_lossless_pool']) holds the ingress pools, every PG's reserved
    headroom and what the NOS reserves beside them (`reserved`, Platform.buffer_reserves). The shared pools get what
    is left, split over the ingress pools, as SONiC's Mellanox calculator sizes them (sonic-swss
    cfgmgr/buffer_pool_mellanox.lua: the ingress pools and the egress lossy pool alike): always where the switch
    computes them (sku['dynamic']), otherwise only when the SKU's defaults leave too little. Never below a quarter of
    the SKU's default: below that the lossless class would pause at every burst.
    """
    pools = {name: dict(fields) for name, fields in sku['pools'].items()}
    ingress = pools[sku['ingress_lossless_pool']]
    if pool_bytes:
        ingress['size'] = pool_bytes
    if shared:
        ingress['xoff'] = max(ingress.get('xoff', 0), total)
        return pools, '', ingress['size']
    ingress_pools = [fields for fields in pools.values() if fields['type'] == 'ingress']
    mmu = pools[sku['egress_lossless_pool']]['size']
    room = mmu - reserved - sum(fields['size'] for fields in ingress_pools)
    if pool_bytes or (room >= total and not sku.get('dynamic')):
        return pools, '', room
    floor = sku['pools'][sku['ingress_lossless_pool']]['size'] // MIN_SHRUNK_POOL_DIVISOR
    size = max((mmu - reserved - total) // len(ingress_pools), floor)
    for name, fields in pools.items():
        if name != sku['egress_lossless_pool']:
            fields['size'] = size
    # the headroom may take what the buffer leaves once the reserves and the pools at their floor are out
    room = mmu - reserved - floor * len(ingress_pools)
    if sku.get('dynamic'):
        return pools, ', shared pools computed by the switch (%d B each)' % size, room
    return pools, ', shared pools shrunk to fit the headroom', room if size == floor else mmu - reserved - size * len(
        ingress_pools)
