# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Root cause first, from the fabric's dependencies: failed and errored results grouped into causes, each with what
follows from it folded under it.

Every failed or errored result carries what it observed as facts, and its check says which node of the design's
dependency graph those facts are evidence of (`Check.node`; the graph is checks/graph.py: a cable, a port, a BGP
session and the configuration of each of its ends, a VNI, a flood list, a route to a VTEP, a ping, a device, a
daemon...). Then:

1. a node fails when a result shows it, or when what it needs fails (a session needs its link, both ends' bgpd,
   both ends' configuration; a path between two leaves needs any one of its spines);
2. a cause is a failing node whose needs hold: nothing it depends on explains it. Everything else folds under the
   cause it depends on (the first failing need, in the order the graph lists them: nearest first);
3. a cause on a *local* node blames its device: that device's own running state contradicts the design (the spine
   whose neighbour is shut down, the leaf whose VTEP or route is not the design's, the port that is down). A cause on
   a *symptom* (a session down on both ends with everything it needs in place, a ping nothing explains) blames no
   device: it names the devices on the way as suspects, because the state read cannot tell them apart;
4. a configuration that differs from what the deploy pushes (`config_drift`) is a cause of its own; on a device that
   also has a local cause, its lines join that cause as evidence (the same fault seen twice).

Cause text comes from the facts (each check's `finding`), made visible (it quotes what devices showed); facts a
check cannot place or word stay on that check of that device. Nothing here reads the words of a result or orders devices
to choose one. analyse() returns the causes, those that blame a device first; every failed or errored result belongs
to exactly one cause.
"""

from __future__ import annotations

from . import ERROR, FAIL, REGISTRY
from .base import exception_text
from .judged import Judged, unread_device
from ..printable import LIMIT, visible
from .graph import ALL, LOCAL, Graph


class Cause:
    """One fact that explains failures: its evidence (the results that show it) and its consequences."""

    def __init__(self, kind, devices, title, evidence, hint='', node=None, suspects=()):
        self.kind = kind
        self.devices = list(dict.fromkeys(devices))  # to blame: the play fails there
        self.suspects = [name for name in dict.fromkeys(suspects) if name not in self.devices]
        self.title = visible(title, 2 * LIMIT)  # written from facts that quote what devices showed: one line
        self.evidence = list(evidence)
        self.consequences = []
        self.notes = []
        self.hint = visible(hint, 2 * LIMIT)
        self.node = node
        self.drift = []  # lines of configuration that differ from what the deploy pushes (config_drift)
        self.sessions_down = 0  # designed BGP sessions among its results, each counted once (not once per end)
        self.counted = 0  # evidence counted, not kept (the errors of a device that could not be read: Judged.unread)

    @property
    def results(self) -> list:
        return self.evidence + self.consequences

    def more_evidence(self, shown) -> int:
        """How much of its evidence is not among the first `shown` lines (those counted included)."""
        return max(0, len(self.evidence) - shown) + self.counted

    def headline(self) -> str:
        """'spine001: bgpd is not running -> 8 consequences (8 BGP sessions down)'."""
        count = len(self.consequences)
        text = self.title
        if count:
            text += ' -> %d consequence%s' % (count, '' if count == 1 else 's')
            if self.sessions_down:
                text += ' (%d BGP session%s down)' % (self.sessions_down, '' if self.sessions_down == 1 else 's')
        return text

    def summary_of_consequences(self, limit=6) -> str:
        """'spine001 interface_state [eth1], leaf001 bgp_session x2, ...': what follows from the cause, briefly."""
        counts = {}
        for result in self.consequences:
            key = '%s %s' % (result.device, result.check)
            counts[key] = counts.get(key, 0) + 1
        parts = ['%s%s' % (key, ' x%d' % count if count > 1 else '') for key, count in counts.items()]
        return ', '.join(parts[:limit]) + (', ... (%d more)' % (len(parts) - limit) if len(parts) > limit else '')

    def visible_notes(self, limit=None) -> list:
        return [visible(note, 2 * LIMIT) for note in self.notes[:limit]]

    def to_dict(self, index) -> dict:
        return {'id': index, 'kind': self.kind, 'devices': self.devices, 'suspects': self.suspects,
                'title': self.title, 'headline': self.headline(), 'hint': self.hint, 'notes': self.visible_notes(),
                'node': list(self.node) if self.node else None, 'drift': list(self.drift),
                'evidence': [result.line() for result in self.evidence], 'evidence_counted': self.counted,
                'consequences': [result.line() for result in self.consequences]}


class _Engine:
    """The failing nodes of one run and how they depend on each other."""

    def __init__(self, ctx, judged):
        self.graph = Graph(ctx)
        self.graph.know(judged.passed_keys)
        self.observed = {}  # node -> [results showing it], in result order
        self.converging = ctx.options.get('converging') or {}
        unchanged = ctx.options.get('steady') or {}  # device -> result keys failing the same in its last readings
        # Seen failing the same way on a device still changing at its deadline (a wrong MTU beside a flapping BFD
        # session): judged as a fact of the device, not as waiting for the device to converge.
        self.steady = set()
        for result in judged.problems():
            if result.device not in self.converging:
                node = _node(self.graph, result)
            elif result.category == 'drift' or result.key() in unchanged.get(result.device, ()):
                # (a configuration that differs from what the deploy pushes is no state on its way anywhere)
                node = _node(self.graph, result)
                self.steady.add(node)
            else:  # still changing at its deadline (or not seen twice): it waits for the device, and so does all on it
                node = ('device', result.device)
            self.observed.setdefault(node, []).append(result)
        self._failing = {}

    def failing(self, node, path=()) -> bool:
        """Observed failing, or failing because what it needs fails (all-mode: any need; any-mode: every one)."""
        if node in self.observed:
            return True
        if node in self._failing:
            return self._failing[node]
        if node in path:  # the graph has no cycle; a guard all the same
            return False
        mode, needs = self.graph.needs(node)
        path = path + (node,)
        if mode == ALL:
            value = any(self.failing(need, path) for need in needs)
        else:
            value = bool(needs) and all(self.failing(need, path) for need in needs)
        self._failing[node] = value
        return value

    def failed_needs(self, node) -> list:
        """The needs of `node` that fail and explain it (nothing when its needs hold: then it is a cause)."""
        mode, needs = self.graph.needs(node)
        if node in self.steady:  # its device still converging does not explain what stayed the same
            needs = [need for need in needs if not (need[0] == 'device' and need[1] in self.converging)]
        failed = [need for need in needs if self.failing(need)]
        if mode == ALL:
            return failed
        return failed if needs and len(failed) == len(needs) else []

    def cause_of(self, node, seen=None):
        """The cause a failing node folds under: the first observed node without failing needs reached through its
        failing needs (nearest first)."""
        seen = set() if seen is None else seen
        for need in self.failed_needs(node):
            if need in seen:
                continue
            seen.add(need)
            if need in self.observed and not self.failed_needs(need):
                return need
            found = self.cause_of(need, seen)
            if found is not None:
                return found
        return None


def _ordered(evidence):
    """Evidence in the order the checks are declared (the port's own state before its MTU, ...)."""
    order = {check: index for index, check in enumerate(REGISTRY)}
    return sorted(evidence, key=lambda result: order.get(result.check, len(order)))


def _node(graph, result):
    """The node a failed or errored result is evidence of. Facts its check cannot place (a value a device gave that
    nobody foresaw) leave it on that check of that device: one device's output never stops the analysis."""
    check = REGISTRY.get(result.check)
    if check is not None:
        try:
            node = check.node(graph, result)
            hash(node)
            return node
        except Exception:  # pylint: disable=broad-exception-caught  # whatever a device gave
            pass
    return ('check', result.device, result.check)


def _cause(engine, node, evidence):
    evidence = _ordered(evidence)
    check = REGISTRY.get(evidence[0].check)
    kind, title, hint = evidence[0].check, evidence[0].line(), evidence[0].message
    if check is not None:
        try:
            kind, title, hint = check.finding(engine.graph, node, evidence)
        except Exception:  # pylint: disable=broad-exception-caught  # facts nobody foresaw: the result's own line
            pass
    owners = engine.graph.owners(node) or list(dict.fromkeys(result.device for result in evidence))[:20]
    if node[0] in LOCAL or node[0] == 'lossless_design':
        return Cause(kind, owners, title, evidence, hint, node)
    cause = Cause(kind, [], title, evidence, hint, node, suspects=owners)
    cause.notes.append('no device is blamed: what was read cannot tell which of %s is wrong' % ', '.join(owners))
    return cause


def analyse(ctx, results) -> list:
    """Causes of the failed and errored results (`results`: a list, or the Judged of checks.judge()), those that
    blame a device first; each such result belongs to one. Should the dependencies of what devices gave not be
    followed, each check of each device is a cause of its own (saying so): the verdict and every other device's
    results stand."""
    judged = results if isinstance(results, Judged) else Judged.of(
        results, lambda _device: '', remember=(check.id for check in REGISTRY.values() if check.remember_passes))
    if not judged.counts[FAIL] + judged.counts[ERROR]:
        return []
    try:
        return _analyse(ctx, judged)
    except Exception as exc:  # pylint: disable=broad-exception-caught  # whatever devices gave
        return _unplaced(judged, exc)


def _unplaced(judged, exc) -> list:
    """One cause per failing check of each device, blaming that device, when the engine could not place them."""
    found = {}
    for result in judged.problems():
        found.setdefault((result.device, result.check), []).append(result)
    causes = []
    for (device, check), evidence in found.items():
        cause = Cause(check, [device], evidence[0].line(), evidence, evidence[0].message, ('check', device, check))
        cause.notes.append('root cause not placed: the dependencies of what the devices gave could not be followed '
                           '(%s)' % exception_text(exc))
        causes.append(cause)
    return causes


def _analyse(ctx, judged) -> list:
    engine = _Engine(ctx, judged)
    roots = [node for node in engine.observed if not engine.failed_needs(node)]
    causes = {node: _cause(engine, node, engine.observed[node]) for node in roots}
    for node, evidence in engine.observed.items():
        if node in causes:
            continue
        root = engine.cause_of(node)
        causes[root].consequences.extend(evidence)
    found = _join_drift(list(causes.values()))
    counted = {device: entry['errors'] - 1 for device, entry in judged.unread.items()}  # besides the one kept
    for cause in found:
        cause.sessions_down = _sessions(engine.graph, cause)
        cause.counted = sum(counted.pop(unread_device(result), 0) for result in cause.evidence)
        _bfd_notes(cause)
    # those that blame a device first (what to fix), then those that cannot be placed; each group by how much
    # it explains (a stable sort: the order the results came in breaks ties)
    found.sort(key=lambda cause: (not cause.devices, -len(cause.results) - cause.counted))
    return found


def _join_drift(found) -> list:
    """A device's configuration drift joins the local cause found on that device (the same fault, seen in its state
    and in its configuration); drift alone stays a cause of its own."""
    local = {}
    for cause in found:
        if cause.kind not in ('drift', 'not_converged') and cause.devices and cause.node and cause.node[0] in LOCAL:
            for device in cause.devices:
                local.setdefault(device, cause)
    kept = []
    for cause in found:
        target = local.get(cause.devices[0]) if cause.kind == 'drift' and len(cause.devices) == 1 else None
        if target is None:
            if cause.kind == 'drift':
                cause.drift = [line for result in cause.evidence for line in (result.facts or {}).get('lines', [])]
            kept.append(cause)
            continue
        target.evidence.extend(cause.evidence)
        target.consequences.extend(cause.consequences)
        target.drift.extend(line for result in cause.evidence for line in (result.facts or {}).get('lines', []))
        target.notes.append('%s: the configuration differs from what the deploy pushes: %s' % (
            cause.devices[0], '; '.join(target.drift[:6]) + (' ...' if len(target.drift) > 6 else '')))
    return kept


def _sessions(graph, cause) -> int:
    """Designed BGP sessions among a cause's results, each once (both ends of a session are one session)."""
    links = set()
    for result in cause.results:
        facts = result.facts or {}
        if result.check == 'bgp_session' and facts.get('port'):
            links.add(graph.link(result.device, facts['port']))
    return len(links)


def _bfd_notes(cause):
    """Name the BFD flaps that explain a session going down (the facts of its results)."""
    from .fabric import bfd_note  # pylint: disable=import-outside-toplevel
    for result in cause.results:
        facts = result.facts or {}
        if result.check == 'bgp_session' and facts.get('bfd'):
            note = '%s %s: %s' % (result.device, result.subject, bfd_note(facts['key'], facts['bfd']))
            if note not in cause.notes:
                cause.notes.append(note)


def blamed(causes) -> list:
    """Devices the causes are on, in cause order (the play fails there)."""
    return list(dict.fromkeys(device for cause in causes for device in cause.devices))


__all__ = ['analyse', 'blamed', 'Cause']
