# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The data-plane marking probe: what a host sent (aifabric.fabric.dscp_probe, one result per rail) and what a
switch captured on its links (aifabric.fabric.dscp_capture, collected with async_status).

The validate role runs both between gathering and judging (the capture has to listen while the host sends), so
these keys are filled from the role's registered results, not from a command of the gatherer.
"""

from __future__ import annotations

from . import StateError, require_mapping
from .gatherer import Source
from .schema import MarkingCapture, MarkingProbe

PROBE = 'aifabric.fabric.dscp_probe'
CAPTURE = 'aifabric.fabric.dscp_capture'


def _module_result(source, result):
    if result is None:
        raise StateError(source, 'not run')
    require_mapping(source, result)
    if result.get('skipped'):
        raise StateError(source, 'not run (task skipped)')
    if result.get('failed') or result.get('unreachable'):
        raise StateError(source, 'failed: %s' % result.get('msg', 'no message'))
    return result


def parse_marking_probe(result) -> list[MarkingProbe]:
    """[{source, destination, port, sent: [{dscp, ecn, tos, packets}]}] of the registered dscp_probe task (a loop
    result with `results`, or one result)."""
    result = _module_result(PROBE, result)
    items = result['results'] if isinstance(result.get('results'), list) else [result]
    probes: list[MarkingProbe] = []
    for item in items:
        item = _module_result(PROBE, item)
        if 'sent' not in item:
            raise StateError(PROBE, 'no `sent` in the result')
        probes.append({'source': item.get('source'), 'destination': item.get('destination'), 'port': item.get('port'),
                       'sent': item['sent']})
    return probes


def parse_marking_capture(result) -> MarkingCapture:
    """{interfaces, packets, seconds} of the registered async_status of a dscp_capture job."""
    result = _module_result(CAPTURE, result)
    if not result.get('finished', True):
        raise StateError(CAPTURE, 'the capture did not finish')
    if not isinstance(result.get('packets'), list):
        raise StateError(CAPTURE, 'no `packets` list in the result')
    return {'interfaces': list(result.get('interfaces') or []), 'packets': result['packets'],
            'seconds': result.get('seconds')}


PROBE_SOURCE = Source('marking_probe', None, parse_marking_probe, label=PROBE)
CAPTURE_SOURCE = Source('marking_capture', None, parse_marking_capture, label=CAPTURE)

__all__ = ['parse_marking_probe', 'parse_marking_capture', 'PROBE_SOURCE', 'CAPTURE_SOURCE']
