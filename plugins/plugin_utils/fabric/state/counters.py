# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Platform-neutral counter snapshots and the rates between two of them.

Every gatherer turns its counters into one shape, so the health rules never see a platform:

    {'ports': {port: {metric: count | {index: count} | flag}}}

Metrics (absent when the platform does not count them):
- pfc_rx, pfc_tx            PFC pause frames received / sent, {priority: frames}
- pfc_rx_total, pfc_tx_total  the same summed over priorities (for NOSes that count per port only)
- queue_dropped             egress drops, {queue: packets}
- queue_ecn_marked          packets marked CE by WRED/ECN, {queue: packets}
- pg_dropped                ingress priority-group drops, {pg: packets}
- wd_storms, wd_restored    PFC watchdog storms detected / restored, {queue: count}
- wd_stormed                watchdog currently in storm state, {queue: bool} (a flag, not a counter)
- host NICs: rx_discards_phy, prio_discards {priority: packets}, and the RDMA hw counters np_ecn_marked_roce_packets,
  np_cnp_sent, rp_cnp_handled, out_of_sequence, packet_seq_err, implied_nak_seq_err, local_ack_timeout_err
"""

from __future__ import annotations

from . import StateError

FLAG_METRICS = ('wd_stormed',)
PRIORITY_METRICS = ('pfc_rx', 'pfc_tx', 'prio_discards')


def number(source, value, what):
    """A counter value as int ('1203' -> 1203); StateError names the counter when it is not one."""
    if isinstance(value, bool):
        raise StateError(source, '%s is a flag, not a counter' % what)
    if isinstance(value, int):
        return value
    try:
        return int(str(value).strip())
    except ValueError:
        raise StateError(source, '%s is not a number: %r' % (what, value)) from None


def _rate(first, second, seconds):
    if isinstance(second, dict):
        return {key: _rate((first or {}).get(key) if isinstance(first, dict) else None, value, seconds)
                for key, value in second.items()}
    if isinstance(second, bool) or not isinstance(second, (int, float)):
        return second
    if not isinstance(first, (int, float)) or isinstance(first, bool):
        return None  # not in the first reading: no rate
    delta = second - first
    if delta < 0:  # cleared or wrapped between the readings: count from zero
        delta = second
    return delta / seconds


def rates(first, second, seconds) -> dict:
    """Per-second rates between two snapshots of the same device ({'ports': ...} both)."""
    if seconds is None or seconds <= 0:
        raise StateError('counters', 'the two readings are not apart in time (%s s)' % seconds)
    return {'ports': {port: _rate(first.get('ports', {}).get(port), values, seconds)
                      for port, values in second.get('ports', {}).items()},
            'seconds': round(seconds, 3)}


def indexed(values) -> dict:
    """{index: value} with int indexes ('3' -> 3), as JSON round trips turn them into strings."""
    result = {}
    for key, value in (values or {}).items():
        try:
            result[int(key)] = value
        except (TypeError, ValueError):
            result[key] = value
    return result


def metric(port_counters, name, index=None):
    """A metric of one port (rates or counts), None when the platform does not report it."""
    value = (port_counters or {}).get(name)
    if index is None or not isinstance(value, dict):
        return value if index is None else None
    return indexed(value).get(index)


__all__ = ['number', 'rates', 'indexed', 'metric', 'FLAG_METRICS', 'PRIORITY_METRICS']
