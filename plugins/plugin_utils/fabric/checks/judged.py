# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The results of a validation run as its readers need them, filled as the checks produce them.

A fabric of thousands of devices gives millions of results, nearly all passes. Everything that reads them (the
verdict, report.json, report.md, the HTML report, the Prometheus textfile, the root-cause engine) needs every failure,
error and not-applicable result whole, but of the passes only counts per check, device and link, their aggregate
per check and device group, and of a few checks which subjects passed. So the passes are counted as they come and
kept whole only while the run is small enough for report.json to list every result (`keep_passes`). So are the errors
of a device that could not be read at all (each check of it says so): past that size, the first is kept whole (the
root cause names the device from it) and the others are counted per device and check, so a fabric whose devices are
unreachable is a report of its devices, not of every check of each.
"""

from __future__ import annotations

from .base import ERROR, FAIL, NOT_APPLICABLE, PASS, STATUSES

# Above this many results, report.json aggregates the passes per check and device group (every failure stays).
FULL_RESULTS = 20000
_LINK_ORDER = {FAIL: 0, ERROR: 1, PASS: 2}


def worse(old, new):
    """The worse of two statuses of a link (fail, then error, then pass)."""
    return new if old is None or _LINK_ORDER[new] < _LINK_ORDER[old] else old


def device_group_of(design):
    """device -> 'leaf sonic', 'host': the group its passes are aggregated in (a name the design lacks: host)."""
    def group(name):
        node = design.nodes.get(name)
        return 'host' if node is None or node.role == 'host' else '%s %s' % (node.role, node.platform)
    return group


def unread_device(result):
    """The device of an error that says its device could not be read at all (None for any other result)."""
    if result.status != ERROR or not result.facts:
        return None
    facts = result.facts
    return result.device if facts.get('whole_device') and facts.get('unreadable') == result.device else None


class Judged:
    """Results added one by one: `results` holds every result that is not a pass, in the order added, and the passes
    too while there are at most `keep_passes` results in all; the counts cover every result."""

    def __init__(self, group_of, keep_passes=FULL_RESULTS, remember=frozenset()):
        """`group_of(device)`: the device group passes are aggregated in ('leaf sonic', 'host'); `keep_passes`: how
        many results in all still keep the passes whole (None: always); `remember`: the checks whose passed subjects
        the root-cause engine asks about (`passed_keys`)."""
        self.group_of = group_of
        self.keep_passes = keep_passes
        self.remember = frozenset(remember)
        self.results = []
        self.total = 0
        self.counts = {status: 0 for status in STATUSES}
        self.by_check = {}  # check -> {status: count}
        self.by_device = {}  # device -> {status: count}, in the order devices first gave a result
        self.links = {}  # 'device port' of a link's lower end -> the worst status of a result about it
        self.passed_groups = {}  # (check, device group) -> {check, group, results, devices (a set), example}
        self.passed_keys = set()  # (device, check, subject) of the passes of the remembered checks
        self.unread = {}  # device -> {'errors', 'checks': {check: errors}, 'seen'}: its errors counted, not kept (aggregated)
        self.passes_kept = True  # every result kept whole (False: passes and the unread devices' errors aggregated)
        self._groups = {}  # device -> its group

    @classmethod
    def of(cls, results, group_of, remember=frozenset()):
        """A list of results judged as one run (report.build and the causes of a run made by checks.run)."""
        judged = cls(group_of, remember=remember)
        judged.extend(results)
        return judged

    @property
    def aggregated(self) -> bool:
        """Whether the passes are counted only (report.json lists their aggregates, not each one)."""
        return not self.passes_kept

    @property
    def checks_run(self) -> int:
        return self.total - self.counts[NOT_APPLICABLE]

    def problems(self):
        """The failed and errored results kept whole, in the order added."""
        return [result for result in self.results if result.status in (FAIL, ERROR)]

    def problem_counts(self) -> dict:
        """(device, check) -> how many of its results failed or errored, those counted only (`unread`) included."""
        counts = {}
        for result in self.problems():
            if unread_device(result) not in self.unread:  # an unread device's kept first error is in its counts
                key = (result.device, result.check)
                counts[key] = counts.get(key, 0) + 1
        for device, entry in self.unread.items():
            for check, errors in entry['checks'].items():
                counts[(device, check)] = counts.get((device, check), 0) + errors
        return counts

    def unread_devices(self) -> list:
        """The devices whose errors are counted, not kept: {device, errors, checks, seen} each, by device."""
        return [{'device': device, 'errors': entry['errors'], 'checks': len(entry['checks']), 'seen': entry['seen']}
                for device, entry in sorted(self.unread.items())]

    def extend(self, results):
        for result in results:
            self.add(result)

    def add(self, result):
        status, device, check = result.status, result.device, result.check
        self.total += 1
        self.counts[status] += 1
        entry = self.by_check.get(check)
        if entry is None:
            entry = self.by_check[check] = {state: 0 for state in STATUSES}
        entry[status] += 1
        entry = self.by_device.get(device)
        if entry is None:
            entry = self.by_device[device] = {state: 0 for state in STATUSES}
        entry[status] += 1
        if result.link and status != NOT_APPLICABLE:
            self.links[result.link] = worse(self.links.get(result.link), status)
        if self.passes_kept and self.keep_passes is not None and self.total > self.keep_passes:
            self._aggregate()
        if status == PASS:
            self._count_pass(result)
        if self.passes_kept or self._kept_aggregated(result):
            self.results.append(result)

    def _aggregate(self):
        """From now on, the passes and the errors of devices that could not be read at all are counted, not kept."""
        self.passes_kept = False
        self.results = [item for item in self.results if self._kept_aggregated(item)]

    def _kept_aggregated(self, result) -> bool:
        """Whether a result stays whole in an aggregated run (counting those of an unread device that do not)."""
        if result.status == PASS:
            return False
        if unread_device(result) is None:
            return True
        entry = self.unread.get(result.device)
        if entry is None:
            self.unread[result.device] = {'errors': 1, 'checks': {result.check: 1}, 'seen': result.seen}
            return True
        entry['errors'] += 1
        entry['checks'][result.check] = entry['checks'].get(result.check, 0) + 1
        return False

    def _count_pass(self, result):
        device = result.device
        group = self._groups.get(device)
        if group is None:
            group = self._groups[device] = self.group_of(device)
        key = (result.check, group)
        entry = self.passed_groups.get(key)
        if entry is None:
            entry = self.passed_groups[key] = {
                'check': result.check, 'group': group, 'results': 0, 'devices': set(),
                'example': {'device': device, 'subject': result.subject, 'expected': result.expected,
                            'seen': result.seen}}
        entry['results'] += 1
        entry['devices'].add(device)
        if result.check in self.remember:
            self.passed_keys.add((device, result.check, result.subject))

    def __getstate__(self):  # a share judged in another process comes back without the parent's grouping function
        return {key: value for key, value in self.__dict__.items() if key not in ('group_of', '_groups')}

    def __setstate__(self, state):
        self.__dict__.update(state, group_of=None, _groups={})

    def join(self, later):
        """Take in `later`, the same checks judged on the devices that come after this one's (another process's
        share): the same results, counts and aggregates as if its results had been added here one by one."""
        self.total += later.total
        for status, count in later.counts.items():
            self.counts[status] += count
        for mine, theirs in ((self.by_check, later.by_check), (self.by_device, later.by_device)):
            for key, counts in theirs.items():
                entry = mine.setdefault(key, {state: 0 for state in STATUSES})
                for status, count in counts.items():
                    entry[status] += count
        for link, status in later.links.items():
            self.links[link] = worse(self.links.get(link), status)
        for key, entry in later.passed_groups.items():
            kept = self.passed_groups.get(key)
            if kept is None:
                self.passed_groups[key] = entry
            else:  # the example stays the first one added
                kept['results'] += entry['results']
                kept['devices'] |= entry['devices']
        self.passed_keys |= later.passed_keys
        results = later.results
        if self.passes_kept and (not later.passes_kept or (self.keep_passes is not None
                                                           and self.total > self.keep_passes)):
            self._aggregate()
        if not self.passes_kept:
            results = [item for item in results if self._kept_aggregated(item)] if later.passes_kept else \
                self._join_unread(later)
        self.results.extend(results)

    def _join_unread(self, later) -> list:
        """Take in the unread devices of `later` (aggregated too); its results without the first error of a device
        this one has already kept."""
        known = set()
        for device, entry in later.unread.items():
            mine = self.unread.get(device)
            if mine is None:
                self.unread[device] = dict(entry, checks=dict(entry['checks']))
                continue
            known.add(device)
            mine['errors'] += entry['errors']
            for check, errors in entry['checks'].items():
                mine['checks'][check] = mine['checks'].get(check, 0) + errors
        return [item for item in later.results if unread_device(item) not in known] if known else later.results

    def passed_aggregates(self) -> list:
        """The passes per check and device group: how many, on how many devices, one of them as an example."""
        return [dict(entry, devices=len(entry['devices'])) for _key, entry in sorted(self.passed_groups.items())]


__all__ = ['Judged', 'FULL_RESULTS', 'worse', 'device_group_of', 'unread_device']
