# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Validation verdicts and lossless counters as a Prometheus text-exposition file (format 0.0.4), for
node_exporter's textfile collector (--collector.textfile.directory) or any scraper of *.prom files.

Written atomically (a temporary file in the same directory, then rename), so a scrape never reads half a file.
Label values are escaped as the format requires (backslash, double quote, newline). Metrics:

- aifabric_validation_ok{fabric}                      1 when checks ran and none failed or errored, else 0
- aifabric_validation_results{fabric,check,status}    results per check and status
- aifabric_validation_failures{fabric,device,check}   failed or errored results per device and check (non-zero only)
- aifabric_validation_timestamp_seconds{fabric}       when the validation ran
- per link end (labels fabric, device, port, peer, peer_port), from the second counter reading and the rates:
  aifabric_pfc_pause_frames_total / _per_second {direction="rx|tx", priority}; aifabric_pfc_watchdog_storms_total
  {queue}; aifabric_pfc_watchdog_stormed{queue} (0/1); aifabric_lossless_drops_total / _per_second {kind, index};
  aifabric_ecn_marked_packets_total / _per_second {queue}; aifabric_rdma_counter_total / _per_second {counter}
"""

from __future__ import annotations

import os
import re
import tempfile

from . import STATUSES
from .judged import Judged

_NAME = re.compile(r'^[a-zA-Z_:][a-zA-Z0-9_:]*$')
_LABEL = re.compile(r'^[a-zA-Z_][a-zA-Z0-9_]*$')
PAUSE = (('pfc_rx', 'rx'), ('pfc_tx', 'tx'))
PAUSE_TOTAL = (('pfc_rx_total', 'rx'), ('pfc_tx_total', 'tx'))
DROPS = (('queue_dropped', 'queue_packets'), ('queue_dropped_bytes', 'queue_bytes'), ('pg_dropped', 'pg_packets'),
         ('pg_dropped_bytes', 'pg_bytes'), ('prio_discards', 'nic_priority_packets'))
ECN = (('queue_ecn_marked', 'queue'), ('ecn_marked_total', 'port'))
RDMA = ('np_ecn_marked_roce_packets', 'np_cnp_sent', 'rp_cnp_handled', 'out_of_sequence', 'packet_seq_err',
        'implied_nak_seq_err', 'local_ack_timeout_err', 'rx_discards_phy')
HELP = {
    'aifabric_validation_ok': ('gauge', '1 when validation ran checks and none failed or errored, else 0'),
    'aifabric_validation_results': ('gauge', 'Validation results per check and status'),
    'aifabric_validation_failures': ('gauge', 'Failed or errored validation results per device and check'),
    'aifabric_validation_timestamp_seconds': ('gauge', 'Unix time of the validation run'),
    'aifabric_pfc_pause_frames_total': ('counter', 'PFC pause frames a port received or sent (second reading)'),
    'aifabric_pfc_pause_frames_per_second': ('gauge', 'PFC pause frames per second between the two readings'),
    'aifabric_pfc_watchdog_storms_total': ('counter', 'PFC watchdog storms detected on a queue'),
    'aifabric_pfc_watchdog_stormed': ('gauge', '1 while the PFC watchdog holds a queue in storm state'),
    'aifabric_lossless_drops_total': ('counter', 'Drops counted on a lossless queue, priority group or NIC priority'),
    'aifabric_lossless_drops_per_second': ('gauge', 'Drops per second on a lossless queue, priority group or NIC priority'),
    'aifabric_ecn_marked_packets_total': ('counter', 'Packets marked CE by a switch queue or port'),
    'aifabric_ecn_marked_packets_per_second': ('gauge', 'Packets marked CE per second'),
    'aifabric_rdma_counter_total': ('counter', 'RDMA NIC congestion and error counters (mlx5 hw_counters, ethtool)'),
    'aifabric_rdma_counter_per_second': ('gauge', 'RDMA NIC congestion and error counters per second'),
}


def escape(value) -> str:
    return str(value).replace('\\', '\\\\').replace('\n', '\\n').replace('"', '\\"')


def _number(value) -> str:
    if isinstance(value, bool):
        return '1' if value else '0'
    if isinstance(value, int):
        return str(value)
    return repr(float(value))


class Exposition:
    """Samples grouped by metric name, rendered with one HELP and TYPE line per metric. Each sample is rendered to its
    line as it is added (a fleet's textfile has millions: no label dictionary is kept) and a metric's lines go, a
    batch at a time, to a temporary file of its own once they pass `in_memory` bytes, so the text of a fabric's
    textfile (hundreds of MB) is never held; it comes out one metric at a time (`chunks()`), to be written as it is
    read."""

    BATCH = 4096  # lines a metric keeps before they are appended to its text
    READ = 1 << 20  # characters chunks() gives at once

    def __init__(self, in_memory=1 << 20):
        self.in_memory = in_memory
        self.samples = {}  # metric name -> its lines not yet appended to its text
        self._texts = {}  # metric name -> its text so far (a spooled temporary file)
        self._escaped = {}  # label value -> its escaped text (device and port names repeat on every sample)
        self._label_names = set()  # label-name tuples found valid
        self._kinds = {}  # kind_text()

    def _label_text(self, labels) -> str:
        names = tuple(labels)
        if names not in self._label_names:
            for label in names:
                if not _LABEL.match(label):
                    raise ValueError('not a label name: %r' % label)
            self._label_names.add(names)
        escaped = self._escaped
        parts = []
        for key, value in labels.items():
            text = escaped.get(value) if isinstance(value, str) else None
            if text is None:
                text = escape(value)
                if isinstance(value, str):
                    escaped[value] = text
            parts.append('%s="%s"' % (key, text))
        return ','.join(parts)

    def add(self, name, labels, value):
        if value is not None:
            self.add_labelled(name, self._label_text(labels), value)

    def kind_text(self, labels) -> str:
        """_label_text() of labels that repeat on every link end (direction and priority, queue, kind and index):
        made once per exposition."""
        key = tuple(labels.items())
        text = self._kinds.get(key)
        if text is None:
            text = self._kinds[key] = self._label_text(labels)
        return text

    def labels_text(self, labels, prefix=None) -> str:
        """The label text of `labels` after `prefix` (the text of labels every sample of a link end shares, made
        once: the samples of a fleet are millions)."""
        text = self._label_text(labels)
        return text if prefix is None else '%s,%s' % (prefix, text) if text else prefix

    def add_labelled(self, name, label_text, value):
        """add() with the label text already made (labels_text())."""
        if value is None:
            return
        lines = self.samples.get(name)
        if lines is None:
            if not _NAME.match(name) or name not in HELP:
                raise ValueError('not a declared metric name: %r' % name)
            lines = self.samples[name] = []
        lines.append('%s{%s} %s\n' % (name, label_text, _number(value)))
        if len(lines) >= self.BATCH:
            self._append(name)

    def _append(self, name):
        text = self._texts.get(name)
        if text is None:
            text = self._texts[name] = tempfile.SpooledTemporaryFile(  # pylint: disable=consider-using-with
                max_size=self.in_memory, mode='w+', encoding='utf-8', newline='')
        text.write(''.join(self.samples[name]))
        self.samples[name] = []

    def chunks(self):
        """The exposition text, one metric (HELP, TYPE and its samples) at a time, in pieces of at most READ
        characters of samples."""
        for name in sorted(self.samples):
            kind, help_text = HELP[name]
            yield '# HELP %s %s\n# TYPE %s %s\n' % (name, help_text.replace('\\', '\\\\').replace('\n', '\\n'), name, kind)
            text = self._texts.get(name)
            if text is not None:
                text.seek(0)
                piece = text.read(self.READ)
                while piece:
                    yield piece
                    piece = text.read(self.READ)
                text.seek(0, os.SEEK_END)  # more samples may be added after
            yield ''.join(self.samples[name])

    def text(self) -> str:
        return ''.join(self.chunks())


def _indexed(values):
    return sorted(((str(index), value) for index, value in (values or {}).items()), key=lambda item: item[0])


def add_counters(exposition, fabric, device, port, peer, peer_port, totals, rates):
    """Samples of one link end: cumulative values of the second reading and the rates."""
    base = exposition.labels_text({'fabric': fabric, 'device': device, 'port': port, 'peer': peer,
                                   'peer_port': peer_port})
    rates = rates or {}
    add = exposition.add_labelled

    def labels(**extra):
        return '%s,%s' % (base, exposition.kind_text(extra))

    for metric, direction in PAUSE:
        for index, value in _indexed(totals.get(metric)):
            text = labels(direction=direction, priority=index)
            add('aifabric_pfc_pause_frames_total', text, value)
            add('aifabric_pfc_pause_frames_per_second', text, (rates.get(metric) or {}).get(int(index)))
    for metric, direction in PAUSE_TOTAL:
        if totals.get(metric) is not None:
            text = labels(direction=direction, priority='all')
            add('aifabric_pfc_pause_frames_total', text, totals[metric])
            add('aifabric_pfc_pause_frames_per_second', text, rates.get(metric))
    for index, value in _indexed(totals.get('wd_storms')):
        add('aifabric_pfc_watchdog_storms_total', labels(queue=index), value)
    for index, value in _indexed(totals.get('wd_stormed')):
        add('aifabric_pfc_watchdog_stormed', labels(queue=index), bool(value))
    for metric, kind in DROPS:
        for index, value in _indexed(totals.get(metric)):
            text = labels(kind=kind, index=index)
            add('aifabric_lossless_drops_total', text, value)
            add('aifabric_lossless_drops_per_second', text, (rates.get(metric) or {}).get(int(index)))
    for metric, scope in ECN:
        values = totals.get(metric)
        items = _indexed(values) if isinstance(values, dict) else ([('all', values)] if values is not None else [])
        for index, value in items:
            text = labels(queue=index if scope == 'queue' else 'all')
            rate = rates.get(metric)
            add('aifabric_ecn_marked_packets_total', text, value)
            add('aifabric_ecn_marked_packets_per_second', text,
                rate.get(int(index)) if isinstance(rate, dict) else rate)
    for name in RDMA:
        if totals.get(name) is not None:
            text = labels(counter=name)
            add('aifabric_rdma_counter_total', text, totals[name])
            add('aifabric_rdma_counter_per_second', text, rates.get(name))


def build(fabric, results, summary, timestamp, links=()) -> str:
    """The exposition text. `links`: [(device, port, peer, peer_port, totals, rates)] of every link end."""
    return exposition_of(fabric, results, summary, timestamp, links).text()


def exposition_of(fabric, results, summary, timestamp, links=()) -> Exposition:
    """build() as an Exposition (`results`: a list, or the Judged of checks.judge()), to write one metric at a time (a fleet's textfile is hundreds of MB)."""
    exposition = Exposition()
    exposition.add('aifabric_validation_ok', {'fabric': fabric}, bool(summary['ok'] and summary['checks_run'] > 0))
    exposition.add('aifabric_validation_timestamp_seconds', {'fabric': fabric}, float(timestamp))
    judged = results if isinstance(results, Judged) else Judged.of(results, lambda _device: '')
    per_check, failures = judged.by_check, judged.problem_counts()
    for check_id in sorted(per_check):
        for status in STATUSES:
            exposition.add('aifabric_validation_results', {'fabric': fabric, 'check': check_id, 'status': status},
                           per_check[check_id][status])
    for (device, check_id), count in sorted(failures.items()):
        exposition.add('aifabric_validation_failures', {'fabric': fabric, 'device': device, 'check': check_id}, count)
    for device, port, peer, peer_port, totals, rates in links:
        add_counters(exposition, fabric, device, port, peer, peer_port, totals or {}, rates)
    return exposition


def write(path, text) -> str:
    """Write `text` (a str or an Exposition) atomically: a temporary file in the target directory, then rename over the target."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix='.%s.' % os.path.basename(path), suffix='.tmp', dir=directory)
    try:
        with os.fdopen(handle, 'w', encoding='utf-8') as stream:
            for chunk in [text] if isinstance(text, str) else text.chunks():
                stream.write(chunk)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    return path


__all__ = ['build', 'exposition_of', 'write', 'escape', 'Exposition', 'add_counters']
